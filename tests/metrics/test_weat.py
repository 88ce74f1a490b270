"""Tests for nlpbias.metrics.weat (WEAT on vectors and on queries): by hand, brute force, WEFE."""

from __future__ import annotations

import itertools
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from nlpbias.metrics import weat as weat_module
from nlpbias.metrics.query import OutOfVocabularyError, Query
from nlpbias.metrics.weat import association, weat, weat_effect_size, weat_statistic, weat_table

# ---------------------------------------------------------------- the hand-computed 3-d example
# A1 = {a=[1,0,0], b=[0,0,1]},  A2 = {c=[0,1,0]}
# x1 = [2,0,0]: cos(a)=1,  cos(b)=0,  cos(c)=0   -> s = (1+0)/2 - 0     =  0.5
# x2 = [4,0,3]: cos(a)=.8, cos(b)=.6, cos(c)=0   -> s = (.8+.6)/2 - 0   =  0.7
# y1 = [0,1,0]: cos(a)=0,  cos(b)=0,  cos(c)=1   -> s = 0 - 1           = -1.0
# y2 = [0,4,3]: cos(a)=0,  cos(b)=.6, cos(c)=.8  -> s = .6/2 - .8       = -0.5
# T1 = {x1, x2}, T2 = {y1, y2}:
#   S = (0.5 + 0.7) - (-1.0 - 0.5) = 2.7
#   mean_T1 - mean_T2 = 0.6 - (-0.75) = 1.35; mean over all four = -0.075
#   squared deviations .575², .775², .925², .425² sum to 1.9675
#   d(ddof=1) = 1.35 / sqrt(1.9675 / 3) ≈ 1.66701;  d(ddof=0) = 1.35 / sqrt(1.9675 / 4) ≈ 1.92489
# Exact test: the 6 splits of {.5, .7, -1, -.5} into 2 + 2, S' = 2*sum(X) - total (total = -0.3):
#   X={.5,.7}: 2.7   X={.5,-1}: -0.7   X={.5,-.5}: 0.3   X={.7,-1}: -0.3
#   X={.7,-.5}: 0.7  X={-1,-.5}: -2.7
#   greater: only 2.7 >= 2.7 -> 1/6;  two-sided: |±2.7| -> 2/6;  less: all -> 6/6
HAND = {
    "x1": [2.0, 0.0, 0.0],
    "x2": [4.0, 0.0, 3.0],
    "y1": [0.0, 1.0, 0.0],
    "y2": [0.0, 4.0, 3.0],
    "a": [1.0, 0.0, 0.0],
    "b": [0.0, 0.0, 1.0],
    "c": [0.0, 1.0, 0.0],
}
HAND_Q = Query((["x1", "x2"], ["y1", "y2"]), (["a", "b"], ["c"]), name="hand")
#: The required options of weat (the intrinsic chapter's parameters), at the former defaults.
OPTIONS = {
    "ddof": 1,
    "n_resamples": 10_000,
    "n_bootstrap": 1000,
    "max_missing": 0.2,
    "random_state": None,
}
D1 = 1.35 / math.sqrt(1.9675 / 3)
D0 = 1.35 / math.sqrt(1.9675 / 4)


#: The values these keywords had as defaults before they became required (the chapter passes
#: its own); most tests here need no other.
OLD_DEFAULTS = {"ddof": 1, "n_resamples": 10_000, "max_missing": 0.2, "random_state": None}


def arr(*words):
    return np.array([HAND[w] for w in words])


def test_association_by_hand():
    s = association(arr("x1", "x2", "y1", "y2"), arr("a", "b"), arr("c"))
    np.testing.assert_allclose(s, [0.5, 0.7, -1.0, -0.5])


def test_statistic_and_effect_size_by_hand():
    sets = arr("x1", "x2"), arr("y1", "y2"), arr("a", "b"), arr("c")
    assert weat_statistic(*sets) == pytest.approx(2.7)
    assert weat_effect_size(*sets, ddof=1) == pytest.approx(D1)
    assert weat_effect_size(*sets, ddof=0) == pytest.approx(D0)
    assert D1 == pytest.approx(1.66701, abs=1e-5) and D0 == pytest.approx(1.92489, abs=1e-5)


