"""Synthetic documents for the tests of the perturbation study's steps (imported as
``perturbation_corpus``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nlpbias.data.wordsets import load_wordset

WS = "science_arts"
WINDOW = 4
FILLER = "the of and a to in is was it that for on with as at by".split()
N_DOCS, WORDS_PER_DOC = 40, 22


def make_documents(n: int = N_DOCS, seed: int = 0, drop: tuple[str, ...] = ()) -> pd.DataFrame:
    """``n`` documents of 4 target + 4 attribute words of science_arts and 14 filler words.

    Even documents use science words, odd ones arts words; most pair science with male and arts
    with female terms, every fifth the other way round. Words in ``drop`` never occur.
    """
    ws = load_wordset(WS)
    keep = lambda words: [w for w in words if w not in drop]  # noqa: E731
    sci, arts = keep(ws.targets["science"]), keep(ws.targets["arts"])
    male, female = keep(ws.attributes["male"]), keep(ws.attributes["female"])
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(n):
        target = sci if k % 2 == 0 else arts
        stereo = k % 5 != 0
        attr = (male if k % 2 == 0 else female) if stereo else (female if k % 2 == 0 else male)
        words = [*rng.choice(target, 4), *rng.choice(attr, 4), *rng.choice(FILLER, 14)]
        rng.shuffle(words)
        text = " ".join(words).capitalize() + "."
        rows.append({"title": f"doc {k}", "author": f"author {k % 3}", "text": text})
    return pd.DataFrame(rows)
