"""Associations in word embeddings: WEAT and RNSB on pretrained and trained embeddings.

The chapter's methods are shared by several studies, so they live in the shared layers
(:mod:`nlpbias.metrics`, :mod:`nlpbias.models`, :mod:`nlpbias.data.wordsets`); this package holds
the figures only this chapter draws and its headline rows for the scorecard. What the chapter's
notebook calls from here:
"""

from nlpbias.studies.intrinsic.figures import association_figure, rnsb_figure, scatter_figure
from nlpbias.studies.intrinsic.headlines import headlines
from nlpbias.studies.intrinsic.report import (
    rnsb_spread_sentence,
    round_noise,
    short_name,
    uncertainty_sentence,
)

__all__ = [
    "association_figure",
    "headlines",
    "rnsb_figure",
    "rnsb_spread_sentence",
    "round_noise",
    "scatter_figure",
    "short_name",
    "uncertainty_sentence",
]
