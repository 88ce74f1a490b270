"""The records of which numbers travel between machines."""

import pytest

from nlpbias.data import machines


@pytest.mark.parametrize("chapter", ["logan", "perturbation", "scoring"])
def test_every_exact_record_reads_and_says_what_was_compared(chapter):
    rec = machines.load_machine_record(chapter)
    text = machines.travel_sentence(rec)
    assert rec["compared"] in text and "source: issue 27" in text
    assert ("agreed too" in text) is bool(rec["agree_exactly"])


def test_a_disagreeing_record_says_so_and_what_was_not_compared():
    rec = {
        "source": "two runs",
        "profile": "paper",
        "agree_exactly": False,
        "compared": "the CNN's scores",
        "not_compared": "the rest",
    }
    text = machines.travel_sentence(rec)
    assert "did not all agree" in text and "differed in the CNN's scores" in text
    assert "Not compared: the rest." in text


def test_a_missing_record_names_the_file():
    with pytest.raises(FileNotFoundError, match="data/machines/nochapter.yaml"):
        machines.load_machine_record("nochapter")


def test_a_record_without_a_comparison_says_none_is_on_record():
    rec = machines.load_machine_record("intrinsic")
    assert rec["agree_exactly"] is None
    assert "not been compared yet" in machines.travel_sentence(rec)
