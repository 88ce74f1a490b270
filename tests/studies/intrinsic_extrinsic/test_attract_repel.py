"""Tests for nlpbias.studies.intrinsic_extrinsic.attract_repel: Attract-Repel as a bias modifier
(Katô & Miyao, Sec. 5)."""

from __future__ import annotations

import copy
import doctest
import logging

import numpy as np
import pytest
import torch
from gensim.models import KeyedVectors

import nlpbias.studies.intrinsic_extrinsic.attract_repel as ar_mod
from nlpbias.data.synthetic_embeddings import make_planted_embedding
from nlpbias.data.wordsets import load_wordset
from nlpbias.metrics.query import Query
from nlpbias.metrics.weat import weat, weat_effect_size
from nlpbias.studies.intrinsic_extrinsic.attract_repel import attract_repel, constraint_pairs

WS = {
    "targets": {
        "male_jobs": ["doctor", "boss", "pilot"],
        "female_jobs": ["nurse", "maid", "typist"],
    },
    "attributes": {"male": ["he", "man"], "female": ["she", "woman"]},
}
Q = Query(targets=WS["targets"], attributes=WS["attributes"], name="toy")


def cos(kv: KeyedVectors, a: str, b: str) -> float:
    u, v = kv[a].astype(float), kv[b].astype(float)
    return float(u @ v / np.linalg.norm(u) / np.linalg.norm(v))


def effect(kv: KeyedVectors, q: Query = Q) -> float:
    return weat_effect_size(*q.vectors(kv, max_missing=0.2, random_state=None).arrays, ddof=1)


@pytest.fixture(scope="module")
def planted() -> KeyedVectors:
    """Toy embedding with a moderate planted bias (T1 near A1) and 30 filler words."""
    return make_planted_embedding(
        wordsets=[WS], effect=0.3, dim=20, noise=1.5, extra_words=30, random_state=0
    )


def run(kv: KeyedVectors, **kw) -> KeyedVectors:
    kw = {"batch_size": 4, "epochs": 10, "show_progress": False, **kw}
    return attract_repel(kv, Q, **kw)


# --------------------------------------------------------------------------- pairs


def test_multi_word_term_is_the_mean_of_its_words() -> None:
    ws = load_wordset("winobias_occupations")
    keys = ["construction", "worker", "nurse", "he", "she", "sea"]
    kv = KeyedVectors(8)
    kv.add_vectors(keys, np.random.default_rng(1).normal(size=(len(keys), 8)))
    attract, repel = constraint_pairs(kv, ws)
    assert attract == [("construction worker", "she"), ("nurse", "he")]
    assert repel == [("construction worker", "he"), ("nurse", "she")]
    out = attract_repel(kv, ws, batch_size=2, show_progress=False)
    assert set(out.ar_info["trained"]) == {"construction", "worker", "nurse", "he", "she"}
    assert "CEO" in out.ar_info["oov"] and "construction worker" not in out.ar_info["oov"]
    assert np.array_equal(out["sea"], kv["sea"])


# --------------------------------------------------------------------------- objective


def test_first_loss_by_hand() -> None:
    """Orthogonal words: every similarity is 0, so the hinge terms are the margins.

    a, b, c, d = e1, e2, e3, e4 scaled to norms 2, 1, 3, 1. Debias pairs: attract (a, b),
    (c, d); repel (a, d), (c, b). Attract batch: 2 pairs x 2 hinges x delta_sim; repel batch:
    2 x 2 x delta_ant. Regularisation 0.5 * reg * sum (1 - norm)^2 = 0.5 * reg * (1 + 4) per
    batch, times the batch size 2. With a tiny learning rate the second batch sees the same
    vectors, so the mean loss of the epoch is (4 ds + 5 reg + 4 da + 5 reg) / 2.
    """
    kv = KeyedVectors(5)
    kv.add_vectors(list("abcde"), np.diag([2.0, 1.0, 3.0, 1.0, 1.0]))
    q = Query((["a"], ["c"]), (["d"], ["b"]))
    for ds, da, reg in [(1.0, 0.5, 0.1), (0.0, 1.0, 0.05), (0.3, 0.0, 0.0)]:
        out = attract_repel(
            kv,
            q,
            batch_size=2,
            epochs=1,
            learning_rate=1e-12,
            delta_sim=ds,
            delta_ant=da,
            reg=reg,
            show_progress=False,
        )
        assert out.ar_info["loss"][0] == pytest.approx((4 * ds + 4 * da + 10 * reg) / 2)


