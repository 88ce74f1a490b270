r"""Candidate words of a label by naive-Bayes PMI (Katô & Miyao, Section 3.2 and Appendix A).

Given texts with labels (hateful vs not, or the group a tweet belongs to), the words most
associated with each label are ranked by

.. math::

    \mathrm{PMI}(l, w) = \log_2 \frac{\theta_{l,w}}{\sum_{l'} \mu_{l'} \theta_{l',w}}

under a naive-Bayes generative model: a text gets label :math:`l` with probability
:math:`\mu_l` and its tokens are drawn from the label's unigram distribution
:math:`\theta_l`. Both are maximum-likelihood estimates, **not smoothed**:
:math:`\mu_l` = share of the texts with label :math:`l`, :math:`\theta_{l,w}` = occurrences of
:math:`w` in those texts / all their tokens. The paper (and Goldfarb-Tarrant et al. 2021, whose
procedure it follows) states no smoothing, and its tie rule only matters without one: every word
seen under one label only has the same, largest PMI :math:`-\log_2 \mu_l`, and frequency
decides among them. A word that never occurs under a label (PMI :math:`-\infty`) is never a
candidate of that label.

The rest of the procedure: words in fewer than ``min_df`` texts (10 in the paper) are dropped;
ties in PMI go to the word with more occurrences under the label, then alphabetical order; the
``top_k`` (40) best words of each label are the candidates from which word sets are chosen by
hand (see ``data/wordsets/selection/``).
"""

from __future__ import annotations

import html
import logging
import re
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml

from nlpbias.core.checks import check_int
from nlpbias.core.paths import data_file
from nlpbias.core.text import as_text_series, tokenize

__all__ = [
    "DAVIDSON_SETS",
    "clean_tweet",
    "davidson_candidates",
    "extract_pmi",
    "load_selection",
    "tweet_tokenize",
]

logger = logging.getLogger(__name__)

COLUMNS = ["label", "rank", "word", "pmi", "df", "count"]

# URLs, @mentions (with the colon of "RT @user:") and the retweet marker.
_MARKUP = re.compile(
    r"(?:https?://|www\.)\S+|(?<!\w)@\w+:?|(?<![\w#@])rt(?!\w)",
    re.IGNORECASE,
)


