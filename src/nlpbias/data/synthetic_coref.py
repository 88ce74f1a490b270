"""A generated stand-in for the coreference task: GAP-like training data, WinoBias-like tests.

The real task trains on GAP and tests on WinoBias (both in the data home). Without the data
home (profiles ``smoke`` and ``demo``) the study runs on sentences generated from the project's
templates (``data/templates/coref_standin.yaml``) and the WinoBias occupations of
``data/wordsets/winobias_occupations.yaml``:

- **training** (GAP schema, :func:`nlpbias.data.coref.load_gap`): "The {a} <verb> the {b} because
  {pronoun} <rest>." from the ``train`` templates, occupations drawn uniformly from all 40 and the
  pronoun's gender drawn independently (so, like GAP, the training data carry no gender-occupation
  association); the template says whether the pronoun refers to ``a`` or ``b``.
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

from nlpbias.data.identity import data_dir
from nlpbias.repro import rng as _rng

__all__ = ["make_coref_standin", "standin_templates"]

_PRONOUNS = {"male": "he", "female": "she"}


@lru_cache(maxsize=1)
def _templates() -> dict[str, tuple[tuple[str, str, str, str], ...]]:
    path = data_dir() / "templates" / "coref_standin.yaml"
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = {}
    for part in ("train", "heldout"):
        rows = spec.get(part) or []
        if not rows or any(len(r) != 4 or r[3] not in ("a", "b") for r in rows):
            raise ValueError(f"{path}: '{part}' needs rows [verb, connector, rest, a|b]")
        out[part] = tuple(tuple(map(str, r)) for r in rows)
    return out


def standin_templates() -> pd.DataFrame:
    """The templates, one row each: ``part`` (train/heldout), ``verb``, ``connector``, ``rest``,
    ``referent`` (a/b).

    Examples
    --------
    >>> standin_templates().groupby("part").size().to_dict()
    {'heldout': 8, 'train': 16}
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


def _gap_rows(n: int, gen: np.random.Generator, occ: list[str]) -> pd.DataFrame:
    tmpls = _templates()["train"]
    rows = []
    for i in range(n):
        a, b = gen.choice(len(occ), size=2, replace=False)
        tmpl = tmpls[int(gen.integers(len(tmpls)))]
        pronoun = _PRONOUNS["male" if gen.random() < 0.5 else "female"]
        s = _sentence(occ[a], occ[b], tmpl, pronoun)
        rows.append(
            {
                "ID": f"standin-{i}",
                "Text": s["text"],
                "Pronoun": pronoun,
                "Pronoun-offset": s["pronoun_start"],
                "A": occ[a],
                "A-offset": s["a_start"],
                "A-coref": s["referent"] == "a",
                "B": occ[b],
                "B-offset": s["b_start"],
                "B-coref": s["referent"] == "b",
                "URL": "",
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
    *, n_train: int = 2000, n_test: int = 200, random_state: int = 0
) -> dict[str, object]:
    """Generate the stand-in: GAP-like training rows, WinoBias-like tests, the occupations.

    Parameters
    ----------
    n_train : int, default 2000
        Training sentences (GAP has 2,000 development + 454 validation).
    n_test : int, default 200
        Sentences per WinoBias file (type × pro/anti).
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
    >>> int(d["gap"].loc[0, ["A-coref", "B-coref"]].sum())
    1
    >>> row = d["winobias"][(1, "pro")].iloc[0]
    >>> row["text"][row["mention_start"]:row["mention_end"]] == row["mention"]
    True
    """
    for name, value in (("n_train", n_train), ("n_test", n_test)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")
    gen = _rng(random_state)
    male, female = _occupations()
    gap = _gap_rows(n_train, gen, male + female)
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
