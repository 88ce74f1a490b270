"""Tests for nlpbias.studies.scoring.personal: text/CSV/Twitter-archive posts and seed 003's
cleaning."""

from __future__ import annotations

import gzip
import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from nlpbias.studies.scoring import personal

# Two tweets as the archive stores them (newest first, full_text HTML-escaped, ids as strings).
TWEETS = [
    {
        "tweet": {
            "retweeted": False,
            "entities": {"hashtags": [], "user_mentions": [], "urls": []},
            "id_str": "1050118621198921728",
            "id": "1050118621198921728",
            "created_at": "Wed Oct 10 20:19:24 +0000 2018",
            "full_text": "RT @alice: fish &amp; chips &lt;3 https://t.co/abc",
            "lang": "en",
        }
    },
    {
        "tweet": {
            "retweeted": True,  # the owner retweeted it: not a retweet itself
            "entities": {"user_mentions": [{"screen_name": "bob"}]},
            "id_str": "999",
            "created_at": "Tue Jan 02 08:00:00 +0100 2018",
            "full_text": "@bob I agree,\nsee https://t.co/xyz",
            "in_reply_to_screen_name": "bob",
            "in_reply_to_status_id_str": "998",
        }
    },
]


def _js(prefix: str, items: list) -> str:
    return f"window.YTD.{prefix}.part0 = " + json.dumps(items, indent=2)


@pytest.fixture
def tweets_js(tmp_path: Path) -> Path:
    p = tmp_path / "tweets.js"
    p.write_text(_js("tweets", TWEETS), encoding="utf-8")
    return p


def _check_archive(df: pd.DataFrame) -> None:
    assert list(df.columns) == ["id", "created_at", "text", "is_retweet", "is_reply"]
    # sorted by time: 2018-01-02 07:00 UTC (+0100 converted) before 2018-10-10 20:19 UTC
    assert df["id"].tolist() == ["999", "1050118621198921728"]
    assert df["created_at"].tolist() == [
        pd.Timestamp("2018-01-02 07:00:00", tz="UTC"),
        pd.Timestamp("2018-10-10 20:19:24", tz="UTC"),
    ]
    assert str(df["created_at"].dt.tz) == "UTC"
    assert df["text"].tolist() == [
        "@bob I agree,\nsee https://t.co/xyz",
        "RT @alice: fish & chips <3 https://t.co/abc",
    ]
    assert df["is_retweet"].tolist() == [False, True]
    assert df["is_reply"].tolist() == [True, False]
    assert df["is_retweet"].dtype == bool and df["is_reply"].dtype == bool


def test_read_twitter_archive_tweets_js(tweets_js: Path) -> None:
    _check_archive(personal.read_twitter_archive(tweets_js))


def test_read_twitter_archive_older_tweet_prefix_and_bare_list(tmp_path: Path) -> None:
    old = tmp_path / "tweet.js"
    old.write_text(_js("tweet", TWEETS), encoding="utf-8")
    _check_archive(personal.read_twitter_archive(old))
    bare = tmp_path / "tweets.json"
    bare.write_text(json.dumps([t["tweet"] for t in TWEETS]), encoding="utf-8")
    _check_archive(personal.read_twitter_archive(bare))


@pytest.mark.parametrize("inner", ["data/tweets.js", "data/tweet.js", "twitter-x/data/tweets.js"])
def test_read_twitter_archive_zip(tmp_path: Path, inner: str) -> None:
    z = tmp_path / "twitter-2022-11-20.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("data/account.js", 'window.YTD.account.part0 = [{"account": {}}]')
        zf.writestr(inner, _js(Path(inner).stem, TWEETS))
    _check_archive(personal.read_twitter_archive(z))


def test_read_twitter_archive_zip_parts_and_folder(tmp_path: Path) -> None:
    z = tmp_path / "archive.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("data/tweets.js", _js("tweets", TWEETS[:1]))
        zf.writestr("data/tweets-part1.js", _js("tweets", TWEETS[1:]).replace("part0", "part1"))
    _check_archive(personal.read_twitter_archive(z))
    folder = tmp_path / "unpacked"
    (folder / "data").mkdir(parents=True)
    (folder / "data" / "tweets.js").write_text(_js("tweets", TWEETS), encoding="utf-8")
    _check_archive(personal.read_twitter_archive(folder))


