"""Is a person's score larger than the noise of fine-tuning? Several fine-tuning seeds per person.

Seed 003 fine-tuned one model per person, once. Fine-tuning draws at random — the order of the
batches, the tokens masked at each step, dropout — so another seed gives another model and
another bias. Here each person's model is fine-tuned with several seeds, and a person effect
(the person's bias minus the base model's, on one concept) counts only where it is larger than
the seed-to-seed spread:

- :func:`fine_tune_seeds` — one fine-tuned model per person and seed (cached on disk);
- :func:`concept_biases` — Dong's bias per model and concept, and their plain ``average``;
- :func:`seed_biases` — every (person, seed) model and the base model scored: one row per
  person, seed and concept, with the difference from the base model;
- :func:`exceeds_seed_spread` — the rule (|mean difference| > range of the differences);
- :func:`seed_spread_table` — the rule applied per person and concept, with the per-seed
  numbers;
- :func:`seed_statements` — what the chapter says from the table: one sentence per person, which
  concepts differ from the base model beyond the seed spread, which do not, and which moved
  together with their opposite;
- :func:`planted_seed_shift` — the planted check
  (:func:`~nlpbias.studies.scoring.study.planted_shift`) per seed, and its verdict.

The figure is :func:`nlpbias.studies.scoring.figures.seed_spread_figure`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.studies.scoring.effects import dong_bias
from nlpbias.studies.scoring.mlm import (
    FineTuneResult,
    fine_tune_many,
    nonempty_texts,
    split_indices,
)
from nlpbias.studies.scoring.study import Framework, planted_shift, score_models

__all__ = [
    "RULE",
    "check_seeds",
    "SHARED_SHIFT",
    "concept_biases",
    "exceeds_seed_spread",
    "expected_range",
    "fine_tune_seeds",
    "planted_seed_shift",
    "seed_biases",
    "seed_runs",
    "seed_spread_table",
    "seed_statements",
    "why_the_range",
]

logger = logging.getLogger(__name__)

#: The rule of :func:`exceeds_seed_spread`, in words (the chapter states it before the numbers).
RULE = (
    "a person effect counts when the mean over seeds of the difference person − base is "
    "farther from 0 than the range (max − min) of the per-seed differences"
)


def check_seeds(seeds: object) -> list[int]:
    """``seeds`` as a list of distinct ints >= 0 (a clear error otherwise)."""
    if isinstance(seeds, str | bytes) or not isinstance(seeds, Iterable):
        raise TypeError(f"seeds must be a list of ints, e.g. [0, 1, 2], got {seeds!r}")
    out = list(seeds)
    bad = [s for s in out if isinstance(s, bool) or not isinstance(s, int | np.integer) or s < 0]
    if bad or not out:
        raise ValueError(f"seeds must be a non-empty list of ints >= 0, got {out!r}")
    if len(set(out)) < len(out):
        raise ValueError(f"seeds must be distinct, got {out!r}: a repeated seed repeats a model")
    return [int(s) for s in out]


def fine_tune_seeds(
    base: str,
    corpora: Mapping[str, tuple[list[str], list[str] | None]],
    *,
    seeds: Sequence[int],
    random_state: int,
    n_jobs: int,
    val_fraction: float = 0.1,
    show_progress: bool = True,
    **params: Any,
) -> dict[str, dict[int, FineTuneResult]]:
    """Fine-tune each person's model once per seed (:func:`fine_tune_mlm`, cached on disk).

    The seed is the ``random_state`` of :func:`fine_tune_mlm`, so it reaches everything that
    fine-tuning draws: the order of the batches in every epoch, the tokens masked at every step,
    dropout, and the masks of the held-out accuracy. Nothing is initialised afresh (the base
    model's weights, its masked-LM head included, are loaded as they are). What a person wrote is
    the same for every seed: a person without a validation split (the planted person, ``you``)
    has a tenth of the posts held out once, with ``random_state``, exactly as
    :func:`~nlpbias.studies.scoring.study.fine_tune_people` holds them out with
    ``random_state=random_state``. So the run with seed ``random_state`` has the same cache key,
    folder and numbers as the chapter's single run of ``fine_tune_people``; the other seeds are
    new models.

    Parameters
    ----------
    base : str
        The base masked LM (name or folder).
    corpora : mapping
        Person -> (train posts, validation posts or None), from
        :func:`~nlpbias.studies.scoring.study.person_corpora`.
    seeds : sequence of int
        Distinct seeds >= 0, e.g. ``[0, 1, 2]``.
    random_state : int
        Seeds the held-out split of a person without one (not the fine-tuning).
    n_jobs : int
        Fine-tunings at once (:func:`~nlpbias.studies.scoring.mlm.fine_tune_many`).
    val_fraction : float, default 0.1
    show_progress : bool, default True
    **params
        Further arguments of :func:`fine_tune_mlm` (``epochs``, ``learning_rate``, ...).

    Returns
    -------
    dict
        ``{person: {seed: FineTuneResult}}``.

    Examples
    --------
    >>> runs = fine_tune_seeds(base, corpora, seeds=[0, 1], random_state=0, n_jobs=2,
    ...                        **recipe)  # doctest: +SKIP
    >>> runs["Trump"][1].path  # doctest: +SKIP
    """
    planned = seed_runs(
        base, corpora, seeds=seeds, random_state=random_state, val_fraction=val_fraction, **params
    )
    results = fine_tune_many(
        [run for _, _, run in planned], n_jobs=n_jobs, show_progress=show_progress
    )
    out: dict[str, dict[int, FineTuneResult]] = {}
    for (person, seed, _), result in zip(planned, results, strict=True):
        out.setdefault(person, {})[seed] = result
    return out


def seed_runs(
    base: str,
    corpora: Mapping[str, tuple[list[str], list[str] | None]],
    *,
    seeds: Sequence[int],
    random_state: int,
    val_fraction: float = 0.1,
    **params: Any,
) -> list[tuple[str, int, dict[str, Any]]]:
    """The fine-tunings of :func:`fine_tune_seeds`, not run: ``(person, seed, arguments of
    fine_tune_mlm)`` for each person and seed, in that order (the held-out split of a person
    without one made here, once)."""
    seeds = check_seeds(seeds)
    if "val_texts" in params:
        raise TypeError("pass validation posts in corpora (person -> (train, val)), not val_texts")
    planned = []
    for person, (train, val) in corpora.items():
        if val is None:  # the same held-out posts for every seed
            texts = nonempty_texts(train)
            train_idx, val_idx = split_indices(
                len(texts), val_fraction=val_fraction, random_state=random_state
            )
            train, val = [texts[i] for i in train_idx], [texts[i] for i in val_idx]
        for seed in seeds:
            logger.info("fine-tuning on %s, seed %d: %d posts", person, seed, len(train))
            run = {"base": base, "texts": train, "val_texts": val, "random_state": seed, **params}
            planned.append((person, seed, run))
    return planned


def concept_biases(scores: pd.DataFrame, fws: Sequence[Framework]) -> pd.DataFrame:
    """Dong's bias per model and concept, and its plain ``average`` over the concepts.

    The same numbers as the ``bias`` column of
    :func:`~nlpbias.studies.scoring.study.bias_table`, without the bootstrap.

    Parameters
    ----------
    scores : pandas.DataFrame
        :func:`~nlpbias.studies.scoring.study.score_models` output (``model``, ``framework``,
        ``template``, ``target``, ``attribute``, ``score``).
    fws : sequence of Framework

    Returns
    -------
    pandas.DataFrame
        ``model, concept, bias``: models in the order of ``scores``, concepts in the order of
        the frameworks, ``average`` last for each model.
    """
    missing = [c for c in ("model", "framework") if c not in scores.columns]
    if missing:
        raise KeyError(f"concept_biases: scores lacks {missing}; pass score_models' output")
    rows = []
    for model, sub in scores.groupby("model", sort=False):
        values = []
        for fw in fws:
            part = sub[sub["framework"] == fw.name]
            if part.empty:
                continue
            groups = {k: list(v) for k, v in fw.attributes.items()}
            bias = dong_bias(part, female=list(fw.female), male=list(fw.male),
                             attribute_groups=groups)  # fmt: skip
            for concept, value in bias.items():
                rows.append({"model": model, "concept": concept, "bias": float(value)})
                values.append(float(value))
        if not values:
            names = [fw.name for fw in fws]
            raise ValueError(f"concept_biases: model {model!r} has no scores on {names}")
        rows.append({"model": model, "concept": "average", "bias": float(np.mean(values))})
    return pd.DataFrame(rows, columns=["model", "concept", "bias"])


def seed_biases(
    base: str,
    runs: Mapping[str, Mapping[int, FineTuneResult]],
    fws: Sequence[Framework],
    *,
    device: str = "auto",
) -> pd.DataFrame:
    """Score the base model and every (person, seed) model: Dong's bias per concept.

    Parameters
    ----------
    base : str
        The base model (name or folder), scored once: it has no fine-tuning seed.
    runs : mapping
        :func:`fine_tune_seeds` output, ``{person: {seed: FineTuneResult}}``.
    fws : sequence of Framework
    device : str, default "auto"

    Returns
    -------
    pandas.DataFrame
        ``person, seed, concept, bias, base, difference`` (``bias − base``), one row per
        person, seed and concept (``average`` included), in the order of ``runs``.
    """
    if not runs:
        raise ValueError("seed_biases: no runs; pass fine_tune_seeds' output")
    base_bias = concept_biases(score_models({"base": base}, fws, device=device), fws)
    base_of = dict(zip(base_bias["concept"], base_bias["bias"], strict=True))
    frames = []
    for person, by_seed in runs.items():
        for seed, result in by_seed.items():
            scores = score_models({person: str(result.path)}, fws, device=device)
            b = concept_biases(scores, fws).rename(columns={"model": "person"})
            b.insert(1, "seed", int(seed))
            frames.append(b)
    out = pd.concat(frames, ignore_index=True)
    out["base"] = out["concept"].map(base_of)
    out["difference"] = out["bias"] - out["base"]
    return out


def exceeds_seed_spread(differences: Iterable[float]) -> bool:
    """The rule: does a person effect exceed the noise of fine-tuning?

    A person effect counts when the mean over seeds of the differences ``d_s = bias_s − base``
    is farther from zero than their range: ``|mean(d)| > max(d) − min(d)``. Equivalently, zero
    lies outside ``mean ± range``: a further seed landing up to one whole observed range away
    from the mean would still be on the same side of zero. It implies that every seed has the
    same sign. With two or three seeds a standard deviation (and a t interval built on it) is
    hardly estimated, while the range is what was observed, without a distributional
    assumption.

    Parameters
    ----------
    differences : iterable of float
        One difference per fine-tuning seed, at least two, all finite.

    Returns
    -------
    bool

    Examples
    --------
    >>> exceeds_seed_spread([-0.30, -0.36])  # mean −0.33, range 0.06
    True
    >>> exceeds_seed_spread([0.05, -0.02])  # the seeds disagree in sign
    False
    >>> exceeds_seed_spread([0.10, 0.40])  # same sign, but mean 0.25 < range 0.30
    False
    """
    d = np.asarray(list(differences), dtype=float)
    if d.ndim != 1 or d.size < 2:
        raise ValueError(
            f"the rule needs the differences of 2 seeds at least, got {d.size}; "
            "fine-tune with more seeds (fine_tune_seeds=[0, 1, ...])"
        )
    if not np.isfinite(d).all():
        raise ValueError(f"differences must be finite numbers, got {d.tolist()}")
    return bool(abs(d.mean()) > d.max() - d.min())


def seed_spread_table(biases: pd.DataFrame) -> pd.DataFrame:
    """Per person and concept: the per-seed biases and differences, their spread and the rule.

    Parameters
    ----------
    biases : pandas.DataFrame
        :func:`seed_biases` output (``person, seed, concept, bias, base, difference``).

    Returns
    -------
    pandas.DataFrame
        One row per person and concept (in the order of ``biases``): ``person``, ``concept``,
        ``base``, ``bias seed S`` for each seed, ``mean bias``, ``Δ seed S`` (bias − base) for
        each seed, ``mean Δ``, ``range Δ`` (max − min over seeds; the same for the biases,
        since the base is one model) and ``counts`` (:func:`exceeds_seed_spread`). With one
        seed there is no mean over seeds and no range: those three columns are left out and
        ``counts`` is None. ``attrs["seeds"]`` lists the seeds.
    """
    need = ["person", "seed", "concept", "bias", "base", "difference"]
    missing = [c for c in need if c not in biases.columns]
    if missing:
        raise KeyError(f"seed_spread_table: biases lacks {missing}; pass seed_biases' output")
    if biases.empty:
        raise ValueError("seed_spread_table: biases is empty; pass seed_biases' output")
    if biases.duplicated(["person", "seed", "concept"]).any():
        raise ValueError("seed_spread_table: a (person, seed, concept) occurs twice; keep one")
    seeds = sorted(biases["seed"].unique().tolist())
    rows = []
    for (person, concept), sub in biases.groupby(["person", "concept"], sort=False):
        by_seed = sub.set_index("seed")
        absent = [s for s in seeds if s not in by_seed.index]
        if absent:
            raise ValueError(f"seed_spread_table: {person!r}, {concept!r} lacks seeds {absent}")
        d = by_seed.loc[seeds, "difference"].to_numpy(float)
        row: dict[str, Any] = {"person": person, "concept": concept,
                               "base": float(by_seed["base"].iloc[0])}  # fmt: skip
        row.update({f"bias seed {s}": float(by_seed.loc[s, "bias"]) for s in seeds})
        several = len(seeds) >= 2  # one seed: no mean over seeds and no range
        if several:
            row["mean bias"] = float(by_seed.loc[seeds, "bias"].mean())
        row.update({f"Δ seed {s}": float(v) for s, v in zip(seeds, d, strict=True)})
        if several:
            row["mean Δ"] = float(d.mean())
            row["range Δ"] = float(d.max() - d.min())
        row["counts"] = exceeds_seed_spread(d) if several else None
        rows.append(row)
    table = pd.DataFrame(rows)
    table.attrs["seeds"] = seeds
    return table


# ----------------------------------------------------------------------------- what they say
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

    ``table`` is :func:`seed_spread_table` output.

    One Markdown bullet per person: the concepts whose effect counts under the rule, grouped by
    direction (more pro-male / more pro-female than the base model) with their mean difference
    and range, and the concepts whose effect does not count. With ``fws``, a framework whose two
    concepts both count in the same direction is named as a shared shift, and
    :data:`SHARED_SHIFT` says once, after the list, why that is a drift of the whole model.
    With one seed the rule cannot be applied and no person effect is claimed.
    """
    seeds = table.attrs.get("seeds", [])
    need = ["person", "concept", "counts"] + (["mean Δ", "range Δ"] if len(seeds) >= 2 else [])
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise KeyError(f"seed_statements: table lacks {missing}; pass seed_spread_table's output")
    if len(seeds) < 2:
        which = f"one seed ({seeds[0]})" if seeds else "no seed"
        return (
            f"This run fine-tuned each person's model with {which}: there is no seed-to-seed "
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
    :func:`exceeds_seed_spread` is applied to the association's
    shifts.

    Parameters
    ----------
    biases : pandas.DataFrame
        :func:`seed_biases` output with rows for ``person``.
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
    if d.size < 2:  # one seed: no mean over seeds, no range
        verdict = (
            f"With one fine-tuning seed ({seeds}) the association {association} moved by "
            f"{moved}; there is no seed-to-seed spread to compare with, so no verdict."
        )
        out.attrs["verdict"] = verdict
        return out
    verdict = (
        f"Over the seeds ({seeds}) the association {association} moved by {moved}: "
        f"mean {_num(float(d.mean()))}, range {_num(float(np.ptp(d)))}; "
    )
    if out.attrs["counts"]:
        way = "in the planted direction" if out.attrs["as_planted"] else "against the planted one"
        verdict += f"under the rule the shift counts, {way}."
    else:
        verdict += "under the rule the shift does not count (it is within the seed spread)."
    out.attrs["verdict"] = verdict
    return out


def expected_range(n: int) -> float:
    """The expected range (max − min) of ``n`` independent standard normal draws.

    ``E[R_n] = ∫ 1 − Φ(x)^n − (1 − Φ(x))^n dx``, integrated numerically.

    Examples
    --------
    >>> round(expected_range(2), 4), round(expected_range(3), 4)
    (1.1284, 1.6926)
    """
    from scipy import integrate, stats

    n = int(n)
    if n < 2:
        raise ValueError(f"the range needs two draws at least, got n={n}")

    def integrand(x: float) -> float:
        p = stats.norm.cdf(x)
        return 1.0 - p**n - (1.0 - p) ** n

    value, _ = integrate.quad(integrand, -np.inf, np.inf)
    return float(value)


def why_the_range(seed_counts: Sequence[int] = (2, 3)) -> str:
    """The numbers behind the choice of the range over a t interval, computed, for the chapter.

    For the smallest count of seeds: how many standard errors a 95 % t interval reaches on
    either side of the mean; for each count: the expected range of that many normal draws, in
    standard deviations.

    Examples
    --------
    >>> why_the_range((2, 3))[:60]
    'With 2 seeds, a 95 % t interval reaches 12.7 standard errors'
    """
    from scipy import stats

    counts = sorted({int(n) for n in seed_counts})
    if not counts or counts[0] < 2:
        raise ValueError(f"seed counts must be 2 or more, got {list(seed_counts)}")
    t = float(stats.t.ppf(0.975, counts[0] - 1))
    first, *rest = counts
    ranges = [f"about {expected_range(first):.2f} standard deviations for {first} draws"]
    ranges += [f"about {expected_range(n):.2f} for {n}" for n in rest]
    return (
        f"With {first} seeds, a 95 % t interval reaches {t:.1f} standard errors either side "
        f"of the mean. For normally distributed noise, the expected range is {_and(ranges)}: "
        "the fewer the seeds, the narrower the range, and the milder the rule."
    )
