"""Dong's cross-model claims (seed 003, section 6) and her Table 3, checked against this book.

The report compares its four models (Figure 5: BERT-base, Trump, Clinton and Dong's own) in
words: "everyone is pro-male" on career, on leader "everyone ... except for Hillary", "I am
twice as biased as Trump", ... Those words, and Table 3's 18 numbers, are transcribed in
``data/reported/dong2020.yaml`` (``claims``, ``table3``); here each claim is decided on this
book's models under the chapter's seed-spread rule
(:func:`nlpbias.studies.scoring.seeds.exceeds_seed_spread`):

- :func:`paper_claims` — the claims as transcribed (validated);
- :func:`paper_topk` — Table 3 as a frame with :func:`~nlpbias.studies.scoring.study.topk_table`'s
  columns;
- :func:`check_claims` — one row per claim: the paper's words, the models and concepts it
  concerns, our numbers, the verdict and why;
- :func:`claim_parts` — the same, one row per (model, concept) the claims use: the numbers the
  verdicts rest on (drawn by :func:`nlpbias.studies.scoring.figures.claims_figure`).

**The rules.** A person's bias on a concept is known over the fine-tuning seeds
(:func:`~nlpbias.studies.scoring.seeds.seed_biases`): its *band* is mean ± range over the seeds,
the chapter's rule. The base model is one model: its band is its bootstrap interval over
templates and words (:func:`~nlpbias.studies.scoring.study.bias_table`), as in the paper-vs-book
comparison (:func:`~nlpbias.studies.scoring.comparison.sign_agreement`); the average of the
concepts has no such interval, so no sign of the base model's average is claimed.

- ``signs`` — each (model, concept) has the stated sign when its band lies wholly on that side
  of 0; the claim holds when every part does.
- ``order`` — "the first model is the least pro-male": its bias is larger than each other
  model's. Per pair, the differences first − other over every pair of seeds (a seed against the
  base model's single value: the chapter's person − base difference) must count under the rule
  (|mean| > range) and be positive.
- ``ratio`` — "the first is ``factor`` times as biased as the second" is about sizes, ``|bias|``.
  Both signs must be established (bands clear of 0), else the size is not a multiple of
  anything. The ratios ``|a_i| / |b_j|`` over every pair of seeds (the base model: its single
  value) give a mean and a range; the claim holds when ``factor`` lies within mean ± range, i.e.
  when the ratio's distance from ``factor`` does *not* count under the rule. One value (one seed
  each) gives no range: not testable.
- ``split`` — "evenly split": on each concept at least one model is established pro-male and
  one pro-female.
- ``qualitative`` — the words set no rule ("tend to", "may be"): not testable as stated.

A claim that names a model this book does not have (Dong's own, whose Facebook posts are not
public) is "not testable here", and ``verdict here`` gives the verdict on the models it has.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.text import fmt_num
from nlpbias.studies.scoring.comparison import sign_agreement
from nlpbias.studies.scoring.seeds import exceeds_seed_spread

__all__ = [
    "BASE_MODEL",
    "CLAIM_KINDS",
    "VERDICTS",
    "check_claims",
    "claim_parts",
    "paper_claims",
    "paper_topk",
]

#: The paper's name of the base model (this book's base model stands for it).
BASE_MODEL = "BERT-base"
#: The kinds of claim :func:`check_claims` decides.
CLAIM_KINDS = ("signs", "order", "ratio", "split", "qualitative")
#: The verdicts, in words.
VERDICTS = ("holds", "does not hold", "not testable here")
_WAY = {-1: "pro-male", 1: "pro-female"}


def _num(x: float) -> str:
    return fmt_num(x).replace("-", "−")


def _and(words: Sequence[str]) -> str:
    return ", ".join(words)


# ----------------------------------------------------------------------------- the paper
def paper_claims(rep: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The report's cross-model claims from ``rep["claims"]``, checked for a known shape.

    ``rep`` is :func:`nlpbias.studies.scoring.study.reported` (or ``load_reported("dong2020")``).
    Each claim has ``key``, ``words`` (quoted), ``kind`` (one of :data:`CLAIM_KINDS`) and the
    fields of its kind (see ``data/reported/dong2020.yaml``).
    """
    claims = rep.get("claims")
    if not isinstance(claims, list) or not claims:
        raise KeyError(
            "dong2020.yaml has no 'claims' list; restore it from the repository "
            "(data/reported/dong2020.yaml)"
        )
    need = {
        "signs": ("signs",),
        "order": ("first", "others", "concept"),
        "ratio": ("first", "second", "concept", "factor"),
        "split": ("models", "concepts"),
        "qualitative": ("models",),
    }
    for claim in claims:
        kind = claim.get("kind")
        if kind not in need:
            raise ValueError(
                f"claim {claim.get('key')!r} has kind {kind!r}; choose from {list(CLAIM_KINDS)}"
            )
        missing = [f for f in ("key", "words", *need[kind]) if f not in claim]
        if missing:
            raise KeyError(f"claim {claim.get('key')!r} ({kind}) lacks {missing} in dong2020.yaml")
        if kind == "signs":
            for model, signs in claim["signs"].items():
                bad = {c: s for c, s in signs.items() if s not in (-1, 1)}
                if bad:
                    raise ValueError(
                        f"claim {claim['key']!r}: signs of {model} must be -1 or 1, got {bad}"
                    )
    return claims


