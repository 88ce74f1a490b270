"""The scorecard page's machinery (nlpbias.book.scorecard) on fake executed chapters."""

from __future__ import annotations

from html import escape
from pathlib import Path

import pandas as pd
import pytest
from figure_checks import assert_legend_clear, bars
from headline_cases import executed, project, row, write

from nlpbias.book import headlines, runner
from nlpbias.book import scorecard as page
from nlpbias.core import scorecard

ALPHA = [
    row("alpha", "a"),
    row("alpha", "b", verdict_case="not reproduced"),
    row("alpha", "c", verdict_case="direction only"),
]
DELTA = [row("delta", "a", verdict_case="not testable offline")]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """alpha (rows), beta (no headline cell), gamma (not run), delta (rows from a demo run)."""
    root = project(tmp_path, ["alpha", "beta", "gamma", "delta"])
    write(root, "alpha", executed(rows=ALPHA))
    write(root, "beta", executed())
    write(root, "delta", executed(rows=DELTA, profile="demo"))
    return root


def test_collect_reads_every_chapter_in_reading_order(root: Path) -> None:
    card = page.collect("paper", root=root)
    got = card.chapters[["chapter", "status", "profile", "rows"]].fillna("-")
    assert got.values.tolist() == [
        ["alpha", "ok", "paper", 3],
        ["beta", "no headline rows", "paper", 0],
        ["gamma", "not run", "-", 0],
        ["delta", "ok", "demo", 1],
    ]
    pd.testing.assert_frame_equal(
        scorecard.check_rows(card.rows), scorecard.check_rows(ALPHA + DELTA)
    )
    assert card.rows["title"].tolist() == ["Chapter alpha"] * 3 + ["Chapter delta"]
    assert card.rows["profile"].tolist() == ["paper"] * 3 + ["demo"]
    assert set(card.rows["section_title"]) == {"The result"}
    text = page.status_markdown(card)
    assert "4 headline rows from 2 of the 4 chapters" in text
    assert "**Chapter beta**: no headline rows" in text
    assert "**Chapter gamma**: not run yet (`nlpbias run gamma --profile paper`)" in text
    assert "**Chapter delta**: its rows come from a `demo` run" in text
    assert "Chapter alpha" not in text


def test_a_malformed_chapter_stops_the_page_naming_it(root: Path) -> None:
    write(root, "beta", executed(data={"text/plain": "no rows"}, profile="paper"))
    with pytest.raises(headlines.HeadlineError, match="chapter 'beta'.*nlpbias run beta"):
        page.collect("paper", root=root)


def test_the_runners_folder_and_kept_rows_of_another_profile(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    write(root, "alpha", executed(rows=ALPHA))
    (other / "alpha.ipynb").write_bytes((root / "_build/notebooks/alpha.ipynb").read_bytes())
    monkeypatch.setenv(runner.EXECUTED_ENV, str(other))
    card = page.collect("paper", root=root)
    assert card.chapters["status"].tolist() == ["ok", "not run", "not run", "not run"]
    demo = [row("alpha", "a", verdict_case="not testable offline", book=7.5)]
    headlines.save_rows(root, "demo", "alpha", scorecard.check_rows(demo))
    card = page.collect("paper", root=root, compare="demo")
    assert card.compare_profile == "demo" and card.compare["book"].tolist() == [7.5]
    html = page.table_html(card)
    assert "<th>demo run</th>" in html and 'number">7.5</span>' in html
    assert "*demo* shows the numbers of the last `demo` run" in page.status_markdown(card)
    same = page.collect("demo", root=root, compare="demo")  # a demo page has no demo column
    assert same.compare_profile is None and "<th>demo run</th>" not in page.table_html(same)


def test_table_links_sections_and_escapes_text(root: Path) -> None:
    card = page.collect("paper", root=root, compare=None)
    html = page.table_html(card)
    assert html.count("<tr>") == 1 + 4  # header and one row per headline
    assert html.count('<tr class="scorecard-chapter">') == 2  # a heading row per chapter
    assert '<th colspan="4"><a href="alpha.html">Chapter alpha</a></th>' in html
    assert '<a href="alpha.html#the-result">The result</a>' in html
    assert "Claim a of &lt;alpha&gt; &amp; co." in html and "<alpha>" not in html
    for r in ALPHA + DELTA:
        value, _, interval = scorecard.book_text(r).partition(" ")
        assert f'number">{value}</span> <span class="scorecard-number">{interval}<' in html
        assert r["verdict"] in html
        reason = escape(r["reason"], quote=False).replace("`paper`", "<code>paper</code>")
        assert reason in html
    assert "<em>(demo run)</em>" in html  # delta ran on another profile
    assert "<th>this book (paper) [95 % interval]</th>" in html


def test_display_table_shows_the_table(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, raw: shown.append(obj))
    card = page.collect("paper", root=root)
    page.display_table(card)
    (bundle,) = shown
    assert set(bundle) == {"text/html", "text/plain"}  # nothing the book cannot render
    assert bundle["text/html"] == page.table_html(card)
    assert "not reproduced" in bundle["text/plain"]


def test_verdict_figure_draws_the_counts(root: Path) -> None:
    card = page.collect("paper", root=root)
    counts = page.verdict_counts(card)
    none = dict.fromkeys(scorecard.VERDICTS, 0)
    assert counts.to_dict(orient="index") == {
        "Chapter alpha": {**none, "reproduced": 1, "direction only": 1, "not reproduced": 1},
        "Chapter beta": none,
        "Chapter gamma": none,
        "Chapter delta": {**none, "not testable offline": 1},
    }
    fig = page.verdict_figure(card)
    ax = fig.axes[0]
    drawn = bars(ax)
    drawn = drawn[drawn["value"] > 0]
    got = {(b.label, b.hue): b.value for b in drawn.itertuples()}
    want = {
        (title, verdict): n for title, by in counts.iterrows() for verdict, n in by.items() if n
    }
    assert got == want
    # segments of one chapter are stacked end to end, from 0 to the chapter's number of rows
    for title, block in drawn.groupby("label"):
        spans = sorted(zip(block["start"], block["end"], strict=True))
        assert spans[0][0] == 0 and spans[-1][1] == counts.loc[title].sum()
        assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == ["1"] * 4 + ["no headline rows", "not run"]  # chapters without rows say so
    top_down = sorted(ax.get_yticklabels(), key=lambda t: -t.get_position()[1])
    assert [t.get_text() for t in top_down] == list(counts.index)  # reading order from the top
    assert_legend_clear(fig)


def test_an_empty_build_still_makes_a_page(tmp_path: Path) -> None:
    root = project(tmp_path, ["alpha"])
    card = page.collect("smoke", root=root)
    assert card.rows.empty and "0 headline rows from 0 of the 1 chapters" in (
        page.status_markdown(card)
    )
    assert "<tbody></tbody>" in page.table_html(card).replace("\n", "")
    assert page.verdict_counts(card).values.tolist() == [[0, 0, 0, 0]]
    assert [t.get_text() for t in page.verdict_figure(card).axes[0].texts] == ["not run"]
