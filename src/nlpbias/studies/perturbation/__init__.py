"""Which documents make an embedding biased? (Brunet et al., 2019): GloVe and influence functions.

What the chapter's notebook calls; the modules of this package hold the method: the documents and
their co-occurrence matrix (:mod:`.documents`, :mod:`.cooccurrence`), our GloVe (:mod:`.glove`),
the differential bias by influence functions (:mod:`.influence`), its validation by retraining
(:mod:`.retraining`), how concentrated it is (:mod:`.bias_concentration`), the figures
(:mod:`.figures`), the chapter's steps (:mod:`.study`) and its headline rows for the scorecard
(:mod:`.headlines`).
"""

from nlpbias.studies.perturbation.bias_concentration import (
    concentration,
    concentration_interval,
    concentration_table,
    cumulative_share,
)
from nlpbias.studies.perturbation.documents import (
    SOURCES,
    Prepared,
    load_documents,
    prepare,
)
from nlpbias.studies.perturbation.figures import (
    baseline_figure,
    cumulative_share_figure,
    delta_b_histogram,
    predicted_vs_actual_figure,
)
from nlpbias.studies.perturbation.headlines import (
    headlines,
)
from nlpbias.studies.perturbation.influence import (
    differential_bias,
    effect_sizes,
    predict_removals,
    weat_index,
)
from nlpbias.studies.perturbation.retraining import (
    retrain_removals,
)
from nlpbias.studies.perturbation.study import (
    agreement,
    baseline_table,
    fit_glove,
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
    "concentration",
    "concentration_interval",
    "concentration_table",
    "cumulative_share",
    "cumulative_share_figure",
    "delta_b_histogram",
    "differential_bias",
    "effect_sizes",
    "fit_glove",
    "headlines",
    "load_documents",
    "predict_removals",
    "predicted_vs_actual_figure",
    "prepare",
    "Prepared",
    "removal_sets",
    "retrain_removals",
    "score_documents",
    "SOURCES",
    "top_documents",
    "usable_wordsets",
    "validate",
    "weat_index",
]
