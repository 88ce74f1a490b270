"""The chapter's scenarios, and the tables that set them side by side.

The first scenario is the paper's recipe on this book's data (:mod:`.study`): on `paper`,
Wikipedia Talk comments, the paper's corpus family; the second runs the same recipe on another
domain (Davidson tweets). :func:`skewed_scenario` keeps every part in-domain and gives chosen
identity terms the skew of Dixon et al.'s Table 1 (:mod:`.skew`), so that the mitigation has
something to undo. :func:`run_scenario` runs the three families on any of them;
:func:`template_differences` restricts the equality differences to the terms a scenario skewed;
:func:`mechanism_verdicts` says, per metric, whether the mitigation beats *both* the baseline
and the random control, and :func:`paper_rule` adds the paper's condition on the general AUC;
:func:`family_difference` is the mitigated-minus-baseline difference with a bootstrap interval
over seeds (the scorecard's number).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.repro import rng as _rng
from nlpbias.studies.pinned_auc.skew import SkewResult, skew_in_domain, table1_ratios
from nlpbias.studies.pinned_auc.study import (
    StudyData,
    build_families,
    evaluate,
    family_summary,
    reported,
    train_and_score,
)

__all__ = [
    "compare_scenarios",
    "family_difference",
    "mechanism_verdicts",
    "paper_rule",
    "run_scenario",
    "scenario_table",
    "scenario_verdicts",
    "skewed_scenario",
    "template_differences",
]

#: Display names of the per-model AUC columns in :func:`scenario_table`.
_TABLE_LABELS = {"auc_templates": "AUC, templates", "auc_general": "AUC, general"}

_DIFF = {"FPED": ("fpr", "fpr"), "FNED": ("fnr", "fnr"), "PAED": ("pinned_auc", "auc")}


def skewed_scenario(
    data: StudyData,
    *,
    targets: Mapping[str, float] | None = None,
    toxic_share: float,
    hold_back: float,
    random_state: int | None,
) -> tuple[StudyData, SkewResult]:
    """The in-domain skew scenario built from ``data``'s training texts.

    The training set is :func:`.skew.skew_in_domain` of ``data.train`` (default targets: Dixon
    et al.'s Table 1 ratios); the mitigation pool is its held-back non-toxic texts, the control
    pool its held-out random non-toxic texts; the evaluation sets and terms are ``data``'s.
    """
    if targets is None:
        targets = table1_ratios(reported("dixon2018")["table1"])
    skew = skew_in_domain(
        data.train,
        targets,
        toxic_share=toxic_share,
        hold_back=hold_back,
        random_state=random_state,
    )
    if skew.held_back.empty or skew.control_pool.empty:
        why = (
            "too few texts with the Table 1 terms to skew any (every term too rare)"
            if not skew.skewed_terms
            else f"no non-toxic text of the skewed terms ({', '.join(skew.skewed_terms)}) left "
            "to hold back"
        )
        raise ValueError(
            f"skewed_scenario: the {len(data.train):,} training texts hold {why}, so the "
            + ("mitigation pool" if skew.held_back.empty else "control pool")
            + " is empty; run the scenario on more training texts (a larger max_train or "
            "n_synthetic)"
        )
    scenario = replace(
        data,
        train=skew.train.reset_index(drop=True),
        debias_pool=skew.held_back[["text", "toxic"]].reset_index(drop=True),
        random_pool=skew.control_pool.reset_index(drop=True),
        notes={
            **data.notes,
            "scenario": (
                f"in-domain skew: toxic share {toxic_share:g}, Table 1 ratios on "
                f"{', '.join(skew.skewed_terms) or 'no term'}; pools held back from the "
                "training texts"
            ),
        },
    )
    return scenario, skew


def run_scenario(
    data: StudyData,
    *,
    seeds: Sequence[int],
    model: str,
    model_params: Mapping[str, Any] | None,
    embedding: str | None,
    n_buckets: int,
    threshold_on: str,
    n_jobs: int,
    progress: bool = True,
    random_state: int | None,
) -> dict[str, Any]:
    """Build the three families of ``data``, train one model per family and seed, evaluate.

    ``n_jobs`` models train at once (:func:`.study.train_and_score`; the scores do not depend
    on it).

    Returns
    -------
    dict
        ``families``, ``balance`` (:func:`.study.build_families`), ``scores``
        (:func:`.study.train_and_score`) and ``results`` (:func:`.study.evaluate`).
    """
    families, balance = build_families(
        data, terms=data.terms, n_buckets=n_buckets, random_state=random_state
    )
    scores = train_and_score(
        families,
        data.eval_sets,
        seeds=seeds,
        model=model,
        model_params=model_params,
        embedding=embedding,
        n_jobs=n_jobs,
        progress=progress,
        validation=data.validation,
    )
    results = evaluate(
        scores,
        data.eval_sets,
        terms=data.terms,
        threshold_on=threshold_on,
        random_state=random_state,
    )
    return {"families": families, "balance": balance, "scores": scores, "results": results}


def template_differences(
    results: Mapping[str, pd.DataFrame],
    *,
    terms: Sequence[str] | None = None,
    eval_set: str = "templates",
) -> pd.DataFrame:
    """FPED, FNED and PAED per model on ``eval_set``, summed over ``terms`` (default: all).

    With ``terms`` the sums run over those terms only (each ``|overall - per-term|`` where the
    per-term metric is defined), e.g. the terms a scenario skewed.

    Returns
    -------
    DataFrame
        ``family, seed, FPED, FNED, PAED``.
    """
    summary = results["summary"]
    if terms is None:
        part = summary[summary["eval_set"] == eval_set]
        if part.empty:
            sets = summary["eval_set"].unique().tolist()
            raise ValueError(f"no results on eval_set={eval_set!r}; the sets are {sets}")
        return part[["family", "seed", *_DIFF]].reset_index(drop=True)
    by_term = results["by_term"]
    part = by_term[(by_term["eval_set"] == eval_set) & by_term["term"].isin(list(terms))]
    if part.empty:
        raise ValueError(
            f"none of the terms {list(terms)} has per-term metrics on {eval_set!r}; pass terms "
            "that occur in that set"
        )
    overall = results["overall"].set_index(["family", "seed", "eval_set"])
    rows = []
    for (family, seed), g in part.groupby(["family", "seed"], sort=False):
        ref = overall.loc[(family, seed, eval_set)]
        row = {"family": family, "seed": seed}
        for name, (col, ref_col) in _DIFF.items():
            row[name] = float((ref[ref_col] - g[col].dropna()).abs().sum())
        rows.append(row)
    return pd.DataFrame(rows)


def mechanism_verdicts(
    summary: pd.DataFrame,
    *,
    metrics: Sequence[str] = ("FPED", "PAED"),
    treated: str = "bias mitigated",
    others: Sequence[str] = ("baseline", "random control"),
) -> pd.DataFrame:
    """Per metric: is the mitigated family lower than *each* other family, beyond the seeds?

    ``summary`` is :func:`.study.family_summary` output (``family, metric, mean, ci_low,
    ci_high``). The mechanism *holds* for a metric when the mitigated family's interval lies
    wholly below the interval of every other family, each family having at least two models
    (one model has no interval over seeds).

    Returns
    -------
    DataFrame
        ``metric``, ``mitigated``, one column per other family (its mean), ``n_models`` (the
        fewest of any family), ``lower_than_all`` (means), ``apart_from_all`` (intervals do not
        overlap) and ``holds``.
    """
    rows = []
    for metric in metrics:
        part = summary[summary["metric"] == metric].set_index("family")
        missing = [f for f in (treated, *others) if f not in part.index]
        if missing:
            raise ValueError(f"{metric}: the summary lacks families {missing}")
        t = part.loc[treated]
        lower = all(t["mean"] < part.loc[o, "mean"] for o in others)
        apart = all(t["ci_high"] < part.loc[o, "ci_low"] for o in others)
        n = int(part.loc[[treated, *others], "n_models"].min())
        rows.append(
            {
                "metric": metric,
                "mitigated": t["mean"],
                **{o: part.loc[o, "mean"] for o in others},
                "n_models": n,
                "lower_than_all": lower,
                "apart_from_all": apart,
                "holds": lower and apart and n >= 2,
            }
        )
    return pd.DataFrame(rows)


def scenario_verdicts(summary: pd.DataFrame, scenario: str) -> pd.DataFrame:
    """:func:`mechanism_verdicts` of one scenario of :func:`compare_scenarios`' summary, one
    block per term set, indexed by the term set."""
    part = summary[summary["scenario"] == scenario]
    if part.empty:
        have = sorted(summary["scenario"].unique())
        raise ValueError(f"scenario_verdicts: no scenario {scenario!r}; have {have}")
    blocks = {terms: mechanism_verdicts(g) for terms, g in part.groupby("terms", sort=False)}
    return pd.concat(blocks, names=["terms"]).droplevel(1)


#: The rule of :func:`paper_rule`, in words (the chapter states it before the numbers).
PAPER_RULE = (
    "the mitigation works when the mitigated family's 95 % interval over seeds lies wholly below "
    "the intervals of both the baseline and the random control on {metrics}, and its mean general "
    "AUC is within {tolerance:g} of the baseline's"
)


def paper_rule(
    summary: pd.DataFrame,
    scenario: str,
    *,
    terms: str = "all terms",
    metrics: Sequence[str] = ("FPED", "PAED"),
    auc_metric: str = "auc_general",
    auc_tolerance: float,
) -> tuple[pd.DataFrame, str]:
    """Dixon et al.'s claim as a rule: lower equality differences than *both* other families,
    beyond the seed intervals, at no cost in general AUC.

    Parameters
    ----------
    summary : DataFrame
        :func:`compare_scenarios`' summary (``scenario, terms, family, metric, mean, ci_low,
        ci_high, n_models``).
    scenario, terms : str
        Which scenario and term set to judge.
    metrics : sequence of str
        The equality differences that must fall (:func:`mechanism_verdicts`).
    auc_metric, auc_tolerance
        The AUC that must not fall, and by how much the mitigated mean may differ from the
        baseline's (the paper: 0.960 vs 0.959, Table 4).

    Returns
    -------
    table : DataFrame
        One row per metric (:func:`mechanism_verdicts`' columns) and one for the AUC (its
        ``holds``: within the tolerance).
    verdict : str
        Markdown: whether the rule holds, with the numbers it used.
    """
    part = summary[(summary["scenario"] == scenario) & (summary["terms"] == terms)]
    if part.empty:
        raise ValueError(
            f"paper_rule: no rows for scenario {scenario!r} and terms {terms!r}; have "
            f"{sorted(summary[['scenario', 'terms']].drop_duplicates().itertuples(index=False))}"
        )
    table = mechanism_verdicts(part, metrics=metrics)
    auc = part[part["metric"] == auc_metric].set_index("family")
    if not {"baseline", "bias mitigated"} <= set(auc.index):
        raise ValueError(f"paper_rule: {auc_metric!r} lacks the baseline or mitigated family")
    m, b = float(auc.loc["bias mitigated", "mean"]), float(auc.loc["baseline", "mean"])
    kept = abs(m - b) <= auc_tolerance
    row = {"metric": auc_metric, "mitigated": m, "baseline": b,
           "n_models": int(auc["n_models"].min()), "holds": kept}  # fmt: skip
    if "random control" in auc.index:
        row["random control"] = float(auc.loc["random control", "mean"])
    table = pd.concat([table, pd.DataFrame([row])], ignore_index=True)
    fall = table[table["metric"].isin(list(metrics))]
    rule = PAPER_RULE.format(metrics=" and ".join(metrics), tolerance=auc_tolerance)
    if int(fall["n_models"].min()) < 2:
        return table, (
            "**Verdict.** With one model per family there is no interval over seeds, so this "
            f"profile cannot apply the rule ({rule}); run it with several `seeds`."
        )
    holds = bool(fall["holds"].all() and kept)
    parts = []
    for _, r in fall.iterrows():
        word = "below both" if r["holds"] else "not below both with the intervals apart"
        parts.append(
            f"{r['metric']} {word} ({r['mitigated']:.3g} vs baseline {r['baseline']:.3g} and "
            f"random control {r['random control']:.3g}, {int(r['n_models'])} models per family)"
        )
    diff = round(m - b, 3) + 0.0  # + 0.0: no "-0.000"
    parts.append(
        f"general AUC {m:.3f} vs baseline {b:.3f}, a difference of {diff:+.3f}, "
        + ("within" if kept else "beyond")
        + f" {auc_tolerance:g}"
    )
    verdict = (
        f"**Verdict.** The mitigation {'works' if holds else 'does not work'} here by the rule "
        f"({rule}): " + "; ".join(parts) + "."
    )
    return table, verdict


def family_difference(
    table: pd.DataFrame,
    metric: str,
    *,
    treated: str = "bias mitigated",
    reference: str = "baseline",
    n_bootstrap: int,
    confidence_level: float = 0.95,
    random_state: int | None,
) -> dict[str, float]:
    """Mean of ``metric`` over the treated family's models minus the reference family's.

    The interval resamples the models (seeds) of each family independently.

    Returns
    -------
    dict
        ``difference``, ``ci_low``, ``ci_high``, ``n_treated``, ``n_reference``.

    Examples
    --------
    >>> t = pd.DataFrame({"family": ["a"] * 3 + ["b"] * 3, "x": [1.0, 1.1, 0.9, 2.0, 2.1, 1.9]})
    >>> d = family_difference(t, "x", treated="a", reference="b", n_bootstrap=200, random_state=0)
    >>> round(d["difference"], 6)
    -1.0
    """
    values = {}
    for fam in (treated, reference):
        v = table.loc[table["family"] == fam, metric].dropna().to_numpy(float)
        if v.size == 0:
            raise ValueError(f"family {fam!r} has no values of {metric!r}")
        values[fam] = v
    gen = _rng(random_state)
    boot = [
        gen.choice(values[f], size=(n_bootstrap, values[f].size), replace=True).mean(axis=1)
        for f in (treated, reference)
    ]
    diff = boot[0] - boot[1]
    alpha = (1 - confidence_level) / 2
    return {
        "difference": float(values[treated].mean() - values[reference].mean()),
        "ci_low": float(np.quantile(diff, alpha)),
        "ci_high": float(np.quantile(diff, 1 - alpha)),
        "n_treated": int(values[treated].size),
        "n_reference": int(values[reference].size),
    }


def compare_scenarios(
    runs: Mapping[str, Mapping[str, pd.DataFrame]],
    *,
    term_sets: Mapping[str, Sequence[str] | None] | None = None,
    n_bootstrap: int,
    random_state: int | None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Table 4 and Table 5 analogues of several scenarios, per model and per family.

    Parameters
    ----------
    runs : mapping scenario -> results
        :func:`.study.evaluate` output per scenario (``run_scenario(...)["results"]``).
    term_sets : mapping label -> terms, optional
        The term sets the equality differences are summed over, e.g. ``{"all terms": None,
        "skewed terms": [...]}`` (None = all the evaluation's terms). Default: all terms.
    n_bootstrap, random_state
        For the intervals of :func:`.study.family_summary`.

    Returns
    -------
    per_model : DataFrame
        ``scenario, terms, family, seed``, the equality differences ``FPED, FNED, PAED`` and the
        AUCs ``auc_general``, ``auc_templates``.
    summary : DataFrame
        :func:`.study.family_summary` of those columns by ``scenario, terms, family``.
    """
    term_sets = dict(term_sets or {"all terms": None})
    frames = []
    for scenario, results in runs.items():
        overall = results["overall"].pivot_table(
            index=["family", "seed"], columns="eval_set", values="auc"
        )
        overall = overall.rename(columns=lambda s: f"auc_{s}").reset_index()
        for label, terms in term_sets.items():
            if terms is not None and not len(terms):
                continue
            diff = template_differences(results, terms=terms)
            frames.append(
                diff.merge(overall, on=["family", "seed"]).assign(scenario=scenario, terms=label)
            )
    per_model = pd.concat(frames, ignore_index=True)
    lead = ["scenario", "terms", "family", "seed"]
    per_model = per_model[lead + [c for c in per_model.columns if c not in lead]]
    metrics = ["FPED", "FNED", "PAED"] + [c for c in per_model if c.startswith("auc_")]
    summary = family_summary(
        per_model,
        metrics=metrics,
        by=("scenario", "terms", "family"),
        n_bootstrap=n_bootstrap,
        random_state=random_state,
    )
    return per_model, summary


