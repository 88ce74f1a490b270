"""Tests for nlpbias.studies.logan.frozen (frozen-encoder LOGAN features and classifier).

Everything runs on the packaged MiniLM, offline, on ~50 short texts with max_length 16.
"""

from __future__ import annotations

import numpy as np
import pytest
from logan_cases import LABELS, TEXTS
from sklearn.exceptions import NotFittedError

from nlpbias.models import encoders as enc
from nlpbias.studies.logan import frozen


@pytest.fixture(autouse=True)
def _offline_and_private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))


@pytest.fixture(scope="module")
def minilm():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        return enc.load_encoder("all-MiniLM-L6-v2", device="cpu")


# --------------------------------------------------------------------------- frozen features
def test_encoder_features_are_the_mean_pooled_layer_and_cached(minilm, tmp_path) -> None:
    tokenizer, model = minilm
    texts = TEXTS[:6]
    expected = enc.encode(texts, tokenizer=tokenizer, model=model, layer=-2, max_length=16,
                          show_progress=False)  # fmt: skip
    got = frozen.encoder_features(texts, max_length=16, device="cpu", show_progress=False)
    assert got.shape == (6, 384) and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, atol=1e-5)
    # stored on disk under $NLPBIAS_CACHE, keyed by texts and parameters; "minilm" is an alias
    assert any((tmp_path / "cache").rglob("output.pkl"))
    in_cache = frozen._frozen_features.check_call_in_cache
    key = {"device": "cpu", "show_progress": False}  # left out of the key
    assert in_cache(texts, "all-MiniLM-L6-v2", -2, 64, 16, **key)
    again = frozen.encoder_features(texts, model="minilm", max_length=16, show_progress=False)
    np.testing.assert_array_equal(again, got)
    assert not in_cache(texts, "all-MiniLM-L6-v2", -1, 64, 16, **key)
    last = frozen.encoder_features(texts, layer=-1, max_length=16, show_progress=False)
    assert np.abs(last - got).max() > 1e-2


def test_encoder_features_validates_input(one_line) -> None:
    with pytest.raises(TypeError, match="not one string") as err:
        frozen.encoder_features("one text")
    one_line(err)
    with pytest.raises(ValueError, match="batch_size") as err:
        frozen.encoder_features(["ok"], batch_size=0)
    one_line(err)
    with pytest.raises(ValueError, match="model must be") as err:
        frozen.encoder_features(["ok"], model="")
    one_line(err)
    assert frozen.encoder_features([], show_progress=False).shape == (0, 384)


def test_frozen_classifier_separates_toy_texts_and_keeps_label_names() -> None:
    labels = np.where(LABELS == 1, "toxic", "clean")
    clf = frozen.FrozenEncoderClassifier(max_length=16, device="cpu", show_progress=False)
    clf.fit(TEXTS, labels)
    assert clf.classes_.tolist() == ["clean", "toxic"]
    proba = clf.predict_proba(TEXTS)
    assert proba.shape == (50, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert (clf.predict(TEXTS) == labels).mean() >= 0.95
    assert clf.predict(["you stupid idiot", "thanks, have a lovely day"]).tolist() == [
        "toxic", "clean",
    ]  # fmt: skip
    np.testing.assert_array_equal(
        clf.features(TEXTS[:3]), frozen.encoder_features(TEXTS[:3], max_length=16)
    )
    with pytest.raises(NotFittedError):
        frozen.FrozenEncoderClassifier().predict_proba(["x"])
    with pytest.raises(ValueError, match="exactly two classes"):
        frozen.FrozenEncoderClassifier(max_length=16).fit(TEXTS[:3], [0, 1, 2])
