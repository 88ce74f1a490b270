"""Personal corpora: read your own posts (text file, CSV, Twitter archive) and clean them.

The per-person study (seed 003, Dong, "Scoring Ourselves") fine-tunes a masked language model on
one person's writing. These loaders let a reader score their own: a plain-text file with one
post per line, a CSV with a text column, or the Twitter archive export (``data/tweets.js``, or
the whole archive ``.zip``). :func:`clean_posts` then applies seed 003's cleaning; what the
seed says about each step, and what we do where it is silent, is documented there.
:func:`load_posts` does both in one call.

Why not :func:`nlpbias.data.pmi.clean_tweet`? It always removes mentions and every stand-alone
"rt" (the Katô & Miyao preprocessing), and decodes entities twice; seed 003 kept mentions and
dropped whole retweets, so the rules here are separate and configurable.
"""

from __future__ import annotations

import gzip
import html
import io
import json
import logging
import re
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "MENTION_TOKEN",
    "URL_TOKEN",
    "clean_posts",
    "decode_text",
    "load_posts",
    "read_csv_posts",
    "read_text_posts",
    "read_twitter_archive",
]

logger = logging.getLogger(__name__)

#: Placeholders for ``mentions="replace"`` / ``urls="replace"`` (the TweetEval convention).
MENTION_TOKEN = "@user"
URL_TOKEN = "http"

# Dong's own hyperlink regex (lindadongx/bert, data/*/parse_csv.py), used verbatim so that
# urls="remove" reproduces her ``no_links`` corpora; ``www.`` links without a scheme are added.
_URL = re.compile(r"\w+:/{2}[\d\w-]+(?:\.[\d\w-]+)*(?:/[^\s/]*)*|(?<![\w.])www\.[^\s]+")
_MENTION = re.compile(r"(?<![\w.@])@\w+")
_RETWEET = re.compile(r"^\s*RT @\w")
_YTD = re.compile(r"^\s*window\.YTD\.(\w+)\.part\d+\s*=\s*")
_ARCHIVE_FILE = re.compile(r"(?:^|/)data/tweets?(?:-part\d+)?\.js$")
_DATE_FORMAT = "%a %b %d %H:%M:%S %z %Y"
_EXPECTED_JS = "'window.YTD.tweets.part0 = [' (or 'window.YTD.tweet.part0 = [') and a JSON list"
_KINDS = ("auto", "text", "csv", "twitter")
_CHOICES = {"urls": ("remove", "keep", "replace"), "mentions": ("keep", "remove", "replace")}
_COLUMNS = ["id", "created_at", "text", "is_retweet", "is_reply"]


def _existing(path: str | Path, *, allow_dir: bool = False) -> Path:
    p = Path(path)
    if not (p.is_file() or (allow_dir and p.is_dir())):
        raise FileNotFoundError(f"personal posts: file {str(p)!r} not found; pass an existing path")
    return p


def decode_text(data: bytes, encoding: str, name: str | Path) -> str:
    """``data`` decoded with ``encoding`` (a leading byte-order mark dropped), or one line.

    A byte that is not valid in ``encoding`` raises a ValueError naming the file, the byte, its
    position (and line) and the fix: pass the file's ``encoding=``.

    Examples
    --------
    >>> decode_text("café".encode("latin-1"), "utf-8", "posts.txt")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: personal posts: 'posts.txt' is not utf-8 text: byte 0xe9 at position 3 (line 1)...
    """
    try:
        text = data.decode(encoding)
    except LookupError:
        raise ValueError(
            f"personal posts: unknown encoding {encoding!r} for {str(name)!r}; pass a Python "
            "codec name such as 'utf-8', 'latin-1' or 'cp1252'"
        ) from None
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise ValueError(
            f"personal posts: {str(name)!r} is not {encoding} text: byte "
            f"{data[err.start]:#04x} at position {err.start} (line {line}) cannot be decoded; "
            "pass the file's encoding, e.g. encoding='latin-1' or 'cp1252' (the scoring "
            "chapter: -p personal_encoding=latin-1)"
        ) from None
    return text.removeprefix("\ufeff")


def _read_text(p: Path, encoding: str) -> str:
    """The decoded text of ``p``, gunzipped first when its name ends in ``.gz``."""
    with (gzip.open if p.name.endswith(".gz") else open)(p, "rb") as fh:
        return decode_text(fh.read(), encoding, p)


