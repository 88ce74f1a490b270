"""Dixon et al.'s (2018) identity-phrase test set, built from its recipe and checked.

The paper's synthetic test set ("bias madlibs", seed 002, section "Identity Phrase Templates
Test Set" and Table 2) fills identity terms and other words into pairs of templates, one
non-toxic and one toxic pattern of the same shape ("Being {identity} is {adjective_positive}." /
"Being {identity} is {adjective_negative}."); a sentence is toxic exactly when it comes from the
toxic pattern. The recipe has two parts:

- the **templates**, in the project's ``data/templates/dixon_madlibs.yaml``: the six pairs behind
  the released ``bias_madlibs_77k.csv`` (``"release"``) and the examples of the paper's Table 2
  (``"table2"``) -- :func:`madlib_templates`;
- the **word lists** of the release, ``dixon2018/bias_madlibs_data/*.txt`` in the data home
  (checksum-verified) -- :func:`madlib_words`. The identity slot takes the 50 adjectives of
  ``adjectives_people.txt``, the same terms in the same order as
  ``nlpbias.data.identity.load_identity_terms("dixon2018")`` (a transcription of that file).

:func:`make_madlibs` enumerates every filling of every pattern (or a sample of them, with an
optional filler sentence appended, as the authors' tool could); :func:`compare_madlibs` sets a
generated set beside the released one -- rows, templates, label balance, and each row found in
one set only, with the reason (casing or punctuation, an appended filler, a duplicate, a label
or template that differs, or simply absent) -- and :func:`madlibs_summary_text` writes the
comparison as one Markdown paragraph from its numbers.

The authors' tool (``bias_madlibs.py``, read for understanding only) draws random fillings until
it has as many distinct sentences per template as asked, or gives up after seven times as many
draws. Asked for more sentences than a template has, and given enough draws, it returns every
distinct filling in the order it drew them. The released 77k set is exactly that: every one of
the 76,564 fillings of the six release pairs, in random order within each template, which the
full enumeration here reproduces row for row (``compare_madlibs`` finds no difference).

Examples
--------
>>> words = {"identity": ["gay", "deaf"], "verb_positive": ["hug"], "verb_negative": ["kill"]}
>>> tmpl = pd.DataFrame({"template": ["verb_adj", "verb_adj"], "toxic": [False, True],
...                      "pattern": ["{verb_positive} {identity}", "{verb_negative} {identity}"]})
>>> make_madlibs(tmpl, words=words, shuffle=False, random_state=0)
        text  toxic  template  term
0    hug gay  False  verb_adj   gay
1   hug deaf  False  verb_adj  deaf
2   kill gay   True  verb_adj   gay
3  kill deaf   True  verb_adj  deaf
"""

from __future__ import annotations

import itertools
import logging
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from nlpbias.core.checks import check_bool, check_int, check_texts
from nlpbias.core.paths import data_file
from nlpbias.core.repro import rng as _rng
from nlpbias.core.text import fmt_count, fmt_num

__all__ = [
    "template_check",
    "WHY",
    "MadlibsComparison",
    "compare_madlibs",
    "madlib_templates",
    "madlib_words",
    "madlibs_summary_text",
    "make_madlibs",
]

logger = logging.getLogger(__name__)

_DATASET = "dixon2018"
_WORD_FOLDER = "bias_madlibs_data"
_COLUMNS = ["text", "toxic", "template"]


# --------------------------------------------------------------------------- the recipe


def _spec() -> dict:
    path = data_file("templates", "dixon_madlibs.yaml")
    if not path.is_file():
        raise FileNotFoundError(
            f"madlib templates {str(path)!r} not found; restore data/templates/dixon_madlibs.yaml "
            "from the repository"
        )
    spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not isinstance(spec, dict) or not {"slots", "template_sets"} <= set(spec):
        raise ValueError(f"{path.name} must have 'slots' and 'template_sets'; check the file")
    return spec


