"""Tests for the per-person learning curves: recording in fine_tune_mlm (CurveSpec), which must
not change the training, learning_curves, curve_end_points and person_curves_figure, on a tiny
random BERT."""

from __future__ import annotations

import doctest

import pandas as pd
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from figure_checks import assert_legend_clear  # noqa: E402
from test_mlm import TEXTS, _fine_tune, _one_thread_and_cache, _save_tiny, _weights  # noqa: E402, F401

import nlpbias.studies.scoring.curves as curves_module  # noqa: E402
import nlpbias.studies.scoring.mlm as mlm  # noqa: E402
from nlpbias.models.encoders import load_mlm  # noqa: E402
from nlpbias.studies.scoring.curves import (  # noqa: E402
    CURVE_COLUMNS,
    curve_end_points,
    learning_curves,
)
from nlpbias.studies.scoring.figures import (  # noqa: E402
    CURVE_COLOURS,
    SEED_MARKERS,
    person_curves_figure,
)
from nlpbias.studies.scoring.mlm import CURVE_METRICS, CurveSpec  # noqa: E402
from nlpbias.studies.scoring.seeds import fine_tune_seeds  # noqa: E402

TRAIN, VAL = TEXTS[:96], TEXTS[96:128]
#: 96 posts of max_length 16 pack into about 30 blocks: batch 8 gives 4 steps an epoch
ARGS = {"val_texts": VAL, "epochs": 2, "batch_size": 8, "learning_rate": 1e-3}


@pytest.fixture(scope="module")
def dropout_mlm(tmp_path_factory):
    """A tiny random BertForMaskedLM WITH dropout: its draws are part of the training stream."""
    return _save_tiny(tmp_path_factory.mktemp("mlm_dropout"), head=True, dropout=0.1)


def test_doctests() -> None:
    for module in (curves_module, mlm):
        failed, attempted = doctest.testmod(module, raise_on_error=False, verbose=False)[:2]
        assert attempted > 0 and failed == 0


# ----------------------------------------------------------------------------- recording
def test_recording_changes_no_weight_and_no_number(dropout_mlm, tmp_path) -> None:
    plain = _fine_tune(dropout_mlm, TRAIN, output_dir=tmp_path / "plain", **ARGS)
    spec = CurveSpec(eval_every=3, eval_blocks=5)
    recorded = _fine_tune(dropout_mlm, TRAIN, output_dir=tmp_path / "rec", record=spec, **ARGS)
    assert plain.curves is None and recorded.curves is not None
    assert (recorded.before, recorded.after, recorded.steps) == (
        plain.before, plain.after, plain.steps,
    )  # fmt: skip
    assert recorded.params == plain.params  # the same cache key
    a, b = _weights(plain.path), _weights(recorded.path)
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key  # bit for bit: the RNG stream is untouched
    # and the recording evaluated in the middle of training, not only at the ends
    steps = recorded.curves.loc[recorded.curves["metric"] == "held-out top-1", "step"].tolist()
    assert steps[0] == 0 and steps[-1] == plain.steps and len(steps) >= 3


def test_curves_layout_and_end_points_are_those_of_the_models(dropout_mlm, tmp_path) -> None:
    spec = CurveSpec(eval_every=3, eval_blocks=4)
    res = _fine_tune(dropout_mlm, TRAIN, output_dir=tmp_path / "o", record=spec, **ARGS)
    c = res.curves
    assert list(c.columns) == ["step", "metric", "value"]
    assert list(dict.fromkeys(c["metric"])) == list(CURVE_METRICS)
    total = res.steps
    train = c[c["metric"] == "training loss"]
    assert train["step"].tolist() == list(range(1, total + 1))  # every step
    assert (train["value"] > 0).all()
    expected = sorted({0, *range(3, total + 1, 3), total})
    for metric in ("held-out loss", "held-out top-1"):
        assert c.loc[c["metric"] == metric, "step"].tolist() == expected
    top1 = c.loc[c["metric"] == "held-out top-1", "value"]
    assert top1.between(0, 1).all()
    # the first point is the base model, the last the saved model, on the fixed sample
    tok, _ = load_mlm(dropout_mlm, device="cpu")
    blocks = mlm.pack_blocks(tok, VAL, max_length=16)
    sample = [blocks[i] for i in spec.sample(len(blocks))]
    assert len(sample) == 4 < len(blocks)
    for folder, step in ((dropout_mlm, 0), (res.path, total)):
        tok, model = load_mlm(folder, device="cpu")
        got = mlm.masked_accuracy(model, tok, sample, random_state=mlm._EVAL_SEED)
        at = c[c["step"] == step].set_index("metric")["value"]
        assert at["held-out top-1"] == got["top1"] and at["held-out loss"] == got["loss"]
    saved = pd.read_csv(res.path / mlm.CURVES_FILE)
    pd.testing.assert_frame_equal(saved, c)


