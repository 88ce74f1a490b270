"""Loaders for coreference data: WinoBias (Zhao et al., 2018) and GAP (Webster et al., 2018).

Files come from the data home through :func:`nlpbias.data.store.path` (checksum-verified);
pass ``path=`` to read a file directly instead (no registry, no checksum).
"""

from __future__ import annotations

import csv
import logging
import re
from pathlib import Path

import pandas as pd

from nlpbias.core.checks import check_choice
from nlpbias.data.store import resolve as _resolve

__all__ = [
    "GAP_SPLITS",
    "PRONOUN_GENDER",
    "load_gap",
    "load_winobias",
    "load_winobias_occupations",
    "parse_winobias_line",
]

logger = logging.getLogger(__name__)

#: Gendered pronouns that WinoBias brackets, with their grammatical gender.
PRONOUN_GENDER: dict[str, str] = {
    "he": "male",
    "him": "male",
    "his": "male",
    "himself": "male",
    "she": "female",
    "her": "female",
    "hers": "female",
    "herself": "female",
}

#: GAP file per split.
GAP_SPLITS: dict[str, str] = {
    "development": "gap-development.tsv",
    "test": "gap-test.tsv",
    "validation": "gap-validation.tsv",
}

_LINE = re.compile(r"^(\d+) (.+)$")
_BRACKET = re.compile(r"\[([^\[\]]*)\]")


def parse_winobias_line(line: str) -> dict[str, object]:
    """Parse one WinoBias line ``<id> <sentence with [mention] and [pronoun] bracketed>``.

    Parameters
    ----------
    line : str
        A line of a WinoBias ``*_stereotyped_type*.txt.*`` file.

    Returns
    -------
    dict
        ``id``, ``text`` (brackets removed), ``mention``, ``mention_start``, ``mention_end``,
        ``pronoun``, ``pronoun_start``, ``pronoun_end`` (character offsets into ``text``, end
        exclusive), ``pronoun_gender`` and ``n_pronouns``. When a sentence brackets more than one
        pronoun (e.g. "... because [she] needed to cut [her] hair"), ``pronoun`` is the first.

    Examples
    --------
    >>> r = parse_winobias_line("1 [The developer] argued with the designer because [he] lied.")
    >>> r["text"], r["mention"], r["pronoun_start"]
    ('The developer argued with the designer because he lied.', 'The developer', 47)
    """
    m = _LINE.match(line.rstrip("\r\n"))
    if m is None:
        raise ValueError(f"winobias: line {line[:60]!r} does not look like '<id> <sentence>'")
    body = m.group(2)
    pieces: list[str] = []
    spans: list[tuple[str, int, int]] = []
    pos = 0
    length = 0
    for b in _BRACKET.finditer(body):
        before = body[pos : b.start()]
        pieces.append(before)
        length += len(before)
        spans.append((b.group(1), length, length + len(b.group(1))))
        pieces.append(b.group(1))
        length += len(b.group(1))
        pos = b.end()
    pieces.append(body[pos:])
    text = "".join(pieces)
    if "[" in text or "]" in text:
        raise ValueError(f"winobias: unbalanced brackets in line {line[:60]!r}")
    pronouns = [s for s in spans if s[0].lower() in PRONOUN_GENDER]
    mentions = [s for s in spans if s[0].lower() not in PRONOUN_GENDER]
    if len(mentions) != 1 or not pronouns:
        raise ValueError(
            f"winobias: expected one bracketed mention and at least one bracketed pronoun in "
            f"line {line[:60]!r}, found {[s[0] for s in spans]}"
        )
    (mention, ms, me), (pronoun, ps, pe) = mentions[0], pronouns[0]
    return {
        "id": int(m.group(1)),
        "text": text,
        "mention": mention,
        "mention_start": ms,
        "mention_end": me,
        "pronoun": pronoun,
        "pronoun_start": ps,
        "pronoun_end": pe,
        "pronoun_gender": PRONOUN_GENDER[pronoun.lower()],
        "n_pronouns": len(pronouns),
    }


def load_winobias(
    *,
    stereotype: str = "pro",
    kind: int = 1,
    split: str = "dev",
    path: str | Path | None = None,
) -> pd.DataFrame:
    """Load one WinoBias sentence file, one row per sentence.

    Parameters
    ----------
    stereotype : {'pro', 'anti'}, default 'pro'
        Pro-stereotypical (pronoun gender matches the occupation's majority gender) or anti.
    kind : {1, 2}, default 1
        Type 1 sentences need world knowledge to resolve; type 2 can be resolved by syntax.
    split : {'dev', 'test'}, default 'dev'
    path : str or Path, optional
        Read this file directly (``stereotype``/``kind``/``split`` are then only recorded).

    Returns
    -------
    pandas.DataFrame
        Columns ``id``, ``text`` (brackets removed), ``mention`` (the gold antecedent),
        ``mention_start``/``mention_end`` and ``pronoun_start``/``pronoun_end`` (character offsets
        into ``text``, end exclusive), ``pronoun``, ``pronoun_gender``, ``n_pronouns`` (bracketed
        pronouns in the sentence; ``pronoun`` is the first), ``stereotype``, ``kind``, ``split``.
        Pro and anti files share ids: row ``id`` of one is the gender-swapped twin of the other.

    Examples
    --------
    >>> df = load_winobias(stereotype="anti", kind=2, split="test")  # doctest: +SKIP
    >>> len(df)  # doctest: +SKIP
    396
    """
    check_choice(stereotype, "stereotype", ["pro", "anti"])
    check_choice(kind, "kind", [1, 2])
    check_choice(split, "split", ["dev", "test"])
    kind = int(kind)
    src = _resolve("winobias", f"{stereotype}_stereotyped_type{kind}.txt.{split}", path)
    with open(src, encoding="utf-8") as fh:
        rows = [parse_winobias_line(line) for line in fh if line.strip()]
    if not rows:
        raise ValueError(f"winobias: {src.name} has no sentences; check the file")
    out = pd.DataFrame(rows)
    out["stereotype"] = stereotype
    out["kind"] = kind
    out["split"] = split
    logger.info(
        "winobias %s type%d %s: %d sentences from %s", stereotype, kind, split, len(out), src
    )
    return out


