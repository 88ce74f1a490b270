"""The Dixon et al. (2018) experiment: baseline, random control and bias-mitigated model families.

One run of the study is

1. :func:`load_study_data` — training texts, the mitigation and random-control pools, and the
   evaluation sets (a held-out general set, the identity templates, and on real data the Wikipedia
   Talk comments);
2. :func:`build_families` — the three training sets: as is, plus random snippets, plus non-toxic
   texts with over-represented identity terms
   (:func:`nlpbias.studies.pinned_auc.mitigation.balance_by_length`);
3. :func:`train_and_score` — one model per (family, seed), same architecture and budget, scores
   on every evaluation set (cached on disk, so re-running the chapter does not retrain);
4. :func:`evaluate` — per model: AUC per set, per-term metrics, FPED / FNED / PAED and the
   competition score, with the threshold at the equal error rate of the general set;
5. :func:`family_summary` — per family: mean, spread and a bootstrap interval over seeds, and the
   sum over seeds (the paper's Table 5 sums over its 10 models).

Examples
--------
>>> data = load_study_data(use_data_home=False, corpus="davidson", test_fraction=0.2,
...                        validation_fraction=0.0, max_train=None, max_templates=None,
...                        n_synthetic=2000, random_state=0)  # doctest: +SKIP
>>> fams, balance = build_families(data, terms=["gay"], n_buckets=5,
...                                random_state=0)  # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.cache import cached
from nlpbias.core.checks import check_int
from nlpbias.core.repro import rng as _rng
from nlpbias.core.sweep import run_sweep
from nlpbias.data.splits import stratified_split
from nlpbias.studies.pinned_auc.metrics import UndefinedMetricWarning, bias_report
from nlpbias.studies.pinned_auc.roc import eer_threshold

__all__ = [
    "CORPORA",
    "FAMILIES",
    "StudyData",
    "build_families",
    "equality_summary",
    "load_second_domain",
    "evaluate",
    "family_summary",
    "load_study_data",
    "paper_comparison",
    "pinned_backgrounds",
    "reported",
    "train_and_score",
]

#: The three model families, in the order the paper reports them.
FAMILIES = ("baseline", "random control", "bias mitigated")


@dataclass
class StudyData:
    """Everything one run of the study trains and evaluates on (schema: ``text``, ``toxic``)."""

    train: pd.DataFrame
    debias_pool: pd.DataFrame
    random_pool: pd.DataFrame
    eval_sets: dict[str, pd.DataFrame]
    source: str
    terms: list[str]
    #: The training corpus: ``"wikipedia_talk"`` (the paper's), ``"davidson"`` (tweets) or
    #: ``"synthetic"`` (the stand-in).
    corpus: str
    notes: dict[str, str] = field(default_factory=dict)
    #: A fixed validation set for the CNN's early stopping, the same for every family; None:
    #: each model holds out ``validation_fraction`` of its own training set.
    validation: pd.DataFrame | None = None

    def sizes(self) -> pd.DataFrame:
        """Rows and toxic share of every part (training set, pools, evaluation sets)."""
        parts = {
            "train": self.train,
            **({"validation": self.validation} if self.validation is not None else {}),
            "mitigation pool": self.debias_pool,
            "random pool": self.random_pool,
            **self.eval_sets,
        }
        return pd.DataFrame(
            [
                {"part": k, "rows": len(v), "toxic_share": float(v["toxic"].mean())}
                for k, v in parts.items()
            ]
        )


#: The training corpora of :func:`load_study_data` with the data home, and their names in prose.
CORPORA = {
    "wikipedia_talk": "Wikipedia Talk comments (Jigsaw 2018)",
    "davidson": "Davidson et al. tweets",
}


def load_study_data(
    *,
    use_data_home: bool,
    corpus: str,
    test_fraction: float,
    validation_fraction: float,
    max_train: int | None,
    max_templates: int | None,
    n_synthetic: int,
    random_state: int | None,
) -> StudyData:
    """The study's data: a real corpus with Dixon's files from the data home, or the stand-in.

    Real (``use_data_home``): the training corpus ``corpus`` — ``"wikipedia_talk"``, the 20,000
    Wikipedia Talk comments of :func:`nlpbias.data.dixon.load_wikipedia_talk_2018` (the
    paper's corpus family), or ``"davidson"``, the Davidson 2017 tweets (toxic = hate or
    offensive) — split at random, stratified by label, into train, a ``validation_fraction``
    for the CNN's early stopping (0: each model holds out its own) and a held-out ``general``
    test set of ``test_fraction``; pools = the ``train`` split of Dixon's mitigation and
    random-control files; evaluation sets ``general``, ``templates`` (``bias_madlibs_77k.csv``)
    and ``wiki talk`` (the 1,492 Wikipedia Talk comments of Dixon's identity test set).
    Synthetic: :func:`nlpbias.studies.pinned_auc.synthetic.make_mitigation_scenario`, sized by
    ``n_synthetic`` training texts (``corpus`` and the fractions are not used).
    """
    gen = _rng(random_state)
    if not use_data_home:
        from nlpbias.studies.pinned_auc.synthetic import DEFAULT_TERMS, make_mitigation_scenario

        sc = make_mitigation_scenario(
            n_train=n_synthetic,
            n_pool=n_synthetic // 2,
            n_test=n_synthetic // 2,
            random_state=gen,
        )
        return StudyData(
            train=sc["train"],
            debias_pool=sc["debias_pool"],
            random_pool=sc["random_pool"],
            eval_sets={"general": sc["general_test"], "templates": sc["templates"]},
            source="synthetic",
            terms=list(DEFAULT_TERMS),
            corpus="synthetic",
            notes={"stand-in": "synthetic corpus with a planted identity-term imbalance"},
        )
    if corpus not in CORPORA:
        raise ValueError(f"unknown corpus {corpus!r}: choose one of {', '.join(CORPORA)}")
    from nlpbias.data import dixon, toxicity
    from nlpbias.data.identity import load_identity_terms
    from nlpbias.data.splits import train_validation_test_split

    if corpus == "wikipedia_talk":
        texts = dixon.load_wikipedia_talk_2018().reset_index(drop=True)
    else:
        texts = toxicity.load_davidson()[["text", "toxic"]].reset_index(drop=True)
    validation = None
    if validation_fraction > 0:
        train, validation, general = train_validation_test_split(
            texts,
            validation_fraction=validation_fraction,
            test_fraction=test_fraction,
            random_state=gen,
        )
        validation = validation.reset_index(drop=True)
    else:  # the draws of the book before the validation split (Davidson's numbers unchanged)
        train, general = stratified_split(texts, test_fraction, gen)
    if max_train is not None and len(train) > max_train:
        train = train.sample(n=max_train, random_state=gen)
    pools = {k: dixon.load_dixon_pool(k) for k in ("debias", "random")}
    pools = {k: v[v["split"] == "train"][["text", "toxic"]] for k, v in pools.items()}
    templates = dixon.load_dixon_templates()[["text", "toxic"]]
    if max_templates is not None and len(templates) > max_templates:
        templates = templates.sample(n=max_templates, random_state=gen)
    wiki = dixon.load_dixon_wiki_test()[["text", "toxic"]]
    return StudyData(
        train=train.reset_index(drop=True),
        debias_pool=pools["debias"].reset_index(drop=True),
        random_pool=pools["random"].reset_index(drop=True),
        eval_sets={
            "general": general.reset_index(drop=True),
            "templates": templates,
            "wiki talk": wiki,
        },
        source="real",
        terms=load_identity_terms("dixon2018"),
        notes={"training data": CORPORA[corpus]},
        corpus=corpus,
        validation=validation,
    )


def load_second_domain(
    corpus: str,
    *,
    validation_fraction: float,
    test_fraction: float,
    max_train: int | None,
    max_templates: int | None,
    random_state: int | None,
) -> StudyData | None:
    """The real corpus of the chapter's second domain (:func:`load_study_data`, split the same way
    as the main corpus), or None when ``corpus`` is empty (no data home: no second domain)."""
    if not corpus:
        return None
    return load_study_data(
        use_data_home=True,
        corpus=corpus,
        validation_fraction=validation_fraction,
        test_fraction=test_fraction,
        max_train=max_train,
        max_templates=max_templates,
        n_synthetic=0,
        random_state=random_state,
    )


def equality_summary(
    run: Mapping[str, Any] | None,
    *,
    eval_set: str = "templates",
    metrics: Sequence[str] = ("FPED", "FNED", "PAED"),
    n_bootstrap: int,
    random_state: int | None,
) -> pd.DataFrame:
    """:func:`family_summary` of a scenario's equality differences on ``eval_set`` (the paper's
    Table 5 per family), from :func:`~nlpbias.studies.pinned_auc.scenarios.run_scenario`'s
    output; an empty frame when ``run`` is None."""
    if run is None:
        return pd.DataFrame(columns=["family", "eval_set", "metric", "n_models", "mean", "ci_low",
                                     "ci_high"])  # fmt: skip
    summary = run["results"]["summary"]
    return family_summary(
        summary[summary["eval_set"] == eval_set],
        metrics=list(metrics),
        n_bootstrap=n_bootstrap,
        random_state=random_state,
    )


def build_families(
    data: StudyData, *, terms: Sequence[str], n_buckets: int, random_state: int | None
) -> tuple[dict[str, pd.DataFrame], Any]:
    """The training sets of the three families and the mitigation's :class:`BalanceResult`."""
    from nlpbias.studies.pinned_auc.mitigation import augment, balance_by_length, random_control

    gen = _rng(random_state)
    balance = balance_by_length(
        data.train, data.debias_pool, terms=terms, n_buckets=n_buckets, random_state=gen
    )
    control = random_control(
        data.train, data.random_pool, balance, n_buckets=n_buckets, random_state=gen
    )
    families = {
        "baseline": data.train[["text", "toxic"]].reset_index(drop=True),
        "random control": augment(data.train, control),
        "bias mitigated": augment(data.train, balance.added),
    }
    return families, balance


