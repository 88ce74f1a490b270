"""Synthetic word vectors with *planted* associations: WEAT on a known truth, in a second.

Generative model of :func:`make_planted_embedding`
--------------------------------------------------
Given ``K`` word sets, each with targets ``(T1, T2)`` and attributes ``(A1, A2)``, and a planted
effect ``e_k`` per set:

1. Draw ``K`` orthonormal *bias axes* ``u_1, ..., u_K`` in ``R^dim`` (QR of a Gaussian matrix;
   needs ``K <= dim``).
2. Every word ``w`` (set words and filler words alike) gets isotropic noise
   ``z_w ~ N(0, noise**2 / dim * I)``, so that ``E ||z_w||**2 = noise**2``.
3. For each set ``k``: ``A1`` words get ``+u_k``, ``A2`` words ``-u_k`` (the attributes are
   always separated along the axis); ``T1`` words get ``+e_k u_k`` and ``T2`` words
   ``-e_k u_k``. A word listed in several sets sums its loadings (on orthogonal axes), so
   sets that share words inherit each other's planted association: with Caliskan's WEAT 7
   (maths vs arts x male vs female terms) planted and WEAT 8 (science vs arts x the same
   gender terms) at ``e = 0``, the arts words still lean towards the female terms through
   WEAT 7's axis and WEAT 8's effect size is positive.
4. ``v_w = z_w + loadings``; filler words are pure noise.

Hence, for a word set with effect ``e`` and words in no other set, a ``T1`` word's association
``s(t) = mean_a cos(t, A1) - mean_a cos(t, A2)`` is about
``2 e / (sqrt(e**2 + noise**2) * sqrt(1 + noise**2))`` (``T2``: the negative), up to noise of
order ``1/sqrt(dim)``. With ``e > 0`` WEAT's effect size is large and positive (close to its
maximum of 2 when ``e`` is large relative to the noise); with ``e = 0`` the targets carry no
signal and the effect size is zero on average over seeds; ``e < 0`` plants the reverse
association.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gensim.models import KeyedVectors

from nlpbias.core.checks import check_int, check_number
from nlpbias.core.repro import rng

__all__ = ["make_planted_embedding"]


def _word_list(value: object, where: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise TypeError(f"{where} must be a list of words, got {type(value).__name__}")
    words = list(value)
    if not words:
        raise ValueError(f"{where} is empty; give at least one word")
    bad = [w for w in words if not isinstance(w, str) or not w.strip()]
    if bad:
        raise ValueError(f"{where} must hold non-empty strings, got {bad[0]!r}")
    return words


def _pair(ws: Any, field: str, i: int) -> tuple[list[str], list[str]]:
    value = ws.get(field) if isinstance(ws, Mapping) else getattr(ws, field, None)
    if not isinstance(value, Mapping) or len(value) != 2:
        raise TypeError(
            f"wordsets[{i}].{field} must be a dict of exactly 2 word lists, "
            f"got {type(value).__name__}"
            + (f" with {len(value)} entries" if isinstance(value, Mapping) else "")
        )
    (n1, w1), (n2, w2) = value.items()
    return _word_list(w1, f"wordsets[{i}].{field}[{n1!r}]"), _word_list(
        w2, f"wordsets[{i}].{field}[{n2!r}]"
    )


def _parse(wordsets: object) -> list[tuple[list[str], list[str], list[str], list[str]]]:
    single = isinstance(wordsets, Mapping) or hasattr(wordsets, "targets")
    if single or isinstance(wordsets, str) or not isinstance(wordsets, Sequence):
        raise TypeError(
            f"wordsets must be a list of word sets (objects with .targets and .attributes), "
            f"got {type(wordsets).__name__}; wrap a single word set in a list"
        )
    if not wordsets:
        raise ValueError("wordsets is empty; give at least one word set")
    out = []
    for i, ws in enumerate(wordsets):
        t1, t2 = _pair(ws, "targets", i)
        a1, a2 = _pair(ws, "attributes", i)
        for name, left, right in (
            ("the two target lists", t1, t2),
            ("the two attribute lists", a1, a2),
            ("targets and attributes", t1 + t2, a1 + a2),
        ):
            both = sorted(set(left) & set(right))
            if both:
                raise ValueError(
                    f"wordsets[{i}]: {name} share the words {both[:5]}; remove the overlap"
                )
        out.append((t1, t2, a1, a2))
    return out


def _effects(effect: object, k: int) -> np.ndarray:
    if isinstance(effect, bool):
        raise TypeError(f"effect must be a number or a list of {k} numbers, got {effect!r}")
    if isinstance(effect, int | float | np.number):
        values = np.full(k, float(effect))
    elif isinstance(effect, Sequence) and not isinstance(effect, str):
        if len(effect) != k:
            raise ValueError(f"effect has {len(effect)} values for {k} word sets; give one each")
        try:
            values = np.asarray(effect, dtype=float)
        except (TypeError, ValueError) as err:
            raise TypeError(f"effect must hold numbers, got {list(effect)!r}") from err
    else:
        raise TypeError(f"effect must be a number or a list of {k} numbers, got {effect!r}")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"effect must be finite, got {values.tolist()}")
    return values


def _fillers(extra_words: object, taken: dict[str, int]) -> list[str]:
    if isinstance(extra_words, bool):
        raise TypeError(f"extra_words must be an int or a list of words, got {extra_words!r}")
    if isinstance(extra_words, int | np.integer):
        check_int(extra_words, "extra_words", minimum=0)
        width = len(str(max(int(extra_words) - 1, 0)))
        words = [f"filler{i:0{width}d}" for i in range(int(extra_words))]
    else:
        words = _word_list(extra_words, "extra_words") if extra_words else []
    clash = sorted({w for w in words if w in taken})
    if clash:
        raise ValueError(f"extra_words repeats words of the word sets: {clash[:5]}; drop them")
    if len(set(words)) != len(words):
        raise ValueError("extra_words has duplicate words; give each word once")
    return words


def make_planted_embedding(
    *,
    wordsets: Sequence[Any],
    effect: float | Sequence[float] = 1.0,
    dim: int = 50,
    noise: float = 1.0,
    extra_words: int | Sequence[str] = 200,
    random_state: None | int | np.random.Generator = None,
) -> KeyedVectors:
    """Build word vectors in which each word set's ``T1`` leans towards ``A1`` by ``effect``.

    See the module docstring for the generative model.

    Parameters
    ----------
    wordsets : list of word sets
        Objects with ``.targets`` and ``.attributes`` (or dicts with those keys), each a dict
        of exactly two word lists; the first list of each is ``T1`` / ``A1``.
    effect : float or list of float, default 1.0
        Planted loading of the targets on each set's bias axis (one value for all sets, or one
        per set). 0 plants no association; negative values plant the reverse one.
    dim : int, default 50
        Vector size; at least the number of word sets.
    noise : float, default 1.0
        Expected norm of each word's random part (> 0).
    extra_words : int or list of str, default 200
        Filler words with pure-noise vectors: this many named ``filler0``, ``filler1``, ...,
        or the given words.
    random_state : None, int or numpy.random.Generator
        Seed (see :func:`nlpbias.core.repro.rng`).

    Returns
    -------
    gensim.models.KeyedVectors
        float32 vectors; keys are the set words (in order of first appearance: ``T1``, ``T2``,
        ``A1``, ``A2`` of each set) followed by the filler words.

    Examples
    --------
    >>> ws = {"targets": {"male": ["he", "man"], "female": ["she", "woman"]},
    ...       "attributes": {"career": ["job", "salary"], "family": ["home", "kids"]}}
    >>> kv = make_planted_embedding(wordsets=[ws], effect=2.0, extra_words=10, random_state=0)
    >>> len(kv), kv.vector_size
    (18, 50)
    >>> bool(kv.similarity("he", "job") > kv.similarity("he", "home"))
    True
    """
    sets = _parse(wordsets)
    effects = _effects(effect, len(sets))
    check_int(dim, "dim", minimum=2)
    if dim < len(sets):
        raise ValueError(f"dim={dim} is smaller than the {len(sets)} word sets; raise dim")
    check_number(noise, "noise", low=0.0, high=math.inf, low_open=True, high_open=True)
    index: dict[str, int] = {}
    for group in sets:
        for words in group:
            for w in words:
                index.setdefault(w, len(index))
    fillers = _fillers(extra_words, index)
    keys = list(index) + fillers
    gen = rng(random_state)
    axes, _ = np.linalg.qr(gen.standard_normal((int(dim), len(sets))))
    vectors = gen.standard_normal((len(keys), int(dim))) * (float(noise) / np.sqrt(dim))
    for k, (t1, t2, a1, a2) in enumerate(sets):
        for words, loading in ((t1, effects[k]), (t2, -effects[k]), (a1, 1.0), (a2, -1.0)):
            rows = [index[w] for w in words]
            vectors[rows] += loading * axes[:, k]
    kv = KeyedVectors(vector_size=int(dim), count=0, dtype=np.float32)
    kv.add_vectors(keys, vectors.astype(np.float32))
    return kv
