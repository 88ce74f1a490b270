"""Tests of nlpbias.data.wordsets and of the word-set files in data/wordsets/."""

from __future__ import annotations

import importlib.util
import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from nlpbias.data.wordsets import (
    WordSet,
    available_wordsets,
    load_wordset,
    load_wordsets,
    wordsets_dir,
)

ROOT = Path(__file__).resolve().parents[2]
BIB = ROOT / "book" / "references.bib"
NAMES = sorted(p.stem for p in (ROOT / "data" / "wordsets").glob("*.yaml"))

EXPECTED = {
    *(f"caliskan_weat{i}" for i in range(1, 11)),
    *(f"kato_weat{i}" for i in range(3, 9)),
    "winobias_occupations",
    "hsd_gender",
    "hsd_race",
    "davidson_gender",
    "davidson_race",
    "wajdalevie_likable",
    "science_arts",
    "instruments_weapons",
    "dong_career_family",
    "dong_pleasant_unpleasant",
    "dong_leader_follower",
    "may2019_angry_black_woman",
    "may2019_angry_black_woman_race",
    "may2019_angry_black_woman_gender",
    "may2019_weat3b",
    "may2019_weat5b",
    "manzini2019_race_black_white",
    "manzini2019_race_asian_white",
    *(
        f"guo2021_{pair}_{kind}{axis}"
        for pair in ("af_em", "mf_em")
        for kind in ("intersectional", "emergent")
        for axis in ("", "_race", "_gender")
    ),
}

INTERSECTIONAL = [
    "guo2021_af_em_intersectional",
    "guo2021_af_em_emergent",
    "guo2021_mf_em_intersectional",
    "guo2021_mf_em_emergent",
    "may2019_angry_black_woman",
]


def _bib_keys() -> set[str]:
    return set(re.findall(r"^@\w+\{([^,\s]+),", BIB.read_text(encoding="utf-8"), flags=re.M))


def _lines(path: Path) -> list[str]:
    return [w.strip() for w in path.read_text(encoding="utf-8").splitlines() if w.strip()]


