"""Attract-Repel (Mrkšić et al., 2017) re-purposed to debias or over-bias word embeddings.

Goldfarb-Tarrant et al. (2021) and Katô & Miyao (seed 001, Section 5, Appendix O) use
Attract-Repel to move the words of a WEAT-style word set: to **debias**, the *attract*
("synonym") pairs are ``T1 x A2  ∪  T2 x A1`` and the *repel* ("antonym") pairs
``T1 x A1  ∪  T2 x A2``; to **over-bias** the two are swapped. :func:`attract_repel` follows
the reference implementations (Mrkšić's TensorFlow ``attract-repel.py`` and Katô & Miyao's
PyTorch port ``attract-repel_new_pytorch.py``); every choice is listed here.

Constraints (:mod:`nlpbias.studies.intrinsic_extrinsic.attract_repel_pairs`)
    - A term is looked up as in :meth:`nlpbias.metrics.query.Query.vectors`: the exact key
      (lowercased first when ``lowercase=True``), else a multi-word term (split on spaces, or on
      ``_``) whose words are all in the vocabulary; its vector is the **mean** of its words'
      rows (Katô & Miyao average ``construction`` and ``worker``). Other terms are out of
      vocabulary: they are dropped and listed in a ``logging`` warning.
    - Pairs are (target, attribute); a pair of a term with itself is skipped, duplicates are
      kept once (in the order T1, T2 of the definition above), and an attract pair that is also
      a repel pair is removed from the attract pairs (as in both references).
      :func:`constraint_pairs` lists them.

Objective (per mini-batch ``B`` of pairs ``(x_l, x_r)`` of one kind)
    - Vectors are L2-normalised before every similarity: ``x = normalise(mean of rows)``.
    - **Negative examples** come from the batch: the ``2|B|`` words of the batch are compared
      by cosine; for an attract batch, each word's negative ``t`` is the *most similar* other
      word of the batch, for a repel batch the *least similar*, never the word's own position or
      its partner (another occurrence of the same word may be chosen, as in the references).
      Then, as the references' ``mix_sampling``, each negative is replaced, with probability
      1/2, by a random word of a random *other* pair of the batch.
    - Attract cost: ``relu(delta_sim + x_l·t_l − x_l·x_r) + relu(delta_sim + x_r·t_r − x_l·x_r)``;
      repel cost: ``relu(delta_ant − x_l·t_l + x_l·x_r) + relu(delta_ant − x_r·t_r + x_l·x_r)``.
      Gradients also flow into the negatives (they are rows of the same matrix).
    - Regularisation: ``reg * (½‖x_l − o_l‖² + ½‖x_r − o_r‖²)`` summed over the batch, where
      ``o`` is the **original, unnormalised** term vector (both references do so; its strength
      therefore depends on the norms of the input vectors). As in both references this scalar
      is added to each pair's cost before summing, i.e. it is **weighted by |B|**; kept so that
      ``reg`` means what it means in Katô & Miyao's grid ``{0.1, 0.05, 0.01}``.
    - Loss of a batch = sum over pairs. Gradients are clipped element-wise to ``[-2, 2]``;
      optimiser ``torch.optim.Adagrad(lr=learning_rate, initial_accumulator_value=0.1)``
      (TensorFlow's default accumulator, used by both references).

Schedule
    - Each epoch shuffles the attract pairs and the repel pairs, cuts each into batches and
      shuffles the order of all attract and repel batches together.
    - ``drop_last=True`` (the references): ``floor(n / batch_size)`` full batches per epoch; the
      ``n mod batch_size`` pairs left over after shuffling are not used in that epoch, and a kind
      with fewer than ``batch_size`` pairs is not used at all (a warning says so).
      ``drop_last=False``: every pair once per epoch, in ``ceil(n / batch_size)`` batches of
      nearly equal size (at least 2 pairs each, so a batch may exceed ``batch_size`` by one).
    - All randomness (pair order, batch order, mixed negatives) comes from one
      ``torch.Generator`` seeded by ``random_state``; no global random state is touched.

Output
    - A **new** gensim ``KeyedVectors`` with the same keys, order, dtype and per-key attributes
      (e.g. ``count``). Only the rows of words in at least one used pair change (for a
      multi-word term, the rows of its words); all other rows are copied bit for bit.
    - A changed row is the trained direction **rescaled to the row's input norm**, so only
      directions change. (The references instead write *every* vector L2-normalised; call
      ``out.unit_normalize_all()`` for that.)
    - ``out.ar_info``: a dict with the parameters, ``n_attract`` and ``n_repel`` (pairs used),
      ``batches_per_epoch``, ``oov`` (dropped terms), ``trained`` (keys of the trained rows),
      ``loss`` (mean batch loss per epoch) and ``seconds``.
"""