def _slots_of(pattern: str) -> list[str]:
    """The ``{slot}`` names of a pattern, in order of appearance (each once)."""
    names = [f for _, f, _, _ in string.Formatter().parse(pattern) if f is not None]
    if any(not n for n in names):
        raise ValueError(f"template pattern {pattern!r} has an empty slot '{{}}'; name each slot")
    return list(dict.fromkeys(names))


def madlib_templates(name: str = "release") -> pd.DataFrame:
    """The template pairs of one template set of ``data/templates/dixon_madlibs.yaml``.

    Parameters
    ----------
    name : {'release', 'table2'}, default 'release'
        ``'release'``: the six pairs behind ``bias_madlibs_77k.csv``; ``'table2'``: the examples
        of the paper's Table 2, paired by shape.

    Returns
    -------
    pandas.DataFrame
        Two rows per pair, non-toxic first: ``template`` (the pair's name), ``toxic`` (bool),
        ``pattern`` (with ``{slot}`` placeholders, as the generator fills them) and ``printed``
        (the same with ``<SLOT>``, the paper's notation: ``I am <IDENTITY>``).
        ``attrs["source"]`` says where the set was transcribed from.

    Examples
    --------
    >>> t = madlib_templates("table2")
    >>> t.loc[t["toxic"], ["pattern", "printed"]].iloc[0].tolist()
    ['I hate all {identity}', 'I hate all <IDENTITY>']
    >>> madlib_templates("release")["template"].nunique()
    6
    """
    spec = _spec()
    sets = spec["template_sets"]
    if not isinstance(name, str) or name not in sets:
        raise ValueError(f"template set must be one of {sorted(sets)}, got {name!r}")
    rows = []
    for pair in sets[name].get("pairs") or []:
        if not isinstance(pair, dict) or not {"template", "nontoxic", "toxic"} <= set(pair):
            raise ValueError(
                f"dixon_madlibs.yaml: every pair of {name!r} needs template, nontoxic and toxic; "
                f"got {pair!r}"
            )
        rows.append((str(pair["template"]), False, str(pair["nontoxic"])))
        rows.append((str(pair["template"]), True, str(pair["toxic"])))
    if not rows:
        raise ValueError(f"dixon_madlibs.yaml: template set {name!r} has no pairs")
    out = pd.DataFrame(rows, columns=["template", "toxic", "pattern"])
    unknown = sorted({s for p in out["pattern"] for s in _slots_of(p)} - set(spec["slots"]))
    if unknown:
        raise ValueError(
            f"dixon_madlibs.yaml: template set {name!r} uses slots {unknown} that 'slots' does "
            f"not map to a word list (known: {sorted(spec['slots'])})"
        )
    out["printed"] = [_printed(p) for p in out["pattern"]]
    out.attrs["source"] = " ".join(str(sets[name].get("source", "")).split())
    return out


def _printed(pattern: str) -> str:
    """A pattern in the paper's notation: each ``{slot}`` as ``<SLOT>``."""
    return "".join(
        text + ("" if slot is None else f"<{slot.upper()}>")
        for text, slot, _, _ in string.Formatter().parse(pattern)
    )


def _read_list(path: Path) -> list[str]:
    if not path.is_file():
        raise FileNotFoundError(f"madlib word list {str(path)!r} not found; pass a folder with it")
    words = [w.strip() for w in path.read_text(encoding="utf-8").splitlines()]
    words = [w for w in words if w]
    if not words:
        raise ValueError(f"madlib word list {path.name} is empty; restore the file")
    return words


