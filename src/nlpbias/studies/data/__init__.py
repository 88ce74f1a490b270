"""The data chapter: identity terms in the toxicity datasets, beside Dixon et al.'s Table 1.

What the chapter's notebook calls; the modules of this package hold the method.
"""

from nlpbias.studies.data.figures import (
    label_balance_figure,
    length_figure,
    observed_vs_planted,
    stacked_share_barh,
    toxicity_by_length_figure,
)
from nlpbias.studies.data.report import (
    corpus_labels,
    dataset_labels,
    planted_check_sentence,
    short_title,
    summarise_gender_balance,
    summarise_lengths,
    summarise_table1,
    summarise_term_frequencies,
    summarise_toxicity_by_length,
    table1_comparison,
)

__all__ = [
    "corpus_labels",
    "dataset_labels",
    "short_title",
    "label_balance_figure",
    "length_figure",
    "observed_vs_planted",
    "planted_check_sentence",
    "stacked_share_barh",
    "summarise_gender_balance",
    "summarise_lengths",
    "summarise_table1",
    "summarise_term_frequencies",
    "summarise_toxicity_by_length",
    "table1_comparison",
    "toxicity_by_length_figure",
]