def read_text_posts(path: str | Path, *, encoding: str = "utf-8") -> list[str]:
    """Read a plain-text file with one post per line.

    Parameters
    ----------
    path : str or Path
        The file; gunzipped when its name ends in ``.gz``.
    encoding : str, default "utf-8"
        The file's text encoding (a UTF-8 byte-order mark is dropped).

    Returns
    -------
    list of str
        One entry per non-blank line, in file order, without the line ending (``\\n`` or
        ``\\r\\n``); other whitespace is kept (:func:`clean_posts` normalises it).

    Raises
    ------
    ValueError
        The file is not valid ``encoding`` text (the message names the byte and where it is).

    Examples
    --------
    >>> posts = read_text_posts("my_posts.txt")  # doctest: +SKIP
    >>> posts[:2]  # doctest: +SKIP
    ['First post', 'Second post']
    """
    p = _existing(path)
    lines = _read_text(p, encoding).split("\n")
    posts = [line.removesuffix("\r") for line in lines if line.strip()]
    logger.info("personal posts: %d lines from %s", len(posts), p)
    return posts


def read_csv_posts(
    path: str | Path, *, column: str | int = "text", encoding: str = "utf-8"
) -> list[str]:
    """Read the posts in one column of a CSV file.

    Parameters
    ----------
    path : str or Path
        The CSV; gunzipped when its name ends in ``.gz``.
    column : str or int, default "text"
        The column holding the posts: its name in the header row, or, for a CSV **without a
        header row**, its position (0 for the first column; every row is then a post).
    encoding : str, default "utf-8"
        The file's text encoding (a UTF-8 byte-order mark is dropped).

    Returns
    -------
    list of str
        One entry per row whose cell is not empty or blank, in file order; cells are read as
        strings (a number stays as written). Line breaks inside a quoted cell are kept.

    Raises
    ------
    ValueError
        ``column`` is not in the header (the message lists the available columns) or past the
        last column; the file is not valid ``encoding`` text, empty, or not parseable as CSV.

    Examples
    --------
    >>> posts = read_csv_posts("facebook_posts.csv", column="post")  # doctest: +SKIP
    >>> posts = read_csv_posts("no_header.csv", column=0)  # doctest: +SKIP
    """
    if isinstance(column, bool) or not isinstance(column, str | int):
        raise TypeError(f"column must be a name (str) or a position (int), got {column!r}")
    p = _existing(path)
    text = _read_text(p, encoding)
    if not text.strip():
        raise ValueError(f"personal posts: {str(p)!r} is empty; pass a file with your posts")
    header = None if isinstance(column, int) else "infer"
    try:
        frame = pd.read_csv(io.StringIO(text), header=header, dtype=str, keep_default_na=False)
    except pd.errors.ParserError as err:
        raise ValueError(
            f"personal posts: {str(p)!r} is not readable as CSV ({' '.join(str(err).split())}); "
            "check its quoting, or pass a .txt file with one post per line"
        ) from None
    if column not in frame.columns:
        fix = (
            f"it has {frame.shape[1]}: pass a position from 0 to {frame.shape[1] - 1}"
            if header is None
            else f"available columns: {list(frame.columns)}; pass column= one of them, or "
            "column=0 (a position) if the file has no header row"
        )
        raise ValueError(f"personal posts: column {column!r} not in {p.name}; {fix}")
    cells = frame[column]
    posts = [c for c in cells if c.strip()]
    logger.info("personal posts: %d rows of column %r from %s", len(posts), column, p)
    return posts


def _archive_sources(p: Path, encoding: str) -> list[tuple[str, str]]:
    """(name, content) of every tweets file of an archive zip, folder, or a single file."""
    if p.is_dir():
        found = sorted(f for f in p.rglob("*.js") if _ARCHIVE_FILE.search(f.as_posix()))
        if not found:
            raise FileNotFoundError(
                f"personal posts: folder {str(p)!r} has no data/tweets.js or data/tweet.js; "
                "pass the unpacked Twitter archive or its tweets.js"
            )
        return [(str(f), decode_text(f.read_bytes(), encoding, f)) for f in found]
    if zipfile.is_zipfile(p):
        with zipfile.ZipFile(p) as zf:
            names = sorted(n for n in zf.namelist() if _ARCHIVE_FILE.search(n))
            if not names:
                raise FileNotFoundError(
                    f"personal posts: archive {p.name} has no data/tweets.js or data/tweet.js; "
                    "pass the Twitter archive zip (Settings > Download an archive)"
                )
            return [(n, decode_text(zf.read(n), encoding, f"{p}/{n}")) for n in names]
    return [(p.name, decode_text(p.read_bytes(), encoding, p))]