def _wefe_weat() -> dict[str, list[str]]:
    """WEFE's WEAT.json, read as a data file (the wefe package itself is not imported)."""
    spec = importlib.util.find_spec("wefe")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("wefe (data files) not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "datasets" / "data" / "WEAT.json"
    if not path.is_file():
        pytest.skip("wefe's WEAT.json not found")
    return json.loads(path.read_text(encoding="utf-8"))


# --------------------------------------------------------------------------- every file


def test_the_expected_word_sets_exist():
    assert set(NAMES) == EXPECTED
    assert wordsets_dir() == ROOT / "data" / "wordsets"


@pytest.mark.parametrize("name", NAMES)
def test_every_word_set_loads_and_validates(name):
    ws = load_wordset(name)
    assert isinstance(ws, WordSet) and ws.name == name
    for sets in (ws.targets, ws.attributes):
        assert len(sets) == 2
        for words in sets.values():
            assert len(words) > 0
            assert len(set(words)) == len(words), "duplicate word within a set"
            assert all(w == w.strip() and w for w in words)
        first, second = sets.values()
        assert not set(first) & set(second)
    assert ws.citation in _bib_keys()
    assert ws.title and ws.source and ws.notes


@pytest.mark.parametrize("name", [n for n in NAMES if n.startswith("caliskan_weat")])
def test_caliskan_reported_values_are_consistent_with_the_lists(name):
    ws = load_wordset(name)
    rep = ws.reported
    assert "GloVe Common Crawl 840B" in rep["model"]
    assert rep["p_bound"] in {"<", "="}
    assert 0 < rep["p"] < 0.05 and 1.0 < rep["effect_size"] < 2.0
    excluded = set(rep.get("excluded_words", ()))
    kept = [len([w for w in words if w not in excluded]) for words in ws.targets.values()]
    n_t = int(rep["n_targets"].split("x")[0])
    n_a = int(rep["n_attributes"].split("x")[0])
    assert kept == [n_t, n_t]
    assert [len(words) for words in ws.attributes.values()] == [n_a, n_a]


def test_caliskan_effect_sizes_as_recorded():
    d = [load_wordset(f"caliskan_weat{i}").reported["effect_size"] for i in range(1, 11)]
    assert d == [1.50, 1.53, 1.41, 1.50, 1.28, 1.81, 1.06, 1.24, 1.38, 1.21]


# --------------------------------------------------------------------------- spot checks


def test_weat1_flowers_insects():
    ws = load_wordset("caliskan_weat1")
    assert ws.target_names == ("flowers", "insects")
    assert [len(v) for v in ws.targets.values()] == [25, 25]
    assert ws.targets["flowers"][0] == "aster" and ws.targets["insects"][-1] == "weevil"
    assert {"agony", "prison"} <= set(ws.attributes["unpleasant"])
    assert not {"bomb", "evil"} & set(ws.attributes["unpleasant"])


def test_weat3_and_4_use_the_other_unpleasant_set():
    for name in ("caliskan_weat3", "caliskan_weat4"):
        unpleasant = set(load_wordset(name).attributes["unpleasant"])
        assert {"bomb", "evil"} <= unpleasant and not {"agony", "prison"} & unpleasant
    assert [len(v) for v in load_wordset("caliskan_weat3").targets.values()] == [32, 32]
    weat4 = load_wordset("caliskan_weat4")
    assert set(weat4.reported["excluded_words"]) <= {w for v in weat4.targets.values() for w in v}


def test_weat6_is_eight_male_vs_eight_female_names():
    ws = load_wordset("caliskan_weat6")
    assert ws.target_names == ("male_names", "female_names")
    assert ws.targets["male_names"] == (
        "John",
        "Paul",
        "Mike",
        "Kevin",
        "Steve",
        "Greg",
        "Jeff",
        "Bill",
    )
    assert len(ws.targets["female_names"]) == 8
    assert ws.attribute_names == ("career", "family")


def test_caliskan_lists_equal_wefe_except_documented_corrections():
    wefe = _wefe_weat()
    keys = {
        1: ("flowers", "insects", "pleasant_5", "unpleasant_5a"),
        2: ("instruments", "weapons", "pleasant_5", "unpleasant_5a"),
        3: ("european_american_names_5", "african_american_names_5", "pleasant_5", "unpleasant_5b"),
        4: ("european_american_names_7", "african_american_names_7", "pleasant_5", "unpleasant_5b"),
        5: ("european_american_names_7", "african_american_names_7", "pleasant_9", "unpleasant_9"),
        6: ("male_names", "female_names", "career", "family"),
        7: ("math", "arts", "male_terms", "female_terms"),
        8: ("science", "arts_2", "male_terms_2", "female_terms_2"),
        9: ("mental_disease", "physical_disease", "temporary", "permanent"),
        10: ("young_people_names", "old_people_names", "pleasant_9", "unpleasant_9"),
    }
    corrections = {"short": "short-term", "Bill": "Billy"}
    for i, k in keys.items():
        ws = load_wordset(f"caliskan_weat{i}")
        ours = [*ws.targets.values(), *ws.attributes.values()]
        for key, words in zip(k, ours, strict=True):
            expected = list(wefe[key])
            if i in (9, 10):
                expected = [corrections.get(w, w) for w in expected]
            assert list(words) == expected, (i, key)
    # WEAT 6 keeps 'Bill' (John, Paul, ... Bill); only WEAT 10's young names read 'Billy'
    assert "Billy" in load_wordset("caliskan_weat10").targets["young_people_names"]
    assert "short-term" in load_wordset("caliskan_weat9").attributes["temporary"]


def test_kato_variants_relate_to_caliskan_as_described():
    for i in (3, 4):
        kato, cal = load_wordset(f"kato_weat{i}"), load_wordset(f"caliskan_weat{i}")
        for k_words, c_words in zip(kato.targets.values(), cal.targets.values(), strict=True):
            assert set(k_words) < set(c_words)
        assert dict(kato.attributes) == dict(cal.attributes)
    assert [len(v) for v in load_wordset("kato_weat3").targets.values()] == [20, 20]
    assert [len(v) for v in load_wordset("kato_weat4").targets.values()] == [12, 12]
    assert dict(load_wordset("kato_weat5").targets) == dict(load_wordset("kato_weat4").targets)
    k6 = load_wordset("kato_weat6")
    # swapped: WEAT 6's attributes become targets, WEAT 7's gender terms become attributes
    assert list(k6.targets.values()) == list(load_wordset("caliskan_weat6").attributes.values())
    assert list(k6.attributes.values()) == list(load_wordset("caliskan_weat7").attributes.values())
    for i in (7, 8):
        kato, cal = load_wordset(f"kato_weat{i}"), load_wordset(f"caliskan_weat{i}")
        assert list(kato.targets.values()) == list(cal.targets.values())
        assert list(kato.attributes.values()) == list(cal.attributes.values())


def test_hsd_sets_keep_the_papers_attribute_order():
    gender, race = load_wordset("hsd_gender"), load_wordset("hsd_race")
    assert gender.target_names == ("male", "female")
    assert gender.attribute_names == ("hateful", "unhateful")
    assert race.target_names == ("white_aligned", "african_american_aligned")
    assert race.attribute_names == ("unhateful", "hateful")
    assert [len(v) for v in [*gender.targets.values(), *gender.attributes.values()]] == [8] * 4
    assert [len(v) for v in [*race.targets.values(), *race.attributes.values()]] == [
        15,
        15,
        19,
        19,
    ]
    # Table 12: each male word has its female counterpart at the same position
    pairs = dict(zip(gender.targets["male"], gender.targets["female"], strict=True))
    assert pairs["he's"] == "she's" and pairs["king"] == "queen" and pairs["husband"] == "wife"
    assert "\U0001f44d" in race.targets["white_aligned"]  # THUMBS UP SIGN
    assert "\U0001f612" in race.attributes["hateful"]  # UNAMUSED FACE


def test_brunet_sets():
    iw, w2 = load_wordset("instruments_weapons"), load_wordset("caliskan_weat2")
    assert dict(iw.targets) == dict(w2.targets) and dict(iw.attributes) == dict(w2.attributes)
    sa = load_wordset("science_arts")
    w8, w7 = load_wordset("caliskan_weat8"), load_wordset("caliskan_weat7")
    lowered = [tuple(w.lower() for w in words) for words in w8.targets.values()]
    assert list(sa.targets.values()) == lowered
    assert list(sa.attributes.values()) == list(w7.attributes.values())


def test_likable_set():
    ws = load_wordset("wajdalevie_likable")
    assert ws.attribute_names == ("likable", "unlikable")
    assert (
        ws.attributes["likable"][0] == "agreeable" and ws.attributes["unlikable"][-1] == "unliked"
    )
    assert list(ws.targets.values()) == list(load_wordset("caliskan_weat6").targets.values())


def test_dong_sets_without_data_home():
    cf = load_wordset("dong_career_family")
    assert cf.targets["male"] == ("he", "boys", "men")
    assert dict(cf.attributes) == dict(load_wordset("caliskan_weat6").attributes)
    lf = load_wordset("dong_leader_follower")
    assert lf.attribute_names == ("leader", "follower")
    assert lf.attributes["leader"][-1] == "strong" and lf.attributes["follower"][-1] == "weak"
    pu = load_wordset("dong_pleasant_unpleasant")
    w3 = load_wordset("caliskan_weat3").attributes
    assert list(pu.attributes["pleasant"][:24]) == [w for w in w3["pleasant"] if w != "caress"]
    expected = [w for w in w3["unpleasant"] if w not in ("filth", "pollute")]
    assert list(pu.attributes["unpleasant"][:23]) == expected
    assert cf.reported["career"] < 0 < cf.reported["family"]


# --------------------------------------------------------------------------- intersectional tests


def test_exactly_the_intersectional_tests_have_components():
    with_components = sorted(n for n in NAMES if load_wordset(n).components is not None)
    assert with_components == sorted(INTERSECTIONAL)


@pytest.mark.parametrize("name", INTERSECTIONAL)
def test_components_load_and_share_the_attributes(name):
    ws = load_wordset(name)
    assert set(ws.components) == {"race", "gender"}
    assert ws.components == {"race": f"{name}_race", "gender": f"{name}_gender"}
    for comp_name in ws.components.values():
        comp = load_wordset(comp_name)
        assert comp.components is None, "a component is a single-axis test"
        assert comp.citation == ws.citation
        # same attribute sets, same names, same order: the components differ only in targets
        assert list(comp.attributes.items()) == list(ws.attributes.items())


@pytest.mark.parametrize("name", INTERSECTIONAL)
def test_component_targets_contain_the_tests_names_on_the_matching_side(name):
    ws = load_wordset(name)
    t1, t2 = (set(words) for words in ws.targets.values())
    race1, race2 = (set(w) for w in load_wordset(ws.components["race"]).targets.values())
    gender1, gender2 = (set(w) for w in load_wordset(ws.components["gender"]).targets.values())
    # race: T1 (minority women) in the minority side, T2 in the other race's side
    assert t1 <= race1 and t2 <= race2
    # race: each side adds the other gender's names of its own race (both sides grow)
    assert race1 - t1 and race2 - t2
    if name.startswith("guo2021"):
        # T1 women, T2 men: gender component is women (both races) vs men (both races)
        assert t1 <= gender1 and t2 <= gender2
        # balanced: the race component's sides split evenly between the gender sides
        assert len(race1 & gender1) == len(race1 & gender2) == len(t1)
        assert len(race2 & gender1) == len(race2 & gender2) == len(t2)
    else:
        # ABW: both target sets are women, so the female side holds all of the test's names
        assert t1 | t2 == gender1
        assert gender2 == (race1 - t1) | (race2 - t2), "the men are the race component's additions"
        assert len(gender2 & race1) == len(gender2 & race2)


def test_guo_names_are_twelve_per_group_and_shared_across_tests():
    af = load_wordset("guo2021_af_em_intersectional")
    mf = load_wordset("guo2021_mf_em_intersectional")
    em = af.targets["european_american_male_names"]
    assert em == mf.targets["european_american_male_names"]
    assert [len(v) for v in (*af.targets.values(), *mf.targets.values())] == [12] * 4
    for kind in ("intersectional", "emergent"):
        for pair in ("af_em", "mf_em"):
            base = load_wordset(f"guo2021_{pair}_intersectional")
            other = load_wordset(f"guo2021_{pair}_{kind}")
            assert dict(other.targets) == dict(base.targets)
    # the emergent attributes are a subset of the intersectional ones of the same group
    for pair in ("af_em", "mf_em"):
        inter = load_wordset(f"guo2021_{pair}_intersectional").attributes
        emerg = load_wordset(f"guo2021_{pair}_emergent").attributes
        for (_, words_i), (_, words_e) in zip(inter.items(), emerg.items(), strict=True):
            assert set(words_e) <= set(words_i)
    assert load_wordset("guo2021_af_em_emergent").attributes[
        "european_american_male_emergent_biases"
    ] == ("successful", "educated")
    assert (
        "José"
        in load_wordset("guo2021_mf_em_intersectional_race").targets["mexican_american_names"]
    )


def test_angry_black_woman_lists():
    ws = load_wordset("may2019_angry_black_woman")
    assert ws.target_names == ("black_female_names", "white_female_names")
    assert ws.attribute_names == ("angry_black_woman_stereotype", "near_antonyms")
    sizes = [len(v) for v in (*ws.targets.values(), *ws.attributes.values())]
    assert sizes == [15, 15, 18, 18]
    assert ws.attributes["angry_black_woman_stereotype"][0] == "shrill"
    assert ws.attributes["near_antonyms"][-1] == "submissive"
    # the men's names of the components are Bertrand & Mullainathan's, as in Caliskan's WEAT 4
    weat4 = load_wordset("caliskan_weat4").targets
    men = set(load_wordset("may2019_angry_black_woman_gender").targets["male_names"])
    assert men <= set(weat4["european_american_names"]) | set(weat4["african_american_names"])
    assert len(men) == 18


def test_manzini_race_sets_are_the_columns_of_the_definite_sets():
    # Manzini et al.'s definite sets (race_attributes_optm.json, commit c0fe870): aligned triples
    # in class order black, caucasian, asian
    triples = [
        ("black", "caucasian", "asian"),
        ("african", "caucasian", "asian"),
        ("black", "white", "asian"),
        ("africa", "america", "asia"),
        ("africa", "america", "china"),
        ("africa", "europe", "asia"),
    ]
    black, white, asian = (list(dict.fromkeys(col)) for col in zip(*triples, strict=True))
    bw = load_wordset("manzini2019_race_black_white")
    aw = load_wordset("manzini2019_race_asian_white")
    assert bw.target_names == ("black_terms", "white_terms")
    assert aw.target_names == ("asian_terms", "white_terms")
    assert list(bw.targets["black_terms"]) == black == ["black", "african", "africa"]
    assert list(aw.targets["asian_terms"]) == asian == ["asian", "asia", "china"]
    assert list(bw.targets["white_terms"]) == list(aw.targets["white_terms"]) == white
    # stereotype-consistent order: the first attribute set belongs to the first target group
    assert bw.attribute_names == ("black_stereotypes", "white_stereotypes")
    assert aw.attribute_names == ("asian_stereotypes", "white_stereotypes")
    assert bw.attributes["black_stereotypes"] == (
        "slave", "musician", "runner", "criminal", "homeless"
    )  # fmt: skip
    assert aw.attributes["asian_stereotypes"] == ("doctor", "engineer", "laborer", "teacher")
    assert bw.attributes["white_stereotypes"] == aw.attributes["white_stereotypes"]
    assert bw.attributes["white_stereotypes"][:3] == ("manager", "executive", "redneck")
    assert len(bw.attributes["white_stereotypes"]) == 6
    assert bw.citation == aw.citation == "manzini2019black"


@pytest.mark.parametrize("number", [3, 5])
def test_seat_b_tests_are_weat_with_group_terms_for_names(number):
    ws = load_wordset(f"may2019_weat{number}b")
    weat = load_wordset(f"caliskan_weat{number}")
    assert dict(ws.attributes) == dict(weat.attributes)
    assert ws.target_names == ("european_american_terms", "african_american_terms")
    european, african = ws.targets.values()
    assert len(european) == len(african) == 15
    assert european[0] == "European American" and african[0] == "African American"
    # every term is '<nationality> American'
    assert all(t.endswith(" American") and len(t.split()) >= 2 for t in (*european, *african))
    assert ws.citation == "may2019measuring"


# --------------------------------------------------------------------------- against the data home


def test_winobias_sets_equal_the_shared_files(data_home):
    ws = load_wordset("winobias_occupations")
    folder = data_home / "winobias"
    assert list(ws.targets["male_occupations"]) == _lines(folder / "male_occupations.txt")
    assert list(ws.targets["female_occupations"]) == _lines(folder / "female_occupations.txt")
    assert "construction worker" in ws.targets["male_occupations"]
    assert ws.attributes == {"male": ("he", "him"), "female": ("she", "her")}


@pytest.mark.parametrize(
    ("name", "folder", "files"),
    [
        ("dong_career_family", "career_family", ("male", "female", "career", "family")),
        (
            "dong_pleasant_unpleasant",
            "unpleasant_pleasant",
            ("male", "female", "pleasant", "unpleasant"),
        ),
        ("dong_leader_follower", "follower_leader", ("male", "female", "leader", "follower")),
    ],
)
def test_dong_sets_equal_the_shared_files(data_home, name, folder, files):
    ws = load_wordset(name)
    sets_dir = data_home / "lindadongx_personal_corpora" / "sets" / folder
    ours = [*ws.targets.values(), *ws.attributes.values()]
    for words, stem in zip(ours, files, strict=True):
        assert list(words) == _lines(sets_dir / f"{stem}.txt"), stem


# --------------------------------------------------------------------------- API


def test_unknown_name_lists_available_names(one_line):
    with pytest.raises(ValueError) as err:
        load_wordset("caliskan_weat11")
    msg = one_line(err)
    assert "caliskan_weat11" in msg and "'caliskan_weat1'" in msg and "hsd_race" in msg
    with pytest.raises(ValueError):
        load_wordset(None)  # type: ignore[arg-type]


def test_load_is_cached_and_read_only():
    ws = load_wordset("kato_weat7")
    assert load_wordset("kato_weat7") is ws
    with pytest.raises(TypeError):
        ws.targets["math"] = ("x",)  # type: ignore[index]
    with pytest.raises(AttributeError):
        ws.name = "other"  # type: ignore[misc]
    assert isinstance(ws.targets["math"], tuple)
    assert isinstance(hash(ws), int)
    rep = load_wordset("caliskan_weat4").reported
    assert isinstance(rep["excluded_words"], tuple)
    with pytest.raises(TypeError):
        rep["p"] = 1.0  # type: ignore[index]


def test_load_wordsets_keeps_order_and_rejects_a_string(one_line):
    assert [ws.name for ws in load_wordsets(["kato_weat8", "kato_weat6"])] == [
        "kato_weat8",
        "kato_weat6",
    ]
    with pytest.raises(TypeError) as err:
        load_wordsets("kato_weat8")
    one_line(err)


def test_available_wordsets_table():
    table = available_wordsets()
    assert list(table.columns) == [
        "name",
        "title",
        "target_1",
        "target_2",
        "attribute_1",
        "attribute_2",
        "n_target_1",
        "n_target_2",
        "n_attribute_1",
        "n_attribute_2",
        "citation",
        "has_reported",
    ]
    assert sorted(table["name"]) == NAMES
    # natural order: weat2 before weat10
    names = table["name"].tolist()
    assert names.index("caliskan_weat2") < names.index("caliskan_weat10")
    row = table.set_index("name").loc["dong_pleasant_unpleasant"]
    assert (row["n_target_1"], row["n_attribute_1"], row["n_attribute_2"]) == (6, 160, 119)
    assert row["attribute_1"] == "pleasant" and bool(row["has_reported"])
    assert not table.set_index("name").loc["hsd_gender", "has_reported"]
    assert table["has_reported"].dtype == bool


# --------------------------------------------------------------------------- malformed files

VALID = """\
name: toy
title: Toy test
targets:
  t1: [a, b]
  t2: [c, "construction worker"]
attributes:
  a1: [x]
  a2: [y, z]
source: made up for a test
citation: caliskan2017semantics
notes: none
"""


def _write(folder: Path, text: str, name: str = "toy") -> Path:
    path = folder / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_valid_toy_file_loads(tmp_path):
    _write(tmp_path, VALID)
    ws = load_wordset("toy", folder=tmp_path)
    assert ws.target_names == ("t1", "t2") and ws.attribute_names == ("a1", "a2")
    assert ws.targets["t2"] == ("c", "construction worker")
    assert ws.reported is None
    table = available_wordsets(folder=tmp_path)
    assert table.loc[
        0, ["n_target_1", "n_target_2", "n_attribute_1", "n_attribute_2"]
    ].tolist() == [
        2,
        2,
        1,
        2,
    ]


def test_an_edited_file_is_read_again(tmp_path):
    path = _write(tmp_path, VALID)
    assert load_wordset("toy", folder=tmp_path).title == "Toy test"
    path.write_text(VALID.replace("Toy test", "Edited"), encoding="utf-8")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert load_wordset("toy", folder=tmp_path).title == "Edited"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("notes: none\n", "", "lacks field(s) ['notes']"),
        ('  t2: [c, "construction worker"]\n', "  t2: [c]\n  t3: [d]\n", "'targets' must map"),
        ("  a1: [x]\n", "  a1: [x, x]\n", "'attributes.a1' lists words more than once"),
        ("  a1: [x]\n", "  a1: []\n", "'attributes.a1' must be a non-empty list"),
        ("  a1: [x]\n", "  a1: [x, no]\n", "'attributes.a1' has entries"),
        ("  a1: [x]\n", "  a1: [x, y]\n", "'attributes' has words in both sets"),
        ("name: toy\n", "name: other\n", "field 'name' is 'other'"),
        ("citation: caliskan2017semantics\n", "citation: Caliskan et al. 2017\n", "'citation'"),
        ("title: Toy test\n", "title: ''\n", "field 'title' must be a non-empty string"),
        ("notes: none\n", "notes: none\nreported: [1, 2]\n", "field 'reported' must be"),
        ("notes: none\n", "notes: none\nextra: 1\n", "unknown field(s) ['extra']"),
        (
            'targets:\n  t1: [a, b]\n  t2: [c, "construction worker"]\n',
            "targets: [a, b]\n",
            "'targets' must map exactly 2 set names to word lists, got list",
        ),
    ],
)
def test_malformed_files_name_the_file_and_the_field(tmp_path, one_line, old, new, expected):
    assert old in VALID
    _write(tmp_path, VALID.replace(old, new))
    with pytest.raises(ValueError) as err:
        load_wordset("toy", folder=tmp_path)
    msg = one_line(err)
    assert "toy.yaml" in msg and expected in msg


