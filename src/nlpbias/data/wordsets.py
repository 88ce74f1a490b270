"""Word sets of WEAT-style association tests (``data/wordsets/*.yaml``).

A word set is one YAML file in the project's ``data/wordsets/`` folder. Every file has the fields

``name``
    The file stem.
``title``
    One line saying what is compared with what.
``targets``, ``attributes``
    Mappings of exactly two *ordered* set names to word lists: the first target set is T1, the
    second T2, the first attribute set A1, the second A2. A positive WEAT effect size means T1 is
    closer to A1 (and T2 to A2) than the reverse. Multi-word entries (``"construction worker"``)
    stay multi-word; an embedding query averages their word vectors.
``source``
    Where the lists come from (paper and table/appendix, or the file in the original repository).
``citation``
    A BibTeX key of ``book/references.bib``.
``notes``
    Out-of-vocabulary handling, casing, sign conventions and anything transcribed uncertainly.
``reported`` (optional)
    The published values for this test (e.g. ``effect_size``, ``p`` and ``p_bound`` for Caliskan
    et al. 2017 Table 1, or Dong's per-attribute scores), with the ``model`` they were measured on.
``components`` (optional)
    For an intersectional test, its single-axis components: a mapping of axis names (``race``,
    ``gender``) to the names of other word-set files in the same folder, e.g. ``{race:
    guo2021_af_em_intersectional_race, gender: guo2021_af_em_intersectional_gender}``. A component
    has the test's attributes (same order) and, as targets, both groups of the other axis merged,
    with the test's first target set inside its first target set (see each file's ``notes``).
``area`` (optional)
    The area of bias the test measures, one lowercase word: ``gender``, ``race``,
    ``intersectional``, ``age``, ``health`` or ``non-social`` (flowers/insects,
    instruments/weapons). Analyses that group tests by area (the perturbation chapter's
    correlation of differential bias between tests) read it; a test without it cannot be grouped.

The lists are facts of the published tests; nothing here computes a bias. Word sets extracted
from a dataset by PMI (``davidson_gender``, ``davidson_race``) keep the record of their manual
selection in ``data/wordsets/selection/<name>.yaml`` (:func:`load_selection`); the extraction is
:func:`extract_pmi` (both from :mod:`nlpbias.data.pmi`, re-exported here).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pandas as pd
import yaml

from nlpbias.core.paths import data_file
from nlpbias.data.pmi import extract_pmi, load_selection

__all__ = [
    "AREAS",
    "WordSet",
    "available_wordsets",
    "extract_pmi",
    "load_selection",
    "load_wordset",
    "load_wordsets",
    "reported_values",
    "wordsets_dir",
]

_REQUIRED = ("name", "title", "targets", "attributes", "source", "citation", "notes")
_OPTIONAL = ("reported", "components", "area")
#: The areas of bias a word set may name (field ``area``).
AREAS = ("gender", "race", "intersectional", "age", "health", "non-social")
_TEXT_FIELDS = ("title", "source", "citation", "notes")
_BIBKEY = re.compile(r"^[A-Za-z][A-Za-z0-9_:.-]*$")
_AXIS = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class WordSet:
    """Two target sets and two attribute sets of an association test, with their provenance.

    Instances are immutable (the mappings are read-only views) because :func:`load_wordset`
    caches and shares them.

    Attributes
    ----------
    name : str
        File stem in ``data/wordsets/``.
    title : str
        One-line description.
    targets : Mapping[str, tuple of str]
        Exactly two ordered target sets, T1 then T2.
    attributes : Mapping[str, tuple of str]
        Exactly two ordered attribute sets, A1 then A2.
    source, citation, notes : str
        Provenance, BibTeX key of ``book/references.bib``, and caveats.
    reported : Mapping or None
        Published values for this test, if any.
    components : Mapping[str, str] or None
        For an intersectional test, axis name -> name of the word set of that axis alone
        (e.g. ``{'race': ..., 'gender': ...}``); ``None`` for other tests.
    area : str or None
        The area of bias (one of :data:`AREAS`), where the file gives it.

    Examples
    --------
    >>> ws = load_wordset("caliskan_weat1")
    >>> ws.target_names, ws.attribute_names
    (('flowers', 'insects'), ('pleasant', 'unpleasant'))
    >>> ws.targets["flowers"][:3]
    ('aster', 'clover', 'hyacinth')
    >>> dict(load_wordset("guo2021_af_em_intersectional").components)["race"]
    'guo2021_af_em_intersectional_race'
    """

    name: str
    title: str
    targets: Mapping[str, tuple[str, ...]]
    attributes: Mapping[str, tuple[str, ...]]
    source: str
    citation: str
    notes: str
    reported: Mapping[str, Any] | None = None
    components: Mapping[str, str] | None = None
    area: str | None = None

    def __hash__(self) -> int:
        return hash((self.name, tuple(self.targets.items()), tuple(self.attributes.items())))

    @property
    def target_names(self) -> tuple[str, str]:
        """Names of T1 and T2, in order."""
        first, second = self.targets
        return first, second

    @property
    def attribute_names(self) -> tuple[str, str]:
        """Names of A1 and A2, in order."""
        first, second = self.attributes
        return first, second


def wordsets_dir() -> Path:
    """Return the folder that holds the word-set files (``data/wordsets/``).

    Examples
    --------
    >>> wordsets_dir().name
    'wordsets'
    """
    return data_file("wordsets")


def _natural_key(name: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _available(folder: Path) -> list[str]:
    """Stems of the YAML files in ``folder``, in natural order (weat2 before weat10)."""
    return sorted((p.stem for p in folder.glob("*.yaml")), key=_natural_key)


def _freeze(value: Any) -> Any:
    """Read-only copy of parsed YAML: mappings become mapping proxies, lists become tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({str(k): _freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def _word_sets(spec: dict, field: str, where: str) -> MappingProxyType:
    sets = spec[field]
    if not isinstance(sets, Mapping) or len(sets) != 2:
        got = f"{len(sets)} sets" if isinstance(sets, Mapping) else type(sets).__name__
        raise ValueError(
            f"{where}: field '{field}' must map exactly 2 set names to word lists, got {got}"
        )
    out: dict[str, tuple[str, ...]] = {}
    for set_name, words in sets.items():
        at = f"{where}: field '{field}.{set_name}'"
        if not isinstance(set_name, str) or not set_name.strip():
            raise ValueError(f"{where}: field '{field}' has a set name that is not a string")
        if not isinstance(words, list) or not words:
            raise ValueError(f"{at} must be a non-empty list of words")
        bad = [w for w in words if not isinstance(w, str) or not w.strip() or w != w.strip()]
        if bad:
            raise ValueError(
                f"{at} has entries that are not non-empty strings without surrounding spaces: "
                f"{bad[:5]!r} (quote YAML words such as yes/no/null or numbers)"
            )
        dups = sorted({w for w in words if words.count(w) > 1})
        if dups:
            raise ValueError(f"{at} lists words more than once: {dups}; keep each word once")
        out[set_name] = tuple(words)
    first, second = out.values()
    shared = sorted(set(first) & set(second))
    if shared:
        raise ValueError(
            f"{where}: field '{field}' has words in both sets: {shared}; the two sets must be "
            "disjoint"
        )
    return MappingProxyType(out)


def _components(spec: dict, path: Path, where: str) -> MappingProxyType | None:
    """The optional ``components`` field: axis name -> name of another word-set file in ``path``'s
    folder."""
    comps = spec.get("components")
    if comps is None:
        return None
    if not isinstance(comps, Mapping) or not comps:
        raise ValueError(
            f"{where}: field 'components' must be a non-empty mapping of axis names to word-set "
            f"names, e.g. {{race: <name>, gender: <name>}}, got {comps!r}"
        )
    out: dict[str, str] = {}
    for axis, name in comps.items():
        if not isinstance(axis, str) or not _AXIS.match(axis):
            raise ValueError(
                f"{where}: field 'components' has axis {axis!r}; an axis name is a lowercase word "
                "such as 'race' or 'gender'"
            )
        at = f"{where}: field 'components.{axis}'"
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{at} must be the name of a word-set file, got {name!r}")
        if name == path.stem:
            raise ValueError(f"{at} names the file itself; a component is another word set")
        if not (path.parent / f"{name}.yaml").is_file():
            raise ValueError(
                f"{at} is {name!r}, but there is no word-set file {name}.yaml in {path.parent}; "
                f"add the file or fix the name (available: {_available(path.parent)})"
            )
        out[axis] = name
    return MappingProxyType(out)


def _area(spec: dict, where: str) -> str | None:
    """The optional ``area`` field: one of :data:`AREAS`."""
    area = spec.get("area")
    if area is not None and area not in AREAS:
        raise ValueError(f"{where}: field 'area' is {area!r}; use one of {list(AREAS)}")
    return area


def _parse(path: Path) -> WordSet:
    where = f"word set file {path.name}"
    try:
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = f" at line {mark.line + 1}" if mark is not None else ""
        raise ValueError(f"{where} is not valid YAML{line}; fix the syntax") from None
    if not isinstance(spec, dict):
        raise ValueError(f"{where} must be a YAML mapping with fields {list(_REQUIRED)}")
    missing = [f for f in _REQUIRED if f not in spec]
    if missing:
        raise ValueError(f"{where} lacks field(s) {missing}; required: {list(_REQUIRED)}")
    unknown = sorted(set(spec) - set(_REQUIRED) - set(_OPTIONAL))
    if unknown:
        raise ValueError(
            f"{where} has unknown field(s) {unknown}; allowed: {list(_REQUIRED + _OPTIONAL)}"
        )
    for field in _TEXT_FIELDS:
        if not isinstance(spec[field], str) or not spec[field].strip():
            raise ValueError(f"{where}: field '{field}' must be a non-empty string")
    if spec["name"] != path.stem:
        raise ValueError(
            f"{where}: field 'name' is {spec['name']!r} but must equal the file stem {path.stem!r}"
        )
    if not _BIBKEY.match(spec["citation"]):
        raise ValueError(
            f"{where}: field 'citation' must be one BibTeX key of book/references.bib, "
            f"got {spec['citation']!r}"
        )
    reported = spec.get("reported")
    if reported is not None and (not isinstance(reported, dict) or not reported):
        raise ValueError(f"{where}: field 'reported' must be a non-empty mapping when present")
    return WordSet(
        name=spec["name"],
        title=" ".join(spec["title"].split()),
        targets=_word_sets(spec, "targets", where),
        attributes=_word_sets(spec, "attributes", where),
        source=spec["source"].strip(),
        citation=spec["citation"],
        notes=spec["notes"].strip(),
        reported=None if reported is None else _freeze(reported),
        components=_components(spec, path, where),
        area=_area(spec, where),
    )


@lru_cache(maxsize=512)
def _load_cached(path: str, mtime_ns: int) -> WordSet:
    # the modification time is part of the key, so an edited file is parsed again
    return _parse(Path(path))


def load_wordset(name: str, *, folder: str | Path | None = None) -> WordSet:
    """Load and validate one word set.

    Parameters
    ----------
    name : str
        File stem in the word-set folder, e.g. ``'caliskan_weat6'``, ``'kato_weat6'``,
        ``'winobias_occupations'``, ``'hsd_gender'``, ``'dong_leader_follower'``; see
        :func:`available_wordsets`.
    folder : str or Path, optional
        Folder of word-set files; default the project's ``data/wordsets/``.

    Returns
    -------
    WordSet
        Cached (per file and modification time) and read-only: loading an unchanged file twice
        returns the same object.

    Raises
    ------
    ValueError
        If ``name`` is not an available word set, or its file breaks the schema (the message
        names the file and the field).

    Examples
    --------
    >>> ws = load_wordset("caliskan_weat6")
    >>> ws.target_names, len(ws.targets["male_names"])
    (('male_names', 'female_names'), 8)
    >>> ws.citation
    'caliskan2017semantics'
    """
    root = wordsets_dir() if folder is None else Path(folder)
    available = _available(root)
    if not isinstance(name, str) or name not in available:
        raise ValueError(f"word set must be one of {available}, got {name!r}")
    path = (root / f"{name}.yaml").resolve()
    return _load_cached(str(path), path.stat().st_mtime_ns)


def load_wordsets(names: Iterable[str], *, folder: str | Path | None = None) -> list[WordSet]:
    """Load several word sets, in the given order.

    Parameters
    ----------
    names : iterable of str
        File stems, e.g. ``["kato_weat6", "kato_weat7", "kato_weat8"]``. A single string is
        rejected (it would be read letter by letter).
    folder : str or Path, optional
        Folder of word-set files; default the project's ``data/wordsets/``.

    Returns
    -------
    list of WordSet

    Examples
    --------
    >>> [ws.name for ws in load_wordsets(["kato_weat7", "kato_weat8"])]
    ['kato_weat7', 'kato_weat8']
    """
    if isinstance(names, str):
        raise TypeError(f"names must be a list of word-set names, got the string {names!r}")
    return [load_wordset(n, folder=folder) for n in names]


def available_wordsets(*, folder: str | Path | None = None) -> pd.DataFrame:
    """List the word sets with the size of each of their four sets.

    Parameters
    ----------
    folder : str or Path, optional
        Folder of word-set files; default the project's ``data/wordsets/``.

    Returns
    -------
    pandas.DataFrame
        One row per word set, in natural order of the names, with columns ``name``, ``title``,
        ``target_1``, ``target_2``, ``attribute_1``, ``attribute_2`` (set names),
        ``n_target_1``, ``n_target_2``, ``n_attribute_1``, ``n_attribute_2`` (word counts),
        ``citation`` and ``has_reported``.

    Examples
    --------
    >>> table = available_wordsets()
    >>> table.set_index("name").loc["caliskan_weat1", ["n_target_1", "n_attribute_2"]].tolist()
    [25, 25]
    """
    root = wordsets_dir() if folder is None else Path(folder)
    rows = []
    for ws in load_wordsets(_available(root), folder=root):
        (t1, w1), (t2, w2) = ws.targets.items()
        (a1, v1), (a2, v2) = ws.attributes.items()
        rows.append(
            {
                "name": ws.name,
                "title": ws.title,
                "target_1": t1,
                "target_2": t2,
                "attribute_1": a1,
                "attribute_2": a2,
                "n_target_1": len(w1),
                "n_target_2": len(w2),
                "n_attribute_1": len(v1),
                "n_attribute_2": len(v2),
                "citation": ws.citation,
                "has_reported": ws.reported is not None,
            }
        )
    columns = [
        "name",
        "title",
        "target_1",
        "target_2",
        "attribute_1",
        "attribute_2",
        "n_target_1",
        "n_target_2",
        "n_attribute_1",
        "n_attribute_2",
        "citation",
        "has_reported",
    ]
    return pd.DataFrame(rows, columns=columns)


def reported_values(names: Iterable[str], *, folder: str | Path | None = None) -> pd.DataFrame:
    """The values a paper reported for these word sets (their ``reported`` field), one row each.

    Returns
    -------
    pandas.DataFrame
        ``name, reported_effect_size, reported_p, p_bound, model, table, verified``; word sets
        without a ``reported`` field are left out.

    Examples
    --------
    >>> reported_values(["caliskan_weat1", "kato_weat6"])["name"].tolist()
    ['caliskan_weat1']
    """
    rows = []
    for ws in load_wordsets(names, folder=folder):
        rep = ws.reported
        if not rep or "effect_size" not in rep:
            continue
        rows.append(
            {
                "name": ws.name,
                "reported_effect_size": float(rep["effect_size"]),
                "reported_p": float(rep["p"]) if rep.get("p") is not None else float("nan"),
                "p_bound": rep.get("p_bound", "="),
                "model": rep.get("model", ""),
                "table": rep.get("table", ""),
                "verified": bool(rep.get("verified", False)),
            }
        )
    columns = ["name", "reported_effect_size", "reported_p", "p_bound", "model", "table",
               "verified"]  # fmt: skip
    return pd.DataFrame(rows, columns=columns)
