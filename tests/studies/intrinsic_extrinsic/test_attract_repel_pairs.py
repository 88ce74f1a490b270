"""Tests for nlpbias.studies.intrinsic_extrinsic.attract_repel_pairs: the attract and repel
pairs of a word set."""

from __future__ import annotations

import doctest
import logging

import numpy as np
from gensim.models import KeyedVectors

import nlpbias.studies.intrinsic_extrinsic.attract_repel_pairs as pairs_mod
from nlpbias.metrics.query import Query
from nlpbias.studies.intrinsic_extrinsic.attract_repel_pairs import constraint_pairs


def test_constraint_pairs_by_hand() -> None:
    kv = KeyedVectors(2)
    kv.add_vectors(["doctor", "nurse", "he", "she", "x"], np.eye(5, 2) + 0.1)
    q = Query((["doctor", "x"], ["nurse"]), (["he"], ["she", "missing"]))
    attract, repel = constraint_pairs(kv, q)
    assert attract == [("doctor", "she"), ("x", "she"), ("nurse", "he")]
    assert repel == [("doctor", "he"), ("x", "he"), ("nurse", "she")]
    over = constraint_pairs(kv, q, mode="overbias")
    assert over == (repel, attract)


def test_pairs_in_two_kinds_and_self_pairs_are_removed(caplog) -> None:
    kv = KeyedVectors(2)
    kv.add_vectors(["a", "b", "c", "d"], np.eye(4, 2) + 0.1)
    # 'a' is in both target sets once lower-cased (a Query refuses the same spelling twice)
    # and 'd' is a target and an attribute:
    # repel T1xA1 + T2xA2 = (a,c), (d,c) + (a,d), (b,d);
    # attract T1xA2 + T2xA1 = (a,d), [(d,d) skipped] + (a,c), (b,c); (a,d), (a,c) are repel pairs
    q = Query((["a", "d"], ["A", "b"]), (["c"], ["d"]))
    with caplog.at_level(
        logging.WARNING, logger="nlpbias.studies.intrinsic_extrinsic.attract_repel"
    ):
        attract, repel = constraint_pairs(kv, q)
    assert repel == [("a", "c"), ("d", "c"), ("a", "d"), ("b", "d")]
    assert attract == [("b", "c")]
    assert "2 pair(s)" in caplog.text
    assert "both attract and repel" in caplog.text


def test_docstring_examples() -> None:
    failed, attempted = doctest.testmod(pairs_mod, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
