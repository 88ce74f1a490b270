"""Tests for nlpbias.data.synthetic_embeddings: planted WEAT associations with a known truth."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest
from gensim.models import KeyedVectors

from nlpbias.data.synthetic_embeddings import make_planted_embedding


@dataclass
class WS:
    """Stand-in for nlpbias.data.wordsets.WordSet (duck typing: .targets and .attributes)."""

    targets: dict = field(default_factory=dict)
    attributes: dict = field(default_factory=dict)


GENDER = WS(
    targets={"male": ["he", "man", "boy", "father"], "female": ["she", "woman", "girl", "mother"]},
    attributes={
        "career": ["job", "salary", "office", "business", "career"],
        "family": ["home", "kids", "family", "wedding", "parents"],
    },
)
FLOWERS = WS(
    targets={"flowers": ["rose", "tulip", "daisy"], "insects": ["ant", "wasp", "flea"]},
    attributes={"pleasant": ["love", "peace", "joy"], "unpleasant": ["hate", "war", "filth"]},
)


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.linalg.norm(m, axis=-1, keepdims=True)


def _assoc(kv: KeyedVectors, words: list[str], a1: list[str], a2: list[str]) -> np.ndarray:
    """s(w) = mean cos(w, A1) - mean cos(w, A2), computed by hand."""
    w, x, y = (_unit(np.stack([kv[t] for t in ws])) for ws in (words, a1, a2))
    return (w @ x.T).mean(axis=1) - (w @ y.T).mean(axis=1)


def _weat(kv: KeyedVectors, ws: WS) -> float:
    (t1, t2), (a1, a2) = ws.targets.values(), ws.attributes.values()
    s1, s2 = _assoc(kv, t1, a1, a2), _assoc(kv, t2, a1, a2)
    return float((s1.mean() - s2.mean()) / np.concatenate([s1, s2]).std())


def test_keys_order_and_types():
    kv = make_planted_embedding(wordsets=[GENDER], extra_words=3, random_state=0)
    t1, t2 = GENDER.targets.values()
    a1, a2 = GENDER.attributes.values()
    assert kv.index_to_key == [*t1, *t2, *a1, *a2, "filler0", "filler1", "filler2"]
    assert kv.vectors.dtype == np.float32 and kv.vectors.shape == (21, 50)
    words = make_planted_embedding(wordsets=[GENDER], extra_words=["zz", "yy"], random_state=0)
    assert words.index_to_key[-2:] == ["zz", "yy"]
    padded = make_planted_embedding(wordsets=[GENDER], extra_words=12, random_state=0)
    assert padded.index_to_key[-1] == "filler11" and "filler00" in padded.key_to_index


def test_positive_effect_plants_association():
    kv = make_planted_embedding(wordsets=[GENDER], effect=1.0, random_state=1)
    (t1, t2), (a1, a2) = GENDER.targets.values(), GENDER.attributes.values()
    m1, m2 = _unit(np.mean([kv[a] for a in a1], axis=0)), _unit(np.mean([kv[a] for a in a2], 0))
    for word in t1:  # every T1 word is closer to the A1 mean than to the A2 mean
        v = _unit(kv[word])
        assert v @ m1 > v @ m2
    for word in t2:
        v = _unit(kv[word])
        assert v @ m2 > v @ m1
    assert _weat(kv, GENDER) > 1.5


def test_negative_effect_reverses_sign():
    kv = make_planted_embedding(wordsets=[GENDER], effect=-1.0, random_state=1)
    assert _weat(kv, GENDER) < -1.5


def test_zero_effect_has_no_association_on_average():
    (t1, _), (a1, a2) = GENDER.targets.values(), GENDER.attributes.values()
    diffs, sizes = [], []
    for seed in range(40):
        kv = make_planted_embedding(wordsets=[GENDER], effect=0.0, extra_words=0, random_state=seed)
        diffs.append(_assoc(kv, t1, a1, a2).mean())
        sizes.append(_weat(kv, GENDER))
    assert abs(np.mean(diffs)) < 0.03
    assert abs(np.mean(sizes)) < 0.25
    assert np.std(sizes) > 0.2  # it is noise, not a constant


def test_association_matches_the_documented_formula():
    # Many attribute words and a large dim average out the noise: s(t) -> 2e / (r_t r_a).
    e, noise, dim = 0.5, 1.0, 2000
    many = WS(
        targets={"t1": [f"x{i}" for i in range(30)], "t2": [f"y{i}" for i in range(30)]},
        attributes={"a1": [f"p{i}" for i in range(30)], "a2": [f"q{i}" for i in range(30)]},
    )
    kv = make_planted_embedding(
        wordsets=[many], effect=e, noise=noise, dim=dim, extra_words=0, random_state=3
    )
    (t1, t2), (a1, a2) = many.targets.values(), many.attributes.values()
    expected = 2 * e / (np.sqrt(e**2 + noise**2) * np.sqrt(1 + noise**2))
    assert _assoc(kv, t1, a1, a2).mean() == pytest.approx(expected, abs=0.02)
    assert _assoc(kv, t2, a1, a2).mean() == pytest.approx(-expected, abs=0.02)
    fill = make_planted_embedding(wordsets=[many], dim=dim, extra_words=50, random_state=3)
    fillers = [f"filler{i:02d}" for i in range(50)]
    assert np.abs(_assoc(fill, fillers, a1, a2).mean()) < 0.01  # pure noise
    norms = np.linalg.norm(fill[fillers], axis=1)
    assert norms.mean() == pytest.approx(noise, rel=0.02)


def test_per_set_effects_and_orthogonal_axes():
    kv = make_planted_embedding(wordsets=[GENDER, FLOWERS], effect=[1.5, -1.5], random_state=4)
    assert _weat(kv, GENDER) > 1.5
    assert _weat(kv, FLOWERS) < -1.5
    # the attribute axes of the two sets are orthogonal: cross-set association is small
    (g1, g2), (f1, f2) = GENDER.attributes.values(), FLOWERS.attributes.values()
    d_g = np.mean([kv[w] for w in g1], 0) - np.mean([kv[w] for w in g2], 0)
    d_f = np.mean([kv[w] for w in f1], 0) - np.mean([kv[w] for w in f2], 0)
    assert abs(_unit(d_g) @ _unit(d_f)) < 0.3


def test_accepts_dicts_and_is_deterministic():
    as_dict = {"targets": GENDER.targets, "attributes": GENDER.attributes}
    a = make_planted_embedding(wordsets=[as_dict], random_state=5)
    b = make_planted_embedding(wordsets=[GENDER], random_state=5)
    c = make_planted_embedding(wordsets=[GENDER], random_state=6)
    np.testing.assert_array_equal(a.vectors, b.vectors)
    assert not np.allclose(a.vectors, c.vectors)
    np.random.seed(0)  # noqa: NPY002 -- random_state=None draws from numpy's global state
    d = make_planted_embedding(wordsets=[GENDER])
    np.random.seed(0)  # noqa: NPY002
    np.testing.assert_array_equal(d.vectors, make_planted_embedding(wordsets=[GENDER]).vectors)


def test_shared_word_sums_loadings():
    other = WS(targets={"a": ["he"], "b": ["it"]}, attributes={"x": ["up"], "y": ["down"]})
    kv = make_planted_embedding(wordsets=[GENDER, other], extra_words=0, random_state=0)
    assert kv.index_to_key.count("he") == 1 and len(kv) == 18 + 3


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"wordsets": GENDER}, TypeError, "wrap a single word set in a list"),
        ({"wordsets": []}, ValueError, "wordsets is empty"),
        (
            {"wordsets": [WS(targets={"a": ["x"]}, attributes={"p": ["y"], "q": ["z"]})]},
            TypeError,
            "exactly 2 word lists",
        ),
        ({"wordsets": [object()]}, TypeError, "wordsets[0].targets"),
        (
            {"wordsets": [WS(targets={"a": "he", "b": ["she"]}, attributes=GENDER.attributes)]},
            TypeError,
            "list of words",
        ),
        (
            {"wordsets": [WS(targets={"a": [], "b": ["she"]}, attributes=GENDER.attributes)]},
            ValueError,
            "is empty",
        ),
        (
            {
                "wordsets": [
                    WS(targets={"a": ["he", ""], "b": ["she"]}, attributes=GENDER.attributes)
                ]
            },
            ValueError,
            "non-empty strings",
        ),
        (
            {"wordsets": [WS(targets={"a": ["he"], "b": ["he"]}, attributes=GENDER.attributes)]},
            ValueError,
            "target lists share",
        ),
        (
            {"wordsets": [WS(targets={"a": ["job"], "b": ["x"]}, attributes=GENDER.attributes)]},
            ValueError,
            "targets and attributes share",
        ),
        ({"effect": [1.0, 2.0]}, ValueError, "one each"),
        ({"effect": float("nan")}, ValueError, "finite"),
        ({"effect": "big"}, TypeError, "effect"),
        ({"effect": True}, TypeError, "effect"),
        ({"dim": 1}, ValueError, "dim"),
        ({"dim": 2.5}, ValueError, "dim"),
        ({"wordsets": [GENDER, FLOWERS, GENDER], "dim": 2}, ValueError, "raise dim"),
        ({"noise": 0}, ValueError, "noise"),
        ({"noise": "1"}, ValueError, "noise must be a number in (0, inf)"),
        ({"extra_words": -1}, ValueError, "extra_words"),
        ({"extra_words": ["he"]}, ValueError, "repeats words"),
        ({"extra_words": ["a", "a"]}, ValueError, "duplicate"),
        ({"extra_words": "abc"}, TypeError, "extra_words"),
        ({"random_state": "x"}, TypeError, "random_state"),
    ],
)
def test_bad_input(kwargs, exc, fragment, one_line):
    kwargs = {"wordsets": [GENDER], **kwargs}
    with pytest.raises(exc) as err:
        make_planted_embedding(**kwargs)
    assert fragment in one_line(err)


def test_works_with_the_project_word_sets():
    wordsets = pytest.importorskip("nlpbias.data.wordsets")
    ws = wordsets.load_wordset("caliskan_weat6")
    kv = make_planted_embedding(wordsets=[ws], effect=1.0, random_state=0)
    (t1, t2), (a1, a2) = ws.targets.values(), ws.attributes.values()
    assert set(kv.key_to_index) >= set(t1) | set(t2) | set(a1) | set(a2)
    assert _weat(kv, WS(targets=dict(ws.targets), attributes=dict(ws.attributes))) > 1.5
