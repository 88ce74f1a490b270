"""Headline rows and the verdict rules of the reproduction scorecard, written once.

Every study exposes its headlines — one claim of its paper each, with the paper's number and this
book's — as rows built by :func:`headline`; the chapter shows them with :func:`glue_rows` (a
table for the reader, and the rows glued with myst-nb's ``glue`` under the name
:data:`GLUE_NAME`, so the scorecard page can read them from the executed notebook), and the
scorecard page (:mod:`nlpbias.book.scorecard`) stacks the rows of every chapter. The verdict
of a row is computed here, from its numbers, by the rules in :data:`RULES`; the page prints
those rules before its table (:func:`rules_markdown`).

A claim is one of two kinds:

``direction``
    The paper reports an effect with a sign (a gap, a difference, a correlation). Its number is a
    point or a range ``[paper_low, paper_high]``; where the paper states only the direction (e.g.
    "the approximation agrees with retraining") the row carries that sign (``sign=+1``) and no
    number.
``null``
    The paper reports the *absence* of an effect (a correlation near zero, no significant gap).

This book's number comes with a 95 % interval ``[ci_low, ci_high]`` (bootstrap over models or
seeds, or the range over seeds; the row says which in ``interval``). A row whose number comes from a
synthetic stand-in (``data="synthetic"``: the ``smoke`` and ``demo`` profiles) is not a test of
the paper, and neither is a row without a number.

Examples
--------
>>> row = headline(
...     study="demo", key="gap", claim="Group A scores higher than group B.",
...     paper=0.3, book=0.25, ci_low=0.1, ci_high=0.4, interval="bootstrap over 5 seeds",
...     data="real", chapter="demo", section="the-gap")
>>> row["verdict"], row["reason"]
('reproduced', "same sign, interval excludes 0, and the paper's number lies inside it")
>>> headline(study="demo", key="gap", claim="c", paper=0.3, book=0.25, ci_low=-0.1,
...          ci_high=0.4, interval="bootstrap", data="real", chapter="demo",
...          section="s")["verdict"]
'not reproduced'
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

__all__ = [
    "COLUMNS",
    "DATA_KINDS",
    "GLUE_NAME",
    "KINDS",
    "RULES",
    "TABLE_MIME",
    "VERDICTS",
    "book_text",
    "check_rows",
    "glue_rows",
    "headline",
    "paper_text",
    "rows_from_json",
    "rows_to_json",
    "rules_markdown",
    "verdict",
]

#: The four verdicts, from best to worst agreement (``not testable offline`` last).
VERDICTS = ("reproduced", "direction only", "not reproduced", "not testable offline")
#: What a claim says: an effect with a sign, or no effect.
KINDS = ("direction", "null")
#: Where this book's number comes from: the paper's data or a real substitute for it (``real``),
#: or a synthetic stand-in with a planted effect (``synthetic``, profiles ``smoke`` and ``demo``).
DATA_KINDS = ("real", "synthetic")
#: The name under which :func:`glue_rows` glues a chapter's rows (``myst_nb.glue``).
GLUE_NAME = "headlines"
#: The MIME type of the glued rows: a frame as JSON with its Table Schema (pandas' option
#: ``display.html.table_schema``), a type that a notebook may hold as JSON.
TABLE_MIME = "application/vnd.dataresource+json"

#: One line per rule, in the order they are applied; the page prints them before the table.
RULES = (
    (
        "not testable offline",
        "this book has no number for the claim, or its number comes from a synthetic stand-in "
        "(profiles `smoke` and `demo`), which tests the code, not the paper.",
    ),
    (
        "reproduced",
        "for an effect with a sign: this book's 95 % interval excludes zero on the paper's side "
        "*and* overlaps the paper's number (a point, or a range such as 0.83–0.91; where the "
        "paper states only the direction, excluding zero on its side is enough); for a "
        "reported absence of an effect: this book's interval includes zero.",
    ),
    (
        "direction only",
        "for an effect with a sign: the interval excludes zero on the paper's side but does not "
        "reach the paper's number.",
    ),
    (
        "not reproduced",
        "everything else: the interval includes zero (a sign counts as agreeing only where it "
        "excludes zero), lies on the other side, or — for a reported absence — excludes zero.",
    ),
)

COLUMNS = [
    "study",
    "key",
    "claim",
    "kind",
    "paper",
    "paper_low",
    "paper_high",
    "paper_sign",
    "book",
    "ci_low",
    "ci_high",
    "interval",
    "unit",
    "data",
    "verdict",
    "reason",
    "chapter",
    "section",
]


def _num(value: object, name: str) -> float:
    if value is None:
        return math.nan
    try:
        x = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or None, got {value!r}") from None
    if math.isinf(x):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return x


def _paper_sign(paper_low: float, paper_high: float, sign: int | None) -> int:
    """The sign of a direction claim: from the paper's number, or as given where it has none."""
    if math.isnan(paper_low) or math.isnan(paper_high):
        if sign not in (1, -1):
            raise ValueError(
                "a direction claim needs the paper's number (paper_low, paper_high), or its "
                "sign (sign=+1 or -1) where the paper states only the direction"
            )
        return sign
    if paper_low > paper_high:
        raise ValueError(f"paper_low {paper_low} is above paper_high {paper_high}")
    derived = 1 if paper_low > 0 else -1 if paper_high < 0 else 0
    if derived == 0:
        raise ValueError(
            f"a direction claim needs a paper number with a sign, got {paper_low}–{paper_high}; "
            "use kind='null' for a reported absence of an effect"
        )
    if sign is not None and sign != derived:
        raise ValueError(f"sign={sign} disagrees with the paper's number {paper_low}–{paper_high}")
    return derived


