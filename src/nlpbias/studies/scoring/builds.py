"""Builds of the stand-in: this run's numbers beside those recorded from earlier `paper` builds.

The stand-in masked LM is trained by this book, and a retrained stand-in is another model with
other biases. The numbers of earlier builds of the `paper` book were recorded by hand in
``data/builds/scoring_standin.yaml`` (with their source); this module puts this run's own numbers
beside them and writes what the chapter says about them from the numbers, by a stated rule:

- :func:`recorded_builds` — the recorded builds (``data/builds/scoring_standin.yaml``);
- :func:`run_numbers` — the same numbers from this run's bias table and per-seed biases;
- :func:`survives` — the rule (:data:`SURVIVES`): the sign agrees in every build and every
  build's 95 % interval excludes 0;
- :func:`builds_table` — one row per number, one column per build and one for this run, and the
  rule's outcome;
- :func:`builds_statements` — the sentences about this run and the builds.

This run counts as a build of the `paper` recipe only where it is one (``counts=True``: the
`paper` profile with the stand-in); otherwise (``smoke``, ``demo``, ``paper-smoke``: other,
shorter recipes) its column is shown and not judged with the builds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from nlpbias.core.criteria import Interval, Outcome
from nlpbias.core.paths import data_file

__all__ = [
    "NUMBERS",
    "SURVIVES",
    "builds_statements",
    "builds_table",
    "person_effect_text",
    "recorded_builds",
    "run_numbers",
    "same_build",
    "survives",
]

#: The recorded numbers, in the order of the table: key -> what it is.
NUMBERS: dict[str, str] = {
    "base_career": "base stand-in, career",
    "base_average": "base stand-in, average of the six concepts",
    "trump_average": "Trump's model (seed `random_state`), average of the six concepts",
}
#: The rule of :func:`survives`, in words.
SURVIVES = "its sign agrees in every build and every build's 95 % interval excludes 0"


def recorded_builds(path: str | Path | None = None) -> dict[str, Any]:
    """The recorded builds: ``source``, ``profile`` and ``builds`` (oldest first).

    Each build has ``name``, ``recipe`` and, per key of :data:`NUMBERS`, an
    :class:`~nlpbias.core.criteria.Interval` (``low``/``high`` NaN where no interval was
    recorded); optional ``date``, ``top1`` and ``training_seconds``.
    """
    path = Path(path) if path is not None else data_file("builds", "scoring_standin.yaml")
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    builds = []
    for b in raw["builds"]:
        entry = {k: v for k, v in b.items() if k not in NUMBERS}
        for key in NUMBERS:
            if key in b:
                n = b[key]
                entry[key] = Interval(
                    float(n["value"]), float(n.get("low", math.nan)), float(n.get("high", math.nan))
                )
        builds.append(entry)
    return {"source": " ".join(str(raw["source"]).split()), "profile": raw["profile"],
            "builds": builds}  # fmt: skip


def run_numbers(
    bias: pd.DataFrame,
    per_seed: pd.DataFrame,
    *,
    base_label: str,
    random_state: int,
    top1: float | None = None,
) -> dict[str, Any]:
    """This run's values of :data:`NUMBERS` (and its stand-in's held-out ``top1``, if given).

    ``bias`` is :func:`~nlpbias.studies.scoring.study.bias_table` output; ``per_seed``
    :func:`~nlpbias.studies.scoring.seeds.seed_biases` output. A number the run does not have
    (no Trump) is left out.
    """
    base = bias[bias["model"] == base_label].set_index("attribute")
    if base.empty:
        raise ValueError(f"run_numbers: no rows of model {base_label!r} in the bias table")
    out: dict[str, Any] = {}
    for key, concept in (("base_career", "career"), ("base_average", "average")):
        r = base.loc[concept]
        out[key] = Interval(float(r["bias"]), float(r["ci_low"]), float(r["ci_high"]))
    trump = per_seed[
        (per_seed["person"] == "Trump")
        & (per_seed["seed"] == random_state)
        & (per_seed["concept"] == "average")
    ]
    if not trump.empty:
        out["trump_average"] = Interval(float(trump["bias"].iloc[0]), math.nan, math.nan)
    if top1 is not None:
        out["top1"] = float(top1)
    return out


def _text(n: Interval | None, *, recorded: bool = False) -> str:
    """The number with its interval; a recorded one with the digits it was recorded with."""
    if n is None:
        return "—"
    fmt = _rec if recorded else _num
    est = fmt(n.estimate)
    if math.isnan(n.low) or math.isnan(n.high):
        return f"{est} (no interval)"
    return f"{est} [{fmt(n.low)}, {fmt(n.high)}]"


def _rec(x: float) -> str:
    """A recorded number as it was recorded (``+0.13``, ``−0.004``)."""
    return f"{x:+g}".replace("-", "−")


def _decimals(x: float) -> int:
    text = repr(float(x))
    return len(text.split(".")[1]) if "." in text and "e" not in text else 0


def same_build(recorded: Mapping[str, Any], run: Mapping[str, Any]) -> str | None:
    """The name of the recorded build whose every number this run's rounds to, if any.

    A build is identified by what its models output: the estimates of :data:`NUMBERS` and the
    stand-in's held-out ``top1``. Each of this run's is rounded to the decimals its recorded value
    was written with; a build matches when every estimate both have agrees, and they share two
    at least. The interval ends are not compared: they come from a bootstrap over templates and
    words whose resamples can change with the code that draws them while the model stays the same
    (the `paper` run of 2026-11-27 rebuilt the third build — top-1 0.266, estimates −0.30,
    −0.36, −0.22 — and its career interval ended at −0.112 where −0.12 was recorded). Such a run
    rebuilt that build and is not counted as another.
    """
    for b in recorded["builds"]:
        pairs = [(run[k].estimate, b[k].estimate) for k in NUMBERS if k in b and k in run]
        if "top1" in b and run.get("top1") is not None:
            pairs.append((float(run["top1"]), float(b["top1"])))
        if len(pairs) < 2:
            continue
        if all(
            not math.isnan(mine) and round(mine, _decimals(theirs)) == theirs
            for mine, theirs in pairs
            if not math.isnan(theirs)
        ):
            return str(b["name"])
    return None


def _num(x: float) -> str:
    """Three decimals (four below 0.01), with a sign and a typographic minus."""
    digits = 3 if abs(x) >= 0.01 or x == 0 else 4
    return f"{x:+.{digits}f}".replace("-", "−")


def survives(values: Sequence[Interval]) -> Outcome:
    """The rule :data:`SURVIVES` over the builds' values of one number.

    Holds iff there are at least two builds, every estimate has the same (non-zero) sign, and
    every build has a 95 % interval that excludes 0. The detail names what failed first: the sign
    flips, a build has no interval, or a build's interval includes 0.

    Examples
    --------
    >>> survives([Interval(0.13, math.nan, math.nan), Interval(-0.3, -0.45, -0.12)]).word
    'does not survive'
    >>> survives([Interval(-0.2, -0.3, -0.1), Interval(-0.3, -0.45, -0.12)]).holds
    True
    """
    values = list(values)
    if len(values) < 2:
        raise ValueError(f"survives needs the values of two builds at least, got {len(values)}")
    signs = {math.copysign(1.0, v.estimate) if v.estimate != 0 else 0.0 for v in values}
    estimates = ", ".join(_rec(round(v.estimate, 3)) for v in values)
    no_ci = [i for i, v in enumerate(values) if math.isnan(v.low) or math.isnan(v.high)]
    with_zero = [i for i, v in enumerate(values) if i not in no_ci and v.low <= 0 <= v.high]
    if len(signs) > 1 or 0.0 in signs:
        detail = f"the sign flips between the builds ({estimates})"
    elif no_ci:
        which = (
            f"none of the {len(values)} builds has"
            if len(no_ci) == len(values)
            else f"{len(no_ci)} of the {len(values)} builds have no"
        )
        detail = f"the sign agrees ({estimates}), but {which} an interval"
    elif with_zero:
        detail = (
            f"the sign agrees ({estimates}), but {len(with_zero)} of the {len(values)} "
            "builds' intervals include 0"
        )
    else:
        detail = f"the sign agrees ({estimates}) and every interval excludes 0"
    holds = len(signs) == 1 and 0.0 not in signs and not no_ci and not with_zero
    return Outcome(
        holds=holds,
        word="survives" if holds else "does not survive",
        criterion=SURVIVES,
        detail=detail,
    )


def _run_column(profile: str) -> str:
    return f"this run (`{profile}`)"


def builds_table(
    recorded: Mapping[str, Any], run: Mapping[str, Any], *, profile: str, counts: bool
) -> pd.DataFrame:
    """One row per number of :data:`NUMBERS` (and the stand-in's held-out top-1), one column per
    recorded build and one for this run, then ``survives the builds?``.

    ``counts`` says whether this run is a build of the recorded recipe (`paper` with the
    stand-in): only then is its value judged with the builds by :func:`survives`; otherwise the
    rule is applied to the recorded builds alone. Cells are text: the estimate with its 95 %
    interval, "(no interval)" where none was recorded, "—" where a build has no such number.
    """
    builds = recorded["builds"]
    names = [b["name"] for b in builds]
    run_col = _run_column(profile)
    counts = counts and same_build(recorded, run) is None
    rows = []
    for key, label in NUMBERS.items():
        row: dict[str, str] = {"number": label}
        values = []
        for b in builds:
            row[b["name"]] = _text(b.get(key), recorded=True)
            if key in b:
                values.append(b[key])
        mine = run.get(key)
        row[run_col] = _text(mine) if mine is not None else "— (not in this run)"
        judged = values + ([mine] if counts and mine is not None else [])
        if len(judged) >= 2:
            outcome = survives(judged)
            row["survives the builds?"] = f"{outcome.word}: {outcome.detail}"
        else:
            row["survives the builds?"] = "—"
        rows.append(row)
    top = {"number": "base stand-in, held-out top-1 accuracy"}
    for b in builds:
        top[b["name"]] = f"{b['top1']:.3f}" if "top1" in b else "—"
    top[run_col] = f"{run['top1']:.3f}" if run.get("top1") is not None else "—"
    top["survives the builds?"] = ""
    rows.append(top)
    table = pd.DataFrame(rows, columns=["number", *names, run_col, "survives the builds?"])
    table.attrs["counts"] = bool(counts)
    return table.set_index("number")


def builds_statements(
    recorded: Mapping[str, Any],
    run: Mapping[str, Any],
    *,
    profile: str,
    counts: bool,
    base_verdicts: Mapping[str, str] | None = None,
    trump_seed_range: float | None = None,
) -> str:
    """What the chapter says about this run's stand-in and the builds, from their numbers.

    Parameters
    ----------
    recorded, run, profile, counts
        As for :func:`builds_table`.
    base_verdicts : mapping, optional
        The scorecard's verdict on this run's base-model rows, e.g. ``{"career": "not testable
        offline"}``, quoted as they are.
    trump_seed_range : float, optional
        The range over fine-tuning seeds of this run's Trump average; with it (and ``counts``),
        the builds' spread of that number is compared with the seeds' spread by
        :func:`nlpbias.core.criteria.exceeds`.
    """
    from nlpbias.core.criteria import exceeds

    builds = recorded["builds"]
    again = same_build(recorded, run) if counts else None
    counts = counts and again is None
    n = len(builds) + (1 if counts else 0)
    lines = []
    career = run["base_career"]
    ci = (
        "its 95 % interval excludes 0"
        if not (career.low <= 0 <= career.high)
        else "its 95 % interval includes 0, so its sign is not established"
    )
    said = f"In this run (`{profile}`) the base stand-in's career bias is {_text(career)}: {ci}."
    if base_verdicts and "career" in base_verdicts:
        said += f" The scorecard's verdict on that row: *{base_verdicts['career']}*."
    lines.append(said)
    if again is not None:
        lines.append(
            f"This run's numbers round to those recorded from the {again}: it rebuilt that "
            "stand-in (same recipe and code), so it is not counted as another build."
        )
    elif counts:
        lines.append(
            f"This run trains the `{recorded['profile']}` recipe, so it is judged as one more "
            f"build beside the {len(builds)} recorded ones."
        )
    else:
        lines.append(
            f"This run's stand-in follows the `{profile}` recipe, not the "
            f"`{recorded['profile']}` one, so its column is shown beside the recorded `"
            f"{recorded['profile']}` builds and is not judged with them."
        )
    verdicts = []
    for key, label in NUMBERS.items():
        values = [b[key] for b in builds if key in b]
        if counts and key in run:
            values.append(run[key])
        if len(values) >= 2:
            outcome = survives(values)
            verdicts.append(f"- {label}: **{outcome.word}**: {outcome.detail}.")
    lines.append(
        f"Over the {n} builds, a number survives when {SURVIVES}:\n\n" + "\n".join(verdicts)
    )
    trumps = [b["trump_average"].estimate for b in builds if "trump_average" in b]
    if counts and "trump_average" in run:
        trumps.append(run["trump_average"].estimate)
    paper_run = counts or again is not None
    if paper_run and trump_seed_range is not None and len(trumps) >= 2:
        spread = max(trumps) - min(trumps)
        outcome = exceeds(
            spread, 0.0, margin=float(trump_seed_range), margin_name="the range over this run's "
            "fine-tuning seeds", yes="moves it more", no="does not move it more",
        )  # fmt: skip
        lines.append(
            f"Rebuilding the stand-in {outcome.word} than re-running the fine-tuning does, for "
            f"Trump's average: the builds span {_num(spread).lstrip('+')} ({outcome.criterion}: "
            f"{outcome.detail})."
            + (
                " The seed-to-seed range then understates how far the chapter's numbers could move."
                if outcome.holds
                else ""
            )
        )
    elif "trump_average" not in run:
        lines.append(
            "This run has no Trump model, so the builds' spread of Trump's average is compared "
            "with the spread over fine-tuning seeds on `paper` only."
        )
    effect = person_effect_text(recorded, run, counts=counts)
    if effect:
        lines.append(effect)
    return "\n\n".join(lines)


def person_effect_text(recorded: Mapping[str, Any], run: Mapping[str, Any], *, counts: bool) -> str:
    """Whether fine-tuning moved Trump's model the same way from its base model in every build.

    The person effect of a build is ``trump_average − base_average`` (negative: fine-tuning made
    the model more pro-male than its base). Builds that recorded both numbers are listed, with
    this run when ``counts`` (a build of the recorded recipe); the direction *survives* when
    every listed effect has the same sign. Only Trump's model was recorded from the earlier
    builds, so nothing is said of the other people. Empty when fewer than two builds have both.
    """
    effects = [
        (str(b["name"]), b["trump_average"].estimate - b["base_average"].estimate)
        for b in recorded["builds"]
        if "trump_average" in b and "base_average" in b
    ]
    if counts and "trump_average" in run and "base_average" in run:
        effects.append(("this run", run["trump_average"].estimate - run["base_average"].estimate))
    if len(effects) < 2:
        return ""

    def direction(x: float) -> str:
        return "more pro-male" if x < 0 else "less pro-male" if x > 0 else "unchanged"

    listed = "; ".join(f"{name}: {_num(x)} ({direction(x)})" for name, x in effects)
    signs = {math.copysign(1.0, x) for _, x in effects if x != 0}
    same = len(signs) == 1 and all(x != 0 for _, x in effects)
    verdict = (
        "has the same direction in every build"
        if same
        else "does not survive the builds: its direction changes with the stand-in"
    )
    return (
        "The person effect — Trump's model minus its base model, on the average of the six "
        f"concepts, with seed `random_state` — {verdict} ({listed}). A negative effect means "
        "fine-tuning made the model more pro-male than its base. The earlier builds recorded "
        "Trump's model only."
    )
