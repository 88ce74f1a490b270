"""Tests for nlpbias.studies.data.report (sentences checked against tables of tiny frames)."""

from __future__ import annotations

import pandas as pd
import pytest

from nlpbias.data import describe
from nlpbias.studies.data import report


def test_summarise_term_frequencies(four: pd.DataFrame) -> None:
    freq = describe.identity_term_frequencies(four, ["gay", "deaf"])
    text = report.summarise_term_frequencies(freq, k=1, min_count=1)
    assert "most over-represented in toxic texts is *deaf*" in text
    assert "least is *gay*" in text and "ratio 2.00" in text
    assert "no identity term" in report.summarise_term_frequencies(freq, min_count=5)


def test_summarise_lengths(four: pd.DataFrame) -> None:
    stats = describe.length_summary(describe.text_lengths(four))
    assert "toxic texts are shorter" in report.summarise_lengths(stats)
    only = describe.length_summary(describe.text_lengths(four.iloc[:2]))
    assert "only one label" in report.summarise_lengths(only)


def test_summarise_toxicity_by_length(four: pd.DataFrame) -> None:
    short_toxic = pd.DataFrame({"text": ["a", "bb", "ccc", "dddd"], "toxic": [1, 1, 0, 1]})
    tbl = describe.toxicity_by_length(short_toxic, n_buckets=2)
    text = report.summarise_toxicity_by_length(tbl)
    assert "falls from 100.0 % among the shortest texts (1–2) to 50.0 %" in text
    flat = describe.toxicity_by_length(four, n_buckets=2)
    assert "is 50.0 % both" in report.summarise_toxicity_by_length(flat)
    single = describe.toxicity_by_length(four, n_buckets=1)
    assert "one length bucket" in report.summarise_toxicity_by_length(single)


PAPER = {"gay": {"toxic": 3.0, "overall": 0.5}, "deaf": {"toxic": 0.01, "overall": 0.03}}


def test_table1_comparison_puts_percentages_beside_the_papers(four: pd.DataFrame) -> None:
    freq = describe.identity_term_frequencies(four, list(PAPER))
    table = report.table1_comparison(freq, PAPER)
    assert list(table.index) == ["gay", "deaf"]
    row = freq.set_index("term").loc["gay"]
    assert table.loc["gay", "toxic_pct"] == 100 * row["share_toxic"]
    assert table.loc["gay", "overall_pct"] == 100 * row["share_overall"]
    assert table.loc["deaf", "paper_overall_pct"] == 0.03
    with pytest.raises(ValueError, match=r"terms \['bi'\] of the paper's table are not in freq"):
        report.table1_comparison(freq, {**PAPER, "bi": {"toxic": 1.0, "overall": 1.0}})


def test_summarise_table1_counts_over_represented_terms_here_and_in_the_paper(
    four: pd.DataFrame,
) -> None:
    freq = describe.identity_term_frequencies(four, list(PAPER))
    stats = describe.length_summary(describe.text_lengths(four))
    over = int((freq["share_toxic"] > freq["share_overall"]).sum())
    text = report.summarise_table1(freq, stats, PAPER, min_count=1)
    assert f"of the 2 paper terms found in at least 1 texts, {over} are more frequent" in text
    assert "(paper: 1 of 2)" in text
    toxic_median = stats.set_index("label").loc[True, "median"]
    assert f"Median length: {toxic_median:.0f} for toxic texts" in text