@pytest.mark.parametrize(
    ("alternative", "expected"), [("greater", 1 / 6), ("two-sided", 2 / 6), ("less", 1.0)]
)
def test_exact_p_by_hand(alternative, expected):
    r = weat(
        HAND_Q,
        HAND,
        alternative=alternative,
        n_bootstrap=0,
        **OLD_DEFAULTS,
    )
    assert r.p_value == pytest.approx(expected)
    assert (r.p_method, r.n_resamples) == ("exact", 6)


@pytest.mark.parametrize(
    ("alternative", "expected"),
    # T1 = {x1, y2} (s = .5, -.5), T2 = {x2, y1} (s = .7, -1): S = 0 - (-0.3) = 0.3
    # greater: 2.7, 0.3, 0.7 -> 3/6; less: -0.7, 0.3, -0.3, -2.7 -> 4/6;
    # two-sided: every |S'| >= 0.3 (-0.3 ties up to rounding) -> 6/6
    [("greater", 3 / 6), ("less", 4 / 6), ("two-sided", 1.0)],
)
def test_exact_p_by_hand_with_ties(alternative, expected):
    q = Query((["x1", "y2"], ["x2", "y1"]), (["a", "b"], ["c"]))
    r = weat(
        q,
        HAND,
        alternative=alternative,
        n_bootstrap=0,
        **OLD_DEFAULTS,
    )
    assert r.statistic == pytest.approx(0.3)
    assert r.p_value == pytest.approx(expected)


def test_weat_result_fields_hand_example():
    r = weat(
        HAND_Q, HAND, random_state=0, n_bootstrap=200, ddof=1, n_resamples=10_000, max_missing=0.2
    )
    assert r.query == "hand"
    assert (r.target_1, r.target_2, r.attribute_1, r.attribute_2) == ("T1", "T2", "A1", "A2")
    assert (r.n_target_1, r.n_target_2, r.n_attribute_1, r.n_attribute_2) == (2, 2, 2, 1)
    assert r.statistic == pytest.approx(2.7) and r.effect_size == pytest.approx(D1)
    assert r.ddof == 1 and r.alternative == "greater" and r.confidence_level == 0.95
    assert r.words == {"T1": ("x1", "x2"), "T2": ("y1", "y2"), "A1": ("a", "b"), "A2": ("c",)}
    assert r.ci_low <= r.ci_high
    d = r.to_dict()
    assert d["effect_size"] == r.effect_size and d["dropped"]["T1"] == ()


def test_swapping_attributes_flips_sign():
    r = weat(
        HAND_Q, HAND, n_bootstrap=0, ddof=1, n_resamples=10_000, max_missing=0.2, random_state=None
    )
    s = weat(
        HAND_Q.swap_attributes(),
        HAND,
        n_bootstrap=0,
        **OLD_DEFAULTS,
    )
    assert s.statistic == pytest.approx(-r.statistic)
    assert s.effect_size == pytest.approx(-r.effect_size)
    assert s.p_value == pytest.approx(1.0)


# --------------------------------------------------------------------- random cases, brute force


def random_sets(n1, n2, m1=5, m2=6, dim=8, seed=0, bias=0.5):
    """Gaussian word vectors; T1 and A1 shifted by +bias, T2 and A2 by -bias on axis 0."""
    rng = np.random.default_rng(seed)
    shift = np.zeros(dim)
    shift[0] = bias
    return (
        rng.normal(size=(n1, dim)) + shift,
        rng.normal(size=(n2, dim)) - shift,
        rng.normal(size=(m1, dim)) + shift,
        rng.normal(size=(m2, dim)) - shift,
    )


