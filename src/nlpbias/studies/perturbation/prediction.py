"""Can the biasing documents be predicted before training? (seed 004's stretch question)

Seed 004 asks whether particularly biasing texts share features and whether one can "predict
which texts will contribute significantly to the bias". Here a document is **biasing** for a test
when it is in the top ``top`` share of all documents by ``|ΔB|``. Only documents that contain a
word of the test can have ``ΔB ≠ 0``, so the question is asked among them; "contains the words"
is then the floor any predictor must beat.

Features, all available before any embedding is trained (:func:`document_features`):

- ``tokens``: the document's length (in-vocabulary tokens);
- ``target_1``, ``target_2``, ``attribute_1``, ``attribute_2``: occurrences of each list's words;
- ``pairs``: target-attribute token pairs within the co-occurrence window (the words of the
  test meeting in the document);
- ``topic_0`` … : the document's topic, as its coordinates on the first components of a latent
  semantic analysis (TF-IDF, truncated SVD; :func:`topic_features`), the same for every test.

The **baseline** scores a document by the count of the test's words alone (no fitting); the
**words** model is scikit-learn's gradient-boosted trees on the counts of each of the four lists
(still "contains the words", but which words); the **model** is the same trees on all features.
The trees are scored out of fold (stratified
k-fold, optionally keeping groups such as a book's blocks in one fold). Both are compared by ROC
AUC on the same documents, with a paired percentile bootstrap over documents for each AUC and for
their difference (:func:`predict_biasing`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from nlpbias.core.checks import check_int, check_number
from nlpbias.core.repro import rng as _rng
from nlpbias.studies.perturbation.bias_correlation import percentile_interval
from nlpbias.studies.perturbation.documents import Prepared
from nlpbias.studies.perturbation.influence import weat_index

__all__ = ["document_features", "predict_biasing", "prediction_sentence", "topic_features"]

_LISTS = ("target_1", "target_2", "attribute_1", "attribute_2")
_CHUNK = 100


def _document_of(prepared: Prepared) -> np.ndarray:
    """The document of every token of ``prepared.corpus.ids``."""
    offsets = prepared.corpus.offsets
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def topic_features(prepared: Prepared, *, n_topics: int, random_state: int) -> pd.DataFrame:
    """Each document's coordinates on the first ``n_topics`` LSA components (TF-IDF, SVD).

    Examples
    --------
    >>> from nlpbias.studies.perturbation.documents import prepare
    >>> docs = pd.DataFrame({"title": list("abcd"),
    ...                      "text": ["cat dog cat", "dog cat", "sun moon", "moon sun sun"]})
    >>> p = prepare(docs, min_count=1, window=2, max_size=None, show_progress=False)
    >>> topic_features(p, n_topics=1, random_state=0).shape
    (4, 1)
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfTransformer

    check_int(n_topics, "n_topics", minimum=1)
    corpus = prepared.corpus
    counts = sp.csr_matrix(
        (np.ones(corpus.ids.size), (_document_of(prepared), corpus.ids)),
        shape=(len(corpus), len(prepared.vocab)),
    )
    tfidf = TfidfTransformer(sublinear_tf=True).fit_transform(counts)
    k = min(n_topics, min(tfidf.shape) - 1)
    if k < 1:
        raise ValueError("too few documents or words for a topic model; use a larger corpus")
    svd = TruncatedSVD(n_components=k, random_state=random_state)
    values = svd.fit_transform(tfidf)
    return pd.DataFrame(values, columns=[f"topic_{i}" for i in range(k)])


def document_features(
    prepared: Prepared, wordset: str, *, max_missing: float, random_state: int
) -> pd.DataFrame:
    """Per-document counts of one test's words and their meetings (see the module docstring).

    Returns
    -------
    pandas.DataFrame
        One row per document: ``tokens``, ``target_1``, ``target_2``, ``attribute_1``,
        ``attribute_2``, ``test_words`` (their sum), ``pairs``.
    """
    idx = weat_index(wordset, prepared.vocab, max_missing=max_missing, random_state=random_state)
    corpus, window = prepared.corpus, prepared.window
    doc = _document_of(prepared)
    n_docs = len(corpus)
    out = {"tokens": np.diff(corpus.offsets).astype(np.int64)}
    lists = {}
    for name, positions in zip(_LISTS, idx.sets, strict=True):
        ids = idx.rows[positions]
        lists[name] = np.flatnonzero(np.isin(corpus.ids, ids))  # token positions
        out[name] = np.bincount(doc[lists[name]], minlength=n_docs)
    out["test_words"] = sum(out[name] for name in _LISTS)
    targets = np.sort(np.concatenate([lists["target_1"], lists["target_2"]]))
    attributes = np.sort(np.concatenate([lists["attribute_1"], lists["attribute_2"]]))
    # attribute tokens within `window` of each target token, inside the same document
    start = np.maximum(targets - window, corpus.offsets[doc[targets]])
    stop = np.minimum(targets + window, corpus.offsets[doc[targets] + 1] - 1)
    near = np.searchsorted(attributes, stop, side="right") - np.searchsorted(attributes, start)
    out["pairs"] = np.bincount(doc[targets], weights=near, minlength=n_docs).astype(np.int64)
    return pd.DataFrame(out)


