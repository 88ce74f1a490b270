"""The Figure 2 thought experiment: equal per-group AUCs, one shifted group."""

from __future__ import annotations

import pytest
from sklearn.metrics import roc_auc_score

from nlpbias.studies.pinned_auc.synthetic_scores import make_shifted_groups


def test_per_group_aucs_agree_but_the_shifted_groups_negatives_score_higher() -> None:
    df = make_shifted_groups(4000, random_state=0)
    aucs = df.groupby("group", observed=True).apply(
        lambda g: roc_auc_score(g["y"], g["score"]), include_groups=False
    )
    assert aucs.max() - aucs.min() < 0.02  # within-group ranking unaffected by the shift
    neg = df[~df["y"]].groupby("group", observed=True)["score"].mean()
    assert neg["short"] > neg["tall"] + 0.2 and abs(neg["tall"] - neg["average"]) < 0.02
    assert roc_auc_score(df["y"], df["score"]) < aucs.min() - 0.02  # pooling costs AUC


def test_deterministic_and_validated() -> None:
    a = make_shifted_groups(50, random_state=3)
    b = make_shifted_groups(50, random_state=3)
    assert a.equals(b) and not a.equals(make_shifted_groups(50, random_state=4))
    with pytest.raises(ValueError, match="n_per_group"):
        make_shifted_groups(1, random_state=None)
    with pytest.raises(ValueError, match="shifts is empty"):
        make_shifted_groups(10, shifts={}, random_state=None)
