"""The code a computation runs: the static import closure of a module, and a digest of it.

:func:`import_closure` lists the ``nlpbias`` modules a module can reach through its import
statements, read from the source with :mod:`ast` (nothing is imported):

- ``import nlpbias.x.y`` reaches ``nlpbias.x.y``;
- ``from nlpbias.x import y`` reaches ``nlpbias.x.y`` when ``y`` is a module
  (``nlpbias/x/y.py`` or ``nlpbias/x/y/__init__.py``), else ``nlpbias.x``; relative imports
  likewise;
- imports inside functions count, and so do those under ``if TYPE_CHECKING:``;
- a package's ``__init__`` counts only when it is imported itself: reaching ``nlpbias.a.b`` does
  not reach everything ``nlpbias/a/__init__.py`` re-exports;
- a module that imports by name at run time (``importlib.import_module``, ``__import__``)
  reaches every module of its package;
- and so on, transitively. The closure is computed once per module and process.

:func:`code_digest` is a sha256 over the closure's module names and sources. The source of a
module is the one **recorded when the module was imported**: ``import nlpbias`` installs a
:data:`sys.meta_path` finder (:func:`install_import_recorder`) that notes the sha256 of every
``nlpbias.*`` source file as it is found. A module not imported yet counts with its bytes on
disk. So a process (a Jupyter kernel) that keeps running the code it imported after the file
was edited keeps that code's digest: it can neither serve the new code an old result nor store
an old-code result under the new code's digest.

Examples
--------
>>> "nlpbias.core.paths" in import_closure("nlpbias.core.closure")
True
>>> "nlpbias.data.wordsets" in import_closure("nlpbias.core.closure")
False
>>> len(code_digest("nlpbias.core.closure"))
64
"""

from __future__ import annotations

import ast
import hashlib
import importlib.abc
import importlib.machinery
import sys
from pathlib import Path

from nlpbias.core.paths import file_sha256, package_dir

__all__ = [
    "code_digest",
    "import_closure",
    "install_import_recorder",
    "module_file",
    "note_module_source",
    "source_digest",
]

_ROOT = "nlpbias"
#: module name -> sha256 of its source when it was imported (or decorated, see cache.cached)
_IMPORTED: dict[str, str] = {}
_DIRECT: dict[str, frozenset[str]] = {}
_CLOSURES: dict[str, tuple[str, ...]] = {}
_DYNAMIC = {"import_module", "__import__"}


def _ours(name: str) -> bool:
    return name == _ROOT or name.startswith(_ROOT + ".")


def module_file(module_name: str) -> Path | None:
    """The source file of a module: ``nlpbias.*`` from this package's folder, any other module
    from its ``__file__`` when it is imported; None when there is none."""
    if _ours(module_name):
        base = package_dir().joinpath(*module_name.split(".")[1:])
        for cand in (base / "__init__.py", base.with_suffix(".py")):
            if cand.is_file():
                return cand
        return None
    file = getattr(sys.modules.get(module_name), "__file__", None)
    return Path(file) if file and file.endswith(".py") and Path(file).is_file() else None


def note_module_source(module_name: str, path: str | Path) -> None:
    """Record the sha256 of ``path`` as the source ``module_name`` runs (at import time)."""
    try:
        _IMPORTED[module_name] = file_sha256(path)
    except OSError:
        _IMPORTED.pop(module_name, None)


def source_digest(module_name: str) -> str | None:
    """The sha256 of a module's source: as imported in this process, else as on disk now.

    Returns
    -------
    str or None
        None when the module has no source file.
    """
    if module_name in _IMPORTED:
        return _IMPORTED[module_name]
    file = module_file(module_name)
    if file is None:
        return None
    try:
        return file_sha256(file)
    except OSError:
        return None


