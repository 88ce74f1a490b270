"""Do intrinsic bias metrics predict extrinsic bias? (Katô & Miyao, after Goldfarb-Tarrant et al.)

The study, as functions the notebook calls:

1. :func:`embedding_grid` — the list of embeddings: for each corpus and algorithm the original
   embedding, plus versions whose bias was modified with dataset balancing
   (:func:`nlpbias.studies.intrinsic_extrinsic.balancing.balance_corpus`, retrained) and
   Attract-Repel (:func:`nlpbias.studies.intrinsic_extrinsic.attract_repel.attract_repel`,
   post-processed), each driven by one
   *modification word set*: the word sets aligned with the extrinsic task ("extracted") or the
   merged generic WEAT sets ("weat"), as in the paper's Table 2.
2. :func:`evaluate_embedding` — one sweep task: build (or load from the cache) one embedding, then
   measure its intrinsic bias (WEAT effect size and signed RNSB, for every evaluation word set of
   its families) and its extrinsic bias (the downstream task trained on it with several seeds).
   :func:`run_study` runs all tasks through :func:`nlpbias.core.sweep.run_sweep`.
3. :func:`correlations` — Spearman ρ between each intrinsic and each extrinsic metric over the
   embeddings of one (family, algorithm, modification set), with a two-sided permutation p-value;
   :func:`paper_table` lays it out as the paper's Tables 3-10 with the paper's value beside ours.

Families (the paper's three kinds of bias measurement):

========== ============== ====== ====== ============================= =====================
family     corpus         task   bias   extracted (aligned) word set  generic WEAT sets
========== ============== ====== ====== ============================= =====================
coref      Gutenberg      coref  gender ``winobias_occupations``      WEAT 6, 7, 8
hsd_gender tweets         hsd    gender ``davidson_gender``           WEAT 6, 7, 8
hsd_race   tweets         hsd    race   ``davidson_race``             WEAT 3, 4, 5
========== ============== ====== ====== ============================= =====================
"""

from __future__ import annotations

import itertools
import logging
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.core.cache import cached

__all__ = [
    "FAMILIES",
    "Family",
    "build_embedding",
    "correlations",
    "corpus_for",
    "embedding_grid",
    "evaluate_embedding",
    "merged_wordset",
    "paper_table",
    "reported_table",
    "run_study",
    "scores_frame",
    "alignment_summary",
    "alignment_text",
    "figure1_panels",
    "paper_tables",
    "rho_long",
    "skipped_table",
    "wordset_table",
]

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Family:
    """One kind of bias measurement: a corpus, a downstream task, and its word sets."""

    name: str
    corpus: str
    task: str
    bias: str
    extracted: str
    weat: tuple[str, ...]
    #: Extrinsic metric rows of the paper's tables (task views): e.g. WinoBias type 1 and 2.
    views: tuple[str, ...]


FAMILIES: dict[str, Family] = {
    "coref": Family(
        "coref",
        "gutenberg",
        "coref",
        "gender",
        "winobias_occupations",
        ("kato_weat6", "kato_weat7", "kato_weat8"),
        ("winobias_type1", "winobias_type2"),
    ),
    "hsd_gender": Family(
        "hsd_gender",
        "tweets",
        "hsd",
        "gender",
        "davidson_gender",
        ("kato_weat6", "kato_weat7", "kato_weat8"),
        ("hsd",),
    ),
    "hsd_race": Family(
        "hsd_race",
        "tweets",
        "hsd",
        "race",
        "davidson_race",
        ("kato_weat3", "kato_weat4", "kato_weat5"),
        ("hsd",),
    ),
}

_ALGORITHMS = ("word2vec", "fasttext")
#: Pretrained embeddings usable as the original of a family (no corpus: Attract-Repel only).
PRETRAINED = {"glove-6b-50d": "glove"}
_MODSETS = ("extracted", "weat")
_METRICS = ("precision", "recall", "f1")
#: Gap prefix in :func:`nlpbias.studies.intrinsic_extrinsic.hsd.hsd_gaps` for each bias of the HSD
#: families.
_HSD_GAP = {"gender": "gender", "race": "dialect"}


def _families(names: Iterable[str]) -> list[Family]:
    names = list(names)
    unknown = [n for n in names if n not in FAMILIES]
    if unknown or not names:
        raise ValueError(f"unknown or no families {unknown or names}; use some of {list(FAMILIES)}")
    return [FAMILIES[n] for n in names]


# --------------------------------------------------------------------------- word sets


