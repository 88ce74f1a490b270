"""Tests for nlpbias.studies.scoring.seeds (several fine-tuning seeds per person, the rule, and the
chapter's statements under it)."""

from __future__ import annotations

import doctest
import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
import transformers
from scoring_seed_planted import CONCEPTS, DIFF, PEOPLE
from scoring_seed_planted import planted_long as _long

from nlpbias.studies.scoring import seeds as mod
from nlpbias.studies.scoring import study
from nlpbias.studies.scoring.mlm import fine_tune_many
from nlpbias.studies.scoring.seeds import (
    SHARED_SHIFT,
    concept_biases,
    exceeds_seed_spread,
    fine_tune_seeds,
    planted_seed_shift,
    seed_biases,
    seed_runs,
    seed_spread_table,
    seed_statements,
)


def test_doctests() -> None:
    failed, attempted = doctest.testmod(mod, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


# ----------------------------------------------------------------------------- the rule
@pytest.mark.parametrize(
    ("differences", "counts"),
    [
        ([-0.30, -0.36], True),  # mean −0.33, range 0.06: far beyond the spread
        ([0.5, 0.5], True),  # two identical seeds: range 0, any non-zero mean counts
        ([0.20, 0.25, 0.30], True),  # mean 0.25 > range 0.10
        ([0.05, -0.02], False),  # the seeds disagree in sign
        ([0.10, 0.40], False),  # same sign, but mean 0.25 < range 0.30
        ([0.20, 0.25, 0.60], False),  # one far seed: mean 0.35 < range 0.40
        ([1.0, 3.0], False),  # mean 2 == range 2: not larger, so it does not count
        ([0.0, 0.0], False),  # no difference at all
    ],
)
def test_the_rule_counts_an_effect_only_beyond_the_seed_range(differences, counts) -> None:
    assert exceeds_seed_spread(differences) is counts
    # the rule has no preferred direction
    assert exceeds_seed_spread([-d for d in differences]) is counts


def test_the_rule_implies_every_seed_has_the_same_sign() -> None:
    gen = np.random.default_rng(0)
    for _ in range(2000):
        d = gen.normal(gen.normal(), gen.uniform(0.01, 1), size=gen.integers(2, 6))
        if exceeds_seed_spread(d):
            assert (d > 0).all() or (d < 0).all()
            assert not (d.mean() - np.ptp(d) <= 0 <= d.mean() + np.ptp(d))


def test_the_rule_needs_two_finite_differences(one_line) -> None:
    with pytest.raises(ValueError, match="2 seeds at least, got 1") as err:
        exceeds_seed_spread([0.3])
    one_line(err)
    with pytest.raises(ValueError, match="finite") as err:
        exceeds_seed_spread([0.3, np.nan])
    one_line(err)


# ----------------------------------------------------------------------------- the table


def test_seed_spread_table_shape_columns_and_values() -> None:
    table = seed_spread_table(_long())
    assert table.shape == (len(PEOPLE) * len(CONCEPTS), 3 + 3 + 1 + 3 + 3)
    assert list(table.columns) == [
        "person", "concept", "base", "bias seed 0", "bias seed 1", "bias seed 2", "mean bias",
        "Δ seed 0", "Δ seed 1", "Δ seed 2", "mean Δ", "range Δ", "counts",
    ]  # fmt: skip
    assert table.attrs["seeds"] == [0, 1, 2]
    assert list(zip(table["person"], table["concept"], strict=True)) == list(DIFF)
    for (p, c), d in DIFF.items():
        row = table[(table["person"] == p) & (table["concept"] == c)].iloc[0]
        np.testing.assert_allclose(row[["Δ seed 0", "Δ seed 1", "Δ seed 2"]].astype(float), d)
        np.testing.assert_allclose(row["mean Δ"], np.mean(d))
        np.testing.assert_allclose(row["range Δ"], np.ptp(d))
        np.testing.assert_allclose(row["mean bias"] - row["base"], np.mean(d), atol=1e-12)
        assert bool(row["counts"]) is exceeds_seed_spread(d)
    assert table["counts"].tolist() == [True, False, True, False, True, False]


def test_seed_spread_table_is_deterministic_and_reads_seeds_in_any_order() -> None:
    long = _long()
    a, b = seed_spread_table(long), seed_spread_table(long.copy())
    pd.testing.assert_frame_equal(a, b)
    shuffled = long.sample(frac=1.0, random_state=3)
    c = seed_spread_table(shuffled.sort_values(["person", "concept"], key=_first_seen(long)))
    pd.testing.assert_frame_equal(a, c)


def _first_seen(long: pd.DataFrame):
    order = {v: i for col in ("person", "concept") for i, v in enumerate(long[col].unique())}
    return lambda s: s.map(order)


def test_seed_spread_table_with_one_seed_applies_no_rule() -> None:
    table = seed_spread_table(_long(seeds=(0,)))
    assert table["counts"].isna().all()
    # one seed: no "mean" over one value and no range (the issue: "mean over seeds" of one seed)
    assert not {"mean bias", "mean Δ", "range Δ"} & set(table.columns)
    assert {"bias seed 0", "Δ seed 0"} <= set(table.columns)


def test_seed_spread_table_errors(one_line) -> None:
    with pytest.raises(KeyError, match="lacks \\['difference'\\]") as err:
        seed_spread_table(_long().drop(columns="difference"))
    one_line(err)
    with pytest.raises(ValueError, match="occurs twice") as err:
        seed_spread_table(pd.concat([_long(), _long().iloc[:1]]))
    one_line(err)
    with pytest.raises(ValueError, match="lacks seeds \\[2\\]") as err:
        seed_spread_table(_long().iloc[:-1])
    one_line(err)


# ----------------------------------------------------------------------------- biases
@pytest.fixture(scope="module")
def fws() -> list[study.Framework]:
    return study.frameworks()


def _scores(fws, model: str, shift: float) -> pd.DataFrame:
    """Every cell of every framework: female targets score ``shift`` × the concept's index."""
    frames = []
    for fw in fws:
        concept = {w: i for i, words in enumerate(fw.attributes.values()) for w in words}
        rows = [
            {"model": model, "framework": fw.name, "template": tpl, "target": t,
             "attribute": a, "score": (shift * (concept[a] + 1) if t in fw.female else 0.0)}
            for tpl, t, a in itertools.product(fw.templates, [*fw.female, *fw.male],
                                               fw.attribute_words)
        ]  # fmt: skip
        frames.append(pd.DataFrame(rows))
    return pd.concat(frames, ignore_index=True)


def test_concept_biases_equal_the_bias_table(fws) -> None:
    scores = pd.concat([_scores(fws, "base", 0.1), _scores(fws, "Trump", -0.2)])
    got = concept_biases(scores, fws)
    concepts = [c for fw in fws for c in fw.attributes] + ["average"]
    assert got["model"].tolist() == ["base"] * 7 + ["Trump"] * 7
    assert got["concept"].tolist() == concepts * 2
    np.testing.assert_allclose(got["bias"].iloc[:6], [0.1, 0.2] * 3)
    np.testing.assert_allclose(got["bias"].iloc[6], 0.15)
    table = study.bias_table(scores, fws, n_bootstrap=10, random_state=0)
    np.testing.assert_allclose(got["bias"], table["bias"])


def test_seed_biases_scores_the_base_once_and_every_seed(fws, monkeypatch) -> None:
    shifts = {"base-folder": 0.1, "t0": -0.2, "t1": -0.3}
    called = []

    def fake_score_models(models, fws_, *, device="auto"):
        ((label, name),) = models.items()
        called.append(name)
        return _scores(fws_, label, shifts[name])

    monkeypatch.setattr(mod, "score_models", fake_score_models)
    runs = {"Trump": {0: _Run("t0"), 1: _Run("t1")}}
    long = seed_biases("base-folder", runs, fws)
    assert called == ["base-folder", "t0", "t1"]
    assert long.shape == (2 * 7, 6)
    assert long.columns.tolist() == ["person", "seed", "concept", "bias", "base", "difference"]
    np.testing.assert_allclose(long["difference"], long["bias"] - long["base"])
    first = long[(long["seed"] == 1) & (long["concept"] == "career")].iloc[0]
    assert (first["bias"], first["base"]) == pytest.approx((-0.3, 0.1))


class _Run:
    def __init__(self, path: str) -> None:
        self.path = Path(path)


# ----------------------------------------------------------------------------- fine-tuning
WORDS = ["she", "he", "is", "a", "leader", "follower", "the", "cat", "sat", "on", "mat", "."]


@pytest.fixture(scope="module")
def tiny_mlm(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("tiny_mlm")
    vocab = {w: i for i, w in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *WORDS])}
    tok = transformers.BertTokenizer(vocab=vocab)
    cfg = transformers.BertConfig(
        vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=32, max_position_embeddings=32,
    )  # fmt: skip
    torch.manual_seed(0)
    transformers.BertForMaskedLM(cfg).save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TQDM_DISABLE", "1")
    return tmp_path / "cache"


