"""Bias metrics: word-embedding association tests and the statistics behind them.

Submodules (import them directly; nothing heavy is imported here):

- :mod:`nlpbias.metrics.query` — :class:`~nlpbias.metrics.query.Query` (two target and two
  attribute word sets) and its lookup in an embedding with an explicit out-of-vocabulary policy;
  WEAT, RNSB and the studies that balance or perturb word sets all take a query.
- :mod:`nlpbias.metrics.weat` — WEAT (word embedding association test): association
  ``s(w, A1, A2)``, test statistic, effect size, exact and Monte-Carlo permutation p-values and
  bootstrap confidence intervals, on arrays of vectors and for queries in embeddings (one query
  or a table).
- :mod:`nlpbias.metrics.rnsb` — RNSB (relative negative sentiment bias): the KL score and the
  signed two-set score, on arrays of vectors and for queries in embeddings.
- :mod:`nlpbias.metrics.stats` — permutation p-values, Spearman's rho with a permutation p-value,
  percentile bootstrap confidence intervals.
"""