def verdict(
    *,
    kind: str,
    paper_low: float,
    paper_high: float,
    book: float,
    ci_low: float,
    ci_high: float,
    data: str,
    sign: int | None = None,
) -> tuple[str, str]:
    """The verdict and its reason in one line, by :data:`RULES`.

    Parameters
    ----------
    kind : {"direction", "null"}
        What the paper claims (see the module docstring).
    paper_low, paper_high : float
        The paper's number (equal for a point) or range. For ``null`` claims only their presence
        is used.
    book, ci_low, ci_high : float
        This book's number and its 95 % interval (NaN where missing).
    data : {"real", "synthetic"}
        Where this book's number comes from.
    sign : {+1, -1}, optional
        For a ``direction`` claim whose paper states only the direction (no number): its sign;
        ``paper_low`` and ``paper_high`` are then NaN.

    Examples
    --------
    >>> verdict(kind="direction", paper_low=0.8, paper_high=0.9, book=0.3, ci_low=0.1,
    ...         ci_high=0.5, data="real")
    ('direction only', "same sign, interval excludes 0, but does not reach the paper's 0.8–0.9")
    >>> verdict(kind="null", paper_low=0.1, paper_high=0.1, book=0.02, ci_low=-0.2,
    ...         ci_high=0.3, data="real")[0]
    'reproduced'
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if data not in DATA_KINDS:
        raise ValueError(f"data must be one of {DATA_KINDS}, got {data!r}")
    if kind == "direction":  # the paper's side is checked even where no test follows
        sign = _paper_sign(paper_low, paper_high, sign)
    if data == "synthetic":
        return VERDICTS[3], "synthetic stand-in on this profile; the `paper` profile tests it"
    if math.isnan(book):
        return VERDICTS[3], "no number in this book for this claim"
    lo = book if math.isnan(ci_low) else ci_low
    hi = book if math.isnan(ci_high) else ci_high
    if lo > hi:
        raise ValueError(f"ci_low {ci_low} is above ci_high {ci_high}")
    if kind == "null":
        if lo <= 0 <= hi:
            return VERDICTS[0], "the paper reports no effect, and this book's interval includes 0"
        return VERDICTS[2], "the paper reports no effect, but this book's interval excludes 0"
    if lo <= 0 <= hi:
        return VERDICTS[2], "this book's interval includes 0, so the sign is not established"
    if (lo > 0) != (sign > 0):
        return VERDICTS[2], "opposite sign: this book's interval excludes 0 on the other side"
    if math.isnan(paper_low):
        return VERDICTS[0], "same sign, interval excludes 0 (the paper states the direction only)"
    if hi >= paper_low and lo <= paper_high:
        return VERDICTS[0], "same sign, interval excludes 0, and the paper's number lies inside it"
    shown = f"{paper_low:g}" if paper_low == paper_high else f"{paper_low:g}–{paper_high:g}"
    return VERDICTS[1], f"same sign, interval excludes 0, but does not reach the paper's {shown}"


def headline(
    *,
    study: str,
    key: str,
    claim: str,
    book: float | None,
    ci_low: float | None,
    ci_high: float | None,
    interval: str,
    data: str,
    chapter: str,
    section: str,
    paper: float | Sequence[float] | None = None,
    kind: str = "direction",
    sign: int | None = None,
    unit: str = "",
    note: str = "",
) -> dict[str, Any]:
    """One headline row with its verdict (columns :data:`COLUMNS`).

    Parameters
    ----------
    study, key : str
        The study (its package name) and a short id unique within it.
    claim : str
        The paper's claim in one sentence.
    book, ci_low, ci_high : float or None
        This book's number and its 95 % interval; None where the book has none.
    interval : str
        What the interval is, e.g. ``"bootstrap over 5 seeds"``.
    data : {"real", "synthetic"}
        Where this book's number comes from (see :data:`DATA_KINDS`).
    chapter, section : str
        The chapter (its notebook name, e.g. ``"logan"``) and the id of the section that shows
        the number (the anchor of its heading, e.g. ``"does-the-bias-term-ever-help"``).
    paper : float, (low, high) or None
        The paper's number or range; None only for ``kind="null"`` claims without one.
    kind : {"direction", "null"}
        See the module docstring.
    sign : {+1, -1}, optional
        For a ``direction`` claim whose paper states only the direction: its sign (then
        ``paper=None``). Derived from ``paper`` otherwise.
    unit : str
        Unit of the numbers, e.g. ``"points"``.
    note : str
        Appended to the verdict's reason (e.g. what differs from the paper's setting).
    """
    for name, value in (("study", study), ("key", key), ("claim", claim), ("chapter", chapter)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"headline: {name} must be a non-empty string, got {value!r}")
    if isinstance(paper, Sequence) and not isinstance(paper, str):
        if len(paper) != 2:
            raise ValueError(
                f"headline {key!r}: paper must be a number or (low, high), got {paper}"
            )
        p_lo, p_hi = _num(paper[0], "paper[0]"), _num(paper[1], "paper[1]")
    else:
        p_lo = p_hi = _num(paper, "paper")
    values = {n: _num(v, n) for n, v in (("book", book), ("ci_low", ci_low), ("ci_high", ci_high))}
    v, reason = verdict(kind=kind, paper_low=p_lo, paper_high=p_hi, data=data, sign=sign, **values)
    paper_sign = 0 if kind == "null" else _paper_sign(p_lo, p_hi, sign)
    if note:
        reason = f"{reason}; {note}"
    return {
        "study": study,
        "key": key,
        "claim": claim,
        "kind": kind,
        "paper": (p_lo + p_hi) / 2,
        "paper_low": p_lo,
        "paper_high": p_hi,
        "paper_sign": paper_sign,
        **values,
        "interval": interval,
        "unit": unit,
        "data": data,
        "verdict": v,
        "reason": reason,
        "chapter": chapter,
        "section": section,
    }


def check_rows(rows: pd.DataFrame | Iterable[Mapping[str, Any]]) -> pd.DataFrame:
    """Rows as a frame with :data:`COLUMNS`, after checking them (unique keys, known verdicts)."""
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            f"headline rows lack column(s) {missing}; build each row with "
            "nlpbias.core.scorecard.headline"
        )
    dup = frame.duplicated(["study", "key"])
    if dup.any():
        raise ValueError(
            f"headline rows repeat (study, key): {frame.loc[dup, ['study', 'key']].values.tolist()}"
        )
    bad = sorted(set(frame["verdict"]) - set(VERDICTS))
    if bad:
        raise ValueError(f"unknown verdict(s) {bad}; expected one of {VERDICTS}")
    return frame[COLUMNS].reset_index(drop=True)


def paper_text(row: Mapping[str, Any]) -> str:
    """The paper's number of a row as shown: a point, a range, a sign, or "—".

    Examples
    --------
    >>> paper_text({"paper_low": 0.83, "paper_high": 0.91, "paper_sign": 1})
    '0.83–0.91'
    >>> paper_text({"paper_low": -0.22, "paper_high": 0.11, "paper_sign": 0})
    '-0.22 to 0.11'
    """
    lo, hi = _num(row["paper_low"], "paper_low"), _num(row["paper_high"], "paper_high")
    if math.isnan(lo):
        sign = _num(row.get("paper_sign"), "paper_sign")
        return {1.0: "> 0 (no number)", -1.0: "< 0 (no number)"}.get(sign, "—")
    if lo == hi:
        return f"{lo:.3g}"
    return f"{lo:.3g} to {hi:.3g}" if lo < 0 else f"{lo:.3g}–{hi:.3g}"


def book_text(row: Mapping[str, Any]) -> str:
    """This book's number of a row as shown, with its interval: ``"0.9 [0.5, 1.5]"``, or "—".

    Examples
    --------
    >>> book_text({"book": 27.648, "ci_low": 27.39, "ci_high": 34.0})
    '27.6 [27.4, 34]'
    """
    book, lo, hi = (_num(row[k], k) for k in ("book", "ci_low", "ci_high"))  # JSON: None = NaN
    if math.isnan(book):
        return "—"
    if math.isnan(lo):
        return f"{book:.3g}"
    return f"{book:.3g} [{lo:.3g}, {hi:.3g}]"


def _shown(frame: pd.DataFrame) -> pd.DataFrame:
    records = frame.to_dict(orient="records")
    return pd.DataFrame(
        {
            "claim": frame["claim"],
            "paper": [paper_text(r) for r in records],
            "this book [95 % interval]": [book_text(r) for r in records],
            "verdict": frame["verdict"],
        }
    )


def rows_to_json(rows: pd.DataFrame | Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Checked rows as JSON records (NaN as null): what a chapter glues and the runner keeps."""
    return json.loads(check_rows(rows).to_json(orient="records"))


