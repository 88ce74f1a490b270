"""A toy corpus with a planted association, shared by the tests of influence functions and
retraining (imported as ``perturbation_cases``)."""

from __future__ import annotations

import numpy as np

from nlpbias.metrics.query import Query

QUERY = Query(
    targets={"science": ["math", "physics"], "arts": ["poetry", "art"]},
    attributes={"male": ["he", "man"], "female": ["she", "woman"]},
    name="toy",
)
WINDOW = 3
FILLER = ["the", "of", "and", "a", "to", "in", "is"]


def make_docs(seed: int = 0, n_docs: int = 40) -> list[list[str]]:
    """Documents with a planted association (science-male, arts-female) and filler."""
    rng = np.random.default_rng(seed)
    science, arts = ["math", "physics"], ["poetry", "art"]
    male, female = ["he", "man"], ["she", "woman"]
    docs = []
    for n in range(n_docs):
        biased = n % 2 == 0
        pairs = (science + male, arts + female) if biased else (science + female, arts + male)
        words = pairs[n % 4 // 2] + FILLER
        p = np.r_[np.full(4, 0.12), np.full(7, 0.52 / 7)]
        docs.append(list(rng.choice(words, size=12, p=p / p.sum())))
    docs.append(list(rng.choice(FILLER, size=10)))  # no WEAT word at all
    docs.append(["math", "he", "the", "poetry", "she", "of", "man"])
    return docs
