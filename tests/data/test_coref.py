"""Tests for nlpbias.data.coref: WinoBias parsing, occupations and GAP."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlpbias.data import coref

# --------------------------------------------------------------------------- WinoBias lines


def test_parse_type1_offsets() -> None:
    r = coref.parse_winobias_line(
        "1 [The developer] argued with the designer because [he] did not like the design.\n"
    )
    assert r["id"] == 1
    assert r["text"] == "The developer argued with the designer because he did not like the design."
    assert (r["mention"], r["mention_start"], r["mention_end"]) == ("The developer", 0, 13)
    assert (r["pronoun"], r["pronoun_start"], r["pronoun_end"]) == ("he", 47, 49)
    assert r["pronoun_gender"] == "male"
    assert r["n_pronouns"] == 1


def test_parse_type2_mention_in_the_middle() -> None:
    r = coref.parse_winobias_line(
        "2 The developer argued with [the designer] because [her] idea cannot be implemented."
    )
    assert (
        r["text"]
        == "The developer argued with the designer because her idea cannot be implemented."
    )
    assert (r["mention"], r["mention_start"], r["mention_end"]) == ("the designer", 26, 38)
    assert (r["pronoun"], r["pronoun_start"], r["pronoun_end"]) == ("her", 47, 50)
    assert r["pronoun_gender"] == "female"


def test_parse_two_pronouns_keeps_the_first() -> None:
    r = coref.parse_winobias_line(
        "27 [The developer] visited the hairdresser because [she] needed to cut [her] hair."
    )
    assert r["id"] == 27
    assert r["text"] == "The developer visited the hairdresser because she needed to cut her hair."
    assert (r["pronoun"], r["pronoun_start"], r["pronoun_end"]) == ("she", 46, 49)
    assert r["n_pronouns"] == 2


@pytest.mark.parametrize(
    "line, match",
    [
        ("[The developer] argued because [he] lied.", "does not look like"),
        ("3 [The developer argued because [he] lied.", "unbalanced brackets"),
        ("4 [The developer] argued with [the designer].", "at least one bracketed pronoun"),
        ("5 [The developer] told [the designer] that [she] lied.", "one bracketed mention"),
    ],
)
def test_parse_rejects_malformed_lines(line: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        coref.parse_winobias_line(line)


# --------------------------------------------------------------------------- WinoBias files


def test_load_winobias_fixture(tmp_path: Path) -> None:
    p = tmp_path / "anti_stereotyped_type2.txt.test"
    p.write_text(
        "1 The accountant met [the janitor] and wished [her] well.\n"
        "2 The janitor met [the accountant] and wished [him] well.\n\n",
        encoding="utf-8",
    )
    df = coref.load_winobias(stereotype="anti", kind=2, split="test", path=p)
    assert df["id"].tolist() == [1, 2]
    assert df["text"].tolist() == [
        "The accountant met the janitor and wished her well.",
        "The janitor met the accountant and wished him well.",
    ]
    assert df["mention"].tolist() == ["the janitor", "the accountant"]
    assert df["mention_start"].tolist() == [19, 16]
    assert df["mention_end"].tolist() == [30, 30]
    assert df["pronoun_start"].tolist() == [42, 42]
    assert df["pronoun_end"].tolist() == [45, 45]
    assert df["pronoun_gender"].tolist() == ["female", "male"]
    assert set(df["stereotype"]) == {"anti"} and set(df["kind"]) == {2}
    assert set(df["split"]) == {"test"}
    for col in ("id", "mention", "pronoun", "mention_start", "pronoun_end"):
        assert col in df.columns


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"stereotype": "neutral"}, r"stereotype must be one of \['pro', 'anti'\]"),
        ({"kind": 3}, r"kind must be one of \[1, 2\]"),
        ({"kind": True}, r"kind must be one of \[1, 2\]"),
        ({"split": "train"}, r"split must be one of \['dev', 'test'\]"),
    ],
)
def test_load_winobias_validates(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        coref.load_winobias(**kwargs)


def test_load_winobias_occupations_fixture(tmp_path: Path) -> None:
    p = tmp_path / "occ.csv"
    p.write_text(
        "occupation_as_in_table,occupation_in_winobias,pct_women_bls,group\n"
        "mechanician,mechanic,4.0,male_biased\n"
        "nurse,nurse,90,female_biased\n",
        encoding="utf-8",
    )
    df = coref.load_winobias_occupations(path=p)
    assert list(df.columns) == ["occupation", "pct_women", "group", "bls_occupation"]
    assert df["occupation"].tolist() == ["mechanic", "nurse"]
    assert df["pct_women"].tolist() == [4.0, 90.0]
    assert df["bls_occupation"].tolist() == ["mechanician", "nurse"]


def test_load_winobias_occupations_rejects_bad_pct(tmp_path: Path) -> None:
    p = tmp_path / "occ.csv"
    p.write_text(
        "occupation_as_in_table,occupation_in_winobias,pct_women_bls,group\nx,x,,male_biased\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="outside 0..100"):
        coref.load_winobias_occupations(path=p)


# --------------------------------------------------------------------------- GAP

GAP_HEADER = "ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref\tURL\n"


def test_load_gap_fixture(tmp_path: Path) -> None:
    text1 = "Zoe met Ann. She smiled."
    text2 = '"Bob" said Al, and his dog ran.'
    p = tmp_path / "gap-validation.tsv"
    p.write_text(
        GAP_HEADER
        + f"validation-1\t{text1}\tShe\t13\tZoe\t0\tTRUE\tAnn\t8\tFALSE\thttp://x/1\n"
        + f"validation-2\t{text2}\this\t19\tBob\t1\tFALSE\tAl\t11\tTRUE\thttp://x/2\n",
        encoding="utf-8",
    )
    df = coref.load_gap("validation", path=p)
    assert list(df.columns) == [
        "id",
        "text",
        "pronoun",
        "pronoun_offset",
        "a",
        "a_offset",
        "a_coref",
        "b",
        "b_offset",
        "b_coref",
        "url",
    ]
    assert df["text"].tolist() == [text1, text2]
    assert df["a_coref"].tolist() == [True, False]
    assert df["b_coref"].tolist() == [False, True]
    assert df["pronoun_offset"].tolist() == [13, 19]
    for _, row in df.iterrows():
        assert row["text"][row["pronoun_offset"] :].startswith(row["pronoun"])
        assert row["text"][row["b_offset"] :].startswith(row["b"])


def test_load_gap_validates_split() -> None:
    with pytest.raises(ValueError, match=r"\['development', 'test', 'validation'\]"):
        coref.load_gap("train")


def test_load_gap_names_missing_columns(tmp_path: Path) -> None:
    p = tmp_path / "g.tsv"
    p.write_text("ID\tText\nx\ty\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"lacks columns \['Pronoun'"):
        coref.load_gap(path=p)


# --------------------------------------------------------------------------- real data


@pytest.mark.usefixtures("use_data_home")
@pytest.mark.parametrize("split", ["dev", "test"])
@pytest.mark.parametrize("kind", [1, 2])
def test_real_winobias(kind: int, split: str) -> None:
    pro = coref.load_winobias(stereotype="pro", kind=kind, split=split)
    anti = coref.load_winobias(stereotype="anti", kind=kind, split=split)
    for df in (pro, anti):
        assert len(df) == 396
        assert df["id"].tolist() == list(range(1, 397))
        for col in ("mention", "pronoun"):
            spans = zip(df["text"], df[f"{col}_start"], df[f"{col}_end"], df[col], strict=True)
            assert all(t[a:b] == m for t, a, b, m in spans)
        assert "[" not in "".join(df["text"])
    # each anti sentence is its pro twin with the pronoun's gender swapped
    assert (pro["pronoun_gender"] != anti["pronoun_gender"]).mean() > 0.95


@pytest.mark.usefixtures("use_data_home")
def test_real_winobias_occupations() -> None:
    df = coref.load_winobias_occupations()
    assert len(df) == 40
    assert df["group"].value_counts().to_dict() == {"male_biased": 20, "female_biased": 20}
    female = df.loc[df["group"] == "female_biased", "pct_women"]
    male = df.loc[df["group"] == "male_biased", "pct_women"]
    assert female.mean() > 50 > male.mean()


@pytest.mark.usefixtures("use_data_home")
@pytest.mark.parametrize("split, n", [("development", 2000), ("test", 2000), ("validation", 454)])
def test_real_gap(split: str, n: int) -> None:
    df = coref.load_gap(split)
    assert len(df) == n
    spans = zip(df["text"], df["pronoun_offset"], df["pronoun"], strict=True)
    assert all(t[o : o + len(p)] == p for t, o, p in spans)
    assert not (df["a_coref"] & df["b_coref"]).any()
