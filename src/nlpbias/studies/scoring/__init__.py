"""Scoring ourselves (Dong; Kurita et al., 2019): a masked LM per person, scored by log-probability
bias.

What the chapter's notebook calls; the modules of this package hold the method.
"""

from nlpbias.studies.scoring.ablation import (
    AblationSpec,
    ablation_statements,
    ablation_table,
    paired_differences,
    run_ablation,
)
from nlpbias.studies.scoring.builds import (
    builds_statements,
    builds_table,
    recorded_builds,
    run_numbers,
)
from nlpbias.studies.scoring.claims import (
    check_claims,
    claim_parts,
    paper_claims,
    paper_topk,
)
from nlpbias.studies.scoring.comparison import (
    paper_comparison,
    paper_numbers,
    sign_agreement,
)
from nlpbias.studies.scoring.curves import (
    curve_end_points,
    learning_curves,
)
from nlpbias.studies.scoring.effects import (
    dong_bias,
)
from nlpbias.studies.scoring.figures import (
    ablation_figure,
    accuracy_figure,
    bias_figure,
    claims_figure,
    learning_curve_figure,
    person_curves_figure,
    seed_spread_figure,
    topk_figure,
)
from nlpbias.studies.scoring.headlines import (
    headlines,
)
from nlpbias.studies.scoring.kurita import (
    mask_positions,
)
from nlpbias.studies.scoring.mlm import (
    CurveSpec,
    card_summary,
    load_mlm,
    predict_masked,
    quality_card,
)
from nlpbias.studies.scoring.seeds import (
    RULE,
    concept_biases,
    exceeds_seed_spread,
    fine_tune_seeds,
    planted_seed_shift,
    seed_biases,
    seed_spread_table,
    seed_statements,
    why_the_range,
)
from nlpbias.studies.scoring.study import (
    FRAMEWORKS,
    PEOPLE,
    Framework,
    accuracy_table,
    base_model,
    bias_table,
    effect_sizes,
    fine_tune_people,
    frameworks,
    frameworks_table,
    person_corpora,
    planted_check,
    planted_posts,
    planted_shift,
    reported,
    score_models,
    topk_table,
)

__all__ = [
    "AblationSpec",
    "ablation_figure",
    "ablation_statements",
    "ablation_table",
    "paired_differences",
    "run_ablation",
    "builds_statements",
    "builds_table",
    "headlines",
    "paper_numbers",
    "planted_check",
    "recorded_builds",
    "run_numbers",
    "why_the_range",
    "RULE",
    "accuracy_figure",
    "accuracy_table",
    "base_model",
    "bias_figure",
    "bias_table",
    "card_summary",
    "check_claims",
    "claim_parts",
    "claims_figure",
    "concept_biases",
    "curve_end_points",
    "CurveSpec",
    "dong_bias",
    "effect_sizes",
    "exceeds_seed_spread",
    "fine_tune_people",
    "fine_tune_seeds",
    "Framework",
    "frameworks",
    "FRAMEWORKS",
    "frameworks_table",
    "learning_curve_figure",
    "learning_curves",
    "load_mlm",
    "mask_positions",
    "paper_claims",
    "paper_comparison",
    "paper_topk",
    "PEOPLE",
    "person_corpora",
    "person_curves_figure",
    "planted_posts",
    "planted_seed_shift",
    "planted_shift",
    "predict_masked",
    "quality_card",
    "reported",
    "score_models",
    "seed_biases",
    "seed_spread_figure",
    "seed_spread_table",
    "seed_statements",
    "sign_agreement",
    "topk_figure",
    "topk_table",
]
