"""Dixon et al.'s Table 1 and Figure 1 on a planted corpus whose answers are known: the counts and
shares of :func:`table1_comparison`, and the buckets of :func:`toxicity_by_length`, which are
:func:`length_buckets`' (the mitigation's) even where ``pandas.qcut`` would differ."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from nlpbias.data.describe import (
    identity_term_frequencies,
    length_buckets,
    table1_comparison,
    toxicity_by_length,
)

#: per length: (gay toxic, gay not toxic, other toxic, other not toxic); 8 texts per length
CELLS = {10: (3, 1, 1, 3), 20: (1, 1, 1, 5), 40: (0, 2, 1, 5)}


def planted() -> pd.DataFrame:
    """24 texts of lengths 10, 20 and 40, "gay " or "the " then "a"s (see CELLS)."""
    rows = []
    for length, counts in CELLS.items():
        for (word, toxic), n in zip(
            [("gay", True), ("gay", False), ("the", True), ("the", False)], counts, strict=True
        ):
            rows += [(f"{word} " + "a" * (length - 4), toxic)] * n
    return pd.DataFrame(rows, columns=["text", "toxic"])


def test_planted_lengths() -> None:
    df = planted()
    assert sorted(df["text"].str.len().unique()) == [10, 20, 40]
    assert len(df) == 24 and int(df["toxic"].sum()) == 7


def test_table1_comparison_counts_and_shares_beside_the_paper() -> None:
    freq = identity_term_frequencies(planted(), ["gay", "queer"])
    paper = {"gay": {"toxic": 3.0, "overall": 0.5}}
    t = table1_comparison(freq, paper)
    assert list(t.columns) == [
        "toxic_pct",
        "overall_pct",
        "n_overall",
        "n_toxic",
        "paper_toxic_pct",
        "paper_overall_pct",
    ]
    gay = t.loc["gay"]
    assert (gay["n_overall"], gay["n_toxic"]) == (8, 4)
    assert gay["toxic_pct"] == pytest.approx(100 * 4 / 7)
    assert gay["overall_pct"] == pytest.approx(100 * 8 / 24)
    assert (gay["paper_toxic_pct"], gay["paper_overall_pct"]) == (3.0, 0.5)
    queer = t.loc["queer"]  # no text has it; the paper's table does not print it
    assert (queer["n_overall"], queer["n_toxic"], queer["toxic_pct"]) == (0, 0, 0.0)
    assert np.isnan(queer["paper_toxic_pct"]) and t["paper_toxic_pct"].dtype == float


def test_toxicity_by_length_on_the_planted_buckets() -> None:
    tbl = toxicity_by_length(planted(), ["gay"], n_buckets=3)
    share = tbl.pivot(index="bucket", columns="subset", values="toxic_share")
    assert share["all texts"].tolist() == [4 / 8, 2 / 8, 1 / 8]
    assert share["gay"].tolist() == [3 / 4, 1 / 2, 0.0]
    counts = tbl[tbl["subset"] == "gay"][["n", "n_toxic"]].to_numpy().tolist()
    assert counts == [[4, 3], [2, 1], [2, 0]]
    assert tbl["bucket_label"].unique().tolist() == ["10–10", "20–20", "40–40"]


@pytest.mark.parametrize(
    ("lengths", "n_buckets"),
    [
        ([5, 3, 6, 5, 6, 2], 5),  # qcut: buckets 2, 1, 4, 2, 4, 1
        ([14, 3, 12, 15, 7, 10, 9, 17], 7),  # qcut puts 14 in bucket 5, length_buckets in 6
    ],
)
def test_toxicity_by_length_uses_length_buckets_where_qcut_differs(
    lengths: list[int], n_buckets: int
) -> None:
    toxic = [i % 3 == 0 for i in range(len(lengths))]
    df = pd.DataFrame({"text": ["x" * n for n in lengths], "toxic": toxic})
    buckets, _ = length_buckets(lengths, n_buckets=n_buckets)
    qcut = pd.qcut(pd.Series(lengths), n_buckets, labels=False, duplicates="drop") + 1
    assert buckets.tolist() != qcut.tolist()  # the case this test is about
    tbl = toxicity_by_length(df, n_buckets=n_buckets)
    expected = pd.Series(df["toxic"].to_numpy()).groupby(buckets).agg(["size", "sum"])
    assert tbl["bucket"].tolist() == expected.index.tolist()
    assert tbl["n"].tolist() == expected["size"].tolist()
    assert tbl["n_toxic"].tolist() == expected["sum"].tolist()
