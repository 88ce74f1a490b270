"""Tests for nlpbias.data.identity: the Dixon et al. term list and whole-word term matching."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nlpbias.data import identity

# --------------------------------------------------------------------------- term lists


def test_dixon2018_terms() -> None:
    terms = identity.load_identity_terms()
    assert len(terms) == 50 and len(set(terms)) == 50
    assert terms[:3] == ["lesbian", "gay", "bisexual"]
    assert terms[-1] == "paralyzed"
    assert {"african american", "middle eastern", "middle aged", "millenial"} <= set(terms)


def test_dixon2018_table_categories() -> None:
    tab = identity.identity_terms_table("dixon2018")
    assert list(tab.columns) == ["term", "category"]
    assert tab["term"].tolist() == identity.load_identity_terms("dixon2018")
    assert tab["category"].value_counts().to_dict() == {
        "race/ethnicity/nationality": 17,
        "sexual orientation/gender identity": 14,
        "religion": 8,
        "age": 8,
        "disability": 3,
    }
    cat = tab.set_index("term")["category"]
    assert cat["gay"] == "sexual orientation/gender identity"
    assert cat["muslim"] == "religion"
    assert cat["deaf"] == "disability"
    assert cat["elderly"] == "age"
    assert cat["african american"] == "race/ethnicity/nationality"


def test_unknown_list_names_available() -> None:
    with pytest.raises(ValueError, match=r"must be one of \[.*'dixon2018'.*\], got 'nope'"):
        identity.load_identity_terms("nope")


def test_data_dir_missing_is_clear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from nlpbias.core import paths

    monkeypatch.setattr(paths, "package_dir", lambda: tmp_path / "site" / "nlpbias")
    with pytest.raises(FileNotFoundError, match="data folder .* not found") as err:
        identity.load_identity_terms()
    assert "\n" not in str(err.value)


@pytest.mark.usefixtures("use_data_home")
def test_dixon2018_terms_match_the_source_file() -> None:
    from nlpbias.data import store

    src = store.path("dixon2018", "bias_madlibs_data/adjectives_people.txt")
    lines = [ln for ln in src.read_text(encoding="utf-8").splitlines() if ln.strip()]
    assert identity.load_identity_terms() == lines


# --------------------------------------------------------------------------- term_mask


def test_term_mask_whole_word_case_insensitive() -> None:
    texts = ["Gay!", "gaydar", "a gay-friendly bar", "LGBTQ rights", "lgbt", "ungay"]
    m = identity.term_mask(texts, ["gay", "lgbt", "lgbtq"])
    assert list(m.columns) == ["gay", "lgbt", "lgbtq"]
    assert m.dtypes.eq(bool).all()
    assert m["gay"].tolist() == [True, False, True, False, False, False]
    assert m["lgbt"].tolist() == [False, False, False, False, True, False]
    assert m["lgbtq"].tolist() == [False, False, False, True, False, False]


def test_term_mask_multi_word_terms() -> None:
    texts = ["an African American man", "African\nAmerican", "african americans", "american"]
    m = identity.term_mask(texts, ["african american", "american"])
    assert m["african american"].tolist() == [True, True, False, False]
    assert m["american"].tolist() == [True, True, False, True]


def test_term_mask_keeps_series_index_and_escapes_regex() -> None:
    s = pd.Series(["the u.s. army", "uxsx", "C++ dev"], index=["a", "b", "c"])
    m = identity.term_mask(s, ["u.s", "c++"])
    assert m.index.tolist() == ["a", "b", "c"]
    assert m["u.s"].tolist() == [True, False, False]
    assert m["c++"].tolist() == [False, False, True]


def test_term_mask_case_sensitive() -> None:
    m = identity.term_mask(["Black cat", "black cat"], ["Black"], case_sensitive=True)
    assert m["Black"].tolist() == [True, False]


def test_term_mask_with_dixon_terms() -> None:
    terms = identity.load_identity_terms()
    m = identity.term_mask(["I am a proud old Sikh woman.", "Nothing here."], terms)
    assert m.shape == (2, 50)
    assert sorted(m.columns[m.iloc[0]]) == ["old", "sikh"]
    assert not m.iloc[1].any()


@pytest.mark.parametrize(
    "texts, terms, exc, match",
    [
        (["a"], [], ValueError, "terms is empty"),
        (["a"], "gay", TypeError, "single string"),
        (["a"], ["gay", "gay"], ValueError, r"duplicates \['gay'\]"),
        (["a"], ["  "], ValueError, "non-empty string"),
        (["a", None], ["gay"], TypeError, "1 are not"),
        (pd.Series(["a", float("nan")]), ["gay"], TypeError, "must all be strings"),
    ],
)
def test_term_mask_bad_input(texts, terms, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        identity.term_mask(texts, terms)


def test_term_mask_empty_texts() -> None:
    m = identity.term_mask([], ["gay"])
    assert m.shape == (0, 1) and list(m.columns) == ["gay"]


def _regex_everywhere(texts: list[str], terms: list[str], case_sensitive: bool) -> pd.DataFrame:
    """The mask by one regex search per text and term (what term_mask computed before its
    substring pre-filter)."""
    s = pd.Series(texts, dtype=object)
    return pd.DataFrame(
        {
            t: s.str.contains(identity.term_pattern(t, case_sensitive=case_sensitive)).to_numpy()
            for t in terms
        }
    )


@pytest.mark.parametrize("case_sensitive", [False, True])
def test_term_mask_prefilter_equals_the_regex_on_every_text(case_sensitive: bool) -> None:
    # letters that re.IGNORECASE matches to ASCII ones though lower() does not map them there
    # (Kelvin sign ~ k, long s ~ s, dotless i ~ i, dotted capital I ~ i), runs of whitespace
    # inside a multi-word term, words inside other words, and non-ASCII terms
    texts = [
        "\u212aorean food",  # Kelvin sign: IGNORECASE matches "korean"
        "chri\u017ftian values",  # long s: matches "christian"
        "g\u0131rl power",  # dotless i
        "\u0130slam",  # dotted capital I
        "an African \t American man",
        "African-American",
        "gaydar and gay",
        "GAY pride",
        "blackish",
        "café Gay",
        "naïve muslim",
        "",
        "Japanese",
        "jApAnEse!",
        "über deutsch",
        "Über Deutsch",
    ]
    terms = ["korean", "christian", "girl", "islam", "african american", "gay", "black",
             "muslim", "japanese", "über", "deutsch", "café"]  # fmt: skip
    got = identity.term_mask(texts, terms, case_sensitive=case_sensitive)
    want = _regex_everywhere(texts, terms, case_sensitive)
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_names=False)
    if not case_sensitive:  # the cases the pre-filter must not lose
        assert got.loc[0, "korean"] and got.loc[1, "christian"] and got.loc[2, "girl"]
        assert got.loc[3, "islam"] and got.loc[4, "african american"]
        assert got.loc[15, "über"]


def test_term_mask_prefilter_on_random_texts() -> None:
    gen = np.random.default_rng(0)
    alphabet = list("abgiklmsuy ") + ["\u212a", "\u017f", "\u0131", "\u0130", "ü", "Ü", "-", "\n"]
    texts = ["".join(gen.choice(alphabet, size=gen.integers(0, 30))) for _ in range(3000)]
    terms = ["gay", "muslim", "sikh", "asian", "gay muslim", "üs", "a"]
    for case_sensitive in (False, True):
        got = identity.term_mask(texts, terms, case_sensitive=case_sensitive)
        want = _regex_everywhere(texts, terms, case_sensitive)
        pd.testing.assert_frame_equal(got.reset_index(drop=True), want, check_names=False)
    assert got.to_numpy().any()  # the random texts do contain some terms