def _weighted_auc(scores: np.ndarray, labels: np.ndarray, w: np.ndarray) -> np.ndarray:
    """ROC AUC of ``scores`` for each row of document counts ``w`` (B, n); ties count half.

    scikit-learn's ``roc_auc_score(..., sample_weight=w[b])`` gives the same number for one
    replicate; this computes all ``B`` replicates with one sort (the tests check the two agree).
    """
    order = np.argsort(scores, kind="stable")
    s, y, w = scores[order], labels[order], w[:, order]
    starts = np.r_[True, s[1:] != s[:-1]]
    first = np.flatnonzero(starts)
    neg = np.where(y, 0.0, w)
    pos = np.where(y, w, 0.0)
    neg_group = np.add.reduceat(neg, first, axis=1)
    below = np.cumsum(neg_group, axis=1) - neg_group  # negatives with a smaller score
    credit = below + neg_group / 2  # ties: half
    wins = (np.add.reduceat(pos, first, axis=1) * credit).sum(axis=1)
    total = pos.sum(axis=1) * neg.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, wins / total, np.nan)


def _out_of_fold(
    features: pd.DataFrame, y: np.ndarray, folds: Any, groups: Any, random_state: int
) -> np.ndarray:
    """Out-of-fold probability of gradient-boosted trees (scikit-learn) on ``features``."""
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.model_selection import cross_val_predict

    model = HistGradientBoostingClassifier(random_state=random_state)
    X = features.to_numpy(np.float64)
    return cross_val_predict(model, X, y, cv=folds, groups=groups, method="predict_proba")[:, 1]


