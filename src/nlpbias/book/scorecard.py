"""The reproduction scorecard: every chapter's headline rows, read from its executed notebook.

The scorecard page (``notebooks/scorecard.ipynb``, run after every chapter) calls
:func:`collect`: for each study of ``notebooks/profiles.yml``, in reading order, it reads the
executed notebook in ``_build/notebooks`` (or ``$NLPBIAS_EXECUTED_DIR``, which the runner sets),
takes the rows it glued as ``headlines`` (:func:`nlpbias.book.headlines.notebook_rows`) and the
profile it was run on (its run record). A chapter that has not been run, or has no
headline rows, is listed as such; malformed rows stop the page with a message that names the
chapter and the fix. The rows another profile's runs left in ``_build/headlines`` (``demo`` by
default) come along, so that a ``paper`` page can show the demo numbers beside its own.

:func:`display_table` shows the page's table, :func:`status_markdown` says which chapters have
no rows, and :func:`verdict_figure` draws the verdicts per chapter. Nothing here computes a
number: every number comes from a chapter's rows.
"""

from __future__ import annotations

import html
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from nlpbias.book import headlines, runner
from nlpbias.core.scorecard import (
    COLUMNS,
    STABILITY,
    VERDICTS,
    book_text,
    paper_text,
)
from nlpbias.plotting import legend_beside, new_figure, wrap_label

__all__ = [
    "VERDICT_COLOURS",
    "Scorecard",
    "collect",
    "display_table",
    "status_markdown",
    "table_html",
    "text_colour",
    "verdict_counts",
    "verdict_figure",
]

#: Colour of each verdict in the figure and the table, the same everywhere: Okabe–Ito blue,
#: yellow and vermillion, grey for untestable. Chosen so that every pair stays apart (CIELAB
#: distance at least 25) for normal vision and simulated protanopia, deuteranopia and tritanopia
#: (tests/book/test_book_scorecard.py checks it); no two are shades of one hue.
VERDICT_COLOURS = {
    "reproduced": "#0072B2",
    "direction only": "#F0E442",
    "not reproduced": "#D55E00",
    "not testable offline": "#999999",
}
#: Columns a page row has besides :data:`nlpbias.core.scorecard.COLUMNS`.
EXTRA = ["title", "profile", "section_title"]


@dataclass
class Scorecard:
    """What :func:`collect` read.

    Attributes
    ----------
    profile : str
        The profile the page is built for.
    rows : pandas.DataFrame
        Every chapter's rows in reading order: the scorecard's columns plus ``title`` (the
        chapter's), ``profile`` (the one its run used) and ``section_title``.
    chapters : pandas.DataFrame
        One row per study: ``chapter``, ``title``, ``status`` (``ok``, ``not run``, ``no
        headline rows``), ``profile`` and ``rows``.
    compare_profile : str or None
        The other profile whose kept rows are shown beside (None: none).
    compare : pandas.DataFrame
        Those rows (the scorecard's columns plus ``started``); empty when none were kept.
    """

    profile: str
    rows: pd.DataFrame
    chapters: pd.DataFrame
    compare_profile: str | None = None
    compare: pd.DataFrame = field(default_factory=pd.DataFrame)


def collect(
    profile: str,
    *,
    root: str | Path | None = None,
    executed_dir: str | Path | None = None,
    compare: str | None = "demo",
) -> Scorecard:
    """Read every chapter's headline rows (see the module docstring).

    Parameters
    ----------
    profile : str
        The profile of the page.
    root : path, optional
        The project (default: found from the current directory).
    executed_dir : path, optional
        Where the executed notebooks are (default ``$NLPBIAS_EXECUTED_DIR``, else
        ``<root>/_build/notebooks``).
    compare : str or None
        A profile whose kept rows to show beside (ignored when it is ``profile``).

    Raises
    ------
    nlpbias.book.headlines.HeadlineError
        A chapter's rows are malformed (the message names the chapter and the fix).
    """
    import nbformat

    root = runner.project_root(root)
    env = os.environ.get(runner.EXECUTED_ENV)
    folder = Path(executed_dir or env or root / runner.EXECUTED_DIR)
    config = runner.load_config(root)
    frames, status = [], []
    for chapter, entry in config["studies"].items():
        title = entry.get("title", chapter)
        path = folder / entry["notebook"]
        state = {"chapter": chapter, "title": title, "status": "not run", "profile": None}
        rows = None
        if path.is_file():
            nb = nbformat.read(path, as_version=4)
            record = nb.metadata.get("nlpbias") or {}
            state["profile"] = record.get("profile")
            rows = headlines.notebook_rows(nb, chapter, profile=state["profile"])
            state["status"] = "no headline rows" if rows is None else "ok"
        if rows is not None:
            titles = headlines.section_titles(nb)
            frames.append(
                rows.assign(
                    title=title,
                    profile=state["profile"],
                    section_title=rows["section"].map(titles),
                )
            )
        status.append({**state, "rows": 0 if rows is None else len(rows)})
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS + EXTRA)
    other = compare if compare and compare != profile else None
    kept = []
    for chapter in config["studies"] if other else []:
        found = headlines.load_rows(root, other, chapter)
        if found is not None:
            kept.append(found[0].assign(started=found[1].get("started")))
    return Scorecard(
        profile=profile,
        rows=rows,
        chapters=pd.DataFrame(status),
        compare_profile=other,
        compare=pd.concat(kept, ignore_index=True) if kept else pd.DataFrame(),
    )


