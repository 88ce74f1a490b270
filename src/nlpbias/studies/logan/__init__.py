"""LOGAN (Zhao & Chang, 2020): local group bias found by clustering a classifier's features.

What the chapter's notebook calls; the modules of this package hold the method: the estimator
(:mod:`.estimator`, with :mod:`.group_metrics`, :mod:`.lloyd` and :mod:`.merging`), its summaries
(:mod:`.summaries`), calibration (:mod:`.calibration`), the λ path and seed spread
(:mod:`.robustness`), the clusters as the paper tabulates them and under other metrics
(:mod:`.cluster_tables`), the feature sets clustered, pretrained or fine-tuned
(:mod:`.features`) and the fits on each side by side (:mod:`.feature_comparison`), the gap on
texts with one word (:mod:`.word_gap`), the MS-COCO numbers
as reported (:mod:`.mscoco`), topic words (:mod:`.topics`), figures (:mod:`.figures`), the headline
rows for the scorecard (:mod:`.headlines`), the sentences and comparison tables that state
the run's numbers (:mod:`.prose`), the MiniLM classifiers (:mod:`.frozen` and
:mod:`.finetune`, with
:mod:`.classifier_inputs`; imported on use: they need torch), the stand-in data
(:mod:`.synthetic`) and the chapter's steps (:mod:`.study`).
"""

from nlpbias.studies.logan.calibration import (
    NullResult,
    max_gap_null,
    random_split_gap,
)
from nlpbias.studies.logan.cluster_tables import (
    cluster_table,
    cluster_tables,
    fpr_gap_table,
    largest_gap_table,
    rescore,
    table2,
    table2_of_clusters,
)
from nlpbias.studies.logan.estimator import (
    LOGAN,
    METRICS,
)
from nlpbias.studies.logan.feature_comparison import (
    feature_comparison,
    feature_sentences,
    paper_feature_summary,
    runs_by_features,
)
from nlpbias.studies.logan.features import (
    FEATURE_SETS,
)
from nlpbias.studies.logan.figures import (
    COLUMN_LABELS,
    biased_cluster_figure,
    feature_comparison_figure,
    group_accuracy_figure,
    group_auc_figure,
    lambda_path_figure,
    seed_spread_figure,
)
from nlpbias.studies.logan.headlines import (
    headlines,
)
from nlpbias.studies.logan.mscoco import (
    mscoco_table,
)
from nlpbias.studies.logan.prose import (
    classifier_comparison,
    null_sentences,
    paper_comparison,
    selection_sentence,
    setting_table,
    table1_comparison,
    table2_comparison,
    table2_rows,
    word_gap_rows,
)
from nlpbias.studies.logan.robustness import (
    METHODS,
    best_lams,
    lambda_path,
    robustness_tables,
    robustness_verdict,
    seed_spread,
    spread_summary,
    usable_fits,
)
from nlpbias.studies.logan.study import (
    LoganData,
    load_logan_data,
    run_attribute,
    run_robustness,
    table1,
    topic_word_table,
)
from nlpbias.studies.logan.summaries import (
    compare_with_kmeans,
    local_bias_summary,
    null_table,
    select_lambda,
)
from nlpbias.studies.logan.topics import (
    topic_words,
)
from nlpbias.studies.logan.word_gap import (
    word_gap,
    word_gap_table,
)

__all__ = [
    "best_lams",
    "biased_cluster_figure",
    "classifier_comparison",
    "cluster_table",
    "cluster_tables",
    "COLUMN_LABELS",
    "compare_with_kmeans",
    "FEATURE_SETS",
    "feature_comparison",
    "feature_comparison_figure",
    "feature_sentences",
    "fpr_gap_table",
    "group_accuracy_figure",
    "group_auc_figure",
    "headlines",
    "lambda_path",
    "largest_gap_table",
    "lambda_path_figure",
    "load_logan_data",
    "local_bias_summary",
    "null_table",
    "LOGAN",
    "LoganData",
    "max_gap_null",
    "METHODS",
    "METRICS",
    "mscoco_table",
    "null_sentences",
    "NullResult",
    "paper_feature_summary",
    "runs_by_features",
    "paper_comparison",
    "random_split_gap",
    "rescore",
    "robustness_tables",
    "robustness_verdict",
    "run_attribute",
    "run_robustness",
    "seed_spread",
    "seed_spread_figure",
    "select_lambda",
    "selection_sentence",
    "setting_table",
    "spread_summary",
    "table1",
    "table1_comparison",
    "table2",
    "table2_comparison",
    "table2_of_clusters",
    "table2_rows",
    "topic_word_table",
    "topic_words",
    "usable_fits",
    "word_gap",
    "word_gap_rows",
    "word_gap_table",
]