def _posts(n: int, seed: int) -> list[str]:
    gen = np.random.default_rng(seed)
    return [" ".join(gen.choice(WORDS, size=6)) for _ in range(n)]


RECIPE = {
    "epochs": 1, "max_steps": 2, "learning_rate": 5e-5, "batch_size": 8, "max_length": 16,
    "bf16": False, "device": "cpu",
}  # fmt: skip
ARGS = {**RECIPE, "show_progress": False, "n_jobs": 1}


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return transformers.BertForMaskedLM.from_pretrained(path).state_dict()


def test_fine_tune_seeds_reuses_the_single_run_and_fixes_the_split(tiny_mlm, cache) -> None:
    corpora = {"planted": (_posts(60, 0), None), "Trump": (_posts(40, 1), _posts(8, 2))}
    single = study.fine_tune_people(str(tiny_mlm), corpora, random_state=0, **RECIPE)
    runs = fine_tune_seeds(str(tiny_mlm), corpora, seeds=[0, 1, 2], random_state=0, **ARGS)
    assert list(runs) == ["planted", "Trump"] and list(runs["planted"]) == [0, 1, 2]
    for person in corpora:
        # seed 0 is the chapter's single run: the same cache folder and the same numbers
        assert runs[person][0].path == single[person].path
        assert runs[person][0].after == single[person].after
        paths = {r.path for r in runs[person].values()}
        assert len(paths) == 3
        # the person's held-out posts are the same for every seed; the seed is the only change
        params = [r.params for r in runs[person].values()]
        assert len({(p["train"], p["val"]) for p in params}) == 1
        assert [p["random_state"] for p in params] == [0, 1, 2]
    assert {r.n_val_texts for r in runs["planted"].values()} == {6}
    w0, w1 = _weights(runs["planted"][0].path), _weights(runs["planted"][1].path)
    assert any(not torch.equal(w0[k], w1[k]) for k in w0)