from __future__ import annotations

import logging
import math
import textwrap
import time
from typing import Any, Literal

import numpy as np
import torch
import torch.nn.functional as F
from gensim.models import KeyedVectors

from nlpbias.core.checks import check_bool, check_choice, check_int
from nlpbias.core.progress import progress
from nlpbias.core.repro import rng
from nlpbias.metrics.query import as_query
from nlpbias.models.encoders import resolve_device
from nlpbias.studies.intrinsic_extrinsic.attract_repel_pairs import (
    MODES,
    check_kv,
    constraint_pairs,
    term_pairs,
)

__all__ = ["attract_repel", "constraint_pairs"]

logger = logging.getLogger(__name__)

#: (embedding, word set, dropped terms) already reported in this process.
_REPORTED_OOV: set[tuple[int, str, tuple[str, ...]]] = set()


def _warn_oov_once(kv: KeyedVectors, name: str, oov: list[str], level: int) -> None:
    """Log the terms dropped from ``name`` once per embedding and process, wrapped to 72 columns.

    A sweep fits Attract-Repel many times on the same original embedding (once per setting), in
    each worker process; the same list of dropped terms would otherwise be repeated per fit, on a
    single line too wide for a notebook's output cell.
    """
    key = (id(kv), name, tuple(oov))
    if key in _REPORTED_OOV:
        return
    _REPORTED_OOV.add(key)
    text = (
        f"attract_repel: {len(oov)} term(s) of word set {name!r} not in the embedding, "
        f"dropped: {', '.join(oov)}"
    )
    logger.log(level, textwrap.fill(text, width=72, subsequent_indent="  ", break_long_words=False))


# --------------------------------------------------------------------------- checks


