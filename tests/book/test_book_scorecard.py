"""The scorecard page's machinery (nlpbias.book.scorecard) on fake executed chapters."""

from __future__ import annotations

import itertools
from html import escape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from figure_checks import assert_legend_clear, bars
from headline_cases import executed, project, row, write
from matplotlib.colors import rgb_to_hsv, to_hex, to_rgb

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
    assert '<th colspan="5"><a href="alpha.html">Chapter alpha</a></th>' in html
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


# Colour-vision-deficiency simulation (Machado, Oliveira & Fernandes 2009, severity 1), applied
# to linear RGB, and the CIELAB distance (D65) between two colours as a reader with that vision
# sees them.
_CVD = {
    "normal": np.eye(3),
    "protanopia": np.array(
        [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
         [-0.003882, -0.048116, 1.051998]]
    ),
    "deuteranopia": np.array(
        [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
         [-0.011820, 0.042940, 0.968881]]
    ),
    "tritanopia": np.array(
        [[1.255528, -0.076749, -0.178779], [-0.078411, 0.930809, 0.147602],
         [0.004733, 0.691367, 0.303900]]
    ),
}  # fmt: skip
_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])


def _lab(colour: str, vision: str) -> np.ndarray:
    srgb = np.asarray(to_rgb(colour))
    lin = np.where(srgb <= 0.04045, srgb / 12.92, ((srgb + 0.055) / 1.055) ** 2.4)
    xyz = _XYZ @ np.clip(_CVD[vision] @ lin, 0, 1) / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def colour_problems(colours: dict[str, str], *, min_distance: float = 25.0) -> list[str]:
    """Pairs of colours a reader could confuse: closer than ``min_distance`` in CIELAB for
    normal vision or a simulated colour-vision deficiency, or two shades of one hue (chromatic
    colours less than 25 degrees of hue apart, e.g. orange beside vermillion: 15)."""
    found = []
    for (a, ca), (b, cb) in itertools.combinations(colours.items(), 2):
        for vision in _CVD:
            d = float(np.linalg.norm(_lab(ca, vision) - _lab(cb, vision)))
            if d < min_distance:
                found.append(f"{a} / {b}: {d:.1f} apart for {vision}")
        (ha, sa, _), (hb, sb, _) = rgb_to_hsv(to_rgb(ca)), rgb_to_hsv(to_rgb(cb))
        gap = 360 * min(abs(ha - hb), 1 - abs(ha - hb))
        if min(sa, sb) > 0.3 and gap < 25:
            found.append(f"{a} / {b}: shades of one hue ({gap:.0f} degrees apart)")
    return found


def test_the_verdict_colours_are_distinct_for_colour_blind_readers() -> None:
    assert list(page.VERDICT_COLOURS) == list(scorecard.VERDICTS)
    assert colour_problems(page.VERDICT_COLOURS) == []
    before = {  # the palette of issue 27: two oranges, and green beside grey for deuteranopes
        "reproduced": "#009E73",
        "direction only": "#E69F00",
        "not reproduced": "#D55E00",
        "not testable offline": "#999999",
    }
    problems = colour_problems(before)
    assert any("direction only / not reproduced: shades of one hue" in p for p in problems)
    assert any("reproduced / not testable offline" in p and "deuteranopia" in p for p in problems)


def test_the_verdict_colours_are_the_same_in_the_figure_its_legend_and_the_table(
    root: Path,
) -> None:
    card = page.collect("paper", root=root)
    fig = page.verdict_figure(card)
    ax = fig.axes[0]
    legend = fig.legends[0] if fig.legends else ax.get_legend()
    entries = {
        t.get_text(): to_hex(h.get_facecolor(), keep_alpha=False)
        for t, h in zip(legend.get_texts(), legend.legend_handles, strict=True)
    }
    want = {v: to_hex(c) for v, c in page.VERDICT_COLOURS.items()}
    assert list(entries.items()) == list(want.items())  # every verdict, in order, its colour
    drawn = bars(ax)
    drawn = drawn[drawn["value"] > 0]
    assert len(drawn) and all(want[b.hue] == b.colour for b in drawn.itertuples())
    # the count inside a bar contrasts with it (black on yellow, white on blue)
    for text in ax.texts:
        if text.get_text().isdigit():
            x, y = text.get_position()
            (bar,) = drawn[(drawn["start"] < x) & (x < drawn["end"]) & (drawn["low"] < y)
                           & (y < drawn["high"])].itertuples()  # fmt: skip
            assert to_hex(text.get_color()) == to_hex(page.text_colour(bar.colour))
    html = page.table_html(card)
    for verdict in ("reproduced", "direction only", "not reproduced", "not testable offline"):
        badge = f'border-left: 0.6em solid {page.VERDICT_COLOURS[verdict]}">{verdict}</span>'
        assert badge in html


def test_the_table_says_which_numbers_vary_across_cpus(tmp_path: Path) -> None:
    root = project(tmp_path, ["alpha"])
    rows = [row("alpha", "a"), row("alpha", "b", stability="varies across CPUs")]
    write(root, "alpha", executed(rows=rows))
    card = page.collect("paper", root=root, compare=None)
    html = page.table_html(card)
    assert "<th>on another CPU</th>" in html
    assert html.count("<td>bit-identical</td>") == 1
    assert html.count("<td>varies across CPUs</td>") == 1
    assert "may its verdict on another machine" in html  # the reason says so too
    plain = page._plain(card)
    assert "varies across CPUs" in plain and "bit-identical" in plain
    assert "by its bootstrap" in html  # the reason names the uncertainty