def as_embedding(T1, T2, A1, A2):
    emb, sets = {}, []
    for prefix, X in zip(("t", "u", "a", "b"), (T1, T2, A1, A2), strict=True):
        words = [f"{prefix}{i}" for i in range(len(X))]
        emb.update(zip(words, X, strict=True))
        sets.append(words)
    return emb, Query((sets[0], sets[1]), (sets[2], sets[3]))


def brute_force_p(T1, T2, A1, A2, alternative):
    """Re-split T1 ∪ T2 every way and recompute the statistic from the vectors each time."""
    W = np.vstack([T1, T2])
    n1 = len(T1)
    observed = weat_statistic(T1, T2, A1, A2)
    k = total = 0
    for X in itertools.combinations(range(len(W)), n1):
        Y = [i for i in range(len(W)) if i not in X]
        s = weat_statistic(W[list(X)], W[Y], A1, A2)
        total += 1
        if alternative == "greater":
            k += s >= observed - 1e-9
        elif alternative == "less":
            k += s <= observed + 1e-9
        else:
            k += abs(s) >= abs(observed) - 1e-9
    return k / total, total


@pytest.mark.parametrize(("n1", "n2"), [(4, 4), (3, 5), (5, 3)])
@pytest.mark.parametrize("alternative", ["greater", "two-sided", "less"])
def test_exact_p_equals_brute_force(n1, n2, alternative):
    sets = random_sets(n1, n2, seed=n1 * 10 + n2)
    p_bf, n_splits = brute_force_p(*sets, alternative)
    emb, q = as_embedding(*sets)
    r = weat(
        q,
        emb,
        alternative=alternative,
        method="exact",
        n_bootstrap=0,
        **OLD_DEFAULTS,
    )
    assert r.n_resamples == n_splits == math.comb(n1 + n2, n1)
    assert r.p_value == pytest.approx(p_bf)


def test_monte_carlo_within_three_standard_errors_of_exact():
    sets = random_sets(6, 6, seed=3, bias=0.1)  # 924 splits
    emb, q = as_embedding(*sets)
    exact = weat(
        q,
        emb,
        alternative="two-sided",
        n_bootstrap=0,
        **OLD_DEFAULTS,
    )
    assert exact.p_method == "exact" and exact.n_resamples == 924
    p = exact.p_value
    assert 0.02 < p < 0.98  # a non-trivial p-value, so the comparison means something
    n = 20_000
    mc = weat(
        q,
        emb,
        alternative="two-sided",
        method="monte-carlo",
        n_resamples=n,
        n_bootstrap=0,
        random_state=0,
        ddof=1,
        max_missing=0.2,
    )
    assert (mc.p_method, mc.n_resamples) == ("monte-carlo", n)
    assert abs(mc.p_value - p) <= 3 * math.sqrt(p * (1 - p) / n) + 1 / n


def test_random_splits_are_true_permutations():
    # With s = powers of two, a sum over k distinct words has exactly k bits set; draws with
    # replacement (WEFE's rng.choice) would repeat words and break this.
    s = 2.0 ** np.arange(12)
    sums = weat_module._random_subset_sums(s, 5, 3000, np.random.default_rng(0))
    assert all(bin(int(v)).count("1") == 5 for v in sums)
    assert len(set(sums.tolist())) > 500  # and they vary


def test_subset_sums_enumerates_every_subset_once():
    s = 2.0 ** np.arange(9)
    sums = weat_module._subset_sums(s, 4)
    expected = sorted(sum(2**i for i in c) for c in itertools.combinations(range(9), 4))
    assert sorted(sums.astype(int).tolist()) == expected


def test_auto_switches_to_monte_carlo_above_limit():
    emb, q = as_embedding(*random_sets(5, 5))  # 252 splits
    r = weat(
        q,
        emb,
        exact_limit=100,
        n_resamples=500,
        n_bootstrap=0,
        random_state=0,
        ddof=1,
        max_missing=0.2,
    )
    assert (r.p_method, r.n_resamples) == ("monte-carlo", 500)
    assert r.p_value >= 1 / 501