def merged_wordset(names: Sequence[str]) -> Any:
    """Merge word sets role by role (T1 ∪ T1', …), as the paper merges WEAT 6, 7 and 8.

    Parameters
    ----------
    names : list of str
        Word-set names in ``data/wordsets``.

    Returns
    -------
    nlpbias.metrics.query.Query
        Named ``"+".join(names)``; duplicate words appear once.

    Examples
    --------
    >>> q = merged_wordset(["kato_weat7", "kato_weat8"])
    >>> "science" in q.targets[0] and "math" in q.targets[0]
    True
    """
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import Query, as_query

    queries = [as_query(load_wordset(n)) for n in names]
    if len(queries) == 1:
        return queries[0]

    def union(sets: Iterable[Sequence[str]]) -> list[str]:
        return list(dict.fromkeys(w for s in sets for w in s))

    first = queries[0]
    return Query(
        targets=[union(q.targets[i] for q in queries) for i in range(2)],
        attributes=[union(q.attributes[i] for q in queries) for i in range(2)],
        target_names=first.target_names,
        attribute_names=first.attribute_names,
        name="+".join(names),
    )


def _modification_query(family: Family, modset: str) -> Any:
    if modset == "extracted":
        return merged_wordset([family.extracted])
    return merged_wordset(list(family.weat))


def _evaluation_sets(family: Family, modset: str | None) -> dict[str, str]:
    """Column name -> word-set name; the original embedding is evaluated on every set."""
    out = {}
    if modset in (None, "extracted"):
        out["extracted"] = family.extracted
    if modset in (None, "weat"):
        out.update({n.removeprefix("kato_"): n for n in family.weat})
    return out


# --------------------------------------------------------------------------- corpora


@cached
def _corpus_sentences(spec: str, max_docs: int | None, split: bool) -> list[list[str]]:
    from nlpbias.core import text
    from nlpbias.data.training_corpora import iter_corpus

    return text.sentences(iter_corpus(spec, max_docs=max_docs), lowercase=True, split=split)


def corpus_for(corpus: str, *, max_docs: int | None = None) -> list[list[str]]:
    """Token lists of a corpus of the study, lower-cased (cached).

    Any name of :data:`nlpbias.data.training_corpora.CORPORA`: ``"gutenberg"`` (part 1 of the
    Gutenberg subset) and ``"wiki_summaries"`` give one token list per **sentence** (the paper
    splits Wikipedia into sentences so that balancing can drop single sentences); ``"tweets"``
    gives one token list per tweet (the paper: "we regard a tweet as a sentence"). ``max_docs``
    limits the number of paragraphs, summaries or tweets read. The cache key holds the
    resolved corpus (for ``"tweets"``: the sources the data home holds).

    Examples
    --------
    >>> sents = corpus_for("wiki_summaries", max_docs=2)
    >>> all(isinstance(t, str) for s in sents for t in s), len(sents) > 2
    (True, True)
    """
    from nlpbias.data.training_corpora import resolve_corpus

    spec = resolve_corpus(corpus)
    return _corpus_sentences(spec, max_docs, not spec.startswith("tweets"))


# --------------------------------------------------------------------------- the grid


def _spec_id(spec: Mapping[str, Any]) -> str:
    base = f"{spec['corpus']}/{spec['algorithm']}"
    if spec["method"] == "original":
        return f"{base}/original"
    if spec["method"] == "balance":
        return f"{base}/{spec['family']}:{spec['modset']}/balance-{spec['mode']}-p{spec['p']}"
    return (
        f"{base}/{spec['family']}:{spec['modset']}/ar-{spec['mode']}"
        f"-s{spec['delta_sim']}-a{spec['delta_ant']}-l{spec['reg']}"
    )


