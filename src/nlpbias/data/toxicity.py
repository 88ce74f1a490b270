"""Loaders for toxicity / hate-speech datasets in one common schema.

Every loader returns a :class:`pandas.DataFrame` whose first two columns are ``text`` (str) and
``toxic`` (bool), followed by the source's own columns (snake_case). Files come from the data home
through :func:`nlpbias.data.store.path` (checksum-verified); pass ``path=`` to read a file
directly instead (no registry, no checksum), e.g. a small fixture in the source's schema.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from nlpbias.data.store import resolve as _resolve

__all__ = [
    "DAVIDSON_LABELS",
    "JIGSAW_IDENTITY_COLUMNS",
    "JIGSAW_REQUIRED_IDENTITY_COLUMNS",
    "load_davidson",
    "load_dixon_pool",
    "load_dixon_templates",
    "load_dixon_wiki_test",
    "load_jigsaw",
    "load_mlma",
    "load_wikipedia_talk",
]

logger = logging.getLogger(__name__)

#: Davidson et al. (2017) ``class`` codes and their names.
DAVIDSON_LABELS: dict[int, str] = {0: "hate", 1: "offensive", 2: "neither"}

#: The 24 identity columns of the Jigsaw Unintended Bias in Toxicity Classification data.
JIGSAW_IDENTITY_COLUMNS: tuple[str, ...] = (
    "male",
    "female",
    "transgender",
    "other_gender",
    "heterosexual",
    "homosexual_gay_or_lesbian",
    "bisexual",
    "other_sexual_orientation",
    "christian",
    "jewish",
    "muslim",
    "hindu",
    "buddhist",
    "atheist",
    "other_religion",
    "black",
    "white",
    "asian",
    "latino",
    "other_race_or_ethnicity",
    "physical_disability",
    "intellectual_or_learning_disability",
    "psychiatric_or_mental_illness",
    "other_disability",
)

#: The nine identities scored by the Jigsaw competition's bias metric; a file must have these.
JIGSAW_REQUIRED_IDENTITY_COLUMNS: tuple[str, ...] = (
    "male",
    "female",
    "homosexual_gay_or_lesbian",
    "christian",
    "jewish",
    "muslim",
    "black",
    "white",
    "psychiatric_or_mental_illness",
)


def _check_columns(df: pd.DataFrame, required: Iterable[str], what: str, src: Path) -> None:
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ValueError(
            f"{what}: {src.name} lacks columns {missing} (has {list(df.columns)}); "
            f"expected the original {what} schema"
        )


def _check_choice(name: str, value: object, allowed: Iterable[object]) -> None:
    allowed = list(allowed)
    if isinstance(value, bool) or value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")


def _as_bool(s: pd.Series, what: str, src: Path) -> pd.Series:
    """Return a bool Series from a bool or 'True'/'False' column; raise on anything else."""
    if s.dtype == bool:
        return s
    mapped = s.astype("string").str.strip().str.lower().map({"true": True, "false": False})
    if mapped.isna().any():
        bad = s[mapped.isna()].unique()[:5].tolist()
        raise ValueError(f"{what}: {src.name} column {s.name!r} has non-boolean values {bad}")
    return mapped.astype(bool)


def _no_missing_text(df: pd.DataFrame, what: str, src: Path) -> None:
    n = int(df["text"].isna().sum())
    if n:
        raise ValueError(f"{what}: {src.name} has {n} rows with missing text; check the file")


def load_davidson(*, path: str | Path | None = None) -> pd.DataFrame:
    """Load the Davidson et al. (2017) hate/offensive/neither tweets.

    Parameters
    ----------
    path : str or Path, optional
        Read this ``labeled_data.csv`` directly instead of the data home's copy.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``tweet_id`` (the file's unnamed first column). Columns ``text``, ``toxic``
        (class 0 hate or 1 offensive), ``label`` (``hate`` / ``offensive`` / ``neither``), then
        ``count``, ``hate_speech``, ``offensive_language``, ``neither`` (coder votes) and
        ``class`` (the original code).

    Examples
    --------
    >>> df = load_davidson()  # doctest: +SKIP
    >>> df["label"].value_counts()["hate"]  # doctest: +SKIP
    1430
    """
    src = _resolve("davidson2017", "labeled_data.csv", path)
    raw = pd.read_csv(src, keep_default_na=False)
    cols = ["count", "hate_speech", "offensive_language", "neither", "class", "tweet"]
    _check_columns(raw, cols, "davidson2017", src)
    id_col = raw.columns[0]
    if id_col in cols:
        raise ValueError(f"davidson2017: {src.name} lacks the unnamed tweet-id first column")
    bad = ~raw["class"].isin(list(DAVIDSON_LABELS))
    if bad.any():
        vals = raw.loc[bad, "class"].unique()[:5].tolist()
        raise ValueError(f"davidson2017: class must be one of {list(DAVIDSON_LABELS)}, got {vals}")
    out = pd.DataFrame(
        {
            "text": raw["tweet"],
            "toxic": raw["class"].isin([0, 1]).astype(bool),
            "label": raw["class"].map(DAVIDSON_LABELS),
        }
    )
    for c in cols[:-1]:
        out[c] = raw[c]
    out.index = pd.Index(raw[id_col].to_numpy(), name="tweet_id")
    _no_missing_text(out, "davidson2017", src)
    logger.info("davidson2017: %d tweets from %s", len(out), src)
    return out


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
    _check_columns(raw, ["Text", "Label", "Template"], "dixon2018 templates", src)
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
    if not isinstance(fuzzed, bool):
        raise TypeError(f"fuzzed must be True or False, got {fuzzed!r}")
    name = "toxicity_fuzzed_testset.csv" if fuzzed else "toxicity_nonfuzzed_testset.csv"
    src = _resolve("dixon2018", name, path)
    raw = pd.read_csv(src, keep_default_na=False)
    _check_columns(raw, ["rev_id", "comment", "toxic"], "dixon2018 wiki test", src)
    out = pd.DataFrame(
        {
            "text": raw["comment"],
            "toxic": _as_bool(raw["toxic"], "dixon2018 wiki test", src),
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
    _check_choice("kind", kind, _POOL_FILES)
    src = _resolve("dixon2018", _POOL_FILES[kind], path)
    raw = pd.read_csv(src, sep="\t", keep_default_na=False, dtype={"rev_id": str})
    _check_columns(raw, ["rev_id", "comment", "is_toxic", "split"], "dixon2018 pool", src)
    out = pd.DataFrame(
        {
            "text": raw["comment"],
            "toxic": _as_bool(raw["is_toxic"], "dixon2018 pool", src),
            "rev_id": raw["rev_id"],
            "split": raw["split"],
        }
    )
    logger.info("dixon2018 %s pool: %d sentences from %s", kind, len(out), src)
    return out


def load_mlma(*, with_stop_words: bool = True, path: str | Path | None = None) -> pd.DataFrame:
    """Load the English part of the MLMA hate-speech dataset (Ousidhoum et al., 2019).

    Parameters
    ----------
    with_stop_words : bool, default True
        True: ``en_dataset_with_stop_words.csv`` (original casing and stop words, mentions and URLs
        replaced by ``@user`` / ``@URL``); False: ``en_dataset.csv`` (lower-cased, stop words
        removed). The two files' rows are not aligned; do not join them.
    path : str or Path, optional
        Read this CSV directly.

    Returns
    -------
    pandas.DataFrame
        Columns ``text``, ``toxic`` (``sentiment != 'normal'``: every tweet except those whose
        only hostility label is ``normal``), then ``hit_id``, ``sentiment`` (hostility types joined
        by ``_``), ``directness``, ``annotator_sentiment``, ``target`` (attribute, e.g. ``origin``)
        and ``group`` (target group, e.g. ``women``).

    Examples
    --------
    >>> df = load_mlma()  # doctest: +SKIP
    >>> int((~df["toxic"]).sum())  # doctest: +SKIP
    661
    """
    if not isinstance(with_stop_words, bool):
        raise TypeError(f"with_stop_words must be True or False, got {with_stop_words!r}")
    name = "en_dataset_with_stop_words.csv" if with_stop_words else "en_dataset.csv"
    src = _resolve("mlma_hate_speech", name, path)
    raw = pd.read_csv(src, keep_default_na=False)
    cols = ["HITId", "tweet", "sentiment", "directness", "annotator_sentiment", "target", "group"]
    _check_columns(raw, cols, "mlma_hate_speech", src)
    out = pd.DataFrame(
        {
            "text": raw["tweet"],
            "toxic": (raw["sentiment"] != "normal").astype(bool),
            "hit_id": raw["HITId"],
        }
    )
    for c in cols[2:]:
        out[c] = raw[c]
    logger.info("mlma_hate_speech: %d tweets from %s", len(out), src)
    return out


def load_jigsaw(path: str | Path, *, identity_threshold: float = 0.5) -> pd.DataFrame:
    """Load a Jigsaw "Unintended Bias in Toxicity Classification" file that you downloaded.

    The data (about 2M Civil Comments, Kaggle 2019) are not shipped with the project. Accepts
    ``train.csv`` (score column ``target``) and ``test_public_expanded.csv`` /
    ``test_private_expanded.csv`` / ``all_data.csv`` (score column ``toxicity``); gzip/zip
    compression is inferred from the file name. Only the needed columns are read.

    Parameters
    ----------
    path : str or Path
        The CSV file.
    identity_threshold : float, default 0.5
        A comment mentions an identity when the fraction of annotators who said so is at least
        this value (the competition's convention).

    Returns
    -------
    pandas.DataFrame
        Columns ``text`` (``comment_text``), ``toxic`` (score >= 0.5), ``id``, ``toxicity``
        (the fraction of raters who found it toxic), ``identity_annotated`` (False where the
        file has no identity labels for the row — those rows count as mentioning no identity)
        and one bool column per identity column present in the file (at least the nine scored
        by the competition: :data:`JIGSAW_REQUIRED_IDENTITY_COLUMNS`).

    Examples
    --------
    >>> df = load_jigsaw("train.csv")  # doctest: +SKIP
    >>> df.loc[df["muslim"], "toxic"].mean()  # doctest: +SKIP
    """
    try:
        threshold = float(identity_threshold)
    except (TypeError, ValueError):
        threshold = float("nan")
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"identity_threshold must be in (0, 1], got {identity_threshold!r}")
    src = Path(path)
    if not src.is_file():
        raise FileNotFoundError(
            f"jigsaw: file {str(src)!r} not found; download it from Kaggle's 'Jigsaw Unintended "
            "Bias in Toxicity Classification' competition and pass its path"
        )
    header = list(pd.read_csv(src, nrows=0).columns)
    score = next((c for c in ("target", "toxicity") if c in header), None)
    missing = [c for c in ("id", "comment_text") if c not in header]
    if score is None:
        missing.append("target (or toxicity)")
    missing += [c for c in JIGSAW_REQUIRED_IDENTITY_COLUMNS if c not in header]
    if missing:
        raise ValueError(
            f"jigsaw: {src.name} lacks columns {missing}; expected the Jigsaw Unintended Bias "
            "schema (id, comment_text, target or toxicity, identity columns such as male, female)"
        )
    identities = [c for c in JIGSAW_IDENTITY_COLUMNS if c in header]
    raw = pd.read_csv(
        src,
        usecols=["id", "comment_text", score, *identities],
        keep_default_na=False,
        na_values={c: [""] for c in [score, *identities]},
    )
    scores = pd.to_numeric(raw[score], errors="coerce")
    if scores.isna().any():
        raise ValueError(
            f"jigsaw: {src.name} has {int(scores.isna().sum())} rows without a numeric {score}"
        )
    ident = raw[identities].apply(pd.to_numeric, errors="coerce")
    out = pd.DataFrame(
        {
            "text": raw["comment_text"].astype(str),
            "toxic": (scores >= 0.5).astype(bool),
            "id": raw["id"],
            "toxicity": scores.astype(float),
            "identity_annotated": ident.notna().any(axis=1).astype(bool),
        }
    )
    for c in identities:
        out[c] = (ident[c] >= threshold).to_numpy(dtype=bool)  # NaN (not annotated) -> False
    logger.info("jigsaw: %d comments, %d identity columns from %s", len(out), len(identities), src)
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
    try:
        thr = float(threshold)
    except (TypeError, ValueError):
        thr = float("nan")
    if isinstance(threshold, bool) or not 0.0 <= thr <= 1.0:
        raise ValueError(f"threshold must be in [0, 1], got {threshold!r}")
    what = "wikipedia talk"
    c_src = _wiki_file(comments_path, "toxicity_annotated_comments.tsv")
    a_src = _wiki_file(annotations_path, "toxicity_annotations.tsv")
    comments = pd.read_csv(c_src, sep="\t", keep_default_na=False, dtype=str)
    _check_columns(comments, ["rev_id", "comment", "year", "split"], f"{what} comments", c_src)
    ann = pd.read_csv(a_src, sep="\t", keep_default_na=False, dtype=str)
    _check_columns(ann, ["rev_id", "worker_id", "toxicity"], f"{what} annotations", a_src)
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