def test_exact_above_limit_raises(one_line):
    emb, q = as_embedding(*random_sets(5, 5))
    with pytest.raises(ValueError) as err:
        weat(
            q,
            emb,
            method="exact",
            exact_limit=100,
            n_bootstrap=0,
            **OLD_DEFAULTS,
        )
    assert "monte-carlo" in one_line(err)


def test_random_state_reproducible():
    emb, q = as_embedding(*random_sets(7, 7, seed=1))
    kw = {"method": "monte-carlo", "n_resamples": 2000, "n_bootstrap": 300}
    a = weat(q, emb, random_state=42, **kw, ddof=1, max_missing=0.2)
    b = weat(q, emb, random_state=42, **kw, ddof=1, max_missing=0.2)
    c = weat(q, emb, random_state=43, **kw, ddof=1, max_missing=0.2)
    assert a == b
    assert (a.p_value, a.ci_low, a.ci_high) != (c.p_value, c.ci_low, c.ci_high)


# ------------------------------------------------------------------------------------ bootstrap


def test_bootstrap_statistic_equals_naive_recomputation(monkeypatch):
    """The vectorised bootstrap replicate equals weat_effect_size on the resampled word sets."""
    T1, T2, A1, A2 = random_sets(4, 5, m1=3, m2=6, seed=7)
    emb, q = as_embedding(T1, T2, A1, A2)
    captured = {}

    def fake_bootstrap_ci(data, statistic, **kwargs):
        captured["statistic"] = statistic
        captured["data"] = data
        return (0.0, 0.0)

    monkeypatch.setattr(weat_module, "bootstrap_ci", fake_bootstrap_ci)
    weat(q, emb, ddof=0, n_bootstrap=10, n_resamples=10_000, max_missing=0.2, random_state=None)
    stat = captured["statistic"]
    rng = np.random.default_rng(0)
    t1 = rng.integers(0, 4, size=(6, 4))
    t2 = rng.integers(0, 5, size=(6, 5))
    a1 = rng.integers(0, 3, size=(6, 3))
    a2 = rng.integers(0, 6, size=(6, 6))
    got = stat(t1, t2 + 4, a1, a2)  # target indices index the stacked T1 ∪ T2 rows
    for b in range(6):
        want = weat_effect_size(T1[t1[b]], T2[t2[b]], A1[a1[b]], A2[a2[b]], ddof=0)
        assert got[b] == pytest.approx(want)
    assert [len(x) for x in captured["data"]] == [4, 5, 3, 6]


def test_bootstrap_ci_covers_estimate_and_is_off_when_zero():
    emb, q = as_embedding(*random_sets(8, 8, seed=2))
    r = weat(q, emb, n_bootstrap=500, random_state=0, ddof=1, n_resamples=10_000, max_missing=0.2)
    assert r.ci_low < r.effect_size < r.ci_high
    r0 = weat(q, emb, n_bootstrap=0, ddof=1, n_resamples=10_000, max_missing=0.2, random_state=None)
    assert math.isnan(r0.ci_low) and math.isnan(r0.ci_high)


# ---------------------------------------------------------------------------- WEFE as reference


@pytest.fixture(scope="module")
def wefe_case():
    pytest.importorskip("semantic_version")
    wefe_metrics = pytest.importorskip("wefe.metrics")
    from gensim.models import KeyedVectors
    from wefe.query import Query as WefeQuery
    from wefe.word_embedding_model import WordEmbeddingModel

    sets = random_sets(8, 8, m1=7, m2=9, dim=20, seed=11)
    emb, q = as_embedding(*sets)
    kv = KeyedVectors(20)
    kv.add_vectors(list(emb), np.array(list(emb.values()), dtype=np.float32))
    wq = WefeQuery(
        [list(t) for t in q.targets], [list(a) for a in q.attributes], ["T1", "T2"], ["A1", "A2"]
    )
    ref = wefe_metrics.WEAT().run_query(wq, WordEmbeddingModel(kv, "toy"))
    return kv, q, ref


