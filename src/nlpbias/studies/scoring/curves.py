"""Per-person learning curves of fine-tuning (seed 003's Figures 1–2): has a model converged?

Seed 003 watched the Trump model's training and validation accuracy and loss and stopped where
"validation accuracy flattened out prior to 10K steps", while a still rising training accuracy
showed overfitting. Here every person's fine-tuning, for every seed, can record its curves
(:class:`~nlpbias.studies.scoring.mlm.CurveSpec`, passed as ``record=`` to
:func:`~nlpbias.studies.scoring.seeds.fine_tune_seeds` or
:func:`~nlpbias.studies.scoring.mlm.fine_tune_mlm`): the training loss of every step and the
held-out loss and top-1 accuracy every ``eval_every`` steps on a fixed held-out sample.

- :func:`learning_curves` — the curves of every (person, seed) run as one tidy frame;
- :func:`curve_end_points` — per run, where the curves end: the last held-out top-1 and loss,
  the best held-out top-1 and its step, how far the held-out loss rose from its lowest point,
  and the mean training loss of the last evaluation interval.

The figure is :func:`nlpbias.studies.scoring.figures.person_curves_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from nlpbias.studies.scoring.mlm import CURVE_METRICS, FineTuneResult

__all__ = ["CURVE_COLUMNS", "curve_end_points", "learning_curves"]

#: The columns of :func:`learning_curves`.
CURVE_COLUMNS = ("person", "seed", "step", "metric", "value")


def learning_curves(runs: Mapping[str, Mapping[int, FineTuneResult]]) -> pd.DataFrame:
    """The learning curves of every (person, seed) run, one row per step and metric.

    Parameters
    ----------
    runs : mapping
        :func:`~nlpbias.studies.scoring.seeds.fine_tune_seeds` output, ``{person: {seed:
        FineTuneResult}}``, fine-tuned with ``record=CurveSpec(...)``.

    Returns
    -------
    pandas.DataFrame
        ``person, seed, step, metric, value`` (:data:`CURVE_COLUMNS`); ``metric`` is one of
        :data:`~nlpbias.studies.scoring.mlm.CURVE_METRICS`. People in the order of ``runs``,
        seeds ascending.
    """
    if not runs:
        raise ValueError("learning_curves: no runs; pass fine_tune_seeds' output")
    frames = []
    for person, by_seed in runs.items():
        for seed in sorted(by_seed):
            curves = by_seed[seed].curves
            if curves is None:
                raise ValueError(
                    f"learning_curves: {person!r}, seed {seed} was fine-tuned without recording "
                    "its curves; pass record=CurveSpec(eval_every=..., eval_blocks=...) to "
                    "fine_tune_seeds"
                )
            missing = [c for c in ("step", "metric", "value") if c not in curves.columns]
            if missing:
                raise KeyError(f"learning_curves: {person!r} seed {seed}'s curves lack {missing}")
            frame = curves[["step", "metric", "value"]].copy()
            frame.insert(0, "seed", int(seed))
            frame.insert(0, "person", str(person))
            frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    return out.astype({"step": int, "value": float})[list(CURVE_COLUMNS)]


def curve_end_points(curves: pd.DataFrame) -> pd.DataFrame:
    """Where each run's curves end, and whether the held-out numbers turned before the end.

    Parameters
    ----------
    curves : pandas.DataFrame
        :func:`learning_curves` output.

    Returns
    -------
    pandas.DataFrame
        One row per person and seed: ``steps`` (the last step), ``held-out top-1`` and
        ``held-out loss`` at the last step, ``best top-1`` and ``best step`` (the first step
        that reached it), ``loss rise`` (last held-out loss − its lowest; > 0: the held-out
        loss turned up, a sign of overfitting) and ``training loss`` (the mean training loss
        over the steps after the last-but-one evaluation: the steps of the last interval).

    Examples
    --------
    >>> c = pd.DataFrame({"person": "T", "seed": 0, "step": [0, 2, 4, 0, 2, 4, 1, 2, 3, 4],
    ...                   "metric": ["held-out top-1"] * 3 + ["held-out loss"] * 3
    ...                             + ["training loss"] * 4,
    ...                   "value": [0.1, 0.3, 0.2, 5.0, 4.0, 4.5, 6, 5, 4, 2]})
    >>> row = curve_end_points(c).iloc[0]
    >>> int(row["best step"]), float(row["loss rise"]), float(row["training loss"])
    (2, 0.5, 3.0)
    """
    missing = [c for c in CURVE_COLUMNS if c not in curves.columns]
    if missing:
        raise KeyError(f"curve_end_points: curves lack {missing}; pass learning_curves' output")
    if curves.empty:
        raise ValueError("curve_end_points: curves is empty; pass learning_curves' output")
    unknown = sorted(set(curves["metric"]) - set(CURVE_METRICS))
    if unknown:
        raise ValueError(f"curve_end_points: unknown metrics {unknown}; expected {CURVE_METRICS}")
    rows = []
    for (person, seed), run in curves.groupby(["person", "seed"], sort=False):
        metric = {m: sub.sort_values("step") for m, sub in run.groupby("metric")}
        absent = [m for m in CURVE_METRICS if m not in metric]
        if absent:
            raise ValueError(f"curve_end_points: {person!r} seed {seed} has no {absent}")
        top1, loss = metric["held-out top-1"], metric["held-out loss"]
        train = metric["training loss"]
        evaluated = top1["step"].to_numpy(int)
        after = evaluated[-2] if evaluated.size >= 2 else -1
        last = train[train["step"] > after]["value"].to_numpy(float)
        best = int(np.argmax(top1["value"].to_numpy(float)))
        rows.append(
            {"person": person, "seed": int(seed), "steps": int(train["step"].max()),
             "held-out top-1": float(top1["value"].iloc[-1]),
             "held-out loss": float(loss["value"].iloc[-1]),
             "best top-1": float(top1["value"].iloc[best]),
             "best step": int(top1["step"].iloc[best]),
             "loss rise": float(loss["value"].iloc[-1] - loss["value"].min()),
             "training loss": float(last.mean()) if last.size else np.nan}
        )  # fmt: skip
    return pd.DataFrame(rows)