def scenario_table(
    summary: pd.DataFrame,
    *,
    metrics: Sequence[str] = ("FPED", "FNED", "PAED", "auc_templates"),
    families: Sequence[str] = ("baseline", "random control", "bias mitigated"),
) -> pd.DataFrame:
    """:func:`compare_scenarios`' summary as a table: one row per scenario, term set and metric,
    one column per family with ``mean [ci_low, ci_high]``."""
    part = summary[summary["metric"].isin(list(metrics))].copy()
    part["cell"] = [
        f"{m:.3f} [{lo:.3f}, {hi:.3f}]"
        for m, lo, hi in zip(part["mean"], part["ci_low"], part["ci_high"], strict=True)
    ]
    wide = part.pivot_table(
        index=["scenario", "terms", "metric"], columns="family", values="cell", aggfunc="first"
    )
    order = {m: i for i, m in enumerate(metrics)}
    wide = wide.reset_index()
    wide["_m"] = wide["metric"].map(order)
    scen = {s: i for i, s in enumerate(dict.fromkeys(summary["scenario"]))}
    wide["_s"] = wide["scenario"].map(scen)
    wide = wide.sort_values(["_s", "terms", "_m"]).drop(columns=["_m", "_s"])
    wide["metric"] = wide["metric"].map(lambda m: _TABLE_LABELS.get(m, m))
    return wide.set_index(["scenario", "terms", "metric"])[list(families)]
