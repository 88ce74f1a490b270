"""Dialect proportions of tweets with the TwitterAAE demographic model (Blodgett et al., 2016).

The model of Blodgett, Green & O'Connor (2016) is a mixed-membership model with four
demographic "topics": African-American (AA), Hispanic, Asian and White. Its release holds, for
191,874 lower-cased tokens, the expected count of each token under each topic
(``model_count_table.txt.gz``, one row per line of ``model_vocab.txt.gz``). This module infers a
tweet's topic proportions from those counts, as the authors' ``predict.py`` is described to:

- word probabilities per topic ``phi[w, k] = (N[w, k] + 1) / sum_w' N[w', k]`` (the release's
  smoothing, used as is);
- the tweet's in-vocabulary tokens get responsibilities ``q[i, k]`` over the topics,
  initialised to ``q[i] ∝ phi[w_i]`` (the posterior of the token's topic under a uniform topic
  mixture), then updated by ``n_iter`` sequential collapsed variational Bayes (CVB0) passes:
  ``q[i, k] ∝ (n[k] - q[i, k] + alpha) * phi[w_i, k]`` with ``n = sum_i q[i]``;
- the returned proportions are the posterior mean ``(n[k] + alpha) / (n_tokens_in_vocab +
  4 * alpha)`` (the argmax is the same as that of ``n``);
- a tweet with no in-vocabulary token, or with less than ``min_coverage`` of its tokens in the
  vocabulary, gets no proportions (NaN) and a ``status`` saying why.

Tokenisation (:func:`tweet_tokens`) approximates the twokenize tokenizer the model was trained
with; it is our own and not byte-identical to it. The authors consider only the AA and White
proportions reliable.
"""

from __future__ import annotations

import gzip
import html
import logging
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int, check_number
from nlpbias.core.text import as_text_series
from nlpbias.data.store import resolve as _resolve

__all__ = [
    "DIALECTS",
    "DIALECT_LABELS",
    "DialectModel",
    "dialect_group",
    "load_dialect_model",
    "tweet_tokens",
]

logger = logging.getLogger(__name__)

#: The model's four topics, in the column order of the count table.
DIALECTS: tuple[str, ...] = ("aa", "hispanic", "asian", "white")

#: Group label of each topic used by :func:`dialect_group`.
DIALECT_LABELS: dict[str, str] = {
    "aa": "AA-aligned",
    "hispanic": "Hispanic-aligned",
    "asian": "Asian-aligned",
    "white": "white-aligned",
}

_COUNTS = "model_count_table.txt.gz"
_VOCAB = "model_vocab.txt.gz"
_BATCH = 2048  # texts per vectorised CVB0 batch (texts sorted by length first)

# --------------------------------------------------------------------------- tokenizer

# Removed before tokenising: URLs, @mentions and the retweet marker (the model's vocabulary has
# none of them, so they would only lower the coverage).
_MARKUP = re.compile(
    r"(?:https?://|www\.)[^\s\"'<>\u201c\u201d\u2018\u2019]+"  # URLs (up to a quote)
    r"|(?<!\w)@\w+:?"  # @mentions, with the colon of "RT @user:"
    r"|(?<![\w#@])rt(?!\w)",  # the retweet marker
    re.IGNORECASE,
)
_EMOJI = (
    "\U0001f000-\U0001faff\u2600-\u27bf\u2300-\u23ff\u2b00-\u2bff\u2190-\u21ff"
    "\u2900-\u297f\u3030\u303d\u3297\u3299\ufe0f\u200d"
)
_TOKEN = re.compile(
    "|".join(
        [
            r"(?:[^\W\d_]\.){2,}",  # abbreviations: u.s., a.m.
            r"\$?\d+(?:[.,:]\d+)+%?",  # numbers, prices and times: 1,000  $3.50  10:30
            r"#\w+",  # hashtags
            # emoticons: :) :-( ;p :'( (: <3 -_- ^.^
            r"[<>]?[:;=8][-o*'’]?[()\[\]dp/\\|@}{3]+(?![^\W\d_])",
            r"[()\[\]/\\|}{]+[-'’]?[:;=](?![^\W\d_])",
            r"<3+|[-^>o0x][._][-^<o0x](?!\w)",
            r"[^\W\d_]/(?!\w)",  # w/
            r"\$?\w+(?:['’&/*.$-]\w+)*",  # words, with inner ' ’ & / * . $ -: don't, at&t, b/c
            rf"[{_EMOJI}]+",  # runs of emoji (with variation selectors and joiners)
            r"[.!?]+",  # runs of sentence punctuation: ... ?! !!!
            r"(?P<p>[^\w\s])(?P=p)*",  # any other symbol, repeated: >>> ""
        ]
    )
)


