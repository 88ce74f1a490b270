"""WEAT effect sizes of several tests on one embedding, with "not testable here" rows.

The chapter measures tests on embeddings in three places — the intersectional tests beside their
components (:mod:`~nlpbias.studies.perturbation.intersectional`), the same tests on an older and
a newer corpus, and the reference embedding — and everywhere a test whose lists lose more than
``max_missing`` of their words to the vocabulary stays in the table, marked *not testable here*
with the words it lacks, instead of silently disappearing. :func:`measure_tests` is that one
measurement: :func:`nlpbias.metrics.weat.weat` (effect size with the sample standard deviation,
one-sided permutation p-value, percentile bootstrap interval over words) per test.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nlpbias.studies.perturbation.influence import DDOF

__all__ = ["measure_tests"]


def _words(missing: dict[str, tuple[str, ...]]) -> str:
    return "; ".join(f"{k}: {', '.join(v)}" for k, v in missing.items() if v)


def measure_tests(
    embedding: Any,
    wordsets: Sequence[str],
    *,
    max_missing: float,
    n_permutations: int,
    n_bootstrap: int,
    random_state: int,
    lowercase: bool = True,
    folder: str | Path | None = None,
) -> pd.DataFrame:
    """Effect size, permutation p-value and bootstrap interval of each test on ``embedding``.

    Parameters
    ----------
    embedding : gensim KeyedVectors or Mapping[str, array-like]
    wordsets : sequence of str
        Word-set names (files of ``folder``).
    max_missing : float
        Largest share of a list that may be out of the vocabulary (else: not testable here).
    n_permutations, n_bootstrap : int
        Permutations of the one-sided p-value; bootstrap resamples over words (0: no interval).
    random_state : int
    lowercase : bool, default True
    folder : str or Path, optional
        Folder of the word-set files (default: the project's ``data/wordsets/``).

    Returns
    -------
    pandas.DataFrame
        Index ``wordset`` (in the given order): ``testable``, ``effect_size``, ``ci_low``,
        ``ci_high``, ``p_value``, ``words`` (used, all four lists), ``missing`` (out of the
        vocabulary, per list; "—" for none), ``reason`` (why not testable; "" otherwise).

    Examples
    --------
    >>> emb = {"he": [1, 0], "she": [0, 1], "math": [0.9, 0.1], "art": [0.1, 0.9],
    ...        "code": [0.8, 0.3], "poem": [0.2, 0.8]}
    >>> from nlpbias.metrics.query import Query
    >>> import tempfile, yaml, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "toy.yaml").write_text(yaml.safe_dump({"name": "toy", "title": "t",
    ...     "targets": {"sci": ["math", "code"], "arts": ["art", "poem"]},
    ...     "attributes": {"m": ["he"], "f": ["she", "her"]}, "source": "s", "citation": "c",
    ...     "notes": "n"}))
    >>> out = measure_tests(emb, ["toy"], max_missing=0.5, n_permutations=99, n_bootstrap=0,
    ...                    random_state=0, folder=folder)
    >>> bool(out.loc["toy", "testable"]), int(out.loc["toy", "words"]), out.loc["toy", "missing"]
    (True, 6, 'f: her')
    """
    from nlpbias.data.wordsets import load_wordset
    from nlpbias.metrics.query import OutOfVocabularyError
    from nlpbias.metrics.weat import weat

    if not wordsets:
        raise ValueError("no word sets to measure; pass at least one word-set name")
    rows = []
    for name in wordsets:
        rec: dict[str, Any] = {"wordset": name}
        try:
            res = weat(
                load_wordset(name, folder=folder), embedding, lowercase=lowercase,
                max_missing=max_missing, ddof=DDOF, n_resamples=n_permutations,
                n_bootstrap=n_bootstrap, random_state=random_state,
            )  # fmt: skip
        except OutOfVocabularyError as exc:
            rec.update(
                testable=False, effect_size=np.nan, ci_low=np.nan, ci_high=np.nan,
                p_value=np.nan, words=0, missing=_words(exc.missing),
                reason=f"not testable here: {exc}",
            )  # fmt: skip
        else:
            rec.update(
                testable=True, effect_size=res.effect_size, ci_low=res.ci_low,
                ci_high=res.ci_high, p_value=res.p_value,
                words=sum(len(v) for v in res.words.values()),
                missing=_words(res.missing) or "—", reason="",
            )  # fmt: skip
        rows.append(rec)
    return pd.DataFrame(rows).set_index("wordset")