def _number(value: object, name: str, *, low: float, positive: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or value < low or (positive and value == low):
        bound = f"> {low:g}" if positive else f">= {low:g}"
        raise ValueError(f"{name} must be a finite number {bound}, got {value}")
    return value


def _seed(random_state: object) -> int:
    if isinstance(random_state, int | np.integer) and not isinstance(random_state, bool):
        rng(random_state)  # validates (non-negative)
        return int(random_state)
    return int(rng(random_state).integers(0, 2**63 - 1))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- optimisation


def _batches(n: int, batch_size: int, drop_last: bool) -> list[int]:
    """Sizes of the batches of one epoch for ``n`` pairs of one kind."""
    if n < 2:
        return []
    if drop_last:
        return [batch_size] * (n // batch_size)
    k = min(math.ceil(n / batch_size), n // 2)
    return [len(c) for c in np.array_split(np.arange(n), k)]


def _nearest(X: torch.Tensor, attract: bool) -> torch.Tensor:
    """Position of each row's negative example among the rows of ``X`` (pairs interleaved).

    ``X`` holds the normalised vectors of a batch as ``left0, right0, left1, right1, ...``. For
    an attract batch the negative of a row is the most similar other row, for a repel batch the
    least similar; a row's own position and its partner's never count. Ties: the first row.
    """
    dist = 1.0 - X @ X.T  # cosine distance in [0, 2]
    pos = torch.arange(X.shape[0], device=X.device)
    fill = 2.0 if attract else 0.0
    dist[pos, pos] = fill
    dist[pos, pos ^ 1] = fill
    return dist.argmin(dim=1) if attract else dist.argmax(dim=1)


def _mix(batch: torch.Tensor, neg: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
    """Replace each negative, with probability 1/2, by a random word of another pair.

    Draws, in order: ``u = rand(b, 2)``, ``other = randint(0, b - 1, (b, 2))`` (shifted past the
    pair's own index), ``side = randint(0, 2, (b, 2))``; a negative is replaced where ``u >= 0.5``.
    """
    b, dev = batch.shape[0], batch.device
    u = torch.rand((b, 2), generator=gen).to(dev)
    other = torch.randint(0, b - 1, (b, 2), generator=gen).to(dev)
    other = other + (other >= torch.arange(b, device=dev)[:, None]).long()
    side = torch.randint(0, 2, (b, 2), generator=gen).to(dev)
    return torch.where(u >= 0.5, batch[other, side], neg)


class _Model:
    """The trainable rows of the constraint words and the batch loss."""

    def __init__(self, rows: np.ndarray, mean: torch.Tensor, device: torch.device, **hp: float):
        self.P = torch.nn.Parameter(torch.tensor(rows, dtype=torch.float64, device=device))
        self.mean = mean  # (n_terms, n_rows): a term's vector is the mean of its rows
        with torch.no_grad():
            self.orig = mean @ self.P  # original, unnormalised term vectors
        self.hp = hp

    def loss(self, batch: torch.Tensor, attract: bool, gen: torch.Generator) -> torch.Tensor:
        hp, b = self.hp, batch.shape[0]
        # Only the batch's terms are needed: every negative is a word of the batch. Their
        # vectors (mean of their rows, normalised) are computed alone, not all terms' vectors:
        # for sets expanded by neighbours (1,000+ terms) that was most of a batch's time. A term
        # vector is the same either way (a row of ``mean`` has 1-3 non-zero weights), so the
        # loss is that of computing every term, bit for bit; its gradient is too on the Xeon of
        # 2026-11-27, while on an AMD EPYC (Zen 5) the BLAS sums the backward product in another
        # order and a few entries differ in the last bit (<= 6e-17 in float64;
        # test_attract_repel.py; benchmarks/attract_repel_speed.py).
        terms, local = torch.unique(batch, return_inverse=True)  # batch == terms[local]
        V = F.normalize(self.mean[terms] @ self.P, dim=1)
        ids = local.reshape(-1)  # interleaved: left0, right0, left1, right1, ...
        with torch.no_grad():
            neg = ids[_nearest(V[ids], attract)].reshape(b, 2)
            neg = _mix(local, neg, gen)
        left, right = V[local[:, 0]], V[local[:, 1]]
        sim = (left * right).sum(1)
        sim_l = (left * V[neg[:, 0]]).sum(1)
        sim_r = (right * V[neg[:, 1]]).sum(1)
        if attract:
            cost = F.relu(hp["delta_sim"] + sim_l - sim) + F.relu(hp["delta_sim"] + sim_r - sim)
        else:
            cost = F.relu(hp["delta_ant"] - sim_l + sim) + F.relu(hp["delta_ant"] - sim_r + sim)
        o = self.orig[batch]
        reg = hp["reg"] * 0.5 * (((left - o[:, 0]) ** 2).sum() + ((right - o[:, 1]) ** 2).sum())
        return cost.sum() + b * reg  # reg broadcast over the batch, as in the references


def attract_repel(
    kv: KeyedVectors,
    wordset: Any,
    *,
    mode: Literal["debias", "overbias"] = "debias",
    delta_sim: float = 1.0,
    delta_ant: float = 0.0,
    reg: float = 0.05,
    batch_size: int = 50,
    epochs: int = 5,
    learning_rate: float = 0.05,
    random_state: None | int | np.random.Generator = 0,
    show_progress: bool = True,
    device: str | torch.device = "auto",
    lowercase: bool = True,
    drop_last: bool = True,
    warn_oov: bool = True,
) -> KeyedVectors:
    """Debias or over-bias an embedding with Attract-Repel on a word set's pairs.

    The constraints, objective, schedule and output are specified in the module docstring
    (:mod:`nlpbias.studies.intrinsic_extrinsic.attract_repel`).

    Parameters
    ----------
    kv : gensim KeyedVectors
        The embedding; it is not modified.
    wordset : Query or WordSet
        Targets ``T1, T2`` and attributes ``A1, A2``, e.g. ``load_wordset("winobias_occupations")``.
    mode : {"debias", "overbias"}, default "debias"
        Debias: attract ``T1 x A2 ∪ T2 x A1``, repel ``T1 x A1 ∪ T2 x A2``; over-bias: swapped.
    delta_sim, delta_ant : float >= 0, default 1.0 and 0.0
        Attract and repel margins (Katô & Miyao's grid: each in ``{0, 1}``).
    reg : float >= 0, default 0.05
        Regularisation constant λ (grid ``{0.1, 0.05, 0.01}``).
    batch_size : int >= 2, default 50
        Pairs per mini-batch (of one kind).
    epochs : int >= 1, default 5
    learning_rate : float > 0, default 0.05
        Adagrad step size.
    random_state : None, int or numpy.random.Generator, default 0
        Seeds the ``torch.Generator`` of all random choices.
    show_progress : bool, default True
        A progress bar over epochs (:func:`nlpbias.core.progress.progress`).
    device : str or torch.device, default "auto"
        CUDA when available, else CPU (:func:`nlpbias.models.encoders.resolve_device`). The
        random choices come from a CPU generator, so the batches are the same on every
        device; float64 sums on a GPU can differ from the CPU's in the last digits.
    lowercase : bool, default True
        Lowercase terms before lookup, for an embedding trained on a lower-cased corpus (the
        project's default, and
        :func:`nlpbias.studies.intrinsic_extrinsic.balancing.balance_corpus`'s); ``False`` for a
        cased one. Measure WEAT with the same setting.
    drop_last : bool, default True
        Use only full batches, as the references do; ``False`` uses every pair each epoch.
    warn_oov : bool, default True
        Log the terms not in the embedding as a warning (once per embedding, word set and
        process); ``False`` logs them at INFO, for a caller that reports ``ar_info["oov"]``
        itself (the intrinsic-vs-extrinsic sweep's :func:`~nlpbias.studies.
        intrinsic_extrinsic.correlation.dropped_text`).

    Returns
    -------
    gensim.models.KeyedVectors
        A new embedding with attribute ``ar_info`` (a dict; see the module docstring).

    Raises
    ------
    ValueError
        Bad parameter values, an unknown ``mode``, no usable pair (all OOV, or fewer than
        ``batch_size`` pairs of each kind with ``drop_last=True``), or a constraint word whose
        vector is zero or not finite.
    TypeError
        ``kv`` not a ``KeyedVectors``, ``wordset`` not a Query or WordSet, non-bool flags.

    Examples
    --------
    >>> from nlpbias.metrics.query import Query
    >>> q = Query((["doctor", "boss"], ["nurse", "maid"]), (["he", "man"], ["she", "woman"]))
    >>> kv = KeyedVectors(3)
    >>> kv.add_vectors(["doctor", "boss", "nurse", "maid", "he", "man", "she", "woman", "sea"],
    ...                np.random.default_rng(0).normal(size=(9, 3)))
    >>> out = attract_repel(kv, q, batch_size=4, epochs=20, show_progress=False)
    >>> out.ar_info["n_attract"], out.ar_info["n_repel"]
    (8, 8)
    >>> bool(out.similarity("doctor", "she") > kv.similarity("doctor", "she"))
    True
    >>> bool((out["sea"] == kv["sea"]).all())
    True
    """
    start = time.perf_counter()
    kv = check_kv(kv)
    check_choice(mode, "mode", MODES)
    hp = {
        "delta_sim": _number(delta_sim, "delta_sim", low=0.0),
        "delta_ant": _number(delta_ant, "delta_ant", low=0.0),
        "reg": _number(reg, "reg", low=0.0),
    }
    lr = _number(learning_rate, "learning_rate", low=0.0, positive=True)
    batch_size = check_int(batch_size, "batch_size", minimum=2)
    epochs = check_int(epochs, "epochs", minimum=1)
    for flag, name in (
        (show_progress, "show_progress"),
        (lowercase, "lowercase"),
        (drop_last, "drop_last"),
        (warn_oov, "warn_oov"),
    ):
        check_bool(flag, name)
    dev = resolve_device(device)
    seed = _seed(random_state)
    query = as_query(wordset)

    attract, repel, oov, names = term_pairs(query, kv.key_to_index, mode, lowercase)
    if oov:
        _warn_oov_once(kv, query.name, oov, logging.WARNING if warn_oov else logging.INFO)
    sizes = {
        "attract": _batches(len(attract), batch_size, drop_last),
        "repel": _batches(len(repel), batch_size, drop_last),
    }
    for kind, pairs in (("attract", attract), ("repel", repel)):
        if pairs and not sizes[kind]:
            why = "only one pair" if len(pairs) == 1 else f"{len(pairs)} < batch_size pairs"
            logger.warning("attract_repel: %s pairs unused (%s)", kind, why)
    if not sizes["attract"] and not sizes["repel"]:
        raise ValueError(
            f"attract_repel: no usable pair ({len(attract)} attract, {len(repel)} repel after "
            f"dropping {len(oov)} OOV term(s) of {query.name!r}); check the word set and "
            "lowercase=, or lower batch_size / pass drop_last=False"
        )

    # the trainable rows: every word of a term in a used pair
    used_pairs = (attract if sizes["attract"] else []) + (repel if sizes["repel"] else [])
    terms = list(dict.fromkeys(t for pair in used_pairs for t in pair))
    rows = sorted({i for t in terms for i in t})
    local = {r: j for j, r in enumerate(rows)}
    base = np.asarray(kv.vectors[rows], dtype=np.float64)
    norms = np.linalg.norm(base, axis=1)
    bad = [kv.index_to_key[r] for r, n in zip(rows, norms, strict=True) if not n > 0]
    bad += [kv.index_to_key[r] for r, v in zip(rows, base, strict=True) if not np.isfinite(v).all()]
    if bad:
        raise ValueError(
            f"attract_repel: the vectors of {sorted(set(bad))} are zero or not finite; "
            "remove these words from the word set"
        )
    mean = torch.zeros((len(terms), len(rows)), dtype=torch.float64)
    for j, t in enumerate(terms):
        for r in t:
            mean[j, local[r]] += 1.0 / len(t)
    term_id = {t: j for j, t in enumerate(terms)}
    pair_ids = {
        kind: torch.tensor([[term_id[a], term_id[b]] for a, b in pairs], dtype=torch.long)
        for kind, pairs in (("attract", attract), ("repel", repel))
        if sizes[kind]
    }
    model = _Model(base, mean.to(dev), dev, **hp)
    optimiser = torch.optim.Adagrad([model.P], lr=lr, initial_accumulator_value=0.1)
    gen = torch.Generator().manual_seed(seed)

    losses: list[float] = []
    bar = progress(range(epochs), enabled=show_progress, desc="attract-repel", unit="epoch")
    for _ in bar:
        batches: list[tuple[bool, torch.Tensor]] = []
        for kind, ids in pair_ids.items():
            order = ids[torch.randperm(len(ids), generator=gen)]
            cut = 0
            for size in sizes[kind]:
                batches.append((kind == "attract", order[cut : cut + size].to(dev)))
                cut += size
        total = 0.0
        for k in torch.randperm(len(batches), generator=gen).tolist():
            is_attract, batch = batches[k]
            optimiser.zero_grad()
            loss = model.loss(batch, is_attract, gen)
            loss.backward()
            torch.nn.utils.clip_grad_value_([model.P], 2.0)
            optimiser.step()
            total += float(loss.detach())
        losses.append(total / len(batches))
        bar.set_postfix(loss=f"{losses[-1]:.4g}")

    trained = model.P.detach().cpu().numpy()
    new_rows = trained / np.linalg.norm(trained, axis=1, keepdims=True) * norms[:, None]
    vectors = np.array(kv.vectors, copy=True)
    vectors[rows] = new_rows.astype(vectors.dtype)
    # the same keys in the same order: set them as they are (add_vectors would check each of
    # GloVe's 400,000 keys against the vocabulary it builds, 0.4 s of every run)
    out = KeyedVectors(vector_size=kv.vector_size, count=0, dtype=vectors.dtype)
    out.index_to_key = list(kv.index_to_key)
    out.key_to_index = dict(kv.key_to_index)
    out.vectors = vectors
    for attr, values in getattr(kv, "expandos", {}).items():  # per-key attributes, e.g. count
        out.expandos[attr] = np.array(values, copy=True)
    seconds = time.perf_counter() - start
    out.ar_info = {
        "mode": mode,
        **hp,
        "batch_size": batch_size,
        "epochs": epochs,
        "learning_rate": lr,
        "random_state": seed,
        "lowercase": lowercase,
        "drop_last": drop_last,
        "wordset": query.name,
        "n_attract": len(attract) if sizes["attract"] else 0,
        "n_repel": len(repel) if sizes["repel"] else 0,
        "batches_per_epoch": {k: len(v) for k, v in sizes.items()},
        "oov": list(oov),
        "trained": [kv.index_to_key[r] for r in rows],
        "loss": losses,
        "seconds": seconds,
    }
    logger.info(
        "attract_repel (%s) on %r: %d attract / %d repel pairs, %d words changed, %.2f s",
        mode,
        query.name,
        out.ar_info["n_attract"],
        out.ar_info["n_repel"],
        len(rows),
        seconds,
    )
    return out