def paper_topk(rep: Mapping[str, Any]) -> pd.DataFrame:
    """Seed 003's Table 3: BERT-base's top-6 targets of "[MASK] likes <attribute>."

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`~nlpbias.studies.scoring.study.topk_table`: ``model`` (the
        paper's model), ``attribute``, ``rank``, ``target``, ``gender`` (from the targets of
        the table's framework, ``data/wordsets/dong_career_family.yaml``) and ``score`` (the
        normalised log probability), 18 rows. ``attrs`` holds the table's ``framework`` and
        ``template``.

    Examples
    --------
    >>> from nlpbias.data.reported import load_reported
    >>> t = paper_topk(load_reported("dong2020"))
    >>> len(t), t.loc[0, "attribute"], t.loc[0, "target"], float(t.loc[0, "score"])
    (18, 'executive', 'he', 0.08)
    """
    table = rep.get("table3")
    if not isinstance(table, Mapping) or "ranks" not in table:
        raise KeyError("dong2020.yaml has no 'table3' with 'ranks'; restore the file")
    from nlpbias.data.wordsets import load_wordset

    targets = load_wordset(table.get("framework", "dong_career_family")).targets
    gender = {w: g for g in ("female", "male") for w in targets[g]}
    rows = []
    for attribute, ranked in table["ranks"].items():
        for rank, (target, score) in enumerate(ranked, start=1):
            rows.append(
                {"model": table.get("model", BASE_MODEL), "attribute": attribute, "rank": rank,
                 "target": target, "gender": gender.get(target),
                 "score": float(score)}
            )  # fmt: skip
    out = pd.DataFrame(rows)
    out.attrs.update({k: table[k] for k in ("framework", "template") if k in table})
    return out


# ----------------------------------------------------------------------------- this book
def _person_values(biases: pd.DataFrame) -> dict[tuple[str, str], np.ndarray]:
    """(person, concept) -> the per-seed biases, in seed order."""
    out = {}
    for (person, concept), sub in biases.groupby(["person", "concept"], sort=False):
        out[str(person), str(concept)] = sub.sort_values("seed")["bias"].to_numpy(float)
    return out


