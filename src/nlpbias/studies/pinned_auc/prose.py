"""The chapter's sentences about its own run, generated from the run's numbers.

Every sentence here that states a number, a direction or a verdict about the run is built from
that run's values, and every word such as "separates" or "singles out" comes from a criterion of
:mod:`nlpbias.core.criteria`, stated in the sentence:

- :func:`shifted_group_sentence` — the Figure 2 simulation: does the lowest group's pinned AUC
  (and BPSN AUC) lie below every other group's by more than half the width of its bootstrap
  interval?
- :func:`mitigation_reading` — what the equality differences of this run say about the
  mitigation, and which of the paper's conditions this run's data lack (label prior, pool domain).
- :func:`skew_intro` — the opening of the in-domain skew section, from the same numbers.
- :func:`machine_paragraph` — which numbers are bit-identical on one machine and which vary
  across CPUs, from ``data/machines/pinned_auc.yaml`` (another machine's recorded numbers).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.criteria import Interval, Outcome, exceeds, separates
from nlpbias.data.machines import compare_runs, load_machine_record

__all__ = [
    "family_interval",
    "machine_paragraph",
    "second_domain_reading",
    "machine_record",
    "mitigation_reading",
    "separation",
    "shifted_group_sentence",
    "skew_intro",
]

#: Intervals are compared after rounding to this many decimals: sums of rates that are equal
#: mathematically can differ in the last bit, and touching intervals must count as touching.
_DECIMALS = 9


def family_interval(summary: pd.DataFrame, metric: str, family: str) -> Interval:
    """The mean and 95 % interval over seeds of one family and metric of
    :func:`~nlpbias.studies.pinned_auc.study.family_summary` (rounded away from floating noise).

    Examples
    --------
    >>> s = pd.DataFrame({"metric": ["FPED"], "family": ["baseline"], "mean": [1.0],
    ...                   "ci_low": [0.5], "ci_high": [1.5 + 1e-15]})
    >>> family_interval(s, "FPED", "baseline")
    Interval(estimate=1.0, low=0.5, high=1.5)
    """
    part = summary[(summary["metric"] == metric) & (summary["family"] == family)]
    if len(part) != 1:
        raise ValueError(
            f"family_interval: {len(part)} rows for metric={metric!r}, family={family!r}; pass "
            "the output of family_summary (one row per metric and family)"
        )
    row = part.iloc[0]
    return Interval(*(round(float(row[c]), _DECIMALS) for c in ("mean", "ci_low", "ci_high")))


def separation(
    summary: pd.DataFrame,
    metric: str,
    *,
    treated: str = "bias mitigated",
    reference: str,
) -> Outcome | None:
    """:func:`nlpbias.core.criteria.separates` of two families' intervals over seeds, or None
    where a family has fewer than two models (no interval)."""
    part = summary[summary["metric"] == metric]
    if part.loc[part["family"].isin([treated, reference]), "n_models"].min() < 2:
        return None
    return separates(
        family_interval(summary, metric, treated),
        family_interval(summary, metric, reference),
        yes="separates from",
        no="does not separate from",
    )


def _direction(a: Interval, b: Interval) -> str:
    return "lower" if a.estimate < b.estimate else "not lower"


def verdict_lines(
    summary: pd.DataFrame,
    *,
    metrics: Sequence[str] = ("FPED", "FNED", "PAED"),
    treated: str = "bias mitigated",
    baseline: str = "baseline",
    control: str = "random control",
) -> list[str]:
    """One line per metric: the treated family's mean and interval beside the baseline's and the
    control's, whether it is lower, and whether its interval separates from theirs
    (:func:`nlpbias.core.criteria.separates`: the two 95 % intervals over seeds do not overlap;
    touching counts as overlap).

    Examples
    --------
    >>> s = pd.DataFrame({"family": ["baseline", "bias mitigated", "random control"],
    ...                   "metric": "FNED", "n_models": 2, "mean": [0.02, 0.38, 0.0],
    ...                   "ci_low": [0.0, 0.045, 0.0], "ci_high": [0.045, 0.725, 0.0]})
    >>> line = verdict_lines(s, metrics=["FNED"])[0]
    >>> line.split(" — ")[1].split("; ")[0]
    'not lower than the baseline 0.02 [0, 0.045] and does not separate from it'
    >>> line.split("; ")[1]
    'not lower than the random control 0 [0, 0] and separates from it.'
    """
    out = []
    for metric in metrics:
        have = set(summary.loc[summary["metric"] == metric, "family"])
        if not {treated, baseline, control} <= have:
            raise ValueError(
                f"{metric}: the summary lacks one of {treated!r}, {baseline!r}, {control!r}; "
                "pass the output of family_summary"
            )
        t = family_interval(summary, metric, treated)
        refs = [
            ("the baseline", family_interval(summary, metric, baseline), baseline),
            ("the random control", family_interval(summary, metric, control), control),
        ]
        if separation(summary, metric, treated=treated, reference=baseline) is None:
            words = "; ".join(
                f"{_direction(t, r)} than {name} ({r.estimate:.3g})" for name, r, _ in refs
            )
            out.append(
                f"{metric}: mitigated {t.estimate:.3g} — {words}; with one model per family "
                "there is no interval over seeds to tell them apart."
            )
            continue
        parts = []
        for name, r, ref in refs:
            sep = separation(summary, metric, treated=treated, reference=ref)
            parts.append(f"{_direction(t, r)} than {name} {r.text()} and {sep.word} it")
        out.append(f"{metric}: mitigated {t.text()} — " + "; ".join(parts) + ".")
    return out


def _sep_clause(summary: pd.DataFrame, metrics: Sequence[str], reference: str) -> str:
    seps = [(m, separation(summary, m, reference=reference)) for m in metrics]
    if any(sep is None for _, sep in seps):
        return f"cannot be told from the {reference} (one model per family)"
    words = {sep.word for _, sep in seps}
    if len(words) == 1:
        return f"{words.pop()} the {reference} on " + " and on ".join(
            f"{m} ({sep.detail})" for m, sep in seps
        )
    return "; ".join(f"{sep.word} the {reference} on {m} ({sep.detail})" for m, sep in seps)


def _separates_all(summary: pd.DataFrame, metrics: Sequence[str], reference: str) -> bool | None:
    seps = [separation(summary, m, reference=reference) for m in metrics]
    if any(s is None for s in seps):
        return None
    pairs = zip(seps, metrics, strict=True)
    return all(s.holds and _lower(summary, m, reference) for s, m in pairs)


def _lower(summary: pd.DataFrame, metric: str, reference: str) -> bool:
    t = family_interval(summary, metric, "bias mitigated")
    r = family_interval(summary, metric, reference)
    return t.estimate < r.estimate


_RULE = (
    "Separates means that the two 95 % intervals over seeds do not overlap; touching counts as "
    "overlap."
)


def mitigation_reading(
    summary: pd.DataFrame,
    *,
    source: str,
    train_toxic_share: float,
    balance_report: pd.DataFrame,
    metrics: Sequence[str] = ("FPED", "PAED"),
    corpus: str,
    n_train: int | None = None,
) -> str:
    """What this run's equality differences say about the mitigation, and which of the paper's
    conditions this run's data lack — a paragraph for the chapter.

    Parameters
    ----------
    summary : DataFrame
        :func:`~nlpbias.studies.pinned_auc.study.family_summary` of the equality differences.
    source : {"real", "synthetic"}
        ``StudyData.source``.
    train_toxic_share : float
        Toxic share of the baseline's training texts.
    balance_report : DataFrame
        ``BalanceResult.report`` of the mitigation (``bucket``, ``needed``, ``shortfall``).
    corpus : str
        ``StudyData.corpus`` of real data: ``"wikipedia_talk"`` (the paper's corpus family) or
        ``"davidson"`` (tweets, whose label prior and domain the paragraph then discusses).
    n_train : int, optional
        Training texts of the baseline (for the Wikipedia Talk paragraph's scale).
    """
    share = float(train_toxic_share)
    needed = int(balance_report["needed"].sum())
    missing = int(balance_report["shortfall"].sum())
    by_bucket = balance_report.groupby("bucket")["shortfall"].sum()
    worst = int(by_bucket.idxmax()) if missing else None
    vs_control = _sep_clause(summary, metrics, "random control")
    vs_base = _sep_clause(summary, metrics, "baseline")
    beats = _separates_all(summary, metrics, "random control")
    head = (
        f"On this run the mitigated family {vs_base}, and {vs_control}. {_RULE} "
        if beats is not None
        else "On this run there is one model per family, so there is no interval over seeds to "
        "tell the mitigated family from the baseline or the random control. "
    )
    shortfall = (
        f"the pool lacked {missing:,} of the {needed:,} texts the balancing asked for, most in "
        f"length bucket {worst} of {int(balance_report['bucket'].max())} (1 = shortest)"
        if missing
        else f"the pool supplied all {needed:,} texts the balancing asked for"
    )
    if source == "real" and corpus == "wikipedia_talk":
        from nlpbias.studies.pinned_auc.study import reported

        setup = reported("dixon2018")["setup"]
        scale = (
            f"{n_train:,} training comments, {n_train / setup['train_comments']:.0%} of the "
            f"paper's {setup['train_comments']:,}"
            if n_train
            else "fewer training comments than the paper's"
        )
        return head + (
            "This run trains on the paper's own corpus family, Wikipedia Talk comments, with a "
            f"label prior like the paper's ({share:.1%} of the training comments toxic; the "
            f"paper's test set: {setup['test_toxic_share']:.1%}), and balances it from the "
            f"paper's own pools. What still differs is the scale ({scale}), the word vectors "
            "(50-d instead of 100-d GloVe) and the pool's reach: "
            f"{shortfall}. The rule of the next section says whether the mitigation worked."
        )
    if source == "real":
        cap = 1 / share if share > 0 else float("inf")
        return head + (
            "Two differences from the paper's setup bear on the mitigation. First, the **label "
            f"prior**: {share:.0%} of the training tweets are toxic, so a term's share among "
            "toxic texts can exceed its share overall by a factor of at most "
            f"{cap:.2f} (the paper's Table 1 has ratios above that), and the mitigation only "
            "adds texts where a term "
            f"is *more* toxic than its bucket: here it asked for {needed:,}. Second, the "
            "**domain**: the mitigation adds Wikipedia sentences to a "
            f'model of tweets; {shortfall}, and the model can learn "encyclopaedic style means '
            'non-toxic" instead of "identity terms are not toxic". '
            + (
                "With one model per family this run cannot say whether the mitigation works "
                "despite both. "
                if beats is None
                else "The mitigation beats its control here despite both. "
                if beats
                else "The in-domain skew scenario below tests whether these two explain why the "
                "mitigation does not beat its control here."
            )
        )
    return head + (
        f"The training texts are the synthetic stand-in ({share:.0%} toxic), with an imbalance "
        "planted on purpose and pools generated like its texts; "
        f"{shortfall}. "
        + (
            "With one model per family this run cannot say whether the balancing removes the "
            "planted bias beyond what adding as many random texts does (`demo` trains several "
            "seeds). "
            if beats is None
            else "The balancing removes the planted bias beyond what adding as many random texts "
            f"does, on {' and '.join(metrics)}: the check the stand-in is for. "
            if beats
            else "The balancing does not beat adding as many random texts (lower, intervals apart) "
            f"on all of {', '.join(metrics)} here, although the stand-in plants "
            "the imbalance it undoes. "
        )
        + "The differences from the paper that the chapter discusses for real data (the scale "
        "of the Wikipedia Talk corpus; the label prior of tweets and their distance from the "
        "Wikipedia pools) do not apply to the stand-in."
    )


def second_domain_reading(data: Any, run: Mapping[str, Any] | None, summary: pd.DataFrame) -> str:
    """The paragraph under the second domain's table: what its equality differences say about
    the mitigation and which of the paper's conditions the corpus lacks
    (:func:`mitigation_reading` on the second domain), or why this run has none.

    ``data`` is the second domain's ``StudyData`` (None: no second domain), ``run`` its
    :func:`~nlpbias.studies.pinned_auc.scenarios.run_scenario` output and ``summary`` its
    :func:`~nlpbias.studies.pinned_auc.study.equality_summary`.
    """
    if data is None or run is None:
        return (
            "This run has no second domain: it needs the real corpora of the data home "
            "(`use_data_home`, on `paper`), and `second_domain` names the corpus."
        )
    return mitigation_reading(
        summary,
        source=data.source,
        corpus=data.corpus,
        train_toxic_share=float(run["families"]["baseline"]["toxic"].mean()),
        balance_report=run["balance"].report,
        n_train=len(run["families"]["baseline"]),
    )


def skew_intro(
    summary: pd.DataFrame,
    *,
    source: str,
    train_toxic_share: float,
    table1_max_ratio: float,
    metrics: Sequence[str] = ("FPED", "PAED"),
) -> str:
    """The opening of the in-domain skew section, from this run's numbers.

    ``table1_max_ratio`` is the largest ratio (share among toxic over share overall) of Dixon
    et al.'s Table 1 (:func:`~nlpbias.studies.pinned_auc.skew.table1_ratios`).
    """
    share = float(train_toxic_share)
    cap = 1 / share if share > 0 else float("inf")
    beats = _separates_all(summary, metrics, "random control")
    if beats is None:
        state = (
            "With one model per family this run cannot say whether the mitigation separates from "
            "its random control."
        )
    elif beats:
        state = (
            "On this run the mitigation separates from its random control on "
            f"{' and '.join(metrics)} ({_RULE[:-1].lower()})."
        )
    else:
        state = (
            "On this run the mitigation is not below its random control with the intervals "
            f"apart on all of {', '.join(metrics)}: "
            f"it {_sep_clause(summary, metrics, 'random control')}."
        )
    prior = (
        f"With {share:.1%} of the training texts toxic, a term's ratio (its share among toxic "
        f"texts over its share among all texts) cannot exceed 1 / {share:.3f} ≈ {cap:.1f}, while "
        f"Dixon et al.'s Table 1 has ratios up to {table1_max_ratio:.0f}."
    )
    if source == "real":
        return (
            f"{state} Two conditions of the paper are missing from this book's data: the identity "
            "terms cannot be over-represented among toxic tweets as much as in the paper's Table "
            "1, and the pools add Wikipedia sentences to a model of tweets. "
            f"{prior} This section tests both at once with another "
            "scenario built from the training tweets alone "
            "(`nlpbias.studies.pinned_auc.skew`)."
        )
    return (
        f"{state} On `paper` this section starts from the tweets of the second domain, which "
        "lack two conditions of the paper: terms over-represented among toxic texts, and an "
        "in-domain pool. It builds both into another scenario from the training texts alone "
        f"(`nlpbias.studies.pinned_auc.skew`); here those are the synthetic stand-in's texts, so "
        f"the scenario checks the construction, not tweets. {prior}"
    )


def shifted_group_sentence(
    y: Any,
    score: Any,
    membership: pd.DataFrame,
    *,
    paper_combined_auc: float,
    n_bootstrap: int,
    random_state: int,
    metrics: Sequence[str] = ("pinned_auc", "bpsn_auc"),
) -> str:
    """The Figure 2 simulation in words: which AUC singles out the shifted group.

    For each metric the lowest group is *singled out* when every other group's value exceeds
    its own by more than half the width of its 95 % bootstrap interval (rows resampled with
    replacement, ``n_bootstrap`` times; :func:`nlpbias.core.criteria.exceeds`).
    """
    from nlpbias.studies.pinned_auc.metric_names import METRIC_LABELS
    from nlpbias.studies.pinned_auc.metrics import bias_report
    from nlpbias.studies.pinned_auc.roc import auc

    y = np.asarray(y)
    score = np.asarray(score, dtype=float)
    membership = membership.reset_index(drop=True)
    rep = bias_report(y, score, membership=membership, random_state=random_state)
    table = rep.by_group.set_index("term")
    rng = np.random.default_rng(random_state)
    draws = {m: [] for m in metrics}
    for _ in range(n_bootstrap):
        rows = rng.integers(0, len(y), len(y))
        b = bias_report(
            y[rows],
            score[rows],
            membership=membership.iloc[rows].reset_index(drop=True),
            random_state=random_state,
        ).by_group.set_index("term")
        for m in metrics:
            draws[m].append(b[m].reindex(table.index).to_numpy(float))
    sub = table["subgroup_auc"]
    text = (
        f"Every per-group AUC lies between {sub.min():.3f} and {sub.max():.3f}, and the AUC of "
        f"all comments together is {auc(y, score):.3f} (paper: {paper_combined_auc}). "
    )
    found = []
    for m in metrics:
        values = table[m]
        low = values.idxmin()
        others = values.drop(low)
        d = np.asarray(draws[m])[:, list(table.index).index(low)]
        lo, hi = np.nanquantile(d, [0.025, 0.975])
        margin = (hi - lo) / 2
        out = exceeds(
            float(others.min()),
            float(values[low]),
            margin=float(margin),
            margin_name=f"half the width of {low}'s 95 % bootstrap interval",
            yes="singles it out",
            no="does not single it out",
        )
        name = METRIC_LABELS.get(m, m)
        gap = float(others.min() - values[low])
        text += (
            f"The {name} is lowest for **{low}** ({values[low]:.3f}; the next group "
            f"{others.min():.3f}) and {out.word}: the gap, {gap:.3f}, is "
            f"{'larger' if out.holds else 'not larger'} than half the width of {low}'s 95 % "
            f"bootstrap interval ({margin:.3f}; {n_bootstrap} resamples of the rows). "
        )
        if out.holds:
            found.append(m)
    labels = [METRIC_LABELS.get(m, m) for m in found]
    if "bpsn_auc" in found:
        text += (
            "The BPSN AUC, which pits the group's non-toxic comments against everyone else's "
            "toxic ones, finds the shifted group and names the kind of error (false positives)"
        )
        rest = [lab for m, lab in zip(found, labels, strict=True) if m != "bpsn_auc"]
        text += f"; so does the {' and '.join(rest)}." if rest else "."
    elif found:
        text += f"The shifted group is found by the {' and '.join(labels)}."
    else:
        text += "No AUC singles out a group by more than its own sampling noise in this run."
    return text


def machine_record(path: Path | None = None) -> dict:
    """The recorded numbers of this chapter on two machines (``data/machines/pinned_auc.yaml``)."""
    spec = load_machine_record("pinned_auc", path=path, two_runs=True)
    if set(spec["here"]) != set(spec["other"]):
        raise ValueError(f"machine_record: {path}: 'here' and 'other' name different metrics")
    return spec


def _signed(x: float) -> str:
    return f"{x:+.3g}".replace("-", "−")


def machine_paragraph(
    *,
    model: str,
    profile: str,
    source: str = "real",
    record: Mapping[str, Any] | None = None,
) -> str:
    """Which of the chapter's numbers are bit-identical on one machine and which vary across
    CPUs, with the recorded numbers of two machines and their source.

    Examples
    --------
    >>> rec = {"source": "issue 19", "profile": "paper", "identical_on_one_machine": "two runs",
    ...        "other_name": "issue 19's run on another CPU",
    ...        "here": {"FPED": {"estimate": -0.375, "low": -4.02, "high": 3.14}},
    ...        "other": {"FPED": -1.5}}
    >>> text = machine_paragraph(model="cnn", profile="paper", record=rec)
    >>> "−1.5 in issue 19's run on another CPU vs −0.375 [−4.02, +3.14] here:" in text
    True
    >>> "inside" in text
    True
    """
    rec = machine_record() if record is None else record
    other_name = rec.get("other_name", "another machine's run")
    here_name = rec.get("here_name", "here")
    parts = []
    for r in compare_runs(rec).itertuples(index=False):
        line = f"{r.key} change {_signed(r.other)} in {other_name} vs {_signed(r.here)}"
        if np.isfinite(r[3]) and np.isfinite(r[4]):  # here low, here high
            where = "inside" if r.inside else "outside"
            line += (
                f" [{_signed(r[3])}, {_signed(r[4])}] {here_name}: they differ by "
                f"{abs(r.difference):.3g}, and the other machine's number lies {where} that "
                "interval over seeds"
            )
        else:
            line += f" {here_name}: they differ by {abs(r.difference):.3g}"
        parts.append(line)
    same = (
        f"On one machine the numbers are bit-identical: {rec['identical_on_one_machine']} "
        f"(source: {rec['source']})."
    )
    vary = f"The CNN's numbers vary across CPUs: on `{rec['profile']}`, " + "; ".join(parts) + "."
    if model == "cnn" and source == "real":
        tail = (
            " The headline rows below are judged on the bootstrap interval over seeds, which "
            "includes the seed-to-seed spread, and say that their verdict may flip on another "
            "machine."
        )
    elif model == "cnn":
        tail = (
            f" This run (`{profile}`) trains the same CNN on the synthetic stand-in, so its "
            "numbers too may differ on another CPU; its headline rows are marked as varying "
            "across CPUs, but on the stand-in they have no verdict that could flip (not testable "
            "offline)."
        )
    else:
        tail = (
            f" This run (`{profile}`) trains the linear model, not the CNN those numbers come "
            "from; the CNN rows of `demo` and `paper` say that their verdict may flip on "
            "another machine."
        )
    return f"{same} {vary}{tail}"