def embedding_grid(
    *,
    families: Sequence[str] = ("coref", "hsd_gender", "hsd_race"),
    algorithms: Sequence[str] = _ALGORITHMS,
    modsets: Sequence[str] = _MODSETS,
    balance_p: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    attract_repel: Mapping[str, Sequence[float]] | None = None,
    modes: Sequence[str] = ("debias", "overbias"),
    corpora: Mapping[str, str] | None = None,
) -> list[dict[str, Any]]:
    """The embeddings of the study, as a list of specification dicts.

    One original embedding per (corpus, algorithm), then for each family, algorithm and
    modification set: dataset balancing at every ``p`` and mode, and Attract-Repel at every point
    of the ``attract_repel`` grid (keys ``delta_sim``, ``delta_ant``, ``reg``; the paper's
    Appendix O: {0, 1} × {0, 1} × {0.1, 0.05, 0.01}) and mode. The paper's full grid gives
    1 + 20 + 24 = 45 embeddings per (family, algorithm, modification set). ``corpora`` replaces
    the training corpus of a family (e.g. ``{"coref": "wiki_summaries"}``), or names a
    pretrained embedding of :data:`PRETRAINED` (``{"coref": "glove-6b-50d"}``, no data home
    needed): that family then has one original (algorithm ``"glove"``) and Attract-Repel
    variants only, since balancing needs a corpus to retrain on.

    Returns
    -------
    list of dict
        Keys ``id``, ``corpus``, ``algorithm``, ``method`` ('original', 'balance',
        'attract_repel'), and for modified embeddings ``family``, ``modset``, ``mode`` and the
        method's parameters.

    Examples
    --------
    >>> grid = embedding_grid(families=["coref"], algorithms=["word2vec"], modsets=["extracted"],
    ...                       balance_p=[0.0], attract_repel={"delta_sim": [1], "delta_ant": [0],
    ...                       "reg": [0.05]})
    >>> [g["id"] for g in grid][:2]
    ['gutenberg/word2vec/original', 'gutenberg/word2vec/coref:extracted/balance-debias-p0.0']
    >>> len(grid)
    5
    """
    fams = _families(families)
    corpus_of = {f.name: (corpora or {}).get(f.name, f.corpus) for f in fams}
    bad = [a for a in algorithms if a not in _ALGORITHMS] + [
        m for m in modsets if m not in _MODSETS
    ]
    bad += [m for m in modes if m not in ("debias", "overbias")]
    if bad:
        raise ValueError(
            f"unknown grid values {bad}; algorithms {_ALGORITHMS}, modsets {_MODSETS}, "
            "modes ('debias', 'overbias')"
        )
    for p in balance_p:
        if not 0.0 <= float(p) <= 1.0:
            raise ValueError(f"balance_p values must lie in [0, 1], got {p!r}")
    ar = dict(attract_repel or {"delta_sim": [0, 1], "delta_ant": [0, 1], "reg": [0.1, 0.05, 0.01]})
    if set(ar) != {"delta_sim", "delta_ant", "reg"}:
        raise ValueError(
            f"attract_repel must have the keys delta_sim, delta_ant, reg; got {sorted(ar)}"
        )
    specs: list[dict[str, Any]] = []

    def algs(corpus: str) -> list[str]:
        return [PRETRAINED[corpus]] if corpus in PRETRAINED else list(algorithms)

    for corpus in dict.fromkeys(corpus_of.values()):
        for alg in algs(corpus):
            served = [f.name for f in fams if corpus_of[f.name] == corpus]
            specs.append(
                {"corpus": corpus, "algorithm": alg, "method": "original", "families": served}
            )
    for fam, modset in itertools.product(fams, modsets):
        for alg in algs(corpus_of[fam.name]):
            common = {
                "corpus": corpus_of[fam.name],
                "algorithm": alg,
                "family": fam.name,
                "modset": modset,
            }
            pretrained = corpus_of[fam.name] in PRETRAINED
            for mode, p in itertools.product(modes, [] if pretrained else balance_p):
                specs.append({**common, "method": "balance", "mode": mode, "p": float(p)})
            for mode, s, a, r in itertools.product(
                modes, ar["delta_sim"], ar["delta_ant"], ar["reg"]
            ):
                specs.append(
                    {
                        **common,
                        "method": "attract_repel",
                        "mode": mode,
                        "delta_sim": float(s),
                        "delta_ant": float(a),
                        "reg": float(r),
                    }
                )
    for spec in specs:
        spec["id"] = _spec_id(spec)
    return [{"id": s.pop("id"), **s} for s in specs]


# --------------------------------------------------------------------------- one embedding


def build_embedding(spec: Mapping[str, Any], *, corpus_options: Mapping[str, Any]) -> Any:
    """Train (or load from the cache) the embedding a spec describes.

    ``corpus_options`` holds ``max_docs`` (per corpus: ``{"gutenberg": 20000, "tweets": None}``)
    and the training parameters (``vector_size``, ``window``, ``min_count``, ``epochs``,
    ``random_state``), shared by every embedding of the study so that only the modification
    differs. Balancing retrains on the balanced corpus; Attract-Repel post-processes the
    original embedding of the same corpus and algorithm.
    """
    from nlpbias.models.training import train_embedding

    opts = dict(corpus_options)
    if spec["corpus"] in PRETRAINED:
        if spec["method"] == "balance":
            raise ValueError(
                f"balancing needs a training corpus, but {spec['corpus']!r} is a pretrained "
                "embedding; use a corpus such as 'gutenberg' or drop balance_p"
            )
        from nlpbias.models.embeddings import load_embeddings

        kv = load_embeddings([spec["corpus"]])[spec["corpus"]]
        return _attract_repel(kv, spec, opts) if spec["method"] == "attract_repel" else kv
    max_docs = opts.pop("max_docs", {}).get(spec["corpus"])
    sentences = corpus_for(spec["corpus"], max_docs=max_docs)
    if spec["method"] == "balance":
        from nlpbias.studies.intrinsic_extrinsic.balancing import balance_corpus

        query = _modification_query(FAMILIES[spec["family"]], spec["modset"])
        balanced = balance_corpus(
            sentences,
            query,
            p=spec["p"],
            mode=spec["mode"],
            random_state=opts.get("random_state", 0),
        )
        sentences = balanced.sentences
    kv = train_embedding(
        sentences, algorithm=spec["algorithm"], show_progress=False, workers=1, **opts
    )
    return _attract_repel(kv, spec, opts) if spec["method"] == "attract_repel" else kv