def test_components_name_other_word_set_files(tmp_path):
    _write(tmp_path, VALID.replace("name: toy", "name: toy_race"), name="toy_race")
    _write(tmp_path, VALID + "components:\n  race: toy_race\n")
    ws = load_wordset("toy", folder=tmp_path)
    assert ws.components == {"race": "toy_race"}
    with pytest.raises(TypeError):
        ws.components["gender"] = "x"  # type: ignore[index]
    assert load_wordset("toy_race", folder=tmp_path).components is None


@pytest.mark.parametrize(
    ("components", "expected"),
    [
        ("  race: toy_missing\n", "'components.race' is 'toy_missing', but there is no"),
        ("  race: toy\n", "'components.race' names the file itself"),
        ("  race: 3\n", "'components.race' must be the name of a word-set file"),
        ("  Race: toy_race\n", "has axis 'Race'"),
        (" [toy_race]\n", "field 'components' must be a non-empty mapping"),
        (" {}\n", "field 'components' must be a non-empty mapping"),
    ],
)
def test_a_bad_component_is_rejected_naming_the_file(tmp_path, one_line, components, expected):
    _write(tmp_path, VALID.replace("name: toy", "name: toy_race"), name="toy_race")
    _write(tmp_path, VALID + "components:" + ("\n" if components.startswith("  ") else "")
           + components)  # fmt: skip
    with pytest.raises(ValueError) as err:
        load_wordset("toy", folder=tmp_path)
    msg = one_line(err)
    assert "word set file toy.yaml" in msg and expected in msg


