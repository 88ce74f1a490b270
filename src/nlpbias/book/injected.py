"""The cell of parameters that papermill adds to a run, written to fit the book's column.

papermill puts every parameter of a run on one line of a new cell (tagged
``injected-parameters``), right after the notebook's ``parameters`` cell; the book prints that
cell like any other. A dict or list of several settings (``standin = {"steps": 150, ...}``) makes
a line longer than the column holds, and ``make check-site`` fails the page. With
:func:`use_book_translator`, a parameter whose line would be longer than :data:`WIDTH` is
written one item a line (and an item too long for its line the same way, one level deeper), as
ruff formats the notebooks; the values are the same.

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
>>> print(BookTranslator.codify({"ablation": {"person": "Trump", "rows": {
...     "as the chapter": {}, "twice the steps": {"max_steps": 60},
...     "learning rate x 4": {"learning_rate": 2e-4}}}}), end="")
# Parameters
ablation = {
    "person": "Trump",
    "rows": {
        "as the chapter": {},
        "twice the steps": {"max_steps": 60},
        "learning rate x 4": {"learning_rate": 0.0002},
    },
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
        lines += [cls._written(f"{name} = ", value, "") for name, value in parameters.items()]
        return "\n".join(lines) + "\n"

    @classmethod
    def _written(cls, head: str, value: Any, indent: str, tail: str = "") -> str:
        """``head`` and ``value`` on one line if it fits :data:`WIDTH`; else a dict or list one
        item a line (an item that is itself too long, the same way one level deeper)."""
        line = f"{indent}{head}{cls.translate(value)}{tail}"
        if len(line) <= WIDTH or not isinstance(value, dict | list) or not value:
            return line
        inner = indent + "    "
        if isinstance(value, dict):
            items = [cls._written(f"{cls.translate_str(k)}: ", v, inner, ",")
                     for k, v in value.items()]  # fmt: skip
            first, last = "{", "}"
        else:
            items = [cls._written("", v, inner, ",") for v in value]
            first, last = "[", "]"
        return (
            f"{indent}{head}{first}\n" + "".join(f"{i}\n" for i in items) + f"{indent}{last}{tail}"
        )


def use_book_translator(kernel_name: str) -> None:
    """Make papermill write the parameters of notebooks run on ``kernel_name`` with
    :class:`BookTranslator` (papermill looks a translator up by kernel name first)."""
    papermill_translators.register(kernel_name, BookTranslator)