def test_effect_size_equals_wefe(wefe_case):
    kv, q, ref = wefe_case
    ours = weat(
        q, kv, ddof=0, n_bootstrap=0, n_resamples=10_000, max_missing=0.2, random_state=None
    )
    assert ours.effect_size == pytest.approx(ref["effect_size"], rel=1e-5)
    assert ours.statistic == pytest.approx(ref["weat"], rel=1e-5)
    # ddof=1 is the ddof=0 value times sqrt((n - 1) / n), n = 16 target words
    sample = weat(
        q, kv, ddof=1, n_bootstrap=0, n_resamples=10_000, max_missing=0.2, random_state=None
    )
    assert sample.effect_size == pytest.approx(ref["effect_size"] * math.sqrt(15 / 16), rel=1e-5)


# ------------------------------------------------------------------------ OOV, tables, bad input


def test_weat_oov_drop_and_raise(one_line):
    emb = dict(HAND, x3=[1.0, 0.0, 0.0], y3=[0.0, 1.0, 0.5])
    q = Query((["x1", "x2", "x3", "zzz"], ["y1", "y2", "y3", "c"]), (["a", "b"], ["c"]))
    r = weat(q, emb, max_missing=0.25, random_state=0, n_bootstrap=0, ddof=1, n_resamples=10_000)
    assert (r.n_target_1, r.n_target_2) == (3, 3)
    assert r.missing["T1"] == ("zzz",) and len(r.dropped["T2"]) == 1
    with pytest.raises(OutOfVocabularyError) as err:
        weat(
            q,
            emb,
            oov="raise",
            n_bootstrap=1000,
            **OLD_DEFAULTS,
        )
    assert "zzz" in one_line(err)
    with pytest.raises(OutOfVocabularyError):
        weat(
            q, emb, max_missing=0.2, ddof=1, n_resamples=10_000, n_bootstrap=1000, random_state=None
        )


def test_weat_accepts_wordset_and_vectors():
    ws = SimpleNamespace(
        name="ws",
        targets={"f": ["x1", "x2"], "i": ["y1", "y2"]},
        attributes={"p": ["a", "b"], "u": ["c"]},
    )
    r = weat(
        ws, HAND, n_bootstrap=0, ddof=1, n_resamples=10_000, max_missing=0.2, random_state=None
    )
    assert (r.query, r.target_1, r.attribute_2) == ("ws", "f", "u")
    r2 = weat(
        HAND_Q,
        vectors=HAND_Q.vectors(HAND, max_missing=0.2, random_state=None),
        n_bootstrap=0,
        **OLD_DEFAULTS,
    )
    assert r2.effect_size == pytest.approx(D1)


def test_weat_table_rows_equal_single_runs():
    emb, q = as_embedding(*random_sets(5, 5, seed=4))
    qs = [q, q.swap_targets(), HAND_Q]
    emb = {**emb, **HAND}
    table = weat_table(
        qs,
        emb,
        progress=False,
        n_bootstrap=50,
        random_state=3,
        ddof=1,
        n_resamples=10_000,
        max_missing=0.2,
    )
    assert isinstance(table, pd.DataFrame) and len(table) == 3
    for col in ("query", "effect_size", "p_value", "ci_low", "n_dropped", "missing"):
        assert col in table.columns
    single = weat(
        q, emb, n_bootstrap=50, random_state=3, ddof=1, n_resamples=10_000, max_missing=0.2
    )
    assert table.loc[0, "effect_size"] == single.effect_size
    assert table.loc[0, "ci_low"] == single.ci_low
    assert table.loc[1, "effect_size"] == pytest.approx(-single.effect_size)
    assert table.loc[2, "statistic"] == pytest.approx(2.7)
    assert table["missing"].tolist() == ["", "", ""]


def test_weat_table_missing_column():
    q = Query((["x1", "x2", "zz"], ["y1", "y2", "c"]), (["a", "b"], ["c"]), name="m")
    table = weat_table(
        [q],
        HAND,
        progress=False,
        n_bootstrap=0,
        max_missing=0.5,
        random_state=0,
        ddof=1,
        n_resamples=10_000,
    )
    assert table.loc[0, "missing"] == "T1: zz" and table.loc[0, "n_dropped"] == 2


