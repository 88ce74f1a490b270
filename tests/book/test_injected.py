"""The injected parameters cell fits the book's column and assigns the values papermill would."""

from __future__ import annotations

from pathlib import Path

import pytest
from papermill.translators import PythonTranslator, translate_parameters

from nlpbias.book.injected import WIDTH, BookTranslator, use_book_translator
from nlpbias.book.runner import KERNEL, profiles, resolve_parameters, studies

ROOT = Path(__file__).resolve().parents[2]

LONG = {
    "profile": "smoke",
    "standin": {
        "steps": 6,
        "head_steps": 3,
        "batch_size": 8,
        "max_length": 64,
        "warmup_steps": 2,
        "n_eval_blocks": 20,
    },
    "task_options": {"coref": {"source": "data_home"}, "hsd": {"max_rows": 12000}},
    "wordsets": ["science_arts", "instruments_weapons", "wajdalevie_likable", "kato"],
    "learning_rate": 5e-05,
    "people": [],
    "classifier_params": {},
    "max_posts": None,
    "use_data_home": True,
    "source": "wiki",
}


def _run(code: str) -> dict:
    namespace: dict = {}
    exec(compile(code, "<injected>", "exec"), namespace)
    namespace.pop("__builtins__")
    return namespace


def test_every_line_fits_and_the_values_are_papermills() -> None:
    code = BookTranslator.codify(LONG)
    assert max(len(line) for line in code.splitlines()) <= WIDTH
    assert _run(code) == _run(PythonTranslator.codify(LONG)) == LONG


def test_short_lines_are_papermills_own() -> None:
    short = {k: v for k, v in LONG.items() if k not in ("standin", "task_options", "wordsets")}
    assert BookTranslator.codify(short) == PythonTranslator.codify(short)


def test_a_long_dict_is_written_one_item_a_line() -> None:
    lines = BookTranslator.codify({"standin": LONG["standin"]}).splitlines()
    assert lines[0] == "# Parameters"
    assert lines[1] == "standin = {"
    assert lines[2:-1] == [f'    "{k}": {v},' for k, v in LONG["standin"].items()]
    assert lines[-1] == "}"


def test_papermill_uses_it_for_the_books_kernel() -> None:
    use_book_translator(KERNEL)
    assert translate_parameters(KERNEL, "python", LONG) == BookTranslator.codify(LONG)


@pytest.mark.parametrize("profile", profiles(ROOT))
def test_every_profile_of_every_study_fits(profile: str) -> None:
    for study in studies(ROOT):
        params = resolve_parameters(ROOT, study, profile)
        code = BookTranslator.codify(params)
        too_long = [line for line in code.splitlines() if len(line) > WIDTH]
        assert not too_long, f"{study} on {profile}: {too_long}"
        assert _run(code) == params