def test_nearest_negative_by_hand() -> None:
    # three pairs in 2-D; rows interleaved (l0, r0, l1, r1, l2, r2)
    angles = np.deg2rad([0, 90, 10, 170, 100, 200])
    X = torch.tensor(np.c_[np.cos(angles), np.sin(angles)])
    # attract: most similar row outside own pair
    assert ar_mod._nearest(X, attract=True).tolist() == [2, 4, 0, 5, 1, 3]
    # repel: least similar row outside own pair
    assert ar_mod._nearest(X, attract=False).tolist() == [3, 5, 5, 0, 0, 2]


def test_mixed_negatives_come_from_other_pairs() -> None:
    batch = torch.tensor([[0, 1], [2, 3], [4, 5]])
    neg = torch.full((3, 2), -1)
    gen = torch.Generator().manual_seed(0)
    mixed = torch.cat([ar_mod._mix(batch, neg, gen) for _ in range(200)]).reshape(200, 3, 2)
    replaced = mixed >= 0
    assert 0.4 < replaced.float().mean() < 0.6  # probability 1/2
    for i in range(3):  # never a word of the pair itself
        own = set(batch[i].tolist())
        assert not own & set(mixed[:, i][replaced[:, i]].tolist())


def _loss_over_every_term(model, batch, attract, gen):
    """The objective as the references write it: every term's vector, then the batch's."""
    hp, b = model.hp, batch.shape[0]
    V = torch.nn.functional.normalize(model.mean @ model.P, dim=1)
    ids = batch.reshape(-1)
    with torch.no_grad():
        neg = ar_mod._mix(batch, ids[ar_mod._nearest(V[ids], attract)].reshape(b, 2), gen)
    left, right = V[batch[:, 0]], V[batch[:, 1]]
    sim = (left * right).sum(1)
    sim_l, sim_r = (left * V[neg[:, 0]]).sum(1), (right * V[neg[:, 1]]).sum(1)
    if attract:
        cost = (hp["delta_sim"] + sim_l - sim).relu() + (hp["delta_sim"] + sim_r - sim).relu()
    else:
        cost = (hp["delta_ant"] - sim_l + sim).relu() + (hp["delta_ant"] - sim_r + sim).relu()
    o = model.orig[batch]
    reg = hp["reg"] * 0.5 * (((left - o[:, 0]) ** 2).sum() + ((right - o[:, 1]) ** 2).sum())
    return cost.sum() + b * reg


@pytest.mark.parametrize("attract", [True, False])
def test_the_batch_terms_alone_give_the_loss_and_gradient_of_every_term(attract) -> None:
    """The loss computes only the batch's term vectors: bit for bit the loss every term gives,
    multi-word terms (2 and 3 words) and a term twice in the batch included. The gradient is the
    same to float64 rounding: bit for bit on the Xeon of 2026-11-27, up to 6e-17 in a few entries
    on an AMD EPYC, whose BLAS sums the backward product in another order. (Pairing each left
    term with the wrong local id fails the loss check.)"""
    rng = np.random.default_rng(0)
    n_rows, dim = 60, 16
    terms = [(i,) for i in range(50)] + [(50, 51), (52, 53, 54), (55, 56), (57, 58, 59)]
    mean = torch.zeros((len(terms), n_rows), dtype=torch.float64)
    for j, t in enumerate(terms):
        mean[j, list(t)] = 1.0 / len(t)
    rows = rng.normal(size=(n_rows, dim))
    hp = {"delta_sim": 1.0, "delta_ant": 0.5, "reg": 0.05}
    batch = torch.tensor([[0, 51], [3, 52], [0, 7], [53, 20], [9, 50], [11, 12]])
    grads, losses = [], []
    for loss in (ar_mod._Model.loss, _loss_over_every_term):
        model = ar_mod._Model(rows, mean, torch.device("cpu"), **hp)
        value = loss(model, batch, attract, torch.Generator().manual_seed(3))
        value.backward()
        losses.append(value.detach())
        grads.append(model.P.grad.clone())
    assert torch.equal(losses[0], losses[1])
    torch.testing.assert_close(grads[0], grads[1], rtol=0, atol=1e-15)
    assert grads[0].abs().sum() > 0


# --------------------------------------------------------------------------- behaviour