class _Book:
    """This book's numbers for the claims: per-seed biases of the people, the base model's."""

    def __init__(
        self, biases: pd.DataFrame, base_table: pd.DataFrame | None, base_label: str
    ) -> None:
        need = ["person", "seed", "concept", "bias", "base"]
        missing = [c for c in need if c not in biases.columns]
        if missing:
            raise KeyError(f"check_claims: biases lacks {missing}; pass seed_biases' output")
        if biases.empty:
            raise ValueError("check_claims: biases is empty; pass seed_biases' output")
        if biases.duplicated(["person", "seed", "concept"]).any():
            raise ValueError("check_claims: a (person, seed, concept) occurs twice; keep one")
        values = pd.to_numeric(biases["bias"], errors="coerce").to_numpy(float)
        if not np.isfinite(values).all():
            raise ValueError("check_claims: column 'bias' has missing or non-numeric values")
        self.people = _person_values(biases)
        self.base = biases.groupby("concept", sort=False)["base"].first().astype(float).to_dict()
        self.base_ci: dict[str, tuple[float, float]] = {}
        if base_table is not None:
            need = ["model", "attribute", "ci_low", "ci_high"]
            missing = [c for c in need if c not in base_table.columns]
            if missing:
                raise KeyError(
                    f"check_claims: base_table lacks {missing}; pass bias_table's output"
                )
            rows = base_table[base_table["model"] == base_label]
            if rows.empty:
                raise ValueError(
                    f"check_claims: base_table has no rows of {base_label!r}; models: "
                    f"{sorted(base_table['model'].astype(str).unique())}"
                )
            self.base_ci = {
                str(r.attribute): (float(r.ci_low), float(r.ci_high))
                for r in rows.itertuples(index=False)
            }

    def has(self, model: str) -> bool:
        if model == BASE_MODEL:
            return bool(self.base)
        return any(p == model for p, _ in self.people)

    def values(self, model: str, concept: str) -> np.ndarray:
        """The per-seed biases (the base model: its one value)."""
        if model == BASE_MODEL:
            if concept not in self.base:
                raise KeyError(f"check_claims: the base model has no concept {concept!r}")
            return np.array([self.base[concept]])
        if (model, concept) not in self.people:
            raise KeyError(f"check_claims: {model} has no concept {concept!r} in biases")
        return self.people[model, concept]

    def band(self, model: str, concept: str) -> tuple[float, float, float, str]:
        """(value, low, high, name of the band); NaN bounds where there is none."""
        v = self.values(model, concept)
        if model == BASE_MODEL:
            low, high = self.base_ci.get(concept, (np.nan, np.nan))
            return float(v[0]), low, high, "bootstrap 95 % interval"
        if v.size < 2:
            return float(v[0]), np.nan, np.nan, "one seed"
        mean, spread = float(v.mean()), float(np.ptp(v))
        return mean, mean - spread, mean + spread, f"mean ± range over {v.size} seeds"

    def sign(self, model: str, concept: str) -> tuple[int | None, str]:
        """The established sign (None: not established) and why."""
        value, low, high, name = self.band(model, concept)
        if not (np.isfinite(low) and np.isfinite(high)):
            return None, f"{name}: no interval"
        if low > 0:
            return 1, f"{name} above 0"
        if high < 0:
            return -1, f"{name} below 0"
        return 0, f"{name} includes 0"


def _fmt_band(book: _Book, model: str, concept: str) -> str:
    value, low, high, _ = book.band(model, concept)
    if np.isfinite(low) and np.isfinite(high):
        return f"{_num(value)} [{_num(low)}, {_num(high)}]"
    return f"{_num(value)} (no interval)"


def _sign_part(book: _Book, model: str, concept: str, sign: int) -> tuple[str, str]:
    """(outcome, why) of "model is <sign> on concept": holds / does not hold / untestable."""
    if model == BASE_MODEL:
        value, low, high, _ = book.band(model, concept)
        if not (np.isfinite(low) and np.isfinite(high)):
            return "untestable", f"the base model's {concept} has no interval"
        agree, why = sign_agreement(value, low, high, sign)
        return ("holds" if agree else "does not hold"), why
    established, why = book.sign(model, concept)
    if established is None:
        return "untestable", f"{model}'s {concept}: {why}"
    if established == sign:
        return "holds", why
    if established == 0:
        return "does not hold", f"{why}: the sign is not established"
    return "does not hold", f"{why}: {_WAY[established]}, not {_WAY[sign]}"


def _pair_values(book: _Book, a: str, b: str, concept: str, op: Any) -> np.ndarray:
    va, vb = book.values(a, concept), book.values(b, concept)
    return np.array([op(x, y) for x, y in itertools.product(va, vb)], dtype=float)


def _order_part(book: _Book, first: str, other: str, concept: str) -> tuple[str, str, str]:
    d = _pair_values(book, first, other, concept, lambda x, y: x - y)
    ours = f"{first} − {other}: mean {_num(float(d.mean()))}"
    if d.size < 2:
        return "untestable", ours, "one value (one seed): no range to compare with"
    ours += f", range {_num(float(np.ptp(d)))}"
    if exceeds_seed_spread(d) and d.mean() > 0:
        return "holds", ours, f"{first} is less pro-male than {other} beyond the seed spread"
    if exceeds_seed_spread(d):
        return "does not hold", ours, f"{first} is more pro-male than {other}"
    return "does not hold", ours, "the difference is within the seed spread"