def _parse_js(name: str, content: str) -> list[Any]:
    m = _YTD.match(content)
    body = content[m.end() :] if m else content
    body = body.strip().removesuffix(";")
    if not body.startswith("["):
        raise ValueError(
            f"personal posts: {name} is not a Twitter archive file; expected {_EXPECTED_JS}"
        )
    try:
        items = json.loads(body)
    except json.JSONDecodeError as err:
        raise ValueError(
            f"personal posts: {name} has malformed JSON ({err.msg} at line {err.lineno}); "
            f"expected {_EXPECTED_JS}"
        ) from None
    if not isinstance(items, list):
        raise ValueError(f"personal posts: {name} holds no JSON list; expected {_EXPECTED_JS}")
    return items


def _row(name: str, i: int, item: Any) -> dict[str, Any]:
    tweet = item.get("tweet", item) if isinstance(item, dict) else None
    if not isinstance(tweet, dict):
        raise ValueError(
            f"personal posts: item {i} of {name} is not a tweet object; expected "
            '{"tweet": {"full_text": ..., "created_at": ..., "id_str": ...}}'
        )
    text = tweet.get("full_text", tweet.get("text"))
    tid = tweet.get("id_str", tweet.get("id"))
    for field, value in (("full_text", text), ("created_at", tweet.get("created_at")),
                         ("id_str", tid)):  # fmt: skip
        if value is None:
            raise ValueError(f"personal posts: item {i} of {name} lacks the field {field!r}")
    text = html.unescape(str(text))
    reply = any(tweet.get(k) for k in ("in_reply_to_status_id_str", "in_reply_to_screen_name",
                                       "in_reply_to_user_id_str"))  # fmt: skip
    return {"id": str(tid), "created_at": tweet["created_at"], "text": text,
            "is_retweet": text.startswith("RT @"), "is_reply": bool(reply)}  # fmt: skip


def read_twitter_archive(path: str | Path, *, encoding: str = "utf-8") -> pd.DataFrame:
    """Parse the tweets of a Twitter archive export.

    Accepts ``data/tweets.js`` (it starts ``window.YTD.tweets.part0 = [`` followed by a JSON
    list of ``{"tweet": {...}}``), the older ``data/tweet.js`` (``window.YTD.tweet.part0``), a
    bare JSON list (of ``{"tweet": {...}}`` or of tweet objects), the whole archive ``.zip``
    or its unpacked folder (every ``data/tweets.js``, ``data/tweet.js`` and
    ``data/tweets-partN.js`` inside is read).

    The archive stores ``full_text`` HTML-escaped as the Twitter API returns it (``&`` as
    ``&amp;``, ``<`` as ``&lt;``, ``>`` as ``&gt;``); it is unescaped once here, so a literal
    "&amp;" typed by the user survives as "&amp;". (Dong's released corpora kept the escaped
    form: "&amp;" appears in them literally.)

    Parameters
    ----------
    path : str or Path
    encoding : str, default "utf-8"
        The text encoding of the ``.js`` files (archives write UTF-8; a byte-order mark is
        dropped).

    Returns
    -------
    pandas.DataFrame
        One row per tweet sorted by (``created_at``, ``id``): ``id`` (str, the ``id_str``),
        ``created_at`` (tz-aware UTC datetime), ``text`` (unescaped ``full_text``),
        ``is_retweet`` (the text starts with "RT @": archives store a retweet that way; the
        ``retweeted`` field is *not* used, it says whether the account owner retweeted the
        tweet), ``is_reply`` (any ``in_reply_to_*`` field set).

    Raises
    ------
    FileNotFoundError
        The path does not exist, or an archive zip or folder holds no tweets file.
    ValueError
        The file is not ``window.YTD.<name>.partN = `` plus a JSON list, or a tweet lacks
        ``full_text``, ``created_at`` or ``id_str``, or has an unreadable date.

    Examples
    --------
    >>> tw = read_twitter_archive("twitter-2022-11-20.zip")  # doctest: +SKIP
    >>> tw.loc[~tw["is_retweet"], "text"].head()  # doctest: +SKIP
    """
    p = _existing(path, allow_dir=True)
    rows = [
        _row(name, i, item)
        for name, content in _archive_sources(p, encoding)
        for i, item in enumerate(_parse_js(name, content))
    ]
    out = pd.DataFrame(rows, columns=_COLUMNS)
    try:
        out["created_at"] = pd.to_datetime(out["created_at"], format=_DATE_FORMAT, utc=True)
    except (ValueError, TypeError) as err:
        raise ValueError(
            f"personal posts: unreadable created_at in {p.name} ({err}); expected Twitter's "
            "format like 'Wed Oct 10 20:19:24 +0000 2018'"
        ) from None
    out = out.astype({"is_retweet": bool, "is_reply": bool})
    out = out.sort_values(["created_at", "id"], kind="stable").reset_index(drop=True)
    logger.info("personal posts: %d tweets from %s", len(out), p)
    return out