def predict_biasing(
    tables: Mapping[str, pd.DataFrame],
    features: Mapping[str, pd.DataFrame],
    topics: pd.DataFrame,
    *,
    top: float,
    n_splits: int,
    n_resamples: int,
    random_state: int,
    groups: Any = None,
    level: float = 0.95,
) -> pd.DataFrame:
    """Out-of-fold AUC of the feature model against the word-count baseline, per test.

    Parameters
    ----------
    tables : mapping
        Test → per-document table with ``delta_b``.
    features : mapping
        Test → :func:`document_features` of the same documents.
    topics : pandas.DataFrame
        :func:`topic_features` of the same documents.
    top : float
        Share of all documents, by ``|ΔB|``, that counts as biasing (0.01: the top 1 %).
    n_splits : int
        Folds of the stratified cross-validation.
    n_resamples : int
        Bootstrap replicates over documents (paired: both scores on the same draws).
    random_state : int
    groups : array-like, optional
        A group label per document (e.g. the book of a Gutenberg block): the folds keep each
        group whole (stratified group k-fold), so the model is scored on books it has not seen
        and cannot win by recognising a book whose blocks it was trained on.
    level : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        One row per test: ``documents`` (with a word of the test), ``biasing`` (positives among
        them), the ROC AUC of three scores with ``*_low``/``*_high``: ``auc_baseline`` (the
        count of the test's words), ``auc_words`` (trees on the count of each list's words) and
        ``auc_model`` (trees on all features); ``gain`` = model − words (what the features
        *beyond* the words add) and ``gain_words`` = words − baseline, each with its interval;
        ``note`` (why a test has no AUC); ``attrs["top"]`` is ``top``.
    """
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    check_number(top, "top", low=0.0, high=0.5, low_open=True)
    check_int(n_splits, "n_splits", minimum=2)
    check_int(n_resamples, "n_resamples", minimum=1)
    n_docs = len(next(iter(tables.values()))) if tables else 0
    if groups is not None and len(groups) != n_docs:
        raise ValueError(f"groups has {len(groups)} labels for {n_docs} documents; give one each")
    rows = []
    for name, table in tables.items():
        if name not in features:
            raise ValueError(f"no document features for test {name!r}; compute document_features")
        delta = np.abs(table["delta_b"].to_numpy())
        k = max(1, math.floor(top * delta.size))
        biasing = np.zeros(delta.size, dtype=bool)
        biasing[np.argsort(-delta, kind="stable")[:k]] = True
        touch = delta != 0
        feats = pd.concat([features[name].reset_index(drop=True), topics], axis=1)[touch]
        y = biasing[touch]
        rec: dict[str, Any] = {"test": name, "documents": int(touch.sum()), "biasing": int(y.sum())}
        n_pos, n_neg = int(y.sum()), int((~y).sum())
        if min(n_pos, n_neg) < n_splits:
            rec["note"] = (
                f"{n_pos} biasing and {n_neg} other documents: too few for {n_splits}-fold "
                "cross-validation"
            )
            rows.append(rec)
            continue
        if groups is None:
            g, folds = None, StratifiedKFold(n_splits, shuffle=True, random_state=random_state)
        else:
            g = np.asarray(groups)[touch]
            if np.unique(g).size < n_splits:
                raise ValueError(
                    f"{np.unique(g).size} groups among the documents of {name!r}, fewer than "
                    f"n_splits={n_splits}; use fewer folds or no groups"
                )
            folds = StratifiedGroupKFold(n_splits, shuffle=True, random_state=random_state)

        scores = {
            "baseline": feats["test_words"].to_numpy(np.float64),
            "words": _out_of_fold(feats[[*_LISTS, "test_words"]], y, folds, g, random_state),
            "model": _out_of_fold(feats, y, folds, g, random_state),
        }
        ones = np.ones((1, y.size))
        gen = _rng(random_state)
        draws = {key: [] for key in scores}
        for start in range(0, n_resamples, _CHUNK):
            size = min(_CHUNK, n_resamples - start)
            pick = gen.integers(0, y.size, size=(size, y.size))
            flat = (pick + y.size * np.arange(size)[:, None]).ravel()
            w = np.bincount(flat, minlength=size * y.size).reshape(size, y.size).astype(float)
            for key, s in scores.items():
                draws[key].append(_weighted_auc(s, y, w))
        reps = {key: np.concatenate(v) for key, v in draws.items()}
        for key, s in scores.items():
            rec[f"auc_{key}"] = float(_weighted_auc(s, y, ones)[0])
            rec[f"auc_{key}_low"], rec[f"auc_{key}_high"] = percentile_interval(reps[key], level)
        rec["gain"] = rec["auc_model"] - rec["auc_words"]  # beyond the words
        rec["gain_low"], rec["gain_high"] = percentile_interval(
            reps["model"] - reps["words"], level
        )
        rec["gain_words"] = rec["auc_words"] - rec["auc_baseline"]  # the lists, not the total
        rec["gain_words_low"], rec["gain_words_high"] = percentile_interval(
            reps["words"] - reps["baseline"], level
        )
        rec["note"] = ""
        rows.append(rec)
    out = pd.DataFrame(rows).set_index("test")
    out.attrs["top"] = top
    return out


def prediction_sentence(result: pd.DataFrame, *, labels: Mapping[str, str] | None = None) -> str:
    """Whether features beyond "contains the words" help, in one paragraph.

    Examples
    --------
    >>> r = pd.DataFrame({"auc_model": [0.9], "auc_words": [0.85], "auc_baseline": [0.8],
    ...                   "gain": [0.05], "gain_low": [0.02], "gain_high": [0.1]}, index=["t"])
    >>> prediction_sentence(r)  # doctest: +NORMALIZE_WHITESPACE
    "Features beyond the test's words (length, target–attribute pairs, topic) help for 1 of 1
    test (the gain in AUC over the trees on the word counts has an interval above 0): t: count
    0.80, word counts 0.85, all features 0.90."
    """
    labels = dict(labels or {})
    ok = result[result["auc_model"].notna()] if "auc_model" in result else result.iloc[:0]
    if ok.empty:
        return "No test has enough biasing documents to train and evaluate a predictor here."
    helped = ok[ok["gain_low"] > 0]
    hurt = ok[ok["gain_high"] < 0]
    detail = "; ".join(
        f"{labels.get(t, t)}: count {r['auc_baseline']:.2f}, word counts {r['auc_words']:.2f}, "
        f"all features {r['auc_model']:.2f}"
        for t, r in ok.iterrows()
    )
    noun = "test" if len(ok) == 1 else "tests"
    out = (
        f"Features beyond the test's words (length, target–attribute pairs, topic) help for "
        f"{len(helped)} of {len(ok)} {noun} (the gain in AUC over the trees on the word counts "
        f"has an interval above 0): {detail}."
    )
    if len(hurt):
        out += f" For {len(hurt)} they make the prediction worse than the word counts alone."
    return out
