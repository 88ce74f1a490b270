"""One place for each knob: a value the reader can change lives in the notebook's parameters
cell (the demo value) and in notebooks/profiles.yml, nowhere else.

So no public function of a study package (the names of its ``__all__``, what the notebook may
call, and the public functions of its modules) gives a default to a keyword named like one of
its chapter's parameters: the function takes it as a required keyword and the notebook (or the
study function that calls it) passes the chapter's value. A default there would be a second
copy of the knob, and a copy that can drift (LOGAN's ``path_grid`` did: the function said 200
where the cell did not).

Keywords that mean a chapter's parameter under another name are listed in ``ALIASES``; the
few keywords that share a parameter's name but not its meaning are in ``EXCEPTIONS``, each with
its reason. Estimators (classes with ``get_params``: LOGAN, GloVe, the classifiers) keep their
constructor defaults, scikit-learn's convention that ``clone`` relies on; the study functions
that build them pass the chapter's values.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path
from typing import Any

import nbformat
import pytest

from nlpbias.book import runner

ROOT = Path(__file__).resolve().parents[2]
CONFIG = runner.load_config(ROOT)
STUDIES = list(CONFIG["studies"])

#: (study, function, keyword) → the parameter of the chapter's cell it is, under another name.
ALIASES: dict[tuple[str, str, str], str] = {
    ("data", "summarise_term_frequencies", "min_count"): "min_term_count",
    ("data", "summarise_table1", "min_count"): "min_term_count",
    ("perturbation", "prepare", "max_size"): "max_vocab",
    ("perturbation", "build_vocabulary", "max_size"): "max_vocab",
    ("pinned_auc", "skew_in_domain", "toxic_share"): "skew_toxic_share",
    ("pinned_auc", "skew_in_domain", "hold_back"): "skew_hold_back",
    ("logan", "make_local_bias_data", "n"): "n_synthetic",
    ("pinned_auc", "skewed_scenario", "toxic_share"): "skew_toxic_share",
    ("pinned_auc", "skewed_scenario", "hold_back"): "skew_hold_back",
    ("logan", "select_lambda", "grid"): "lam_grid",
    ("logan", "lambda_path", "grid"): "path_grid",
    ("intrinsic", "nlpbias.metrics.rnsb.rnsb", "n_runs"): "rnsb_runs",
    ("intrinsic", "nlpbias.metrics.rnsb.rnsb_signed", "n_runs"): "rnsb_runs",
    ("intrinsic", "nlpbias.metrics.rnsb.rnsb_kl", "n_runs"): "rnsb_runs",
}

#: (study, function, keyword) that share a parameter's name, not its meaning: why they keep a
#: default.
EXCEPTIONS: dict[tuple[str, str, str], str] = {
    # bootstrap resamples of the interval of the mean rho; the cell's n_resamples is the number
    # of permutations of each rho's p-value
    ("intrinsic_extrinsic", "headlines", "n_resamples"): "bootstrap, not the permutations",
    ("intrinsic_extrinsic", "mean_rho_interval", "n_resamples"): "bootstrap, not permutations",
    ("intrinsic_extrinsic", "headline_intervals", "n_resamples"): "bootstrap, not permutations",
    # `model` of the pool check is the fitted scorer (or its name in a sentence), not the
    # chapter's kind of classifier
    ("pinned_auc", "pool_check_text", "model"): "the scorer's name in the sentence",
    ("pinned_auc", "pool_check", "model"): "a fitted scorer, not the classifier kind",
    # buckets come from n_buckets or from the edges of another set's buckets
    ("pinned_auc", "nlpbias.data.describe.length_buckets", "n_buckets"): "n_buckets or edges",
    # seeds of one embedding's evaluation (the stand-in data, the split, the downstream models,
    # set from seeds_original / seeds_modified); the cell's random_state seeds the correlations
    ("intrinsic_extrinsic", "attract_repel", "random_state"): "embedding's own seed",
    ("intrinsic_extrinsic", "balance_corpus", "random_state"): "embedding's own seed",
    ("intrinsic_extrinsic", "evaluate_coref", "random_state"): "a seed of seeds_original",
    ("intrinsic_extrinsic", "evaluate_hsd", "random_state"): "a seed of seeds_original",
    ("intrinsic_extrinsic", "hsd_data", "random_state"): "the fixed train/test split",
    ("intrinsic_extrinsic", "standin_pairs", "random_state"): "the fixed stand-in data",
    ("intrinsic_extrinsic", "make_coref_standin", "random_state"): "the fixed stand-in data",
    # the permutations of a rank correlation's p-value (the intrinsic chapter's agreement with
    # the published values, 9999); the cell's n_resamples is WEAT's permutations
    ("intrinsic", "nlpbias.metrics.stats.agreement", "n_resamples"): "rho's, not WEAT's",
    ("intrinsic", "nlpbias.metrics.stats.spearman_permutation", "n_resamples"): "rho's",
}

#: Functions of the shared layers that a chapter passes its parameters to: the same rule.
#: ``ALIASES`` and ``EXCEPTIONS`` name them by these dotted names.
SHARED: dict[str, list[str]] = {
    "data": [
        "nlpbias.data.cards.reachable_parts",
        "nlpbias.data.cards.toxicity_frames",
        "nlpbias.data.describe.toxicity_by_length",
    ],
    "pinned_auc": [
        "nlpbias.data.describe.length_buckets",
        "nlpbias.data.describe.toxicity_by_length",
    ],
    "intrinsic": [
        "nlpbias.metrics.weat.weat",
        "nlpbias.metrics.weat.weat_effect_size",
        "nlpbias.metrics.weat.weat_by_embedding",
        "nlpbias.metrics.weat.word_associations",
        "nlpbias.metrics.query.Query.vectors",
        "nlpbias.metrics.rnsb.rnsb",
        "nlpbias.metrics.rnsb.rnsb_signed",
        "nlpbias.metrics.rnsb.rnsb_kl",
        "nlpbias.metrics.stats.agreement",
        "nlpbias.metrics.stats.spearman_permutation",
        "nlpbias.models.embeddings.load_embeddings",
    ],
}

#: Chapters whose item 3 of issue 26 is another branch's: they must still fail (strict xfail),
#: so the entry is removed when that branch lands.
PENDING: dict[str, str] = {}  # study -> why its contract is not yet enforced


def _cell_names(study: str) -> set[str]:
    """Names assigned by the study's cell tagged ``parameters`` (``profile`` aside)."""
    path = ROOT / "notebooks" / CONFIG["studies"][study]["notebook"]
    cells = nbformat.read(path, as_version=4).cells
    (cell,) = [c for c in cells if "parameters" in c.metadata.get("tags", [])]
    namespace: dict[str, Any] = {}
    exec(compile(cell.source, f"{path.name}:parameters", "exec"), namespace)
    return {k for k in namespace if not k.startswith("__")} - {"profile"}


