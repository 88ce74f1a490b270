"""Loaders for Dixon et al.'s (2018) data and the Wikipedia Talk corpus they trained on.

- :func:`load_dixon_templates` — the identity-term template sentences ("I am a gay person");
- :func:`load_dixon_wiki_test` — their Wikipedia Talk test set and its fuzzed copy;
- :func:`load_dixon_pool` — the non-toxic Wikipedia-article sentences used for mitigation, and
  the random control pool;
- :func:`load_wikipedia_talk` — the Wikipedia Talk Labels: Toxicity corpus (Wulczyn et al.
  2017), which you download yourself;
- :func:`load_wikipedia_talk_2018` — the first 20,000 Wikipedia Talk comments of the Jigsaw 2018
  Toxic Comment Classification Challenge (the same comment family), from the data home.

Every loader returns the common schema of :mod:`nlpbias.data.toxicity`: first ``text`` (str) and
``toxic`` (bool), then the source's own columns. Files come from the data home through
:func:`nlpbias.data.store.path` (checksum-verified); pass ``path=`` to read a file directly.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from nlpbias.core.checks import check_bool, check_choice, check_number
from nlpbias.data.file_checks import as_bool_column, check_columns, check_text_present
from nlpbias.data.store import resolve as _resolve

__all__ = [
    "WIKIPEDIA_TALK_2018_FILES",
    "load_dixon_pool",
    "load_dixon_templates",
    "load_dixon_wiki_test",
    "load_wikipedia_talk",
    "load_wikipedia_talk_2018",
]

logger = logging.getLogger(__name__)


def load_dixon_templates(*, path: str | Path | None = None) -> pd.DataFrame:
    """Load Dixon et al.'s (2018) 77k identity-term template sentences (``bias_madlibs_77k.csv``).

    Parameters
    ----------
    path : str or Path, optional
        Read this CSV (columns ``Text,Label,Template``) directly.

    Returns
    -------
    pandas.DataFrame
        Columns ``text``, ``toxic`` (``Label == 'BAD'``) and ``template`` (the template family,
        e.g. ``name_adj``).

    Examples
    --------
    >>> df = load_dixon_templates()  # doctest: +SKIP
    >>> df["toxic"].mean()  # doctest: +SKIP
    0.5
    """
    src = _resolve("dixon2018", "bias_madlibs_77k.csv", path)
    raw = pd.read_csv(src, keep_default_na=False)
    check_columns(raw, ["Text", "Label", "Template"], "dixon2018 templates", src)
    bad = ~raw["Label"].isin(["BAD", "NOT_BAD"])
    if bad.any():
        vals = raw.loc[bad, "Label"].unique()[:5].tolist()
        raise ValueError(
            f"dixon2018 templates: Label must be one of ['BAD', 'NOT_BAD'], got {vals}"
        )
    out = pd.DataFrame(
        {
            "text": raw["Text"],
            "toxic": (raw["Label"] == "BAD").astype(bool),
            "template": raw["Template"],
        }
    )
    logger.info("dixon2018 templates: %d sentences from %s", len(out), src)
    return out


def load_dixon_wiki_test(*, fuzzed: bool = False, path: str | Path | None = None) -> pd.DataFrame:
    """Load the identity-focused Wikipedia Talk toxicity test set of Dixon et al. (2018).

    Parameters
    ----------
    fuzzed : bool, default False
        If True, the version in which identity terms were swapped for random other identity terms
        (``toxicity_fuzzed_testset.csv``); otherwise ``toxicity_nonfuzzed_testset.csv``.
    path : str or Path, optional
        Read this CSV (columns ``rev_id,comment,toxic``) directly.

    Returns
    -------
    pandas.DataFrame
        Columns ``text``, ``toxic`` and ``rev_id`` (Wikipedia revision id).

    Examples
    --------
    >>> df = load_dixon_wiki_test(fuzzed=True)  # doctest: +SKIP
    >>> int(df["toxic"].sum())  # doctest: +SKIP
    248
    """
    check_bool(fuzzed, "fuzzed")
    name = "toxicity_fuzzed_testset.csv" if fuzzed else "toxicity_nonfuzzed_testset.csv"
    src = _resolve("dixon2018", name, path)
    raw = pd.read_csv(src, keep_default_na=False)
    check_columns(raw, ["rev_id", "comment", "toxic"], "dixon2018 wiki test", src)
    out = pd.DataFrame(
        {
            "text": raw["comment"],
            "toxic": as_bool_column(raw["toxic"], "dixon2018 wiki test", src),
            "rev_id": raw["rev_id"],
        }
    )
    logger.info("dixon2018 wiki test (fuzzed=%s): %d comments from %s", fuzzed, len(out), src)
    return out


_POOL_FILES = {
    "debias": "toxicity_debiasing_data.tsv",
    "random": "toxicity_debiasing_data_random.tsv",
}


def load_dixon_pool(kind: str = "debias", *, path: str | Path | None = None) -> pd.DataFrame:
    """Load Dixon et al.'s (2018) non-toxic Wikipedia-article sentences used for mitigation.

    The TSV quotes fields that contain quotes or line breaks (CSV-style, doubled ``""``); some
    sentences span several physical lines, so the file is read with a quoting-aware parser.

    Parameters
    ----------
    kind : {'debias', 'random'}, default 'debias'
        ``'debias'``: sentences containing identity terms, added to the training data to balance
        it; ``'random'``: the control pool of random sentences of similar length.
    path : str or Path, optional
        Read this TSV (columns ``rev_id, comment, is_toxic, split``) directly.

    Returns
    -------
    pandas.DataFrame
        Columns ``text``, ``toxic`` (all False in the original data), ``rev_id`` (article-based id)
        and ``split`` (``train`` / ``dev`` / ``test``).

    Examples
    --------
    >>> pool = load_dixon_pool("random")  # doctest: +SKIP
    >>> pool["split"].value_counts()["train"]  # doctest: +SKIP
    3465
    """
    check_choice(kind, "kind", list(_POOL_FILES))
    src = _resolve("dixon2018", _POOL_FILES[kind], path)
    raw = pd.read_csv(src, sep="\t", keep_default_na=False, dtype={"rev_id": str})
    check_columns(raw, ["rev_id", "comment", "is_toxic", "split"], "dixon2018 pool", src)
    out = pd.DataFrame(
        {
            "text": raw["comment"],
            "toxic": as_bool_column(raw["is_toxic"], "dixon2018 pool", src),
            "rev_id": raw["rev_id"],
            "split": raw["split"],
        }
    )
    logger.info("dixon2018 %s pool: %d sentences from %s", kind, len(out), src)
    return out


def _wiki_file(path: str | Path, name: str) -> Path:
    src = Path(path)
    if not src.is_file():
        raise FileNotFoundError(
            f"wikipedia talk: file {str(src)!r} not found; download {name} of 'Wikipedia Talk "
            "Labels: Toxicity' (Wulczyn et al. 2017, figshare 4563973) and pass its path"
        )
    return src


def _wiki_rev_ids(s: pd.Series, src: Path) -> pd.Series:
    """Parse rev_id (written as ``2232.0`` in the release) to int64; raise on anything else."""
    num = pd.to_numeric(s, errors="coerce")
    bad = num.isna() | (num % 1 != 0)
    if bad.any():
        vals = s[bad].unique()[:5].tolist()
        raise ValueError(f"wikipedia talk: {src.name} has non-integer rev_id values {vals}")
    return num.astype("int64")


def load_wikipedia_talk(
    comments_path: str | Path,
    annotations_path: str | Path,
    *,
    threshold: float = 0.5,
) -> pd.DataFrame:
    """Load the Wikipedia Talk Labels: Toxicity corpus (Wulczyn et al. 2017) that you downloaded.

    The corpus (about 160k talk-page comments, each labelled by about 10 crowd workers) is the
    training data of Dixon et al. (2018); it is not shipped with the project. A comment is toxic
    when the mean of its annotators' binary ``toxicity`` votes exceeds ``threshold``, as in
    Wulczyn et al.'s and Dixon et al.'s code. The release's ``NEWLINE_TOKEN`` and ``TAB_TOKEN``
    placeholders are replaced by spaces.

    Parameters
    ----------
    comments_path : str or Path
        ``toxicity_annotated_comments.tsv`` (columns ``rev_id, comment, year, logged_in, ns,
        sample, split``).
    annotations_path : str or Path
        ``toxicity_annotations.tsv`` (columns ``rev_id, worker_id, toxicity, toxicity_score``;
        ``toxicity`` is 1 when the worker rated the comment toxic or very toxic).
    threshold : float, default 0.5
        A comment is toxic when its mean ``toxicity`` is strictly greater than this.

    Returns
    -------
    pandas.DataFrame
        One row per comment, in the comments file's order: ``text``, ``toxic``, ``rev_id``
        (int), ``split`` (``train`` / ``dev`` / ``test``), ``year``, ``n_annotators`` and
        ``toxicity_mean``. Annotations of comments absent from the comments file are ignored.

    Raises
    ------
    ValueError
        If a file lacks a column, a comment has no annotation, or a vote is missing.

    Examples
    --------
    >>> df = load_wikipedia_talk("toxicity_annotated_comments.tsv",
    ...                          "toxicity_annotations.tsv")  # doctest: +SKIP
    >>> df.groupby("split")["toxic"].mean()  # doctest: +SKIP
    """
    thr = check_number(threshold, "threshold", low=0.0, high=1.0)
    what = "wikipedia talk"
    c_src = _wiki_file(comments_path, "toxicity_annotated_comments.tsv")
    a_src = _wiki_file(annotations_path, "toxicity_annotations.tsv")
    comments = pd.read_csv(c_src, sep="\t", keep_default_na=False, dtype=str)
    check_columns(comments, ["rev_id", "comment", "year", "split"], f"{what} comments", c_src)
    ann = pd.read_csv(a_src, sep="\t", keep_default_na=False, dtype=str)
    check_columns(ann, ["rev_id", "worker_id", "toxicity"], f"{what} annotations", a_src)
    c_ids = _wiki_rev_ids(comments["rev_id"], c_src)
    if c_ids.duplicated().any():
        dup = c_ids[c_ids.duplicated()].unique()[:5].tolist()
        raise ValueError(f"{what}: {c_src.name} repeats rev_id values {dup}; check the file")
    votes = pd.to_numeric(ann["toxicity"], errors="coerce")
    bad = votes.isna() | ~votes.isin([0, 1])
    if bad.any():
        vals = ann.loc[bad, "toxicity"].unique()[:5].tolist()
        raise ValueError(f"{what}: {a_src.name} column 'toxicity' must be 0 or 1, got {vals}")
    by_rev = votes.groupby(_wiki_rev_ids(ann["rev_id"], a_src).to_numpy()).agg(["size", "mean"])
    stats = by_rev.reindex(c_ids.to_numpy())
    missing = stats["size"].isna()
    if missing.any():
        ids = c_ids[missing.to_numpy()].tolist()[:5]
        raise ValueError(
            f"{what}: {int(missing.sum())} comments have no annotation in {a_src.name} "
            f"(rev_id {ids}); pass the matching toxicity_annotations.tsv"
        )
    n_extra = int((~by_rev.index.isin(c_ids)).sum())
    if n_extra:
        logger.info("%s: ignored annotations of %d comments not in %s", what, n_extra, c_src.name)
    text = comments["comment"].str.replace("NEWLINE_TOKEN", " ", regex=False)
    text = text.str.replace("TAB_TOKEN", " ", regex=False)
    year = pd.to_numeric(comments["year"], errors="coerce")
    if year.isna().any() or (year % 1 != 0).any():
        vals = comments.loc[year.isna() | (year % 1 != 0), "year"].unique()[:5].tolist()
        raise ValueError(f"{what}: {c_src.name} has non-integer year values {vals}")
    out = pd.DataFrame(
        {
            "text": text,
            "toxic": (stats["mean"] > thr).to_numpy(dtype=bool),
            "rev_id": c_ids.to_numpy(),
            "split": comments["split"],
            "year": year.to_numpy(dtype="int64"),
            "n_annotators": stats["size"].to_numpy(dtype=int),
            "toxicity_mean": stats["mean"].to_numpy(dtype=float),
        }
    )
    logger.info("%s: %d comments, %d annotations from %s", what, len(out), len(ann), c_src)
    return out


#: The two parts of ``wikipedia_talk_jigsaw2018``, in the corpus's order.
WIKIPEDIA_TALK_2018_FILES: tuple[str, ...] = ("text_comment_1.csv", "text_comment_2.csv")

_WT18 = "wikipedia_talk_jigsaw2018"
_WT18_FIX = f"replace it with the original file (see {_WT18}/SOURCE.md in the data home)"


def _read_wt18_part(src: Path) -> pd.DataFrame:
    """One part of the corpus as ``text`` / ``toxic``; one-line errors naming ``src``."""
    try:
        raw = pd.read_csv(src, dtype=str, keep_default_na=False)
    except pd.errors.EmptyDataError as err:
        raise ValueError(f"{_WT18}: {src.name} is empty (no header, no rows); {_WT18_FIX}") from err
    check_columns(raw, ["comment_text", "labels"], _WT18, src)
    if raw.empty:
        raise ValueError(f"{_WT18}: {src.name} has a header but no rows; {_WT18_FIX}")
    labels = raw["labels"].str.strip()
    bad = ~labels.isin(["0", "1"])
    if bad.any():
        vals = raw.loc[bad, "labels"].unique()[:5].tolist()
        rows = (raw.index[bad][:3] + 1).tolist()  # data rows counted from 1 (header excluded)
        raise ValueError(
            f"{_WT18}: {src.name} column 'labels' must be 0 or 1, got {vals} "
            f"({int(bad.sum())} rows, first at data rows {rows}); {_WT18_FIX}"
        )
    out = pd.DataFrame({"text": raw["comment_text"].astype(str), "toxic": labels == "1"})
    check_text_present(out, _WT18, src)
    return out


def load_wikipedia_talk_2018(*, paths: Sequence[str | Path] | None = None) -> pd.DataFrame:
    """Load 20,000 Wikipedia Talk comments labelled toxic or not (Jigsaw 2018 challenge).

    The first 20,000 rows, in order, of the training set of the Jigsaw / Conversation AI "Toxic
    Comment Classification Challenge" (2018), stored in two parts
    (:data:`WIKIPEDIA_TALK_2018_FILES`) with the columns ``comment_text`` and ``labels`` (the
    challenge's binary ``toxic`` column). Comments contain newlines inside quoted fields
    (RFC 4180), so the files are read with pandas' quoting-aware parser. The corpus family is the
    one Dixon et al. (2018) trained on; see the dataset's ``SOURCE.md``.

    Parameters
    ----------
    paths : sequence of str or Path, optional
        Read these CSVs (same schema) directly, in this order, instead of the data home's two
        checksum-verified parts.

    Returns
    -------
    pandas.DataFrame
        Columns ``text`` (str) and ``toxic`` (bool, ``labels == 1``), the parts concatenated in
        file order; the index ``row`` numbers the comments from 0 (their position in the
        challenge's ``train.csv``).

    Raises
    ------
    MissingDataError, ChecksumError
        A part is absent from the data home (and could not be downloaded) or altered.
    FileNotFoundError
        A file of ``paths`` does not exist.
    ValueError
        A file is empty or has no rows, lacks a column, has missing text, or a label that is not
        0 or 1.

    Examples
    --------
    >>> df = load_wikipedia_talk_2018()  # doctest: +SKIP
    >>> len(df), int(df["toxic"].sum())  # doctest: +SKIP
    (20000, 1947)
    """
    if paths is None:
        srcs = [_resolve(_WT18, name) for name in WIKIPEDIA_TALK_2018_FILES]
    else:
        if isinstance(paths, str | Path) or len(paths) == 0:
            raise TypeError(
                f"{_WT18}: paths must be a non-empty sequence of CSV paths, got {paths!r}; "
                "pass e.g. [part1, part2], or None for the data home's files"
            )
        srcs = [_resolve(_WT18, Path(p).name, p) for p in paths]
    out = pd.concat([_read_wt18_part(src) for src in srcs], ignore_index=True)
    out.index.name = "row"
    logger.info(
        "%s: %d comments (%d toxic) from %s",
        _WT18,
        len(out),
        int(out["toxic"].sum()),
        ", ".join(str(s) for s in srcs),
    )
    return out
