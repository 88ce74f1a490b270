"""The embeddings of the study: the grid of specifications, and how each one is built.

:func:`embedding_grid` lists, for each corpus and algorithm, the original embedding plus versions
whose bias was modified with dataset balancing
(:func:`nlpbias.studies.intrinsic_extrinsic.balancing.balance_corpus`, retrained) and
Attract-Repel (:func:`nlpbias.studies.intrinsic_extrinsic.attract_repel.attract_repel`,
post-processed), each driven by one modification word set
(:func:`~nlpbias.studies.intrinsic_extrinsic.families.modification_query`) in one of two
*designs* (:data:`DESIGNS`): ``"expanded"``, the paper's, modifies with the set expanded by the
nearest neighbours of its words in a separate embedding
(:func:`~nlpbias.studies.intrinsic_extrinsic.expanded_sets.expanded_query`) and measures with the
original set; ``"unexpanded"`` modifies with the very words it measures. :func:`spec_query` is
the word set a specification modifies with.
:func:`build_embedding` trains (or loads from the cache) the embedding one specification
describes, on the corpus of :func:`corpus_for`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from nlpbias.core.cache import cached
from nlpbias.core.checks import check_number
from nlpbias.studies.intrinsic_extrinsic.families import (
    ALGORITHMS,
    FAMILIES,
    MODSETS,
    PRETRAINED,
    check_families,
    modification_query,
)
from nlpbias.studies.intrinsic_extrinsic.worker_memo import memo

__all__ = ["DESIGNS", "build_embedding", "corpus_for", "embedding_grid", "spec_query"]

#: How a modification word set is used: expanded by neighbours (the paper's design), or as is.
DESIGNS = ("expanded", "unexpanded")


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


def _spec_id(spec: Mapping[str, Any]) -> str:
    base = f"{spec['corpus']}/{spec['algorithm']}"
    if spec["method"] == "original":
        return f"{base}/original"
    sets = f"{base}/{spec['family']}:{spec['modset']}:{spec['design']}"
    if spec["method"] == "balance":
        return f"{sets}/balance-{spec['mode']}-p{spec['p']}"
    return f"{sets}/ar-{spec['mode']}-s{spec['delta_sim']}-a{spec['delta_ant']}-l{spec['reg']}"


def embedding_grid(
    *,
    families: Sequence[str],
    algorithms: Sequence[str],
    modsets: Sequence[str],
    balance_p: Sequence[float],
    attract_repel: Mapping[str, Sequence[float]],
    modes: Sequence[str],
    corpora: Mapping[str, str] | None,
    designs: Sequence[str],
    neighbours: str,
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

    Every modified embedding is built once per design of ``designs`` (:data:`DESIGNS`);
    ``neighbours`` names the embedding whose neighbours expanded the sets
    (:data:`~nlpbias.studies.intrinsic_extrinsic.expanded_sets.NEIGHBOURS`). It must not be an
    embedding the grid measures: the paper expands with "a word embedding … not an embedding of
    which we measure bias".

    Returns
    -------
    list of dict
        Keys ``id``, ``corpus``, ``algorithm``, ``method`` ('original', 'balance',
        'attract_repel'), and for modified embeddings ``family``, ``modset``, ``design``
        (with ``neighbours`` when expanded), ``mode`` and the method's parameters.

    Examples
    --------
    >>> grid = embedding_grid(families=["coref"], algorithms=["word2vec"], modsets=["extracted"],
    ...                       balance_p=[0.0], attract_repel={"delta_sim": [1], "delta_ant": [0],
    ...                       "reg": [0.05]}, modes=["debias", "overbias"], corpora=None,
    ...                       designs=["expanded", "unexpanded"], neighbours="glove-6b-50d")
    >>> [g["id"] for g in grid][:2]  # doctest: +NORMALIZE_WHITESPACE
    ['gutenberg/word2vec/original',
     'gutenberg/word2vec/coref:extracted:expanded/balance-debias-p0.0']
    >>> len(grid)
    9
    """
    fams = check_families(families)
    corpus_of = {f.name: (corpora or {}).get(f.name, f.corpus) for f in fams}
    bad = [a for a in algorithms if a not in ALGORITHMS] + [m for m in modsets if m not in MODSETS]
    bad += [m for m in modes if m not in ("debias", "overbias")]
    bad += [d for d in designs if d not in DESIGNS]
    if bad or not designs:
        raise ValueError(
            f"unknown grid values {bad or 'designs=[]'}; algorithms {ALGORITHMS}, modsets "
            f"{MODSETS}, modes ('debias', 'overbias'), designs {DESIGNS} (at least one)"
        )
    from nlpbias.studies.intrinsic_extrinsic.expanded_sets import NEIGHBOURS

    if "expanded" in designs:
        if neighbours not in NEIGHBOURS:
            raise ValueError(
                f"unknown neighbour embedding {neighbours!r}; use one of {sorted(NEIGHBOURS)}"
            )
        if neighbours in corpus_of.values():
            raise ValueError(
                f"the sets cannot be expanded with {neighbours!r}: it is an embedding this grid "
                "measures (corpora); use another neighbour embedding, e.g. "
                f"{sorted(set(NEIGHBOURS) - {neighbours})}"
            )
    for p in balance_p:
        check_number(p, "each of balance_p", low=0.0, high=1.0)
    ar = dict(attract_repel)
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
    for fam, modset, design in itertools.product(fams, modsets, designs):
        for alg in algs(corpus_of[fam.name]):
            common = {
                "corpus": corpus_of[fam.name],
                "algorithm": alg,
                "family": fam.name,
                "modset": modset,
                "design": design,
                **({"neighbours": neighbours} if design == "expanded" else {}),
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


def spec_query(spec: Mapping[str, Any]) -> Any:
    """The word set a modified embedding's spec modifies with: the family's modification set,
    expanded by its data file when ``spec["design"]`` is ``"expanded"``.

    Examples
    --------
    >>> spec = {"family": "coref", "modset": "extracted", "design": "expanded",
    ...         "neighbours": "glove-6b-50d"}
    >>> as_is = spec_query({**spec, "design": "unexpanded"})
    >>> "his" in spec_query(spec).attributes[0], "his" in as_is.attributes[0]
    (True, False)
    """
    query = modification_query(FAMILIES[spec["family"]], spec["modset"])
    if spec["design"] == "unexpanded":
        return query
    from nlpbias.studies.intrinsic_extrinsic.expanded_sets import expanded_query

    return expanded_query(query, neighbours=spec["neighbours"])


def build_embedding(spec: Mapping[str, Any], *, corpus_options: Mapping[str, Any]) -> Any:
    """Train (or load from the cache) the embedding a spec describes.

    ``corpus_options`` holds ``max_docs`` (per corpus: ``{"gutenberg": 20000, "tweets": None}``)
    and the training parameters (``vector_size``, ``window``, ``min_count``, ``epochs``,
    ``random_state``), shared by every embedding of the study so that only the modification
    differs. Balancing retrains on the balanced corpus; Attract-Repel post-processes the
    original embedding of the same corpus and algorithm.

    What several specs share is computed once per process
    (:mod:`nlpbias.studies.intrinsic_extrinsic.worker_memo`): the corpus, the original embedding
    (which Attract-Repel reads without changing it) and the sentence kinds of a balancing word
    set; the embeddings are the same as when each spec computed them.
    """
    opts = dict(corpus_options)
    if spec["corpus"] in PRETRAINED:
        if spec["method"] == "balance":
            raise ValueError(
                f"balancing needs a training corpus, but {spec['corpus']!r} is a pretrained "
                "embedding; use a corpus such as 'gutenberg' or drop balance_p"
            )
        from nlpbias.models.embeddings import load_glove_50d, load_wefe_word2vec

        load = {"glove-6b-50d": load_glove_50d, "wefe-word2vec-13k": load_wefe_word2vec}
        kv = load[spec["corpus"]]()
        return _attract_repel(kv, spec, opts) if spec["method"] == "attract_repel" else kv
    max_docs = opts.pop("max_docs", {}).get(spec["corpus"])
    if spec["method"] != "balance":
        kv = _original_embedding(spec["corpus"], max_docs, spec["algorithm"], opts)
        return _attract_repel(kv, spec, opts) if spec["method"] == "attract_repel" else kv
    from nlpbias.studies.intrinsic_extrinsic.balancing import balance_corpus, sentence_kinds

    sentences = _shared_corpus(spec["corpus"], max_docs)
    query = spec_query(spec)
    words = (tuple(map(tuple, query.targets)), tuple(map(tuple, query.attributes)))
    kinds = memo(
        ("sentence_kinds", spec["corpus"], max_docs, words),
        lambda: sentence_kinds(sentences, query),
    )
    balanced = balance_corpus(
        sentences,
        query,
        p=spec["p"],
        mode=spec["mode"],
        random_state=opts.get("random_state", 0),
        kinds=kinds,
    )
    return _train(balanced.sentences, spec["algorithm"], opts)


def _train(sentences: list[list[str]], algorithm: str, opts: Mapping[str, Any]) -> Any:
    from nlpbias.models.training import train_embedding

    return train_embedding(sentences, algorithm=algorithm, show_progress=False, workers=1, **opts)


def _shared_corpus(corpus: str, max_docs: int | None) -> list[list[str]]:
    """:func:`corpus_for`, kept in memory for the other tasks of this process."""
    return memo(("corpus", corpus, max_docs), lambda: corpus_for(corpus, max_docs=max_docs))


def _original_embedding(
    corpus: str, max_docs: int | None, algorithm: str, opts: Mapping[str, Any]
) -> Any:
    """The original embedding of a corpus and algorithm (trained or loaded from the cache),
    kept in memory for the other tasks of this process."""
    key = ("original_embedding", corpus, max_docs, algorithm, tuple(sorted(opts.items())))
    return memo(key, lambda: _train(_shared_corpus(corpus, max_docs), algorithm, opts))


def _added_in_vocabulary(query: Any, spec: Mapping[str, Any], kv: Any) -> Any:
    """The expanded set with the added neighbours ``kv`` lacks left out.

    The neighbours come from another embedding, so some are missing from any given one (a
    trained corpus's vocabulary is small); Attract-Repel cannot move them, and dropping them is
    expected, not worth the warning it gives for a missing word of the original set (which it
    still gives).
    """
    from nlpbias.metrics.query import Query
    from nlpbias.studies.intrinsic_extrinsic.expanded_sets import query_sets

    own = query_sets(modification_query(FAMILIES[spec["family"]], spec["modset"]))
    sets = {
        name: [w for i, w in enumerate(words) if i < len(own[name]) or w in kv.key_to_index]
        for name, words in query_sets(query).items()
    }
    names = list(sets)
    return Query(
        targets={n: sets[n] for n in names[:2]},
        attributes={n: sets[n] for n in names[2:]},
        name=query.name,
    )


def _attract_repel(kv: Any, spec: Mapping[str, Any], opts: Mapping[str, Any]) -> Any:
    from nlpbias.studies.intrinsic_extrinsic.attract_repel import attract_repel

    query = spec_query(spec)
    if spec["design"] == "expanded":
        query = _added_in_vocabulary(query, spec, kv)
    return attract_repel(
        kv,
        query,
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
        warn_oov=False,  # the chapter lists them (correlation.dropped_text)
    )