def test_read_twitter_archive_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not found"):
        personal.read_twitter_archive(tmp_path / "missing.js")
    z = tmp_path / "no_tweets.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("data/like.js", "window.YTD.like.part0 = []")
    with pytest.raises(FileNotFoundError, match="no data/tweets.js") as info:
        personal.read_twitter_archive(z)
    assert "\n" not in str(info.value)
    bad = tmp_path / "bad.js"
    bad.write_text("window.YTD.tweets.part0 = [ {", encoding="utf-8")
    with pytest.raises(ValueError, match=r"malformed JSON.*window\.YTD\.tweets\.part0 = \["):
        personal.read_twitter_archive(bad)
    bad.write_text("console.log('hi')", encoding="utf-8")
    with pytest.raises(ValueError, match="not a Twitter archive file"):
        personal.read_twitter_archive(bad)
    bad.write_text(_js("tweets", [{"tweet": {"id_str": "1", "full_text": "x"}}]), "utf-8")
    with pytest.raises(ValueError, match="item 0 of bad.js lacks the field 'created_at'"):
        personal.read_twitter_archive(bad)
    item = {"tweet": {"id_str": "1", "full_text": "x", "created_at": "yesterday"}}
    bad.write_text(_js("tweets", [item]), encoding="utf-8")
    with pytest.raises(ValueError, match="unreadable created_at"):
        personal.read_twitter_archive(bad)


def test_read_text_posts_plain_and_gzip(tmp_path: Path) -> None:
    content = "first post\r\n\n   \nsecond  post \nthird\n"
    plain = tmp_path / "posts.txt"
    plain.write_bytes(content.encode("utf-8"))
    expected = ["first post", "second  post ", "third"]
    assert personal.read_text_posts(plain) == expected
    gz = tmp_path / "posts.txt.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as fh:
        fh.write(content)
    assert personal.read_text_posts(gz) == expected
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café\n".encode("latin-1"))
    assert personal.read_text_posts(latin, encoding="latin-1") == ["café"]
    with pytest.raises(FileNotFoundError, match="not found"):
        personal.read_text_posts(tmp_path / "nope.txt")


def test_read_csv_posts(tmp_path: Path) -> None:
    p = tmp_path / "fb.csv"
    p.write_text('id,post\n1,"hello, world"\n2,\n3,"two\nlines"\n4,42\n', encoding="utf-8")
    assert personal.read_csv_posts(p, column="post") == ["hello, world", "two\nlines", "42"]
    with pytest.raises(ValueError, match=r"column 'text' not in fb\.csv; available columns: "
                       r"\['id', 'post'\]"):  # fmt: skip
        personal.read_csv_posts(p)


def test_clean_posts_defaults_follow_seed_003() -> None:
    texts = [
        "RT @alice: great talk https://t.co/abc",  # retweet: dropped
        "Thanks @bob!\nSee http://t.co/x1 and https://t.co/y2?s=1 now",
        "https://t.co/onlylink",  # empty after URL removal: dropped
        "@carol agreed",  # a reply: kept by default
        "RTing is fun",  # not a retweet
        "mail me at a@b.com",
    ]
    assert personal.clean_posts(texts) == [
        "Thanks @bob! See and now",
        "@carol agreed",
        "RTing is fun",
        "mail me at a@b.com",
    ]


def test_clean_posts_options() -> None:
    text = ["RT @alice: hi @bob_1, https://t.co/abc"]
    assert personal.clean_posts(text, drop_retweets=False) == ["RT @alice: hi @bob_1,"]
    assert personal.clean_posts(text, drop_retweets=False, mentions="remove", urls="keep") == [
        "RT : hi , https://t.co/abc"
    ]
    assert personal.clean_posts(text, drop_retweets=False, mentions="replace", urls="replace") == [
        "RT @user: hi @user, http"
    ]
    assert personal.clean_posts(["@bob hi", "hi @bob"], drop_replies=True) == ["hi @bob"]
    posts = ["one", "one two", "https://t.co/x"]
    assert personal.clean_posts(posts, min_tokens=2) == ["one two"]
    assert personal.clean_posts(posts, min_tokens=0) == ["one", "one two", ""]
    assert personal.clean_posts(["www.example.com/a b"]) == ["b"]


def test_clean_posts_rejects_bad_arguments() -> None:
    with pytest.raises(
        ValueError, match=r"mentions must be one of \['keep', 'remove', 'replace'\]"
    ):
        personal.clean_posts(["x"], mentions="mask")
    with pytest.raises(ValueError, match="urls must be one of"):
        personal.clean_posts(["x"], urls="drop")
    with pytest.raises(ValueError, match="min_tokens"):
        personal.clean_posts(["x"], min_tokens=-1)
    with pytest.raises(TypeError, match="wrap it in a list"):
        personal.clean_posts("one post")
    with pytest.raises(TypeError, match="post 1 is a float"):
        personal.clean_posts(["a", float("nan")])
    with pytest.raises(TypeError, match="drop_retweets"):
        personal.clean_posts(["a"], drop_retweets="yes")