@pytest.mark.parametrize(
    ("kwargs", "exc", "needle"),
    [
        ({"alternative": "grater"}, ValueError, "alternative"),
        ({"alternative": "right-sided"}, ValueError, "alternative"),
        ({"method": "approximate"}, ValueError, "method"),
        ({"ddof": -1}, ValueError, "ddof"),
        ({"ddof": 4}, ValueError, "ddof"),
        ({"ddof": True}, ValueError, "ddof"),
        ({"n_resamples": 0}, ValueError, "n_resamples"),
        ({"n_bootstrap": -1}, ValueError, "n_bootstrap"),
        ({"exact_limit": 0.5}, ValueError, "exact_limit"),
        ({"confidence_level": 95}, ValueError, "confidence_level"),
        ({"vectors": "nope"}, ValueError, "not both"),
    ],
)
def test_weat_bad_options(kwargs, exc, needle, one_line):
    with pytest.raises(exc) as err:
        weat(HAND_Q, HAND, **(OPTIONS | kwargs))
    assert needle in one_line(err)


def test_weat_bad_query_and_missing_embedding(one_line):
    with pytest.raises(TypeError) as err:
        weat(
            (["x1"], ["y1"]),
            HAND,
            n_bootstrap=1000,
            **OLD_DEFAULTS,
        )
    assert "Query" in one_line(err)
    with pytest.raises(ValueError) as err:
        weat(
            HAND_Q, ddof=1, n_resamples=10_000, n_bootstrap=1000, max_missing=0.2, random_state=None
        )
    assert "embedding=" in one_line(err)
    with pytest.raises(TypeError) as err:
        weat(
            HAND_Q,
            vectors={"T1": 1},
            n_bootstrap=1000,
            **OLD_DEFAULTS,
        )
    one_line(err)


@pytest.mark.parametrize(
    ("W", "A1", "A2", "needle"),
    [
        ([1.0, 0.0], [[1.0, 0.0]], [[0.0, 1.0]], "2-D"),
        ([[1.0, 0.0]], [[1.0, 0.0, 0.0]], [[0.0, 1.0]], "length"),
        ([[0.0, 0.0]], [[1.0, 0.0]], [[0.0, 1.0]], "zero vector"),
        ([[1.0, np.nan]], [[1.0, 0.0]], [[0.0, 1.0]], "NaN"),
        (np.empty((0, 2)), [[1.0, 0.0]], [[0.0, 1.0]], "non-empty"),
    ],
)
def test_association_bad_arrays(W, A1, A2, needle, one_line):
    with pytest.raises(ValueError) as err:
        association(W, A1, A2)
    assert needle in one_line(err)


def test_undefined_effect_size_raises(one_line):
    T1, T2 = [[1.0, 0.0], [2.0, 0.0]], [[3.0, 0.0], [4.0, 0.0]]  # one direction: s all equal
    with pytest.raises(ValueError) as err:
        weat_effect_size(T1, T2, [[1.0, 1.0]], [[0.0, 1.0]], ddof=1)
    assert "undefined" in one_line(err)
    emb = {"p": [1.0, 0.0], "q": [2.0, 0.0], "r": [3.0, 0.0], "s": [4.0, 0.0], "a": [1.0, 1.0]}
    q = Query((["p", "q"], ["r", "s"]), (["a"], ["p"]))
    with pytest.raises(ValueError) as err:
        weat(
            q, emb, ddof=1, n_resamples=10_000, n_bootstrap=1000, max_missing=0.2, random_state=None
        )
    assert "undefined" in one_line(err)


# ---------------------------------------------------------------- per-word and per-embedding tables


