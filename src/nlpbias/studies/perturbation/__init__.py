"""Which documents make an embedding biased? (Brunet et al., 2019): GloVe and influence functions.

What the chapter's notebook calls; the modules of this package hold the method.
"""

from nlpbias.studies.perturbation.figures import (
    baseline_figure,
    cumulative_share_figure,
    delta_b_histogram,
    predicted_vs_actual_figure,
)
from nlpbias.studies.perturbation.influence import (
    effect_sizes,
    weat_index,
)
from nlpbias.studies.perturbation.study import (
    SOURCES,
    Prepared,
    agreement,
    baseline_table,
    concentration_table,
    fit_glove,
    load_documents,
    prepare,
    removal_sets,
    score_documents,
    top_documents,
    usable_wordsets,
    validate,
)

__all__ = [
    "agreement",
    "baseline_figure",
    "baseline_table",
    "concentration_table",
    "cumulative_share_figure",
    "delta_b_histogram",
    "effect_sizes",
    "fit_glove",
    "load_documents",
    "predicted_vs_actual_figure",
    "prepare",
    "Prepared",
    "removal_sets",
    "score_documents",
    "SOURCES",
    "top_documents",
    "usable_wordsets",
    "validate",
    "weat_index",
]
