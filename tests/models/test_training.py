"""Tests for nlpbias.models.training: word2vec / fastText cached by corpus name or content."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nlpbias.data import training_corpora
from nlpbias.models import training
from nlpbias.models.gensim_training import corpus_sha256
from nlpbias.models.training import train_embedding, train_fasttext, train_word2vec

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


@pytest.fixture
def fake_corpus(tmp_path, monkeypatch):
    """Point the cache at tmp_path and replace corpus reading by a counted tiny corpus."""
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))
    calls = []

    def fake_read(spec, *, max_docs, lowercase):
        calls.append((spec, max_docs, lowercase))
        return _tiny_corpus(100 if max_docs is None else max_docs)

    monkeypatch.setattr(training, "corpus_sentences", fake_read)
    return calls


def test_named_training_is_cached_by_name_and_parameters(fake_corpus):
    kw = {"min_count": 1, **FAST}
    a = train_word2vec("wiki_summaries", **kw)
    b = train_word2vec("wiki_summaries", **{**kw, "show_progress": True})  # not in the key
    assert len(fake_corpus) == 1
    np.testing.assert_array_equal(a.vectors, b.vectors)
    assert a.training_info["corpus"] == "wiki_summaries"
    assert a.training_info["n_docs"] == 100
    train_word2vec("wiki_summaries", **{**kw, "epochs": 3})  # changed parameter: retrain
    assert len(fake_corpus) == 2
    train_word2vec("wiki_summaries", max_docs=50, **kw)
    assert fake_corpus[-1] == ("wiki_summaries", 50, True) and len(fake_corpus) == 3
    train_word2vec("gutenberg", **kw)
    train_word2vec("gutenberg:1", **kw)  # same canonical spec: cached
    assert fake_corpus[-1] == ("gutenberg:1", None, True) and len(fake_corpus) == 4
    c = train_fasttext("wiki_summaries", bucket=1000, **kw)  # other algorithm: own entry
    assert len(fake_corpus) == 5 and c.training_info["algorithm"] == "fasttext"
    train_fasttext("wiki_summaries", bucket=1000, **kw)
    assert len(fake_corpus) == 5


def test_named_training_retrains_when_code_changes(fake_corpus, monkeypatch):
    from nlpbias.core import cache

    kw = {"min_count": 1, **FAST}
    train_word2vec("wiki_summaries", **kw)
    monkeypatch.setattr(cache, "code_digest", lambda module: "edited-tokenizer")
    train_word2vec("wiki_summaries", **kw)
    assert len(fake_corpus) == 2


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"max_docs": 0}, ValueError, "max_docs"),
        ({"lowercase": "no"}, TypeError, "lowercase"),
        ({"sg": 3}, ValueError, "sg must be one of [1, 0]"),
    ],
)
def test_named_training_bad_input(kwargs, exc, fragment, fake_corpus, one_line):
    with pytest.raises(exc) as err:
        train_word2vec("wiki_summaries", **kwargs)
    assert fragment in one_line(err)
    assert fake_corpus == []


@pytest.fixture
def tweet_files(tmp_path, monkeypatch):
    """Pretend the data home holds the tweet sources named in the dict (values are paths)."""
    files = {s: tmp_path / f"{s}.csv" for s in training_corpora.TWEET_SOURCES}
    monkeypatch.setattr(training_corpora, "_tweet_file", lambda source: files.get(source))
    return files


def test_tweets_training_key_holds_the_sources_present(tweet_files, fake_corpus):
    del tweet_files["trump"]
    kw = {"min_count": 1, **FAST}
    kv = train_word2vec("tweets", **kw)
    assert kv.training_info["corpus"] == "tweets:davidson,mlma"
    assert fake_corpus[-1] == ("tweets:davidson,mlma", None, True)
    train_word2vec("tweets", **kw)
    assert len(fake_corpus) == 1  # cached
    tweet_files["trump"] = tweet_files["davidson"]  # a source appears: retrain
    assert train_word2vec("tweets", **kw).training_info["corpus"] == "tweets:trump,davidson,mlma"
    assert len(fake_corpus) == 2


@pytest.fixture
def counted_fit(tmp_path, monkeypatch):
    """Point the cache at tmp_path and count the trainings that really run."""
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))
    calls = []
    real_fit = training.fit_vectors

    def fit(kind, sents, *args, **kwargs):
        calls.append((kind, len(sents)))
        return real_fit(kind, sents, *args, **kwargs)

    monkeypatch.setattr(training, "fit_vectors", fit)
    return calls


def test_train_embedding_is_cached_by_corpus_content(counted_fit):
    kw = {"min_count": 1, **FAST}
    a = train_embedding(_tiny_corpus(), **kw)
    b = train_embedding([list(s) for s in _tiny_corpus()], **{**kw, "show_progress": True})
    assert len(counted_fit) == 1  # equal token lists (new objects): cache hit, no training
    np.testing.assert_array_equal(a.vectors, b.vectors)
    assert a.training_info["corpus_sha256"] == corpus_sha256(_tiny_corpus())
    changed = _tiny_corpus()
    changed[57][3] = "w_new"  # one token changed: a new corpus
    c = train_embedding(changed, **kw)
    assert len(counted_fit) == 2 and "w_new" in c.key_to_index
    assert c.training_info["corpus_sha256"] != a.training_info["corpus_sha256"]
    train_embedding(_tiny_corpus(), **{**kw, "window": 3})  # other parameter: retrain
    assert len(counted_fit) == 3
    ft = train_embedding(_tiny_corpus(), algorithm="fasttext", bucket=1000, **kw)
    assert len(counted_fit) == 4 and ft.training_info["algorithm"] == "fasttext"
    assert ft.training_info["params"]["min_n"] == 3
    train_embedding(_tiny_corpus(), algorithm="fasttext", bucket=1000, **kw)
    train_embedding(_tiny_corpus(), **kw)
    assert len(counted_fit) == 4


def test_train_embedding_retrains_when_code_changes(counted_fit, monkeypatch):
    from nlpbias.core import cache

    train_embedding(_tiny_corpus(), min_count=1, **FAST)
    monkeypatch.setattr(cache, "code_digest", lambda module: "edited-tokenizer")
    train_embedding(_tiny_corpus(), min_count=1, **FAST)
    assert len(counted_fit) == 2


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"algorithm": "glove"}, ValueError, "algorithm must be one of"),
        ({"bucket": 10}, ValueError, "fastText only"),
        ({"algorithm": "fasttext", "min_n": 4, "max_n": 2}, ValueError, "max_n must be >= min_n"),
        ({"sentences": "a b"}, TypeError, "got one string"),
        ({"epochs": 0}, ValueError, "epochs"),
    ],
)
def test_train_embedding_bad_input(kwargs, exc, fragment, counted_fit, one_line, corpus):
    sents = kwargs.pop("sentences", corpus)
    with pytest.raises(exc) as err:
        train_embedding(sents, **{**FAST, **kwargs})
    assert fragment in one_line(err)
    assert counted_fit == []