def test_fine_tune_seeds_is_deterministic(tiny_mlm, cache, tmp_path, monkeypatch) -> None:
    corpora = {"planted": (_posts(40, 0), None)}
    first = fine_tune_seeds(str(tiny_mlm), corpora, seeds=[1], random_state=0, **ARGS)
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "other"))  # train again from scratch
    again = fine_tune_seeds(str(tiny_mlm), corpora, seeds=[1], random_state=0, **ARGS)
    a, b = first["planted"][1], again["planted"][1]
    assert a.path != b.path and a.after == b.after
    wa, wb = _weights(a.path), _weights(b.path)
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def test_fine_tune_many_in_worker_processes_trains_what_in_turn_trains(
    tiny_mlm, cache, tmp_path, monkeypatch
) -> None:
    corpora = {"planted": (_posts(40, 0), None), "Trump": (_posts(40, 1), _posts(8, 2))}
    planned = seed_runs(str(tiny_mlm), corpora, seeds=[0, 1], random_state=0, **RECIPE)
    assert [(person, seed) for person, seed, _ in planned] == [
        ("planted", 0), ("planted", 1), ("Trump", 0), ("Trump", 1),
    ]  # fmt: skip
    runs = [run for _, _, run in planned]
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # as each of 2 workers on 2 cores: then the same bits
    try:
        in_turn = fine_tune_many(runs, n_jobs=1, show_progress=False)
    finally:
        torch.set_num_threads(threads)
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "other"))  # the workers inherit it
    import nlpbias.core.sweep as sweep

    pools = []
    real = sweep.run_sweep
    monkeypatch.setattr(sweep, "run_sweep", lambda *a, **k: pools.append(k) or real(*a, **k))
    pooled = fine_tune_many(runs, n_jobs=2, show_progress=False)
    assert [(k["executor"], k["n_jobs"]) for k in pools] == [("process", 2)]
    for a, b in zip(in_turn, pooled, strict=True):  # in the order of the runs
        assert a.path != b.path and b.path.is_relative_to(tmp_path / "other")
        assert (a.params, a.before, a.after) == (b.params, b.before, b.after)
        wa, wb = _weights(a.path), _weights(b.path)
        assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert [r.params["random_state"] for r in pooled] == [0, 1, 0, 1]

    def no_pool(*args, **kwargs):
        raise AssertionError("started workers for cached runs")

    monkeypatch.setattr(sweep, "run_sweep", no_pool)
    again = fine_tune_many(runs, n_jobs=2, show_progress=False)
    assert [r.path for r in again] == [r.path for r in pooled]
    with pytest.raises(ValueError, match="n_jobs"):
        fine_tune_many(runs, n_jobs=0)


