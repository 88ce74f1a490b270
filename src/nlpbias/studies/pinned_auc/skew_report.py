"""What the in-domain skew scenario did and what its numbers say, as sentences for the chapter.

:func:`skew_sentence` describes the skewed training set, :func:`added_sentence` what the
mitigation could add to it, and :func:`skew_verdict` applies the chapter's rule (stated before
the numbers: the mitigated family's interval below those of the baseline *and* the random
control, see :func:`nlpbias.studies.pinned_auc.scenarios.mechanism_verdicts`) and says why it
holds or not — including when the in-domain pool could not supply what the mitigation asked for,
which makes the test inconclusive rather than a refutation.
"""

from __future__ import annotations

import pandas as pd

from nlpbias.studies.pinned_auc.mitigation import BalanceResult
from nlpbias.studies.pinned_auc.skew import SkewResult

__all__ = ["added_sentence", "skew_sentence", "skew_verdict"]

#: Below this share of the texts the mitigation asked for, the test is called inconclusive.
MIN_SUPPLIED = 0.5


def skew_sentence(skew: SkewResult, *, source: str) -> str:
    """The skewed training set in two or three sentences (sizes, skewed terms, pools)."""
    skewed = skew.report[skew.report["status"] != "too rare"]
    text = (
        f"The skewed training set has {len(skew.train):,} texts, "
        f"{skew.train['toxic'].mean():.1%} toxic. {len(skewed)} of the {len(skew.report)} "
        f"Table 1 terms could be skewed ({', '.join(skewed['term']) or 'none'}); they keep "
        f"{int(skewed['kept_toxic'].sum())} toxic and {int(skewed['kept_nontoxic'].sum())} "
        f"non-toxic texts between them, and {len(skew.held_back)} non-toxic texts are held "
        f"back as the mitigation pool (control pool: {len(skew.control_pool):,})."
    )
    if len(skewed) < len(skew.report):
        text += " The other terms occur in too few texts to skew."
    if source != "real":
        text += " These are the synthetic stand-in's texts, not tweets."
    return text


def added_sentence(balance: BalanceResult) -> str:
    """How many texts the mitigation added to the skewed set, and its shortfall."""
    return (
        f"The mitigation added {len(balance.added)} held-back texts (shortfall "
        f"{int(balance.report['shortfall'].sum())}); the control as many random ones per length "
        "bucket."
    )


def skew_verdict(
    checks: pd.DataFrame, balance: BalanceResult, skew: SkewResult, *, source: str = "real"
) -> str:
    """The verdict on the paper's mechanism in the skew scenario, in words.

    Parameters
    ----------
    checks : DataFrame
        :func:`~nlpbias.studies.pinned_auc.scenarios.mechanism_verdicts` rows, indexed by the
        term set (``all terms``, ``skewed terms``).
    balance : BalanceResult
        The mitigation of the skew scenario (its report gives what was asked and supplied).
    skew : SkewResult
        The construction (how many toxic texts carry the skew).
    source : {"real", "synthetic"}
        ``StudyData.source``: on the synthetic stand-in the first scenario already has a planted
        skew and synthetic pools, so the sentence does not speak of tweets or Wikipedia.
    """
    real = source == "real"
    held = checks[checks["holds"]]
    failed = checks[~checks["holds"]]
    need = balance.report[["needed", "added"]].sum()
    supplied = need["added"] / need["needed"] if need["needed"] else 1.0
    listed = ", ".join(f"{m} ({t})" for t, m in zip(failed.index, failed["metric"], strict=True))
    kept_toxic = int(skew.report.loc[skew.report["status"] != "too rare", "kept_toxic"].sum())
    if checks["n_models"].min() < 2:
        return (
            "With one model per family there is no interval over seeds, so this profile cannot "
            "apply the rule; run it with several `seeds`."
        )
    if not len(failed):
        return (
            "In the in-domain skew scenario the mitigation beats both the baseline and the random "
            "control beyond the seed intervals, for every metric and term set: the paper's "
            "mechanism holds"
            + (
                ", and the data of the first scenario simply lacked the skew."
                if real
                else " on the stand-in's skewed texts too (a check of the construction, not of "
                "tweets)."
            )
        )
    also = (
        "; it does for "
        + ", ".join(f"{m} ({t})" for t, m in zip(held.index, held["metric"], strict=True))
        if len(held)
        else ""
    )
    head = (
        "The mitigated family does not beat both the baseline and the control beyond the seed "
        f"intervals for {listed}{also}."
    )
    if supplied < MIN_SUPPLIED:
        return (
            f"{head} But the mechanism did not get a fair test: to bring each skewed term back "
            "to its bucket's toxic share the rule asks for "
            f"{int(need['needed']):,} non-toxic texts with the terms, and the held-back pool "
            f"supplied {int(need['added']):,} ({supplied:.0%}). Undoing a skew of 6 takes about "
            "five non-toxic texts with the term for every toxic one kept; these data never had "
            f"them, which is also why the skew rests on only {kept_toxic} toxic texts. The "
            "in-domain test is inconclusive for lack of material, not a refutation."
        )
    if real:
        return (
            f"{head} The pool supplied {supplied:.0%} of the texts the rule asked for, so the "
            "missing skew and the Wikipedia pools are not the whole explanation."
        )
    return (
        f"{head} The pool supplied {supplied:.0%} of the texts the rule asked for, so a lack of "
        "material does not explain it; on the stand-in this checks the construction, not tweets."
    )
