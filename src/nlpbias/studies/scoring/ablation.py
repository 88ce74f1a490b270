"""Which fine-tuning choices move a person's score more than the seeds do (seed 003, Figure 3).

Dong fine-tuned the Trump model many ways before settling on one: "filtering out hyperlinks,
increasing steps (from 10K to 40K), using the momentum optimizer, changing learning rates,
freezing weights (only training the dense layer) [...] adding additional dense layers, and
removing the next_sentence_loss term". She compared them by validation accuracy (her Figure 3),
not by the bias they lead to. Here each choice that applies to a masked-LM-only model is one row
of an ablation, and each row is fine-tuned with several seeds and scored like the chapter's
models, so that a choice's effect on the person's bias can be set beside the seed-to-seed noise:

- :class:`AblationSpec` — the person, the seeds, the step budget and the rows (each row a set of
  changes to the chapter's fine-tuning recipe; the first row is the reference);
- :func:`run_ablation` — fine-tune and score every row and seed;
- :func:`ablation_table` — per row: held-out top-1, the bias per seed and its mean, and the
  paired difference from the reference row (same seed: same batch order, masks and dropout),
  with the chapter's seed rule (:func:`~nlpbias.studies.scoring.seeds.exceeds_seed_spread`)
  applied to it;
- :func:`ablation_statements` — which choices move the score beyond the seeds, in words.

Removing the next-sentence loss is not a row: no model here has a next-sentence head, so every
row already trains the masked-LM loss alone — the setting Dong found best.

The figure is :func:`nlpbias.studies.scoring.figures.ablation_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from nlpbias.core.checks import check_int
from nlpbias.studies.scoring.mlm import fine_tune_many
from nlpbias.studies.scoring.seeds import (
    check_seeds,
    concept_biases,
    exceeds_seed_spread,
    seed_runs,
)
from nlpbias.studies.scoring.study import PEOPLE, Framework, score_models

__all__ = [
    "CHANGES",
    "AblationSpec",
    "ablation_statements",
    "ablation_table",
    "paired_differences",
    "run_ablation",
    "training_progress",
]

#: What a row may change, and what each change does.
CHANGES = {
    "links": "true: train on the posts with their hyperlinks (Dong's with_links files)",
    "max_steps": "optimiser steps (the ablation's budget otherwise)",
    "learning_rate": "peak learning rate",
    "optimiser": "'adamw' or 'momentum' (SGD, momentum 0.9)",
    "train": "'all' weights or the masked-LM 'head' dense layer only",
    "extra_head_layers": "dense layers added to the head (start as the identity)",
    "epochs": "passes over the training posts",
}


@dataclass(frozen=True)
class AblationSpec:
    """An ablation: ``rows`` (name -> changes to the recipe; the first is the reference), run
    on ``person`` with ``seeds``, every row capped at ``max_steps`` steps unless it changes them.
    """

    person: str
    seeds: tuple[int, ...]
    max_steps: int | None
    rows: dict[str, dict[str, Any]]

    @classmethod
    def from_mapping(cls, spec: Mapping[str, Any]) -> AblationSpec:
        """Check a parameters-cell ``ablation`` dict and build the spec (errors name the key).

        Examples
        --------
        >>> AblationSpec.from_mapping({"person": "Trump", "seeds": [0, 1], "max_steps": 40,
        ...     "rows": {"as the chapter": {}, "links kept": {"links": True}}}).rows["links kept"]
        {'links': True}
        """
        if not isinstance(spec, Mapping):
            raise TypeError(f"ablation must be a dict (or None), got {spec!r}")
        need = ["person", "seeds", "max_steps", "rows"]
        missing = [k for k in need if k not in spec]
        extra = [k for k in spec if k not in need]
        if missing or extra:
            raise KeyError(f"ablation: missing {missing}, unknown {extra}; it needs exactly {need}")
        person = spec["person"]
        if not isinstance(person, str) or not person:
            raise TypeError(f"ablation person must be a name, e.g. 'Trump', got {person!r}")
        max_steps = spec["max_steps"]
        if max_steps is not None:
            check_int(max_steps, "ablation max_steps", minimum=1)
        rows = spec["rows"]
        if not isinstance(rows, Mapping) or len(rows) < 2:
            raise ValueError(
                "ablation rows must be a dict of 2 rows at least (name -> changes), the first "
                f"the reference with no changes ({{}}), got {rows!r}"
            )
        out: dict[str, dict[str, Any]] = {}
        for name, changes in rows.items():
            if not isinstance(changes, Mapping):
                raise TypeError(f"ablation row {name!r} must be a dict of changes, got {changes!r}")
            unknown = [k for k in changes if k not in CHANGES]
            if unknown:
                raise KeyError(
                    f"ablation row {name!r}: unknown change {unknown}; choose from {list(CHANGES)}"
                )
            out[str(name)] = dict(changes)
        first = next(iter(out))
        if out[first]:
            raise ValueError(
                f"ablation: the first row ({first!r}) is the reference and must change nothing "
                f"({{}}), got {out[first]}"
            )
        return cls(person, tuple(check_seeds(spec["seeds"])), max_steps, out)

    @property
    def reference(self) -> str:
        """The first row's name."""
        return next(iter(self.rows))


