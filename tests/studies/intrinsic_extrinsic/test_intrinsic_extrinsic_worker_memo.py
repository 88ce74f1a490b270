"""What the sweep's tasks share in a worker's memory: the memo, and that it changes no number."""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors

from nlpbias.metrics.query import Query
from nlpbias.studies.intrinsic_extrinsic import worker_memo
from nlpbias.studies.intrinsic_extrinsic.balancing import balance_corpus, sentence_kinds
from nlpbias.studies.intrinsic_extrinsic.coref_features import EmbeddingLookup, pair_features
from nlpbias.studies.intrinsic_extrinsic.coref_pairs import standin_pairs
from nlpbias.studies.intrinsic_extrinsic.evaluation import evaluate_embedding
from nlpbias.studies.intrinsic_extrinsic.grid import embedding_grid
from nlpbias.studies.intrinsic_extrinsic.study import run_study


@pytest.fixture(autouse=True)
def _empty_memo():
    worker_memo.clear_memo()
    yield
    worker_memo.clear_memo()


# --------------------------------------------------------------------------- the memo
def test_a_value_is_computed_once_per_key_and_kind_limited() -> None:
    calls: list[int] = []

    def make(i: int):
        return lambda: calls.append(i) or [i]

    first = worker_memo.memo(("k", 0), make(0))
    assert worker_memo.memo(("k", 0), make(99)) is first and calls == [0]
    assert worker_memo.memo(("k", [0]), make(7)) == [7]  # keys are hashed by content (joblib)
    for i in range(1, worker_memo.LIMIT + 2):
        worker_memo.memo(("k", i), make(i))
    worker_memo.memo(("other", 0), make(-1))
    kept = [k for k in worker_memo.memo_keys() if k[0] == "k"]
    assert kept == [("k", i) for i in range(2, worker_memo.LIMIT + 2)]  # the oldest went first
    assert ("other", 0) in worker_memo.memo_keys()
    with pytest.raises(TypeError, match="non-empty tuple"):
        worker_memo.memo("k", make(0))


def test_a_value_is_computed_again_when_the_code_digest_changes(monkeypatch) -> None:
    """The memo is keyed like the disk cache: a data file (or source) edit recomputes."""
    value = worker_memo.memo(("files", 1), object)
    assert worker_memo.memo(("files", 1), object) is value
    monkeypatch.setattr(worker_memo, "code_digest", lambda module: "a data file changed")
    assert worker_memo.memo(("files", 1), object) is not value


# --------------------------------------------------------------------------- memoised inputs
def test_balancing_with_precomputed_kinds_is_balancing_without() -> None:
    q = Query((["doctor"], ["nurse"]), (["he"], ["she"]))
    gen = np.random.default_rng(0)
    words = ["he", "she", "doctor", "nurse", "sea", "the"]
    corpus = [list(gen.choice(words, size=4)) for _ in range(300)]
    kinds = sentence_kinds(corpus, q)
    for mode in ("debias", "overbias"):
        for p in (0.0, 0.3):
            plain = balance_corpus(corpus, q, p=p, mode=mode, random_state=1)
            given = balance_corpus(corpus, q, p=p, mode=mode, random_state=1, kinds=kinds)
            assert given.sentences == plain.sentences
            assert (given.kept == plain.kept).all() and (given.kind == plain.kind).all()
    with pytest.raises(ValueError, match="one of"):
        balance_corpus(corpus, q, p=0.5, kinds=kinds[:-1])


class _EveryTime(EmbeddingLookup):
    """The lookup as it was: the embedding asked at every token."""

    def __call__(self, token: str) -> np.ndarray:
        vector, word, hit = self._find(token)
        self.words += word
        self.hits += hit
        return vector