def _public_callables(study: str) -> dict[str, Any]:
    """The public functions of the package and of its modules, and the constructors of its
    classes, estimators aside."""
    pkg = importlib.import_module(f"nlpbias.studies.{study}")
    found = {name: getattr(pkg, name) for name in pkg.__all__}
    for info in pkgutil.iter_modules(pkg.__path__, f"{pkg.__name__}."):
        module = importlib.import_module(info.name)
        found.update(
            (name, obj)
            for name, obj in vars(module).items()
            if not name.startswith("_") and getattr(obj, "__module__", None) == info.name
        )
    out = {}
    for name, obj in found.items():
        if inspect.isfunction(obj):
            out[name] = inspect.unwrap(obj)
        elif inspect.isclass(obj) and not hasattr(obj, "get_params"):
            if inspect.isfunction(vars(obj).get("__init__")):
                out[name] = obj.__init__
    return out


def _shared(dotted: str) -> Any:
    """The function (or method) a dotted name of ``SHARED`` names."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return inspect.unwrap(obj)
    raise AssertionError(f"{dotted} names no module's function")


def _defaults(fn: Any) -> dict[str, Any]:
    return {
        p.name: p.default
        for p in inspect.signature(fn).parameters.values()
        if p.default is not inspect.Parameter.empty
    }


def _knob_defaults(study: str, names: set[str], callables: dict[str, Any]) -> list[str]:
    """``function(keyword=default)`` for each keyword of ``callables`` that is a knob."""
    found = []
    for fname, fn in callables.items():
        for kw, default in _defaults(fn).items():
            knob = ALIASES.get((study, fname, kw), kw if kw in names else None)
            if knob is not None and (study, fname, kw) not in EXCEPTIONS:
                found.append(f"{fname}({kw}={default!r}) repeats the parameter {knob!r}")
    return found


@pytest.mark.parametrize(
    "study",
    [
        pytest.param(s, marks=pytest.mark.xfail(reason=PENDING[s], strict=True))
        if s in PENDING
        else s
        for s in STUDIES
    ],
)
def test_study_functions_take_the_chapters_knobs_without_a_default(study: str) -> None:
    found = _knob_defaults(study, _cell_names(study), _public_callables(study))
    assert not found, (
        f"{study}: {found}; a knob lives in the parameters cell and profiles.yml only: make "
        "the keyword required and pass the chapter's value (or list a different meaning in "
        "tests/book/test_knobs.py's EXCEPTIONS, with its reason)"
    )


@pytest.mark.parametrize("study", list(SHARED))
def test_shared_functions_a_chapter_calls_take_its_knobs_without_a_default(study: str) -> None:
    callables = {dotted: _shared(dotted) for dotted in SHARED[study]}
    found = _knob_defaults(study, _cell_names(study), callables)
    assert not found, f"{study}: {found}; make the keyword required and pass the chapter's value"


@pytest.mark.parametrize("table", [ALIASES, EXCEPTIONS])
def test_the_lists_name_real_keywords(table: dict[tuple[str, str, str], str]) -> None:
    """Every listed keyword exists (so the lists cannot go stale); an alias names a parameter
    of the cell; an exception still has its default."""
    for study, fname, kw in table:
        if fname in SHARED.get(study, []):
            fn = _shared(fname)
        else:
            fn = _public_callables(study).get(fname)
        assert fn is not None, f"{study}.{fname} is not a public function of the package"
        params = inspect.signature(fn).parameters
        assert kw in params, f"{study}.{fname} has no keyword {kw!r}"
        if table is ALIASES:
            assert table[study, fname, kw] in _cell_names(study)
        else:
            assert kw in _cell_names(study) and kw in _defaults(fn), (study, fname, kw)


def test_the_check_finds_a_default_by_name_and_by_alias() -> None:
    def select_lambda(x, *, n_seeds=20, grid=(1, 2), n_resamples=3, lam_grid):
        return x

    def headlines(x, *, n_resamples=2000):
        return x

    found = _knob_defaults(
        "logan",
        {"n_seeds", "lam_grid"},
        {"select_lambda": select_lambda, "headlines": headlines},
    )
    assert found == [
        "select_lambda(n_seeds=20) repeats the parameter 'n_seeds'",
        "select_lambda(grid=(1, 2)) repeats the parameter 'lam_grid'",
    ]
    listed = _knob_defaults("intrinsic_extrinsic", {"n_resamples"}, {"headlines": headlines})
    assert listed == []  # an exception
    assert _knob_defaults("logan", {"n_resamples"}, {"headlines": headlines})
