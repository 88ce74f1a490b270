"""Tests for nlpbias.studies.logan.finetune (the fine-tuned MiniLM classifier and its LOGAN
features).

Everything runs on the packaged MiniLM, offline, on ~50 short texts with max_length 16.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from logan_cases import LABELS, TEXTS
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import roc_auc_score

from nlpbias.studies.logan import finetune as ft
from nlpbias.studies.logan.frozen import encoder_features

# one torch thread: on a busy 2-core machine two threads oversubscribe and run 10x slower
SMALL = {"max_length": 16, "batch_size": 8, "n_threads": 1, "show_progress": False}


@pytest.fixture(autouse=True)
def _offline_and_private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def tuned():
    """Fine-tuned for 2 epochs (14 steps) at a high learning rate, so that it learns something."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        clf = ft.FineTunedEncoderClassifier(
            epochs=2, learning_rate=2e-4, device="cpu", random_state=0, **SMALL
        )
        return clf.fit(TEXTS, LABELS)


# --------------------------------------------------------------------------- schedule, batches
def test_linear_schedule_by_hand() -> None:
    got = [ft.linear_schedule(s, total_steps=10, warmup_steps=2) for s in range(11)]
    expected = [0.0, 0.5, 1.0, 0.875, 0.75, 0.625, 0.5, 0.375, 0.25, 0.125, 0.0]
    np.testing.assert_allclose(got, expected)
    assert ft.linear_schedule(0, total_steps=4, warmup_steps=0) == 1.0
    assert ft.linear_schedule(3, total_steps=4, warmup_steps=0) == 0.25


def test_length_grouped_batches_cover_every_row_once_with_less_padding() -> None:
    lengths = np.random.default_rng(0).integers(5, 65, size=1000)
    for grouped in (True, False):
        batches = ft._batches(lengths, 32, np.random.default_rng(1), grouped)
        assert sorted(np.concatenate(batches).tolist()) == list(range(1000))
        assert all(len(b) == 32 for b in batches[:-1] if grouped is False)
    padded = {
        grouped: sum(
            len(b) * lengths[b].max()
            for b in ft._batches(lengths, 32, np.random.default_rng(1), grouped)
        )
        for grouped in (True, False)
    }
    assert padded[True] < 0.8 * padded[False]
    again = ft._batches(lengths, 32, np.random.default_rng(1), True)
    first = ft._batches(lengths, 32, np.random.default_rng(1), True)
    assert all(np.array_equal(a, b) for a, b in zip(again, first, strict=True))


# --------------------------------------------------------------------------- fine-tuning
def test_fine_tuning_learns_the_toy_task(tuned) -> None:
    hist = tuned.history_
    assert hist["epoch"].tolist() == [1, 2] and hist["steps"].tolist() == [7, 7]
    assert hist["train_loss"].iloc[1] < hist["train_loss"].iloc[0]
    proba = tuned.predict_proba(TEXTS)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert roc_auc_score(LABELS, proba[:, 1]) > 0.9
    assert proba[LABELS == 1, 1].mean() > proba[LABELS == 0, 1].mean() + 0.2
    assert not tuned.model_.training


def test_predictions_do_not_depend_on_order_or_batch_companions(tuned) -> None:
    proba = tuned.predict_proba(TEXTS)[:, 1]
    perm = np.random.default_rng(0).permutation(50)
    shuffled = tuned.predict_proba([TEXTS[i] for i in perm])[:, 1]
    np.testing.assert_allclose(shuffled, proba[perm], atol=1e-5)
    alone = tuned.predict_proba([TEXTS[7]])[:, 1]
    np.testing.assert_allclose(alone, proba[7], atol=1e-5)
    logit = tuned.decision_function(TEXTS[:2])
    np.testing.assert_allclose(1 / (1 + np.exp(-logit)), proba[:2], atol=1e-6)


def test_features_are_the_fine_tuned_second_to_last_layer(tuned) -> None:
    text = TEXTS[3]
    feats = tuned.features(TEXTS[:5])
    assert feats.shape == (5, 384) and feats.dtype == np.float32
    batch = tuned.tokenizer_([text], truncation=True, max_length=16, return_tensors="pt")
    with torch.inference_mode():
        states = tuned.model_.base_model(**batch, output_hidden_states=True).hidden_states
    np.testing.assert_allclose(feats[3], states[-2][0].mean(dim=0).numpy(), atol=1e-5)
    np.testing.assert_allclose(
        tuned.features([text], layer=-1)[0], states[-1][0].mean(dim=0).numpy(), atol=1e-5
    )
    # fine-tuning moved the encoder away from the frozen one
    frozen = encoder_features(TEXTS[:5], max_length=16, device="cpu", show_progress=False)
    assert np.abs(feats - frozen).max() > 1e-2
    with pytest.raises(ValueError, match="layer must be"):
        tuned.features(["x"], layer=7)
    assert tuned.features([]).shape == (0, 384)