def test_word_associations_keep_every_found_word_with_its_score() -> None:
    from nlpbias.metrics.weat import word_associations

    emb = {"a": [1, 0.1], "b": [0.9, 0], "c": [0.1, 1], "x": [1, 0], "y": [0, 1]}
    # T2 lost 'zz'; weat() would drop a T1 word to balance, word_associations must not
    q = Query((["a", "b"], ["c", "zz"]), (["x"], ["y"]), name="q")
    table = word_associations(q, emb, max_missing=0.5)
    assert table["word"].tolist() == ["a", "b", "c"]
    assert table["set"].tolist() == ["T1", "T1", "T2"]
    expected = association(np.array([[0.1, 1.0]]), np.array([[1.0, 0]]), np.array([[0, 1.0]]))
    assert table["association"].iloc[2] == pytest.approx(expected[0])


def test_weat_by_embedding_excludes_uncovered_queries_per_embedding() -> None:
    from nlpbias.metrics.weat import weat_by_embedding

    full = {"a": [1, 0.1], "b": [0.9, 0], "c": [0.1, 1], "d": [0, 0.8], "x": [1, 0], "y": [0, 1]}
    partial = {k: v for k, v in full.items() if k != "b"}
    q = Query((["a", "b"], ["c", "d"]), (["x"], ["y"]), name="q")
    res, exc = weat_by_embedding(
        [q],
        {"full": full, "partial": partial},
        n_bootstrap=0,
        progress=False,
        **OLD_DEFAULTS,
    )
    assert res["embedding"].tolist() == ["full"] and res.columns[0] == "embedding"
    assert exc[["embedding", "query"]].values.tolist() == [["partial", "q"]]
    assert "'b'" in exc.loc[0, "reason"] or "b)" in exc.loc[0, "reason"]
    # max_missing=0.5 admits the lost word, but one word per target set is left: excluded too
    res2, exc2 = weat_by_embedding(
        [q],
        {"partial": partial},
        max_missing=0.5,
        n_bootstrap=0,
        progress=False,
        ddof=1,
        n_resamples=10_000,
        random_state=None,
    )
    assert res2.empty and "at least two words in each target set" in exc2.loc[0, "reason"]
    partial |= {"e": [0.8, 0.2], "f": [0.2, 0.9]}
    big = Query((["a", "b", "e"], ["c", "d", "f"]), (["x"], ["y"]), name="big")
    res3, exc3 = weat_by_embedding(
        [big],
        {"partial": partial},
        max_missing=0.5,
        n_bootstrap=0,
        progress=False,
        ddof=1,
        n_resamples=10_000,
        random_state=None,
    )
    assert res3["query"].tolist() == ["big"] and exc3.empty
    assert res3.loc[0, ["n_target_1", "n_target_2"]].tolist() == [2, 2]
    with pytest.raises(ValueError, match="embeddings is empty"):
        weat_by_embedding(
            [q],
            {},
            n_bootstrap=1000,
            **OLD_DEFAULTS,
        )


def test_coverage_table_reports_the_worst_set_and_the_missing_words() -> None:
    from nlpbias.metrics.weat import coverage_table

    q = Query((["a", "b"], ["c", "d new"]), (["x", "X"], ["y"]), name="q")
    emb = {"a": [1, 0], "c": [0, 1], "d": [1, 1], "new": [1, 2], "x": [1, 0], "y": [0, 1]}
    row = coverage_table([q], {"toy": emb}).iloc[0]
    # T1 finds a (1/2); the multi-word 'd new' counts as found; 'X' misses unless lowercased
    assert (row["min_share"], row["worst_set"], row["found"], row["n"]) == (0.5, "T1", 5, 7)
    assert row["missing"] == "b, X"
    lowered = coverage_table([q], {"toy": emb}, lowercase=True).iloc[0]
    assert lowered["found"] == 6 and lowered["missing"] == "b"


# ------------------------------------------------------------ inputs WEAT refuses, in one line