def test_attract_pairs_closer_repel_pairs_farther(planted) -> None:
    out = run(planted)
    attract, repel = constraint_pairs(planted, Q)
    d_att = [cos(out, a, b) - cos(planted, a, b) for a, b in attract]
    d_rep = [cos(out, a, b) - cos(planted, a, b) for a, b in repel]
    assert min(d_att) > 0 and max(d_rep) < 0


def test_debias_lowers_and_overbias_raises_weat(planted) -> None:
    before = effect(planted)
    assert 0.5 < before < 1.8  # room in both directions
    debiased = effect(run(planted, mode="debias"))
    overbiased = effect(run(planted, mode="overbias"))
    assert debiased < before - 0.5 and overbiased > before + 0.1
    # stronger settings (Katô & Miyao's grid) cross zero: anti-stereotypical association
    assert effect(run(planted, delta_ant=1.0, reg=0.01, epochs=20)) < 0
    # weat() on the output agrees
    assert weat(
        Q, run(planted), n_bootstrap=0, random_state=0, ddof=1, n_resamples=10_000, max_missing=0.2
    ).effect_size == pytest.approx(debiased)


def test_other_words_are_copied_and_input_untouched(planted) -> None:
    planted = copy.deepcopy(planted)  # the fixture is shared
    before = planted.vectors.copy()
    planted.set_vecattr("he", "count", 7)
    out = run(planted)
    assert np.array_equal(planted.vectors, before)  # input unchanged
    assert not hasattr(planted, "ar_info")
    assert out.index_to_key == planted.index_to_key and out.vectors.dtype == before.dtype
    assert out is not planted and out.vectors is not planted.vectors
    # the keys are set, not added one by one: a copy of the input's, that the output owns
    assert out.key_to_index == planted.key_to_index
    assert out.key_to_index is not planted.key_to_index
    assert out.index_to_key is not planted.index_to_key
    assert out.most_similar("he", topn=1)  # a working KeyedVectors
    trained = set(out.ar_info["trained"])
    assert trained == set(Q.targets[0] + Q.targets[1] + Q.attributes[0] + Q.attributes[1])
    others = [i for i, k in enumerate(planted.index_to_key) if k not in trained]
    assert len(others) == 30 and np.array_equal(out.vectors[others], before[others])
    rows = [planted.key_to_index[k] for k in trained]
    assert not np.allclose(out.vectors[rows], before[rows])
    # changed rows keep their norm (only directions change)
    np.testing.assert_allclose(
        np.linalg.norm(out.vectors[rows], axis=1), np.linalg.norm(before[rows], axis=1), rtol=1e-5
    )
    assert out.get_vecattr("he", "count") == 7


def test_deterministic_and_seeded(planted) -> None:
    rng_state = torch.random.get_rng_state()
    np_state = np.random.get_state()[1].copy()  # noqa: NPY002 -- the global state is the point
    a, b = run(planted, random_state=3), run(planted, random_state=3)
    c = run(planted, random_state=4)
    assert np.array_equal(a.vectors, b.vectors) and not np.array_equal(a.vectors, c.vectors)
    assert torch.equal(torch.random.get_rng_state(), rng_state)  # global state untouched
    assert np.array_equal(np.random.get_state()[1], np_state)  # noqa: NPY002
    assert a.ar_info["random_state"] == 3


def test_ar_info(planted) -> None:
    out = run(planted, epochs=3, delta_sim=0.0, reg=0.1)
    info = out.ar_info
    assert info["n_attract"] == 3 * 2 + 3 * 2 and info["n_repel"] == 12
    assert info["batches_per_epoch"] == {"attract": 3, "repel": 3}
    assert len(info["loss"]) == 3 and all(np.isfinite(info["loss"]))
    assert info["delta_sim"] == 0.0 and info["reg"] == 0.1 and info["mode"] == "debias"
    assert info["oov"] == [] and info["seconds"] > 0


def test_drop_last(planted, caplog) -> None:
    # 12 pairs per kind: batch_size 5 -> 2 full batches with drop_last, 3 without
    assert run(planted, batch_size=5).ar_info["batches_per_epoch"]["attract"] == 2
    out = run(planted, batch_size=5, drop_last=False)
    assert out.ar_info["batches_per_epoch"] == {"attract": 3, "repel": 3}
    assert ar_mod._batches(12, 5, False) == [4, 4, 4]
    assert ar_mod._batches(3, 2, False) == [3]  # never a batch of one pair
    assert ar_mod._batches(12, 5, True) == [5, 5] and ar_mod._batches(1, 2, False) == []
    with pytest.raises(ValueError, match="no usable pair"):
        run(planted, batch_size=13)
    assert run(planted, batch_size=13, drop_last=False).ar_info["n_attract"] == 12


