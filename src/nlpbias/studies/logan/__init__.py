"""LOGAN (Zhao & Chang, 2020): local group bias found by clustering a classifier's features.

What the chapter's notebook calls; the modules of this package hold the method.
"""

from nlpbias.studies.logan.study import (
    LoganData,
    load_logan_data,
    paper_comparison,
    run_attribute,
    table1,
    topic_word_table,
)

__all__ = [
    "load_logan_data",
    "LoganData",
    "paper_comparison",
    "run_attribute",
    "table1",
    "topic_word_table",
]
