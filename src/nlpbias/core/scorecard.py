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
>>> row["verdict"]
'reproduced'
>>> row["reason"]  # doctest: +NORMALIZE_WHITESPACE
"by its bootstrap over 5 seeds: same sign, interval excludes 0, and the paper's number lies
inside it"
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
    "RULE_NOTES",
    "STABILITY",
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
        "for an effect with a sign: this book's 95 % interval excludes the no-effect value on "
        "the paper's side *and* overlaps the paper's number (a point, or a range such as "
        "0.83–0.91; where the paper states only the direction, excluding the no-effect value on "
        "its side is enough); for a reported absence of an effect: this book's interval "
        "includes the no-effect value.",
    ),
    (
        "direction only",
        "for an effect with a sign: the interval excludes the no-effect value on the paper's "
        "side but does not reach the paper's number, or lies wholly *beyond* it (an overshoot: "
        "a stronger effect than the paper reports is the same direction, not the same size).",
    ),
    (
        "not reproduced",
        "everything else: the interval includes the no-effect value (a sign counts as agreeing "
        "only where the interval excludes it), lies on the other side, or — for a reported "
        "absence — excludes it.",
    ),
)

#: What each rule's words mean, printed with the rules.
RULE_NOTES = (
    "The **no-effect value** is 0 for a difference, a gap or a correlation; for a *share* (the "
    "share of an effect held by the top documents, say) it is the share expected without "
    "concentration, which the row states in its reason.",
    "Each verdict names its **uncertainty**: the row's interval (a bootstrap over seeds, "
    "models or words, or the range over seeds). Where a chapter also has a test (a "
    "permutation p-value), the reason gives both and says when they disagree; the verdict "
    "follows the interval.",
    "A row marked **varies across CPUs** comes from models whose training is bit-identical on "
    "one machine but not across processors (instruction sets, BLAS kernels); its verdict may "
    "differ on another machine, and the chapter says by how much.",
)

#: Whether a row's number is the same on every machine.
STABILITY = ("bit-identical", "varies across CPUs")

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
    "null_value",
    "p_value",
    "test",
    "stability",
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


def _paper_sign(paper_low: float, paper_high: float, sign: int | None, null_value: float) -> int:
    """The side of a direction claim: from the paper's number, or as given where it has none."""
    if math.isnan(paper_low) or math.isnan(paper_high):
        if sign not in (1, -1):
            raise ValueError(
                "a direction claim needs the paper's number (paper_low, paper_high), or its "
                "sign (sign=+1 or -1) where the paper states only the direction"
            )
        return sign
    if paper_low > paper_high:
        raise ValueError(f"paper_low {paper_low} is above paper_high {paper_high}")
    derived = 1 if paper_low > null_value else -1 if paper_high < null_value else 0
    if derived == 0:
        raise ValueError(
            f"a direction claim needs a paper number on one side of the no-effect value "
            f"{null_value:g}, got {paper_low}–{paper_high}; use kind='null' for a reported "
            "absence of an effect"
        )
    if sign is not None and sign != derived:
        raise ValueError(f"sign={sign} disagrees with the paper's number {paper_low}–{paper_high}")
    return derived