def madlib_words(*, folder: str | Path | None = None) -> dict[str, list[str]]:
    """The word lists of the release, by slot (and ``'filler'``: the filler sentences).

    Parameters
    ----------
    folder : str or Path, optional
        Read the ``*.txt`` lists from this folder instead of the data home's
        ``dixon2018/bias_madlibs_data/`` (whose files are checksum-verified).

    Returns
    -------
    dict of str to list of str
        One list per slot of ``dixon_madlibs.yaml`` (``identity``, ``name``, ``occupation``,
        ``adjective_positive``, ``adjective_negative``, ``verb_positive``, ``verb_negative``)
        and ``filler``; each in file order, stripped, blank lines dropped.

    Examples
    --------
    >>> words = madlib_words()  # doctest: +SKIP
    >>> len(words["identity"]), len(words["name"])  # doctest: +SKIP
    (50, 45)
    """
    spec = _spec()
    files = {**spec["slots"], "filler": spec.get("filler", "filler.txt")}
    out: dict[str, list[str]] = {}
    for slot, fname in files.items():
        if folder is not None:
            path = Path(folder) / fname
        else:
            from nlpbias.data.store import path as _store_path

            path = _store_path(_DATASET, f"{_WORD_FOLDER}/{fname}")
        out[slot] = _read_list(path)
    return out


def _check_words(words: Mapping[str, Sequence[str]], slots: set[str]) -> dict[str, list[str]]:
    if not isinstance(words, Mapping):
        raise TypeError(f"words must be a mapping slot -> list of words, got {type(words)}")
    missing = sorted(slots - set(words))
    if missing:
        raise ValueError(
            f"words has no list for slots {missing}; pass them (e.g. words=madlib_words())"
        )
    out = {}
    for slot in slots:
        vals = words[slot]
        if isinstance(vals, str) or not all(isinstance(v, str) and v.strip() for v in vals):
            raise ValueError(f"words[{slot!r}] must be a list of non-empty strings, got {vals!r}")
        if not len(vals):
            raise ValueError(f"words[{slot!r}] is empty; pass at least one word")
        out[slot] = [str(v) for v in vals]
    return out


def _as_templates(templates: str | pd.DataFrame) -> pd.DataFrame:
    if isinstance(templates, str):
        return madlib_templates(templates)
    if not isinstance(templates, pd.DataFrame):
        raise TypeError(
            "templates must be a template set name ('release', 'table2') or a DataFrame "
            f"from madlib_templates, got {type(templates)}"
        )
    missing = [c for c in ("template", "toxic", "pattern") if c not in templates.columns]
    if missing:
        raise ValueError(f"templates lacks columns {missing}; build it with madlib_templates()")
    if templates.empty:
        raise ValueError("templates is empty; pass at least one template pair")
    if not templates["toxic"].isin([True, False]).all():
        raise ValueError("templates column 'toxic' must be bool (or 0/1)")
    return templates


# --------------------------------------------------------------------------- the generator