def clean_tweet(text: str) -> str:
    """Decode HTML entities and remove URLs, ``@mentions`` and the retweet marker ``RT``.

    The Katô & Miyao Twitter preprocessing replaces mentions and URLs by placeholder tokens;
    :func:`nlpbias.core.text.tokenize` would split a placeholder into an ordinary word, so they are
    removed instead. Entities are decoded twice (Davidson's tweets are partly double-escaped:
    ``&amp;#128514;``); emoji that appear then are dropped later by the tokenizer.

    Parameters
    ----------
    text : str

    Returns
    -------
    str

    Examples
    --------
    >>> " ".join(clean_tweet("RT @bob: you &amp; me http://t.co/x #win").split())
    'you & me #win'
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}; convert it first")
    return _MARKUP.sub(" ", html.unescape(html.unescape(text)))


def _sort_key(value: Any) -> tuple[int, Any]:
    return (
        (0, value) if isinstance(value, int | float | np.integer | np.floating) else (1, str(value))
    )


def extract_pmi(
    texts: Iterable[str] | pd.Series,
    labels: Iterable[Any],
    *,
    min_df: int = 10,
    top_k: int = 40,
    lowercase: bool = True,
    tokenizer: Callable[[str], list[str]] | None = None,
) -> pd.DataFrame:
    """Rank each label's words by naive-Bayes PMI and return the top candidates.

    Parameters
    ----------
    texts : iterable of str or pandas.Series
        The documents (tweets).
    labels : array-like
        One label per text (any hashable values, at least two distinct ones, no missing
        values).
    min_df : int, default 10
        Words occurring in fewer texts (over all labels) are not candidates. They still count
        in the label totals that normalise :math:`\\theta`.
    top_k : int, default 40
        Candidates kept per label (fewer when fewer words pass the filter).
    lowercase : bool, default True
        Lower-case the tokens (also those of a custom ``tokenizer``).
    tokenizer : callable, optional
        ``str -> list of str``; default :func:`nlpbias.core.text.tokenize`. Pass
        :func:`tweet_tokenize` for tweets (URLs, mentions and ``RT`` removed first).

    Returns
    -------
    pandas.DataFrame
        Columns ``label``, ``rank`` (1 = highest PMI), ``word``, ``pmi`` (bits), ``df`` (texts
        of any label containing the word) and ``count`` (occurrences of the word in the label's
        texts, the tie-breaker), sorted by label then rank. See the module docstring for the
        estimates (maximum likelihood, unsmoothed).

    Raises
    ------
    ValueError
        Lengths differ, fewer than two labels, missing labels, or no word passes ``min_df``.

    Examples
    --------
    >>> texts = ["you idiot", "stupid idiot", "nice day", "nice idea"]
    >>> extract_pmi(texts, ["hs", "hs", "ok", "ok"], min_df=1, top_k=1)[["label", "word", "pmi"]]
      label   word  pmi
    0    hs  idiot  1.0
    1    ok   nice  1.0
    """
    s = as_text_series(texts)
    if isinstance(labels, str | bytes):
        raise TypeError("labels must be an array of labels, not one string; wrap it in a list")
    lab = pd.Series(labels.to_numpy() if isinstance(labels, pd.Series) else list(labels))
    if len(lab) != len(s):
        raise ValueError(
            f"texts and labels differ in length ({len(s)} vs {len(lab)}); pass one label per text"
        )
    if lab.isna().any():
        raise ValueError(
            f"labels has {int(lab.isna().sum())} missing values; drop those texts first"
        )
    min_df = check_int(min_df, "min_df", minimum=1)
    top_k = check_int(top_k, "top_k", minimum=1)
    if not isinstance(lowercase, bool):
        raise TypeError(f"lowercase must be True or False, got {lowercase!r}")
    if tokenizer is not None and not callable(tokenizer):
        raise TypeError(f"tokenizer must be a callable str -> list of str, got {tokenizer!r}")
    classes = sorted(pd.unique(lab).tolist(), key=_sort_key)
    if len(classes) < 2:
        raise ValueError(f"labels must take at least 2 distinct values, got {classes}")

    counts: dict[Any, Counter] = {c: Counter() for c in classes}
    docs: Counter = Counter()
    for text, label in zip(s.to_numpy(), lab.to_numpy(), strict=True):
        if tokenizer is None:
            tokens = tokenize(text, lowercase=lowercase)
        else:
            tokens = list(tokenizer(text))
            if lowercase:
                tokens = [t.lower() for t in tokens]
        counts[label].update(tokens)
        docs.update(set(tokens))
    vocab = sorted(w for w, n in docs.items() if n >= min_df)
    if not vocab:
        raise ValueError(
            f"no word occurs in min_df={min_df} texts (most: {max(docs.values(), default=0)}); "
            "lower min_df or give more texts"
        )
    n_docs = len(lab)
    prior = lab.value_counts()
    totals = {c: sum(counts[c].values()) for c in classes}
    theta = np.array(
        [[counts[c][w] / totals[c] if totals[c] else 0.0 for w in vocab] for c in classes]
    )
    mu = np.array([prior[c] / n_docs for c in classes])
    mixture = mu @ theta  # > 0 for every word in vocab (it occurs somewhere)
    rows = []
    for i, c in enumerate(classes):
        seen = np.flatnonzero(theta[i] > 0)
        pmi = np.log2(theta[i, seen] / mixture[seen])
        cand = [(vocab[j], float(p), counts[c][vocab[j]]) for j, p in zip(seen, pmi, strict=True)]
        # round so that words tied in exact arithmetic (same ratio) tie in floating point
        cand.sort(key=lambda t: (-round(t[1], 12), -t[2], t[0]))
        for rank, (word, value, count) in enumerate(cand[:top_k], start=1):
            rows.append([c, rank, word, value, docs[word], count])
        if len(cand) < top_k:
            logger.info("pmi: label %r has only %d candidates (top_k=%d)", c, len(cand), top_k)
    out = pd.DataFrame(rows, columns=COLUMNS)
    out["rank"] = out["rank"].astype(int)
    out["df"] = out["df"].astype(int)
    out["count"] = out["count"].astype(int)
    logger.info(
        "pmi: %d texts, %d labels, %d of %d words in >= %d texts",
        n_docs,
        len(classes),
        len(vocab),
        len(docs),
        min_df,
    )
    return out


# --------------------------------------------------------------------------- Davidson candidates

#: Set names of the Davidson word sets (T1, T2, A1, A2), as in ``hsd_gender`` / ``hsd_race``.
DAVIDSON_SETS: dict[str, tuple[str, str, str, str]] = {
    "gender": ("male", "female", "hateful", "unhateful"),
    "race": ("white_aligned", "african_american_aligned", "unhateful", "hateful"),
}

_RACE_LABELS = {"white-aligned": "white_aligned", "AA-aligned": "african_american_aligned"}


def tweet_tokenize(text: str, *, lowercase: bool = True) -> list[str]:
    """:func:`nlpbias.core.text.tokenize` of :func:`clean_tweet` (the tokens of the tweet corpus).

    Examples
    --------
    >>> tweet_tokenize("RT @bob: He's &amp; I'm #blessed http://t.co/x")
    ["he's", "i'm", 'blessed']
    """
    return tokenize(clean_tweet(text), lowercase=lowercase)


def davidson_candidates(
    family: str,
    *,
    top_k: int = 40,
    min_df: int = 10,
    path: str | None = None,
) -> pd.DataFrame:
    """PMI candidate words of the Davidson tweets for the gender or race word sets.

    The closest feasible version of Katô & Miyao's Appendix A on Davidson et al. (2017), whose
    tweets have a hate label but no group label:

    - ``gender``: tweets are grouped by :func:`nlpbias.data.groups.gender_groups` (gendered
      words); the tweets with exactly one gender (``male`` or ``female``) are the gender data.
      Target candidates: PMI with the group; attribute candidates: PMI with ``hateful``
      (Davidson's hate or offensive, i.e. ``toxic``) vs ``unhateful`` (neither) on the same
      tweets.
    - ``race``: tweets are grouped by the TwitterAAE model
      (:func:`nlpbias.data.twitteraae.dialect_group`, argmax of the dialect proportions);
      ``white-aligned`` and ``AA-aligned`` tweets are the race data. Target candidates: PMI
      with the dialect group; attribute candidates as for gender. The column ``dialect`` gives
      each candidate word's own TwitterAAE argmax (the model run on the word alone, as the
      paper does to assign a race to a candidate; ``unknown`` when the word is not in the
      model's vocabulary).

    Tokens: :func:`tweet_tokenize` (URLs, mentions and ``RT`` removed, HTML entities decoded,
    then :func:`nlpbias.core.text.tokenize`: emoji and punctuation are dropped, unlike in the
    paper).

    Parameters
    ----------
    family : {'gender', 'race'}
    top_k : int, default 40
        Candidates per label.
    min_df : int, default 10
    path : str, optional
        Davidson's ``labeled_data.csv`` (default: the data home's copy).

    Returns
    -------
    pandas.DataFrame
        Columns ``role`` (``target`` / ``attribute``), ``set`` (the word-set name the label
        stands for: see :data:`DAVIDSON_SETS`), ``rank``, ``word``, ``pmi``, ``df``, ``count``
        (of :func:`extract_pmi`, computed on the group-labelled tweets), ``n_texts`` (tweets
        the PMI was computed on) and, for ``race``, ``dialect``.

    Examples
    --------
    >>> cand = davidson_candidates("gender")  # doctest: +SKIP
    >>> cand.query("set == 'male'")["word"].head(3).tolist()  # doctest: +SKIP
    ['he', 'his', 'man']
    """
    from nlpbias.data.toxicity import load_davidson

    if family not in DAVIDSON_SETS:
        raise ValueError(f"family must be one of {list(DAVIDSON_SETS)}, got {family!r}")
    tweets = load_davidson(path=path)
    texts = tweets["text"].reset_index(drop=True)
    hate = tweets["toxic"].reset_index(drop=True).map({True: "hateful", False: "unhateful"})
    if family == "gender":
        from nlpbias.data.groups import gender_groups

        group = gender_groups(texts)
        model = None
    else:
        from nlpbias.data.twitteraae import dialect_group, load_dialect_model

        model = load_dialect_model()
        group = dialect_group(model.posterior(texts)).map(_RACE_LABELS)
    keep = group.isin(DAVIDSON_SETS[family][:2]).to_numpy(dtype=bool)
    kw = {"min_df": min_df, "top_k": top_k, "tokenizer": tweet_tokenize}
    parts = []
    for role, labels in (("target", group), ("attribute", hate)):
        table = extract_pmi(texts[keep], labels[keep], **kw).rename(columns={"label": "set"})
        table.insert(0, "role", role)
        parts.append(table)
    out = pd.concat(parts, ignore_index=True)
    out["n_texts"] = int(keep.sum())
    if model is not None:
        from nlpbias.data.twitteraae import DIALECTS, dialect_group

        words = pd.Series(out["word"].unique())
        argmax = dialect_group(model.posterior(words), groups=DIALECTS)
        out["dialect"] = out["word"].map(dict(zip(words, argmax, strict=True)))
    order = {name: i for i, name in enumerate(DAVIDSON_SETS[family])}
    out["_o"] = out["set"].map(order)
    out = out.sort_values(["_o", "rank"]).drop(columns="_o").reset_index(drop=True)
    logger.info("davidson %s candidates: %d tweets with a group label", family, int(keep.sum()))
    return out


# --------------------------------------------------------------------------- selection records
_SELECTION_FIELDS = ("name", "family", "top_k", "min_df", "rules", "sets")
_DECISIONS = ("kept", "removed")


def load_selection(name: str, *, folder: str | Path | None = None) -> pd.DataFrame:
    """Read the record of a manual word selection (``data/wordsets/selection/<name>.yaml``).

    A selection file lists, for each of the four sets of a PMI-extracted word set, every
    candidate from rank 1 down to the last word chosen, with the decision (``kept`` or
    ``removed``) and the reason. Fields: ``name`` (the word set), ``family`` (argument of
    :func:`davidson_candidates`), ``top_k`` and ``min_df`` (of the candidate tables), ``rules``
    (the selection rules in words) and ``sets`` (set name -> ``role`` and ``decisions``, a list
    of ``{rank, word, pmi, decision, reason}``).

    Parameters
    ----------
    name : str
        E.g. ``'davidson_gender'``.
    folder : str or Path, optional
        Default ``data/wordsets/selection/``.

    Returns
    -------
    pandas.DataFrame
        Columns ``set``, ``role``, ``rank``, ``word``, ``pmi``, ``decision``, ``reason``, in file
        order; ``attrs`` holds ``name``, ``family``, ``top_k``, ``min_df`` and ``rules``.

    Examples
    --------
    >>> sel = load_selection("davidson_gender")
    >>> sel.query("set == 'male' and decision == 'kept'")["word"].tolist()[:3]
    ['he', 'man', 'him']
    """
    root = data_file("wordsets", "selection") if folder is None else Path(folder)
    available = sorted(p.stem for p in root.glob("*.yaml"))
    if name not in available:
        raise ValueError(f"selection must be one of {available}, got {name!r}")
    where = f"selection file {name}.yaml"
    spec = yaml.safe_load((root / f"{name}.yaml").read_text(encoding="utf-8"))
    missing = [f for f in _SELECTION_FIELDS if not isinstance(spec, dict) or f not in spec]
    if missing:
        raise ValueError(f"{where} lacks field(s) {missing}; required: {list(_SELECTION_FIELDS)}")
    if spec["name"] != name:
        raise ValueError(f"{where}: field 'name' is {spec['name']!r}, must be {name!r}")
    rows = []
    for set_name, entry in spec["sets"].items():
        if not isinstance(entry, dict) or entry.get("role") not in ("target", "attribute"):
            raise ValueError(f"{where}: set {set_name!r} needs role 'target' or 'attribute'")
        for d in entry.get("decisions") or []:
            if d.get("decision") not in _DECISIONS or not str(d.get("reason", "")).strip():
                raise ValueError(
                    f"{where}: set {set_name!r} word {d.get('word')!r} needs a decision "
                    f"in {list(_DECISIONS)} and a reason"
                )
            rows.append(
                [
                    set_name,
                    entry["role"],
                    int(d["rank"]),
                    str(d["word"]),
                    float(d["pmi"]),
                    d["decision"],
                    str(d["reason"]).strip(),
                ]  # fmt: skip
            )
    out = pd.DataFrame(rows, columns=["set", "role", "rank", "word", "pmi", "decision", "reason"])
    out.attrs = {k: spec[k] for k in ("name", "family", "top_k", "min_df", "rules")}
    return out
