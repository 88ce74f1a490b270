"""GloVe (Pennington et al. 2014), our own: the loss, its per-row derivatives, AdaGrad training.

Written so that Brunet et al.'s (2019) influence analysis
(:mod:`nlpbias.studies.perturbation.influence`) can look inside: the co-occurrence matrix is built
from *documents* whose contributions can be recomputed one by one, and the fitted model exposes its
loss and the gradient and Hessian of the loss in one word vector.

Definitions (the notation of Brunet et al. and of the book's perturbation chapter; the
vocabulary, the documents and ``X`` come from :mod:`nlpbias.studies.perturbation.cooccurrence`
and are re-exported here)

- Vocabulary: the words with at least ``min_count`` occurrences (optionally only the
  ``max_size`` most frequent), ordered by count (descending), ties by the word. Out-of-vocabulary
  tokens are **removed before windowing**, so distances count in-vocabulary words only (as the
  reference ``cooccur.c`` does).
- Co-occurrence: symmetric, window 8, each pair of tokens ``d ≤ window`` positions apart adds
  ``1/d`` to ``X[a, b]`` and to ``X[b, a]``. Windows never cross a document boundary, so
  ``X = Σ_k X^(k)`` holds exactly over the documents ``k`` (:func:`document_rows`).
- Loss: ``L(X) = Σ_{ij: X_ij > 0} f(X_ij) (w_iᵀu_j + b_i + c_j − log X_ij)²`` with
  ``f(x) = min(1, (x / x_max)^α)``, ``x_max = 100``, ``α = 0.75`` (:func:`glove_weight`).
  ``W`` (word vectors) and ``U`` (context vectors) are separate; the embedding used for bias
  measurement is ``W`` (Brunet et al.'s choice).
- Per-row derivatives with ``U``, ``b``, ``c`` fixed:
  ``∇_{w_i} L = 2 Σ_j f(X_ij) e_ij u_j`` and ``H_i = 2 Σ_j f(X_ij) u_j u_jᵀ`` where ``e_ij`` is the
  residual in the loss (:meth:`GloVe.row_gradient`, :meth:`GloVe.row_hessian`).

Training (:class:`GloVe`)

- Initialisation as the reference ``glove.c``: every entry of ``W``, ``U``, ``b``, ``c`` drawn
  uniformly from ``[−0.5, 0.5) / vector_size``, from ``numpy.random.default_rng(random_state)``.
  It depends only on ``(random_state, V, vector_size)``, so refitting on a perturbed matrix with
  the same seed starts from the same point ("retrain from the same initialisation").
- Each epoch visits the non-zero entries of ``X`` once in a seeded random order, in mini-batches
  of ``batch_size`` entries. The order sorts the entries by a hash of (seed, epoch, ``i``,
  ``j``), so it does not depend on which other entries exist: a refit after removing documents
  visits the remaining entries in the same relative order (less noise in retraining checks).
- AdaGrad as ``glove.c`` applies it to each entry: with ``g`` the gradient of ``½ f e²``
  (clipped to ``[−100, 100]`` per element) scaled by the learning rate, ``θ −= g / √G`` and then
  ``G += g²``, with ``G`` starting at 1. Within a batch the entries' steps (and squares) are
  summed per row, all computed from the parameters at the start of the batch, as if the
  batch's entries were processed by parallel Hogwild threads. Note that ``G`` accumulates the
  *scaled* gradient: with ``learning_rate = 0.05`` the steps stay close to plain SGD for many
  epochs. (Accumulating the unscaled gradient, as textbook AdaGrad does, shrinks the steps
  about 400 times sooner and leaves the vectors far from converged after 15 epochs.)
- ``loss_`` holds ``L`` (the definition above, without the ½) summed over the batches of each
  epoch, computed before each batch's update.
- Two engines run these epochs: the numpy reference (a batch is a few vectorised expressions and
  sparse products) and compiled loops (:mod:`nlpbias.studies.perturbation.kernels`, numba, 4.7x
  faster on the ``paper`` matrix). They give bit-identical parameters and losses.

Not implemented: the reference's Hogwild threads (ours is deterministic) and its option to
save ``W + U``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from nlpbias.core.checks import check_choice, check_int, check_number
from nlpbias.core.progress import progress
from nlpbias.studies.perturbation import kernels
from nlpbias.studies.perturbation.cooccurrence import (
    Corpus,
    Vocabulary,
    build_vocabulary,
    cooccurrence,
    document_rows,
    encode_corpus,
)

__all__ = [
    "Corpus",
    "GloVe",
    "Vocabulary",
    "build_vocabulary",
    "cooccurrence",
    "document_rows",
    "encode_corpus",
    "glove_weight",
]

logger = logging.getLogger(__name__)


# --------------------------------------------------------------------------- the model


def glove_weight(x: Any, *, x_max: float = 100.0, alpha: float = 0.75) -> np.ndarray:
    """GloVe's weighting ``f(x) = min(1, (x / x_max) ** alpha)`` (``f(0) = 0``).

    Examples
    --------
    >>> glove_weight([0, 50, 100, 400]).round(3).tolist()
    [0.0, 0.595, 1.0, 1.0]
    """
    x = np.asarray(x, dtype=np.float64)
    return np.minimum(1.0, (np.maximum(x, 0.0) / x_max) ** alpha)


def _as_cooc(X: Any) -> sp.csr_matrix:
    if not sp.issparse(X):
        raise TypeError(
            f"X must be a scipy.sparse co-occurrence matrix, got {type(X).__name__}; "
            "build one with nlpbias.studies.perturbation.glove.cooccurrence"
        )
    X = sp.csr_matrix(X, dtype=np.float64)
    if X.shape[0] != X.shape[1]:
        raise ValueError(f"X must be square (V x V), got shape {X.shape}")
    if X.nnz and (not np.isfinite(X.data).all() or X.data.min() < 0):
        raise ValueError("X must hold finite, non-negative co-occurrences")
    if not X.has_canonical_format or (X.data == 0).any():
        # sorted, summed indices and no stored zeros, on a copy (the caller's X is not touched)
        X = X.copy()
        X.sum_duplicates()
        X.eliminate_zeros()
    if X.nnz == 0:
        raise ValueError("X has no co-occurrences; the corpus is empty or the window too small")
    return X


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser, elementwise on uint64 (wrapping arithmetic)."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _entry_order(entry: np.ndarray, seed: int, epoch: int) -> np.ndarray:
    """Sort keys of the entries for one epoch: a hash of (seed, epoch, entry identity).

    An entry's key does not depend on which other entries exist, so after removing documents
    the remaining entries are visited in the same relative order as before: refitting a
    perturbed matrix follows the original run as closely as possible.
    """
    with np.errstate(over="ignore"):
        return _splitmix64(entry.astype(np.uint64) ^ _epoch_salt(seed, epoch))


def _epoch_salt(seed: int, epoch: int) -> np.uint64:
    """The hash salt of one epoch's entry order (both engines)."""
    return _splitmix64(np.array([seed * 1_000_003 + epoch], dtype=np.uint64))[0]