def _row_corpus(spec: AblationSpec, changes: Mapping[str, Any], train: list[str]) -> list[str]:
    """The training posts of a row: the person's, or (``links``) the same posts with links."""
    if not changes.get("links"):
        return train
    if spec.person not in PEOPLE:
        raise ValueError(
            f"ablation: 'links' needs one of Dong's people {sorted(PEOPLE)} (her corpora come "
            f"with and without links); {spec.person!r} has no version with links"
        )
    from nlpbias.data.corpora import load_personal_corpus

    stem = PEOPLE[spec.person]
    with_links = load_personal_corpus(stem, split="train", links=True, drop_empty=True)
    whole = load_personal_corpus(stem, split="train", drop_empty=True)
    # the chapter's first posts only (max_posts): as many posts with links
    return with_links if len(train) >= len(whole) else with_links[: len(train)]


def run_ablation(
    base: str,
    corpora: Mapping[str, tuple[list[str], list[str] | None]],
    spec: AblationSpec,
    fws: Sequence[Framework],
    *,
    recipe: Mapping[str, Any],
    random_state: int,
    n_jobs: int,
    show_progress: bool = True,
) -> pd.DataFrame:
    """Fine-tune and score every row of ``spec`` with every seed.

    Each row's recipe is the chapter's (``recipe``, the ``fine_tune`` parameters) with
    ``max_steps`` set to the spec's and then the row's changes applied. The validation posts are
    the person's for every row (so held-out accuracies compare), and the seed of a row reaches
    everything that fine-tuning draws (:func:`~nlpbias.studies.scoring.seeds.fine_tune_seeds`):
    the same seed in two rows that train on the same posts draws the same batches, masks and
    dropout. A person without validation posts has them held out once, with ``random_state``,
    by :func:`~nlpbias.studies.scoring.seeds.fine_tune_seeds`. Models are cached on disk; every
    row and seed is one job of :func:`~nlpbias.studies.scoring.mlm.fine_tune_many`, ``n_jobs``
    at a time.

    Returns
    -------
    pandas.DataFrame
        ``row, seed, concept, bias, base, top-1, steps``: one line per row, seed and concept
        (``average`` included), rows in the order of the spec; ``base`` is the base model's
        bias and ``top-1`` the held-out masked-token accuracy after fine-tuning.
        ``attrs["reference"]`` names the reference row.
    """
    if spec.person not in corpora:
        raise KeyError(
            f"ablation person {spec.person!r} is not among this run's people {list(corpora)}; "
            "add them to `people`, or set ablation = None"
        )
    train, val = corpora[spec.person]
    base_of = concept_biases(score_models({"base": base}, fws), fws).set_index("concept")["bias"]
    planned = []
    for name, changes in spec.rows.items():
        row_recipe = {**recipe, "max_steps": spec.max_steps}
        row_recipe.update({k: v for k, v in changes.items() if k != "links"})
        posts = _row_corpus(spec, changes, list(train))
        planned += [
            (name, seed, run)
            for _, seed, run in seed_runs(
                base,
                {spec.person: (posts, val)},
                seeds=spec.seeds,
                random_state=random_state,
                **row_recipe,
            )  # fmt: skip
        ]
    results = fine_tune_many(
        [run for _, _, run in planned], n_jobs=n_jobs, show_progress=show_progress
    )
    frames = []
    for (name, seed, _), result in zip(planned, results, strict=True):
        b = concept_biases(score_models({name: str(result.path)}, fws), fws)
        b = b.rename(columns={"model": "row"})
        b.insert(1, "seed", int(seed))
        b["base"] = b["concept"].map(base_of)
        b["top-1"] = float(result.after["top1"])
        b["steps"] = int(result.steps)
        frames.append(b)
    out = pd.concat(frames, ignore_index=True)
    out.attrs["reference"] = spec.reference
    out.attrs["person"] = spec.person
    return out