def clean_posts(
    texts: Iterable[str],
    *,
    urls: str = "remove",
    mentions: str = "keep",
    drop_retweets: bool = True,
    drop_replies: bool = False,
    min_tokens: int = 1,
) -> list[str]:
    """Clean posts as seed 003 (Dong, "Scoring Ourselves") cleaned hers.

    What the seed says, step by step, and what is done here:

    * Retweets: "I filtered out retweets" (Trump; "similar data cleaning" for Clinton; for her
      own Facebook posts "filtering out re-posts and non-authored items"). Here a retweet is a
      post starting with "RT @" (how Twitter archives store them); ``drop_retweets=True``.
      Her released script also skipped any text starting with "RT" or "@" for Trump (not for
      Clinton); the seed does not mention replies, so ``drop_replies=False`` by default
      (``True`` drops posts starting with "@").
    * Line breaks: "replaced '\\n' with a space in order to format every Tweet on its own
      line". Here every run of whitespace becomes one space and the ends are stripped.
    * URLs: "I tried many different approaches, including filtering out hyperlinks"; her
      released corpora come in ``no_links`` and ``with_links`` versions, and the links are
      removed with her own regex, used here verbatim (on her Clinton validation file the
      result equals her ``no_links`` file line for line, up to whitespace), plus bare
      ``www.`` links, which her regex missed. Default ``urls="remove"``.
    * Mentions: the seed is silent; her corpora keep ``@handles`` as written. Default
      ``mentions="keep"``.
    * HTML entities: the seed is silent and her corpora keep "&amp;"; nothing is unescaped
      here (:func:`read_twitter_archive` unescapes the archive's text).
    * Empty posts: the seed is silent (her ``no_links`` files keep a link-only tweet as an
      empty line); here posts with fewer than ``min_tokens`` whitespace tokens after cleaning
      are dropped (default 1: only empty ones).
    * Shuffling and the 90/10 split are not done here.

    Parameters
    ----------
    texts : iterable of str
    urls : {'remove', 'keep', 'replace'}, default 'remove'
        ``replace`` puts :data:`URL_TOKEN` in place of each link.
    mentions : {'keep', 'remove', 'replace'}, default 'keep'
        ``replace`` puts :data:`MENTION_TOKEN` in place of each ``@handle``.
    drop_retweets : bool, default True
    drop_replies : bool, default False
    min_tokens : int, default 1
        Minimum whitespace tokens of a cleaned post (0 keeps empty posts).

    Returns
    -------
    list of str
        The cleaned posts, in input order.

    Examples
    --------
    >>> clean_posts(["RT @a: hi", "see https://t.co/x now\\n@bob", "https://t.co/y"])
    ['see now @bob']
    >>> clean_posts(["hi @bob https://t.co/x"], mentions="replace", urls="replace")
    ['hi @user http']
    """
    for name, value in (("urls", urls), ("mentions", mentions)):
        if value not in _CHOICES[name]:
            raise ValueError(f"{name} must be one of {list(_CHOICES[name])}, got {value!r}")
    for name, flag in (("drop_retweets", drop_retweets), ("drop_replies", drop_replies)):
        if not isinstance(flag, bool):
            raise TypeError(f"{name} must be True or False, got {flag!r}")
    if isinstance(min_tokens, bool) or not isinstance(min_tokens, int) or min_tokens < 0:
        raise ValueError(f"min_tokens must be an int >= 0, got {min_tokens!r}")
    if isinstance(texts, str):
        raise TypeError("texts must be an iterable of str, got one str; wrap it in a list")
    out: list[str] = []
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise TypeError(f"post {i} is a {type(text).__name__}, not a str; convert it first")
        if drop_retweets and _RETWEET.match(text):
            continue
        if drop_replies and text.lstrip().startswith("@"):
            continue
        if urls != "keep":
            text = _URL.sub(" " if urls == "remove" else f" {URL_TOKEN} ", text)
        if mentions != "keep":
            text = _MENTION.sub("" if mentions == "remove" else MENTION_TOKEN, text)
        text = " ".join(text.split())
        if len(text.split()) >= min_tokens:
            out.append(text)
    return out