@pytest.mark.parametrize("lowercase", [True, False])
def test_each_token_looked_up_once_gives_the_same_features(lowercase: bool) -> None:
    pairs = standin_pairs()["train"].head(600)
    tokens = sorted({t for toks in pairs["tokens"] for t in toks})
    gen = np.random.default_rng(0)
    kv = KeyedVectors(vector_size=8)
    known = [t.lower() if i % 3 else t for i, t in enumerate(tokens) if i % 5]  # some OOV
    kv.add_vectors(list(dict.fromkeys(known)), gen.normal(size=(len(set(known)), 8)))
    once, every = EmbeddingLookup(kv, lowercase), _EveryTime(kv, lowercase)
    assert np.array_equal(pair_features(pairs, once, 3), pair_features(pairs, every, 3))
    assert (once.hits, once.words) == (every.hits, every.words) and 0 < once.hits < once.words


# --------------------------------------------------------------------------- the study
GRID = {
    "families": ["coref"],
    "algorithms": ["word2vec"],
    "modsets": ["extracted", "weat"],
    "balance_p": [0.0],
    "attract_repel": {"delta_sim": [1], "delta_ant": [0], "reg": [0.05]},
    "modes": ["debias", "overbias"],
    "corpora": {"coref": "wiki_summaries"},
    "designs": ["expanded"],
    "neighbours": "glove-6b-50d",
}
OPTIONS = {
    "corpus_options": {"max_docs": {"wiki_summaries": 400}, "vector_size": 16, "epochs": 1,
                       "min_count": 2},
    "task_options": {"coref": {"source": "standin", "epochs": 2}},
}  # fmt: skip


def _numbers(result: dict) -> tuple:
    return result["spec"]["id"], result["intrinsic"], result["skipped"], result["extrinsic"]


def test_the_memo_path_gives_exactly_the_numbers_computed_afresh(tmp_path, monkeypatch) -> None:
    """Every task computed from an empty store and an empty cache (each one loads its corpus,
    its original embedding from the disk cache and its downstream data itself) against the
    study's run, where later tasks reuse what earlier ones left in the memo."""
    grid = embedding_grid(**GRID)
    assert {s["method"] for s in grid} == {"original", "balance", "attract_repel"}
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "fresh"))
    fresh = []
    for spec in grid:
        worker_memo.clear_memo()
        seeds = [0, 1] if spec["method"] == "original" else [0]
        fresh.append(evaluate_embedding(spec, seeds=seeds, **OPTIONS))
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "memo"))
    worker_memo.clear_memo()
    ran = run_study(grid, seeds_original=[0, 1], seeds_modified=[0], executor="serial",
                    n_jobs=None, show_progress=False, **OPTIONS)  # fmt: skip
    assert [_numbers(r) for r in ran] == [_numbers(r) for r in fresh]
    assert worker_memo.memo_keys() == []  # run_study empties the memo when it ends


def _snapshot(value):
    if isinstance(value, KeyedVectors):
        return value.vectors.copy(), list(value.index_to_key)
    return copy.deepcopy(value)


def _same(a, b) -> bool:
    if isinstance(a, tuple) and isinstance(a[0], np.ndarray):  # a KeyedVectors snapshot
        return np.array_equal(a[0], b[0]) and a[1] == b[1]
    if isinstance(a, tuple):
        return all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


def test_the_tasks_leave_the_remembered_values_as_they_found_them(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path))
    grid = embedding_grid(**GRID)
    for spec in grid:  # fill the memo
        evaluate_embedding(spec, seeds=[0], **OPTIONS)
    kinds = {k[0] for k in worker_memo.memo_keys()}
    assert kinds == {"corpus", "original_embedding", "sentence_kinds", "coref_data"}
    before = {h: _snapshot(v) for h, (_, v) in worker_memo._MEMO.items()}
    for spec in grid:
        evaluate_embedding(spec, seeds=[1], **OPTIONS)
    for hashed, (key, value) in worker_memo._MEMO.items():
        assert _same(_snapshot(value), before[hashed]), key


def test_docstring_examples() -> None:
    import doctest

    failed, attempted = doctest.testmod(worker_memo, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