def _attract_repel(kv: Any, spec: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from nlpbias.studies.intrinsic_extrinsic.attract_repel import attract_repel

    return attract_repel(
        kv,
        _modification_query(FAMILIES[spec["family"]], spec["modset"]),
        mode=spec["mode"],
        delta_sim=spec["delta_sim"],
        delta_ant=spec["delta_ant"],
        reg=spec["reg"],
        random_state=opts.get("random_state", 0),
        show_progress=False,
        # Every pair once per epoch. The paper's sets were expanded by 10 neighbours per word
        # and so always filled batches of 50; ours are not, and with the reference schedule
        # (drop_last=True) a kind with < 50 pairs would get no update at all.
        drop_last=False,
    )


def _intrinsic(kv: Any, wordset: str, *, ddof: int, rnsb_runs: int, max_missing: float) -> dict:
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.intrinsic import weat_effect_size
    from nlpbias.metrics.query import as_query
    from nlpbias.metrics.rnsb import rnsb_signed

    vec = as_query(load_wordset(wordset)).vectors(
        kv, oov="drop", max_missing=max_missing, lowercase=True, random_state=0
    )
    weat = weat_effect_size(vec.T1, vec.T2, vec.A1, vec.A2, ddof=ddof)
    rnsb = rnsb_signed(vec.T1, vec.T2, vec.A1, vec.A2, n_runs=rnsb_runs, random_state=0)
    return {"weat": float(weat), "rnsb": float(rnsb.score)}


def _extrinsic(task: str, kv: Any, seed: int, params: Mapping[str, Any]) -> dict[str, float]:
    """Flat dict of the task's group differences for one trained model."""
    if task == "coref":
        from nlpbias.studies.intrinsic_extrinsic.coref import evaluate_coref

        out = evaluate_coref(kv, random_state=seed, **params)
    else:
        from nlpbias.studies.intrinsic_extrinsic.hsd import evaluate_hsd

        out = evaluate_hsd(kv, random_state=seed, **params)
    flat = {str(k): float(v) for k, v in out["gaps"].items()}
    if task == "coref":  # how good the model is, beside how biased
        for group in ("overall", "masculine", "feminine"):
            flat[f"task_f1_{group}"] = float(out["gap"].loc[group, "f1"])
    else:
        flat["task_f1_overall"] = float(out["overall"]["f1"])
    return flat


def evaluate_embedding(
    spec: Mapping[str, Any],
    *,
    corpus_options: Mapping[str, Any],
    seeds: Sequence[int],
    task_options: Mapping[str, Mapping[str, Any]] | None = None,
    ddof: int = 0,
    rnsb_runs: int = 10,
    max_missing: float = 0.5,
) -> dict[str, Any]:
    """One sweep task: build an embedding, then measure its intrinsic and extrinsic bias.

    Parameters
    ----------
    spec : dict
        One entry of :func:`embedding_grid`; an original embedding is scored for each family
        in its ``families``.
    corpus_options : dict
        See :func:`build_embedding`.
    seeds : list of int
        Seeds of the downstream models trained on this embedding (the paper: 10 for the
        original embedding, one for the others).
    task_options : dict, optional
        Keyword arguments per task (``{"coref": {...}, "hsd": {...}}``).
    ddof : int, default 0
        WEAT's standard-deviation convention (0: Katô & Miyao / WEFE).
    rnsb_runs : int, default 10
        Logistic regressions averaged by the signed RNSB (the paper: 10).
    max_missing : float, default 0.5
        Largest share of a word set that may be missing from the vocabulary.

    Returns
    -------
    dict
        ``spec`` (the spec), ``intrinsic`` (list of records: family, wordset, metric, value),
        ``skipped`` (word sets too far out of the vocabulary to measure: family, wordset,
        reason — their column is left out of the correlations),
        ``extrinsic`` (list of records: seed, metric name, value), ``vocab_size`` and
        ``seconds``.
    """
    start = time.perf_counter()
    kv = build_embedding(spec, corpus_options=corpus_options)
    built = time.perf_counter() - start
    if spec["method"] == "original":
        fams = _families(spec["families"])
    else:
        fams = [FAMILIES[spec["family"]]]
    from nlpbias.metrics.query import OutOfVocabularyError

    intrinsic, skipped = [], []
    for fam in fams:
        modset = None if spec["method"] == "original" else spec["modset"]
        for column, wordset in _evaluation_sets(fam, modset).items():
            try:
                vals = _intrinsic(
                    kv, wordset, ddof=ddof, rnsb_runs=rnsb_runs, max_missing=max_missing
                )
            except OutOfVocabularyError as exc:  # recorded, and the column left out
                skipped.append({"family": fam.name, "wordset": column, "reason": str(exc)})
                continue
            for metric, value in vals.items():
                intrinsic.append(
                    {"family": fam.name, "wordset": column, "metric": metric, "value": value}
                )
    task = fams[0].task
    params = dict((task_options or {}).get(task, {}))
    extrinsic = []
    for seed in seeds:
        for name, value in _extrinsic(task, kv, int(seed), params).items():
            extrinsic.append({"seed": int(seed), "metric": name, "value": value})
    return {
        "spec": dict(spec),
        "intrinsic": intrinsic,
        "skipped": skipped,
        "extrinsic": extrinsic,
        "vocab_size": len(kv.key_to_index),
        "build_seconds": built,
        "seconds": time.perf_counter() - start,
    }


#: Modules whose code decides an evaluation's result; their bytes are part of the cache key.
#: Of this module only the part above this comment counts (the tables below it do not change
#: an evaluation, so editing them keeps the cache).
_CODE = (
    "studies/intrinsic_extrinsic/study.py",
    "studies/intrinsic_extrinsic/coref.py",
    "studies/intrinsic_extrinsic/coref_pairs.py",
    "studies/intrinsic_extrinsic/coref_features.py",
    "studies/intrinsic_extrinsic/coref_scoring.py",
    "studies/intrinsic_extrinsic/hsd.py",
    "models/kim.py",
    "models/classifiers.py",
    "models/cnn.py",
    "models/torch_utils.py",
    "core/checks.py",
    "models/cnn_network.py",
    "models/linear.py",
    "models/training.py",
    "models/gensim_training.py",
    "data/training_corpora.py",
    "studies/intrinsic_extrinsic/attract_repel.py",
    "studies/intrinsic_extrinsic/balancing.py",
    "metrics/intrinsic.py",
    "metrics/weat_vectors.py",
    "metrics/rnsb.py",
    "metrics/rnsb_vectors.py",
    "metrics/query.py",
    "studies/intrinsic_extrinsic/synthetic_coref.py",
)


def _code_fingerprint() -> str:
    import hashlib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for rel in _CODE:
        h.update(rel.encode())
        code = (root / rel).read_bytes()
        if rel == "studies/intrinsic_extrinsic/study.py":
            code, marker, _ = code.partition(b"\n#: Modules whose code decides")
            if not marker:
                raise RuntimeError("intrinsic_extrinsic: the _CODE marker comment is missing")
        h.update(code)
    return h.hexdigest()[:16]


@cached
def _evaluate_cached(fingerprint: str, **kwargs: Any) -> dict[str, Any]:
    """:func:`evaluate_embedding`, cached on disk; ``fingerprint`` ties the entry to the code."""
    return evaluate_embedding(**kwargs)


def run_study(
    grid: Sequence[Mapping[str, Any]],
    *,
    corpus_options: Mapping[str, Any],
    seeds_original: Sequence[int] = (0, 1, 2, 3, 4),
    seeds_modified: Sequence[int] = (0,),
    task_options: Mapping[str, Mapping[str, Any]] | None = None,
    executor: str | Any = "serial",
    n_jobs: int | None = None,
    show_progress: bool = True,
    **kwargs: Any,
) -> list[dict[str, Any]]:
    """Evaluate every embedding of ``grid`` through :func:`nlpbias.core.sweep.run_sweep`.

    Original embeddings are built first (Attract-Repel and the balancing baselines reuse them
    from the cache), then the modified ones. ``kwargs`` go to :func:`evaluate_embedding`. Each
    evaluation is cached on disk, keyed by its arguments and a hash of the code that computes
    it (this module, the tasks, the models and the metrics), so re-running the chapter after an
    edit to its prose costs nothing.
    """
    from nlpbias.core.sweep import run_sweep

    common = {
        "corpus_options": dict(corpus_options),
        "task_options": {k: dict(v) for k, v in (task_options or {}).items()},
        **kwargs,
    }
    common["fingerprint"] = _code_fingerprint()
    originals = [s for s in grid if s["method"] == "original"]
    modified = [s for s in grid if s["method"] != "original"]
    tasks = [{"spec": s, "seeds": list(seeds_original), **common} for s in originals]
    out = run_sweep(
        _evaluate_cached,
        tasks,
        executor=executor,
        n_jobs=n_jobs,
        show_progress=show_progress,
        desc="original embeddings",
    )
    tasks = [{"spec": s, "seeds": list(seeds_modified), **common} for s in modified]
    out += run_sweep(
        _evaluate_cached,
        tasks,
        executor=executor,
        n_jobs=n_jobs,
        show_progress=show_progress,
        desc="modified embeddings",
    )
    return out


# --------------------------------------------------------------------------- tables


def scores_frame(results: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """One row per (embedding, family) with intrinsic columns and mean extrinsic columns.

    Columns: the spec's keys, ``family``, ``intrinsic:<wordset>:<metric>`` for every evaluation
    set, ``extrinsic:<metric>`` (mean over seeds) and ``extrinsic_sd:<metric>`` (sample std over
    seeds; NaN for one seed), ``n_seeds``.
    """
    rows = []
    for res in results:
        spec = res["spec"]
        intr = pd.DataFrame(res["intrinsic"])
        ext = pd.DataFrame(res["extrinsic"])
        agg = ext.groupby("metric")["value"].agg(["mean", "std"]) if len(ext) else None
        # a family whose word sets were all skipped still gets its row (extrinsic only)
        fams = spec["families"] if "families" in spec else [spec["family"]]
        blocks = dict(list(intr.groupby("family", sort=False))) if len(intr) else {}
        for fam in fams:
            block = blocks.get(fam, pd.DataFrame(columns=["wordset", "metric", "value"]))
            row = {k: v for k, v in spec.items() if k != "family"}
            row["family"] = fam
            for rec in block.itertuples():
                row[f"intrinsic:{rec.wordset}:{rec.metric}"] = rec.value
            if agg is not None:
                for metric, r in agg.iterrows():
                    row[f"extrinsic:{metric}"] = r["mean"]
                    row[f"extrinsic_sd:{metric}"] = r["std"]
                row["n_seeds"] = int(ext["seed"].nunique())
            rows.append(row)
    return pd.DataFrame(rows)


def _extrinsic_columns(family: Family, frame: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(view, metric) -> extrinsic column of the frame, for the family's task."""
    out = {}
    for view in family.views:
        for metric in _METRICS:
            if family.task == "coref":  # coref.winobias_gaps: type1_f1, ...
                col = f"extrinsic:{view.removeprefix('winobias_')}_{metric}"
            else:  # hsd names the race gap after the dialect groups
                col = f"extrinsic:{_HSD_GAP[family.bias]}_{metric}"
            if col in frame.columns:
                out[(view, metric)] = col
    return out


def correlations(
    scores: pd.DataFrame,
    *,
    n_resamples: int = 9_999,
    random_state: int = 0,
    min_points: int = 5,
) -> pd.DataFrame:
    """Spearman ρ and permutation p between intrinsic and extrinsic metrics (Tables 3-10).

    For each family, algorithm and modification set the points are the original embedding plus
    the embeddings modified with that set; for each evaluation word set of the modification
    set, each intrinsic metric (WEAT, RNSB) is correlated with each extrinsic difference.
    An embedding on which a word set could not be measured (too many words out of its
    vocabulary, e.g. after balancing removed every sentence holding them) is left out of that
    cell — never imputed — and ``n`` says how many points remain; a cell with fewer than
    ``min_points`` points is not reported.

    Returns
    -------
    pandas.DataFrame
        Columns ``family``, ``bias``, ``algorithm``, ``modset``, ``view``, ``metric``,
        ``wordset``, ``intrinsic``, ``n``, ``rho``, ``pvalue``.
    """
    from nlpbias.metrics.stats import spearman_permutation

    rows = []
    for (fam_name, alg), block in scores.groupby(["family", "algorithm"], sort=False):
        fam = FAMILIES[fam_name]
        original = block[block["method"] == "original"]
        for modset in _MODSETS:
            points = pd.concat([original, block[block.get("modset") == modset]])
            if len(points) < 3:
                continue
            for column in _evaluation_sets(fam, modset):
                for intrinsic in ("weat", "rnsb"):
                    col = f"intrinsic:{column}:{intrinsic}"
                    if col not in points:
                        continue
                    for (view, metric), ycol in _extrinsic_columns(fam, points).items():
                        both = points[[col, ycol]].dropna()
                        if len(both) < min_points:
                            logger.info(
                                "%s/%s: %s measured on %d embeddings only; cell left out",
                                fam_name, alg, col, len(both),
                            )  # fmt: skip
                            continue
                        x, y = both[col].to_numpy(float), both[ycol].to_numpy(float)
                        res = spearman_permutation(
                            x, y, n_resamples=n_resamples, random_state=random_state
                        )
                        rows.append(
                            {
                                "family": fam_name,
                                "bias": fam.bias,
                                "algorithm": alg,
                                "modset": modset,
                                "view": view,
                                "metric": metric,
                                "wordset": column,
                                "intrinsic": intrinsic,
                                "n": len(both),
                                "rho": float(res.rho),
                                "pvalue": float(res.p_value),
                            }
                        )
    return pd.DataFrame(rows)


def reported_table() -> pd.DataFrame:
    """The paper's Tables 3-10 in long form (``data/reported/kato2024.yaml``).

    Columns ``table``, ``statistic`` ('rho' or 'p'), ``bias``, ``algorithm``, ``view``,
    ``metric``, ``wordset``, ``intrinsic``, ``value``.

    Examples
    --------
    >>> t = reported_table()
    >>> sel = (t.table == 3) & (t.view == "winobias_type1") & (t.metric == "f1")
    >>> t[sel & (t.wordset == "extracted") & (t.intrinsic == "weat")]["value"].item()
    0.83
    """
    from nlpbias.data.reported import load_reported

    rep = load_reported("kato2024")
    metrics = rep["intrinsic"]
    rows = []
    for tab in rep["tables"]:
        cells = [(w, m) for w in tab["wordsets"] for m in metrics]
        for view, per_metric in tab["rows"].items():
            for metric, values in per_metric.items():
                for (wordset, intrinsic), value in zip(cells, values, strict=True):
                    rows.append(
                        {
                            "table": tab["table"],
                            "statistic": tab["statistic"],
                            "bias": tab["bias"],
                            "algorithm": tab["algorithm"],
                            "view": view,
                            "metric": metric,
                            "wordset": wordset,
                            "intrinsic": intrinsic,
                            "value": float(value),
                        }
                    )
    return pd.DataFrame(rows)


def paper_table(
    corr: pd.DataFrame, *, bias: str, algorithm: str, paper_algorithm: str | None = None
) -> pd.DataFrame:
    """Our ρ (and p) beside the paper's, laid out like the paper's Table 3/4/5/6.

    Rows: (view, metric); columns: (wordset, intrinsic, what) with ``what`` in
    ``rho``, ``paper rho``, ``p``, ``paper p``. Cells the paper does not have are NaN.
    ``paper_algorithm`` picks the paper's table when ours has no counterpart (e.g. the
    pretrained ``"glove"`` of the demo beside the paper's ``"word2vec"``).
    """
    rep = reported_table()
    rep = rep[(rep["bias"] == bias) & (rep["algorithm"] == (paper_algorithm or algorithm))]
    ours = corr[(corr["bias"] == bias) & (corr["algorithm"] == algorithm)]
    keys = ["view", "metric", "wordset", "intrinsic"]
    paper = rep.pivot_table(index=keys, columns="statistic", values="value")
    paper = paper.rename(columns={"rho": "paper rho", "p": "paper p"})
    mine = ours.set_index(keys)[["rho", "pvalue"]].rename(columns={"pvalue": "p"})
    table = mine.join(paper, how="outer")[["rho", "paper rho", "p", "paper p"]]
    wide = table.unstack(["wordset", "intrinsic"])
    wide.columns = wide.columns.reorder_levels([1, 2, 0])
    order = ["extracted"] + sorted({w for w in wide.columns.get_level_values(0)} - {"extracted"})
    cols = [
        (w, i, s)
        for w in order
        for i in ("weat", "rnsb")
        for s in ("rho", "paper rho", "p", "paper p")
        if (w, i, s) in wide.columns
    ]
    return wide[cols]


def skipped_table(results: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """Word sets that could not be measured on an embedding (too many words out of vocabulary).

    Columns ``family``, ``wordset``, ``embeddings`` (how many), ``reason`` (the first message).
    """
    rows = [dict(r, id=res["spec"]["id"]) for res in results for r in res.get("skipped", [])]
    if not rows:
        return pd.DataFrame(columns=["family", "wordset", "embeddings", "reason"])
    df = pd.DataFrame(rows)
    return (
        df.groupby(["family", "wordset"], sort=False)
        .agg(embeddings=("id", "nunique"), reason=("reason", "first"))
        .reset_index()
    )


def wordset_table(families: Sequence[str] = tuple(FAMILIES)) -> pd.DataFrame:
    """The word sets of the study (the paper's Table 1): roles, names and sizes.

    Examples
    --------
    >>> t = wordset_table(["coref"])
    >>> t.loc[t.wordset == "extracted", ["T1", "A1"]].values.tolist()
    [['male_occupations (20)', 'male (2)']]
    """
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import as_query

    rows = []
    for fam in _families(families):
        for column, name in _evaluation_sets(fam, None).items():
            q = as_query(load_wordset(name))
            row = {"family": fam.name, "bias": fam.bias, "wordset": column, "file": name}
            for role, names, sets in (
                ("T", q.target_names, q.targets),
                ("A", q.attribute_names, q.attributes),
            ):
                for i in range(2):
                    row[f"{role}{i + 1}"] = f"{names[i]} ({len(sets[i])})"
            rows.append(row)
    return pd.DataFrame(rows)


def alignment_summary(corr: pd.DataFrame, *, alpha: float = 0.05) -> pd.DataFrame:
    """Does aligning the word sets make WEAT predictive? One row per family and algorithm.

    Over the F1 rows of the correlation table: the median ρ of WEAT with the extracted
    (aligned) word sets, the median ρ of WEAT with the generic WEAT sets, the same for RNSB,
    and the share of cells with ``pvalue < alpha`` for each.

    Examples
    --------
    >>> corr = pd.DataFrame({"family": "coref", "algorithm": "w2v", "metric": "f1",
    ...     "wordset": ["extracted", "weat6"], "intrinsic": "weat", "rho": [0.9, 0.1],
    ...     "pvalue": [0.001, 0.6]})
    >>> alignment_summary(corr)[["weat_extracted_rho", "weat_generic_rho"]].values.tolist()
    [[0.9, 0.1]]
    """
    f1 = corr[corr["metric"] == "f1"]
    rows = []
    for (fam, alg), block in f1.groupby(["family", "algorithm"], sort=False):
        row: dict[str, Any] = {"family": fam, "algorithm": alg}
        for intrinsic in ("weat", "rnsb"):
            sub = block[block["intrinsic"] == intrinsic]
            aligned = sub["wordset"] == "extracted"
            for kind, part in (("extracted", sub[aligned]), ("generic", sub[~aligned])):
                row[f"{intrinsic}_{kind}_rho"] = (
                    float(part["rho"].median()) if len(part) else np.nan
                )
                row[f"{intrinsic}_{kind}_significant"] = (
                    float((part["pvalue"] < alpha).mean()) if len(part) else np.nan
                )
        rows.append(row)
    return pd.DataFrame(rows)


#: Extrinsic F1 difference drawn for each family in the Figure 1 analogue.
_FIGURE1_Y = {"coref": "type1_f1", "hsd_gender": "gender_f1", "hsd_race": "dialect_f1"}


def figure1_panels(scores: pd.DataFrame, families: Sequence[str]) -> list[dict[str, str]]:
    """Panels of the paper's Figure 1: aligned WEAT against the F1 difference, per algorithm.

    Examples
    --------
    >>> s = pd.DataFrame({"family": ["coref"], "algorithm": ["glove"]})
    >>> figure1_panels(s, ["coref"])[0]["y"]
    'extrinsic:type1_f1'
    """
    panels = []
    for fam in families:
        for alg in scores.loc[scores["family"] == fam, "algorithm"].unique():
            panels.append(
                {
                    "family": fam,
                    "algorithm": alg,
                    "modset": "extracted",
                    "x": "intrinsic:extracted:weat",
                    "y": f"extrinsic:{_FIGURE1_Y[fam]}",
                    "title": f"{fam}, {alg}",
                }
            )
    return panels


def paper_tables(corr: pd.DataFrame) -> dict[tuple[str, str], tuple[str, pd.DataFrame]]:
    """:func:`paper_table` for every (bias, algorithm) of ``corr``.

    Returns ``{(bias, algorithm): (paper_algorithm, table)}``; an algorithm the paper did not
    use (the pretrained ``"glove"``) is shown beside the paper's word2vec table.
    """
    out = {}
    for (bias, alg), _ in corr.groupby(["bias", "algorithm"], sort=False):
        paper_alg = alg if alg in _ALGORITHMS else "word2vec"
        out[(bias, alg)] = (
            paper_alg,
            paper_table(corr, bias=bias, algorithm=alg, paper_algorithm=paper_alg),
        )
    return out


def rho_long(tables: Mapping[tuple[str, str], tuple[str, pd.DataFrame]]) -> pd.DataFrame:
    """The cells of :func:`paper_tables` in long form, with ``wordset kind`` (extracted/WEAT)."""
    long = []
    for (bias, alg), (_, table) in tables.items():
        t = table.stack([0, 1]).reset_index()
        t["wordset kind"] = np.where(t["wordset"] == "extracted", "extracted", "WEAT")
        long.append(t.assign(bias=bias, algorithm=alg))
    return pd.concat(long, ignore_index=True)


def alignment_text(summary: pd.DataFrame, *, strong: float = 0.5, margin: float = 0.2) -> str:
    """One Markdown bullet per row of :func:`alignment_summary`, with a verdict.

    The verdict is "yes" when the median ρ of aligned WEAT is above ``strong`` and exceeds the
    generic WEAT sets' by more than ``margin``.

    Examples
    --------
    >>> row = {"family": "coref", "algorithm": "w2v", "weat_extracted_rho": 0.9,
    ...        "weat_generic_rho": 0.1, "weat_extracted_significant": 1.0,
    ...        "weat_generic_significant": 0.0, "rnsb_extracted_rho": 0.6, "rnsb_generic_rho": 0.1}
    >>> "yes: aligned WEAT" in alignment_text(pd.DataFrame([row]))
    True
    """
    lines = []
    for row in summary.itertuples(index=False):
        aligned, generic = row.weat_extracted_rho, row.weat_generic_rho
        verdict = (
            "yes: aligned WEAT tracks the downstream gap and generic WEAT much less"
            if aligned > strong and aligned - generic > margin
            else "no clear advantage for the aligned word sets"
        )
        lines.append(
            f"- **{row.family}, {row.algorithm}**: median ρ {aligned:.2f} with the extracted "
            f"sets ({row.weat_extracted_significant:.0%} of cells p < 0.05) against "
            f"{generic:.2f} with the WEAT sets ({row.weat_generic_significant:.0%}); RNSB "
            f"{row.rnsb_extracted_rho:.2f} vs {row.rnsb_generic_rho:.2f} — {verdict}."
        )
    return "\n".join(lines)