def rows_from_json(records: object) -> pd.DataFrame:
    """Rows from the JSON records of :func:`rows_to_json`, checked, with their numeric types.

    Examples
    --------
    >>> r = headline(study="demo", key="gap", claim="c", paper=0.3, book=None, ci_low=None,
    ...              ci_high=None, interval="none", data="real", chapter="demo", section="s")
    >>> rows_to_json([r])[0]["book"] is None  # NaN is null in JSON
    True
    >>> back = rows_from_json(rows_to_json([r]))
    >>> back["book"].dtype, back.loc[0, "verdict"]
    (dtype('float64'), 'not testable offline')
    """
    if not isinstance(records, list) or not all(isinstance(r, Mapping) for r in records):
        raise ValueError(
            f"headline rows must be a list of JSON records, got {type(records).__name__}; "
            "glue them with nlpbias.core.scorecard.glue_rows"
        )
    frame = pd.DataFrame(records)
    for c in ("paper", "paper_low", "paper_high", "book", "ci_low", "ci_high"):
        if c in frame:  # a missing column is named by check_rows
            frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
    if "paper_sign" in frame:
        frame["paper_sign"] = pd.to_numeric(frame["paper_sign"]).astype(int)
    return check_rows(frame)


def glue_rows(rows: pd.DataFrame | Iterable[Mapping[str, Any]]) -> None:
    """Show headline rows in a notebook as a table, and glue them for the scorecard page.

    Two outputs: the rows glued by ``myst_nb.glue`` under :data:`GLUE_NAME` without being
    displayed (the book does not render them; the runner and the scorecard page read them from
    the executed notebook), as pandas' Table Schema JSON (:data:`TABLE_MIME`, whose ``data``
    are the records of :func:`rows_to_json`); then the table the reader sees (``text/html`` and
    ``text/plain``: claim, paper, this book, verdict).
    """
    from IPython.display import display
    from myst_nb import glue

    frame = check_rows(rows)
    with pd.option_context("display.html.table_schema", True):  # adds TABLE_MIME to the output
        glue(GLUE_NAME, frame, display=False)
    shown = _shown(frame)
    display(
        {
            "text/html": shown.to_html(index=False, border=0, classes="dataframe"),
            "text/plain": shown.to_string(index=False),
        },
        raw=True,
    )


def rules_markdown() -> str:
    """The verdict rules as a Markdown list, in the order they are applied."""
    return "\n".join(f"- **{name}**: {text}" for name, text in RULES)