def test_load_posts_dispatches_on_suffix(tmp_path: Path, tweets_js: Path) -> None:
    assert personal.load_posts(tweets_js) == ["@bob I agree, see"]
    assert personal.load_posts(tweets_js, drop_retweets=False, mentions="replace") == [
        "@user I agree, see",
        "RT @user: fish & chips <3",
    ]
    txt = tmp_path / "mine.txt"
    txt.write_text("RT @x: y\nhello https://t.co/z\n", encoding="utf-8")
    assert personal.load_posts(txt) == ["hello"]
    csv = tmp_path / "mine.csv"
    csv.write_text("body\nhi @ann\n", encoding="utf-8")
    assert personal.load_posts(csv, column="body", mentions="remove") == ["hi"]
    other = tmp_path / "mine.dat"
    other.write_text("hello\n", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot tell the kind of mine.dat"):
        personal.load_posts(other)
    assert personal.load_posts(other, kind="text") == ["hello"]
    with pytest.raises(ValueError, match="kind must be one of"):
        personal.load_posts(txt, kind="facebook")
    with pytest.raises(FileNotFoundError, match="not found"):
        personal.load_posts(tmp_path / "gone.csv")


def test_url_removal_reproduces_dongs_no_links_corpus(data_home: Path) -> None:
    """Dong's ``no_links`` files are her ``with_links`` files through her URL regex."""
    folder = data_home / "lindadongx_personal_corpora" / "more_hillary"
    with_links = personal.read_text_posts(folder / "with_links" / "hillary_val.txt")
    no_links = (folder / "no_links" / "hillary_val.txt").read_text(encoding="utf-8").split("\n")
    assert len(no_links) == 516
    cleaned = personal.clean_posts(with_links, drop_retweets=False, min_tokens=0)
    assert cleaned == [" ".join(line.split()) for line in no_links]


# ------------------------------------------------- encodings, header-less CSVs, empty corpora


def test_a_file_that_is_not_utf8_names_the_file_the_byte_and_the_fix(tmp_path: Path, one_line):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("first post\ncafé au lait\n".encode("latin-1"))
    with pytest.raises(ValueError) as err:
        personal.read_text_posts(latin)
    assert one_line(err) == (
        f"personal posts: {str(latin)!r} is not utf-8 text: byte 0xe9 at position 14 (line 2) "
        "cannot be decoded; pass the file's encoding, e.g. encoding='latin-1' or 'cp1252' (the "
        "scoring chapter: -p personal_encoding=latin-1)"
    )
    assert personal.load_posts(latin, encoding="latin-1") == ["first post", "café au lait"]
    csv = tmp_path / "posts.csv.gz"
    with gzip.open(csv, "wb") as fh:
        fh.write("text\nna\xefve\n".encode("cp1252"))
    with pytest.raises(ValueError, match=r"posts\.csv\.gz' is not utf-8 text: byte 0xef at "):
        personal.read_csv_posts(csv)
    assert personal.read_csv_posts(csv, encoding="cp1252") == ["naïve"]
    archive = tmp_path / "tweets.js"
    archive.write_bytes(_js("tweets", TWEETS).encode("utf-16"))
    with pytest.raises(ValueError, match=r"tweets\.js' is not utf-8 text: byte 0xff at position 0"):
        personal.read_twitter_archive(archive)
    _check_archive(personal.read_twitter_archive(archive, encoding="utf-16"))
    with pytest.raises(ValueError, match="unknown encoding 'klingon' for"):
        personal.read_text_posts(latin, encoding="klingon")


def test_a_utf8_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    p = tmp_path / "bom.csv"
    p.write_bytes(b"\xef\xbb\xbftext\nhello\n")
    assert personal.read_csv_posts(p) == ["hello"]
    t = tmp_path / "bom.txt"
    t.write_bytes(b"\xef\xbb\xbfhello\n")
    assert personal.read_text_posts(t) == ["hello"]


def test_a_csv_without_header_row_is_read_by_position(tmp_path: Path, one_line) -> None:
    p = tmp_path / "no_header.csv"
    p.write_text('first post,2020\n"second, post",2021\n,2022\n', encoding="utf-8")
    assert personal.read_csv_posts(p, column=0) == ["first post", "second, post"]
    assert personal.load_posts(p, column=1) == ["2020", "2021", "2022"]
    with pytest.raises(ValueError) as err:
        personal.read_csv_posts(p)  # the first post is taken for the header
    assert one_line(err).endswith("or column=0 (a position) if the file has no header row")
    with pytest.raises(ValueError) as err:
        personal.read_csv_posts(p, column=2)
    assert one_line(err) == (
        "personal posts: column 2 not in no_header.csv; it has 2: pass a position from 0 to 1"
    )
    with pytest.raises(TypeError, match="a name \\(str\\) or a position \\(int\\), got True"):
        personal.read_csv_posts(p, column=True)


def test_empty_corpora_fail_with_the_file_name(tmp_path: Path, one_line) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        personal.load_posts(empty)
    assert one_line(err) == (
        f"personal posts: {str(empty)!r} has no line that is not blank; pass a file with your posts"
    )
    csv = tmp_path / "empty.csv"
    csv.write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"empty\.csv' is empty; pass a file with your posts"):
        personal.load_posts(csv)
    retweets = tmp_path / "retweets.txt"
    retweets.write_text("RT @a: one\nhttps://t.co/x\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        personal.load_posts(retweets)
    assert one_line(err).startswith(
        f"personal posts: none of the 2 posts of {str(retweets)!r} is left after cleaning"
    )