def test_evaluations_run_in_the_training_precision(dropout_mlm, tmp_path) -> None:
    """With ``bf16``, before/after and every curve point are bfloat16-autocast evaluations."""
    spec = CurveSpec(eval_every=3, eval_blocks=5)
    res = _fine_tune(dropout_mlm, TRAIN, output_dir=tmp_path / "bf16", record=spec, bf16=True,
                     **ARGS)  # fmt: skip
    assert res.params["bf16"] is True
    tok, _ = load_mlm(dropout_mlm, device="cpu")
    held_out = mlm.pack_blocks(tok, VAL, max_length=16)
    sample = [held_out[i] for i in spec.sample(len(held_out))]
    c = res.curves
    for folder, step, result in ((dropout_mlm, 0, res.before), (res.path, res.steps, res.after)):
        tok, model = load_mlm(folder, device="cpu")
        whole = mlm.masked_accuracy(model, tok, held_out, random_state=0, bf16=True)
        assert result == whole
        fp32 = mlm.masked_accuracy(model, tok, held_out, random_state=0)
        assert fp32["loss"] != whole["loss"]  # so the check above can tell them apart
        got = mlm.masked_accuracy(model, tok, sample, random_state=mlm._EVAL_SEED, bf16=True)
        at = c[c["step"] == step].set_index("metric")["value"]
        assert at["held-out top-1"] == got["top1"] and at["held-out loss"] == got["loss"]


def test_cached_curves_are_reused_and_missing_ones_recorded(dropout_mlm, monkeypatch) -> None:
    spec = CurveSpec(eval_every=4, eval_blocks=4)
    plain = _fine_tune(dropout_mlm, TRAIN, **ARGS)  # cached without curves
    weights = _weights(plain.path)
    recorded = _fine_tune(dropout_mlm, TRAIN, record=spec, **ARGS)  # trains again: same folder
    assert recorded.path == plain.path and recorded.curves is not None
    for key, value in _weights(recorded.path).items():
        assert torch.equal(value, weights[key]), key
    with monkeypatch.context() as patch:
        patch.setattr(mlm, "load_mlm", lambda *a, **k: pytest.fail("trained again"))
        again = _fine_tune(dropout_mlm, TRAIN, record=spec, **ARGS)
        pd.testing.assert_frame_equal(again.curves, recorded.curves)
        off = _fine_tune(dropout_mlm, TRAIN, **ARGS)  # recording off: the cached model
        assert off.after == plain.after
    other = _fine_tune(dropout_mlm, TRAIN, record=CurveSpec(eval_every=2, eval_blocks=4), **ARGS)

    def evaluations(c: pd.DataFrame) -> list[int]:
        return c.loc[c["metric"] == "held-out top-1", "step"].tolist()

    assert evaluations(recorded.curves) == [0, 4, 8, 12]  # another spec: recorded again
    assert evaluations(other.curves) == [0, 2, 4, 6, 8, 10, 12]


def test_curve_spec_errors(dropout_mlm) -> None:
    with pytest.raises(ValueError, match="eval_every"):
        CurveSpec(eval_every=0, eval_blocks=4)
    with pytest.raises(ValueError, match="eval_blocks"):
        CurveSpec(eval_every=1, eval_blocks=0)
    with pytest.raises(KeyError, match=r"missing \['eval_blocks'\]"):
        CurveSpec.from_mapping({"eval_every": 5})
    assert CurveSpec.from_mapping({"eval_every": 5, "eval_blocks": 2}).eval_blocks == 2
    with pytest.raises(TypeError, match="CurveSpec"):
        _fine_tune(dropout_mlm, TRAIN, record={"eval_every": 5}, **ARGS)


def test_fine_tune_seeds_records_every_seed_and_learning_curves_collects_them(dropout_mlm):
    runs = fine_tune_seeds(
        str(dropout_mlm), {"Trump": (TRAIN, VAL), "planted": (TRAIN[:60], None)},
        seeds=[0, 1], random_state=0, n_jobs=1, record=CurveSpec(eval_every=2, eval_blocks=3),
        epochs=1, batch_size=8, learning_rate=1e-3, max_length=16, bf16=False, device="cpu",
        show_progress=False,
    )  # fmt: skip
    frame = learning_curves(runs)
    assert list(frame.columns) == list(CURVE_COLUMNS)
    assert list(dict.fromkeys(frame["person"])) == ["Trump", "planted"]
    for (person, seed), sub in frame.groupby(["person", "seed"]):
        mine = runs[person][seed].curves
        assert sub["value"].tolist() == mine["value"].tolist()
    # another seed, another curve (batches, masks and dropout differ)
    t = frame[(frame["person"] == "Trump") & (frame["metric"] == "training loss")]
    assert t[t["seed"] == 0]["value"].tolist() != t[t["seed"] == 1]["value"].tolist()
    ends = curve_end_points(frame)
    assert len(ends) == 4 and (ends["steps"] > 0).all()


