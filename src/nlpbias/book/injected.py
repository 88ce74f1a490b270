"""The cell of parameters that papermill adds to a run, written to fit the book's column.

papermill puts every parameter of a run on one line of a new cell (tagged
``injected-parameters``), right after the notebook's ``parameters`` cell; the book prints that
cell like any other. A dict or list of several settings (``standin = {"steps": 150, ...}``) makes
a line longer than the column holds, and ``make check-site`` fails the page. With
:func:`use_book_translator`, a parameter whose line would be longer than :data:`WIDTH` is
written one item a line, as ruff formats the notebooks; the values are the same.

Examples
--------
>>> print(BookTranslator.codify({"profile": "demo", "seeds": [0, 1]}), end="")
# Parameters
profile = "demo"
seeds = [0, 1]
>>> print(BookTranslator.codify({"standin": {"steps": 150, "head_steps": 75,
...     "batch_size": 16, "warmup_steps": 15}}), end="")
# Parameters
standin = {
    "steps": 150,
    "head_steps": 75,
    "batch_size": 16,
    "warmup_steps": 15,
}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from papermill.translators import PythonTranslator, papermill_translators

__all__ = ["WIDTH", "BookTranslator", "use_book_translator"]

#: The longest line of the injected cell: the width the notebooks' code is formatted to
#: (``notebooks/ruff.toml``).
WIDTH = 74


class BookTranslator(PythonTranslator):
    """papermill's Python translator, with a long dict or list written one item a line."""

    @classmethod
    def codify(cls, parameters: Mapping[str, Any], comment: str = "Parameters") -> str:
        lines = [cls.comment(comment)]
        for name, value in parameters.items():
            line = cls.assign(name, cls.translate(value))
            if len(line) > WIDTH and isinstance(value, dict | list) and value:
                if isinstance(value, dict):
                    pairs = value.items()
                    items = [f"{cls.translate_str(k)}: {cls.translate(v)}" for k, v in pairs]
                    first, last = "{", "}"
                else:
                    items = [cls.translate(v) for v in value]
                    first, last = "[", "]"
                line = f"{name} = {first}\n" + "".join(f"    {i},\n" for i in items) + last
            lines.append(line)
        return "\n".join(lines) + "\n"


def use_book_translator(kernel_name: str) -> None:
    """Make papermill write the parameters of notebooks run on ``kernel_name`` with
    :class:`BookTranslator` (papermill looks a translator up by kernel name first)."""
    papermill_translators.register(kernel_name, BookTranslator)
