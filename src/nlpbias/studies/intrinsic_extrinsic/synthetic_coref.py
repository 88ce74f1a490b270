"""A generated stand-in for the coreference task: GAP-like training data, WinoBias-like tests.

The real task trains on GAP and tests on WinoBias (both in the data home). Without the data
home (profiles ``smoke`` and ``demo``) the study runs on sentences generated from the project's
templates (``data/templates/coref_standin.yaml``) and the WinoBias occupations of
``data/wordsets/winobias_occupations.yaml``:

- **training** (GAP schema, :func:`nlpbias.data.coref.load_gap`): "The {a} <verb> the {b} because
  {pronoun} <rest>." from the ``train`` templates, occupations drawn uniformly from all 40 and the
  pronoun's gender drawn independently; the template says whether the pronoun refers to ``a`` or
  ``b``. A share ``p_ambiguous`` of the sentences use the cue-free ``ambiguous`` templates ("The
  {a} met the {b} and then {pronoun} left."), with one stereotypically male and one female
  occupation, and the pronoun refers to the one whose stereotype matches its gender: the
  association real corpora carry (the paper's coreference model learns it from OntoNotes), which
  a model can only pick up through the embedding's geometry.
- **tests** (WinoBias schema, :func:`nlpbias.data.coref.load_winobias`): every template with a
  stereotypically male and a stereotypically female occupation; *pro* when the pronoun's gender
  matches the gold occupation's stereotype, *anti* otherwise. Type 2 uses the training templates
  (cues the model has seen), type 1 the ``heldout`` templates (unseen cues), so on type 1 a model
  falls back on the embedding's associations between occupations and pronouns.

It is a stand-in: it has the schemas and the mechanism of the real data, not their language.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import pandas as pd
import yaml

from nlpbias.core.paths import data_file
from nlpbias.core.repro import rng as _rng

__all__ = ["make_coref_standin", "standin_templates"]

_PRONOUNS = {"male": "he", "female": "she"}


def _templates() -> dict[str, tuple[tuple[str, str, str, str], ...]]:
    path = data_file("templates", "coref_standin.yaml")  # parsed once per version
    return _parse_templates(str(path), path.stat().st_mtime_ns)


@lru_cache(maxsize=4)
def _parse_templates(path: str, mtime_ns: int) -> dict[str, tuple[tuple[str, str, str, str], ...]]:
    with open(path, encoding="utf-8") as fh:
        spec = yaml.safe_load(fh)
    out = {}
    for part, refs in (("train", ("a", "b")), ("heldout", ("a", "b")), ("ambiguous", (None,))):
        rows = spec.get(part) or []
        if not rows or any(len(r) != 4 or r[3] not in refs for r in rows):
            raise ValueError(f"{path}: '{part}' needs rows [verb, connector, rest, {refs}]")
        out[part] = tuple((*map(str, r[:3]), r[3]) for r in rows)
    return out


def standin_templates() -> pd.DataFrame:
    """The templates, one row each: ``part`` (train/heldout), ``verb``, ``connector``, ``rest``,
    ``referent`` (a/b).

    Examples
    --------
    >>> standin_templates().groupby("part").size().to_dict()
    {'ambiguous': 4, 'heldout': 8, 'train': 16}
    """
    rows = [
        {"part": part, "verb": v, "connector": c, "rest": r, "referent": ref}
        for part, tmpls in _templates().items()
        for v, c, r, ref in tmpls
    ]
    return pd.DataFrame(rows)


def _occupations() -> tuple[list[str], list[str]]:
    from nlpbias.data.wordsets import load_wordset

    ws = load_wordset("winobias_occupations")
    male, female = (list(ws.targets[name]) for name in ws.target_names)
    return [o.lower() for o in male], [o.lower() for o in female]


def _sentence(a: str, b: str, tmpl: tuple[str, str, str, str], pronoun: str) -> dict:
    verb, conn, rest, referent = tmpl
    head = f"The {a} {verb} the "
    b_start = len(head)
    middle = f"{head}{b} {conn} "
    p_start = len(middle)
    text = f"{middle}{pronoun} {rest}."
    return {
        "text": text,
        "a_start": 4,
        "b_start": b_start,
        "pronoun_start": p_start,
        "referent": referent,
    }


def _gap_rows(
    n: int, gen: np.random.Generator, male: list[str], female: list[str], p_ambiguous: float
) -> pd.DataFrame:
    tmpls, ambiguous = _templates()["train"], _templates()["ambiguous"]
    occ = male + female
    rows = []
    for i in range(n):
        gender = "male" if gen.random() < 0.5 else "female"
        pronoun = _PRONOUNS[gender]
        if gen.random() < p_ambiguous:
            m, f = male[int(gen.integers(len(male)))], female[int(gen.integers(len(female)))]
            a, b = (m, f) if gen.random() < 0.5 else (f, m)
            gold = m if gender == "male" else f
            verb, conn, rest, _ = ambiguous[int(gen.integers(len(ambiguous)))]
            tmpl = (verb, conn, rest, "a" if gold == a else "b")
        else:
            ia, ib = gen.choice(len(occ), size=2, replace=False)
            a, b = occ[ia], occ[ib]
            tmpl = tmpls[int(gen.integers(len(tmpls)))]
        s = _sentence(a, b, tmpl, pronoun)
        rows.append(
            {
                "id": f"standin-{i}",
                "text": s["text"],
                "pronoun": pronoun,
                "pronoun_offset": s["pronoun_start"],
                "a": a,
                "a_offset": s["a_start"],
                "a_coref": s["referent"] == "a",
                "b": b,
                "b_offset": s["b_start"],
                "b_coref": s["referent"] == "b",
                "url": "",
            }
        )
    return pd.DataFrame(rows)


def _winobias_rows(
    tmpls: tuple, male: list[str], female: list[str], kind: int, stereotype: str, n: int, gen
) -> pd.DataFrame:
    rows = []
    for i in range(n):
        tmpl = tmpls[i % len(tmpls)]
        m, f = male[int(gen.integers(len(male)))], female[int(gen.integers(len(female)))]
        male_first = bool(gen.random() < 0.5)
        a, b = (m, f) if male_first else (f, m)
        gold = a if tmpl[3] == "a" else b
        gold_gender = "male" if gold == m else "female"
        if stereotype == "pro":
            gender = gold_gender
        else:
            gender = "female" if gold_gender == "male" else "male"
        pronoun = _PRONOUNS[gender]
        s = _sentence(a, b, tmpl, pronoun)
        start = s["a_start"] - 4 if tmpl[3] == "a" else s["b_start"] - 4
        mention = s["text"][start : start + 4 + len(gold)]
        rows.append(
            {
                "id": i + 1,
                "text": s["text"],
                "mention": mention,
                "mention_start": start,
                "mention_end": start + len(mention),
                "pronoun": pronoun,
                "pronoun_start": s["pronoun_start"],
                "pronoun_end": s["pronoun_start"] + len(pronoun),
                "pronoun_gender": gender,
                "n_pronouns": 1,
                "stereotype": stereotype,
                "kind": kind,
                "split": "test",
            }
        )
    return pd.DataFrame(rows)


def make_coref_standin(
    *, n_train: int = 2000, n_test: int = 200, p_ambiguous: float = 0.3, random_state: int = 0
) -> dict[str, object]:
    """Generate the stand-in: GAP-like training rows, WinoBias-like tests, the occupations.

    Parameters
    ----------
    n_train : int, default 2000
        Training sentences (GAP has 2,000 development + 454 validation).
    n_test : int, default 200
        Sentences per WinoBias file (type × pro/anti).
    p_ambiguous : float in [0, 1], default 0.3
        Share of training sentences without a cue, resolved by the occupation's stereotype.
    random_state : int, default 0

    Returns
    -------
    dict
        ``gap`` (DataFrame in :func:`~nlpbias.data.coref.load_gap`'s schema), ``winobias``
        (dict ``(kind, stereotype) -> DataFrame`` in :func:`~nlpbias.data.coref.load_winobias`'s
        schema) and ``occupations`` (DataFrame: ``occupation``, ``pct_women`` (NaN: the stand-in
        has no labour statistics), ``group``, ``bls_occupation``).

    Examples
    --------
    >>> d = make_coref_standin(n_train=10, n_test=4)
    >>> int(d["gap"].loc[0, ["a_coref", "b_coref"]].sum())
    1
    >>> row = d["winobias"][(1, "pro")].iloc[0]
    >>> row["text"][row["mention_start"]:row["mention_end"]] == row["mention"]
    True
    """
    for name, value in (("n_train", n_train), ("n_test", n_test)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    if not 0.0 <= p_ambiguous <= 1.0:
        raise ValueError(f"p_ambiguous must lie in [0, 1], got {p_ambiguous!r}")
    gen = _rng(random_state)
    male, female = _occupations()
    gap = _gap_rows(n_train, gen, male, female, float(p_ambiguous))
    tm = _templates()
    winobias = {
        (kind, st): _winobias_rows(
            tm["heldout"] if kind == 1 else tm["train"], male, female, kind, st, n_test, gen
        )
        for kind in (1, 2)
        for st in ("pro", "anti")
    }
    occupations = pd.DataFrame(
        {
            "occupation": male + female,
            "pct_women": np.nan,
            "group": ["male_biased"] * len(male) + ["female_biased"] * len(female),
            "bls_occupation": male + female,
        }
    )
    return {"gap": gap, "winobias": winobias, "occupations": occupations}