def test_learning_curves_refuses_a_run_without_curves(dropout_mlm, tmp_path) -> None:
    plain = _fine_tune(dropout_mlm, TRAIN, output_dir=tmp_path / "p", **ARGS)
    with pytest.raises(ValueError, match="record=CurveSpec"):
        learning_curves({"Trump": {0: plain}})
    with pytest.raises(ValueError, match="no runs"):
        learning_curves({})


# ----------------------------------------------------------------------------- planted curves
def _planted(people=("Trump", "Clinton"), seeds=(0, 1)) -> pd.DataFrame:
    rows = []
    for p, person in enumerate(people):
        for seed in seeds:
            for step in range(1, 11):
                rows.append((person, seed, step, "training loss", 6.0 - 0.4 * step + 0.1 * seed))
            for step in (0, 5, 10):
                rows.append((person, seed, step, "held-out loss", 6.0 - 0.2 * step + p))
                rows.append((person, seed, step, "held-out top-1", 0.02 * step + 0.01 * seed))
    return pd.DataFrame(rows, columns=list(CURVE_COLUMNS))


def test_curve_end_points_on_planted_curves() -> None:
    c = _planted()
    # Clinton seed 1: the held-out loss turns up at the end (overfitting), top-1 peaks early
    turn = (c["person"] == "Clinton") & (c["seed"] == 1) & (c["step"] == 10)
    c.loc[turn & (c["metric"] == "held-out loss"), "value"] = 6.5
    c.loc[turn & (c["metric"] == "held-out top-1"), "value"] = 0.05
    ends = curve_end_points(c).set_index(["person", "seed"])
    assert ends.loc[("Trump", 0), "held-out top-1"] == pytest.approx(0.2)
    assert ends.loc[("Trump", 0), "best step"] == 10 and ends.loc[("Trump", 0), "loss rise"] == 0
    assert ends.loc[("Clinton", 1), "best step"] == 5
    assert ends.loc[("Clinton", 1), "loss rise"] == pytest.approx(6.5 - 6.0)
    # mean training loss of steps 6..10 (after the last-but-one evaluation at 5)
    assert ends.loc[("Trump", 0), "training loss"] == pytest.approx(6.0 - 0.4 * 8)
    with pytest.raises(ValueError, match="unknown metrics"):
        curve_end_points(c.assign(metric="accuracy"))
    with pytest.raises(ValueError, match="has no"):
        curve_end_points(c[c["metric"] != "held-out loss"])


def test_person_curves_figure_marks(close) -> None:
    c = _planted()
    fig = close(person_curves_figure(c))
    axes = fig.axes
    assert len(axes) == 4
    assert [ax.get_title() for ax in axes[:2]] == ["Trump", "Clinton"]
    for i, person in enumerate(["Trump", "Clinton"]):
        top, bottom = axes[i], axes[2 + i]
        # per seed: training loss and held-out loss above, held-out top-1 below
        assert len(top.lines) == 4 and len(bottom.lines) == 2
        for line in top.lines + bottom.lines:
            label = line.get_label()
            assert label.startswith(f"{person}, seed ")
            seed = int(label.split("seed ")[1].split(":")[0])
            metric = label.split(": ")[1]
            want = c[(c["person"] == person) & (c["seed"] == seed) & (c["metric"] == metric)]
            want = want.sort_values("step")
            assert line.get_xdata().tolist() == want["step"].astype(float).tolist()
            assert line.get_ydata().tolist() == want["value"].tolist()
            assert line.get_color() == CURVE_COLOURS[metric]
            if metric != "training loss":
                assert line.get_marker() == SEED_MARKERS[seed]
        assert {ln.get_label().split(": ")[1] for ln in bottom.lines} == {"held-out top-1"}
        assert bottom.get_xlabel() == "training step"
    assert_legend_clear(fig)


def test_person_curves_figure_errors() -> None:
    with pytest.raises(KeyError, match="metric"):
        person_curves_figure(pd.DataFrame({"person": ["T"], "seed": [0], "step": [0]}))
    with pytest.raises(ValueError, match="unknown metrics"):
        person_curves_figure(_planted().assign(metric="accuracy"))
    with pytest.raises(ValueError, match="empty"):
        person_curves_figure(_planted().iloc[:0])