def test_oov_terms_dropped_with_warning(planted, caplog) -> None:
    q = Query(
        (list(Q.targets[0]) + ["astronaut"], Q.targets[1]), (Q.attributes[0], ["she", "girl"])
    )
    with caplog.at_level(
        logging.WARNING, logger="nlpbias.studies.intrinsic_extrinsic.attract_repel"
    ):
        out = attract_repel(planted, q, batch_size=4, show_progress=False)
    assert "astronaut, girl" in caplog.text
    assert out.ar_info["oov"] == ["astronaut", "girl"]
    # attract T1 x A2 + T2 x A1 = 3 x 1 + 3 x 2, repel T1 x A1 + T2 x A2 = 3 x 2 + 3 x 1
    assert out.ar_info["n_attract"] == 9 and out.ar_info["n_repel"] == 9


def test_a_caller_that_reports_the_oov_terms_gets_them_at_info(planted, caplog) -> None:
    """The sweep lists them in the chapter (dropped_text): no warning on a notebook's stderr."""
    q = Query((list(Q.targets[0]) + ["cosmonaut"], Q.targets[1]), Q.attributes)
    planted = copy.deepcopy(planted)  # a new embedding: the warning is once per embedding
    name = "nlpbias.studies.intrinsic_extrinsic.attract_repel"
    with caplog.at_level(logging.INFO, logger=name):
        out = attract_repel(planted, q, batch_size=4, show_progress=False, warn_oov=False)
    assert out.ar_info["oov"] == ["cosmonaut"]
    [record] = [r for r in caplog.records if "cosmonaut" in r.getMessage()]
    assert record.levelno == logging.INFO
    with pytest.raises(TypeError, match="warn_oov"):
        attract_repel(planted, q, show_progress=False, warn_oov="no")


def test_oov_warning_once_per_embedding_and_wrapped(planted, caplog) -> None:
    # a sweep fits Attract-Repel many times on one embedding: the dropped terms are said once,
    # on lines that fit a notebook's output cell
    many = [f"absentterm{i:02d}" for i in range(30)]
    q = Query((list(Q.targets[0]) + many, Q.targets[1]), Q.attributes)
    logger = "nlpbias.studies.intrinsic_extrinsic.attract_repel"
    with caplog.at_level(logging.WARNING, logger=logger):
        first = attract_repel(planted, q, batch_size=4, epochs=1, show_progress=False)
        attract_repel(planted, q, batch_size=4, epochs=1, show_progress=False)
    assert len(caplog.records) == 1 and first.ar_info["oov"] == many
    lines = caplog.records[0].getMessage().splitlines()
    assert len(lines) > 2 and max(map(len, lines)) <= 72
    assert " ".join(line.strip() for line in lines).endswith("dropped: " + ", ".join(many))
    other = KeyedVectors(planted.vector_size)  # another embedding: said again
    other.add_vectors(planted.index_to_key, planted.vectors)
    with caplog.at_level(logging.WARNING, logger=logger):
        attract_repel(other, q, batch_size=4, epochs=1, show_progress=False)
    assert len(caplog.records) == 2


def test_lowercase() -> None:
    kv = make_planted_embedding(wordsets=[WS], effect=0.3, extra_words=5, random_state=1)
    q_upper = Query((["Doctor", "boss"], ["nurse", "maid"]), (["he"], ["she"]))
    plain = attract_repel(kv, q_upper, batch_size=2, lowercase=False, show_progress=False)
    assert plain.ar_info["oov"] == ["Doctor"]
    assert constraint_pairs(kv, q_upper, lowercase=False)[0] == [("boss", "she")] + [
        ("nurse", "he"),
        ("maid", "he"),
    ]
    lower = attract_repel(kv, q_upper, batch_size=2, show_progress=False)  # default True
    assert lower.ar_info["oov"] == [] and "doctor" in lower.ar_info["trained"]


