"""Tests for nlpbias.models.kim (tiny data, tiny networks: each test takes ~1 s)."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from gensim.models import KeyedVectors
from sklearn.base import clone
from sklearn.metrics import roc_auc_score

from nlpbias.models import classifiers
from nlpbias.models.classifiers import make_classifier
from nlpbias.models.cnn import CNNTextClassifier
from nlpbias.models.kim import KimCNNClassifier

TOXIC = ["idiot", "moron", "stupid", "trash"]
NICE = ["lovely", "kind", "great", "nice"]
FILLER = ["the", "a", "you", "are", "so", "really", "this", "is"]


def toy(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """Filler words plus one class word: label 1 iff the class word is from TOXIC."""
    gen = np.random.default_rng(seed)
    texts, labels = [], []
    for i in range(n):
        words = list(gen.choice(FILLER, size=gen.integers(2, 7)))
        words.insert(
            int(gen.integers(0, len(words) + 1)), str(gen.choice(TOXIC if i % 2 else NICE))
        )
        texts.append(" ".join(words))
        labels.append(i % 2)
    return texts, np.array(labels)


@pytest.fixture(scope="module")
def data():
    return toy(240, 1), toy(100, 2)


@pytest.fixture(scope="module")
def kv():
    """8-d vectors for every toy word but 'trash'; coordinate 0 is +3 for insults, -3 for nice
    words and 0 for fillers, the rest is noise."""
    words = [w for w in TOXIC + NICE + FILLER if w != "trash"]
    vectors = np.random.default_rng(3).normal(size=(len(words), 8)).astype(np.float32)
    vectors[:, 0] = [3.0 if w in TOXIC else -3.0 if w in NICE else 0.0 for w in words]
    out = KeyedVectors(vector_size=8)
    out.add_vectors(words, vectors)
    return out


def small_kim(**kw) -> KimCNNClassifier:
    params = dict(
        n_filters=8,
        batch_size=32,
        max_epochs=8,
        learning_rate=0.01,
        random_state=0,
        show_progress=False,
        device="cpu",
    )
    return KimCNNClassifier(**(params | kw))


@pytest.fixture(scope="module")
def kim(data, kv):
    (X, y), _ = data
    return small_kim(embedding=kv, dropout=0.0).fit(X, y)


def test_kim_architecture_is_parallel_widths_and_one_logit(kim):
    net = kim.model_
    assert [c.kernel_size[0] for c in net.convs] == [3, 4, 5]
    assert all(c.out_channels == 8 and c.in_channels == 8 for c in net.convs)
    assert net.out.in_features == 3 * 8 and net.out.out_features == 1
    assert not net.embedding.weight.requires_grad  # frozen vectors
    default = KimCNNClassifier()
    assert (default.kernel_sizes, default.n_filters, default.dropout) == ((3, 4, 5), 100, 0.5)
    assert isinstance(default, CNNTextClassifier)


def test_kim_learns_the_toy_task_on_frozen_vectors(data, kim, kv):
    _, (X_test, y_test) = data
    proba = kim.predict_proba(X_test)
    assert proba.shape == (100, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert roc_auc_score(y_test, proba[:, 1]) > 0.95
    assert (kim.predict(X_test) == y_test).mean() > 0.9
    for word in ("idiot", "nice"):  # the frozen vectors are unchanged by training
        row = kim.vocabulary_[word]
        np.testing.assert_array_equal(kim.model_.embedding.weight[row].numpy(), kv[word])


def test_kim_one_word_text_matches_the_wide_convolution_by_hand(kim):
    """A 1-token text (shorter than every width) sees, for width k, k windows holding its
    vector at each of the k filter positions: feature = max_j relu(W[:, :, j] @ e + b)."""
    net = kim.model_
    e = net.embedding.weight[kim.vocabulary_["idiot"]].numpy().astype(np.float64)
    feats = []
    for conv in net.convs:
        W, b = conv.weight.detach().numpy(), conv.bias.detach().numpy()
        per_position = np.einsum("fdj,d->fj", W, e) + b[:, None]  # (filters, k)
        feats.append(np.maximum(per_position, 0).max(axis=1))
    logit = net.out.weight.detach().numpy()[0] @ np.concatenate(feats) + net.out.bias.item()
    assert kim.decision_function(["idiot"])[0] == pytest.approx(logit, abs=1e-5)


def test_kim_score_does_not_depend_on_batch_or_padding(kim):
    long_text = " ".join(["really"] * 40 + ["nice"])
    for text in ("you are a moron", "idiot", "", "zebra"):  # short, 1 word, empty, unknown
        alone = kim.decision_function([text])[0]
        assert np.isfinite(alone)
        batch = kim.decision_function([long_text, text, "kind", "so"])[1]
        assert batch == pytest.approx(alone, abs=1e-5)


def test_kim_same_seed_same_result_other_seed_differs(data, kv):
    (X, y), (X_test, _) = data
    a = small_kim(embedding=kv, max_epochs=2).fit(X, y)
    assert a.bucket_by_length  # the default: length-bucketed batches
    b = small_kim(embedding=kv, max_epochs=2).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X_test), b.predict_proba(X_test))
    pd.testing.assert_frame_equal(a.history_, b.history_)
    c = small_kim(embedding=kv, max_epochs=2, random_state=1).fit(X, y)
    assert not np.allclose(a.predict_proba(X_test), c.predict_proba(X_test))


def test_kim_learns_with_either_batching_and_the_batches_change_the_weights(data, kv, kim):
    (X, y), (X_test, y_test) = data
    plain = small_kim(embedding=kv, dropout=0.0, bucket_by_length=False).fit(X, y)
    assert roc_auc_score(y_test, plain.predict_proba(X_test)[:, 1]) > 0.95
    assert not np.array_equal(plain.history_["train_loss"], kim.history_["train_loss"])
    assert plain.vocabulary_ == kim.vocabulary_


def test_kim_follows_sklearn_params_clone_and_pickle(kim):
    params = kim.get_params()
    assert "kernel_sizes" in params and "kernel_size" not in params
    assert "dense_units" not in params and "pool_size" not in params
    assert params["n_filters"] == 8 and params["batch_size"] == 32
    assert params["bucket_by_length"] is True
    assert KimCNNClassifier().get_params()["bucket_by_length"] is True
    assert CNNTextClassifier().get_params()["bucket_by_length"] is False
    fresh = clone(kim)
    assert isinstance(fresh, KimCNNClassifier) and not hasattr(fresh, "model_")
    fresh.set_params(kernel_sizes=(2, 7), embedding="glove-6b-50d", bucket_by_length=False)
    assert clone(fresh).get_params()["kernel_sizes"] == (2, 7)
    assert clone(fresh).get_params()["bucket_by_length"] is False
    texts = ["you idiot", "so nice", ""]
    restored = pickle.loads(pickle.dumps(kim))
    np.testing.assert_array_equal(restored.predict_proba(texts), kim.predict_proba(texts))


def test_kim_is_still_reachable_from_classifiers():
    from nlpbias.models.classifiers import KimCNNClassifier as FromClassifiers

    assert FromClassifiers is KimCNNClassifier
    assert "KimCNNClassifier" in classifiers.__all__ and "KimCNNClassifier" in dir(classifiers)
    made = make_classifier("kim", n_filters=5, embedding="glove-6b-50d")
    assert isinstance(made, KimCNNClassifier) and made.get_params()["n_filters"] == 5
    with pytest.raises(AttributeError, match="no attribute 'KimCNN'"):
        classifiers.KimCNN  # noqa: B018


def test_kim_other_widths_and_trainable_embedding(data):
    (X, y), (X_test, y_test) = data
    clf = small_kim(kernel_sizes=[2, 7], max_epochs=6).fit(X, y)
    assert [c.kernel_size[0] for c in clf.model_.convs] == [2, 7]
    assert clf.model_.embedding.weight.requires_grad
    assert roc_auc_score(y_test, clf.predict_proba(X_test)[:, 1]) > 0.9
    assert clf.predict_proba(["idiot", ""]).shape == (2, 2)  # shorter than width 7


def test_kim_bad_params_are_one_line_errors(data, one_line):
    (X, y), _ = data
    for kw, words in [
        (dict(kernel_sizes=()), "kernel_sizes must be"),
        (dict(kernel_sizes="345"), "kernel_sizes must be"),
        (dict(kernel_sizes=(3, 0)), "each of kernel_sizes"),
        (dict(kernel_sizes=(3, 2.5)), "each of kernel_sizes"),
        (dict(n_filters=0), "n_filters"),
        (dict(dropout=1.0), "dropout"),
        (dict(batch_size=0), "batch_size"),
        (dict(bucket_by_length=1), "bucket_by_length must be True or False"),
    ]:
        with pytest.raises((ValueError, TypeError)) as err:
            small_kim(**kw).fit(X[:20], y[:20])
        assert words in one_line(err)