def _package_modules(package: str) -> set[str]:
    """Every module under a package's folder (the package itself included)."""
    init = module_file(package)
    if init is None or init.name != "__init__.py":
        return set()
    found = set()
    for file in init.parent.rglob("*.py"):
        parts = file.relative_to(init.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found.add(".".join((package, *parts)))
    return found


def _is_dynamic_import(node: ast.Call) -> bool:
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    return name in _DYNAMIC


def _direct_imports(module_name: str) -> frozenset[str]:
    """The ``nlpbias`` modules one module's import statements name (see the module docstring)."""
    if module_name in _DIRECT:
        return _DIRECT[module_name]
    file = module_file(module_name)
    found: set[str] = set()
    if file is not None:
        try:
            tree = ast.parse(file.read_bytes(), filename=str(file))
        except (OSError, SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        is_package = file.name == "__init__.py"
        package = module_name if is_package else module_name.rpartition(".")[0]
        dynamic = False
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names if _ours(a.name) and module_file(a.name))
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(node, package)
                if base is None or not _ours(base):
                    continue
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    if alias.name != "*" and module_file(sub) is not None:
                        found.add(sub)
                    elif module_file(base) is not None:
                        found.add(base)
            elif isinstance(node, ast.Call) and _is_dynamic_import(node):
                dynamic = True
        if dynamic and _ours(module_name):
            found.update(_package_modules(package or _ROOT))
    found.discard(module_name)
    _DIRECT[module_name] = frozenset(found)
    return _DIRECT[module_name]


def _absolute(node: ast.ImportFrom, package: str) -> str | None:
    """The absolute module a ``from ... import`` statement imports from (None if unresolvable)."""
    if not node.level:
        return node.module
    parts = package.split(".") if package else []
    if node.level - 1 > len(parts) or not parts:
        return None
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def import_closure(module_name: str) -> list[str]:
    """The module and every ``nlpbias`` module its imports reach, transitively (sorted).

    Parameters
    ----------
    module_name : str
        A dotted module name, e.g. ``"nlpbias.studies.pinned_auc.study"``; a module outside
        ``nlpbias`` is read from its file when it is imported (it counts itself, and the
        ``nlpbias`` modules it imports).

    Returns
    -------
    list of str
        Sorted module names, ``module_name`` included. Memoised per process.

    Examples
    --------
    >>> import_closure("nlpbias.core.provenance")
    ['nlpbias.core.provenance']
    """
    if not isinstance(module_name, str) or not module_name:
        raise TypeError(f"module_name must be a dotted module name, got {module_name!r}")
    if module_name not in _CLOSURES:
        seen = {module_name}
        todo = [module_name]
        while todo:
            for dep in _direct_imports(todo.pop()):
                if dep not in seen:
                    seen.add(dep)
                    todo.append(dep)
        _CLOSURES[module_name] = tuple(sorted(seen))
    return list(_CLOSURES[module_name])


def code_digest(module_name: str) -> str:
    """sha256 (hex) over the names and sources of :func:`import_closure` of a module.

    Each source counts as it was imported in this process, else as it is on disk (module
    docstring). Editing any module of the closure changes the digest; editing a module outside
    it (another study's package) does not.

    Parameters
    ----------
    module_name : str

    Returns
    -------
    str
        64 hex digits.
    """
    digest = hashlib.sha256()
    for name in import_closure(module_name):
        digest.update(f"{name}\0{source_digest(name) or '-'}\n".encode())
    return digest.hexdigest()


class _SourceRecorder(importlib.abc.MetaPathFinder):
    """Notes the sha256 of each ``nlpbias.*`` source file as the import system finds it."""

    nlpbias_source_recorder = True

    def find_spec(self, fullname, path, target=None):
        if not fullname.startswith(_ROOT + "."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            note_module_source(fullname, spec.origin)
        return spec


def install_import_recorder() -> None:
    """Put the source-recording finder first on :data:`sys.meta_path` (once per process).

    Called by ``nlpbias/__init__.py``, before any submodule is imported; the few modules
    imported before it is in place (the package, the core package, this module and its
    imports) are recorded from their files at once.
    """
    if not any(getattr(f, "nlpbias_source_recorder", False) for f in sys.meta_path):
        sys.meta_path.insert(0, _SourceRecorder())
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if _ours(name) and name not in _IMPORTED and file and file.endswith(".py"):
            note_module_source(name, file)