def test_one_word_per_target_set_is_refused_not_d_1414(one_line) -> None:
    with pytest.raises(ValueError) as err:
        weat_effect_size([[1.0, 0.0]], [[0.0, 1.0]], [[1.0, 0.2]], [[0.2, 1.0]], ddof=1)
    assert one_line(err) == (
        "WEAT needs at least two words in each target set, got T1: 1, T2: 1 (with one word a "
        "set, the effect size is ±1.414 whatever the vectors); add target words"
    )
    emb = {"rose": [1, 0.1], "ant": [0.1, 1], "love": [1, 0], "hate": [0, 1]}
    q = Query((["rose"], ["ant"]), (["love"], ["hate"]), name="tiny")
    with pytest.raises(ValueError) as err:
        weat(
            q, emb, ddof=1, n_resamples=10_000, n_bootstrap=1000, max_missing=0.2, random_state=None
        )
    assert one_line(err).startswith(
        "query 'tiny': WEAT needs at least two words in each target set, got 'T1': 1 (rose), "
        "'T2': 1 (ant)"
    )


def test_target_set_left_with_one_word_after_oov_names_the_dropped_words(one_line) -> None:
    emb = {"rose": [1, 0.1], "ant": [0.1, 1], "wasp": [0, 0.8], "love": [1, 0], "hate": [0, 1]}
    q = Query((["rose", "tulip"], ["ant", "wasp"]), (["love"], ["hate"]), name="flowers")
    with pytest.raises(OutOfVocabularyError) as err:
        weat(q, emb, max_missing=0.5, random_state=0, ddof=1, n_resamples=10_000, n_bootstrap=1000)
    msg = one_line(err)
    assert msg.startswith(
        "query 'flowers': WEAT needs at least two words in each target set after dropping "
        "out-of-vocabulary words"
    )
    assert "(dropped T1: tulip; T2: " in msg and msg.endswith("or use another embedding")


def test_a_word_in_both_target_or_both_attribute_sets_is_refused(one_line) -> None:
    with pytest.raises(ValueError) as err:
        Query((["rose", "ant"], ["ant", "wasp"]), (["love"], ["hate"]))
    assert one_line(err) == (
        "target sets 'T1' and 'T2' both list 'ant': a word can be in only one target set; "
        "remove it from one of them"
    )
    with pytest.raises(ValueError) as err:
        Query({"m": ["he"], "f": ["she"]}, {"good": ["joy", "war"], "bad": ["war", "joy"]})
    assert one_line(err).startswith("attribute sets 'good' and 'bad' both list 'joy', 'war':")


def test_the_same_vector_in_both_sets_is_refused_by_the_vector_functions(one_line) -> None:
    T1, T2 = [[1.0, 0.0], [1.0, 0.2]], [[0.0, 1.0], [1.0, 0.2]]
    with pytest.raises(ValueError) as err:
        weat_effect_size(T1, T2, [[1.0, 0.0]], [[0.0, 1.0]], ddof=1)
    assert one_line(err) == (
        "T1 and T2 share a vector (T1 row 1 = T2 row 1): the same word cannot be in both sets "
        "of a comparison; remove it from one of them"
    )
    with pytest.raises(ValueError, match="^A1 and A2 share a vector"):
        weat_statistic(T1, [[0.0, 1.0], [0.3, 1.0]], [[1.0, 0.0]], [[1.0, 0.0]])
    with pytest.raises(ValueError, match="^A1 and A2 share a vector"):
        association([[1.0, 0.0]], [[0.5, 0.5]], [[0.5, 0.5]])


def test_lowercase_lookup_that_maps_two_words_to_one_vector_names_them(one_line) -> None:
    emb = {"he": [1, 0.1], "him": [0.9, 0], "she": [0.1, 1], "her": [0, 0.8]}
    emb |= {"love": [1, 0], "hate": [0, 1]}
    q = Query((["He", "him"], ["she", "he"]), (["love"], ["hate"]), name="case")
    with pytest.raises(ValueError) as err:
        weat(
            q,
            emb,
            lowercase=True,
            n_bootstrap=1000,
            **OLD_DEFAULTS,
        )
    assert one_line(err).startswith("query 'case': T1 and T2 both list 'He/he':")


def test_docstring_examples() -> None:
    import doctest

    import nlpbias.metrics.weat as module

    failed, attempted = doctest.testmod(module, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
