"""Do intrinsic bias metrics predict extrinsic bias? (Katô & Miyao; Goldfarb-Tarrant et al., 2021).

What the chapter's notebook calls; the modules of this package hold the method.
"""

from nlpbias.studies.intrinsic_extrinsic.figures import (
    intrinsic_extrinsic_figure,
    rho_vs_paper_figure,
)
from nlpbias.studies.intrinsic_extrinsic.study import (
    FAMILIES,
    Family,
    alignment_summary,
    alignment_text,
    build_embedding,
    corpus_for,
    correlations,
    embedding_grid,
    evaluate_embedding,
    figure1_panels,
    merged_wordset,
    paper_table,
    paper_tables,
    reported_table,
    rho_long,
    run_study,
    scores_frame,
    skipped_table,
    wordset_table,
)

__all__ = [
    "alignment_summary",
    "alignment_text",
    "build_embedding",
    "corpus_for",
    "correlations",
    "embedding_grid",
    "evaluate_embedding",
    "FAMILIES",
    "Family",
    "figure1_panels",
    "intrinsic_extrinsic_figure",
    "merged_wordset",
    "paper_table",
    "paper_tables",
    "reported_table",
    "rho_long",
    "rho_vs_paper_figure",
    "run_study",
    "scores_frame",
    "skipped_table",
    "wordset_table",
]