def status_markdown(card: Scorecard) -> str:
    """What the table holds, and a line for every chapter without rows from ``card.profile``."""
    ok = card.chapters[card.chapters["status"] == "ok"]
    lines = [
        f"The table holds {len(card.rows)} headline rows from {len(ok)} of the "
        f"{len(card.chapters)} chapters."
    ]
    for c in card.chapters.itertuples(index=False):
        run = f"`nlpbias run {c.chapter} --profile {card.profile}`"
        if c.status == "not run":
            lines.append(f"- **{c.title}**: not run yet ({run}).")
        elif c.status == "no headline rows":
            lines.append(
                f"- **{c.title}**: no headline rows — its notebook glues none "
                "(`scorecard.glue_rows`)."
            )
        elif c.profile != card.profile:
            lines.append(
                f"- **{c.title}**: its rows come from a `{c.profile}` run; it has not been run "
                f"on `{card.profile}` since ({run})."
            )
    if card.compare_profile and len(card.compare):
        lines.append(
            f"\nThe column *{card.compare_profile}* shows the numbers of the last "
            f"`{card.compare_profile}` run of each chapter, where one was kept."
        )
    return "\n".join(lines)


def _inline(text: object) -> str:
    """Escaped text with Markdown's inline code (`x`) as <code>."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(str(text), quote=False))


def _link(row: pd.Series) -> str:
    target = html.escape(f"{row['chapter']}.html#{row['section']}", quote=True)
    text = html.escape(str(row.get("section_title") or row["section"]))
    return f'<a href="{target}">{text}</a>'


def _note(text: str) -> str:
    return f'<br><span class="scorecard-note">{text}</span>'


def _number(text: str) -> str:
    """A number and its interval, each kept on one line (the line may break between them)."""
    value, bracket, interval = text.partition(" [")
    parts = [value, bracket.strip() + interval] if bracket else [value]
    return " ".join(f'<span class="scorecard-number">{html.escape(p)}</span>' for p in parts)


def _book_cell(row: pd.Series, profile: str) -> str:
    text = _number(book_text(row))
    if row.get("profile") and row["profile"] != profile:
        text += f" <em>({html.escape(str(row['profile']))} run)</em>"
    return text + _note(_inline(row["interval"]))


def _stability_cell(row: pd.Series) -> str:
    """Whether the row's number is the same on another machine (the row's ``stability``; rows
    kept before that column existed read as bit-identical)."""
    stability = row.get("stability")
    if not isinstance(stability, str) or not stability:
        stability = STABILITY[0]
    return html.escape(stability)


def _verdict_cell(row: pd.Series) -> str:
    verdict = str(row["verdict"])
    colour = VERDICT_COLOURS.get(verdict, "#000000")
    badge = (
        f'<span class="scorecard-verdict" style="border-left: 0.6em solid {colour}">'
        f"{html.escape(verdict)}</span>"
    )
    return badge + _note(f"{_inline(row['reason'])}; see {_link(row)}")


def table_html(card: Scorecard) -> str:
    """The page's table as HTML: a heading row per chapter (linked), then its headline rows.

    Columns: claim, paper, this book on the page's profile (with what its interval is), the
    other profile's number where rows were kept, whether the number is the same on another CPU
    (the row's ``stability``: "bit-identical" or "varies across CPUs"), and the verdict with its
    reason (which names the uncertainty it used) and a link to the section of the chapter that
    shows the number.
    """
    other = card.compare_profile if len(card.compare) else None
    lookup = {}
    if other:
        lookup = {(r["study"], r["key"]): r for _, r in card.compare.iterrows()}
    head = ["claim", "paper", f"this book ({card.profile}) [95 % interval]"]
    if other:
        head.append(f"{other} run")
    head += ["on another CPU", "verdict and why"]
    out = ['<table class="dataframe scorecard" border="0">', "<thead><tr>"]
    out += [f"<th>{html.escape(h)}</th>" for h in head]
    out.append("</tr></thead><tbody>")
    for chapter, block in card.rows.groupby("chapter", sort=False):
        title = html.escape(str(block["title"].iloc[0]))
        out.append(
            f'<tr class="scorecard-chapter"><th colspan="{len(head)}">'
            f'<a href="{html.escape(str(chapter))}.html">{title}</a></th></tr>'
        )
        for _, row in block.iterrows():
            cells = [_inline(row["claim"]), _number(paper_text(row))]
            cells.append(_book_cell(row, card.profile))
            if other:
                kept = lookup.get((row["study"], row["key"]))
                cells.append(_number(book_text(kept)) if kept is not None else "—")
            cells.append(_stability_cell(row))
            cells.append(_verdict_cell(row))
            out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _plain(card: Scorecard) -> str:
    if card.rows.empty:
        return "no headline rows"
    records = card.rows.to_dict(orient="records")
    return pd.DataFrame(
        {
            "chapter": card.rows["chapter"],
            "key": card.rows["key"],
            "paper": [paper_text(r) for r in records],
            "this book": [book_text(r) for r in records],
            "on another CPU": [_stability_cell(pd.Series(r)) for r in records],
            "verdict": card.rows["verdict"],
        }
    ).to_string(index=False)


def display_table(card: Scorecard) -> None:
    """Show the page's table (:func:`table_html`, with a plain-text version)."""
    from IPython.display import display

    display({"text/html": table_html(card), "text/plain": _plain(card)}, raw=True)


def verdict_counts(card: Scorecard) -> pd.DataFrame:
    """Rows per chapter (its title, every chapter in reading order, also those without rows)
    and verdict (every verdict a column, zeros kept)."""
    order = list(card.chapters["title"]) if len(card.chapters) else []
    if card.rows.empty:
        return pd.DataFrame(0, index=pd.Index(order, name="title"), columns=list(VERDICTS))
    counts = pd.crosstab(card.rows["title"], card.rows["verdict"])
    return counts.reindex(index=order, columns=list(VERDICTS), fill_value=0)


def text_colour(background: str) -> str:
    """Black or white, whichever contrasts more with ``background`` (WCAG relative luminance).

    Examples
    --------
    >>> text_colour("#F0E442"), text_colour("#0072B2")
    ('black', 'white')
    """
    from matplotlib.colors import to_rgb

    def lum(c: str) -> float:
        lin = [x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4 for x in to_rgb(c)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    bg = lum(background)
    return "black" if (bg + 0.05) / 0.05 >= 1.05 / (bg + 0.05) else "white"


def verdict_figure(card: Scorecard) -> Figure:
    """Verdicts of the headline rows per chapter: one stacked bar per chapter, a segment per
    verdict (its count written inside), the chapters in reading order from the top; a chapter
    without rows says why ("no headline rows", "not run")."""
    counts = verdict_counts(card)
    fig, (ax,) = new_figure(1, width=8.5, height=0.9 + 0.5 * max(1, len(counts)))
    if counts.empty:
        ax.text(0.5, 0.5, "no chapters in this build", ha="center", va="center")
        ax.set_axis_off()
        return fig
    why = dict(zip(card.chapters["title"], card.chapters["status"], strict=True))
    labels = list(counts.index)
    y = list(range(len(labels)))[::-1]
    left = pd.Series(0, index=counts.index)
    for verdict in VERDICTS:
        n = counts[verdict]
        bars = ax.barh(y, n, left=left, color=VERDICT_COLOURS[verdict], label=verdict, height=0.6)
        for bar, value in zip(bars, n, strict=True):
            if value:
                ax.text(
                    bar.get_x() + bar.get_width() / 2, bar.get_y() + bar.get_height() / 2,
                    str(int(value)), ha="center", va="center",
                    color=text_colour(VERDICT_COLOURS[verdict]),
                    fontsize="small", fontweight="bold",
                )  # fmt: skip
        left = left + n
    for pos, title in zip(y, labels, strict=True):
        if not counts.loc[title].sum():
            ax.text(0.1, pos, why.get(title, "no headline rows"), va="center",
                    fontsize="small", color="0.35")  # fmt: skip
    ax.set_yticks(y, [wrap_label(t, 28) for t in labels])
    ax.set_xlim(0, max(1, int(left.max())))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("headline rows")
    ax.set_title(f"Verdicts of the headline rows, {card.profile} build")
    ax.grid(axis="y", visible=False)
    legend_beside(ax, title="verdict")
    return fig
