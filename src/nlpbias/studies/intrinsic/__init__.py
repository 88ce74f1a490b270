"""Associations in word embeddings: WEAT and RNSB on pretrained and trained embeddings.

The chapter's methods are shared by several studies, so they live in the shared layers
(:mod:`nlpbias.metrics`, :mod:`nlpbias.models`, :mod:`nlpbias.data.wordsets`).
"""