def load_winobias_occupations(*, path: str | Path | None = None) -> pd.DataFrame:
    """Load the 40 WinoBias occupations with the US BLS percentage of women in each.

    Parameters
    ----------
    path : str or Path, optional
        Read this ``occupations_bls_pct_women.csv`` directly.

    Returns
    -------
    pandas.DataFrame
        Columns ``occupation`` (as spelled in the WinoBias sentences), ``pct_women`` (BLS %),
        ``group`` (``male_biased`` / ``female_biased``) and ``bls_occupation`` (as in the table).

    Examples
    --------
    >>> occ = load_winobias_occupations()  # doctest: +SKIP
    >>> occ.set_index("occupation").loc["nurse", "pct_women"]  # doctest: +SKIP
    90.0
    """
    src = _resolve("winobias", "occupations_bls_pct_women.csv", path)
    raw = pd.read_csv(src, keep_default_na=False, na_values={"pct_women_bls": [""]})
    need = ["occupation_as_in_table", "occupation_in_winobias", "pct_women_bls", "group"]
    missing = [c for c in need if c not in raw.columns]
    if missing:
        raise ValueError(f"winobias occupations: {src.name} lacks columns {missing}; need {need}")
    pct = pd.to_numeric(raw["pct_women_bls"], errors="coerce")
    if pct.isna().any() or not pct.between(0, 100).all():
        raise ValueError(f"winobias occupations: {src.name} has pct_women_bls outside 0..100")
    return pd.DataFrame(
        {
            "occupation": raw["occupation_in_winobias"],
            "pct_women": pct.astype(float),
            "group": raw["group"],
            "bls_occupation": raw["occupation_as_in_table"],
        }
    )


_GAP_COLUMNS = [
    "ID",
    "Text",
    "Pronoun",
    "Pronoun-offset",
    "A",
    "A-offset",
    "A-coref",
    "B",
    "B-offset",
    "B-coref",
    "URL",
]


def load_gap(split: str = "development", *, path: str | Path | None = None) -> pd.DataFrame:
    """Load one split of the GAP gender-balanced ambiguous-pronoun dataset.

    Parameters
    ----------
    split : {'development', 'test', 'validation'}, default 'development'
        2,000 / 2,000 / 454 examples.
    path : str or Path, optional
        Read this TSV directly.

    Returns
    -------
    pandas.DataFrame
        The GAP columns in snake_case: ``id``, ``text``, ``pronoun``, ``pronoun_offset``, ``a``,
        ``a_offset``, ``a_coref``, ``b``, ``b_offset``, ``b_coref``, ``url``. Offsets are
        character offsets into ``text``; ``a_coref``/``b_coref`` are bool.

    Examples
    --------
    >>> gap = load_gap("validation")  # doctest: +SKIP
    >>> row = gap.iloc[0]  # doctest: +SKIP
    >>> row["text"][row["pronoun_offset"] :].startswith(row["pronoun"])  # doctest: +SKIP
    True
    """
    check_choice(split, "split", list(GAP_SPLITS))
    src = _resolve("gap", GAP_SPLITS[split], path)
    # GAP is a plain TSV with no quoting; texts may start with a quote character.
    raw = pd.read_csv(src, sep="\t", quoting=csv.QUOTE_NONE, keep_default_na=False)
    missing = [c for c in _GAP_COLUMNS if c not in raw.columns]
    if missing:
        raise ValueError(f"gap: {src.name} lacks columns {missing}; need {_GAP_COLUMNS}")
    out = raw[_GAP_COLUMNS].copy()
    out.columns = [c.lower().replace("-", "_") for c in _GAP_COLUMNS]
    for c in ("pronoun_offset", "a_offset", "b_offset"):
        out[c] = pd.to_numeric(out[c], errors="raise").astype(int)
    for c in ("a_coref", "b_coref"):
        if out[c].dtype != bool:
            mapped = out[c].astype(str).str.lower().map({"true": True, "false": False})
            if mapped.isna().any():
                raise ValueError(f"gap: {src.name} column {c} must be TRUE/FALSE")
            out[c] = mapped.astype(bool)
    logger.info("gap %s: %d examples from %s", split, len(out), src)
    return out