def make_madlibs(
    templates: str | pd.DataFrame = "release",
    *,
    words: Mapping[str, Sequence[str]] | None = None,
    n_per_template: int | None = None,
    filler: bool = False,
    shuffle: bool = True,
    random_state: None | int | np.random.Generator,
) -> pd.DataFrame:
    """Fill the templates with the word lists: Dixon et al.'s identity-phrase test set.

    Every pattern is filled with every combination of its slots' words (slots in order of
    appearance, words in list order), non-toxic pattern before toxic, pairs in the set's order.
    A text that was already made (by any pattern) is dropped, as the authors' tool does; the
    number dropped is in ``attrs["n_duplicates"]``.

    Parameters
    ----------
    templates : str or pandas.DataFrame, default 'release'
        A template set name of :func:`madlib_templates` or its frame.
    words : mapping of slot to list of str, optional
        Word lists; default :func:`madlib_words` (the release's, from the data home).
    n_per_template : int, optional
        Keep a random sample of this many distinct texts per template (without replacement;
        a template with fewer keeps all of them, listed in ``attrs["short_templates"]``).
        ``None``: every filling.
    filler : bool, default False
        Append one filler sentence (drawn with replacement from ``words["filler"]``) to each
        text, like the tool's ``-longer`` option.
    shuffle : bool, default True
        Shuffle the rows within each template (the release is in random order within each
        template); False keeps the enumeration order.
    random_state : None, int or numpy.random.Generator
        Seeds the sample, the fillers and the shuffle; equal seeds give identical frames.

    Returns
    -------
    pandas.DataFrame
        ``text``, ``toxic`` (bool: the row's pattern is the pair's toxic one), ``template`` and
        ``term`` (the identity term filled in, ``<NA>`` for a pattern without ``{identity}``).

    Examples
    --------
    >>> df = make_madlibs("table2", words={"identity": ["gay", "deaf"]}, random_state=0)
    >>> len(df), float(df["toxic"].mean())
    (12, 0.5)
    """
    tmpl = _as_templates(templates)
    check_bool(filler, "filler")
    check_bool(shuffle, "shuffle")
    if n_per_template is not None:
        n_per_template = check_int(n_per_template, "n_per_template", minimum=1)
    slot_lists = {p: _slots_of(p) for p in tmpl["pattern"]}
    needed = {s for slots in slot_lists.values() for s in slots} | ({"filler"} if filler else set())
    w = _check_words(madlib_words() if words is None else words, needed)
    gen = _rng(random_state)

    rows = []
    for name, toxic, pattern in tmpl[["template", "toxic", "pattern"]].itertuples(index=False):
        slots = slot_lists[pattern]
        for combo in itertools.product(*(w[s] for s in slots)):
            filled = dict(zip(slots, combo, strict=True))
            rows.append((pattern.format(**filled), bool(toxic), str(name), filled.get("identity")))
    df = pd.DataFrame(rows, columns=[*_COLUMNS, "term"])
    df["term"] = df["term"].astype("string")

    order = list(dict.fromkeys(df["template"]))
    parts, short = [], []
    for name in order:
        part = df[df["template"] == name]
        if n_per_template is not None:
            part = part.drop_duplicates("text")
            if len(part) < n_per_template:
                short.append(name)
            else:
                keep = np.sort(gen.choice(len(part), size=n_per_template, replace=False))
                part = part.iloc[keep]
        if shuffle:
            part = part.iloc[gen.permutation(len(part))]
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    if filler:
        picks = gen.integers(0, len(w["filler"]), size=len(df))
        df["text"] = df["text"] + " " + pd.Series(w["filler"]).iloc[picks].to_numpy()
    dup = df["text"].duplicated()
    out = df[~dup].reset_index(drop=True)
    out.attrs["n_duplicates"] = int(dup.sum())
    out.attrs["short_templates"] = short
    if short:
        logger.info("madlibs: templates %s have fewer than %d texts", short, n_per_template)
    return out


# --------------------------------------------------------------------------- the comparison

#: The reasons :func:`compare_madlibs` gives for a row that differs, in the order it tries them.
WHY = (
    "label differs",
    "template differs",
    "duplicate",
    "casing or punctuation",
    "filler appended",
    "absent",
)


def _norm(s: pd.Series) -> pd.Series:
    """Casefolded, whitespace-collapsed, without final punctuation: 'Being gay is fun.' ->
    'being gay is fun'."""
    out = s.str.casefold().str.replace(r"\s+", " ", regex=True).str.strip()
    return out.str.replace(r"[.!?]+$", "", regex=True).str.strip()