class GloVe:
    """GloVe word vectors fitted with mini-batch AdaGrad (see the module docstring).

    Parameters
    ----------
    vector_size : int, default 50
    x_max, alpha : float, default 100 and 0.75
        The weighting function :func:`glove_weight`.
    learning_rate : float, default 0.05
    epochs : int, default 25
    batch_size : int, default 8192
        Non-zero entries per AdaGrad step.
    random_state : int, default 0
        Seeds the initialisation and the order of the entries.
    engine : {"auto", "numba", "numpy"}, default "auto"
        How the epochs run: compiled loops (:mod:`~nlpbias.studies.perturbation.kernels`)
        or the numpy reference. Both give bit-identical results; ``"auto"`` is ``"numba"``
        where numba is installed.
    show_progress : bool, default True

    Attributes
    ----------
    W_, U_ : numpy.ndarray of float32, shape (V, vector_size)
        Word and context vectors.
    b_, c_ : numpy.ndarray of float32, shape (V,)
        Word and context biases.
    loss_ : list of float
        ``L`` summed over each epoch's batches.
    fit_time_ : float
        Seconds spent in :meth:`fit`.

    Examples
    --------
    >>> docs = [["red", "apple", "red", "cherry"], ["blue", "sky", "blue", "sea"]] * 20
    >>> v = build_vocabulary(docs, min_count=1, max_size=None)
    >>> X = cooccurrence(encode_corpus(docs, v), window=2, show_progress=False)
    >>> m = GloVe(vector_size=4, epochs=50, show_progress=False).fit(X)
    >>> m.W_.shape, m.loss_[-1] < m.loss_[0]
    ((6, 4), True)
    """

    def __init__(
        self,
        vector_size: int = 50,
        *,
        x_max: float = 100.0,
        alpha: float = 0.75,
        learning_rate: float = 0.05,
        epochs: int = 25,
        batch_size: int = 8192,
        random_state: int = 0,
        engine: str = "auto",
        show_progress: bool = True,
    ) -> None:
        self.vector_size = vector_size
        self.x_max = x_max
        self.alpha = alpha
        self.learning_rate = learning_rate
        self.epochs = epochs
        self.batch_size = batch_size
        self.random_state = random_state
        self.engine = engine
        self.show_progress = show_progress

    def get_params(self) -> dict[str, Any]:
        """The constructor's arguments (scikit-learn convention).

        Examples
        --------
        >>> GloVe(vector_size=8).get_params()["vector_size"]
        8
        """
        keys = ("vector_size", "x_max", "alpha", "learning_rate", "epochs", "batch_size")
        return {k: getattr(self, k) for k in (*keys, "random_state", "engine", "show_progress")}

    def fitted_with(self, params: Mapping[str, Any]) -> bool:
        """Whether this model has the parameters ``params`` would give (seed and progress aside).

        A fit with the same parameters and seed is the same fit, so a caller that refits with
        ``params`` and this model's seed can use this model instead.

        Examples
        --------
        >>> GloVe(epochs=5, random_state=3).fitted_with({"epochs": 5})
        True
        >>> GloVe(epochs=5).fitted_with({"epochs": 6})
        False
        """
        drop = ("random_state", "show_progress")
        ref = {k: v for k, v in GloVe(**params).get_params().items() if k not in drop}
        return all(self.get_params()[k] == v for k, v in ref.items())

    # -- fitting

    def _check_params(self) -> None:
        check_int(self.vector_size, "vector_size", minimum=1)
        check_number(self.x_max, "x_max", low=0.0, low_open=True)
        check_number(self.alpha, "alpha", low=0.0, low_open=True)
        check_number(self.learning_rate, "learning_rate", low=0.0, low_open=True)
        check_int(self.epochs, "epochs", minimum=1)
        check_int(self.batch_size, "batch_size", minimum=1)
        check_int(self.random_state, "random_state", minimum=0)
        check_choice(self.engine, "engine", ("auto", "numba", "numpy"))
        if self.engine == "numba" and not kernels.AVAILABLE:
            raise ImportError("engine='numba' needs numba (pip install -r requirements.txt)")

    def _engine(self) -> str:
        """The engine that runs: ``engine``, with ``"auto"`` resolved."""
        if self.engine != "auto":
            return self.engine
        return "numba" if kernels.AVAILABLE else "numpy"

    def init_params(self, V: int) -> dict[str, np.ndarray]:
        """The initial ``W``, ``U``, ``b``, ``c`` for ``V`` words (depends only on the seed).

        Examples
        --------
        >>> a, b = GloVe(vector_size=3).init_params(5), GloVe(vector_size=3).init_params(5)
        >>> bool((a["W"] == b["W"]).all()), a["W"].shape, float(abs(a["W"]).max()) <= 0.5 / 3
        (True, (5, 3), True)
        """
        self._check_params()
        rng = np.random.default_rng(self.random_state)
        d = self.vector_size
        draw = lambda *shape: ((rng.random(shape) - 0.5) / d).astype(np.float32)  # noqa: E731
        return {"W": draw(V, d), "U": draw(V, d), "b": draw(V), "c": draw(V)}

    def fit(self, X: Any, y: None = None) -> GloVe:
        """Fit the vectors to a co-occurrence matrix ``X`` (V × V, sparse).

        Raises
        ------
        TypeError, ValueError
            ``X`` not sparse, not square, negative or empty; a bad parameter.
        FloatingPointError
            The loss diverged (lower ``learning_rate``).
        """
        X = _as_cooc(X)
        self._check_params()
        start = time.perf_counter()
        V = X.shape[0]
        coo = X.tocoo()  # row-major: entry order sorts by row
        rows, cols = coo.row.astype(np.int64), coo.col.astype(np.int64)
        logx = np.log(coo.data).astype(np.float32)
        fx = glove_weight(coo.data, x_max=self.x_max, alpha=self.alpha).astype(np.float32)
        params = self.init_params(V)
        G = {k: np.ones_like(v) for k, v in params.items()}
        lr, bs = np.float32(self.learning_rate), int(self.batch_size)
        if self._engine() == "numba":
            records = kernels.pack_entries(rows, cols, logx, fx)
            batches = np.empty_like(records)  # each epoch's batches, rewritten every epoch

            def epoch_loss(epoch: int) -> float:
                return self._numba_epoch(params, G, epoch, records, batches, lr, bs)
        else:
            entry = rows * V + cols  # an entry's identity, independent of the other entries

            def epoch_loss(epoch: int) -> float:
                return self._numpy_epoch(params, G, epoch, entry, rows, cols, logx, fx, lr, bs)

        self.loss_: list[float] = []
        bar = progress(range(self.epochs), enabled=self.show_progress, desc="GloVe", unit="epoch")
        for epoch in bar:
            total = epoch_loss(epoch)
            self.loss_.append(total)
            if not np.isfinite(total) or total > 10 * self.loss_[0]:
                raise FloatingPointError(
                    f"GloVe diverged (loss {total}); lower learning_rate (now {self.learning_rate})"
                )
            if hasattr(bar, "set_postfix"):
                bar.set_postfix(loss=f"{total:.4g}")
        self.W_, self.U_, self.b_, self.c_ = (params[k] for k in ("W", "U", "b", "c"))
        self.n_words_ = V
        self.fit_time_ = time.perf_counter() - start
        logger.info(
            "GloVe: V=%d, nnz=%d, d=%d, %d epochs in %.1f s, loss %.4g -> %.4g",
            V, X.nnz, self.vector_size, self.epochs, self.fit_time_, self.loss_[0], self.loss_[-1],
        )  # fmt: skip
        return self

    def _numpy_epoch(
        self,
        params: dict[str, np.ndarray],
        G: dict[str, np.ndarray],
        epoch: int,
        entry: np.ndarray,
        rows: np.ndarray,
        cols: np.ndarray,
        logx: np.ndarray,
        fx: np.ndarray,
        lr: np.float32,
        bs: int,
    ) -> float:
        """One epoch with the numpy reference (:meth:`_step` per batch); returns its loss."""
        perm = np.argsort(_entry_order(entry, self.random_state, epoch))
        total = 0.0
        for s in range(0, perm.size, bs):
            total += self._step(params, G, np.sort(perm[s : s + bs]), rows, cols, logx, fx, lr)
        return total

    def _numba_epoch(
        self,
        params: dict[str, np.ndarray],
        G: dict[str, np.ndarray],
        epoch: int,
        records: np.ndarray,
        batches: np.ndarray,
        lr: np.float32,
        bs: int,
    ) -> float:
        """One epoch with the compiled loops: the same batches and arithmetic as the reference.

        The dot products ``w_iᵀu_j`` and the loss stay numpy calls (``einsum``, ``dot``), so that
        their rounding is the reference's; see :mod:`~nlpbias.studies.perturbation.kernels`.
        """
        k = kernels
        W, U, b, c = params["W"], params["U"], params["b"], params["c"]
        salt = _epoch_salt(self.random_state, epoch)
        k.epoch_records(records, W.shape[0], salt, bs, batches)
        batches_float = batches.view(np.float32)
        m, d = min(bs, records.shape[0]), W.shape[1]
        bi, bj, order = (np.empty(m, np.int64) for _ in range(3))
        wi, uj = np.empty((m, d), np.float32), np.empty((m, d), np.float32)
        lx, fw, dot, diff, fdiff = (np.empty(m, np.float32) for _ in range(5))
        count = np.zeros(W.shape[0] + 1, np.int64)
        total = 0.0
        for s in range(0, records.shape[0], bs):
            n = min(bs, records.shape[0] - s)
            k.gather_rows(
                batches[s : s + n], batches_float[s : s + n], W, U, bi[:n], bj[:n], lx[:n],
                fw[:n], wi[:n], uj[:n],
            )  # fmt: skip
            np.einsum("nd,nd->n", wi[:n], uj[:n], out=dot[:n])
            k.adagrad_batch(
                W, U, b, c, G["W"], G["U"], G["b"], G["c"], bi[:n], bj[:n], wi[:n], uj[:n],
                dot[:n], lx[:n], fw[:n], lr, diff[:n], fdiff[:n], count, order[:n],
            )  # fmt: skip
            total += float(np.dot(fdiff[:n], diff[:n]))
        return total

    @staticmethod
    def _step(
        params: dict[str, np.ndarray],
        G: dict[str, np.ndarray],
        idx: np.ndarray,
        rows: np.ndarray,
        cols: np.ndarray,
        logx: np.ndarray,
        fx: np.ndarray,
        lr: np.float32,
    ) -> float:
        """One AdaGrad step on the entries ``idx`` (sorted, hence sorted by row); returns L."""
        W, U, b, c = params["W"], params["U"], params["b"], params["c"]
        bi, bj = rows[idx], cols[idx]
        wi, uj = np.take(W, bi, axis=0), np.take(U, bj, axis=0)
        diff = np.einsum("nd,nd->n", wi, uj) + b[bi] + c[bj] - logx[idx]
        fdiff = fx[idx] * diff
        loss = float(np.dot(fdiff, diff))
        gw = np.clip(fdiff[:, None] * uj, -100, 100, out=uj)
        gu = np.clip(fdiff[:, None] * wi, -100, 100, out=wi)
        gb = np.clip(fdiff, -100, 100)
        # Sum the gradients per row with a 0/1 sparse matrix (rows x entries): bi is sorted,
        # bj is sorted through an argsort that becomes the matrix's column indices.
        oj = np.argsort(bj, kind="stable")
        ones = np.ones(idx.size, dtype=np.float32)
        for key_v, key_b, keys, cols_of, gv in (
            ("W", "b", bi, np.arange(idx.size), gw),
            ("U", "c", bj[oj], oj, gu),
        ):
            starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
            ru = keys[starts]
            S = sp.csr_matrix(
                (ones, cols_of, np.r_[starts, idx.size]), shape=(starts.size, idx.size)
            )
            for key, g in ((key_v, gv), (key_b, gb)):
                g = lr * g  # glove.c scales the gradient by eta before it enters AdaGrad
                params[key][ru] -= (S @ g) / np.sqrt(G[key][ru])
                G[key][ru] += S @ (g * g)
        return loss

    # -- the loss and its derivatives in one word vector

    def check_matrix(self, X: Any) -> sp.csr_matrix:
        """``X`` as CSR after checking that the model is fitted and ``X`` matches its vocabulary."""
        if not hasattr(self, "W_"):
            raise RuntimeError("this GloVe model is not fitted yet; call fit(X) first")
        X = _as_cooc(X)
        if X.shape[0] != self.n_words_:
            raise ValueError(
                f"X is {X.shape[0]} x {X.shape[0]} but the model has {self.n_words_} words; "
                "pass the co-occurrence matrix of the same vocabulary"
            )
        return X

    def residuals(self, X: Any) -> sp.csr_matrix:
        """``e_ij = w_iᵀu_j + b_i + c_j − log X_ij`` on the non-zeros of ``X`` (CSR, float64)."""
        X = self.check_matrix(X)
        coo = X.tocoo()
        W, U = self.W_.astype(np.float64), self.U_.astype(np.float64)
        e = np.einsum("nd,nd->n", W[coo.row], U[coo.col])
        e += self.b_[coo.row].astype(np.float64) + self.c_[coo.col] - np.log(coo.data)
        return sp.csr_matrix((e, (coo.row, coo.col)), shape=X.shape)

    def loss(self, X: Any) -> float:
        """``L(X) = Σ f(X_ij) e_ij²`` over the non-zeros of ``X``."""
        X = self.check_matrix(X)
        e = self.residuals(X)
        return float((glove_weight(X.data, x_max=self.x_max, alpha=self.alpha) * e.data**2).sum())

    def row_gradient(self, X: Any, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """``∇_{w_i} L(X) = 2 Σ_j f(X_ij) e_ij u_j`` for each ``i`` in ``rows`` (U, b, c fixed).

        Returns
        -------
        numpy.ndarray of float64, shape (len(rows), vector_size)
        """
        X = self.check_matrix(X)
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        sub = X[rows]
        e = self.residuals(X)[rows]
        coef = sp.csr_matrix(
            (2 * glove_weight(sub.data, x_max=self.x_max, alpha=self.alpha) * e.data,
             sub.indices, sub.indptr),
            shape=sub.shape,
        )  # fmt: skip
        return np.asarray(coef @ self.U_.astype(np.float64))

    def row_hessian(self, X: Any, rows: Sequence[int] | np.ndarray) -> np.ndarray:
        """``H_i = 2 Σ_j f(X_ij) u_j u_jᵀ`` for each ``i`` in ``rows`` (U fixed).

        Returns
        -------
        numpy.ndarray of float64, shape (len(rows), vector_size, vector_size)
        """
        X = self.check_matrix(X)
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        U = self.U_.astype(np.float64)
        out = np.empty((rows.size, U.shape[1], U.shape[1]))
        for n, i in enumerate(rows):
            r = X[int(i)]
            Uj = U[r.indices]
            f = glove_weight(r.data, x_max=self.x_max, alpha=self.alpha)
            out[n] = 2.0 * (Uj * f[:, None]).T @ Uj
        return out

    def to_keyed_vectors(self, vocab: Vocabulary) -> Any:
        """The word vectors ``W`` as gensim ``KeyedVectors`` keyed by ``vocab``'s words."""
        from gensim.models import KeyedVectors

        if not hasattr(self, "W_"):
            raise RuntimeError("this GloVe model is not fitted yet; call fit(X) first")
        if len(vocab) != self.n_words_:
            raise ValueError(
                f"vocab has {len(vocab)} words but the model {self.n_words_}; pass its vocabulary"
            )
        kv = KeyedVectors(self.vector_size, count=0, dtype=np.float32)
        kv.add_vectors(list(vocab.words), self.W_.copy())
        for word, n in zip(vocab.words, vocab.counts.tolist(), strict=True):
            kv.set_vecattr(word, "count", n)
        return kv
