"""Tests for nlpbias.studies.perturbation.intersectional: a test beside its components."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest
import yaml

from nlpbias.studies.perturbation import intersectional as it

N = 6  # names per group


def _names(group: str) -> list[str]:
    return [f"{group}{i}" for i in range(N)]


def _write(folder, name, targets, attributes, components=None):
    spec = {
        "name": name,
        "title": name,
        "targets": targets,
        "attributes": attributes,
        "source": "planted",
        "citation": "planted",
        "notes": "planted",
    }
    if components:
        spec["components"] = components
    (folder / f"{name}.yaml").write_text(yaml.safe_dump(spec))


@pytest.fixture
def planted(tmp_path):
    """AF names sit on A1, EM names on A2, AM and EF names halfway (equally far from both).

    Per target word, s = mean cos(w, A1) − mean cos(w, A2) is +d for AF, −d for EM and 0 for
    AM and EF, up to a small jitter. The intersectional test AF vs EM separates +d from −d; its
    race component (AF + AM vs EF + EM) and its gender component (AF + EF vs AM + EM) mix in the
    zeros, so both have a smaller effect size, known in closed form.
    """
    rng = np.random.default_rng(0)
    a1, a2 = np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])
    vectors = {}
    for w in _names("pa"):
        vectors[w] = a1 + 0.01 * rng.normal(size=3)
    for w in _names("pb"):
        vectors[w] = a2 + 0.01 * rng.normal(size=3)
    place = {"af": a1, "em": a2, "am": (a1 + a2) / 2, "ef": (a1 + a2) / 2}
    for group, where in place.items():
        for w in _names(group):
            vectors[w] = where + np.array([0, 0, 0.3]) + 0.002 * rng.normal(size=3)
    attrs = {"a_one": _names("pa"), "a_two": _names("pb")}
    _write(
        tmp_path, "x_int", {"af": _names("af"), "em": _names("em")}, attrs,
        {"race": "x_race", "gender": "x_gender"},
    )  # fmt: skip
    _write(tmp_path, "x_race", {"aa": _names("af") + _names("am"),
                                "ea": _names("ef") + _names("em")}, attrs)  # fmt: skip
    _write(tmp_path, "x_gender", {"f": _names("af") + _names("ef"),
                                  "m": _names("am") + _names("em")}, attrs)  # fmt: skip
    return tmp_path, vectors


def _closed_form(groups_1: list[float], groups_2: list[float]) -> float:
    """Effect size (ddof 1) when every name of a group has the same s."""
    s1 = np.repeat(groups_1, N)
    s2 = np.repeat(groups_2, N)
    return (s1.mean() - s2.mean()) / np.concatenate([s1, s2]).std(ddof=1)


def test_planted_intersectional_exceeds_its_components(planted):
    folder, vectors = planted
    e = it.intersectional_effects(
        vectors, ["x_int"], max_missing=0.0, n_permutations=999, n_bootstrap=500,
        random_state=0, lowercase=False, folder=folder,
    )  # fmt: skip
    assert e.index.tolist() == [("x_int", a) for a in it.AXES]
    assert e["testable"].all()
    es = e["effect_size"].droplevel(0)
    assert es["intersectional"] == pytest.approx(_closed_form([1], [-1]), abs=0.02)
    assert es["race"] == pytest.approx(_closed_form([1, 0], [0, -1]), abs=0.02)
    assert es["gender"] == pytest.approx(_closed_form([1, 0], [0, -1]), abs=0.02)
    assert (e["p_value"] < 0.01).all()
    assert (e["ci_low"] <= e["effect_size"]).all() and (e["effect_size"] <= e["ci_high"]).all()
    s = it.intersectional_summary(e)
    assert bool(s.loc["x_int", "exceeds_both"])
    assert "1 has a larger effect size than both" in it.intersectional_sentence(s)


def test_a_test_that_loses_its_words_is_not_testable_and_kept(planted):
    folder, vectors = planted
    for w in _names("em")[:4]:  # 4 of 6 EM names missing: beyond max_missing 0.5
        del vectors[w]
    e = it.intersectional_effects(
        vectors, ["x_int"], max_missing=0.5, n_permutations=99, n_bootstrap=50,
        random_state=0, lowercase=False, folder=folder,
    )  # fmt: skip
    assert len(e) == 3  # every row stays
    assert not e.loc[("x_int", "intersectional"), "testable"]
    assert "not testable here" in e.loc[("x_int", "intersectional"), "reason"]
    assert "em0" in e.loc[("x_int", "intersectional"), "missing"]
    s = it.intersectional_summary(e)
    assert pd.isna(s.loc["x_int", "exceeds_both"])
    assert "No intersectional test is testable here" in it.intersectional_sentence(s)


def test_a_test_without_components_is_refused(planted, one_line):
    folder, vectors = planted
    with pytest.raises(ValueError) as err:
        it.intersectional_effects(
            vectors, ["x_race"], max_missing=0.0, n_permutations=9, n_bootstrap=0,
            random_state=0, folder=folder,
        )  # fmt: skip
    assert "no components" in one_line(err)
    with pytest.raises(ValueError) as err:
        it.intersectional_effects(
            vectors, [], max_missing=0.0, n_permutations=9, n_bootstrap=0, random_state=0
        )
    assert "no intersectional tests" in one_line(err)


def test_the_books_intersectional_word_sets_have_components():
    from nlpbias.data.wordsets import available_wordsets, load_wordset

    tests = [n for n in available_wordsets()["name"] if load_wordset(n).components]
    assert len(tests) >= 3
    for name in tests:
        assert set(it._components(name, None)) >= {"race", "gender"}


def test_doctests():
    failed, attempted = doctest.testmod(it, optionflags=doctest.NORMALIZE_WHITESPACE)[:2]
    assert attempted > 0 and failed == 0
