"""The LOGAN study (Zhao & Chang, 2020): local group bias of a toxicity classifier, by clustering.

1. :func:`load_logan_data` — features, labels, predictions and group labels of the evaluation rows:
   on real data a MiniLM-based classifier trained on Davidson tweets, the groups by dialect
   (TwitterAAE) and by gendered words; on ``demo``/``smoke`` the synthetic stand-in of
   :mod:`nlpbias.studies.logan.synthetic` with one planted biased region.
2. :func:`run_attribute` — for one attribute (two groups): λ selection, K-Means vs LOGAN (paper
   Tables 1 and 4), the permutation null of the largest cluster gap and random-split gaps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.cache import cached
from nlpbias.core.checks import check_choice, check_int
from nlpbias.core.repro import rng as _rng
from nlpbias.studies.logan.calibration import max_gap_null, random_split_gap
from nlpbias.studies.logan.estimator import LOGAN
from nlpbias.studies.logan.robustness import best_lams, lambda_path, seed_spread, spread_summary
from nlpbias.studies.logan.summaries import compare_with_kmeans, select_lambda
from nlpbias.studies.logan.topics import topic_words

__all__ = [
    "LoganData",
    "load_logan_data",
    "run_attribute",
    "table1",
    "topic_word_table",
]

#: The two groups compared for each attribute on real data (first = A1 in the gap A1 − A2).
ATTRIBUTES = {
    "race": ("white-aligned", "AA-aligned"),
    "gender": ("male", "female"),
}


@dataclass
class LoganData:
    """Evaluation rows of the study: features, labels, predictions, and group labels."""

    X: np.ndarray
    y_true: np.ndarray
    y_pred: np.ndarray
    y_score: np.ndarray
    groups: dict[str, pd.Series]
    pairs: dict[str, tuple[str, str]]
    source: str
    texts: list[str] | None = None
    truth: Any = None
    notes: dict[str, str] = field(default_factory=dict)

    def subset(self, attribute: str) -> dict[str, Any]:
        """Rows whose ``attribute`` group is one of its two compared values."""
        if attribute not in self.groups:
            raise KeyError(f"unknown attribute {attribute!r}; this data has {list(self.groups)}")
        a, b = self.pairs[attribute]
        keep = self.groups[attribute].isin([a, b]).to_numpy()
        return {
            "X": self.X[keep],
            "y_true": self.y_true[keep],
            "y_pred_or_score": self.y_pred[keep],
            "group": self.groups[attribute].to_numpy()[keep],
            "texts": None
            if self.texts is None
            else [t for t, k in zip(self.texts, keep, strict=True) if k],
            "index": np.flatnonzero(keep),
        }

    def group_counts(self) -> pd.DataFrame:
        """Rows per attribute and group (all values, including those not compared)."""
        return (
            pd.concat(
                {a: g.value_counts() for a, g in self.groups.items()}, names=["attribute", "group"]
            )
            .rename("rows")
            .reset_index()
        )


@cached
def _classify(
    train_texts: list[str],
    train_y: list[int],
    test_texts: list[str],
    classifier: str,
    params: dict[str, Any],
    seed: int,
) -> dict[str, np.ndarray]:
    from nlpbias.studies.logan.finetune import FineTunedEncoderClassifier
    from nlpbias.studies.logan.frozen import FrozenEncoderClassifier

    cls = {"frozen": FrozenEncoderClassifier, "finetune": FineTunedEncoderClassifier}[classifier]
    clf = cls(random_state=seed, **params).fit(train_texts, np.asarray(train_y))
    proba, X = clf.predict_proba_and_features(test_texts)  # one pass over the test tweets
    return {"score": proba[:, 1], "X": X}


def load_logan_data(
    *,
    use_data_home: bool,
    max_rows: int | None,
    max_train: int | None,
    classifier: str,
    classifier_params: dict[str, Any] | None,
    n_synthetic: int,
    random_state: int | None,
    test_fraction: float = 0.2,
) -> LoganData:
    """The study's evaluation rows (see the module docstring).

    ``max_rows`` (real data only): at most this many Davidson tweets, drawn at random before the
    train/test split (``None``: all of them); ``max_train``: at most this many of them train the
    classifier (``None``: the whole training split).
    """
    check_choice(classifier, "classifier", ("frozen", "finetune"))
    for value, name in ((max_rows, "max_rows"), (max_train, "max_train")):
        if value is not None:
            check_int(value, name, minimum=20)
    gen = _rng(random_state)
    if not use_data_home:
        from nlpbias.studies.logan.synthetic import make_local_bias_data

        d = make_local_bias_data(n_synthetic, random_state=gen)
        return LoganData(
            X=d["X"],
            y_true=d["y_true"],
            y_pred=d["y_pred"],
            y_score=d["y_score"],
            groups={"planted": pd.Series(d["group"], name="planted")},
            pairs={"planted": ("A", "B")},
            source="synthetic",
            truth=d,
            notes={"stand-in": "synthetic features with one planted biased region"},
        )
    from nlpbias.data.groups import gender_groups
    from nlpbias.data.splits import stratified_split
    from nlpbias.data.toxicity import load_davidson
    from nlpbias.data.twitteraae import dialect_group, load_dialect_model

    tweets = load_davidson()[["text", "toxic"]].reset_index(drop=True)
    if max_rows is not None and len(tweets) > max_rows:
        tweets = tweets.sample(n=max_rows, random_state=gen).reset_index(drop=True)
    train, test = stratified_split(tweets, test_fraction, gen)
    if max_train is not None and len(train) > max_train:
        train = train.sample(n=max_train, random_state=gen)
    texts = test["text"].tolist()
    out = _classify(
        train["text"].tolist(),
        train["toxic"].astype(int).tolist(),
        texts,
        classifier,
        dict(classifier_params or {}),
        int(gen.integers(2**31)),
    )
    y_true = test["toxic"].to_numpy(int)
    posterior = load_dialect_model().posterior(texts)
    return LoganData(
        X=out["X"],
        y_true=y_true,
        y_pred=(out["score"] >= 0.5).astype(int),
        y_score=out["score"],
        groups={
            "race": dialect_group(posterior).reset_index(drop=True),
            "gender": gender_groups(texts).reset_index(drop=True),
        },
        pairs=dict(ATTRIBUTES),
        source="real",
        texts=texts,
        notes={"classifier": f"{classifier} MiniLM on {len(train):,} Davidson tweets"},
    )


def table1(kmeans: LOGAN, logan: LOGAN) -> pd.DataFrame:
    """The paper's Table 1: global accuracy of each group, and of the cluster with the largest
    gap for K-Means and for LOGAN (accuracy in %, bias = |gap| in points)."""
    rows = {}
    attrs = logan.cluster_report_.attrs
    rows["Global"] = {
        "acc_1": 100 * attrs["global_metric_a1"],
        "acc_2": 100 * attrs["global_metric_a2"],
    }
    for name, est in (("K-Means", kmeans), ("LOGAN", logan)):
        rep = est.cluster_report_
        rep = rep[rep["eligible"]]
        if rep.empty:
            raise ValueError(f"{name}: no eligible cluster; lower min_group_size or use more data")
        top = rep.loc[rep["abs_gap"].idxmax()]
        rows[name] = {"acc_1": 100 * top["metric_a1"], "acc_2": 100 * top["metric_a2"]}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out["bias"] = (out["acc_1"] - out["acc_2"]).abs()
    return out


def run_attribute(
    data: LoganData,
    attribute: str,
    *,
    n_clusters: int,
    lam_grid: tuple[float, ...],
    min_group_size: int,
    n_permutations: int,
    random_state: int | None,
    min_clusters: int = 5,
    n_init: int = 1,
    threshold: float = 5.0,
    show_progress: bool = True,
) -> dict[str, Any]:
    """λ selection, K-Means vs LOGAN, the permutation null and random-split gaps for one attribute.

    Returns
    -------
    dict
        ``lam`` (chosen), ``lambda_table``, ``table1``, ``table4``
        (:func:`nlpbias.studies.logan.summaries.compare_with_kmeans`), ``kmeans`` and ``logan``
        (fitted), ``null`` (NullResult), ``split_gaps`` and ``subset`` (the rows used).
    """
    sub = data.subset(attribute)
    fit = {k: sub[k] for k in ("y_true", "y_pred_or_score", "group")}
    est = LOGAN(
        n_clusters=n_clusters,
        min_group_size=min_group_size,
        min_clusters=min_clusters,
        n_init=n_init,
        groups=data.pairs[attribute],
        random_state=random_state,
    )
    lam, lam_table = select_lambda(
        sub["X"], **fit, estimator=est, grid=lam_grid, threshold=threshold
    )
    est = est.set_params(lam=lam)
    kmeans = LOGAN(**{**est.get_params(), "lam": 0.0}).fit(sub["X"], **fit)
    logan = LOGAN(**est.get_params()).fit(sub["X"], **fit)
    table4 = compare_with_kmeans(sub["X"], **fit, estimator=est, threshold=threshold)
    null = max_gap_null(
        sub["X"],
        **fit,
        estimator=est,
        n_permutations=n_permutations,
        random_state=random_state,
        show_progress=show_progress,
    )
    splits = random_split_gap(
        sub["y_true"], sub["y_pred_or_score"], n_splits=5, random_state=random_state
    )
    return {
        "lam": lam,
        "lambda_table": lam_table,
        "table1": table1(kmeans, logan),
        "table4": table4,
        "kmeans": kmeans,
        "logan": logan,
        "null": null,
        "split_gaps": splits,
        "subset": sub,
    }


def topic_word_table(
    runs: dict[str, dict[str, Any]],
    *,
    exclude: list[str] | tuple[str, ...] = (),
    n_words: int = 10,
    random_state: int | None,
) -> pd.DataFrame:
    """Topic words of the most and the least biased eligible LOGAN cluster of each attribute.

    ``runs`` maps an attribute to the output of :func:`run_attribute` (its subset must have
    texts). Returns ``attribute, cluster, which ('most biased'/'least biased'), gap_pts, words``;
    an attribute whose LOGAN fit is degenerate (no usable λ: ``table4``'s ``degenerate``) is
    left out.
    """
    rows = []
    for attr, r in runs.items():
        t4 = r.get("table4")
        if t4 is not None and "degenerate" in t4 and str(t4.loc["LOGAN", "degenerate"]):
            continue  # no usable λ: a degenerate fit's clusters are not read
        texts = r["subset"]["texts"]
        if texts is None:
            raise ValueError(f"{attr}: these rows have no texts (synthetic data); nothing to read")
        rep = r["logan"].cluster_report_.query("eligible")
        picks = {
            "most biased": rep.loc[rep["abs_gap"].idxmax()],
            "least biased": rep.loc[rep["abs_gap"].idxmin()],
        }
        words = topic_words(
            texts,
            r["logan"].labels_,
            clusters=[int(p["cluster"]) for p in picks.values()],
            n_words=n_words,
            exclude=list(exclude),
            random_state=random_state,
        )
        for which, p in picks.items():
            w = words[words["cluster"] == p["cluster"]].sort_values("rank")["word"]
            rows.append(
                {
                    "attribute": attr,
                    "cluster": int(p["cluster"]),
                    "which": which,
                    "gap_pts": 100 * float(p["gap"]),
                    "words": ", ".join(w),
                }
            )
    return pd.DataFrame(rows)


def run_robustness(
    data: LoganData,
    attribute: str,
    *,
    path_grid: tuple[float, ...],
    n_seeds: int,
    n_clusters: int,
    min_group_size: int,
    random_state: int | None,
    min_clusters: int = 5,
    show_progress: bool = True,
) -> dict[str, Any]:
    """The λ path of both rules and the spread over k-means++ seeds for one attribute.

    Returns
    -------
    dict
        ``path`` (:func:`~nlpbias.studies.logan.robustness.lambda_path`), ``lams`` (the usable
        ``lam`` per rule with the most biased clusters), ``spread``
        (:func:`~nlpbias.studies.logan.robustness.seed_spread` at those ``lam``) and ``summary``
        (:func:`~nlpbias.studies.logan.robustness.spread_summary`).
    """
    sub = data.subset(attribute)
    est = LOGAN(
        n_clusters=n_clusters,
        min_group_size=min_group_size,
        min_clusters=min_clusters,
        groups=data.pairs[attribute],
        random_state=random_state,
    )
    path = lambda_path(sub, estimator=est, grid=path_grid)
    lams = best_lams(path)
    spread = seed_spread(
        sub, lams=lams, estimator=est, n_seeds=n_seeds, show_progress=show_progress
    )
    return {"path": path, "lams": lams, "spread": spread, "summary": spread_summary(spread)}
