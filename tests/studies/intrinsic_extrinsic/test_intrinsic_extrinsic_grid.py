"""Tests for nlpbias.studies.intrinsic_extrinsic.grid and .families: the embedding grid and the
merged word sets."""

from __future__ import annotations

import doctest

import pandas as pd
import pytest

from nlpbias.studies.intrinsic_extrinsic import grid as grid_mod
from nlpbias.studies.intrinsic_extrinsic.families import merged_wordset
from nlpbias.studies.intrinsic_extrinsic.grid import embedding_grid

#: The paper's full grid (its Appendix O; the `full` profile's values).
PAPER_GRID = {
    "families": ["coref", "hsd_gender", "hsd_race"],
    "algorithms": ["word2vec", "fasttext"],
    "modsets": ["extracted", "weat"],
    "balance_p": [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
    "attract_repel": {"delta_sim": [0, 1], "delta_ant": [0, 1], "reg": [0.1, 0.05, 0.01]},
    "modes": ["debias", "overbias"],
    "corpora": None,
    "designs": ["expanded"],
    "neighbours": "glove-6b-50d",
}


def test_full_grid_has_the_papers_45_embeddings_per_group() -> None:
    grid = embedding_grid(**PAPER_GRID)
    ids = [g["id"] for g in grid]
    assert len(ids) == len(set(ids))
    originals = [g for g in grid if g["method"] == "original"]
    assert {(g["corpus"], g["algorithm"]) for g in originals} == {
        (c, a) for c in ("gutenberg", "tweets") for a in ("word2vec", "fasttext")
    }
    per_group = pd.DataFrame([g for g in grid if g["method"] != "original"])
    counts = per_group.groupby(["family", "algorithm", "modset"]).size()
    assert len(counts) == 3 * 2 * 2 and (counts == 20 + 24).all()  # + the original = 45


def test_grid_validation() -> None:
    with pytest.raises(ValueError, match="unknown or no families"):
        embedding_grid(**{**PAPER_GRID, "families": ["ner"]})
    with pytest.raises(ValueError, match="unknown grid values"):
        embedding_grid(**{**PAPER_GRID, "algorithms": ["glove"]})
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        embedding_grid(**{**PAPER_GRID, "balance_p": [1.5]})
    with pytest.raises(ValueError, match="keys delta_sim"):
        embedding_grid(**{**PAPER_GRID, "attract_repel": {"delta_sim": [1]}})
    with pytest.raises(ValueError, match="designs"):
        embedding_grid(**{**PAPER_GRID, "designs": []})
    with pytest.raises(ValueError, match="unknown neighbour embedding"):
        embedding_grid(**{**PAPER_GRID, "neighbours": "spacy"})


def test_both_designs_build_the_same_grid_and_only_the_word_sets_differ() -> None:
    grid = embedding_grid(**{**PAPER_GRID, "designs": ["expanded", "unexpanded"]})
    modified = pd.DataFrame([g for g in grid if g["method"] != "original"])
    assert len(modified) == 2 * 3 * 2 * 2 * 44
    counts = modified.groupby(["family", "algorithm", "modset", "design"]).size()
    assert (counts == 44).all() and len(counts) == 24
    keys = ["family", "algorithm", "modset", "method", "mode", "p", "delta_sim", "delta_ant", "reg"]
    by = {d: modified[modified["design"] == d][keys].fillna(-1) for d in ("expanded", "unexpanded")}
    pd.testing.assert_frame_equal(
        by["expanded"].reset_index(drop=True), by["unexpanded"].reset_index(drop=True)
    )
    assert (modified["neighbours"].isna() == (modified["design"] == "unexpanded")).all()


def test_the_neighbour_embedding_must_not_be_one_the_grid_measures() -> None:
    demo = {**PAPER_GRID, "families": ["coref"], "corpora": {"coref": "glove-6b-50d"}}
    with pytest.raises(ValueError, match="it is an embedding this grid measures"):
        embedding_grid(**demo)
    assert embedding_grid(**{**demo, "neighbours": "wefe-word2vec-13k"})
    assert embedding_grid(**{**demo, "designs": ["unexpanded"]})  # no expansion, no conflict


def test_doctests() -> None:
    failed, attempted = doctest.testmod(grid_mod, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


def test_merged_wordset_is_the_role_wise_union() -> None:
    q = merged_wordset(["kato_weat6", "kato_weat7", "kato_weat8"])
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import as_query

    parts = [as_query(load_wordset(f"kato_weat{i}")) for i in (6, 7, 8)]
    for role in ("targets", "attributes"):
        for i in range(2):
            expected = {w for p in parts for w in getattr(p, role)[i]}
            got = getattr(q, role)[i]
            assert set(got) == expected and len(got) == len(expected)
