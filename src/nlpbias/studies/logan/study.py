"""The LOGAN study (Zhao & Chang, 2020): local group bias of a toxicity classifier, by clustering.

1. :func:`load_logan_data` — features, labels, predictions and group labels of the evaluation rows:
   on real data a MiniLM-based classifier trained on Davidson tweets, the groups by dialect
   (TwitterAAE) and by gendered words; on ``demo``/``smoke`` the synthetic stand-in of
   :mod:`nlpbias.studies.logan.synthetic` with one planted biased region. Real rows carry the
   feature sets asked for (``feature_sets``: the fine-tuned classifier's layer, the pretrained
   encoder's, :mod:`nlpbias.studies.logan.features`); :meth:`LoganData.with_features` picks one.
2. :func:`run_attribute` — for one attribute (two groups): λ selection, K-Means vs LOGAN (paper
   Tables 1 and 4), the permutation null of the largest cluster gap and random-split gaps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.cache import cached
from nlpbias.core.checks import check_choice, check_int
from nlpbias.core.repro import rng as _rng
from nlpbias.studies.logan.calibration import max_gap_null, random_split_gap
from nlpbias.studies.logan.cluster_tables import largest_gap_table, table2
from nlpbias.studies.logan.estimator import LOGAN
from nlpbias.studies.logan.features import check_feature_sets, feature_sets_for
from nlpbias.studies.logan.group_metrics import check_metric
from nlpbias.studies.logan.lloyd import RULES
from nlpbias.studies.logan.robustness import best_lams, lambda_path, seed_spread, spread_summary
from nlpbias.studies.logan.summaries import compare_with_kmeans, select_lambda
from nlpbias.studies.logan.topics import topic_words

__all__ = [
    "LoganData",
    "load_logan_data",
    "run_attribute",
    "table1",
    "topic_word_table",
]

#: The clusterings :func:`topic_word_table` can read.
METHODS_READ = ("K-Means", "LOGAN")

#: Name of the synthetic stand-in's one feature set.
SYNTHETIC_FEATURES = "synthetic"

#: The two groups compared for each attribute on real data (first = A1 in the gap A1 − A2).
ATTRIBUTES = {
    "race": ("white-aligned", "AA-aligned"),
    "gender": ("male", "female"),
}


@dataclass
class LoganData:
    """Evaluation rows of the study: features, labels, predictions, and group labels.

    ``features`` holds every feature set of the same rows (name → array, e.g. ``"fine-tuned"``
    and ``"pretrained"``: :mod:`nlpbias.studies.logan.features`); ``X`` is the one named
    ``feature_set``, the set every function clusters. :meth:`with_features` gives the same rows,
    labels and predictions with another set as ``X``. Built without ``features``, the data has
    one set, ``X`` itself, named ``feature_set`` (default ``"given"``).
    """

    X: np.ndarray
    y_true: np.ndarray
    y_pred: np.ndarray
    y_score: np.ndarray
    groups: dict[str, pd.Series]
    pairs: dict[str, tuple[str, str]]
    source: str
    texts: list[str] | None = None
    truth: Any = None
    notes: dict[str, str] = field(default_factory=dict)
    features: dict[str, np.ndarray] = field(default_factory=dict)
    feature_set: str = "given"

    def __post_init__(self) -> None:
        if not self.features:
            self.features = {self.feature_set: self.X}
        if self.feature_set not in self.features:
            raise ValueError(
                f"feature_set {self.feature_set!r} is not one of the features "
                f"{list(self.features)}; name the set that X is"
            )
        if self.features[self.feature_set] is not self.X:
            raise ValueError(
                f"X is not features[{self.feature_set!r}]; pass X=features[feature_set] "
                "(or use with_features to switch sets)"
            )
        n = len(self.y_true)
        bad = {k: len(v) for k, v in self.features.items() if len(v) != n}
        if bad:
            raise ValueError(f"feature sets {bad} (rows) do not match the {n} labels")

    def with_features(self, name: str) -> LoganData:
        """The same rows, labels, predictions and groups, with ``features[name]`` as ``X``.

        Examples
        --------
        >>> d = LoganData(X=np.zeros((2, 1)), y_true=np.zeros(2), y_pred=np.zeros(2),
        ...               y_score=np.zeros(2), groups={}, pairs={}, source="test")
        >>> d.with_features("given").X is d.X
        True
        >>> d.with_features("pretrained")
        Traceback (most recent call last):
        ...
        KeyError: "no feature set 'pretrained' in this data (test); it has ['given']"
        """
        if name not in self.features:
            hint = (
                " (the synthetic stand-in has one feature set; the pretrained and fine-tuned "
                "sets come from real data: use_data_home=True)"
                if self.source == "synthetic"
                else ""
            )
            raise KeyError(
                f"no feature set {name!r} in this data ({self.source}); it has "
                f"{list(self.features)}{hint}"
            )
        return replace(self, X=self.features[name], feature_set=name)

    def subset(self, attribute: str) -> dict[str, Any]:
        """Rows whose ``attribute`` group is one of its two compared values."""
        if attribute not in self.groups:
            raise KeyError(f"unknown attribute {attribute!r}; this data has {list(self.groups)}")
        a, b = self.pairs[attribute]
        keep = self.groups[attribute].isin([a, b]).to_numpy()
        return {
            "X": self.X[keep],
            "y_true": self.y_true[keep],
            "y_pred_or_score": self.y_pred[keep],
            "y_score": self.y_score[keep],
            "group": self.groups[attribute].to_numpy()[keep],
            "texts": None
            if self.texts is None
            else [t for t, k in zip(self.texts, keep, strict=True) if k],
            "index": np.flatnonzero(keep),
        }

    def fit_rows(self, attribute: str, metric: str) -> dict[str, Any]:
        """:meth:`subset` with ``y_pred_or_score`` what LOGAN's ``metric`` needs: the predicted
        labels for ``"accuracy"``, the scores for ``"auc"`` (``y_pred`` stays in ``"y_pred"``)."""
        rows = self.subset(attribute)
        rows["y_pred"] = rows["y_pred_or_score"]
        if check_metric(metric) == "auc":
            rows["y_pred_or_score"] = rows["y_score"]
        return rows

    def group_counts(self) -> pd.DataFrame:
        """Rows per attribute and group (all values, including those not compared)."""
        return (
            pd.concat(
                {a: g.value_counts() for a, g in self.groups.items()}, names=["attribute", "group"]
            )
            .rename("rows")
            .reset_index()
        )


@cached
def _classify(
    train_texts: list[str],
    train_y: list[int],
    test_texts: list[str],
    classifier: str,
    params: dict[str, Any],
    seed: int,
) -> dict[str, np.ndarray]:
    from nlpbias.studies.logan.finetune import FineTunedEncoderClassifier
    from nlpbias.studies.logan.frozen import FrozenEncoderClassifier

    cls = {"frozen": FrozenEncoderClassifier, "finetune": FineTunedEncoderClassifier}[classifier]
    clf = cls(random_state=seed, **params).fit(train_texts, np.asarray(train_y))
    proba, X = clf.predict_proba_and_features(test_texts)  # one pass over the test tweets
    return {"score": proba[:, 1], "X": X}


def load_logan_data(
    *,
    use_data_home: bool,
    max_rows: int | None,
    max_train: int | None,
    classifier: str,
    classifier_params: dict[str, Any] | None,
    n_synthetic: int,
    random_state: int | None,
    feature_sets: Sequence[str],
    test_fraction: float = 0.2,
) -> LoganData:
    """The study's evaluation rows (see the module docstring).

    ``max_rows`` (real data only): at most this many Davidson tweets, drawn at random before the
    train/test split (``None``: all of them); ``max_train``: at most this many of them train the
    classifier (``None``: the whole training split).

    ``feature_sets`` (real data): the feature sets of the rows, names of
    :data:`nlpbias.studies.logan.features.FEATURE_SETS` (``"fine-tuned"``: the classifier's own
    encoder; ``"pretrained"``: the frozen MiniLM, the paper's main-text features); the first is
    ``X``, the others are in ``features`` (:meth:`LoganData.with_features`). The predictions
    are the trained classifier's whatever the set; ``notes["features"]`` says which is which.
    The synthetic stand-in has one set, :data:`SYNTHETIC_FEATURES` (the names are checked, then
    not used). The classifier's run is cached (its key does not involve ``feature_sets``); the
    pretrained features are cached by :func:`~nlpbias.studies.logan.frozen.encoder_features`.
    """
    check_choice(classifier, "classifier", ("frozen", "finetune"))
    names = check_feature_sets(feature_sets)
    for value, name in ((max_rows, "max_rows"), (max_train, "max_train")):
        if value is not None:
            check_int(value, name, minimum=20)
    gen = _rng(random_state)
    if not use_data_home:
        from nlpbias.studies.logan.synthetic import make_local_bias_data

        d = make_local_bias_data(n_synthetic, random_state=gen)
        return LoganData(
            X=d["X"],
            y_true=d["y_true"],
            y_pred=d["y_pred"],
            y_score=d["y_score"],
            groups={"planted": pd.Series(d["group"], name="planted")},
            pairs={"planted": ("A", "B")},
            source="synthetic",
            truth=d,
            notes={
                "stand-in": "synthetic features with one planted biased region",
                "features": f"one feature set, {SYNTHETIC_FEATURES!r} (feature_sets "
                f"{list(names)} apply to real data)",
            },
            feature_set=SYNTHETIC_FEATURES,
        )
    from nlpbias.data.groups import gender_groups
    from nlpbias.data.splits import stratified_split
    from nlpbias.data.toxicity import load_davidson
    from nlpbias.data.twitteraae import dialect_group, load_dialect_model

    tweets = load_davidson()[["text", "toxic"]].reset_index(drop=True)
    if max_rows is not None and len(tweets) > max_rows:
        tweets = tweets.sample(n=max_rows, random_state=gen).reset_index(drop=True)
    train, test = stratified_split(tweets, test_fraction, gen)
    if max_train is not None and len(train) > max_train:
        train = train.sample(n=max_train, random_state=gen)
    texts = test["text"].tolist()
    out = _classify(
        train["text"].tolist(),
        train["toxic"].astype(int).tolist(),
        texts,
        classifier,
        dict(classifier_params or {}),
        int(gen.integers(2**31)),
    )
    y_true = test["toxic"].to_numpy(int)
    posterior = load_dialect_model().posterior(texts)
    features, features_note = feature_sets_for(
        texts, out["X"], classifier=classifier, classifier_params=dict(classifier_params or {}),
        feature_sets=names,
    )  # fmt: skip
    return LoganData(
        X=features[names[0]],
        y_true=y_true,
        y_pred=(out["score"] >= 0.5).astype(int),
        y_score=out["score"],
        groups={
            "race": dialect_group(posterior).reset_index(drop=True),
            "gender": gender_groups(texts).reset_index(drop=True),
        },
        pairs=dict(ATTRIBUTES),
        source="real",
        texts=texts,
        notes={
            "classifier": f"{classifier} MiniLM on {len(train):,} Davidson tweets",
            "features": features_note,
        },
        features=features,
        feature_set=names[0],
    )


def table1(kmeans: LOGAN, logan: LOGAN) -> pd.DataFrame:
    """The paper's Table 1: global accuracy of each group, and of the cluster with the largest
    gap for K-Means and for LOGAN (accuracy in %, bias = |gap| in points)."""
    return largest_gap_table(kmeans, logan, scale=100.0, prefix="acc")


def run_attribute(
    data: LoganData,
    attribute: str,
    *,
    n_clusters: int,
    lam_grid: tuple[float, ...],
    min_group_size: int,
    n_permutations: int,
    random_state: int | None,
    min_clusters: int = 5,
    n_init: int = 1,
    threshold: float = 5.0,
    metric: str = "accuracy",
    show_progress: bool = True,
) -> dict[str, Any]:
    """λ selection, K-Means vs LOGAN, the permutation null and random-split gaps for one attribute.

    ``metric`` is the per-group performance everything is computed with: LOGAN's objective,
    the clusters' gaps, λ selection, the permutation null and the random splits. ``"auc"``
    (the paper's Table 2 metric, subgroup AUC) uses the data's scores ``y_score``; every gap
    is then reported in points of AUC (``100 * gap``) except Table 2, which has the paper's
    units (AUC as a fraction).

    Returns
    -------
    dict
        ``lam`` (chosen), ``lambda_table``, ``table1`` (accuracy) or ``table2`` (AUC,
        :func:`~nlpbias.studies.logan.cluster_tables.table2`), ``table4``
        (:func:`nlpbias.studies.logan.summaries.compare_with_kmeans`), ``kmeans`` and ``logan``
        (fitted), ``null`` (NullResult), ``split_gaps``, ``metric`` and ``subset`` (the rows
        used, :meth:`LoganData.fit_rows`).
    """
    sub = data.fit_rows(attribute, metric)
    fit = {k: sub[k] for k in ("y_true", "y_pred_or_score", "group")}
    est = LOGAN(
        n_clusters=n_clusters,
        metric=metric,
        min_group_size=min_group_size,
        min_clusters=min_clusters,
        n_init=n_init,
        groups=data.pairs[attribute],
        random_state=random_state,
    )
    lam, lam_table = select_lambda(
        sub["X"], **fit, estimator=est, grid=lam_grid, threshold=threshold
    )
    est = est.set_params(lam=lam)
    kmeans = LOGAN(**{**est.get_params(), "lam": 0.0}).fit(sub["X"], **fit)
    logan = LOGAN(**est.get_params()).fit(sub["X"], **fit)
    table4 = compare_with_kmeans(sub["X"], **fit, estimator=est, threshold=threshold)
    null = max_gap_null(
        sub["X"],
        **fit,
        estimator=est,
        n_permutations=n_permutations,
        random_state=random_state,
        show_progress=show_progress,
    )
    splits = random_split_gap(
        sub["y_true"], sub["y_pred_or_score"], metric=metric, n_splits=5,
        random_state=random_state,
    )  # fmt: skip
    name, table = (
        ("table1", table1(kmeans, logan)) if metric == "accuracy"
        else ("table2", table2(kmeans, logan))
    )  # fmt: skip
    return {
        "lam": lam,
        "lambda_table": lam_table,
        name: table,
        "metric": metric,
        "table4": table4,
        "kmeans": kmeans,
        "logan": logan,
        "null": null,
        "split_gaps": splits,
        "subset": sub,
    }


def topic_word_table(
    runs: dict[str, dict[str, Any]],
    *,
    exclude: list[str] | tuple[str, ...] = (),
    n_words: int = 10,
    method: str = "LOGAN",
    random_state: int | None,
) -> pd.DataFrame:
    """Topic words of the most and the least biased eligible cluster of each attribute.

    ``runs`` maps an attribute to the output of :func:`run_attribute` (its subset must have
    texts); ``method`` picks the clustering read: ``"LOGAN"`` (the paper's Tables 3 and 7) or
    ``"K-Means"`` (Tables 5 and 6; the paper lists 20 words: ``n_words=20``). Returns
    ``attribute, method, cluster, which ('most biased'/'least biased'), gap_pts, words``; an
    attribute whose fit of that method is degenerate (``table4``'s ``degenerate``) is left out.
    """
    key = {"LOGAN": "logan", "K-Means": "kmeans"}[check_choice(method, "method", METHODS_READ)]
    rows = []
    for attr, r in runs.items():
        t4 = r.get("table4")
        if t4 is not None and "degenerate" in t4 and str(t4.loc[method, "degenerate"]):
            continue  # no usable λ: a degenerate fit's clusters are not read
        texts = r["subset"]["texts"]
        if texts is None:
            raise ValueError(f"{attr}: these rows have no texts (synthetic data); nothing to read")
        rep = r[key].cluster_report_.query("eligible")
        picks = {
            "most biased": rep.loc[rep["abs_gap"].idxmax()],
            "least biased": rep.loc[rep["abs_gap"].idxmin()],
        }
        words = topic_words(
            texts,
            r[key].labels_,
            clusters=[int(p["cluster"]) for p in picks.values()],
            n_words=n_words,
            exclude=list(exclude),
            random_state=random_state,
        )
        for which, p in picks.items():
            w = words[words["cluster"] == p["cluster"]].sort_values("rank")["word"]
            rows.append(
                {
                    "attribute": attr,
                    "method": method,
                    "cluster": int(p["cluster"]),
                    "which": which,
                    "gap_pts": 100 * float(p["gap"]),
                    "words": ", ".join(w),
                }
            )
    return pd.DataFrame(rows)


def run_robustness(
    data: LoganData,
    attribute: str,
    *,
    path_grid: tuple[float, ...],
    n_seeds: int,
    n_clusters: int,
    min_group_size: int,
    random_state: int | None,
    min_clusters: int = 5,
    metric: str = "accuracy",
    show_progress: bool = True,
) -> dict[str, Any]:
    """The λ path of both rules and the spread over k-means++ seeds for one attribute.

    ``metric`` as in :func:`run_attribute`. The exact rule has no AUC form, so with
    ``metric="auc"`` only the paper's rule is fitted (beside K-Means).

    Returns
    -------
    dict
        ``path`` (:func:`~nlpbias.studies.logan.robustness.lambda_path`), ``lams`` (the usable
        ``lam`` per rule with the most biased clusters), ``spread``
        (:func:`~nlpbias.studies.logan.robustness.seed_spread` at those ``lam``) and ``summary``
        (:func:`~nlpbias.studies.logan.robustness.spread_summary`).
    """
    sub = data.fit_rows(attribute, metric)
    est = LOGAN(
        n_clusters=n_clusters,
        metric=metric,
        min_group_size=min_group_size,
        min_clusters=min_clusters,
        groups=data.pairs[attribute],
        random_state=random_state,
    )
    rules = RULES if metric == "accuracy" else ("paper",)
    path = lambda_path(sub, estimator=est, grid=path_grid, rules=rules)
    lams = best_lams(path)
    spread = seed_spread(
        sub, lams=lams, estimator=est, n_seeds=n_seeds, show_progress=show_progress
    )
    return {"path": path, "lams": lams, "spread": spread, "summary": spread_summary(spread)}
