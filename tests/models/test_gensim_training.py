"""Tests for nlpbias.models.gensim_training: word2vec / fastText on token lists (not cached)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from gensim.models import KeyedVectors

from nlpbias.models import gensim_training
from nlpbias.models.gensim_training import corpus_sha256, train_fasttext_on, train_word2vec_on

FAST = {"vector_size": 8, "epochs": 2, "show_progress": False}


def _tiny_corpus(n: int = 300, seed: int = 0) -> list[list[str]]:
    """Sentences over 40 common words plus 3 rare ones (each used exactly twice)."""
    r = random.Random(seed)
    words = [f"w{i}" for i in range(40)]
    out = [[r.choice(words) for _ in range(8)] for _ in range(n)]
    for i, rare in enumerate(["rare_a", "rare_b", "rare_c"]):
        out[i].append(rare)
        out[i + 10].append(rare)
    return out


@pytest.fixture(scope="module")
def corpus():
    return _tiny_corpus()


def test_word2vec_vocabulary_is_words_at_min_count(corpus):
    counts = Counter(tok for sent in corpus for tok in sent)
    kv = train_word2vec_on(corpus, min_count=3, **FAST)
    assert isinstance(kv, KeyedVectors)
    assert set(kv.key_to_index) == {w for w, c in counts.items() if c >= 3}
    assert "rare_a" not in kv.key_to_index  # seen twice < min_count
    kv1 = train_word2vec_on(corpus, min_count=2, **FAST)
    assert {"rare_a", "rare_b", "rare_c"} <= set(kv1.key_to_index)
    assert kv.vectors.shape == (len(kv), 8)
    info = kv.training_info
    assert info["n_docs"] == len(corpus)
    assert info["n_tokens"] == sum(counts.values())
    assert info["vocab_size"] == len(kv)
    assert info["params"]["min_count"] == 3 and info["params"]["seed"] == 0
    assert all(kv.get_vecattr(w, "count") == counts[w] for w in kv.index_to_key)


def test_numpy_integers_are_accepted(corpus):
    kv = train_word2vec_on(corpus, min_count=np.int64(1), random_state=np.uint32(3), **FAST)
    assert kv.training_info["params"]["seed"] == 3 and len(kv) == 43


def test_word2vec_same_seed_identical_other_seed_differs(corpus):
    a = train_word2vec_on(corpus, min_count=1, random_state=7, **FAST)
    b = train_word2vec_on(corpus, min_count=1, random_state=7, **FAST)
    c = train_word2vec_on(corpus, min_count=1, random_state=8, **FAST)
    assert a.index_to_key == b.index_to_key
    np.testing.assert_array_equal(a.vectors, b.vectors)
    assert not np.allclose(a.vectors, c.vectors)


def test_word2vec_learns_shared_contexts():
    # "cat"/"dog" share one pool of context words, "stone"/"river" another.
    r = random.Random(1)
    pets, things = ["cat", "dog"], ["stone", "river"]
    pet_ctx, thing_ctx = [f"p{i}" for i in range(15)], [f"o{i}" for i in range(15)]
    sents = [[r.choice(pets), *r.sample(pet_ctx, 4)] for _ in range(300)]
    sents += [[r.choice(things), *r.sample(thing_ctx, 4)] for _ in range(300)]
    kv = train_word2vec_on(
        sents, vector_size=16, min_count=1, window=4, sample=0, show_progress=False
    )
    assert kv.similarity("cat", "dog") > kv.similarity("cat", "stone") + 0.5
    assert kv.similarity("stone", "river") > kv.similarity("dog", "river") + 0.5


def test_fasttext_builds_oov_vectors_and_is_deterministic(corpus):
    kw = {"min_count": 1, "bucket": 1000, **FAST}
    a = train_fasttext_on(corpus, **kw)
    b = train_fasttext_on(corpus, **kw)
    np.testing.assert_array_equal(a.vectors, b.vectors)
    assert not a.has_index_for("w1zz")
    assert a["w1zz"].shape == (8,)  # from character n-grams
    assert a.training_info["algorithm"] == "fasttext"
    assert a.training_info["params"]["bucket"] == 1000


def test_long_token_lists_are_cut(monkeypatch):
    monkeypatch.setattr(gensim_training, "MAX_SENTENCE_TOKENS", 4)
    pieces = gensim_training._chunks([list("abcdefghij"), list("xy")])
    assert pieces == [list("abcd"), list("efgh"), list("ij"), list("xy")]
    kv = train_word2vec_on([list("abcdefghij")] * 20, min_count=1, **FAST)
    assert kv.training_info["n_tokens"] == 200 and kv.training_info["n_docs"] == 20


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"sentences": "a b c"}, TypeError, "got one string"),
        ({"sentences": 3}, TypeError, "list of token lists"),
        ({"sentences": ["a b", "c d"]}, TypeError, "item 0 is str"),
        ({"sentences": [["a", 1]]}, TypeError, "non-string token"),
        ({"sentences": [["a"]], "min_count": 5}, ValueError, "lower min_count"),
        ({"sentences": [], "min_count": 1}, ValueError, "lower min_count"),
        ({"vector_size": 0}, ValueError, "vector_size"),
        ({"window": 2.5}, ValueError, "window"),
        ({"sg": 2}, ValueError, "sg must be one of [1, 0]"),
        ({"sg": True}, ValueError, "sg must be one of [1, 0]"),
        ({"epochs": 0}, ValueError, "epochs"),
        ({"workers": 0}, ValueError, "workers"),
        ({"random_state": -1}, ValueError, "random_state"),
        ({"random_state": None}, ValueError, "random_state"),
        ({"random_state": 2**32}, ValueError, "random_state"),
        ({"sample": 1.0}, ValueError, "sample"),
        ({"sample": "0"}, ValueError, "sample"),
    ],
)
def test_train_on_bad_input(kwargs, exc, fragment, one_line, corpus):
    sents = kwargs.pop("sentences", corpus)
    with pytest.raises(exc) as err:
        train_word2vec_on(sents, **{**FAST, **kwargs})
    assert fragment in one_line(err)


def test_fasttext_ngram_bounds(corpus, one_line):
    with pytest.raises(ValueError) as err:
        train_fasttext_on(corpus, min_n=5, max_n=3, **FAST)
    assert "max_n must be >= min_n" in one_line(err)


def test_corpus_sha256_covers_tokens_and_boundaries(one_line):
    base = corpus_sha256([["a", "b"], ["c"]])
    assert base == corpus_sha256(iter([("a", "b"), ("c",)]))
    assert len(base) == 64
    others = [[["a", "b", "c"]], [["a"], ["b", "c"]], [["ab"], ["c"]], [["a", "b"], ["d"]]]
    assert len({base, *(corpus_sha256(o) for o in others)}) == 5
    assert corpus_sha256([[], ["a"]]) != corpus_sha256([["a"]])
    with pytest.raises(ValueError) as err:
        corpus_sha256([["a\x1fb"]])
    assert "U+001F" in one_line(err)


def test_uncached_training_reports_the_corpus_hash(corpus):
    kv = train_word2vec_on(corpus, min_count=1, **FAST)
    assert kv.training_info["corpus_sha256"] == corpus_sha256(corpus)
