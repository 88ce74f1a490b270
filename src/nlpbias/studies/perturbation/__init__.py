"""Which documents make an embedding biased? (Brunet et al., 2019): GloVe and influence functions.

What the chapter's notebook calls; the modules of this package hold the method: the documents and
their co-occurrence matrix (:mod:`.documents`, :mod:`.cooccurrence`), our GloVe (:mod:`.glove`),
the differential bias by influence functions (:mod:`.influence`), its validation by retraining
(:mod:`.retraining`) and how well prediction and retraining agree (:mod:`.agreement`), how
concentrated it is (:mod:`.bias_concentration`), the figures (:mod:`.figures`), the chapter's
steps (:mod:`.study`) and its headline rows for the scorecard (:mod:`.headlines`).
"""

from nlpbias.studies.perturbation.agreement import (
    agreement_interval,
    agreement_table,
    random_check,
    random_sentence,
    retraining_noise,
)
from nlpbias.studies.perturbation.bias_concentration import (
    concentration,
    concentration_interval,
    concentration_sentence,
    concentration_table,
    cumulative_share,
    even_share,
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
    readable,
    removal_sets,
    score_documents,
    skipped_sentence,
    top_documents,
    usable_wordsets,
    validate,
)

__all__ = [
    "agreement",
    "agreement_interval",
    "agreement_table",
    "baseline_figure",
    "baseline_table",
    "concentration",
    "concentration_interval",
    "concentration_sentence",
    "concentration_table",
    "cumulative_share",
    "cumulative_share_figure",
    "delta_b_histogram",
    "differential_bias",
    "effect_sizes",
    "even_share",
    "fit_glove",
    "headlines",
    "load_documents",
    "predict_removals",
    "predicted_vs_actual_figure",
    "prepare",
    "Prepared",
    "random_check",
    "random_sentence",
    "readable",
    "removal_sets",
    "retrain_removals",
    "retraining_noise",
    "score_documents",
    "skipped_sentence",
    "SOURCES",
    "top_documents",
    "usable_wordsets",
    "validate",
    "weat_index",
]
