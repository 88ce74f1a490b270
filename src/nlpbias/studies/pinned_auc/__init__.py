"""Pinned AUC and data balancing (Dixon et al., 2018; Borkan et al., 2019).

What the chapter's notebook calls; the modules of this package hold the method.
"""

from nlpbias.studies.pinned_auc.figures import (
    COLOURS,
    chapter_palette,
    lowest_heatmap,
    per_term_figure,
    scenario_dots_figure,
    seed_dots_figure,
)
from nlpbias.studies.pinned_auc.headlines import (
    headlines,
)
from nlpbias.studies.pinned_auc.madlibs import (
    compare_madlibs,
    madlib_templates,
    madlibs_summary_text,
    make_madlibs,
    template_check,
)
from nlpbias.studies.pinned_auc.metric_names import (
    METRIC_LABELS,
)
from nlpbias.studies.pinned_auc.metrics import (
    bias_report,
)
from nlpbias.studies.pinned_auc.mitigation import (
    frequency_change,
)
from nlpbias.studies.pinned_auc.pool_check import (
    pool_check_by_model,
    pool_check_text,
)
from nlpbias.studies.pinned_auc.prose import (
    machine_paragraph,
    mitigation_reading,
    second_domain_reading,
    shifted_group_sentence,
    skew_intro,
    verdict_lines,
)
from nlpbias.studies.pinned_auc.roc import (
    auc,
)
from nlpbias.studies.pinned_auc.scenarios import (
    PAPER_RULE,
    compare_scenarios,
    family_difference,
    mechanism_verdicts,
    paper_rule,
    run_scenario,
    scenario_table,
    scenario_verdicts,
    skewed_scenario,
    template_differences,
)
from nlpbias.studies.pinned_auc.skew import (
    table1_ratios,
)
from nlpbias.studies.pinned_auc.skew_report import (
    added_sentence,
    skew_sentence,
    skew_verdict,
)
from nlpbias.studies.pinned_auc.study import (
    CORPORA,
    FAMILIES,
    StudyData,
    build_families,
    equality_summary,
    evaluate,
    family_summary,
    load_second_domain,
    load_study_data,
    paper_comparison,
    pinned_backgrounds,
    reported,
    train_and_score,
)
from nlpbias.studies.pinned_auc.synthetic_scores import (
    make_shifted_groups,
)

__all__ = [
    "equality_summary",
    "load_second_domain",
    "second_domain_reading",
    "template_check",
    "compare_madlibs",
    "madlib_templates",
    "madlibs_summary_text",
    "make_madlibs",
    "pool_check_by_model",
    "pool_check_text",
    "chapter_palette",
    "COLOURS",
    "lowest_heatmap",
    "added_sentence",
    "skew_sentence",
    "skew_verdict",
    "auc",
    "bias_report",
    "build_families",
    "compare_scenarios",
    "evaluate",
    "CORPORA",
    "FAMILIES",
    "PAPER_RULE",
    "family_difference",
    "family_summary",
    "frequency_change",
    "headlines",
    "load_study_data",
    "make_shifted_groups",
    "mechanism_verdicts",
    "paper_rule",
    "METRIC_LABELS",
    "paper_comparison",
    "pinned_backgrounds",
    "per_term_figure",
    "reported",
    "run_scenario",
    "scenario_dots_figure",
    "scenario_table",
    "scenario_verdicts",
    "seed_dots_figure",
    "skewed_scenario",
    "StudyData",
    "template_differences",
    "table1_ratios",
    "train_and_score",
    "verdict_lines",
    "machine_paragraph",
    "mitigation_reading",
    "shifted_group_sentence",
    "skew_intro",
]
