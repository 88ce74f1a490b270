"""The types of a notebook's parameters, checked before the notebook runs.

A value given with ``-p name=value`` (read as YAML) or set in ``notebooks/profiles.yml`` must have
the type of the default in the notebook's ``parameters`` cell, so that a wrong value fails in one
line before any work starts instead of deep inside the notebook (``-p seeds=abc`` used to end in
``invalid literal for int()``, ``-p seeds=-1`` in ``object of type 'int' has no len()``).

The rules, from the default's type:

- ``bool``: true or false (not 0 or 1);
- ``int``: an integer (not a bool, not a float: ``1e4`` for ``10_000`` is usually a mistake);
- ``float``: a number (an integer is accepted);
- ``str``: a string;
- ``list``: a list; when the default's items all have one of the types above, every item must
  have it too (``seeds = [0, 1]``: a list of integers);
- ``dict``: a mapping (its keys are the called function's business);
- ``None``: anything (the notebook says what it accepts).

``None`` (YAML ``null``) is accepted for any parameter whose default is None or whose comment in
the parameters cell says what None does, e.g. ``max_rows = 5000  # (None: all rows)``.

Examples
--------
>>> check_value(-1, [0, 1])
'must be a list of integers (like its default [0, 1]), got -1 (an integer)'
>>> check_value([0, 3], [0, 1]) is None
True
"""

from __future__ import annotations

import ast
import numbers
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

__all__ = ["UNKNOWN", "ParameterSpec", "check_value", "parameter_specs", "yaml_text"]

#: The default of a parameter whose value cannot be worked out from its source text.
UNKNOWN = object()

_KINDS = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}
_PLURAL = {bool: "booleans", int: "integers", float: "numbers", str: "strings"}


class ParameterSpec:
    """One parameter of a notebook: its default value (or :data:`UNKNOWN`) and its comment."""

    def __init__(self, default: Any, help: str = "") -> None:
        self.default = default
        self.help = help

    @property
    def none_ok(self) -> bool:
        """True when None is accepted: the default is None or the comment says what None does."""
        return self.default is None or "None" in self.help

    def __repr__(self) -> str:
        return f"ParameterSpec({self.default!r}, help={self.help!r})"


def _value(text: str) -> Any:
    """The value of a default's source text (a literal, or an expression such as a list
    comprehension); :data:`UNKNOWN` when it cannot be evaluated on its own."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    try:
        return eval(compile(text, "<parameters cell>", "eval"), {})  # the project's own cell
    except Exception:  # a name defined elsewhere, or any other failure: do not check its type
        return UNKNOWN


def parameter_specs(notebook: str | Path) -> dict[str, ParameterSpec]:
    """Name -> :class:`ParameterSpec` of every variable in the cell tagged ``parameters``."""
    import papermill

    params = papermill.inspect_notebook(str(notebook))
    return {
        name: ParameterSpec(_value(str(spec["default"])), str(spec.get("help") or ""))
        for name, spec in params.items()
    }


def _scalar_kind(value: Any) -> type | None:
    """``bool``, ``int``, ``float`` or ``str`` for a value of that type (NumPy's included)."""
    if isinstance(value, bool):
        return bool
    if isinstance(value, numbers.Integral):
        return int
    if isinstance(value, numbers.Real):
        return float
    if isinstance(value, str):
        return str
    return None


def _fits(value: Any, kind: type) -> bool:
    got = _scalar_kind(value)
    return got is kind or (kind is float and got is int)


def _describe(value: Any) -> str:
    """What a value is, in words: 'an integer', 'a list', 'null', ..."""
    if value is None:
        return "null"
    kind = _scalar_kind(value)
    if kind is not None:
        return _KINDS[kind]
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return type(value).__name__


def _want(default: Any) -> str:
    """The type a value must have, in words, from the default."""
    kind = _scalar_kind(default)
    if kind is not None:
        return _KINDS[kind]
    if isinstance(default, list | tuple):
        item = _item_kind(default)
        return f"a list of {_PLURAL[item]}" if item else "a list"
    if isinstance(default, Mapping):
        return "a mapping {key: value, ...}"
    return type(default).__name__


def _item_kind(default: list | tuple) -> type | None:
    """The one scalar type of a list default's items, or None (empty or mixed)."""
    kinds = {_scalar_kind(v) for v in default}
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    if kind is int and any(isinstance(v, bool) for v in default):
        return None
    return kind


def yaml_text(value: Any) -> str:
    """``value`` as one would write it after ``-p name=`` (YAML flow style)."""
    return yaml.safe_dump(value, default_flow_style=True, width=10**6).strip().removesuffix("\n...")


def check_value(value: Any, default: Any, *, none_ok: bool = False) -> str | None:
    """None when ``value`` fits the type of ``default``, else what is wrong (one line).

    Parameters
    ----------
    value : object
        The value to run the notebook with.
    default : object
        The default in the parameters cell (:data:`UNKNOWN`: nothing is checked).
    none_ok : bool, default False
        Whether None is accepted (it always is when ``default`` is None).

    Returns
    -------
    str or None
        E.g. ``"must be an integer (like its default 5), got 'abc' (a string)"``.
    """
    if default is UNKNOWN or default is None:
        return None
    if value is None and none_ok:
        return None
    want = _want(default)
    ok = False
    kind = _scalar_kind(default)
    if kind is not None:
        ok = _fits(value, kind)
    elif isinstance(default, list | tuple):
        item = _item_kind(default)
        if isinstance(value, list | tuple):
            bad = [v for v in value if item is not None and not _fits(v, item)]
            if bad:
                return (
                    f"must be {want} (like its default {yaml_text(list(default))}), but item "
                    f"{bad[0]!r} is {_describe(bad[0])}"
                )
            ok = True
    elif isinstance(default, Mapping):
        ok = isinstance(value, Mapping)
    else:
        ok = isinstance(value, type(default))
    if ok:
        return None
    shown = yaml_text(list(default) if isinstance(default, tuple) else default)
    also = " or null" if none_ok else ""
    return f"must be {want}{also} (like its default {shown}), got {value!r} ({_describe(value)})"