def paired_differences(results: pd.DataFrame, concept: str = "average") -> pd.DataFrame:
    """Each row's bias minus the reference row's, seed by seed, on ``concept``.

    Returns
    -------
    pandas.DataFrame
        ``row, seed, concept, difference`` for every row but the reference.
    """
    need = ["row", "seed", "concept", "bias"]
    missing = [c for c in need if c not in results.columns]
    if missing:
        raise KeyError(f"paired_differences: results lack {missing}; pass run_ablation's output")
    reference = results.attrs.get("reference") or str(results["row"].iloc[0])
    sub = results[results["concept"] == concept]
    if sub.empty:
        raise ValueError(f"paired_differences: no concept {concept!r} in the results")
    wide = sub.pivot(index="seed", columns="row", values="bias")
    if reference not in wide.columns:
        raise ValueError(f"paired_differences: no reference row {reference!r} in the results")
    if wide.isna().any().any():
        raise ValueError("paired_differences: a row lacks a seed that another has; run them all")
    rows = [r for r in dict.fromkeys(sub["row"]) if r != reference]
    diff = wide[rows].sub(wide[reference], axis=0)
    out = diff.reset_index().melt(id_vars="seed", var_name="row", value_name="difference")
    out.insert(2, "concept", concept)
    order = {r: i for i, r in enumerate(rows)}
    out = out.sort_values(["row", "seed"], key=lambda s: s.map(order) if s.name == "row" else s)
    return out[["row", "seed", "concept", "difference"]].reset_index(drop=True)


def ablation_table(results: pd.DataFrame, *, concept: str = "average") -> pd.DataFrame:
    """Per row: steps, held-out top-1, the bias per seed, its mean and range, and the paired
    difference from the reference row with the chapter's seed rule.

    A choice *moves the score beyond the seeds* when the mean over seeds of the paired
    differences (row − reference, same seed) is farther from 0 than their range
    (:func:`~nlpbias.studies.scoring.seeds.exceeds_seed_spread`, the rule the chapter applies
    to a person against the base model).

    Returns
    -------
    pandas.DataFrame
        Indexed by row: ``steps``, ``top-1`` (mean over seeds), ``bias seed S``, ``mean bias``,
        ``range``, ``mean Δ`` and ``range Δ`` (vs the reference; empty on the reference row)
        and ``moves`` (True/False; None on the reference row).
    """
    need = ["row", "seed", "concept", "bias", "top-1", "steps"]
    missing = [c for c in need if c not in results.columns]
    if missing:
        raise KeyError(f"ablation_table: results lack {missing}; pass run_ablation's output")
    sub = results[results["concept"] == concept]
    if sub.empty:
        raise ValueError(f"ablation_table: no concept {concept!r} in the results")
    reference = results.attrs.get("reference") or str(results["row"].iloc[0])
    diffs = paired_differences(results, concept)
    seeds = sorted(sub["seed"].unique().tolist())
    rows = []
    for name, part in sub.groupby("row", sort=False):
        by_seed = part.set_index("seed")
        b = by_seed.loc[seeds, "bias"].to_numpy(float)
        row: dict[str, Any] = {"row": name, "steps": int(by_seed["steps"].iloc[0]),
                               "top-1": float(by_seed["top-1"].mean())}  # fmt: skip
        row.update({f"bias seed {s}": float(v) for s, v in zip(seeds, b, strict=True)})
        row["mean bias"] = float(b.mean())
        row["range"] = float(b.max() - b.min())
        d = diffs.loc[diffs["row"] == name, "difference"].to_numpy(float)
        several = d.size >= 2
        row["mean Δ"] = float(d.mean()) if d.size else np.nan
        row["range Δ"] = float(d.max() - d.min()) if several else np.nan
        row["moves"] = exceeds_seed_spread(d) if several and name != reference else None
        rows.append(row)
    table = pd.DataFrame(rows).set_index("row")
    base = float(sub["base"].iloc[0]) if "base" in sub.columns else None
    table.attrs.update(reference=reference, concept=concept, seeds=seeds, base=base,
                       person=results.attrs.get("person"))  # fmt: skip
    return table


