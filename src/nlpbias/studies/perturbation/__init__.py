"""Which documents make an embedding biased? (Brunet et al., 2019): GloVe and influence functions.

What the chapter's notebook calls; the modules of this package hold the method: the documents and
their co-occurrence matrix (:mod:`.documents`, :mod:`.cooccurrence`), our GloVe (:mod:`.glove`),
the differential bias by influence functions (:mod:`.influence`), its validation by retraining
(:mod:`.retraining`) and how well prediction and retraining agree (:mod:`.agreement`), how
concentrated it is (:mod:`.bias_concentration`), the figures (:mod:`.figures`), the chapter's
steps (:mod:`.study`) and its headline rows for the scorecard (:mod:`.headlines`). Seed 004's own
questions (issue 29): tests on one embedding with "not testable here" rows (:mod:`.effects`),
intersectional tests beside their components (:mod:`.intersectional`), the correlation of ΔB
between tests (:mod:`.bias_correlation`), the full vs a reduced corpus (:mod:`.reduction`),
predicting the biasing documents (:mod:`.prediction`), and the chapter's steps for them
(:mod:`.questions`).
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
from nlpbias.studies.perturbation.bias_correlation import (
    area_correlations,
    pair_correlations,
)
from nlpbias.studies.perturbation.documents import (
    SOURCES,
    Prepared,
    load_documents,
    prepare,
)
from nlpbias.studies.perturbation.effects import measure_tests
from nlpbias.studies.perturbation.figures import (
    baseline_figure,
    corpora_figure,
    correlation_figure,
    cumulative_share_figure,
    delta_b_histogram,
    intersectional_figure,
    predicted_vs_actual_figure,
    prediction_figure,
    reduction_figure,
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
from nlpbias.studies.perturbation.intersectional import (
    intersectional_effects,
    intersectional_sentence,
    intersectional_summary,
)
from nlpbias.studies.perturbation.prediction import (
    document_features,
    predict_biasing,
    prediction_sentence,
    topic_features,
)
from nlpbias.studies.perturbation.questions import (
    NO_COMPARISON,
    answers,
    compare_corpora,
    intersectional_tables,
    reduction_sentence,
    relations,
    test_areas,
)
from nlpbias.studies.perturbation.reduction import full_vs_reduced, reduction_sets
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
    "NO_COMPARISON",
    "Prepared",
    "SOURCES",
    "agreement",
    "agreement_interval",
    "agreement_table",
    "answers",
    "area_correlations",
    "baseline_figure",
    "baseline_table",
    "corpora_figure",
    "compare_corpora",
    "concentration",
    "concentration_interval",
    "concentration_sentence",
    "concentration_table",
    "correlation_figure",
    "cumulative_share",
    "cumulative_share_figure",
    "delta_b_histogram",
    "differential_bias",
    "document_features",
    "effect_sizes",
    "even_share",
    "fit_glove",
    "full_vs_reduced",
    "headlines",
    "intersectional_effects",
    "intersectional_figure",
    "intersectional_sentence",
    "intersectional_summary",
    "intersectional_tables",
    "load_documents",
    "measure_tests",
    "pair_correlations",
    "predict_biasing",
    "predict_removals",
    "predicted_vs_actual_figure",
    "prediction_figure",
    "prediction_sentence",
    "prepare",
    "random_check",
    "random_sentence",
    "readable",
    "reduction_figure",
    "reduction_sentence",
    "reduction_sets",
    "relations",
    "removal_sets",
    "retrain_removals",
    "retraining_noise",
    "score_documents",
    "skipped_sentence",
    "test_areas",
    "top_documents",
    "topic_features",
    "usable_wordsets",
    "validate",
    "weat_index",
]
