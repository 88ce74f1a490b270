"""Tests for nlpbias.metrics.rnsb: by hand, symmetries, determinism, errors, WEFE."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import brentq

from nlpbias.metrics.query import Query
from nlpbias.metrics.rnsb import RNSBResult, rnsb, rnsb_kl, rnsb_signed, rnsb_table


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


@pytest.fixture(scope="module")
def w_1d() -> float:
    """Weight of liblinear's L2 logistic regression (C=1) on x=+1 (A1) and x=-1 (A2).

    liblinear penalises the intercept like a weight.

    Objective: (w^2 + b^2)/2 + log(1+exp(-(w+b))) + log(1+exp(-(w-b))). It is unchanged by
    b -> -b and strictly convex, so b = 0; setting d/dw = 0 gives w = 2 sigmoid(-w).
    Then P(A2 | x) = sigmoid(-w x). liblinear stops at its default tol=1e-4, which leaves w
    about 5e-6 (relative) short of the exact optimum, hence ``REL`` below.
    """
    return brentq(lambda w: w - 2 * _sigmoid(-w), 0.0, 2.0, xtol=1e-14)


A1_1D, A2_1D = np.array([[1.0]]), np.array([[-1.0]])
REL = 1e-4  # liblinear tolerance, see w_1d


def _separated(seed: int = 0, d: int = 6, n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    shift = np.zeros(d)
    shift[0] = 2.0
    return rng.normal(0, 0.5, (n, d)) + shift, rng.normal(0, 0.5, (n, d)) - shift


# ------------------------------------------------------------------ hand-derived values


def test_signed_matches_hand_derived_value(w_1d):
    T1, T2 = np.array([[0.5], [2.0]]), np.array([[-1.0], [0.0]])
    p1 = (_sigmoid(-0.5 * w_1d) + _sigmoid(-2.0 * w_1d)) / 2
    p2 = (_sigmoid(w_1d) + 0.5) / 2
    res = rnsb_signed(T1, T2, A1_1D, A2_1D, n_runs=2, random_state=0)
    assert isinstance(res, RNSBResult) and res.variant == "signed"
    assert res.score == pytest.approx((p2 - p1) / (p1 + p2), rel=REL)
    assert res.runs["p_t1"].tolist() == pytest.approx([p1, p1], rel=REL)
    assert res.runs["p_t2"].tolist() == pytest.approx([p2, p2], rel=REL)
    expected = [_sigmoid(-0.5 * w_1d), _sigmoid(-2 * w_1d), _sigmoid(w_1d), 0.5]
    assert res.probabilities["p_a2"].tolist() == pytest.approx(expected, rel=REL)
    assert res.runs["accuracy"].tolist() == [1.0, 1.0]


def test_signed_targets_at_the_attributes_is_tanh(w_1d):
    # T1 = A1 (x=+1), T2 = A2 (x=-1): p1 = sigmoid(-w), p2 = sigmoid(w), sum 1, score tanh(w/2) > 0
    res = rnsb_signed(A1_1D, A2_1D, A1_1D, A2_1D, n_runs=1, random_state=0)
    assert res.score == pytest.approx(math.tanh(w_1d / 2), rel=REL)
    assert res.score > 0.3
    swapped = rnsb_signed(A1_1D, A2_1D, A2_1D, A1_1D, n_runs=1, random_state=0)
    assert swapped.score == pytest.approx(-math.tanh(w_1d / 2), rel=REL)


def test_kl_matches_hand_derived_value(w_1d):
    xs = [0.0, 0.5, -1.0, 3.0]
    p = np.array([_sigmoid(-w_1d * x) for x in xs])
    q = p / p.sum()
    expected = float(np.sum(q * np.log(len(q) * q)))
    res = rnsb_kl(np.array(xs)[:, None], A1_1D, A2_1D, n_runs=3, random_state=0)
    assert res.variant == "kl"
    assert res.score == pytest.approx(expected, rel=REL)
    assert 0 < res.score < math.log(4)
    assert res.probabilities["p_a2"].tolist() == pytest.approx(p.tolist(), rel=REL)


# ------------------------------------------------------------------ signed: constructed cases


def test_signed_targets_equal_attributes_strongly_positive_and_swap_flips():
    A1, A2 = _separated(0)
    res = rnsb_signed(A1, A2, A1, A2, n_runs=3, random_state=0)
    # the classifier separates A1 from A2, so P(A2) is small on T1 = A1 and large on T2 = A2
    p1, p2 = res.runs["p_t1"].iloc[0], res.runs["p_t2"].iloc[0]
    assert p1 < 0.2 < 0.8 < p2
    assert res.score > 0.6
    swapped = rnsb_signed(A1, A2, A2, A1, n_runs=3, random_state=0)
    # relabelling mirrors the fit: P'(A2) = 1 - P(A2), so s' = (p1 - p2) / (2 - p1 - p2)
    assert swapped.score < -0.6
    assert swapped.score == pytest.approx((p1 - p2) / (2 - p1 - p2), rel=1e-6)
    targets_swapped = rnsb_signed(A2, A1, A1, A2, n_runs=3, random_state=0)
    assert targets_swapped.score == pytest.approx(-res.score, rel=1e-12)


def test_signed_symmetric_construction_is_zero():
    # A1 and A2 are mirror images across x=0 and each is symmetric in y, so the fit has b = 0 and
    # no y weight; T1 and T2 mirror each other in y, so both get the same P(A2)
    A1 = np.array([[1.0, 1.0], [1.0, -1.0], [2.0, 0.5], [2.0, -0.5]])
    A2 = A1 * np.array([-1.0, 1.0])
    T1 = np.array([[0.5, 3.0], [-1.0, 1.0]])
    T2 = T1 * np.array([1.0, -1.0])
    res = rnsb_signed(T1, T2, A1, A2, n_runs=2, random_state=0)
    assert abs(res.score) < 1e-8
    assert res.runs["p_t1"].iloc[0] != pytest.approx(0.5, abs=1e-3)  # not trivially 1/2


def test_signed_stereotype_direction_sign():
    # T1 leans toward A1 and T2 toward A2 -> positive; reversed -> negative
    A1, A2 = _separated(1)
    rng = np.random.default_rng(5)
    T1 = 0.3 * A1.mean(0) + rng.normal(0, 0.3, (5, A1.shape[1]))
    T2 = 0.3 * A2.mean(0) + rng.normal(0, 0.3, (5, A1.shape[1]))
    assert rnsb_signed(T1, T2, A1, A2, n_runs=1, random_state=0).score > 0
    assert rnsb_signed(T2, T1, A1, A2, n_runs=1, random_state=0).score < 0


# ------------------------------------------------------------------ KL: constructed cases


def test_kl_zero_for_identical_targets_and_nonnegative():
    A1, A2 = _separated(2)
    same = np.tile(np.linspace(-1, 1, A1.shape[1]), (5, 1))
    res = rnsb_kl(same, A1, A2, n_runs=2, random_state=0)
    assert res.score == pytest.approx(0.0, abs=1e-12)
    assert res.score >= 0
    rng = np.random.default_rng(3)
    for _ in range(3):
        other = rnsb_kl(rng.normal(0, 1, (6, A1.shape[1])), A1, A2, n_runs=1, random_state=0)
        assert other.score > 0


def test_kl_grows_as_one_target_moves_toward_a2():
    A1, A2 = _separated(4)
    base = np.zeros((4, A1.shape[1]))
    direction = A2.mean(0) - A1.mean(0)
    scores = []
    for alpha in (0.0, 0.1, 0.3, 0.6):
        T = base.copy()
        T[0] = alpha * direction
        scores.append(rnsb_kl(T, A1, A2, n_runs=1, random_state=0).score)
    assert scores[0] == pytest.approx(0.0, abs=1e-12)
    assert all(a < b for a, b in zip(scores, scores[1:], strict=False))


def test_kl_pools_words_across_sets():
    A1, A2 = _separated(5)
    rng = np.random.default_rng(6)
    T1, T2 = rng.normal(0, 1, (3, A1.shape[1])), rng.normal(0, 1, (4, A1.shape[1]))
    as_sets = rnsb_kl([T1, T2], A1, A2, n_runs=1, random_state=0)
    stacked = rnsb_kl(np.vstack([T1, T2]), A1, A2, n_runs=1, random_state=0)
    single_terms = rnsb_kl(list(np.vstack([T1, T2])), A1, A2, n_runs=1, random_state=0)
    assert as_sets.score == pytest.approx(stacked.score, rel=1e-10)
    assert single_terms.score == pytest.approx(stacked.score, rel=1e-10)
    assert as_sets.probabilities["target_set"].tolist() == ["T1"] * 3 + ["T2"] * 4
    assert len(single_terms.probabilities["target_set"].unique()) == 7


def test_kl_sets_is_a_function_of_the_signed_score():
    A1, A2 = _separated(7)
    rng = np.random.default_rng(8)
    T1 = 0.6 * A1.mean(0) + rng.normal(0, 0.4, (4, A1.shape[1]))
    T2 = rng.normal(0, 0.4, (6, A1.shape[1]))
    s = rnsb_signed(T1, T2, A1, A2, n_runs=1, random_state=0).score
    kl = rnsb_kl([T1, T2], A1, A2, per_set=True, n_runs=1, random_state=0)
    assert kl.variant == "kl_sets"
    expected = (1 - s) / 2 * math.log(1 - s) + (1 + s) / 2 * math.log(1 + s)
    assert kl.score == pytest.approx(expected, rel=1e-9)
    assert abs(s) > 0.05  # the relation is tested away from the trivial point


# ------------------------------------------------------------------ runs and randomness


def test_random_state_is_reproducible_and_runs_are_recorded():
    A1, A2 = _separated(9, n=10)
    rng = np.random.default_rng(10)
    T1, T2 = rng.normal(0, 1, (4, A1.shape[1])), rng.normal(0, 1, (4, A1.shape[1]))
    a = rnsb_signed(T1, T2, A1, A2, n_runs=4, random_state=42, holdout=0.3)
    b = rnsb_signed(T1, T2, A1, A2, n_runs=4, random_state=42, holdout=0.3)
    c = rnsb_signed(T1, T2, A1, A2, n_runs=4, random_state=43, holdout=0.3)
    pd.testing.assert_frame_equal(a.runs, b.runs)
    pd.testing.assert_frame_equal(a.probabilities, b.probabilities)
    assert list(a.runs.columns) == ["run", "seed", "score", "accuracy", "p_t1", "p_t2"]
    assert a.runs["seed"].nunique() == 4
    assert not a.runs["seed"].equals(c.runs["seed"])
    # with a hold-out the runs train on different words and differ
    assert a.std > 0 and a.runs["score"].nunique() > 1
    assert a.score == pytest.approx(a.runs["score"].mean())
    assert a.std == pytest.approx(a.runs["score"].std(ddof=1))
    # 3 of 10 words held out per set -> accuracy is a multiple of 1/6
    assert np.allclose((a.runs["accuracy"] * 6) % 1, 0)
    gen = rnsb_signed(T1, T2, A1, A2, n_runs=2, random_state=np.random.default_rng(1))
    assert gen.runs.shape[0] == 2


def test_without_holdout_runs_agree_to_rounding():
    A1, A2 = _separated(11)
    rng = np.random.default_rng(12)
    T1, T2 = rng.normal(0, 1, (4, A1.shape[1])), rng.normal(0, 1, (4, A1.shape[1]))
    res = rnsb_signed(T1, T2, A1, A2, n_runs=5, random_state=0)
    assert res.std < 1e-10
    assert res.probabilities["p_a2_std"].max() < 1e-10
    one = rnsb_signed(T1, T2, A1, A2, n_runs=1, random_state=0)
    assert one.std == 0.0
    assert one.score == pytest.approx(res.score, rel=1e-10)


def test_labels_and_summary():
    A1, A2 = _separated(13)
    T1, T2 = A1[:2], A2[:3]
    res = rnsb_signed(
        T1,
        T2,
        A1,
        A2,
        n_runs=2,
        random_state=0,
        target_words=(["a", "b"], ["c", "d", "e"]),
        target_names=("male", "female"),
    )
    assert res.probabilities["word"].tolist() == ["a", "b", "c", "d", "e"]
    assert res.probabilities["target_set"].tolist() == ["male"] * 2 + ["female"] * 3
    summary = res.to_series()
    assert summary["variant"] == "signed" and summary["n_runs"] == 2
    assert summary["score"] == res.score


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"T1": np.empty((0, 2))}, ValueError, "T1 is empty"),
        ({"A2": np.empty((0, 2))}, ValueError, "A2 is empty"),
        ({"T2": np.ones((2, 3))}, ValueError, "same dimension"),
        ({"A1": np.ones(2)}, ValueError, "2-D array"),
        ({"A1": np.array([[np.nan, 1.0]])}, ValueError, "NaN"),
        ({"T1": [["x", "y"]]}, TypeError, "numeric array"),
        ({"n_runs": 0}, ValueError, "n_runs must be an integer >= 1"),
        ({"n_runs": 2.5}, ValueError, "n_runs must be an integer >= 1"),
        ({"holdout": 1.0}, ValueError, "holdout must be a number in [0, 1)"),
        ({"holdout": 0.9}, ValueError, "leaves no training word"),
        ({"holdout": 0.05}, ValueError, "holds out no attribute word"),
        ({"target_words": (["a"], ["b"])}, ValueError, "target_words for 'T1'"),
        ({"target_names": ("only",)}, ValueError, "target_names has 1 names"),
    ],
)
def test_signed_errors(kwargs, exc, fragment, one_line):
    args = {
        "T1": np.array([[1.0, 0.0], [0.5, 0.5]]),
        "T2": np.array([[-1.0, 0.0]]),
        "A1": np.array([[1.0, 0.1], [0.9, -0.1]]),
        "A2": np.array([[-1.0, 0.1], [-0.9, -0.1]]),
    } | kwargs
    positional = [args.pop(k) for k in ("T1", "T2", "A1", "A2")]
    with pytest.raises(exc) as err:
        rnsb_signed(*positional, **({"n_runs": 10, "random_state": None} | args))
    assert fragment in one_line(err)


@pytest.mark.parametrize(
    ("targets", "kwargs", "fragment"),
    [
        ([], {}, "targets is empty"),
        (np.ones((1, 2)), {}, "at least two target words"),
        (np.ones((3, 2)), {"per_set": True}, "at least two target sets"),
        ([np.ones((2, 2)), np.ones((1, 3))], {}, "same dimension"),
        ("he", {}, "targets must be a 2-D array or a list"),
    ],
)
def test_kl_errors(targets, kwargs, fragment, one_line):
    A1, A2 = np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])
    with pytest.raises((ValueError, TypeError)) as err:
        rnsb_kl(targets, A1, A2, n_runs=1, **kwargs, random_state=None)
    assert fragment in one_line(err)


def test_saturated_classifier_raises(one_line):
    # P(A2) underflows to exactly 0 for targets far on the A1 side
    A1, A2 = np.array([[1.0]]), np.array([[-1.0]])
    far = np.array([[1e6], [2e6]])
    with pytest.raises(ValueError) as err:
        rnsb_kl(far, A1, A2, n_runs=1, random_state=None)
    assert "saturates" in one_line(err)
    with pytest.raises(ValueError) as err:
        rnsb_signed(far[:1], far[1:], A1, A2, n_runs=1, random_state=None)
    assert "saturates" in one_line(err)


# ------------------------------------------------------------------ WEFE


def test_kl_matches_wefe_without_holdout():
    """With no hold-out, WEFE's RNSB fits the same liblinear model and pools all target words.

    WEFE reads vectors from gensim (float32), so the vectors here are float32 for both. With a
    hold-out the two cannot coincide: WEFE splits with ``train_test_split`` while this module
    draws its own per-run split, so only the no-hold-out case is compared.
    """
    pytest.importorskip("gensim")
    wefe_metrics = pytest.importorskip("wefe.metrics")
    from gensim.models import KeyedVectors
    from wefe.query import Query as WefeQuery
    from wefe.word_embedding_model import WordEmbeddingModel

    rng = np.random.default_rng(14)
    sets = {
        "t1": rng.normal(0.2, 1, (4, 5)),
        "t2": rng.normal(-0.2, 1, (3, 5)),
        "a1": rng.normal(0.5, 1, (6, 5)),
        "a2": rng.normal(-0.5, 1, (6, 5)),
    }
    sets = {k: v.astype(np.float32) for k, v in sets.items()}
    words = {k: [f"{k}w{i}" for i in range(len(v))] for k, v in sets.items()}
    kv = KeyedVectors(5)
    kv.add_vectors(sum(words.values(), []), np.vstack(list(sets.values())))
    query = WefeQuery([words["t1"], words["t2"]], [words["a1"], words["a2"]])
    wefe = wefe_metrics.RNSB().run_query(
        query, WordEmbeddingModel(kv, "tiny"), holdout=False, random_state=0
    )
    ours = rnsb_kl(
        [sets["t1"], sets["t2"]],
        sets["a1"],
        sets["a2"],
        n_runs=3,
        random_state=0,
        target_words=[words["t1"], words["t2"]],
    )
    assert ours.score == pytest.approx(wefe["rnsb"], rel=1e-6)
    wefe_p = pd.Series(wefe["negative_sentiment_probabilities"])
    ours_p = ours.probabilities.set_index("word")["p_a2"]
    assert ours_p.to_numpy() == pytest.approx(wefe_p[ours_p.index].to_numpy(), rel=1e-6)


# ------------------------------------------------------------------ Query wrapper

EMB = {
    "doctor": [1.0, 0.3, 0.1],
    "engineer": [0.8, -0.2, 0.3],
    "nurse": [-0.9, 0.2, 0.2],
    "secretary": [-0.7, -0.3, 0.1],
    "he": [1.0, 0.1, -0.1],
    "him": [0.9, -0.1, 0.0],
    "man": [0.7, 0.2, 0.2],
    "she": [-1.0, 0.1, -0.1],
    "her": [-0.9, -0.1, 0.0],
    "woman": [-0.7, 0.2, 0.2],
}


@pytest.fixture
def gender_query():
    from nlpbias.metrics.query import Query

    return Query(
        targets=(["doctor", "engineer"], ["nurse", "secretary"]),
        attributes=(["he", "him", "man"], ["she", "her", "woman"]),
        target_names=("male_jobs", "female_jobs"),
        attribute_names=("male", "female"),
        name="toy gender",
    )


def _arrays(*sets):
    return [np.array([EMB[w] for w in ws]) for ws in sets]


def test_wrapper_matches_array_functions(gender_query):
    from nlpbias.metrics.rnsb import rnsb

    T1, T2, A1, A2 = _arrays(*gender_query.targets, *gender_query.attributes)
    signed = rnsb(gender_query, EMB, n_runs=2, random_state=0, max_missing=0.2)
    assert signed.variant == "signed" and signed.name == "toy gender"
    assert signed.score > 0.3  # male jobs sit with he/him/man, female jobs with she/her/woman
    direct = rnsb_signed(T1, T2, A1, A2, n_runs=1, random_state=0)
    assert signed.score == pytest.approx(direct.score, rel=1e-10)
    assert signed.probabilities["target_set"].tolist() == ["male_jobs"] * 2 + ["female_jobs"] * 2
    assert signed.probabilities["word"].tolist() == ["doctor", "engineer", "nurse", "secretary"]
    assert signed.words["female"] == ("she", "her", "woman")
    kl = rnsb(gender_query, EMB, variant="kl", n_runs=1, random_state=0, max_missing=0.2)
    assert kl.score == pytest.approx(
        rnsb_kl([T1, T2], A1, A2, n_runs=1, random_state=None).score, rel=1e-10
    )
    kl_sets = rnsb(gender_query, EMB, variant="kl_sets", n_runs=1, random_state=0, max_missing=0.2)
    s = signed.score
    expected = (1 - s) / 2 * math.log(1 - s) + (1 + s) / 2 * math.log(1 + s)
    assert kl_sets.score == pytest.approx(expected, rel=1e-9)
    assert kl_sets.to_series()["name"] == "toy gender"


def test_wrapper_swaps_flip_sign_and_random_state_repeats(gender_query):
    from nlpbias.metrics.rnsb import rnsb

    base = rnsb(gender_query, EMB, n_runs=1, random_state=0, max_missing=0.2).score
    assert (
        rnsb(gender_query.swap_attributes(), EMB, n_runs=1, random_state=0, max_missing=0.2).score
        < 0
    )
    assert rnsb(
        gender_query.swap_targets(), EMB, n_runs=1, random_state=0, max_missing=0.2
    ).score == (pytest.approx(-base, rel=1e-10))
    a = rnsb(gender_query, EMB, n_runs=3, holdout=0.34, random_state=7, max_missing=0.2)
    b = rnsb(gender_query, EMB, n_runs=3, holdout=0.34, random_state=7, max_missing=0.2)
    pd.testing.assert_frame_equal(a.runs, b.runs)


def test_wrapper_oov_and_lowercase(gender_query, one_line):
    from nlpbias.metrics.query import OutOfVocabularyError, Query
    from nlpbias.metrics.rnsb import rnsb

    q = Query(
        targets=(["doctor", "engineer", "pilot"], ["nurse", "secretary", "maid"]),
        attributes=(["He", "Him"], ["She", "Her"]),
    )
    res = rnsb(q, EMB, lowercase=True, max_missing=0.4, n_runs=1, random_state=0)
    assert res.words["T1"] == ("doctor", "engineer")
    assert res.words["A1"] == ("He", "Him")
    assert len(res.probabilities) == 4
    with pytest.raises(OutOfVocabularyError) as err:
        rnsb(q, EMB, lowercase=False, n_runs=1, random_state=None, max_missing=0.2)
    one_line(err)


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"variant": "KL"}, ValueError, "variant must be one of ['signed', 'kl', 'kl_sets']"),
        ({"n_runs": 0}, ValueError, "n_runs must be an integer >= 1"),
        ({"holdout": -0.1}, ValueError, "holdout must be a number in [0, 1)"),
    ],
)
def test_wrapper_errors(gender_query, kwargs, exc, fragment, one_line):
    from nlpbias.metrics.rnsb import rnsb

    with pytest.raises(exc) as err:
        options = {"n_runs": 10, "random_state": None, "max_missing": 0.2}
        rnsb(gender_query, EMB, **(options | kwargs))
    assert fragment in one_line(err)


def test_wrapper_rejects_non_query(one_line):
    from nlpbias.metrics.rnsb import rnsb

    with pytest.raises(TypeError) as err:
        rnsb((["doctor"], ["nurse"]), EMB, n_runs=10, random_state=None, max_missing=0.2)
    assert "Query" in one_line(err)


def test_rnsb_table_one_row_per_query_matching_rnsb() -> None:
    emb = {"a": [1, 0.1], "b": [0.9, 0], "c": [0.1, 1], "d": [0, 0.8],
           "x": [1, 0], "y": [0, 1], "x2": [0.9, 0.2], "y2": [0.2, 0.9]}  # fmt: skip
    q = Query((["a", "b"], ["c", "d"]), (["x", "x2"], ["y", "y2"]), name="q")
    table = rnsb_table(
        [q, q.swap_attributes()], emb, progress=False, n_runs=2, random_state=0, max_missing=0.2
    )
    assert table["name"].tolist() == ["q", q.swap_attributes().name]
    direct = rnsb(q, emb, n_runs=2, random_state=0, max_missing=0.2).score
    assert table.loc[0, "score"] == pytest.approx(direct)
    assert table.loc[0, "score"] == pytest.approx(-table.loc[1, "score"], rel=0.2)
    with pytest.raises(ValueError, match="queries is empty"):
        rnsb_table([], emb, n_runs=10, random_state=None, max_missing=0.2)


def test_rnsb_accepts_a_wordset_like_weat() -> None:
    from nlpbias import models
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.weat import weat

    ws = load_wordset("caliskan_weat1")
    emb = models.load_embeddings(["planted"], wordsets=[ws], random_state=0, max_docs=None)[
        "planted"
    ]
    res = rnsb(ws, emb, lowercase=True, n_runs=1, random_state=0, max_missing=0.2)
    assert res.name == ws.name and res.score > 0  # planted: flowers pleasant, insects not
    assert (
        weat(
            ws,
            emb,
            lowercase=True,
            n_bootstrap=0,
            random_state=0,
            ddof=1,
            n_resamples=10_000,
            max_missing=0.2,
        ).effect_size
        > 0
    )
    with pytest.raises(TypeError, match="must be a Query \\(or a WordSet\\)"):
        rnsb("caliskan_weat1", emb, n_runs=10, random_state=None, max_missing=0.2)


def test_docstring_examples() -> None:
    import doctest

    import nlpbias.metrics.rnsb as module

    failed, attempted = doctest.testmod(module, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
