"""Bias mitigation by changing the training data.

Two kinds, one module each (everything is re-exported here):

- :mod:`nlpbias.mitigation.length` -- Dixon et al. (2018): add non-toxic texts that mention
  over-represented identity terms, per length bucket, plus the random control
  (:func:`balance_by_length`, :func:`random_control`, :func:`augment`, :func:`frequency_change`,
  :func:`length_buckets`, :class:`BalanceResult`).
- :mod:`nlpbias.mitigation.corpus` -- Goldfarb-Tarrant et al. (2021) / Katô & Miyao: dataset
  balancing of a corpus for training word embeddings; keep (anti-)stereotypical sentences with
  probability ``p`` to debias or over-bias (:func:`balance_corpus`, :func:`sentence_kinds`,
  :class:`CorpusBalance`).

The embedding-side method, Attract-Repel, is :func:`nlpbias.attract_repel.attract_repel`.

Examples
--------
>>> import pandas as pd
>>> from nlpbias.metrics.query import Query
>>> train = pd.DataFrame({"text": ["gay idiot", "you idiot", "hi"], "toxic": [True, True, False]})
>>> balance_by_length(train, pd.DataFrame({"text": ["gay pride"]}), terms=["gay"],
...                   n_buckets=1).added["text"].tolist()
['gay pride']
>>> q = Query((["doctor"], ["nurse"]), (["he"], ["she"]))
>>> balance_corpus([["he", "doctor"], ["she", "doctor"]], q, p=0.0).sentences
[['she', 'doctor']]
"""

from nlpbias.mitigation.corpus import KINDS, CorpusBalance, balance_corpus, sentence_kinds
from nlpbias.mitigation.length import REPORT_COLUMNS as REPORT_COLUMNS
from nlpbias.mitigation.length import (
    BalanceResult,
    augment,
    balance_by_length,
    frequency_change,
    length_buckets,
    random_control,
)

__all__ = [
    "KINDS",
    "BalanceResult",
    "CorpusBalance",
    "augment",
    "balance_by_length",
    "balance_corpus",
    "frequency_change",
    "length_buckets",
    "random_control",
    "sentence_kinds",
]