@cached
def _fit_and_score(
    texts: list[str],
    labels: list[bool],
    eval_texts: dict[str, list[str]],
    model: str,
    model_params: dict[str, Any],
    embedding: str | None,
    seed: int,
    validation: tuple[list[str], list[bool]] | None = None,
) -> dict[str, np.ndarray]:
    from nlpbias.models import load_embeddings
    from nlpbias.models.classifiers import make_classifier

    params = dict(model_params)
    if model == "cnn" and embedding:
        # the vectors are the same for every classifier seed: a pretrained name ignores both
        # keywords; a trained one ("word2vec:CORPUS") is trained on all documents, seed 0
        vectors = load_embeddings([embedding], max_docs=None, random_state=0)
        params["embedding"] = vectors[embedding]
    clf = make_classifier(model, random_state=seed, **params)
    if validation is not None:
        clf.fit(texts, np.asarray(labels, dtype=int),
                validation=(validation[0], np.asarray(validation[1], dtype=int)))  # fmt: skip
    else:
        clf.fit(texts, np.asarray(labels, dtype=int))
    return {name: clf.predict_proba(t)[:, 1] for name, t in eval_texts.items()}


def train_and_score(
    families: Mapping[str, pd.DataFrame],
    eval_sets: Mapping[str, pd.DataFrame],
    *,
    seeds: Sequence[int],
    model: str,
    model_params: Mapping[str, Any] | None,
    embedding: str | None,
    n_jobs: int,
    progress: bool = True,
    validation: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Train one model per (family, seed) and score every evaluation set.

    Parameters
    ----------
    validation : DataFrame, optional
        A fixed validation set (``text``, ``toxic``) for the CNN's early stopping, the same for
        every family (:attr:`StudyData.validation`); ignored by the linear model.
    n_jobs : int
        Models trained at once, each in its own process (:func:`nlpbias.core.sweep.run_sweep`,
        ``executor="process"``); 1 trains them one after the other here. Every model carries
        its own seed and the CNN trains on one torch thread whatever ``n_jobs`` is, so the
        scores are the same, bit for bit, for any ``n_jobs``. On the project's 2-core machine
        two CNNs at once (one thread each) take about half the time of one after the other.

    Returns
    -------
    pandas.DataFrame
        Long format: ``family, seed, eval_set, row, toxic, score`` (``row`` = position in the set).
    """
    if not families or not eval_sets or not len(seeds):
        raise ValueError("need at least one family, one evaluation set and one seed")
    n_jobs = check_int(n_jobs, "n_jobs", minimum=1)
    eval_texts = {name: df["text"].tolist() for name, df in eval_sets.items()}
    runs = [(f, s) for f in families for s in seeds]
    texts = {f: families[f]["text"].tolist() for f in families}
    labels = {f: families[f]["toxic"].astype(bool).tolist() for f in families}
    tasks = [
        {
            "texts": texts[family],
            "labels": labels[family],
            "eval_texts": eval_texts,
            "model": model,
            "model_params": dict(model_params or {}),
            "embedding": embedding if model == "cnn" else None,
            "seed": int(seed),
            **(
                {
                    "validation": (
                        validation["text"].tolist(),
                        validation["toxic"].astype(bool).tolist(),
                    )
                }
                if validation is not None and model == "cnn"
                else {}
            ),  # fmt: skip
        }
        for family, seed in runs
    ]
    executor = "process" if n_jobs > 1 else "serial"
    all_scores = run_sweep(
        _fit_and_score, tasks, executor=executor, n_jobs=n_jobs, show_progress=progress,
        desc="models",
    )  # fmt: skip
    frames = []
    for (family, seed), scores in zip(runs, all_scores, strict=True):
        for name, score in scores.items():
            frames.append(
                pd.DataFrame(
                    {
                        "family": family,
                        "seed": int(seed),
                        "eval_set": name,
                        "row": np.arange(len(score)),
                        "toxic": eval_sets[name]["toxic"].to_numpy(bool),
                        "score": score,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def evaluate(
    scores: pd.DataFrame,
    eval_sets: Mapping[str, pd.DataFrame],
    *,
    terms: Sequence[str],
    threshold_on: str,
    random_state: int | None,
) -> dict[str, pd.DataFrame]:
    """Metrics of every model on every set, thresholded at the EER of ``threshold_on``.

    Returns
    -------
    dict of DataFrames
        ``overall`` (family, seed, eval_set, auc, threshold, fpr, fnr), ``by_term`` (family, seed,
        eval_set + the per-term columns of :class:`~nlpbias.studies.pinned_auc.metrics.BiasReport`),
        ``summary`` (family, seed, eval_set, FPED, FNED, PAED, final_score and term counts).
    """
    if threshold_on not in eval_sets:
        raise ValueError(
            f"threshold_on={threshold_on!r} is not an evaluation set: {list(eval_sets)}"
        )
    from nlpbias.data.identity import term_mask

    membership = {
        name: term_mask(df["text"], list(terms)).reset_index(drop=True)
        for name, df in eval_sets.items()
    }
    overall, by_term, summary = [], [], []
    keys = scores[["family", "seed"]].drop_duplicates().itertuples(index=False)
    for family, seed in keys:
        model = scores[(scores["family"] == family) & (scores["seed"] == seed)]
        ref = model[model["eval_set"] == threshold_on]
        threshold = eer_threshold(ref["toxic"].to_numpy(), ref["score"].to_numpy())
        for name in eval_sets:
            part = model[model["eval_set"] == name].sort_values("row")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)  # reported per term
                rep = bias_report(
                    part["toxic"].to_numpy(),
                    part["score"].to_numpy(),
                    membership=membership[name],
                    threshold=threshold,
                    random_state=random_state,
                )
            key = {"family": family, "seed": seed, "eval_set": name}
            overall.append({**key, **rep.overall.to_dict()})
            by_term.append(rep.by_group.assign(**key))
            diff = rep.difference().to_dict()
            try:
                diff["final_score"] = rep.final_score()
            except ValueError:  # no term has the bias AUCs defined (e.g. a one-class set)
                diff["final_score"] = float("nan")
            summary.append({**key, **diff})
    by_term_df = pd.concat(by_term, ignore_index=True)
    lead = ["family", "seed", "eval_set"]
    by_term_df = by_term_df[lead + [c for c in by_term_df.columns if c not in lead]]
    return {
        "overall": pd.DataFrame(overall),
        "by_term": by_term_df,
        "summary": pd.DataFrame(summary),
    }


#: The pinned AUC's backgrounds (``bias_report``'s ``pinned_background``) in words.
BACKGROUND_LABELS = {
    "non_subgroup": "all other texts",
    "all": "all texts",
    "equal_groups": "equal groups",
}


def pinned_backgrounds(
    scores: pd.DataFrame,
    eval_sets: Mapping[str, pd.DataFrame],
    *,
    terms: Sequence[str],
    eval_set: str = "templates",
    backgrounds: Sequence[str] = ("non_subgroup", "equal_groups"),
    random_state: int | None,
) -> pd.DataFrame:
    """PAED of every model on ``eval_set`` under each way of drawing the pinned AUC's background.

    ``non_subgroup`` is the chapter's pinned AUC (the background drawn from all texts without the
    term); ``equal_groups`` is the variant of Dixon et al.'s appendix, which draws it equally from
    every other term's texts (:func:`~nlpbias.studies.pinned_auc.metrics.bias_report`). PAED
    does not depend on a threshold. Returns ``family, seed, background, model`` (the background
    in words and the family, one row label per pair for a figure) and ``PAED``.
    """
    if eval_set not in eval_sets:
        raise ValueError(f"eval_set={eval_set!r} is not an evaluation set: {list(eval_sets)}")
    from nlpbias.data.identity import term_mask

    membership = term_mask(eval_sets[eval_set]["text"], list(terms)).reset_index(drop=True)
    part = scores[scores["eval_set"] == eval_set]
    rows = []
    for (family, seed), model in part.groupby(["family", "seed"], sort=False):
        model = model.sort_values("row")
        for background in backgrounds:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                rep = bias_report(
                    model["toxic"].to_numpy(),
                    model["score"].to_numpy(),
                    membership=membership,
                    threshold=0.5,  # PAED uses no threshold
                    random_state=random_state,
                    pinned_background=background,
                )
            rows.append({"family": family, "seed": seed, "background": background,
                         "model": f"{BACKGROUND_LABELS.get(background, background)}: {family}",
                         "PAED": float(rep.difference()["PAED"])})  # fmt: skip
    return pd.DataFrame(rows)


def family_summary(
    table: pd.DataFrame,
    *,
    metrics: Sequence[str],
    by: Sequence[str] = ("family", "eval_set"),
    n_bootstrap: int,
    confidence_level: float = 0.95,
    random_state: int | None,
) -> pd.DataFrame:
    """Mean, std, sum over seeds and a bootstrap CI of the mean, per family (and set).

    Returns
    -------
    pandas.DataFrame
        ``*by, metric, n_models, mean, std, ci_low, ci_high, sum``.
    """
    gen = _rng(random_state)
    alpha = (1 - confidence_level) / 2
    rows = []
    for key, group in table.groupby(list(by), sort=False):
        for metric in metrics:
            values = group[metric].dropna().to_numpy(float)
            if values.size == 0:
                continue
            boot = gen.choice(values, size=(n_bootstrap, values.size), replace=True).mean(axis=1)
            rows.append(
                {
                    **dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True)),
                    "metric": metric,
                    "n_models": values.size,
                    "mean": values.mean(),
                    "std": values.std(ddof=1) if values.size > 1 else 0.0,
                    "ci_low": np.quantile(boot, alpha),
                    "ci_high": np.quantile(boot, 1 - alpha),
                    "sum": values.sum(),
                }
            )
    return pd.DataFrame(rows)


def reported(name: str = "dixon2018") -> dict[str, pd.DataFrame]:
    """The paper's numbers from ``data/reported/<name>.yaml`` as tables.

    Returns
    -------
    dict
        ``table4`` (eval_set, family, reported_auc), ``table5`` (metric, family, reported_sum),
        ``n_models`` (the number of models per family the sums run over), ``table3``,
        ``table1`` (per term, the percent of toxic and of all comments that contain it) and
        ``setup`` (``train_comments``, ``test_comments``, ``test_toxic_share``).
    """
    from nlpbias.data.reported import load_reported

    spec = load_reported(name)
    t4 = [
        {"eval_set": s, "family": f, "reported_auc": v}
        for s, fam in spec["table4_auc"].items()
        for f, v in fam.items()
    ]
    sums = dict(spec["table5_sums"])
    n_models = sums.pop("n_models")
    t5 = [
        {"metric": m, "family": f, "reported_sum": v}
        for m, fam in sums.items()
        for f, v in fam.items()
    ]
    return {
        "table4": pd.DataFrame(t4),
        "table5": pd.DataFrame(t5),
        "n_models": n_models,
        "table3": spec.get("table3_thought_experiment", {}),
        "table1": spec.get("table1_pct", {}),
        "setup": spec.get("setup", {}),
    }


def paper_comparison(
    table4: pd.DataFrame, table5: pd.DataFrame, *, families: Sequence[str] = FAMILIES
) -> pd.DataFrame:
    """Our mean per family beside the paper's, for overall AUC and the equality differences.

    Parameters
    ----------
    table4 : DataFrame
        :func:`family_summary` of ``auc`` merged with ``reported()["table4"]``: columns
        ``eval_set``, ``family``, ``mean``, ``reported_auc``.
    table5 : DataFrame
        :func:`family_summary` of FPED/FNED/PAED merged with ``reported()["table5"]``, plus
        ``paper_per_model`` (the paper's sum over its models divided by their number): columns
        ``metric``, ``family``, ``mean``, ``paper_per_model``.
    families : sequence of str
        Column order.

    Returns
    -------
    pandas.DataFrame
        Rows ``AUC, <eval_set>`` and the equality differences; columns (family, ``mean`` |
        ``paper``).
    """
    need4 = {"eval_set", "family", "mean", "reported_auc"} - set(table4.columns)
    need5 = {"metric", "family", "mean", "paper_per_model"} - set(table5.columns)
    if need4 or need5:
        raise ValueError(
            f"paper_comparison: missing columns {sorted(need4)} in table4 and {sorted(need5)} "
            "in table5; pass the merged tables of the chapter"
        )
    rows = pd.concat(
        [
            table4.assign(metric="AUC, " + table4["eval_set"].astype(str)).rename(
                columns={"reported_auc": "paper"}
            ),
            table5.rename(columns={"paper_per_model": "paper"}),
        ]
    )
    wide = rows.pivot(index="metric", columns="family", values=["mean", "paper"])
    wide = wide.swaplevel(axis=1)[list(families)]
    return wide.dropna(how="all")  # a metric neither this run nor the paper has: no row
