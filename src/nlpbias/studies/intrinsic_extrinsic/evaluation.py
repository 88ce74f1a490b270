"""One embedding's intrinsic and extrinsic bias: the sweep task of the study.

:func:`evaluate_embedding` builds (or loads from the cache) one embedding of the grid, then
measures its intrinsic bias (WEAT effect size and signed RNSB, for every evaluation word set of
its families) and its extrinsic bias (the downstream task, coreference or hate-speech detection,
trained on it with several seeds).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from nlpbias.studies.intrinsic_extrinsic.families import FAMILIES, check_families, evaluation_sets
from nlpbias.studies.intrinsic_extrinsic.grid import build_embedding
from nlpbias.studies.intrinsic_extrinsic.worker_memo import memo

__all__ = ["evaluate_embedding", "task_data"]


def _intrinsic(kv: Any, wordset: str, *, ddof: int, rnsb_runs: int, max_missing: float) -> dict:
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import as_query
    from nlpbias.metrics.rnsb import rnsb_signed
    from nlpbias.metrics.weat import weat_effect_size

    vec = as_query(load_wordset(wordset)).vectors(
        kv, oov="drop", max_missing=max_missing, lowercase=True, random_state=0
    )
    weat = weat_effect_size(vec.T1, vec.T2, vec.A1, vec.A2, ddof=ddof)
    rnsb = rnsb_signed(vec.T1, vec.T2, vec.A1, vec.A2, n_runs=rnsb_runs, random_state=0)
    return {"weat": float(weat), "rnsb": float(rnsb.score)}


_COREF_DATA = ("source", "train_splits", "test_split", "winobias_split")
_HSD_DATA = ("split_state", "max_rows")


def task_data(task: str, params: Mapping[str, Any]) -> Any:
    """The downstream task's data for ``params``, loaded once per process (see
    :mod:`nlpbias.studies.intrinsic_extrinsic.worker_memo`)."""
    if task == "coref":
        from nlpbias.studies.intrinsic_extrinsic.coref import coref_data

        args = {k: params[k] for k in _COREF_DATA if k in params}
        if "train_splits" in args and not isinstance(args["train_splits"], str):
            args["train_splits"] = tuple(args["train_splits"])
        return memo(("coref_data", *sorted(args.items())), lambda: coref_data(**args))
    from nlpbias.studies.intrinsic_extrinsic.hsd import hsd_data

    split_state, max_rows = params.get("split_state", 0), params.get("max_rows")
    return memo(
        ("hsd_data", split_state, max_rows),
        lambda: hsd_data(random_state=split_state, max_rows=max_rows),
    )


def _extrinsic(task: str, kv: Any, seed: int, params: Mapping[str, Any]) -> dict[str, float]:
    """Flat dict of the task's group differences for one trained model."""
    if "data" not in params:
        params = {**params, "data": task_data(task, params)}
    if task == "coref":
        from nlpbias.studies.intrinsic_extrinsic.coref import evaluate_coref

        out = evaluate_coref(kv, random_state=seed, **params)
    else:
        from nlpbias.studies.intrinsic_extrinsic.hsd import evaluate_hsd

        out = evaluate_hsd(kv, random_state=seed, **params)
    flat = {str(k): float(v) for k, v in out["gaps"].items()}
    if task == "coref":  # how good the model is, beside how biased
        for group in ("overall", "masculine", "feminine"):
            flat[f"task_f1_{group}"] = float(out["gap"].loc[group, "f1"])
    else:
        flat["task_f1_overall"] = float(out["overall"]["f1"])
    return flat


def evaluate_embedding(
    spec: Mapping[str, Any],
    *,
    corpus_options: Mapping[str, Any],
    seeds: Sequence[int],
    task_options: Mapping[str, Mapping[str, Any]] | None,
    ddof: int = 0,
    rnsb_runs: int = 10,
    max_missing: float = 0.5,
) -> dict[str, Any]:
    """One sweep task: build an embedding, then measure its intrinsic and extrinsic bias.

    Parameters
    ----------
    spec : dict
        One entry of :func:`embedding_grid`; an original embedding is scored for each family
        in its ``families``.
    corpus_options : dict
        See :func:`build_embedding`.
    seeds : list of int
        Seeds of the downstream models trained on this embedding (the paper: 10 for the
        original embedding, one for the others).
    task_options : dict, optional
        Keyword arguments per task (``{"coref": {...}, "hsd": {...}}``).
    ddof : int, default 0
        WEAT's standard-deviation convention (0: Katô & Miyao / WEFE).
    rnsb_runs : int, default 10
        Logistic regressions averaged by the signed RNSB (the paper: 10).
    max_missing : float, default 0.5
        Largest share of a word set that may be missing from the vocabulary.

    Returns
    -------
    dict
        ``spec`` (the spec), ``intrinsic`` (list of records: family, wordset, metric, value),
        ``skipped`` (word sets too far out of the vocabulary to measure: family, wordset,
        reason — their column is left out of the correlations),
        ``modification_oov`` (terms of the modification set that Attract-Repel could not
        change, absent from the embedding; empty for other methods),
        ``extrinsic`` (list of records: seed, metric name, value), ``vocab_size`` and
        ``seconds``.
    """
    start = time.perf_counter()
    kv = build_embedding(spec, corpus_options=corpus_options)
    built = time.perf_counter() - start
    if spec["method"] == "original":
        fams = check_families(spec["families"])
    else:
        fams = [FAMILIES[spec["family"]]]
    from nlpbias.metrics.query import OutOfVocabularyError

    intrinsic, skipped = [], []
    for fam in fams:
        modset = None if spec["method"] == "original" else spec["modset"]
        for column, wordset in evaluation_sets(fam, modset).items():
            try:
                vals = _intrinsic(
                    kv, wordset, ddof=ddof, rnsb_runs=rnsb_runs, max_missing=max_missing
                )
            except OutOfVocabularyError as exc:  # recorded, and the column left out
                skipped.append({"family": fam.name, "wordset": column, "reason": str(exc)})
                continue
            for metric, value in vals.items():
                intrinsic.append(
                    {"family": fam.name, "wordset": column, "metric": metric, "value": value}
                )
    task = fams[0].task
    params = dict((task_options or {}).get(task, {}))
    extrinsic = []
    for seed in seeds:
        for name, value in _extrinsic(task, kv, int(seed), params).items():
            extrinsic.append({"seed": int(seed), "metric": name, "value": value})
    return {
        "spec": dict(spec),
        "intrinsic": intrinsic,
        "skipped": skipped,
        "extrinsic": extrinsic,
        "modification_oov": list(getattr(kv, "ar_info", {}).get("oov", [])),
        "vocab_size": len(kv.key_to_index),
        "build_seconds": built,
        "seconds": time.perf_counter() - start,
    }