@pytest.mark.parametrize("name", ["winobias_occupations", "hsd_gender", "hsd_race"])
def test_real_word_sets(name: str) -> None:
    ws = load_wordset(name)
    kv = make_planted_embedding(wordsets=[ws], effect=0.3, dim=50, extra_words=20, random_state=0)
    t1, t2 = (len(v) for v in ws.targets.values())
    a1, a2 = (len(v) for v in ws.attributes.values())
    # the planted embedding's keys are spelled as in the word set ('CEO'): no lower-casing
    out = attract_repel(kv, ws, lowercase=False, show_progress=False)
    assert out.ar_info["oov"] == []
    assert out.ar_info["n_attract"] == t1 * a2 + t2 * a1
    assert out.ar_info["n_repel"] == t1 * a1 + t2 * a2
    q = Query.from_wordset(ws)
    assert effect(out, q) < effect(kv, q)
    over = attract_repel(kv, ws, mode="overbias", lowercase=False, show_progress=False)
    assert effect(over, q) > effect(kv, q)


def test_a_13k_by_300_vocabulary_trains_only_the_word_set_rows() -> None:
    """What keeps a paper-sized embedding cheap (the time itself is not a test's business):
    only the rows of the word set's words are trained; the other 13,000 are copied bit for bit."""
    ws = load_wordset("hsd_gender")  # 128 attract + 128 repel pairs
    kv = make_planted_embedding(
        wordsets=[ws], effect=0.5, dim=300, extra_words=13_000, random_state=0
    )
    out = attract_repel(kv, ws, show_progress=False)
    assert out.ar_info["n_attract"] + out.ar_info["n_repel"] == 256
    words = {w for side in (*ws.targets.values(), *ws.attributes.values()) for w in side}
    assert set(out.ar_info["trained"]) == {w.lower() for w in words} & set(kv.key_to_index)
    others = [i for i, k in enumerate(kv.index_to_key) if k not in set(out.ar_info["trained"])]
    assert len(others) >= 13_000
    assert np.array_equal(out.vectors[others], kv.vectors[others])
    changed = [kv.key_to_index[k] for k in out.ar_info["trained"]]
    assert not np.isclose(out.vectors[changed], kv.vectors[changed]).all(axis=1).any()


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "kwargs, exc, msg",
    [
        ({"mode": "unbias"}, ValueError, "mode must be"),
        ({"delta_sim": -1.0}, ValueError, "delta_sim must be"),
        ({"delta_ant": float("nan")}, ValueError, "delta_ant must be"),
        ({"reg": "0.1"}, TypeError, "reg must be a number"),
        ({"learning_rate": 0.0}, ValueError, "learning_rate must be a finite number > 0"),
        ({"batch_size": 1}, ValueError, "batch_size must be an integer >= 2"),
        ({"epochs": 0}, ValueError, "epochs must be an integer >= 1"),
        ({"epochs": 2.0}, ValueError, "epochs must be an integer"),
        ({"random_state": -3}, ValueError, "random_state"),
        ({"show_progress": 1}, TypeError, "show_progress"),
        ({"lowercase": None}, TypeError, "lowercase"),
        ({"drop_last": "no"}, TypeError, "drop_last"),
        ({"device": "gpu0"}, ValueError, "device must be 'auto'"),
    ],
)
def test_argument_errors(planted, one_line, kwargs: dict, exc: type, msg: str) -> None:
    with pytest.raises(exc) as err:
        attract_repel(planted, Q, show_progress=False, **kwargs)
    assert msg in one_line(err)


def test_input_errors(planted, one_line) -> None:
    with pytest.raises(TypeError) as err:
        attract_repel({"he": [1.0, 0.0]}, Q)
    assert "gensim KeyedVectors" in one_line(err)
    with pytest.raises(TypeError) as err:
        attract_repel(planted, {"he": "she"})
    assert "Query" in one_line(err)
    with pytest.raises(ValueError) as err:
        attract_repel(planted, Query((["x1"], ["x2"]), (["y1"], ["y2"])), show_progress=False)
    assert "no usable pair" in one_line(err)
    kv = KeyedVectors(2)
    kv.add_vectors(["a", "b", "c", "d"], np.array([[0.0, 0.0], [1, 0], [0, 1], [1, 1]]))
    with pytest.raises(ValueError) as err:
        attract_repel(kv, Query((["a"], ["b"]), (["c"], ["d"])), batch_size=2)
    assert "['a']" in one_line(err) and "zero" in one_line(err)


def test_docstring_examples() -> None:
    failed, attempted = doctest.testmod(ar_mod, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0