def _check_set(df: pd.DataFrame, what: str) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"{what} must be a DataFrame with text, toxic, template; got {type(df)}")
    missing = [c for c in _COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(
            f"{what} lacks columns {missing} (has {list(df.columns)}); pass the output of "
            "make_madlibs or load_dixon_templates"
        )
    if df.empty:
        raise ValueError(f"{what} is empty; nothing to compare")
    if not df["toxic"].isin([True, False]).all():
        bad = df.loc[~df["toxic"].isin([True, False]), "toxic"].unique()[:5].tolist()
        raise ValueError(f"{what} column 'toxic' must be bool or 0/1, got {bad}")
    out = df[_COLUMNS].reset_index(drop=True).copy()
    out["toxic"] = out["toxic"].astype(bool)
    out["text"] = out["text"].astype(str)
    out["template"] = out["template"].astype(str)
    return out


def _prefixes(t: str) -> list[str]:
    """The word-boundary prefixes of ``t`` shorter than ``t``, without final ``.!?,``."""
    words = t.split(" ")
    return [" ".join(words[:k]).rstrip(".!?,") for k in range(1, len(words))]


def _stems(t: str, fillers: list[str] | None) -> list[str]:
    """What ``t`` could be before a filler was appended: with ``fillers`` (normalised), ``t``
    without the one it ends with; else every word-boundary prefix."""
    if fillers is None:
        return _prefixes(t)
    return [t[: -len(f)].strip().rstrip(".!?,") for f in fillers if t.endswith(" " + f)]


def _with_filler(norm: pd.Series, other: pd.Series, fillers: list[str] | None) -> pd.Series:
    """True where one text is the other with a filler appended: a stem of ``norm`` is a text of
    ``other``, or ``norm`` is a stem of a text of ``other`` (all normalised)."""
    other_texts = set(other)
    other_stems = {p for t in other for p in _stems(t, fillers)}
    return norm.map(
        lambda t: t in other_stems or any(p in other_texts for p in _stems(t, fillers))
    ).astype(bool)


def _side_reasons(mine: pd.DataFrame, other: pd.DataFrame, fillers: list[str] | None) -> pd.Series:
    """Why each row of ``mine`` has no identical row (text, label, template) in ``other``;
    '' where it has one."""
    key = ["text", "toxic", "template"]
    exact = mine.merge(other[key].drop_duplicates(), on=key, how="left", indicator=True)
    same = (exact["_merge"] == "both").to_numpy()
    other_text = other.drop_duplicates("text").set_index("text")
    in_other = mine["text"].isin(other_text.index).to_numpy()
    why = pd.Series("", index=mine.index, dtype=object)
    dup = mine["text"].duplicated(keep="first").to_numpy()
    label_diff = np.zeros(len(mine), dtype=bool)
    tmpl_diff = np.zeros(len(mine), dtype=bool)
    if in_other.any():
        matched = other_text.loc[mine.loc[in_other, "text"]]
        label_diff[in_other] = matched["toxic"].to_numpy() != mine.loc[in_other, "toxic"].to_numpy()
        tmpl_diff[in_other] = (
            matched["template"].to_numpy() != mine.loc[in_other, "template"].to_numpy()
        )
    norm, other_all = _norm(mine["text"]), _norm(other["text"])
    other_norm = set(other_all)
    rest = ~same & ~in_other & ~dup
    casing = rest & norm.isin(other_norm).to_numpy()
    filler = np.zeros(len(mine), dtype=bool)
    cand = rest & ~casing
    if cand.any():
        filler[cand] = _with_filler(norm[cand], other_all, fillers).to_numpy()
    why[~same & in_other & label_diff] = "label differs"
    why[~same & in_other & ~label_diff & tmpl_diff] = "template differs"
    why[(why == "") & ~same & dup] = "duplicate"
    why[(why == "") & casing] = "casing or punctuation"
    why[(why == "") & filler] = "filler appended"
    why[(why == "") & ~same] = "absent"
    # a duplicate row whose text also matches: its first copy is the identical one
    why[same & dup] = "duplicate"
    return why


@dataclass
class MadlibsComparison:
    """A generated template set beside the released one (:func:`compare_madlibs`).

    Attributes
    ----------
    by_template : pandas.DataFrame
        One row per template (union of both sets, released order first): ``template``,
        ``n_generated``, ``n_released``, ``toxic_share_generated``, ``toxic_share_released``
        (NaN where a set lacks the template), ``n_identical`` (rows of the generated set with an
        identical released row: text, label and template), ``n_only_generated`` and
        ``n_only_released`` (rows of each set without an identical row in the other).
    differences : pandas.DataFrame
        Every row without an identical row in the other set: ``set`` (``'generated'`` or
        ``'released'``), ``text``, ``toxic``, ``template`` and ``why`` (one of :data:`WHY`).
    totals : pandas.Series
        ``n_generated``, ``n_released``, ``n_templates_generated``, ``n_templates_released``,
        ``n_templates_common``, ``toxic_share_generated``, ``toxic_share_released``,
        ``n_identical``, ``n_only_generated``, ``n_only_released`` and ``n_<why>`` (rows of
        either set per reason, spaces as underscores).
    """

    by_template: pd.DataFrame
    differences: pd.DataFrame
    totals: pd.Series


def compare_madlibs(
    generated: pd.DataFrame, released: pd.DataFrame, *, fillers: Sequence[str] | None = None
) -> MadlibsComparison:
    """Compare a generated identity-phrase set with the released one, row by row.

    Rows are matched on their text (exactly, order ignored). A row of one set without an
    identical row (same text, label and template) in the other gets the first reason that
    applies: ``'label differs'`` / ``'template differs'`` (same text, other label / template),
    ``'duplicate'`` (its text occurred earlier in its own set), ``'casing or punctuation'`` (the
    other set has it up to case, whitespace and final ``.!?``), ``'filler appended'`` (one text is
    the other with a filler appended: the other set has a text that this one starts with, or one
    that starts with this one, up to case), else ``'absent'``.

    Parameters
    ----------
    generated, released : pandas.DataFrame
        Columns ``text``, ``toxic`` (bool or 0/1) and ``template`` (e.g. :func:`make_madlibs`
        and :func:`nlpbias.data.dixon.load_dixon_templates`).
    fillers : sequence of str, optional
        The filler sentences (``madlib_words()["filler"]``): a text counts as another with a
        filler appended only when what follows is one of them. ``None``: any words that follow
        a word boundary (which also pairs "... african" with "... african american ...").

    Returns
    -------
    MadlibsComparison

    Examples
    --------
    >>> gen = pd.DataFrame({"text": ["i am gay", "i hate gay"], "toxic": [False, True],
    ...                     "template": ["am_hate_adj"] * 2})
    >>> rel = gen.assign(text=["I am gay", "i hate gay"])
    >>> c = compare_madlibs(gen, rel)
    >>> c.differences[["set", "text", "why"]]
             set      text                    why
    0  generated  i am gay  casing or punctuation
    1   released  I am gay  casing or punctuation
    """
    gen = _check_set(generated, "generated")
    rel = _check_set(released, "released")
    fill = None
    if fillers is not None:
        fill = list(_norm(pd.Series(check_texts(fillers, "fillers"), dtype=object)))
        if not fill or not all(fill):
            raise ValueError("fillers must be non-empty sentences, e.g. madlib_words()['filler']")
    gen_why, rel_why = _side_reasons(gen, rel, fill), _side_reasons(rel, gen, fill)
    diffs = pd.concat(
        [
            gen[gen_why != ""].assign(set="generated", why=gen_why[gen_why != ""]),
            rel[rel_why != ""].assign(set="released", why=rel_why[rel_why != ""]),
        ],
        ignore_index=True,
    )[["set", "text", "toxic", "template", "why"]]

    names = list(dict.fromkeys([*rel["template"], *gen["template"]]))
    rows = []
    for name in names:
        g, r = gen["template"] == name, rel["template"] == name
        rows.append(
            {
                "template": name,
                "n_generated": int(g.sum()),
                "n_released": int(r.sum()),
                "toxic_share_generated": float(gen.loc[g, "toxic"].mean()) if g.any() else np.nan,
                "toxic_share_released": float(rel.loc[r, "toxic"].mean()) if r.any() else np.nan,
                "n_identical": int((g & (gen_why == "")).sum()),
                "n_only_generated": int((g & (gen_why != "")).sum()),
                "n_only_released": int((r & (rel_why != "")).sum()),
            }
        )
    by_template = pd.DataFrame(rows)
    g_names, r_names = set(gen["template"]), set(rel["template"])
    totals = {
        "n_generated": len(gen),
        "n_released": len(rel),
        "n_templates_generated": len(g_names),
        "n_templates_released": len(r_names),
        "n_templates_common": len(g_names & r_names),
        "toxic_share_generated": float(gen["toxic"].mean()),
        "toxic_share_released": float(rel["toxic"].mean()),
        "n_identical": int((gen_why == "").sum()),
        "n_only_generated": int((gen_why != "").sum()),
        "n_only_released": int((rel_why != "").sum()),
    }
    for reason in WHY:
        totals[f"n_{reason.replace(' ', '_')}"] = int((diffs["why"] == reason).sum())
    return MadlibsComparison(by_template, diffs, pd.Series(totals, name="totals", dtype=object))


def madlibs_summary_text(comparison: MadlibsComparison) -> str:
    """One Markdown paragraph, written from the numbers, on a generated vs released set.

    Examples
    --------
    >>> gen = pd.DataFrame({"text": ["i am gay", "i hate gay"], "toxic": [False, True],
    ...                     "template": ["am_hate_adj"] * 2})
    >>> madlibs_summary_text(compare_madlibs(gen, gen))  # doctest: +NORMALIZE_WHITESPACE
    'The generated set has 2 rows in 1 template, the released set 2 rows in 1 template (1 in
    both); 50 % of the generated rows and 50 % of the released rows are toxic. All 2 generated
    rows are identical to a released row (text, label and template), and every released row is
    generated.'
    """
    if not isinstance(comparison, MadlibsComparison):
        raise TypeError(f"pass the result of compare_madlibs, got {type(comparison)}")
    t = comparison.totals

    def n(key: str) -> str:
        return fmt_count(t[key])

    def pct(key: str) -> str:
        return f"{fmt_num(100 * float(t[key]), 3)} %"

    def tmpl(k: str) -> str:
        return f"{n(k)} template{'s' if int(t[k]) != 1 else ''}"

    parts = [
        f"The generated set has {n('n_generated')} rows in {tmpl('n_templates_generated')}, "
        f"the released set {n('n_released')} rows in {tmpl('n_templates_released')} "
        f"({n('n_templates_common')} in both); {pct('toxic_share_generated')} of the generated "
        f"rows and {pct('toxic_share_released')} of the released rows are toxic."
    ]
    if int(t["n_only_generated"]) == 0 and int(t["n_only_released"]) == 0:
        parts.append(
            f"All {n('n_generated')} generated rows are identical to a released row (text, label "
            "and template), and every released row is generated."
        )
    else:
        d = comparison.differences
        counts = []
        for side in ("generated", "released"):
            sub = d[d["set"] == side]
            if sub.empty:
                counts.append(f"every {side} row has an identical row in the other set")
                continue
            reasons = sub["why"].value_counts()
            listed = ", ".join(f"{fmt_count(reasons[w])} {w}" for w in WHY if w in reasons.index)
            counts.append(f"{fmt_count(len(sub))} {side} rows have none ({listed})")
        parts.append(
            f"{n('n_identical')} generated rows are identical to a released row (text, label and "
            f"template); {counts[0]}; {counts[1]}."
        )
    return " ".join(parts)


def template_check(source: str, *, random_state: None | int | np.random.Generator) -> str:
    """The chapter's paragraph on the template set: generated here vs released, from the numbers.

    ``source`` is ``StudyData.source``: the word lists and the release are in the data home, so
    on the stand-in (``"synthetic"``) the paragraph says what the check needs instead.
    """
    if source != "real":
        return (
            "The check needs the word lists and the released set from the data home "
            "(`use_data_home`, on `paper`); the stand-in's templates are generated by "
            "`nlpbias.studies.pinned_auc.synthetic`."
        )
    from nlpbias.data.dixon import load_dixon_templates

    return madlibs_summary_text(
        compare_madlibs(make_madlibs(random_state=random_state), load_dixon_templates())
    )
