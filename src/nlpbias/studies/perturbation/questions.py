"""Seed 004's own questions, as the chapter's steps (issue 29).

Wajda-Levie & Kleinbart (seed 004) ask: (1) can we measure non-gender bias; (2) how does the bias
metric change when considering intersectional bias; (3) do particularly biasing texts share
features, and can we predict which texts will contribute to the bias; and they conclude that
gender and racial bias are "not strongly correlated" across documents. The functions here run
the book's answer to each on the chapter's corpus, model and ``ΔB`` tables:

- :func:`intersectional_tables` — every intersectional test beside its race and gender components
  on the chapter's GloVe and on a larger reference embedding (GloVe 6B 50d), because the corpus
  embeddings lack most of the tests' first names;
- :func:`test_areas` and :func:`relations` — the ``ΔB`` correlation between tests grouped by area
  (:mod:`~nlpbias.studies.perturbation.bias_correlation`), with a sentence that says when the
  corpus leaves too few tests to compare;
- :func:`compare_corpora` — the same tests on an older and a newer corpus (Gutenberg books and
  Wikipedia summaries), the poster's next step;
- :func:`reduction_sentence` — what the Table 6 analogue shows, by a rule stated before the run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.studies.perturbation.bias_correlation import area_correlations, pair_correlations
from nlpbias.studies.perturbation.documents import Prepared, load_documents, prepare
from nlpbias.studies.perturbation.effects import measure_tests
from nlpbias.studies.perturbation.glove import GloVe
from nlpbias.studies.perturbation.intersectional import intersectional_effects
from nlpbias.studies.perturbation.study import fit_glove

__all__ = [
    "CORPUS_NAMES",
    "NO_COMPARISON",
    "answers",
    "compare_corpora",
    "intersectional_tables",
    "reduction_sentence",
    "relations",
    "test_areas",
]

#: What the chapter says when :func:`compare_corpora` has no second corpus.
NO_COMPARISON = (
    "No second corpus in this run (`compare_source` is unset, is the chapter's own source, or "
    "is not in the data home), so there is no older-vs-newer comparison."
)
#: Display names of the corpora.
CORPUS_NAMES = {
    "wiki": "Wikipedia summaries (2020s)",
    "gutenberg": "Gutenberg books (before 1930)",
}


def intersectional_tables(
    model: GloVe,
    prepared: Prepared,
    tests: Sequence[str],
    *,
    reference: str | None,
    max_missing: float,
    n_permutations: int,
    n_bootstrap: int,
    random_state: int,
) -> dict[str, pd.DataFrame]:
    """The intersectional tests and their components on the chapter's GloVe and a reference.

    Parameters
    ----------
    model, prepared :
        The chapter's GloVe and corpus.
    tests : sequence of str
        Intersectional word sets (with ``components``).
    reference : {"glove-6b-50d", "wefe-word2vec-13k"} or None
        A pretrained embedding with a larger vocabulary (None: only the chapter's GloVe).

    Returns
    -------
    dict
        Embedding label → :func:`~nlpbias.studies.perturbation.intersectional.
        intersectional_effects`.
    """
    kw = {"max_missing": max_missing, "n_permutations": n_permutations,
          "n_bootstrap": n_bootstrap, "random_state": random_state}  # fmt: skip
    out = {"this chapter's GloVe": intersectional_effects(
        model.to_keyed_vectors(prepared.vocab), tests, **kw
    )}  # fmt: skip
    if reference:
        from nlpbias.models.embeddings import load_embeddings

        kv = load_embeddings([reference], max_docs=None, random_state=random_state)[reference]
        out[f"{reference} (reference)"] = intersectional_effects(kv, tests, **kw)
    return out


def test_areas(wordsets: Sequence[str]) -> dict[str, str]:
    """The area of bias of each word set (field ``area`` of its file).

    Examples
    --------
    >>> test_areas(["science_arts", "caliskan_weat3"])
    {'science_arts': 'gender', 'caliskan_weat3': 'race'}
    """
    from nlpbias.data.wordsets import load_wordset

    out = {}
    for name in wordsets:
        area = load_wordset(name).area
        if area is None:
            raise ValueError(
                f"word set {name!r} has no area of bias; add 'area: <gender|race|...>' to "
                f"data/wordsets/{name}.yaml"
            )
        out[name] = area
    return out


def relations(
    tables: Mapping[str, pd.DataFrame], *, n_resamples: int, random_state: int
) -> tuple[pd.DataFrame, pd.DataFrame | None, str]:
    """The ``ΔB`` correlations between the usable tests, their area means and a sentence.

    Returns
    -------
    (pairs, means, sentence)
        :func:`~nlpbias.studies.perturbation.bias_correlation.pair_correlations` (empty with
        fewer than two tests), :func:`~nlpbias.studies.perturbation.bias_correlation.
        area_correlations` (None when the tests do not give both a within-area and an
        across-area pair), and what they show, in one paragraph.
    """
    names = list(tables)
    if len(names) < 2:
        return (
            pd.DataFrame(),
            None,
            f"Only {len(names)} test is usable in this vocabulary, so no two tests can be "
            "correlated: the question needs a corpus that holds the words of tests from "
            "several areas of bias.",
        )
    areas = test_areas(names)
    pairs = pair_correlations(
        tables, areas=areas, n_resamples=n_resamples, random_state=random_state
    )
    counts = pd.Series(areas).value_counts()
    kinds = ", ".join(f"{n} {a}" for a, n in counts.items())
    try:
        means = area_correlations(pairs)
    except ValueError as exc:
        return pairs, None, f"The usable tests ({kinds}) cannot be correlated here: {exc}."

    def mean(key: str, stat: str = "pearson") -> str:
        m = means.loc[key]
        return f"{m[stat]:.3f} [{m[f'{stat}_low']:.3f}, {m[f'{stat}_high']:.3f}]"

    parts = []
    for key in ("within area", "across areas"):
        n = int(means.loc[key, "pairs"])
        if n:
            parts.append(f"{mean(key)} for the {n} pair(s) {key.replace('areas', 'areas of bias')}")
        else:
            parts.append(f"no pair {key.replace('areas', 'areas of bias')} (usable tests: {kinds})")
    sentence = "Over the documents that touch both tests, the mean Pearson r of ΔB is " + (
        " and ".join(parts) + "."
    )
    if int(means.loc["within − across", "pairs"]):
        sentence += (
            f" The difference, within minus across, is {mean('within − across')}; Spearman's ρ "
            f"gives {means.loc['within area', 'spearman']:.3f} within and "
            f"{means.loc['across areas', 'spearman']:.3f} across."
        )
    else:
        sentence += " So the poster's comparison of the two cannot be made on this corpus."
    shared = pairs.loc[pairs["same_area"] & pairs["pearson"].notna(), "shared_words"]
    if len(shared) and (shared > 0).all():
        sentence += (
            " Every within-area pair shares words (e.g. the same gender terms), so part of its "
            "correlation is built in by the lists: a document with *he* moves both tests."
        )
    return pairs, means, sentence


def compare_corpora(
    model: GloVe,
    prepared: Prepared,
    source: str,
    *,
    other: str | None,
    wordsets: Sequence[str],
    min_count: int,
    max_vocab: int | None,
    window: int,
    parts: Sequence[int],
    block_tokens: int,
    glove: Mapping[str, Any],
    max_missing: float,
    n_permutations: int,
    n_bootstrap: int,
    random_state: int,
    show_progress: bool = True,
) -> pd.DataFrame | None:
    """The same tests on the chapter's corpus and on ``other`` (older vs newer text).

    The other corpus is prepared with the chapter's vocabulary rule and window and fitted with
    the same GloVe parameters and seed (cached), so only the text differs — and its size, which
    the table's ``tokens`` column gives.

    Returns
    -------
    pandas.DataFrame or None
        One row per (corpus, wordset): :func:`~nlpbias.studies.perturbation.effects.
        measure_tests`'s columns and ``tokens``; None when ``other`` is None or the chapter's
        own source (nothing to compare), or its documents are not available (the data home).
    """
    if other is None or other == source:
        return None
    try:
        docs = load_documents(other, parts=parts, block_tokens=block_tokens, max_documents=None)
    except FileNotFoundError:
        return None
    second = prepare(
        docs, min_count=min_count, max_size=max_vocab, window=window, show_progress=show_progress
    )
    other_model = fit_glove(second, show_progress=show_progress, **glove)
    kw = {"max_missing": max_missing, "n_permutations": n_permutations,
          "n_bootstrap": n_bootstrap, "random_state": random_state}  # fmt: skip
    frames = []
    for name, (m, p) in {source: (model, prepared), other: (other_model, second)}.items():
        t = measure_tests(m.to_keyed_vectors(p.vocab), wordsets, **kw).reset_index()
        t.insert(0, "corpus", CORPUS_NAMES.get(name, name))
        t["tokens"] = p.corpus.n_tokens
        frames.append(t)
    return pd.concat(frames, ignore_index=True).set_index(["corpus", "wordset"])


def reduction_sentence(table: pd.DataFrame) -> str:
    """What the Table 6 analogue shows, by the rule stated in the chapter.

    The rule: removing the top documents lowers a test's bias beyond chance when its
    ``delta_effect_sizes`` is positive and larger than the random control's.

    Examples
    --------
    >>> idx = pd.MultiIndex.from_product([["reduced", "random"], ["a", "b"]],
    ...                                  names=["reduction", "wordset"])
    >>> t = pd.DataFrame({"delta_effect_sizes": [0.4, 0.1, 0.05, 0.2],
    ...                   "effect_sizes_ratio": [0.5, 0.1, 0.06, 0.2], "n_removed": 9},
    ...                  index=idx)
    >>> reduction_sentence(t)  # doctest: +NORMALIZE_WHITESPACE
    'Removing the 9 most bias-increasing documents (the top of every test together) lowers the
    effect size of 1 of 2 tests by more than removing 9 random documents does (median
    effect_sizes_ratio 0.30 against 0.13 for the random control).'
    """
    red, rnd = table.xs("reduced"), table.xs("random")
    better = (red["delta_effect_sizes"] > 0) & (
        red["delta_effect_sizes"] > rnd["delta_effect_sizes"]
    )
    n = int(red["n_removed"].iloc[0])
    out = (
        f"Removing the {n:,} most bias-increasing documents (the top of every test together) "
        f"lowers the effect size of {int(better.sum())} of {len(red)} tests by more than "
        f"removing {n:,} random documents does (median effect_sizes_ratio "
        f"{np.median(red['effect_sizes_ratio']):.2f} against "
        f"{np.median(rnd['effect_sizes_ratio']):.2f} for the random control)."
    )
    negative = int((red["B_full"] < 0).sum()) if "B_full" in red else 0
    if negative:
        out += (
            f" For {negative} of the tests the full corpus's effect size is already negative "
            "(the anti-stereotypical direction): lowering it makes its size larger, and its "
            "ratio is negative."
        )
    return out


def answers(
    *,
    baseline: pd.DataFrame,
    skipped: pd.DataFrame,
    intersectional: Mapping[str, pd.DataFrame],
    means: pd.DataFrame | None,
    prediction: pd.DataFrame | None,
    alpha: float = 0.05,
) -> pd.DataFrame:
    """Seed 004's four questions, each with this run's number and a one-word answer.

    Parameters
    ----------
    baseline : pandas.DataFrame
        :func:`~nlpbias.studies.perturbation.study.baseline_table` of the usable tests.
    skipped : pandas.DataFrame
        The word sets the vocabulary could not test (``usable_wordsets``' second value).
    intersectional : mapping
        :func:`intersectional_tables`.
    means : pandas.DataFrame or None
        :func:`~nlpbias.studies.perturbation.bias_correlation.area_correlations`.
    prediction : pandas.DataFrame or None
        :func:`~nlpbias.studies.perturbation.prediction.predict_biasing`.
    alpha : float, default 0.05
        Level of the permutation tests for question 1.

    Returns
    -------
    pandas.DataFrame
        Index: the four questions; columns ``answer`` (yes / no / partly / not testable here;
        for question 1 also "measured, not significant": a testable non-gender test whose
        permutation test does not reject at ``alpha``) and ``evidence`` (the numbers).
    """
    from nlpbias.studies.perturbation.intersectional import intersectional_summary

    rows = {}
    areas = test_areas(list(baseline.index)) if len(baseline) else {}
    non_gender = [t for t, a in areas.items() if a not in ("gender", "non-social")]
    lost = [w for w in skipped.get("wordset", []) if w not in areas]
    if non_gender:
        sig = [t for t in non_gender if baseline.loc[t, "p_value"] < alpha]
        detail = "; ".join(
            f"{t}: d = {baseline.loc[t, 'effect_size']:.2f}, p = {baseline.loc[t, 'p_value']:.2g}"
            for t in non_gender
        )
        rows["1. Can we measure non-gender bias?"] = (
            "yes" if sig else "measured, not significant",
            f"{len(non_gender)} non-gender test(s) testable on the corpus ({detail}); "
            f"{len(sig)} significant at {alpha:g}",
        )
    else:
        rows["1. Can we measure non-gender bias?"] = (
            "not testable here",
            f"no race or intersectional test survives the vocabulary ({len(lost)} word sets lost "
            "their words, listed in the word-set table)",
        )
    parts, answer = [], "not testable here"
    for label, effects in intersectional.items():
        summary = intersectional_summary(effects)
        ok = summary[summary["exceeds_both"].notna()]
        if len(ok):
            k = int(ok["exceeds_both"].astype(bool).sum())
            parts.append(f"{label}: {k} of {len(ok)} testable tests exceed both components")
            answer = "partly" if 0 < k < len(ok) else ("yes" if k else "no")
        else:
            parts.append(f"{label}: no intersectional test testable")
    rows["2. Does the bias metric change for intersectional bias?"] = (answer, "; ".join(parts))
    if (
        prediction is not None
        and "auc_model" in prediction
        and prediction["auc_model"].notna().any()
    ):
        ok = prediction[prediction["auc_model"].notna()]
        above = int((ok["auc_model_low"] > 0.5).sum())
        helped = int((ok["gain_low"] > 0).sum())
        words = "auc_words" in ok.columns
        rows["3. Can we predict which texts contribute to the bias?"] = (
            "partly" if 0 < above < len(ok) else ("yes" if above else "no"),
            "ROC AUC (count of test words / trees on each list's count / trees on all features): "
            + "; ".join(
                f"{t} {r['auc_baseline']:.2f} / "
                + (f"{r['auc_words']:.2f} / " if words else "")
                + f"{r['auc_model']:.2f}"
                for t, r in ok.iterrows()
            )
            + f"; above chance for {above} of {len(ok)} tests; features beyond the words "
            f"(length, pairs, topic) help for {helped}",
        )  # fmt: skip
    else:
        rows["3. Can we predict which texts contribute to the bias?"] = (
            "not testable here", "too few biasing documents for a cross-validated predictor"
        )  # fmt: skip
    if means is not None and int(means.loc["across areas", "pairs"]):
        w, a = means.loc["within area"], means.loc["across areas"]
        rows["4. Are gender and racial bias correlated across documents?"] = (
            "no" if a["pearson_high"] < 0.10 else ("yes" if a["pearson_low"] > 0.10 else "partly"),
            f"mean Pearson r of ΔB within an area {w['pearson']:.3f} [{w['pearson_low']:.3f}, "
            f"{w['pearson_high']:.3f}], across areas {a['pearson']:.3f} "
            f"[{a['pearson_low']:.3f}, {a['pearson_high']:.3f}]",
        )
    else:
        rows["4. Are gender and racial bias correlated across documents?"] = (
            "not testable here", "the usable tests give no pair across areas of bias"
        )  # fmt: skip
    out = pd.DataFrame(rows, index=["answer", "evidence"]).T
    out.index.name = "seed 004's question"
    return out
