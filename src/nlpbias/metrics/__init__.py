"""Bias metrics: word-embedding association tests and the statistics behind them.

Submodules (import them directly; nothing heavy is imported here):

- :mod:`nlpbias.metrics.query` — :class:`~nlpbias.metrics.query.Query` (two target and two
  attribute word sets) and its lookup in an embedding with an explicit out-of-vocabulary policy.
- :mod:`nlpbias.metrics.weat_vectors` — WEAT on arrays of vectors: association
  ``s(w, A1, A2)``, test statistic, effect size, exact and Monte-Carlo permutation p-values,
  bootstrap confidence intervals.
- :mod:`nlpbias.metrics.intrinsic` — WEAT for queries in embeddings, one query or a table.
- :mod:`nlpbias.metrics.rnsb_vectors` — RNSB (relative negative sentiment bias) on arrays of
  vectors: the KL score and the signed two-set score.
- :mod:`nlpbias.metrics.rnsb` — RNSB for queries in embeddings.
- :mod:`nlpbias.metrics.stats` — permutation p-values, Spearman's rho with a permutation p-value,
  percentile bootstrap confidence intervals.
"""