def test_seeded_fits_are_identical_and_seeds_matter() -> None:
    kwargs = {"device": "cpu", **SMALL}
    texts, labels = TEXTS[::5], LABELS[::5]  # 10 texts: 2 steps
    a = ft.FineTunedEncoderClassifier(random_state=3, **kwargs).fit(texts, labels)
    b = clone(a).fit(texts, labels)
    c = ft.FineTunedEncoderClassifier(random_state=4, **kwargs).fit(texts, labels)
    pa, pb, pc = (m.predict_proba(TEXTS[:4]) for m in (a, b, c))
    np.testing.assert_array_equal(pa, pb)
    assert np.abs(pa - pc).max() > 1e-6


def test_bf16_precision_runs_and_stays_close(tuned) -> None:
    clf = ft.FineTunedEncoderClassifier(precision="bf16", device="cpu", random_state=0, **SMALL)
    clf.fit(TEXTS[::5], LABELS[::5])
    proba = clf.predict_proba(TEXTS[:4])
    assert proba.dtype == np.float64 and np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert clf.features(TEXTS[:2]).dtype == np.float32


def test_one_pass_gives_exactly_the_two_calls(tuned) -> None:
    """The LOGAN chapter scores and clusters the test tweets from one forward pass: the same
    numbers, bit for bit, as predict_proba and features called one after the other."""
    texts = TEXTS[:13] + [TEXTS[20] * 3]  # uneven lengths: several batches, padding
    proba, feats = tuned.predict_proba_and_features(texts)
    np.testing.assert_array_equal(proba, tuned.predict_proba(texts))
    np.testing.assert_array_equal(feats, tuned.features(texts))
    _, last = tuned.predict_proba_and_features(texts, layer=-1)
    np.testing.assert_array_equal(last, tuned.features(texts, layer=-1))
    assert proba.dtype == np.float64 and feats.dtype == np.float32
    empty = tuned.predict_proba_and_features([])
    assert empty[0].shape == (0, 2) and empty[1].shape == (0, 384)
    with pytest.raises(ValueError, match="layer must be"):
        tuned.predict_proba_and_features(["x"], layer=7)


def test_bf16_training_with_fp32_inference() -> None:
    """precision="bf16", inference_precision="fp32": mixed-precision training, full-precision
    probabilities and features (the forward pass without autocast)."""
    clf = ft.FineTunedEncoderClassifier(
        precision="bf16", inference_precision="fp32", device="cpu", random_state=0, **SMALL
    ).fit(TEXTS[::5], LABELS[::5])
    text = TEXTS[3]
    batch = clf.tokenizer_([text], truncation=True, max_length=16, return_tensors="pt")
    with torch.inference_mode():
        out = clf.model_(**batch, output_hidden_states=True)
    logit = (out.logits[0, 1] - out.logits[0, 0]).item()
    np.testing.assert_allclose(clf.decision_function([text])[0], logit, atol=1e-5)
    pooled = out.hidden_states[-2][0].mean(dim=0).numpy()
    np.testing.assert_allclose(clf.features([text])[0], pooled, atol=1e-5)
    in_bf16 = clone(clf).set_params(inference_precision=None)
    in_bf16.model_, in_bf16.tokenizer_, in_bf16.classes_ = clf.model_, clf.tokenizer_, clf.classes_
    assert np.abs(in_bf16.features([text])[0] - pooled).max() > 1e-4  # autocast is on there


def test_fused_optimizer_is_the_same_update_up_to_rounding() -> None:
    kwargs = {"device": "cpu", "random_state": 3, **SMALL}
    texts, labels = TEXTS[::5], LABELS[::5]
    plain = ft.FineTunedEncoderClassifier(**kwargs).fit(texts, labels)
    fused = ft.FineTunedEncoderClassifier(fused_optimizer=True, **kwargs).fit(texts, labels)
    assert fused._optimiser(fused.model_).defaults["fused"] is True
    assert not plain._optimiser(plain.model_).defaults["fused"]
    np.testing.assert_allclose(
        fused.predict_proba(TEXTS[:6]), plain.predict_proba(TEXTS[:6]), atol=1e-4
    )
    with pytest.raises(TypeError, match="fused_optimizer must be True or False"):
        ft.FineTunedEncoderClassifier(fused_optimizer="yes").fit(TEXTS[:2], [0, 1])


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"warmup": 1.0}, "warmup must be"),
        ({"precision": "fp16"}, "precision must be"),
        ({"inference_precision": "fp16"}, "inference_precision must be"),
        ({"learning_rate": 0}, "learning_rate must be"),
        ({"epochs": 0}, "epochs must be"),
        ({"model": "  "}, "model must be"),
    ],
)
def test_fine_tuned_validates_parameters(params, match, one_line) -> None:
    with pytest.raises(ValueError, match=match) as err:
        ft.FineTunedEncoderClassifier(**params).fit(TEXTS[:2], [0, 1])
    one_line(err)


def test_fine_tuned_validates_data(one_line) -> None:
    clf = ft.FineTunedEncoderClassifier(**SMALL)
    with pytest.raises(ValueError, match="exactly two classes") as err:
        clf.fit(TEXTS[:3], [0, 0, 0])
    one_line(err)
    with pytest.raises(ValueError, match="one label per text") as err:
        clf.fit(TEXTS[:3], [0, 1])
    one_line(err)
    with pytest.raises(TypeError, match="not one string"):
        clf.fit("text", [0])
    with pytest.raises(NotFittedError):
        clf.predict_proba(["x"])
