"""What the fine-tuning seeds say: the chapter's statements about person effects, under the rule.

Both read the numbers of :mod:`nlpbias.studies.scoring.seeds` and apply its rule,
:func:`~nlpbias.studies.scoring.seeds.exceeds_seed_spread`:

- :func:`seed_statements` — one sentence per person, written from
  :func:`~nlpbias.studies.scoring.seeds.seed_spread_table`: which concepts differ from the base
  model beyond the seed spread, which do not, and which moved together with their opposite;
- :func:`planted_seed_shift` — the planted check
  (:func:`~nlpbias.studies.scoring.study.planted_shift`) per seed, and its verdict.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.studies.scoring.seeds import exceeds_seed_spread
from nlpbias.studies.scoring.study import Framework, planted_shift

__all__ = ["SHARED_SHIFT", "planted_seed_shift", "seed_statements"]


def _num(x: float) -> str:
    """3 decimals; more for a small number, so that it does not read as 0.000."""
    digits = 3 if abs(x) >= 0.01 or x == 0 else 4 if abs(x) >= 0.001 else 5
    return f"{x:.{digits}f}".replace("-", "−")


def _name(concept: str) -> str:
    return "the average" if concept == "average" else concept


def _and(words: Sequence[str]) -> str:
    words = list(words)
    if len(words) < 2:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def _shared_shifts(sub: pd.DataFrame, fws: Sequence[Framework]) -> list[str]:
    """ "career/family (more pro-male)" for each framework whose two concepts both count, in
    the same direction."""
    effect = sub.set_index("concept")
    out = []
    for fw in fws:
        pair = list(fw.attributes)
        if len(pair) != 2 or not all(c in effect.index for c in pair):
            continue
        if not all(bool(effect.loc[c, "counts"]) for c in pair):
            continue
        signs = {bool(effect.loc[c, "mean Δ"] > 0) for c in pair}
        if len(signs) == 1:
            out.append(f"{'/'.join(pair)} ({_way(signs.pop())})")
    return out


def _way(positive: bool) -> str:
    return "more pro-female" if positive else "more pro-male"


#: What :func:`seed_statements` says once when a concept and its opposite moved together.
SHARED_SHIFT = (
    "A shift that a concept shares with its opposite (career with family, pleasant with "
    "unpleasant, leader with follower) is a drift of the whole model towards one gender's "
    "targets rather than an association with either concept; the planted check and Kurita's "
    "effect size look at the difference between the two for this reason."
)


def seed_statements(table: pd.DataFrame, fws: Sequence[Framework] = ()) -> str:
    """The chapter's statements about person effects, written from the seed table.

    ``table`` is :func:`~nlpbias.studies.scoring.seeds.seed_spread_table` output.

    One Markdown bullet per person: the concepts whose effect counts under the rule, grouped by
    direction (more pro-male / more pro-female than the base model) with their mean difference
    and range, and the concepts whose effect does not count. With ``fws``, a framework whose two
    concepts both count in the same direction is named as a shared shift, and
    :data:`SHARED_SHIFT` says once, after the list, why that is a drift of the whole model.
    With one seed the rule cannot be applied and no person effect is claimed.
    """
    need = ["person", "concept", "mean Δ", "range Δ", "counts"]
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise KeyError(f"seed_statements: table lacks {missing}; pass seed_spread_table's output")
    seeds = table.attrs.get("seeds", [])
    if len(seeds) < 2:
        return (
            f"This run fine-tuned with {len(seeds)} seed ({seeds}): there is no seed-to-seed "
            "spread to compare a difference with, so **no person effect is claimed**. Run with "
            "`-p fine_tune_seeds='[0, 1, 2]'` to apply the rule."
        )
    lines = [f"Under the rule, over {len(seeds)} fine-tuning seeds ({', '.join(map(str, seeds))}):"]
    any_shared = False
    for person, sub in table.groupby("person", sort=False):
        counts = sub["counts"].astype(bool)
        groups = []
        for positive in (False, True):
            rows = sub[counts & ((sub["mean Δ"] > 0) == positive)]
            if rows.empty:
                continue
            items = [
                f"{_name(c)} ({'mean Δ ' if i == 0 else ''}{_num(m)}, "
                f"{'range ' if i == 0 else ''}{_num(r)})"
                for i, (c, m, r) in enumerate(
                    rows[["concept", "mean Δ", "range Δ"]].itertuples(index=False)
                )
            ]
            groups.append(f"{_way(positive)} than the base model on {_and(items)}")
        if groups:
            said = f"**{person}**'s model is, beyond the seed spread, " + "; and ".join(groups)
            said += "."
        else:
            said = f"**{person}**'s model differs from the base model on no concept."
        within = sub.loc[~counts, "concept"]
        if not within.empty:
            one = len(within) == 1
            said += (
                f" On {_and([_name(c) for c in within])}, the "
                + ("difference is" if one else "differences are")
                + " not larger than the seed-to-seed spread: "
                + ("it does" if one else "they do")
                + " not count."
            )
        shared = _shared_shifts(sub, fws) if fws else []
        if shared:
            any_shared = True
            pairs = "The pair " if len(shared) == 1 else "The pairs "
            said += f" {pairs}{_and(shared)} moved together: a shared shift."
        lines.append(f"- {said}")
    if any_shared:
        lines += ["", SHARED_SHIFT]
    return "\n".join(lines)


def planted_seed_shift(
    biases: pd.DataFrame, planted: Mapping[str, Any], *, person: str = "planted"
) -> pd.DataFrame:
    """The planted check per seed: did the association move as planted, beyond the seed spread?

    :func:`~nlpbias.studies.scoring.study.planted_shift` for each seed's model of the synthetic
    person: the shift (person − base) of the planted concept, of its opposite, and of the
    association (planted − opposite). The rule of
    :func:`~nlpbias.studies.scoring.seeds.exceeds_seed_spread` is applied to the association's
    shifts.

    Parameters
    ----------
    biases : pandas.DataFrame
        :func:`~nlpbias.studies.scoring.seeds.seed_biases` output with rows for ``person``.
    planted : mapping
        The spec given to :func:`~nlpbias.studies.scoring.study.planted_posts` (``concept``,
        ``direction``).
    person : str, default "planted"

    Returns
    -------
    pandas.DataFrame
        One row per seed: ``seed``, the planted concept's shift, its opposite's and the
        association's (``<concept> − <opposite>``). ``attrs``: ``counts`` (the rule on the
        association's shifts; None with one seed), ``as_planted`` (its mean shift has the
        planted sign) and ``verdict`` (one sentence with the numbers).
    """
    sub = biases[biases["person"] == person] if "person" in biases.columns else biases.iloc[:0]
    if sub.empty:
        raise KeyError(f"planted_seed_shift: no rows for person {person!r} in biases")
    rows = []
    for seed, part in sub.groupby("seed", sort=True):
        n = len(part)
        table = pd.DataFrame(
            {"model": ["base"] * n + [person] * n, "attribute": [*part["concept"]] * 2,
             "bias": [*part["base"], *part["bias"]]}
        )  # fmt: skip
        shift = planted_shift(table, planted, base_label="base", planted_label=person)
        rows.append({"seed": int(seed), **shift["shift"].to_dict()})
    out = pd.DataFrame(rows)
    association = out.columns[-1]
    d = out[association].to_numpy(float)
    sign = 1 if planted.get("direction", "female") == "female" else -1
    out.attrs["counts"] = exceeds_seed_spread(d) if d.size >= 2 else None
    out.attrs["as_planted"] = bool(sign * d.mean() > 0)
    moved = _and([_num(float(v)) for v in d])
    seeds = ", ".join(str(s) for s in out["seed"])
    verdict = (
        f"Over the seeds ({seeds}) the association {association} moved by {moved}: "
        f"mean {_num(float(d.mean()))}, range {_num(float(np.ptp(d)))}; "
    )
    if out.attrs["counts"] is None:
        verdict += "with one seed there is no spread to compare with, so no verdict."
    elif out.attrs["counts"]:
        way = "in the planted direction" if out.attrs["as_planted"] else "against the planted one"
        verdict += f"under the rule the shift counts, {way}."
    else:
        verdict += "under the rule the shift does not count (it is within the seed spread)."
    out.attrs["verdict"] = verdict
    return out