def tweet_tokens(text: str) -> list[str]:
    """Tokenise a tweet the way the TwitterAAE vocabulary expects.

    Steps: HTML entities are decoded (``&amp;`` → ``&``, ``&#128514;`` → 😂; twice, for
    doubly escaped text); URLs, ``@mentions`` and the retweet marker ``RT`` are removed (the
    vocabulary has none of them); the text is lower-cased; then tokens are, in order of
    precedence: abbreviations (``u.s.``), numbers/prices/times (``$3.50``, ``10:30``), hashtags
    (``#ff``), common emoticons (``:)``, ``:'(``, ``<3``, ``-_-``), words with inner
    ``' ’ & / * . $ -`` (``don't``, ``don’t``, ``at&t``, ``b/c``), runs of emoji (``😂😂``,
    ``❤️``), runs of ``. ! ?`` (``...``, ``?!``) and runs of one other symbol (``>>>``).
    Whitespace is dropped. Typographic apostrophes are kept (the vocabulary has both
    ``don't`` and ``don’t``).

    This approximates the twokenize tokenizer the model was trained with; unlike it, an emoji
    glued to a word is split off (``lol😂`` gives ``lol`` and ``😂``).
    :func:`nlpbias.core.text.tokenize` is not used because it drops punctuation and emoji, which
    are in the vocabulary and carry dialect information.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of str

    Examples
    --------
    >>> tweet_tokens("RT @bob: I'm finna go &amp; eat!!! &#128514;&#128514; http://t.co/x #yum :)")
    ["i'm", 'finna', 'go', '&', 'eat', '!!!', '😂😂', '#yum', ':)']
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}; convert it first")
    text = html.unescape(html.unescape(text))
    text = _MARKUP.sub(" ", text).lower()
    return [m.group(0) for m in _TOKEN.finditer(text)]


# --------------------------------------------------------------------------- model


@dataclass(frozen=True, eq=False)
class DialectModel:
    """The TwitterAAE count table with its vocabulary; infers dialect proportions of texts.

    Load it with :func:`load_dialect_model`. Arrays are read-only because loaded models are
    cached and shared.

    Attributes
    ----------
    vocab : tuple of str
        The tokens, in the order of the count table's rows.
    counts : numpy.ndarray
        ``(len(vocab), 4)`` expected counts per topic, columns :data:`DIALECTS`.
    wordprobs : numpy.ndarray
        ``(counts + 1) / counts.sum(axis=0)``, the per-topic word probabilities used.
    index : dict
        Word → row of ``counts``.

    Examples
    --------
    >>> model = load_dialect_model()  # doctest: +SKIP
    >>> model.posterior(["he finna go"]).round(2)  # doctest: +SKIP
    """

    vocab: tuple[str, ...]
    counts: np.ndarray = field(repr=False)
    wordprobs: np.ndarray = field(init=False, repr=False)
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "vocab", tuple(self.vocab))
        counts = np.array(self.counts, dtype=float)  # a copy: it is made read-only below
        if counts.ndim != 2 or counts.shape[1] != len(DIALECTS):
            raise ValueError(f"counts must have shape (n_words, 4), got {counts.shape}")
        if counts.shape[0] != len(self.vocab):
            raise ValueError(
                f"counts has {counts.shape[0]} rows but the vocabulary has {len(self.vocab)} "
                "words; pass the matching count table and vocabulary"
            )
        if not np.isfinite(counts).all() or (counts < 0).any():
            raise ValueError("counts must be finite and non-negative; check the count table")
        totals = counts.sum(axis=0)
        if (totals <= 0).any():
            raise ValueError(f"every topic needs a positive total count, got {totals.tolist()}")
        index = {w: i for i, w in enumerate(self.vocab)}
        if len(index) != len(self.vocab):
            dup = pd.Series(self.vocab)[pd.Series(self.vocab).duplicated()].tolist()[:5]
            raise ValueError(f"the vocabulary repeats words {dup}; check the vocabulary file")
        probs = (counts + 1.0) / totals
        counts.setflags(write=False)
        probs.setflags(write=False)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "wordprobs", probs)
        object.__setattr__(self, "index", index)

    def __len__(self) -> int:
        return len(self.vocab)

    def posterior(
        self,
        texts: Iterable[str] | pd.Series,
        *,
        alpha: float = 1.0,
        n_iter: int = 5,
        min_coverage: float = 0.2,
    ) -> pd.DataFrame:
        """Infer the four dialect proportions of each text.

        Parameters
        ----------
        texts : iterable of str or pandas.Series
            Tweets (raw; see :func:`tweet_tokens`). A Series keeps its index.
        alpha : float, default 1.0
            Symmetric Dirichlet prior on a text's topic proportions (> 0).
        n_iter : int, default 5
            Number of sequential CVB0 passes over a text's tokens (≥ 0; 0 keeps the
            initialisation ``q[i] ∝ phi[w_i]``).
        min_coverage : float, default 0.2
            A text gets proportions only when at least this share of its tokens is in the
            vocabulary (and at least one is).

        Returns
        -------
        pandas.DataFrame
            One row per text: ``aa``, ``hispanic``, ``asian``, ``white`` (posterior mean
            proportions summing to 1, NaN when not inferred), ``n_tokens`` (tokens of
            :func:`tweet_tokens`), ``n_in_vocab``, ``coverage`` (``n_in_vocab / n_tokens``, NaN
            for a text without tokens) and ``status``: ``ok``, ``no_tokens``,
            ``no_vocab_tokens`` or ``low_coverage``.

        Examples
        --------
        >>> model = load_dialect_model()  # doctest: +SKIP
        >>> post = model.posterior(["ion even kno wat u talkin bout", "@x"])  # doctest: +SKIP
        >>> post["status"].tolist()  # doctest: +SKIP
        ['ok', 'no_tokens']
        """
        alpha = check_number(alpha, "alpha", low=0.0, high=math.inf, low_open=True, high_open=True)
        check_int(n_iter, "n_iter", minimum=0)
        cov_min = check_number(min_coverage, "min_coverage", low=0.0, high=1.0)
        s = as_text_series(texts)
        n = len(s)
        ids: list[np.ndarray] = []
        n_tokens = np.zeros(n, dtype=int)
        for i, text in enumerate(s.to_numpy()):
            toks = tweet_tokens(text)
            n_tokens[i] = len(toks)
            ids.append(np.fromiter((j for t in toks if (j := self.index.get(t)) is not None), int))
        n_in = np.fromiter((len(a) for a in ids), int, count=n)
        with np.errstate(invalid="ignore", divide="ignore"):
            coverage = np.where(n_tokens > 0, n_in / np.maximum(n_tokens, 1), np.nan)
        status = np.full(n, "ok", dtype=object)
        status[n_in == 0] = "no_vocab_tokens"
        status[(n_in > 0) & (coverage < cov_min)] = "low_coverage"
        status[n_tokens == 0] = "no_tokens"
        ok = np.flatnonzero(status == "ok")
        theta = np.full((n, len(DIALECTS)), np.nan)
        theta[ok] = _cvb0([ids[i] for i in ok], self.wordprobs, alpha, int(n_iter))
        out = pd.DataFrame(theta, index=s.index, columns=list(DIALECTS))
        out["n_tokens"] = n_tokens
        out["n_in_vocab"] = n_in
        out["coverage"] = coverage
        out["status"] = pd.Series(status, index=s.index, dtype=object)
        if len(ok) < n:
            logger.info(
                "twitteraae: no proportions for %d of %d texts (%s)",
                n - len(ok),
                n,
                out.loc[out["status"] != "ok", "status"].value_counts().to_dict(),
            )
        return out


def _cvb0(ids: Sequence[np.ndarray], wordprobs: np.ndarray, alpha: float, n_iter: int):
    """Sequential CVB0 per text, vectorised across texts padded to equal length."""
    k = wordprobs.shape[1]
    out = np.empty((len(ids), k))
    if not ids:
        return out
    lengths = np.fromiter((len(a) for a in ids), int, count=len(ids))
    order = np.argsort(lengths, kind="stable")
    for start in range(0, len(ids), _BATCH):
        rows = order[start : start + _BATCH]
        width = int(lengths[rows].max())
        mask = np.arange(width) < lengths[rows, None]  # (B, L)
        pad = np.zeros((len(rows), width), dtype=int)
        pad[mask] = np.concatenate([ids[r] for r in rows])
        phi = wordprobs[pad]  # (B, L, K); padded positions get row 0, zeroed via mask
        q = phi / phi.sum(axis=2, keepdims=True) * mask[:, :, None]
        nk = q.sum(axis=1)
        for _ in range(n_iter):
            for j in range(width):
                nk -= q[:, j]
                new = (nk + alpha) * phi[:, j]
                new /= new.sum(axis=1, keepdims=True)
                new *= mask[:, j, None]
                q[:, j] = new
                nk += new
        total = lengths[rows, None] + k * alpha
        out[rows] = (nk + alpha) / total
    return out


# --------------------------------------------------------------------------- loading


def _open_text(p: Path):
    return gzip.open(p, "rt", encoding="utf-8") if p.suffix == ".gz" else open(p, encoding="utf-8")


def _read_vocab(p: Path) -> tuple[str, ...]:
    words = []
    with _open_text(p) as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 2 or not parts[1]:
                raise ValueError(
                    f"twitteraae: {p.name} line {lineno} is {line.rstrip()!r}, expected "
                    "'count<TAB>word'; pass the model's model_vocab.txt(.gz)"
                )
            words.append(parts[1])
    return tuple(words)


def _read_counts(p: Path) -> np.ndarray:
    try:
        counts = pd.read_csv(p, sep=r"\s+", header=None, dtype=float).to_numpy()
    except (ValueError, pd.errors.ParserError) as err:
        msg = " ".join(str(err).split())
        raise ValueError(
            f"twitteraae: {p.name} is not a table of numbers ({msg}); pass the model's "
            "model_count_table.txt(.gz)"
        ) from err
    if counts.ndim != 2 or counts.shape[1] != len(DIALECTS):
        raise ValueError(
            f"twitteraae: {p.name} has {counts.shape[1]} columns, expected 4 (AA, Hispanic, "
            "Asian, White); pass the model's model_count_table.txt(.gz)"
        )
    return counts


def _in_folder(folder: Path, name: str) -> Path:
    for cand in (folder / name, folder / name.removesuffix(".gz")):
        if cand.is_file():
            return cand
    return folder / name  # resolve() raises the not-found error


@lru_cache(maxsize=4)
def _load(counts_path: Path, vocab_path: Path, stamp: tuple[int, ...]) -> DialectModel:
    del stamp  # part of the cache key only: a changed file is read again
    model = DialectModel(vocab=_read_vocab(vocab_path), counts=_read_counts(counts_path))
    logger.info("twitteraae: %d words from %s", len(model), counts_path.parent)
    return model


def load_dialect_model(*, path: str | Path | None = None) -> DialectModel:
    """Load the TwitterAAE demographic dialect model (cached after the first call).

    Parameters
    ----------
    path : str or Path, optional
        A folder with ``model_count_table.txt(.gz)`` and ``model_vocab.txt(.gz)`` in the
        original format (read directly, no checksum; e.g. a small fixture). By default the
        checksum-verified files of the ``twitteraae`` dataset in the data home.

    Returns
    -------
    DialectModel

    Examples
    --------
    >>> model = load_dialect_model()  # doctest: +SKIP
    >>> len(model)  # doctest: +SKIP
    191874
    """
    if path is None:
        counts_p = _resolve("twitteraae", _COUNTS)
        vocab_p = _resolve("twitteraae", _VOCAB)
    else:
        folder = Path(path)
        if not folder.is_dir():
            raise NotADirectoryError(
                f"twitteraae: {str(folder)!r} is not a folder; pass the folder that holds "
                f"{_COUNTS} and {_VOCAB}"
            )
        counts_p = _resolve("twitteraae", _COUNTS, _in_folder(folder, _COUNTS))
        vocab_p = _resolve("twitteraae", _VOCAB, _in_folder(folder, _VOCAB))
    counts_p, vocab_p = counts_p.resolve(), vocab_p.resolve()
    stamp = tuple(x for p in (counts_p, vocab_p) for x in (p.stat().st_size, p.stat().st_mtime_ns))
    return _load(counts_p, vocab_p, stamp)


# --------------------------------------------------------------------------- groups


def dialect_group(
    posterior: pd.DataFrame,
    *,
    groups: Sequence[str] = ("aa", "white"),
    min_proportion: float = 0.0,
) -> pd.Series:
    """Assign each text to the dialect with the largest proportion.

    Parameters
    ----------
    posterior : pandas.DataFrame
        The output of :meth:`DialectModel.posterior` (at least the columns :data:`DIALECTS`).
    groups : sequence of str, default ('aa', 'white')
        Dialects that get their own label (:data:`DIALECT_LABELS`, e.g. ``AA-aligned``,
        ``white-aligned``); a text whose argmax is another dialect is ``other``.
    min_proportion : float, default 0.0
        A text is labelled only if its largest proportion is at least this (e.g. 0.8 for a
        strict rule); otherwise it is ``other``.

    Returns
    -------
    pandas.Series
        Named ``dialect_group``, same index, no NaN: a label of ``groups``, ``other``, or
        ``unknown`` where the posterior has no proportions (its ``status`` column says why:
        no tokens, no or too few in-vocabulary tokens). Exact ties go to the first dialect in
        :data:`DIALECTS` order.

    Examples
    --------
    >>> post = pd.DataFrame({"aa": [0.7, 0.1, float("nan")], "hispanic": [0.1, 0.1, float("nan")],
    ...                      "asian": [0.1, 0.6, float("nan")], "white": [0.1, 0.2, float("nan")]})
    >>> dialect_group(post).tolist()
    ['AA-aligned', 'other', 'unknown']
    """
    if not isinstance(posterior, pd.DataFrame):
        raise TypeError(f"posterior must be a DataFrame, got {type(posterior).__name__}")
    missing = [c for c in DIALECTS if c not in posterior.columns]
    if missing:
        raise ValueError(
            f"posterior lacks columns {missing}; pass the output of DialectModel.posterior"
        )
    if isinstance(groups, str):
        raise TypeError(f"groups must be a list of dialects, not the single string {groups!r}")
    bad = [g for g in groups if g not in DIALECTS]
    if bad or not groups or len(set(groups)) != len(groups):
        raise ValueError(f"groups must be distinct dialects of {list(DIALECTS)}, got {groups!r}")
    threshold = check_number(min_proportion, "min_proportion", low=0.0, high=1.0)
    values = posterior[list(DIALECTS)].to_numpy(dtype=float)
    known = ~np.isnan(values).any(axis=1)
    part = np.isnan(values).any(axis=1) & ~np.isnan(values).all(axis=1)
    if part.any():
        raise ValueError(
            f"posterior has {int(part.sum())} rows with some but not all proportions missing; "
            "pass the unmodified output of DialectModel.posterior"
        )
    best = np.argmax(np.where(known[:, None], values, 0.0), axis=1)
    top = values[np.arange(len(values)), best]
    label_of = np.array([DIALECT_LABELS[d] if d in groups else "other" for d in DIALECTS])
    labels = np.where(known, label_of[best], "unknown").astype(object)
    labels[known & (top < threshold)] = "other"
    return pd.Series(labels, index=posterior.index, name="dialect_group", dtype=object)