@pytest.mark.parametrize(
    ("seeds", "message"),
    [([], "non-empty"), ([0, -1], "ints >= 0"), ([0, 0], "distinct"), ("01", "list of ints")],
)
def test_fine_tune_seeds_checks_the_seeds(seeds, message, one_line) -> None:
    with pytest.raises((TypeError, ValueError), match=message) as err:
        fine_tune_seeds("base", {"p": (["a b"], None)}, seeds=seeds, random_state=0, n_jobs=1)
    one_line(err)


# ----------------------------------------------------------------------------- statements
def test_seed_statements_follow_the_rule() -> None:
    text = seed_statements(seed_spread_table(_long()))
    lines = text.splitlines()
    assert lines == [
        "Under the rule, over 3 fine-tuning seeds (0, 1, 2):",
        "- **Trump**'s model is, beyond the seed spread, more pro-male than the base model on "
        "career (mean Δ −0.330, range 0.060) and the average (−0.210, 0.020). On family, the "
        "difference is not larger than the seed-to-seed spread: it does not count.",
        "- **Clinton**'s model is, beyond the seed spread, more pro-female than the base model "
        "on family (mean Δ 0.310, range 0.020). On career and the average, the differences are "
        "not larger than the seed-to-seed spread: they do not count.",
    ]
    none = _long().assign(difference=lambda d: d["difference"] * np.where(d["seed"] == 1, -1, 1))
    assert "- **Trump**'s model differs from the base model on no concept." in seed_statements(
        seed_spread_table(none)
    )


def test_seed_statements_with_one_seed_claim_nothing() -> None:
    text = seed_statements(seed_spread_table(_long(seeds=(0,))))
    assert "no person effect is claimed" in text and "fine_tune_seeds" in text
    assert "with one seed (0)" in text and "mean" not in text


# ----------------------------------------------------------------------------- planted check
def _planted(leader: list[float], follower: list[float]) -> pd.DataFrame:
    rows = []
    for s, (lead, fol) in enumerate(zip(leader, follower, strict=True)):
        for concept, base, d in (("leader", -0.2, lead), ("follower", -0.1, fol)):
            rows.append({"person": "planted", "seed": s, "concept": concept, "bias": base + d,
                         "base": base, "difference": d})  # fmt: skip
    return pd.DataFrame(rows)


