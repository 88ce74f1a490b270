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
    one = report.summarise_term_frequencies(freq[freq["term"] == "gay"], min_count=1)
    assert "of the one term found in at least 1 text," in one  # not "the 1 terms … 1 texts"


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


def _genders(rows: list[tuple[str, str, str, int]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["dataset", "part", "gender", "n"])
    return frame.assign(share=frame["n"] / frame.groupby(["dataset", "part"])["n"].transform("sum"))


def test_summarise_gender_balance_says_why_the_table_is_empty() -> None:
    empty = pd.DataFrame(columns=["dataset", "part", "gender", "n", "share"])
    offline = report.summarise_gender_balance(empty, use_data_home=False)
    assert "does not read the data home" in offline and "left out" in offline
    home = report.summarise_gender_balance(empty, use_data_home=True)
    assert "has no WinoBias or GAP files" in home


def test_summarise_gender_balance_gives_the_range_of_the_feminine_share() -> None:
    from nlpbias.data.coref import PRONOUN_GENDER

    assert set(PRONOUN_GENDER.values()) == {"female", "male"}  # the labels the table carries
    genders = _genders(
        [
            (
                "gap",
                "test",
                "female",
                50,
            ),
            ("gap", "test", "male", 50),
            ("winobias", "type1_pro", "female", 30),
            ("winobias", "type1_pro", "male", 70),
            ("winobias", "type2_anti", "male", 10),  # no feminine pronoun at all
        ]
    )
    text = report.summarise_gender_balance(genders, use_data_home=True)
    assert text.startswith("Over 3 loaded parts (210 pronouns)")
    assert "from 0.00 % (winobias/type2_anti) to 50.0 % (gap/test)" in text
    assert "share of female ambiguous pronouns ranges" in text
    even = report.summarise_gender_balance(genders.iloc[:2], use_data_home=True)
    assert even.startswith("Over 1 loaded part (100 pronouns)") and "50.0 % (gap/test)" in even
    two = pd.concat([genders.iloc[:2], genders.iloc[:2].assign(part="dev")])
    assert "is 50.0 % in every part" in report.summarise_gender_balance(two, use_data_home=True)
    with pytest.raises(KeyError):
        report.summarise_gender_balance(genders.drop(columns="n"), use_data_home=True)


def _check(gaps: list[float], n: int = 100, planted: float = 0.2) -> pd.DataFrame:
    se = (planted * (1 - planted) / n) ** 0.5
    return pd.DataFrame(
        {
            "term": [f"t{i}" for i in range(len(gaps))],
            "n_overall": n,
            "toxic_rate_planted": planted,
            "toxic_rate_observed": [planted + g * se for g in gaps],
        }
    )


def test_planted_check_sentence_uses_the_largest_gap_sampling_allows() -> None:
    from scipy.stats import norm

    # ten terms: max |z| stays below z* in 95 % of corpora, 0.95 = P(|z| < z*) ** 10
    z_star = norm.ppf(0.5 + 0.95**0.1 / 2)
    assert (2 * norm.cdf(z_star) - 1) ** 10 == pytest.approx(0.95)
    inside = report.planted_check_sentence(_check([0.5] * 9 + [-2.7]), n_texts=4000)
    assert "is 2.7 (term *t9*" in inside and f"below {z_star:.2f} standard errors" in inside
    assert "recovers the planted rates" in inside and "4,000 synthetic texts" in inside
    outside = report.planted_check_sentence(_check([0.5] * 9 + [3.0]), n_texts=4000)
    assert "larger than sampling explains (3.0 ≥ " in outside
    # one term: the yardstick is the usual two-sided 95 % bound
    assert "below 1.96 standard errors" in report.planted_check_sentence(_check([1.0]), n_texts=9)


def test_figures_name_datasets_by_title_not_code_name() -> None:
    from nlpbias import data, plotting

    registry = data.list_datasets()
    labels = report.dataset_labels(registry, name="name", title="title")
    assert set(labels) == set(registry["name"])
    assert labels["gutenberg_top100authors_subset"] == "Project Gutenberg top-100-authors subset"
    fig = plotting.barh(registry, x="megabytes", y="name", log=True, names=labels)
    shown = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(shown) == len(registry) and not any("_" in s for s in shown)  # no code names
    corpus = pd.DataFrame({"dataset": ["wiki_summaries", "tweets", "tweets"],
                           "part": ["summaries", "trump", "clinton"]})  # fmt: skip
    named = report.corpus_labels(corpus, {"wiki_summaries": "Offline Wikipedia summaries"})
    assert named.tolist() == ["Offline Wikipedia summaries", "tweets: trump", "tweets: clinton"]
