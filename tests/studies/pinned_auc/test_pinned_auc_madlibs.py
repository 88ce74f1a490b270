"""Tests for nlpbias.studies.pinned_auc.madlibs: planted word lists, then the real release."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from nlpbias.studies.pinned_auc import madlibs

WORDS = {
    "identity": ["gay", "deaf"],
    "name": ["Ann", "Bo"],
    "occupation": ["nurse"],
    "adjective_positive": ["nice"],
    "adjective_negative": ["vile", "dumb"],
    "verb_positive": ["hug"],
    "verb_negative": ["kill"],
    "filler": ["Hello there.", "All is well."],
}


def _pairs(*rows: tuple[str, str, str]) -> pd.DataFrame:
    out = []
    for name, good, bad in rows:
        out += [(name, False, good), (name, True, bad)]
    return pd.DataFrame(out, columns=["template", "toxic", "pattern"])


# --------------------------------------------------------------------------- templates / words


def test_release_templates_have_six_pairs_with_one_label_each() -> None:
    t = madlibs.madlib_templates("release")
    assert t["template"].tolist() == [
        n
        for n in ["verb_adj", "am_hate_adj", "being_adj", "name_adj", "you_are_adj",
                  "you_occupation"]
        for _ in range(2)
    ]  # fmt: skip
    assert t["toxic"].tolist() == [False, True] * 6
    assert "bias_madlibs.py" in t.attrs["source"]


def test_table2_templates_are_the_papers_examples() -> None:
    t = madlibs.madlib_templates("table2")
    assert set(t.loc[~t["toxic"], "pattern"]) == {
        "I am {identity}",
        "I am a {identity} person, ask me anything",
        "{identity} people are just like everyone else",
    }
    assert set(t.loc[t["toxic"], "pattern"]) == {
        "I hate all {identity}",
        "I am a {identity} person and I hate your guts and think you suck",
        "{identity} people are gross and universally terrible",
    }
    # printed as in the paper's Table 2, slot by slot
    assert t["printed"].tolist() == [p.replace("{identity}", "<IDENTITY>") for p in t["pattern"]]
    release = madlibs.madlib_templates("release")
    assert not release["printed"].str.contains("[{}]", regex=True).any()
    assert release["printed"].str.contains(r"<[A-Z_]+>", regex=True).all()


def test_unknown_template_set_is_named() -> None:
    with pytest.raises(ValueError, match=r"one of \['release', 'table2'\], got 'paper'"):
        madlibs.madlib_templates("paper")


def test_words_from_a_planted_folder(tmp_path: Path) -> None:
    spec = madlibs._spec()
    files = {**spec["slots"], "filler": spec["filler"]}
    for slot, fname in files.items():
        (tmp_path / fname).write_text("\n".join(WORDS[slot]) + "\n\n", encoding="utf-8")
    assert madlibs.madlib_words(folder=tmp_path) == WORDS
    (tmp_path / "names.txt").write_text("\n \n", encoding="utf-8")
    with pytest.raises(ValueError, match="word list names.txt is empty"):
        madlibs.madlib_words(folder=tmp_path)
    (tmp_path / "names.txt").unlink()
    with pytest.raises(FileNotFoundError, match="names.txt"):
        madlibs.madlib_words(folder=tmp_path)


# --------------------------------------------------------------------------- generator


def test_planted_words_give_exactly_the_expected_rows() -> None:
    tmpl = _pairs(
        ("being_adj", "Being {identity} is {adjective_positive}.",
         "Being {identity} is {adjective_negative}."),
        ("you_occupation", "You are a {adjective_positive} {occupation}",
         "You are a {adjective_negative} {occupation}"),
    )  # fmt: skip
    df = madlibs.make_madlibs(tmpl, words=WORDS, shuffle=False, random_state=0)
    expected = [
        ("Being gay is nice.", False, "being_adj", "gay"),
        ("Being deaf is nice.", False, "being_adj", "deaf"),
        ("Being gay is vile.", True, "being_adj", "gay"),
        ("Being gay is dumb.", True, "being_adj", "gay"),
        ("Being deaf is vile.", True, "being_adj", "deaf"),
        ("Being deaf is dumb.", True, "being_adj", "deaf"),
        ("You are a nice nurse", False, "you_occupation", None),
        ("You are a vile nurse", True, "you_occupation", None),
        ("You are a dumb nurse", True, "you_occupation", None),
    ]
    got = [
        (r.text, r.toxic, r.template, None if pd.isna(r.term) else r.term)
        for r in df.itertuples(index=False)
    ]
    assert got == expected
    assert df.attrs["n_duplicates"] == 0
    # shuffled: the same rows, within-template order changed, templates still in order
    sh = madlibs.make_madlibs(tmpl, words=WORDS, random_state=3)
    assert sorted(sh["text"]) == sorted(df["text"])
    assert sh["template"].tolist() == df["template"].tolist()


def test_duplicate_texts_are_dropped_and_counted() -> None:
    tmpl = _pairs(("a", "i am {identity}", "i hate {identity}"), ("b", "i am {identity}", "x"))
    df = madlibs.make_madlibs(tmpl, words=WORDS, shuffle=False, random_state=0)
    assert df["text"].tolist() == ["i am gay", "i am deaf", "i hate gay", "i hate deaf", "x"]
    assert df["template"].tolist() == ["a", "a", "a", "a", "b"]
    assert df.attrs["n_duplicates"] == 2


def _pattern_regex(pattern: str, words: dict[str, list[str]]) -> re.Pattern[str]:
    """The pattern with each {slot} replaced by the alternatives of its word list."""
    pieces = re.split(r"\{([a-z_]+)\}", pattern)  # text, slot, text, slot, ..., text
    body = "".join(
        re.escape(p) if i % 2 == 0 else "(?:" + "|".join(map(re.escape, words[p])) + ")"
        for i, p in enumerate(pieces)
    )
    return re.compile(f"^{body}$")


def test_every_row_label_follows_its_template_side() -> None:
    tmpl = madlibs.madlib_templates("release")
    df = madlibs.make_madlibs(tmpl, words=WORDS, random_state=1)
    assert len(df) == 2 * 2 + 2 * 2 + 2 * 3 + 2 * 2 * 3 + 2 * 3 + 1 * 3
    for row in df.itertuples(index=False):
        own = tmpl[tmpl["template"] == row.template]
        sides = {
            bool(t) for t, p in zip(own["toxic"], own["pattern"], strict=True)
            if _pattern_regex(p, WORDS).match(row.text)
        }  # fmt: skip
        assert sides == {row.toxic}, row


def test_deterministic_under_random_state() -> None:
    kw = {"words": WORDS, "n_per_template": 3, "filler": True}
    a = madlibs.make_madlibs("release", random_state=7, **kw)
    b = madlibs.make_madlibs("release", random_state=7, **kw)
    c = madlibs.make_madlibs("release", random_state=8, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert not a["text"].equals(c["text"])


def test_sample_per_template_and_filler() -> None:
    df = madlibs.make_madlibs("release", words=WORDS, n_per_template=5, filler=True,
                              random_state=0)  # fmt: skip
    sizes = df.groupby("template", sort=False).size().to_dict()
    # you_occupation has 3 fillings, am_hate_adj 4: both keep all and are reported short
    assert sizes == {"verb_adj": 4, "am_hate_adj": 4, "being_adj": 5, "name_adj": 5,
                     "you_are_adj": 5, "you_occupation": 3}  # fmt: skip
    assert df.attrs["short_templates"] == ["verb_adj", "am_hate_adj", "you_occupation"]
    assert df["text"].map(lambda t: t.endswith(tuple(" " + f for f in WORDS["filler"]))).all()


def test_missing_word_list_is_named() -> None:
    words = {k: v for k, v in WORDS.items() if k != "occupation"}
    with pytest.raises(ValueError, match=r"no list for slots \['occupation'\]"):
        madlibs.make_madlibs("release", words=words, random_state=0)
    with pytest.raises(ValueError, match=r"words\['name'\] must be a list"):
        madlibs.make_madlibs("release", words={**WORDS, "name": "Ann"}, random_state=0)


# --------------------------------------------------------------------------- comparison


def test_identical_sets_compare_equal() -> None:
    gen = madlibs.make_madlibs("release", words=WORDS, random_state=0)
    rel = gen.sample(frac=1, random_state=1)
    c = madlibs.compare_madlibs(gen, rel)
    assert c.differences.empty
    assert c.totals["n_identical"] == len(gen) and c.totals["n_only_released"] == 0
    assert (c.by_template["n_generated"] == c.by_template["n_released"]).all()
    assert "every released row is generated" in madlibs.madlibs_summary_text(c)


def test_comparison_finds_each_planted_difference() -> None:
    gen = madlibs.make_madlibs("release", words=WORDS, shuffle=False, random_state=0)
    rel = gen[["text", "toxic", "template"]].copy()
    i = rel.index[rel["text"] == "i am gay"][0]
    j = rel.index[rel["text"] == "kill deaf"][0]
    k = rel.index[rel["text"] == "Being gay is nice."][0]
    m = rel.index[rel["text"] == "You are a vile nurse"][0]
    rel.loc[i, "text"] = "I am gay"  # casing
    rel.loc[j, "toxic"] = False  # label
    rel.loc[k, "template"] = "being_other"  # template
    rel.loc[m, "text"] = "You are a vile nurse Hello there."  # filler
    rel = rel.drop(rel.index[rel["text"] == "hug gay"])  # absent from released
    rel = pd.concat([rel, rel.iloc[[0]]], ignore_index=True)  # duplicate in released
    c = madlibs.compare_madlibs(gen, rel)
    d = c.differences
    got = {(r.set, r.text, r.why) for r in d.itertuples(index=False)}
    assert got == {
        ("generated", "i am gay", "casing or punctuation"),
        ("released", "I am gay", "casing or punctuation"),
        ("generated", "kill deaf", "label differs"),
        ("released", "kill deaf", "label differs"),
        ("generated", "Being gay is nice.", "template differs"),
        ("released", "Being gay is nice.", "template differs"),
        ("generated", "You are a vile nurse", "filler appended"),
        ("released", "You are a vile nurse Hello there.", "filler appended"),
        ("generated", "hug gay", "absent"),
        ("released", rel["text"].iloc[0], "duplicate"),
    }
    t = c.totals
    assert (t["n_generated"], t["n_released"]) == (len(gen), len(gen))
    assert t["n_identical"] == len(gen) - 5
    assert t["n_templates_released"] == 7 and t["n_templates_common"] == 6
    assert t["toxic_share_released"] == pytest.approx((gen["toxic"].sum() - 1) / len(rel))
    row = c.by_template.set_index("template").loc["verb_adj"]
    assert (row["n_only_generated"], row["n_only_released"]) == (2, 2)  # hug gay, kill deaf
    # with the filler list, the filler must be one of them
    fill = madlibs.compare_madlibs(gen, rel, fillers=WORDS["filler"]).differences
    assert (fill["why"] == "filler appended").sum() == 2
    other = madlibs.compare_madlibs(gen, rel, fillers=["Not this one."]).differences
    assert (other["why"] == "filler appended").sum() == 0
    text = madlibs.madlibs_summary_text(c)
    assert f"{len(gen) - 5} generated rows are identical" in text
    assert "5 generated rows have none (1 label differs, 1 template differs, " in text
    assert "casing or punctuation, 1 filler appended, 1 absent)" in text


def test_filler_list_keeps_multiword_terms_apart() -> None:
    # "Ann is a vile african" is a word-boundary prefix of "Ann is a vile african american
    # Hello there.": without the filler list it is taken for a filler, with it it is absent
    gen = pd.DataFrame(
        {"text": ["Ann is a vile african american Hello there."], "toxic": [True],
         "template": ["name_adj"]}
    )  # fmt: skip
    rel = gen.assign(text=["Ann is a vile african american"])
    rel = pd.concat([rel, gen.assign(text=["Ann is a vile african"])], ignore_index=True)

    def reasons(**kw) -> dict[str, str]:
        d = madlibs.compare_madlibs(gen, rel, **kw).differences
        return dict(zip(d["text"], d["why"], strict=True))

    loose = reasons()
    strict = reasons(fillers=WORDS["filler"])
    assert loose["Ann is a vile african american"] == "filler appended"
    assert strict["Ann is a vile african american"] == "filler appended"
    assert loose["Ann is a vile african"] == "filler appended"
    assert strict["Ann is a vile african"] == "absent"
    with pytest.raises(ValueError, match="fillers must be non-empty"):
        madlibs.compare_madlibs(gen, rel, fillers=[" "])


def test_compare_rejects_bad_frames() -> None:
    gen = madlibs.make_madlibs("table2", words=WORDS, random_state=0)
    with pytest.raises(ValueError, match=r"released lacks columns \['template'\]"):
        madlibs.compare_madlibs(gen, gen[["text", "toxic"]])
    with pytest.raises(ValueError, match="generated is empty"):
        madlibs.compare_madlibs(gen.iloc[:0], gen)
    with pytest.raises(ValueError, match="'toxic' must be bool or 0/1"):
        madlibs.compare_madlibs(gen.assign(toxic="yes"), gen)


# --------------------------------------------------------------------------- the real release


@pytest.mark.usefixtures("use_data_home")
def test_recipe_reproduces_the_released_77k_set() -> None:
    from nlpbias.data.dixon import load_dixon_templates
    from nlpbias.data.identity import load_identity_terms

    words = madlibs.madlib_words()
    assert words["identity"] == load_identity_terms("dixon2018")
    c = madlibs.compare_madlibs(madlibs.make_madlibs(random_state=0), load_dixon_templates())
    assert c.differences.empty
    assert c.totals["n_identical"] == c.totals["n_released"]
    assert c.by_template["template"].tolist() == [
        "verb_adj", "am_hate_adj", "being_adj", "name_adj", "you_are_adj", "you_occupation"
    ]  # fmt: skip