def _shown_paper(paper_low: float, paper_high: float) -> str:
    return f"{paper_low:g}" if paper_low == paper_high else f"{paper_low:g}–{paper_high:g}"


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
    null_value: float = 0.0,
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
    null_value : float
        The value of "no effect" for this kind of number: 0 for a difference (the default); for
        a share, the share expected without concentration.

    Examples
    --------
    >>> verdict(kind="direction", paper_low=0.8, paper_high=0.9, book=0.3, ci_low=0.1,
    ...         ci_high=0.5, data="real")
    ('direction only', "same sign, interval excludes 0, but does not reach the paper's 0.8–0.9")
    >>> verdict(kind="direction", paper_low=16.7, paper_high=16.7, book=19.97, ci_low=17.65,
    ...         ci_high=21.66, data="real")  # doctest: +NORMALIZE_WHITESPACE
    ('direction only', "same sign, interval excludes 0, and exceeds the paper's 16.7: the whole
    interval lies beyond it")
    >>> verdict(kind="direction", paper_low=0.6, paper_high=0.6, book=0.35, ci_low=0.3,
    ...         ci_high=0.4, data="real", null_value=0.29)[0]
    'direction only'
    >>> verdict(kind="null", paper_low=0.1, paper_high=0.1, book=0.02, ci_low=-0.2,
    ...         ci_high=0.3, data="real")[0]
    'reproduced'
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
    if data not in DATA_KINDS:
        raise ValueError(f"data must be one of {DATA_KINDS}, got {data!r}")
    v0 = _num(null_value, "null_value")
    if math.isnan(v0):
        raise ValueError("null_value must be a number (0 for a difference)")
    if kind == "direction":  # the paper's side is checked even where no test follows
        sign = _paper_sign(paper_low, paper_high, sign, v0)
    if data == "synthetic":
        return VERDICTS[3], "synthetic stand-in on this profile; the `paper` profile tests it"
    if math.isnan(book):
        return VERDICTS[3], "no number in this book for this claim"
    lo = book if math.isnan(ci_low) else ci_low
    hi = book if math.isnan(ci_high) else ci_high
    if lo > hi:
        raise ValueError(f"ci_low {ci_low} is above ci_high {ci_high}")
    zero = f"{v0:g}" if v0 == 0 else f"the no-effect value {v0:.3g}"
    if kind == "null":
        if lo <= v0 <= hi:
            return VERDICTS[
                0
            ], f"the paper reports no effect, and this book's interval includes {zero}"
        return VERDICTS[2], f"the paper reports no effect, but this book's interval excludes {zero}"
    if lo <= v0 <= hi:
        return VERDICTS[2], f"this book's interval includes {zero}, so the sign is not established"
    if (lo > v0) != (sign > 0):
        return VERDICTS[2], f"opposite sign: this book's interval excludes {zero} on the other side"
    same = f"same sign, interval excludes {zero}"
    if math.isnan(paper_low):
        return VERDICTS[0], f"{same} (the paper states the direction only)"
    if hi >= paper_low and lo <= paper_high:
        return VERDICTS[0], f"{same}, and the paper's number lies inside it"
    shown = _shown_paper(paper_low, paper_high)
    beyond = lo > paper_high if sign > 0 else hi < paper_low
    if beyond:
        return VERDICTS[
            1
        ], f"{same}, and exceeds the paper's {shown}: the whole interval lies beyond it"
    return VERDICTS[1], f"{same}, but does not reach the paper's {shown}"


def _second_test(p_value: float, test: str, *, agrees_with_interval: bool) -> str:
    p = f"p ≤ {p_value:.2g}" if p_value > 0 else "p = 0"
    text = f"the {test} gives {p}"
    if not agrees_with_interval:
        text += (
            " — the two uncertainties disagree (one finds an effect, the other does not); "
            "the verdict follows the interval"
        )
    return text


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
    null_value: float = 0.0,
    p_value: float | None = None,
    test: str = "",
    stability: str = STABILITY[0],
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
        What the interval is, e.g. ``"bootstrap over 5 seeds"``; the reason names it.
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
    null_value : float
        The no-effect value for this kind of number (see :data:`RULE_NOTES`): 0 for a
        difference; for a share, the share expected without concentration.
    p_value, test : float or None, str
        A second uncertainty (a test's p-value and its name, e.g. ``"permutation test over
        words"``); the reason gives it and says when it disagrees with the interval.
    stability : {"bit-identical", "varies across CPUs"}
        Whether the number is the same on another machine (see :data:`STABILITY`).

    Examples
    --------
    >>> row = headline(study="demo", key="gap", claim="c", paper=0.3, book=0.25, ci_low=-0.1,
    ...                ci_high=0.4, interval="bootstrap over words", data="real",
    ...                chapter="demo", section="s", p_value=1e-4, test="permutation test")
    >>> row["reason"].split(" — ")[0]  # doctest: +NORMALIZE_WHITESPACE
    "by its bootstrap over words: this book's interval includes 0, so the sign is not
    established; the permutation test gives p ≤ 0.0001"
    """
    for name, value in (("study", study), ("key", key), ("claim", claim), ("chapter", chapter)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"headline: {name} must be a non-empty string, got {value!r}")
    if stability not in STABILITY:
        raise ValueError(
            f"headline {key!r}: stability must be one of {STABILITY}, got {stability!r}"
        )
    if isinstance(paper, Sequence) and not isinstance(paper, str):
        if len(paper) != 2:
            raise ValueError(
                f"headline {key!r}: paper must be a number or (low, high), got {paper}"
            )
        p_lo, p_hi = _num(paper[0], "paper[0]"), _num(paper[1], "paper[1]")
    else:
        p_lo = p_hi = _num(paper, "paper")
    values = {n: _num(v, n) for n, v in (("book", book), ("ci_low", ci_low), ("ci_high", ci_high))}
    v0 = _num(null_value, "null_value")
    p = _num(p_value, "p_value")
    if not math.isnan(p) and not 0 <= p <= 1:
        raise ValueError(f"headline {key!r}: p_value must be in [0, 1], got {p_value}")
    if not math.isnan(p) and not test.strip():
        raise ValueError(f"headline {key!r}: name the test of p_value (test='permutation test')")
    v, reason = verdict(
        kind=kind, paper_low=p_lo, paper_high=p_hi, data=data, sign=sign, null_value=v0, **values
    )
    paper_sign = 0 if kind == "null" else _paper_sign(p_lo, p_hi, sign, v0)
    tested = data == "real" and not math.isnan(values["book"])
    if tested:
        reason = f"by its {interval}: {reason}"
        if not math.isnan(p):
            lo = values["book"] if math.isnan(values["ci_low"]) else values["ci_low"]
            hi = values["book"] if math.isnan(values["ci_high"]) else values["ci_high"]
            interval_finds = not lo <= v0 <= hi
            reason = f"{reason}; " + _second_test(
                p, test, agrees_with_interval=interval_finds == (p < 0.05)
            )
    if note:
        reason = f"{reason}; {note}"
    if stability != STABILITY[0] and tested:
        reason = f"{reason}; the number varies across CPUs, so may its verdict on another machine"
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
        "null_value": v0,
        "p_value": p,
        "test": test,
        "stability": stability,
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


#: Columns added after the first rows were kept, with the value that reproduces old verdicts.
_ADDED = {"null_value": 0.0, "p_value": math.nan, "test": "", "stability": STABILITY[0]}


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
    for c, default in _ADDED.items():  # rows kept by a run before these columns existed
        if c not in frame:
            frame[c] = default
    for c in (
        "paper",
        "paper_low",
        "paper_high",
        "book",
        "ci_low",
        "ci_high",
        "null_value",
        "p_value",
    ):
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
    """The verdict rules as a Markdown list, in the order they are applied, and what they mean."""
    rules = "\n".join(f"- **{name}**: {text}" for name, text in RULES)
    return rules + "\n\n" + "\n\n".join(RULE_NOTES)
