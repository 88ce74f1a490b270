"""Tests for models.cnn and .classifiers (tiny data and networks: ~1 s each)."""

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

from nlpbias.models.classifiers import linear_baseline, make_classifier
from nlpbias.models.cnn import PAD, UNK, CNNTextClassifier
from nlpbias.models.cnn import _epoch_batches as epoch_batches

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


def test_a_given_validation_set_is_used_and_kept_out_of_training_and_vocabulary(data):
    (X, y), (Xv, yv) = data
    kw = dict(max_epochs=4, validation_fraction=0.3)
    clf = small(**kw).fit(X, y, validation=(Xv, yv))
    # the loss it stops on is the given set's: recompute it from the restored best weights
    best = clf.history_.loc[clf.history_["epoch"] == clf.best_epoch_, "val_loss"].item()
    p = np.clip(clf.predict_proba(Xv)[:, 1], 1e-7, 1 - 1e-7)
    assert best == pytest.approx(-np.mean(yv * np.log(p) + (1 - yv) * np.log(1 - p)), rel=1e-4)
    # validation_fraction is ignored: nothing is held out of X, so the run differs from one
    # that holds out 30 %, and flipping the validation labels changes which epoch is best
    held_out = small(**kw).fit(X, y)
    assert not np.array_equal(clf.predict_proba(X), held_out.predict_proba(X))
    flipped = small(**kw).fit(X, y, validation=(Xv, 1 - yv))
    assert flipped.history_["val_loss"].iloc[0] > clf.history_["val_loss"].iloc[0]
    # words seen only in the validation texts are not in the vocabulary
    only_val = small(**kw).fit(X, y, validation=(["zebra " + t for t in Xv], yv))
    assert "zebra" not in only_val.vocabulary_
    # same inputs, same model
    again = small(**kw).fit(X, y, validation=(Xv, yv))
    np.testing.assert_array_equal(clf.predict_proba(Xv), again.predict_proba(Xv))


def test_a_bad_validation_set_is_refused(data):
    (X, y), (Xv, yv) = data
    with pytest.raises(ValueError, match="validation has 100 texts but 99 labels"):
        small().fit(X, y, validation=(Xv, yv[:99]))
    with pytest.raises(ValueError, match=r"validation labels \[7\] are not among"):
        small().fit(X, y, validation=(Xv, np.where(yv == 1, 7, 0)))
    with pytest.raises(ValueError, match="validation has no texts"):
        small().fit(X, y, validation=([], []))


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
    assert params["bucket_by_length"] is False  # default: the batches of earlier results
    bucketed = clone(fresh.set_params(bucket_by_length=True))
    assert bucketed.get_params()["bucket_by_length"] is True
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
        (dict(bucket_by_length="yes"), "bucket_by_length must be True or False"),
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
    assert "kind must be one of ['cnn', 'kim', 'linear']" in one_line(err)
    with pytest.raises(ValueError) as err:
        linear_baseline(C=0)
    assert "C must be" in one_line(err)


# ----------------------------------------------------------------------------- batches
def seeded(seed: int = 0) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


@pytest.mark.parametrize("bucket", [False, True])
def test_epoch_batches_cover_every_training_row_once_per_epoch(bucket):
    indices = np.array([17, 3, 9, 0, 12, 5, 20, 8, 1, 14, 6])  # a training subset of 21 rows
    lengths = np.random.default_rng(0).integers(0, 30, size=21)
    gen = seeded()
    epochs = [
        epoch_batches(
            indices, lengths, batch_size=3, generator=gen, bucket_by_length=bucket, chunk_batches=2
        )
        for _ in range(3)
    ]
    for batches in epochs:
        assert sorted(np.concatenate(batches).tolist()) == sorted(indices.tolist())
        assert sorted(len(b) for b in batches) == [2, 3, 3, 3]  # 11 rows: one short batch
    assert [b.tolist() for b in epochs[0]] != [b.tolist() for b in epochs[1]]  # reshuffled
    again = epoch_batches(
        indices, lengths, batch_size=3, generator=seeded(), bucket_by_length=bucket, chunk_batches=2
    )
    assert [b.tolist() for b in again] == [b.tolist() for b in epochs[0]]  # seeded


def test_epoch_batches_without_bucketing_are_the_plain_shuffled_slices():
    indices = np.arange(10, 30)
    batches = epoch_batches(indices, np.ones(30, dtype=int), batch_size=6, generator=seeded(4))
    perm = indices[torch.randperm(20, generator=seeded(4)).numpy()]  # the loop before bucketing
    assert [b.tolist() for b in batches] == [perm[i : i + 6].tolist() for i in range(0, 20, 6)]


def test_epoch_batches_sort_each_chunk_by_length_then_shuffle_the_batches():
    lengths = np.arange(100, 0, -1)  # all distinct, so each chunk's batches are determined
    batches = epoch_batches(
        np.arange(100), lengths, batch_size=4, generator=seeded(7),
        bucket_by_length=True, chunk_batches=5,
    )  # fmt: skip
    perm = torch.randperm(100, generator=seeded(7)).numpy()  # the same first draw
    expected = set()
    for c in range(0, 100, 20):  # chunks of 5 batches x 4 rows of the shuffled rows
        chunk = sorted(perm[c : c + 20].tolist(), key=lambda row: lengths[row])
        expected |= {frozenset(chunk[b : b + 4]) for b in range(0, 20, 4)}
    assert {frozenset(b.tolist()) for b in batches} == expected
    for b in batches:  # rows inside a batch are in length order
        assert lengths[b].tolist() == sorted(lengths[b].tolist())
    first_rows = [min(b.tolist(), key=lambda row: lengths[row]) for b in batches]
    by_chunk = [
        next(c for c in range(5) if row in perm[20 * c : 20 * c + 20]) for row in first_rows
    ]
    assert by_chunk != sorted(by_chunk)  # batch order is shuffled across chunks


def test_bucketing_cuts_the_padding_of_uneven_texts():
    lengths = np.random.default_rng(1).geometric(0.08, size=2000)  # tweet-like: mean ~12
    cells = {}
    for bucket in (False, True):
        batches = epoch_batches(
            np.arange(2000), lengths, batch_size=50, generator=seeded(), bucket_by_length=bucket
        )
        cells[bucket] = sum(len(b) * lengths[b].max() for b in batches)
    assert cells[True] < 0.6 * cells[False]
    assert cells[True] >= lengths.sum()


def test_bucketed_fit_is_seeded_and_changes_only_the_batches(data):
    (X, y), (X_test, _) = data
    a = small(bucket_by_length=True, max_epochs=3).fit(X, y)
    b = small(bucket_by_length=True, max_epochs=3).fit(X, y)
    np.testing.assert_array_equal(a.predict_proba(X_test), b.predict_proba(X_test))
    pd.testing.assert_frame_equal(a.history_, b.history_)
    plain = small(max_epochs=3).fit(X, y)
    assert not np.array_equal(a.history_["train_loss"], plain.history_["train_loss"])
    assert a.vocabulary_ == plain.vocabulary_  # same vocabulary and split, other batches
