"""The paper's MS-COCO numbers, read from data/reported/zhao2020logan.yaml, marked not testable."""

from __future__ import annotations

import pytest

from nlpbias.data.reported import load_reported
from nlpbias.studies.logan.mscoco import NOT_TESTABLE, mscoco_table


def test_mscoco_table_reads_the_transcription() -> None:
    paper = load_reported("zhao2020logan")
    t = mscoco_table(paper)
    assert (t["status"] == NOT_TESTABLE).all() and "offline" in NOT_TESTABLE
    assert t.loc["objects with a gap >= 5 points (of 26)"].tolist()[:3] == ["14", "19", "21"]
    assert t.loc["BCR (%, mean over objects)", ["K-Means", "LOGAN"]].tolist() == ["34.0", "35.7"]
    assert t.loc["BIR (%, mean over objects)", ["K-Means", "LOGAN"]].tolist() == ["57.7", "54.9"]
    assert t.loc["inertia ratio, LOGAN ÷ K-Means (mean over objects)", "LOGAN"] == "1.001"
    assert t.loc["classifier mAP, dev / test (%)", "Global"] == "52.3 / 53.1"
    assert "22,800 train" in t.attrs["setting"]
    # the table follows the file, not a copy of its numbers
    paper["mscoco"]["objects_with_5pt_gap"]["LOGAN"] = 22
    assert mscoco_table(paper).iloc[0]["LOGAN"] == "22"
    with pytest.raises(ValueError, match="no 'mscoco' entry"):
        mscoco_table({})


def test_other_transcriptions_of_issue_31() -> None:
    paper = load_reported("zhao2020logan")
    assert paper["table2"]["race"]["Global"] == {"auc_1": 0.870, "auc_2": 0.846, "bias": 0.024}
    assert paper["table2"]["race"]["K-Means"]["bias"] == 0.157
    assert paper["table2"]["gender"]["LOGAN"] == {"auc_1": 0.910, "auc_2": 0.818, "bias": 0.092}
    for attr in ("race", "gender"):  # bias = |auc_1 - auc_2| as printed
        for row in paper["table2"][attr].values():
            assert abs(row["auc_1"] - row["auc_2"]) == pytest.approx(row["bias"], abs=1e-9)
    assert paper["racist_token_gap"] == 19
    assert paper["classifier"] == {"test_accuracy": 90.2, "dev_accuracy": 89.4}
