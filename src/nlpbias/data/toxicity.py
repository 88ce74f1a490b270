"""Loaders for toxicity / hate-speech datasets in one common schema: Davidson, MLMA, Jigsaw.

Every loader returns a :class:`pandas.DataFrame` whose first two columns are ``text`` (str) and
``toxic`` (bool), followed by the source's own columns (snake_case). Files come from the data home
through :func:`nlpbias.data.store.path` (checksum-verified); pass ``path=`` to read a file
directly instead (no registry, no checksum), e.g. a small fixture in the source's schema.

Dixon et al.'s (2018) files and the Wikipedia Talk corpus are loaded by :mod:`nlpbias.data.dixon`.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from nlpbias.core.checks import check_bool, check_number
from nlpbias.data.file_checks import check_columns, check_text_present
from nlpbias.data.store import resolve as _resolve

__all__ = [
    "DAVIDSON_LABELS",
    "JIGSAW_IDENTITY_COLUMNS",
    "JIGSAW_REQUIRED_IDENTITY_COLUMNS",
    "load_davidson",
    "load_jigsaw",
    "load_mlma",
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
    check_columns(raw, cols, "davidson2017", src)
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
    check_text_present(out, "davidson2017", src)
    logger.info("davidson2017: %d tweets from %s", len(out), src)
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
    check_bool(with_stop_words, "with_stop_words")
    name = "en_dataset_with_stop_words.csv" if with_stop_words else "en_dataset.csv"
    src = _resolve("mlma_hate_speech", name, path)
    raw = pd.read_csv(src, keep_default_na=False)
    cols = ["HITId", "tweet", "sentiment", "directness", "annotator_sentiment", "target", "group"]
    check_columns(raw, cols, "mlma_hate_speech", src)
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
    threshold = check_number(
        identity_threshold, "identity_threshold", low=0.0, high=1.0, low_open=True
    )
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
