"""Do intrinsic bias metrics predict extrinsic bias? (Katô & Miyao; Goldfarb-Tarrant et al., 2021).

What the chapter's notebook calls; the modules of this package hold the method: the families and
their word sets (:mod:`.families`; expanded by neighbours: :mod:`.expansion`, :mod:`.name_race`,
:mod:`.expanded_sets`), the embedding grid (:mod:`.grid`, with :mod:`.balancing` and
:mod:`.attract_repel`), one embedding's evaluation (:mod:`.evaluation`, with the downstream tasks
:mod:`.coref` and :mod:`.hsd`), the cached sweep (:mod:`.study`, with what its tasks share in
memory: :mod:`.worker_memo`), the correlations (:mod:`.correlation`), the two designs of the
modification sets (:mod:`.designs`), the comparison with the paper (:mod:`.paper`), the figures
(:mod:`.figures`), the downstream datasets' sizes and groups (:mod:`.downstream_data`), what
Figure 1 shows beyond ρ (:mod:`.neighbour_spread`, :mod:`.zero_weat`), the headline rows for the
scorecard (:mod:`.headlines`) and which numbers travel between machines (:mod:`.machines`).
"""

from nlpbias.studies.intrinsic_extrinsic import machines
from nlpbias.studies.intrinsic_extrinsic.correlation import (
    correlations,
    design_scores,
    dropped_text,
    mean_rho_interval,
    scores_frame,
    seed_spread,
    skipped_cells,
    skipped_table,
    skipped_text,
)
from nlpbias.studies.intrinsic_extrinsic.designs import (
    design_comparison,
    design_difference,
    design_text,
)
from nlpbias.studies.intrinsic_extrinsic.downstream_data import (
    HSD_PAPER_GROUPS,
    dataset_sizes,
    downstream_tables,
    hsd_group_counts,
)
from nlpbias.studies.intrinsic_extrinsic.evaluation import (
    evaluate_embedding,
)
from nlpbias.studies.intrinsic_extrinsic.expanded_sets import (
    expansion_table,
)
from nlpbias.studies.intrinsic_extrinsic.families import (
    FAMILIES,
    Family,
    merged_wordset,
    wordset_table,
)
from nlpbias.studies.intrinsic_extrinsic.figures import (
    FAMILY_LABELS,
    METHOD_LABELS,
    RHO_LABELS,
    hsd_groups_figure,
    intrinsic_extrinsic_figure,
    panel_points,
    rho_vs_paper_figure,
    score_label,
)
from nlpbias.studies.intrinsic_extrinsic.grid import (
    build_embedding,
    corpus_for,
    embedding_grid,
)
from nlpbias.studies.intrinsic_extrinsic.headlines import (
    headline_intervals,
    headlines,
)
from nlpbias.studies.intrinsic_extrinsic.machines import (
    machine_paragraph,
)
from nlpbias.studies.intrinsic_extrinsic.neighbour_spread import (
    spread_at_similar,
    spread_text,
)
from nlpbias.studies.intrinsic_extrinsic.paper import (
    alignment_difference,
    alignment_summary,
    alignment_text,
    figure1_panels,
    paper_table,
    paper_tables,
    reported_table,
    rho_long,
)
from nlpbias.studies.intrinsic_extrinsic.study import (
    run_study,
)
from nlpbias.studies.intrinsic_extrinsic.zero_weat import (
    gap_at_zero,
    gap_at_zero_text,
)

__all__ = [
    "alignment_difference",
    "alignment_summary",
    "alignment_text",
    "build_embedding",
    "corpus_for",
    "correlations",
    "design_comparison",
    "design_difference",
    "design_scores",
    "design_text",
    "dataset_sizes",
    "downstream_tables",
    "embedding_grid",
    "evaluate_embedding",
    "expansion_table",
    "FAMILIES",
    "Family",
    "figure1_panels",
    "gap_at_zero",
    "gap_at_zero_text",
    "intrinsic_extrinsic_figure",
    "merged_wordset",
    "FAMILY_LABELS",
    "headline_intervals",
    "headlines",
    "HSD_PAPER_GROUPS",
    "hsd_group_counts",
    "hsd_groups_figure",
    "machine_paragraph",
    "machines",
    "mean_rho_interval",
    "METHOD_LABELS",
    "panel_points",
    "paper_table",
    "paper_tables",
    "reported_table",
    "rho_long",
    "RHO_LABELS",
    "rho_vs_paper_figure",
    "run_study",
    "score_label",
    "scores_frame",
    "seed_spread",
    "skipped_cells",
    "skipped_table",
    "skipped_text",
    "dropped_text",
    "spread_at_similar",
    "spread_text",
    "wordset_table",
]