def training_progress(table: pd.DataFrame) -> tuple[float, int] | None:
    """Spearman's ρ over the rows between held-out top-1 and how far the mean bias is from the
    base model's, and the number of rows (None without the base's bias or with < 3 rows).

    A high ρ says that the choices mostly differ in how far they let training move the model
    in their steps: the less a row learnt, the closer its bias stayed to the base model's.
    """
    base = table.attrs.get("base")
    if base is None or len(table) < 3:
        return None
    distance = (table["mean bias"] - base).abs()
    if distance.nunique() < 2 or table["top-1"].nunique() < 2:
        return None
    rho = float(spearmanr(table["top-1"], distance).statistic)
    return rho, len(table)


#: Spearman's ρ from which :func:`ablation_statements` reads the rows as differing mostly in
#: training progress (a stated threshold: ρ ≥ 0.7 is a strong rank agreement).
_PROGRESS_RHO = 0.7


def _num(x: float, sign: bool = True) -> str:
    """3 decimals; more for a small number, so that it does not read as 0.000."""
    digits = 3 if abs(x) >= 0.01 or x == 0 else 4 if abs(x) >= 0.001 else 5
    return f"{x:{'+' if sign else ''}.{digits}f}".replace("-", "−")


def ablation_statements(table: pd.DataFrame) -> str:
    """What the ablation table says: which choices move the score beyond the seeds, and which
    do not, each with its mean paired difference and range."""
    for c in ("mean Δ", "range Δ", "moves", "top-1", "steps"):
        if c not in table.columns:
            raise KeyError(f"ablation_statements: the table lacks {c!r}; pass ablation_table's")
    reference = table.attrs.get("reference", table.index[0])
    person = table.attrs.get("person") or "the person"
    concept = table.attrs.get("concept", "average")
    seeds = table.attrs.get("seeds", [])
    others = table.drop(index=reference)
    if len(seeds) < 2:
        return (
            "With one seed there is no seed spread, so no choice can be judged against it; "
            "run the ablation with 2 seeds at least."
        )
    moved = others[others["moves"] == True]  # noqa: E712 (None on the reference row)
    stayed = others[others["moves"] != True]  # noqa: E712

    def items(frame: pd.DataFrame) -> str:
        parts = [
            f"*{name}* ({_num(r['mean Δ'])}, range {_num(r['range Δ'], sign=False)})"
            for name, r in frame.iterrows()
        ]
        return "; ".join(parts) if parts else "none"

    ref = table.loc[reference]
    base = table.attrs.get("base")
    of_base = f"; the base model's: {_num(base, sign=False)}" if base is not None else ""
    lines = [
        f"Against *{reference}* ({int(ref['steps'])} steps, held-out top-1 {ref['top-1']:.3f}, "
        f"{person}'s {concept} bias {_num(ref['mean bias'], sign=False)} over {len(seeds)} "
        f"seeds{of_base}), by the seed rule (mean paired difference farther from 0 than its "
        "range):",
        "",
        f"- **move {person}'s {concept} bias beyond the seeds:** {items(moved)};",
        f"- **do not:** {items(stayed)}.",
    ]
    progress = training_progress(table)
    if progress is not None:
        rho, n = progress
        lines += [
            "",
            f"Over the {n} rows, held-out top-1 and the distance of the bias from the base "
            f"model's rank together with Spearman's ρ = {rho:.2f}"
            + (
                ": the rows mostly differ in how far their choice let training move the model "
                "in its steps — the less a row learnt, the closer its bias stayed to the base "
                "model's."
                if rho >= _PROGRESS_RHO
                else f" (below {_PROGRESS_RHO}): the choices move the bias by more than how "
                "much they let the model learn."
            ),
        ]
    return "\n".join(lines)
