"""Do intrinsic bias metrics predict extrinsic bias? (Katô & Miyao, after Goldfarb-Tarrant et al.)

The study, as functions the notebook calls (the package ``__init__`` re-exports them):

1. :func:`~nlpbias.studies.intrinsic_extrinsic.grid.embedding_grid` — the list of embeddings:
   for each corpus and algorithm the original embedding, plus versions whose bias was modified
   with dataset balancing (:func:`nlpbias.studies.intrinsic_extrinsic.balancing.balance_corpus`,
   retrained) and Attract-Repel
   (:func:`nlpbias.studies.intrinsic_extrinsic.attract_repel.attract_repel`, post-processed),
   each driven by one *modification word set*: the word sets aligned with the extrinsic task
   ("extracted") or the merged generic WEAT sets ("weat"), as in the paper's Table 2
   (:mod:`nlpbias.studies.intrinsic_extrinsic.families`).
2. :func:`~nlpbias.studies.intrinsic_extrinsic.evaluation.evaluate_embedding` — one sweep task:
   build (or load from the cache) one embedding, then measure its intrinsic bias (WEAT effect
   size and signed RNSB, for every evaluation word set of its families) and its extrinsic bias
   (the downstream task trained on it with several seeds). :func:`run_study` (this module) runs
   all tasks through :func:`nlpbias.core.sweep.run_sweep`, each cached on disk.
3. :func:`~nlpbias.studies.intrinsic_extrinsic.correlation.correlations` — Spearman ρ between
   each intrinsic and each extrinsic metric over the embeddings of one (family, algorithm,
   modification set), with a two-sided permutation p-value;
   :func:`~nlpbias.studies.intrinsic_extrinsic.paper.paper_table` lays it out as the paper's
   Tables 3-10 with the paper's value beside ours.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from nlpbias.core.cache import cached
from nlpbias.core.sweep import process_pool
from nlpbias.studies.intrinsic_extrinsic.evaluation import evaluate_embedding
from nlpbias.studies.intrinsic_extrinsic.worker_memo import clear_memo

__all__ = ["run_study"]


@cached
def _evaluate_cached(**kwargs: Any) -> dict[str, Any]:
    """:func:`evaluate_embedding`, cached on disk (keyed by its arguments, this study's package
    and the shared layers, the project's data files and the library versions; see
    :mod:`nlpbias.core.cache`)."""
    return evaluate_embedding(**kwargs)


def run_study(
    grid: Sequence[Mapping[str, Any]],
    *,
    corpus_options: Mapping[str, Any],
    seeds_original: Sequence[int],
    seeds_modified: Sequence[int],
    task_options: Mapping[str, Mapping[str, Any]] | None,
    executor: str | Any,
    n_jobs: int | None,
    show_progress: bool = True,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """Evaluate every embedding of ``grid`` through :func:`nlpbias.core.sweep.run_sweep`.

    Two sweeps: first the original embeddings and the balanced ones (retrained on their own
    corpora), the slowest first; then the Attract-Repel ones, which modify the originals and so
    find them in the cache. With ``executor="process"`` both sweeps run on one pool of
    ``n_jobs`` worker processes (default ``os.cpu_count()``), which keep what tasks share in
    memory (:mod:`nlpbias.studies.intrinsic_extrinsic.worker_memo`). ``kwargs`` go to
    :func:`evaluate_embedding`. Each evaluation is cached on disk, keyed by its arguments, the
    sources of this study's package and of the shared layers, and the project's data files (see
    :mod:`nlpbias.core.cache`), so re-running the chapter after an edit to its notebook costs
    nothing, while an edit to any code or word set recomputes. The order in which tasks run does
    not change any result.

    Returns
    -------
    list of dict
        One :func:`evaluate_embedding` result per embedding: the originals, then the modified
        embeddings, each in grid order.
    """
    from nlpbias.core.sweep import run_sweep

    common = {
        "corpus_options": dict(corpus_options),
        "task_options": {k: dict(v) for k, v in (task_options or {}).items()},
        **kwargs,
    }
    originals = [s for s in grid if s["method"] == "original"]
    modified = [s for s in grid if s["method"] != "original"]
    tasks = [{"spec": s, "seeds": list(seeds_original), **common} for s in originals]
    tasks += [{"spec": s, "seeds": list(seeds_modified), **common} for s in modified]
    first = [i for i, t in enumerate(tasks) if t["spec"]["method"] != "attract_repel"]
    second = [i for i, t in enumerate(tasks) if t["spec"]["method"] == "attract_repel"]
    results: list[Any] = [None] * len(tasks)
    try:
        with _pool(executor, n_jobs, max(len(first), len(second))) as where:
            for order, desc in (
                (sorted(first, key=lambda i: _rank(tasks[i])), "originals and balancing"),
                (sorted(second, key=lambda i: _rank(tasks[i])), "attract-repel"),
            ):
                out = run_sweep(
                    _evaluate_cached,
                    [tasks[i] for i in order],
                    executor=where,
                    n_jobs=n_jobs,
                    show_progress=show_progress,
                    desc=desc,
                )
                for i, result in zip(order, out, strict=True):
                    results[i] = result
    finally:
        clear_memo()
    return results


def _rank(task: Mapping[str, Any]) -> tuple[int, int]:
    """Slowest first, so that no worker is left with a long task at the end of a sweep:
    originals (several downstream seeds), then fastText (about twice word2vec's training
    time), then hate speech (a CNN, slower than the coreference model)."""
    spec = task["spec"]
    return (
        spec["method"] != "original",
        (spec["algorithm"] != "fasttext") * 2 + (spec.get("family", "hsd") == "coref"),
    )


def _pool(executor: str | Any, n_jobs: int | None, n_tasks: int) -> Any:
    """One spawned process pool for both sweeps when ``executor`` is ``"process"`` (its workers
    keep the shared intermediates between the sweeps); else ``executor`` itself."""
    import contextlib

    if executor != "process":
        return contextlib.nullcontext(executor)
    workers = (os.cpu_count() or 1) if n_jobs is None else n_jobs
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"n_jobs must be a positive int, got {n_jobs!r}")
    if min(workers, n_tasks) <= 1:
        return contextlib.nullcontext("serial")
    return process_pool(min(workers, n_tasks))  # spawned, threads per worker limited