def _ratio_part(
    book: _Book, first: str, second: str, concept: str, factor: float
) -> tuple[str, str, str]:
    for model in (first, second):
        sign, why = book.sign(model, concept)
        if sign is None:
            return "untestable", _fmt_band(book, model, concept), f"{model}'s {concept}: {why}"
        if sign == 0:
            return (
                "does not hold",
                _fmt_band(book, model, concept),
                f"{model}'s {concept} is not established ({why}): its size is no multiple",
            )
    r = _pair_values(book, first, second, concept, lambda x, y: abs(x) / abs(y))
    ours = f"|{first}| / |{second}|: mean {_num(float(r.mean()))}"
    if r.size < 2:
        return "untestable", ours, "one ratio (one seed each): no range to compare with"
    ours += f", range {_num(float(np.ptp(r)))}"
    if exceeds_seed_spread(r - factor):
        return "does not hold", ours, f"{factor:g} lies outside mean ± range of the ratios"
    return "holds", ours, f"{factor:g} lies within mean ± range of the ratios"


def _decide(parts: Sequence[str]) -> str:
    if not parts:
        return "not testable here"
    if any(p == "does not hold" for p in parts):
        return "does not hold"
    if all(p == "holds" for p in parts):
        return "holds"
    return "not testable here"


def _check_one(book: _Book, claim: Mapping[str, Any]) -> tuple[dict[str, Any], list[dict]]:
    kind = claim["kind"]
    if kind == "signs":
        models = list(claim["signs"])
        concepts = list(dict.fromkeys(c for s in claim["signs"].values() for c in s))
        described = "; ".join(
            f"{m} {_WAY[s]} on {c}" for m, signs in claim["signs"].items() for c, s in signs.items()
        )
    elif kind == "order":
        models, concepts = [claim["first"], *claim["others"]], [claim["concept"]]
        described = f"{claim['first']} least pro-male on {claim['concept']}"
    elif kind == "ratio":
        models, concepts = [claim["first"], claim["second"]], [claim["concept"]]
        described = (
            f"|{claim['first']}| = {claim['factor']:g} × |{claim['second']}| on {claim['concept']}"
        )
    else:
        models = list(claim["models"])
        concepts = list(claim.get("concepts", []))
        described = (
            f"some pro-male and some pro-female on {_and(concepts)}"
            if kind == "split"
            else "no rule in the words"
        )
    absent = [m for m in models if not book.has(m)]
    present = [m for m in models if book.has(m)]
    parts: list[dict[str, Any]] = []
    ours: list[str] = []
    why: list[str] = []
    if kind == "signs":
        for model, signs in claim["signs"].items():
            if model in absent:
                continue
            for concept, sign in signs.items():
                outcome, reason = _sign_part(book, model, concept, int(sign))
                parts.append({"model": model, "concept": concept, "outcome": outcome})
                ours.append(f"{model} {concept} {_fmt_band(book, model, concept)}")
                why.append(f"{model} {concept}: {reason}")
    elif kind in ("order", "ratio"):
        first = claim["first"]
        others = claim["others"] if kind == "order" else [claim["second"]]
        if first in present:
            for other in (o for o in others if o in present):
                if kind == "order":
                    outcome, said, reason = _order_part(book, first, other, claim["concept"])
                else:
                    outcome, said, reason = _ratio_part(
                        book, first, other, claim["concept"], float(claim["factor"])
                    )
                parts.append({"model": other, "concept": claim["concept"], "outcome": outcome})
                ours.append(said)
                why.append(reason)
    elif kind == "split":
        for concept in concepts:
            signs = {m: book.sign(m, concept)[0] for m in present}
            ours.append(
                f"{concept}: " + ", ".join(f"{m} {_fmt_band(book, m, concept)}" for m in present)
            )
            has_both = {-1, 1} <= set(signs.values())
            outcome = "holds" if has_both else "does not hold"
            parts.append({"model": "all", "concept": concept, "outcome": outcome})
            why.append(
                f"{concept}: both signs established"
                if has_both
                else f"{concept}: not both signs established"
            )
    testable = present and kind != "qualitative"
    here = _decide([p["outcome"] for p in parts]) if testable else None
    if kind == "qualitative":
        verdict, reason = "not testable here", "the words set no rule to test"
    elif absent:
        verdict = "not testable here"
        reason = f"{_and(absent)} not in this book"
        if present:
            reason += f"; on {_and(present)}: {here}"
    else:
        verdict, reason = here, ""
    row = {
        "key": claim["key"],
        "claim": described,
        "paper's words": " ".join(str(claim["words"]).split()),
        "models": ", ".join(models),
        "concepts": ", ".join(concepts),
        "ours": "; ".join(ours),
        "verdict": verdict,
        "verdict here": here if absent or kind == "qualitative" else verdict,
        "absent": ", ".join(absent),
        "why": "; ".join(x for x in [reason, *why] if x),
    }
    return row, parts