def test_planted_seed_shift_applies_the_rule_to_the_association() -> None:
    out = planted_seed_shift(_planted([0.3, 0.35], [-0.1, -0.12]), {"concept": "leader"})
    assert out.columns.tolist() == ["seed", "leader", "follower", "leader − follower"]
    np.testing.assert_allclose(out["leader − follower"], [0.4, 0.47])
    small = planted_seed_shift(_planted([0.003, 0.004], [0.0, 0.0]), {"concept": "leader"})
    assert "moved by 0.0030 and 0.0040: mean 0.0035, range 0.0010;" in small.attrs["verdict"]
    assert out.attrs["counts"] is True and out.attrs["as_planted"] is True
    assert out.attrs["verdict"] == (
        "Over the seeds (0, 1) the association leader − follower moved by 0.400 and 0.470: "
        "mean 0.435, range 0.070; under the rule the shift counts, in the planted direction."
    )
    male = planted_seed_shift(
        _planted([0.3, 0.35], [-0.1, -0.12]), {"concept": "leader", "direction": "male"}
    )
    assert male.attrs["counts"] is True and male.attrs["as_planted"] is False
    assert male.attrs["verdict"].endswith("counts, against the planted one.")
    # one seed moves it the other way: within the spread, whatever the mean
    mixed = planted_seed_shift(_planted([0.3, -0.2], [-0.1, 0.1]), {"concept": "leader"})
    assert mixed.attrs["counts"] is False
    assert mixed.attrs["verdict"].endswith("does not count (it is within the seed spread).")
    one = planted_seed_shift(_planted([0.3], [-0.1]), {"concept": "leader"})
    assert one.attrs["counts"] is None and one.attrs["verdict"].endswith("so no verdict.")
    assert one.attrs["verdict"].startswith("With one fine-tuning seed (0) the association")
    assert "mean" not in one.attrs["verdict"] and "range" not in one.attrs["verdict"]


def test_planted_seed_shift_needs_the_person(one_line) -> None:
    with pytest.raises(KeyError, match="no rows for person 'you'") as err:
        planted_seed_shift(_planted([0.3], [-0.1]), {}, person="you")
    one_line(err)


def test_seed_statements_name_a_shift_shared_by_a_concept_and_its_opposite(fws) -> None:
    table = seed_spread_table(_long())
    # Trump: career counts, family does not; Clinton: family counts, career does not
    assert "moved together" not in seed_statements(table, fws)
    both = _long().assign(
        difference=lambda d: np.where(
            d["concept"] == "family", -0.5 - 0.01 * d["seed"], d["difference"]
        )
    )
    lines = seed_statements(seed_spread_table(both), fws).splitlines()
    assert lines[1].endswith(
        "The pair career/family (more pro-male) moved together: a shared shift."
    )
    assert "moved together" not in lines[2]  # Clinton's career does not count
    assert lines[-2:] == ["", SHARED_SHIFT]
    assert "moved together" not in seed_statements(seed_spread_table(both))  # no fws, no pairs


def test_recorded_single_run_is_not_trained_again_by_the_seeds(tiny_mlm, cache, monkeypatch):
    """The chapter records the single run's curves as the seeds record theirs, so seed
    ``random_state`` is trained once: fine_tune_seeds finds it in the cache."""
    from nlpbias.studies.scoring import mlm

    corpora = {"Trump": (_posts(40, 1), _posts(8, 2))}
    spec = mlm.CurveSpec(eval_every=1, eval_blocks=2)
    single = study.fine_tune_people(str(tiny_mlm), corpora, random_state=0, record=spec,
                                    **RECIPE)  # fmt: skip
    trained = []
    real = mlm.load_mlm
    monkeypatch.setattr(mlm, "load_mlm", lambda *a, **k: trained.append(a) or real(*a, **k))
    runs = fine_tune_seeds(str(tiny_mlm), corpora, seeds=[0, 1], random_state=0, record=spec,
                           **ARGS)  # fmt: skip
    assert len(trained) == 1  # seed 1 only
    assert runs["Trump"][0].path == single["Trump"].path
    assert runs["Trump"][0].curves is not None
