"""The data chapter: identity terms in the toxicity datasets, beside Dixon et al.'s Table 1.

What the chapter's notebook calls; the modules of this package hold the method.
"""

from nlpbias.studies.data.report import (
    summarise_lengths,
    summarise_table1,
    summarise_term_frequencies,
    summarise_toxicity_by_length,
    table1_comparison,
)

__all__ = [
    "summarise_lengths",
    "summarise_table1",
    "summarise_term_frequencies",
    "summarise_toxicity_by_length",
    "table1_comparison",
]