def check_claims(
    biases: pd.DataFrame,
    rep: Mapping[str, Any],
    *,
    base_table: pd.DataFrame | None,
    base_label: str,
) -> pd.DataFrame:
    """Decide each of Dong's cross-model claims on this book's models (rules: module docstring).

    Parameters
    ----------
    biases : pandas.DataFrame
        :func:`~nlpbias.studies.scoring.seeds.seed_biases` output: ``person, seed, concept,
        bias, base`` (the base model's bias per concept in ``base``).
    rep : mapping
        :func:`~nlpbias.studies.scoring.study.reported` (``claims``).
    base_table : pandas.DataFrame or None
        :func:`~nlpbias.studies.scoring.study.bias_table` output, for the base model's bootstrap
        intervals; None: the base model's signs are not testable (no interval).
    base_label : str
        The base model's label in ``base_table``; it stands for the paper's BERT-base.

    Returns
    -------
    pandas.DataFrame
        One row per claim, in the file's order: ``key``, ``claim`` (its rule in short),
        ``paper's words``, ``models``, ``concepts``, ``ours`` (our numbers: per model the bias
        and its band, or the differences / ratios and their range), ``verdict`` (one of
        :data:`VERDICTS`), ``verdict here`` (the verdict on the models this book has; None for
        a qualitative claim or where it has none of the claim's models), ``absent`` (the
        claim's models not in this book) and ``why``.

    Examples
    --------
    >>> biases = pd.DataFrame({"person": ["Trump"] * 2, "seed": [0, 1],
    ...                        "concept": ["career"] * 2, "bias": [-0.30, -0.34],
    ...                        "base": [-0.2] * 2})
    >>> rep = {"claims": [{"key": "k", "words": "Trump is pro-male on career.",
    ...                    "kind": "signs", "signs": {"Trump": {"career": -1}}}]}
    >>> check_claims(biases, rep, base_table=None, base_label="base")["verdict"].tolist()
    ['holds']
    """
    book = _Book(biases, base_table, base_label)
    rows = [_check_one(book, claim)[0] for claim in paper_claims(rep)]
    return pd.DataFrame(rows)


def _paper_value(rep: Mapping[str, Any], model: str, concept: str) -> float:
    if model == BASE_MODEL:
        return float(rep.get("base_bias", {}).get(concept, np.nan))
    if concept == "average":
        return float(rep.get("average", {}).get(model, np.nan))
    return np.nan


def claim_parts(
    biases: pd.DataFrame,
    rep: Mapping[str, Any],
    *,
    base_table: pd.DataFrame | None,
    base_label: str,
) -> pd.DataFrame:
    """Per (model, concept) that a ``signs`` claim names: the paper's sign and our band.

    The numbers :func:`nlpbias.studies.scoring.figures.claims_figure` draws: ``model``,
    ``concept``, ``paper sign`` (-1 / 1), ``paper value`` (where the paper prints a number:
    BERT-base's per concept from ``rep["base_bias"]``, a person's average from
    ``rep["average"]``; else NaN), ``value`` (the base model's bias or a person's mean
    over seeds), ``low``, ``high`` (the band; NaN where none), ``band`` (its name) and
    ``present`` (False for a model not in this book: no numbers). One row per (model, concept),
    the first claim that names it giving the paper's sign.
    """
    book = _Book(biases, base_table, base_label)
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for claim in paper_claims(rep):
        if claim["kind"] != "signs":
            continue
        for model, signs in claim["signs"].items():
            for concept, sign in signs.items():
                if (model, concept) in rows:
                    continue
                row = {"model": model, "concept": concept, "paper sign": int(sign),
                       "paper value": _paper_value(rep, model, concept), "value": np.nan,
                       "low": np.nan, "high": np.nan, "band": "",
                       "present": book.has(model)}  # fmt: skip
                if row["present"]:
                    value, low, high, name = book.band(model, concept)
                    row.update(value=value, low=low, high=high, band=name)
                rows[model, concept] = row
    return pd.DataFrame(list(rows.values()))
