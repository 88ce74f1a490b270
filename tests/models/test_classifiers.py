"""Tests for nlpbias.models.classifiers (tiny data, tiny networks: each test takes ~1 s)."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
import torch
from gensim.models import KeyedVectors
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.metrics import roc_auc_score
from sklearn.pipeline import Pipeline

from nlpbias.models.classifiers import (
    PAD,
    UNK,
    CNNTextClassifier,
    KimCNNClassifier,
    linear_baseline,
    make_classifier,
)

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


def small(**kw) -> CNNTextClassifier:
    params = dict(
        n_filters=8,
        dense_units=8,
        batch_size=32,
        max_epochs=8,
        learning_rate=0.01,
        random_state=0,
        show_progress=False,
        device="cpu",
    )
    return CNNTextClassifier(**(params | kw))


@pytest.fixture(scope="module")
def data():
    return toy(240, 1), toy(100, 2)


@pytest.fixture(scope="module")
def kv():
    """8-d vectors for every toy word but 'trash' (so one vocabulary word is missing).

    Like real word vectors, they carry meaning: coordinate 0 is +3 for insults, -3 for nice
    words and 0 for fillers; the rest is noise.
    """
    words = [w for w in TOXIC + NICE + FILLER if w != "trash"]
    vectors = np.random.default_rng(3).normal(size=(len(words), 8)).astype(np.float32)
    vectors[:, 0] = [3.0 if w in TOXIC else -3.0 if w in NICE else 0.0 for w in words]
    out = KeyedVectors(vector_size=8)
    out.add_vectors(words, vectors)
    return out


@pytest.fixture(scope="module")
def fitted(data):
    (X, y), _ = data
    return small().fit(X, y)


# ----------------------------------------------------------------------------- learning
def test_learns_a_separable_toy_task_with_a_trainable_embedding(data, fitted):
    _, (X_test, y_test) = data
    proba = fitted.predict_proba(X_test)
    assert proba.shape == (100, 2)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert roc_auc_score(y_test, proba[:, 1]) > 0.95
    assert (fitted.predict(X_test) == y_test).mean() > 0.9
    np.testing.assert_allclose(
        proba[:, 1], 1 / (1 + np.exp(-fitted.decision_function(X_test))), rtol=1e-6
    )


def test_learns_with_frozen_vectors_which_stay_unchanged(data, kv):
    (X, y), (X_test, y_test) = data
    clf = small(embedding=kv, missing_vectors="zeros").fit(X, y)
    assert roc_auc_score(y_test, clf.predict_proba(X_test)[:, 1]) > 0.95
    weight = clf.model_.embedding.weight
    assert not weight.requires_grad
    for word, row in clf.vocabulary_.items():
        expected = kv[word] if word in kv else np.zeros(8, dtype=np.float32)
        np.testing.assert_array_equal(weight[row].detach().numpy(), expected)
    assert clf.embedding_coverage_ == pytest.approx(15 / 16)  # 16 toy words, 'trash' missing


def test_missing_words_get_seeded_random_vectors_by_default(data, kv):
    (X, y), _ = data
    a = small(embedding=kv, max_epochs=1).fit(X, y)
    b = small(embedding=kv, max_epochs=1).fit(X, y)
    row = a.vocabulary_["trash"]
    vec = a.model_.embedding.weight[row].detach().numpy()
    assert np.abs(vec).sum() > 0
    np.testing.assert_array_equal(vec, b.model_.embedding.weight[row].detach().numpy())
    for token in (PAD, UNK):
        assert not a.model_.embedding.weight[a.vocabulary_[token]].any()


def test_trainable_embedding_learns_but_pad_row_stays_zero(fitted):
    weight = fitted.model_.embedding.weight
    assert weight.requires_grad
    assert not weight[0].any()
    assert weight.shape == (len(fitted.vocabulary_), 50)


# ----------------------------------------------------------------------------- determinism
def test_same_seed_same_probabilities_other_seed_differs(data, fitted):
    (X, y), (X_test, _) = data
    again = small().fit(X, y)
    np.testing.assert_array_equal(fitted.predict_proba(X_test), again.predict_proba(X_test))
    pd.testing.assert_frame_equal(fitted.history_, again.history_)
    other = small(random_state=1).fit(X, y)
    assert not np.allclose(fitted.predict_proba(X_test), other.predict_proba(X_test))


def test_fit_leaves_global_torch_state_alone(data):
    (X, y), _ = data
    threads = torch.get_num_threads()
    state = torch.random.get_rng_state()
    deterministic = torch.are_deterministic_algorithms_enabled()
    small(max_epochs=1, n_threads=1).fit(X[:60], y[:60])
    assert torch.equal(state, torch.random.get_rng_state())
    assert torch.get_num_threads() == threads
    assert torch.are_deterministic_algorithms_enabled() == deterministic


def test_score_of_a_text_does_not_depend_on_its_batch(fitted):
    text = "you are a moron"
    alone = fitted.predict_proba([text])[0, 1]
    long_text = " ".join(["really"] * 40 + ["nice"])
    batch = fitted.predict_proba([long_text, text, "", "kind"])[1, 1]
    assert batch == pytest.approx(alone, abs=1e-6)


# ----------------------------------------------------------------------------- early stopping
def test_early_stopping_restores_the_best_epoch(data):
    (X, _), _ = data
    noise = np.random.default_rng(5).integers(0, 2, size=len(X))  # labels with no signal
    kw = dict(max_epochs=30, patience=2, learning_rate=0.03, validation_fraction=0.3)
    stopped = small(**kw).fit(X, noise)
    hist = stopped.history_
    assert list(hist.columns) == ["epoch", "train_loss", "val_loss"]
    assert hist["epoch"].tolist() == list(range(1, len(hist) + 1))
    assert stopped.best_epoch_ == hist.loc[hist["val_loss"].idxmin(), "epoch"]
    assert len(hist) == stopped.best_epoch_ + 2 < 30  # stopped after `patience` worse epochs
    # Same seed, stopped at the best epoch: same trajectory, so the same weights.
    at_best = small(**(kw | {"max_epochs": stopped.best_epoch_})).fit(X, noise)
    np.testing.assert_array_equal(stopped.predict_proba(X), at_best.predict_proba(X))
    # The last epoch's weights differ from them (so the restore is what made them equal).
    assert hist["val_loss"].iloc[-1] > hist["val_loss"].min()


def test_no_validation_runs_all_epochs_with_nan_val_loss(data):
    (X, y), _ = data
    clf = small(validation_fraction=0, max_epochs=3).fit(X[:60], y[:60])
    assert len(clf.history_) == 3 and clf.best_epoch_ == 3
    assert clf.history_["val_loss"].isna().all()


# ----------------------------------------------------------------------------- vocabulary
def test_vocabulary_keeps_the_most_frequent_words_ties_alphabetical():
    X = ["b b b a", "a c", "d d c", "e"]  # counts: b 3, a 2, c 2, d 2, e 1
    clf = small(vocab_size=3, max_epochs=1, validation_fraction=0).fit(X, [0, 1, 0, 1])
    assert clf.vocabulary_ == {PAD: 0, UNK: 1, "b": 2, "a": 3, "c": 4}


def test_unknown_and_capped_words_map_to_unk(data):
    (X, y), _ = data
    X = [*X, "zebra zebra"]  # 'zebra' is in training but below the vocabulary cap
    clf = small(vocab_size=16, max_epochs=2).fit(X, [*y, 1])
    assert "zebra" not in clf.vocabulary_ and len(clf.vocabulary_) == 18
    p = clf.predict_proba(["you zebra", "you quokka", "you wombat", "you nice", "you"])[:, 1]
    assert p[0] == p[1] == p[2]
    assert p[3] != p[0]
    assert p[4] != p[0]  # an unknown word is read as <unk>, not dropped


def test_max_length_keeps_the_first_tokens(data, fitted):
    (X, y), _ = data
    clf = small(max_length=2, max_epochs=2).fit(X, y)
    p = clf.predict_proba(["you are idiot", "you are nice", "you idiot"])[:, 1]
    assert p[0] == p[1]  # only "you are" is read
    assert p[2] != p[0]
    p = fitted.predict_proba(["you are idiot", "you are nice"])[:, 1]  # max_length=250
    assert p[0] > 0.5 > p[1]


def test_string_labels_and_predict_returns_them(data):
    (X, y), (X_test, y_test) = data
    names = np.array(["ok", "toxic"])
    clf = small(max_epochs=3).fit(X, names[y])
    assert clf.classes_.tolist() == ["ok", "toxic"]
    assert set(clf.predict(X_test)) <= {"ok", "toxic"}


# ----------------------------------------------------------------------------- sklearn API
def test_clone_and_params_follow_sklearn(fitted):
    params = fitted.get_params()
    assert params["n_filters"] == 8 and params["max_length"] == 250
    fresh = clone(fitted)
    assert fresh.get_params() == params
    assert not hasattr(fresh, "model_")
    fresh.set_params(dropout=0.5, embedding="glove-6b-50d")
    assert clone(fresh).get_params()["embedding"] == "glove-6b-50d"
    assert CNNTextClassifier().get_params()["n_conv_layers"] == 3
    restored = pickle.loads(pickle.dumps(fitted))  # what joblib caching needs
    texts = ["you idiot", "so nice"]
    np.testing.assert_array_equal(restored.predict_proba(texts), fitted.predict_proba(texts))


def test_errors_are_one_line(data, one_line):
    (X, y), _ = data
    with pytest.raises(NotFittedError):
        small().predict_proba(["hello"])
    cases = [
        (ValueError, dict(X=X[:10], y=[1] * 10), "two classes"),
        (ValueError, dict(X=[], y=[]), "empty"),
        (ValueError, dict(X=X[:10], y=y[:9]), "one label per text"),
        (ValueError, dict(X=X[:2], y=[0, None]), "missing"),
        (TypeError, dict(X="you idiot", y=[1]), "not one string"),
        (TypeError, dict(X=["ok", None], y=[0, 1]), "item 1"),
        (ValueError, dict(X=X[:4], y=y[:4]), "validation_fraction"),
    ]
    for exc, kw, words in cases:
        with pytest.raises(exc) as err:
            small().fit(kw["X"], kw["y"])
        assert words in one_line(err)
    for kw, words in [
        (dict(vocab_size=0), "vocab_size"),
        (dict(dropout=1.0), "dropout"),
        (dict(learning_rate=-1), "learning_rate"),
        (dict(missing_vectors="mean"), "missing_vectors"),
        (dict(embedding="word2vec"), "embedding name"),
        (dict(embedding=42), "embedding must be"),
    ]:
        with pytest.raises((ValueError, TypeError)) as err:
            small(**kw).fit(X[:20], y[:20])
        assert words in one_line(err)


# ----------------------------------------------------------------------------- linear
def test_linear_baseline_learns_and_factory_builds_both(data, one_line):
    (X, y), (X_test, y_test) = data
    pipe = linear_baseline(random_state=0)
    assert isinstance(pipe, Pipeline)
    assert pipe.named_steps["tfidf"].ngram_range == (1, 2)
    pipe.fit(X, y)
    assert roc_auc_score(y_test, pipe.predict_proba(X_test)[:, 1]) > 0.95
    assert "you are" in pipe.named_steps["tfidf"].vocabulary_  # project tokens, bigrams
    assert isinstance(make_classifier("cnn", vocab_size=5), CNNTextClassifier)
    assert make_classifier("linear", max_features=7).named_steps["tfidf"].max_features == 7
    with pytest.raises(ValueError) as err:
        make_classifier("svm")
    assert "'cnn', 'kim' or 'linear'" in one_line(err)
    with pytest.raises(ValueError) as err:
        linear_baseline(C=0)
    assert "C must be" in one_line(err)


# ----------------------------------------------------------------------------- Kim-CNN
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
    b = small_kim(embedding=kv, max_epochs=2).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X_test), b.predict_proba(X_test))
    pd.testing.assert_frame_equal(a.history_, b.history_)
    c = small_kim(embedding=kv, max_epochs=2, random_state=1).fit(X, y)
    assert not np.allclose(a.predict_proba(X_test), c.predict_proba(X_test))


def test_kim_follows_sklearn_params_clone_and_pickle(kim):
    params = kim.get_params()
    assert "kernel_sizes" in params and "kernel_size" not in params
    assert "dense_units" not in params and "pool_size" not in params
    assert params["n_filters"] == 8 and params["batch_size"] == 32
    fresh = clone(kim)
    assert isinstance(fresh, KimCNNClassifier) and not hasattr(fresh, "model_")
    fresh.set_params(kernel_sizes=(2, 7), embedding="glove-6b-50d")
    assert clone(fresh).get_params()["kernel_sizes"] == (2, 7)
    texts = ["you idiot", "so nice", ""]
    restored = pickle.loads(pickle.dumps(kim))
    np.testing.assert_array_equal(restored.predict_proba(texts), kim.predict_proba(texts))
    made = make_classifier("kim", n_filters=5, embedding="glove-6b-50d")
    assert isinstance(made, KimCNNClassifier) and made.get_params()["n_filters"] == 5


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
    ]:
        with pytest.raises((ValueError, TypeError)) as err:
            small_kim(**kw).fit(X[:20], y[:20])
        assert words in one_line(err)