def _kind_of(p: Path) -> str:
    name = p.name.lower()
    if p.is_dir() or name.endswith((".js", ".json", ".zip")):
        return "twitter"
    if name.endswith((".txt", ".txt.gz")):
        return "text"
    if name.endswith((".csv", ".csv.gz")):
        return "csv"
    raise ValueError(
        f"personal posts: cannot tell the kind of {p.name} from its suffix (.txt, .txt.gz, .csv, "
        ".js, .json, .zip); pass kind='text', 'csv' or 'twitter'"
    )


def load_posts(
    path: str | Path,
    *,
    kind: str = "auto",
    column: str | int = "text",
    encoding: str = "utf-8",
    **clean: Any,
) -> list[str]:
    """Read a personal corpus and clean it with :func:`clean_posts`.

    Parameters
    ----------
    path : str or Path
    kind : {'auto', 'text', 'csv', 'twitter'}, default 'auto'
        ``auto`` decides by suffix: ``.txt``/``.txt.gz`` text (:func:`read_text_posts`),
        ``.csv``/``.csv.gz`` CSV (:func:`read_csv_posts`), ``.js``/``.json``/``.zip`` or a
        folder a Twitter archive (:func:`read_twitter_archive`; its ``text`` column is used).
    column : str or int, default "text"
        The CSV column (CSV only): a name in the header row, or a position (0, 1, ...) for a
        CSV without a header row.
    encoding : str, default "utf-8"
        The file's text encoding (e.g. ``"latin-1"``, ``"cp1252"``, ``"utf-16"``).
    **clean
        Passed to :func:`clean_posts` (``urls``, ``mentions``, ``drop_retweets``,
        ``drop_replies``, ``min_tokens``).

    Returns
    -------
    list of str
        At least one post.

    Raises
    ------
    FileNotFoundError
        ``path`` does not exist.
    ValueError
        The file cannot be read (wrong encoding, bad CSV column or archive) or holds no post
        before or after cleaning; every message names the file.

    Examples
    --------
    >>> posts = load_posts("twitter-archive.zip", mentions="replace")  # doctest: +SKIP
    >>> posts = load_posts("facebook.csv", column="post", urls="keep")  # doctest: +SKIP
    """
    if kind not in _KINDS:
        raise ValueError(f"kind must be one of {list(_KINDS)}, got {kind!r}")
    p = _existing(path, allow_dir=True)
    if kind == "auto":
        kind = _kind_of(p)
    if kind == "text":
        texts = read_text_posts(p, encoding=encoding)
        where = "no line that is not blank"
    elif kind == "csv":
        texts = read_csv_posts(p, column=column, encoding=encoding)
        where = f"no cell in column {column!r} that is not blank"
    else:
        texts = read_twitter_archive(p, encoding=encoding)["text"].tolist()
        where = "no tweet"
    if not texts:
        raise ValueError(f"personal posts: {str(p)!r} has {where}; pass a file with your posts")
    out = clean_posts(texts, **clean)
    if not out:
        raise ValueError(
            f"personal posts: none of the {len(texts)} posts of {str(p)!r} is left after "
            "cleaning (retweets, and posts left empty once links are removed, are dropped); "
            "pass a file with posts you wrote"
        )
    logger.info("personal posts: %d of %d posts kept after cleaning", len(out), len(texts))
    return out