@pytest.mark.parametrize("text", ["targets: [a, b\n", "- just\n- a list\n"])
def test_unparsable_or_non_mapping_files(tmp_path, one_line, text):
    _write(tmp_path, text)
    with pytest.raises(ValueError) as err:
        load_wordset("toy", folder=tmp_path)
    assert "toy.yaml" in one_line(err)


def test_available_wordsets_of_an_empty_folder(tmp_path):
    table = available_wordsets(folder=tmp_path)
    assert isinstance(table, pd.DataFrame) and table.empty and "n_target_1" in table.columns


def test_reported_values_reads_the_papers_numbers_and_skips_sets_without_them() -> None:
    from nlpbias.data.wordsets import reported_values

    table = reported_values(["caliskan_weat1", "caliskan_weat7", "kato_weat6"])
    assert table["name"].tolist() == ["caliskan_weat1", "caliskan_weat7"]
    weat7 = table.set_index("name").loc["caliskan_weat7"]
    assert weat7["reported_effect_size"] == 1.06 and weat7["reported_p"] == 0.018
    assert weat7["p_bound"] == "=" and "GloVe" in weat7["model"]


def test_area_is_read_and_checked(tmp_path, one_line):
    from nlpbias.data.wordsets import AREAS

    _write(tmp_path, VALID + "area: race\n")
    assert load_wordset("toy", folder=tmp_path).area == "race"
    _write(tmp_path, VALID)
    assert load_wordset("toy", folder=tmp_path).area is None
    _write(tmp_path, VALID + "area: Race\n")
    with pytest.raises(ValueError) as err:
        load_wordset("toy", folder=tmp_path)
    msg = one_line(err)
    assert "toy.yaml" in msg and "field 'area'" in msg and str(list(AREAS)) in msg


def test_the_books_tests_name_their_area():
    # every WEAT-style test of Caliskan et al., the intersectional tests and their components,
    # and the perturbation chapter's tests can be grouped by area
    table = available_wordsets()
    needed = [n for n in table["name"] if n.startswith(("caliskan_", "guo2021_", "may2019_"))]
    needed += ["science_arts", "instruments_weapons", "wajdalevie_likable"]
    assert {n: load_wordset(n).area for n in needed if load_wordset(n).area is None} == {}
    for name in needed:
        ws = load_wordset(name)
        if ws.components:
            assert ws.area == "intersectional"
            assert {a: load_wordset(c).area for a, c in ws.components.items()} == {
                "race": "race",
                "gender": "gender",
            }
