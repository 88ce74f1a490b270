"""The papermill runner on a throwaway project with two tiny notebooks."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
import yaml

from nlpbias.book import runner


def _notebook(params: str, body: str) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(params)
    cell.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# Toy"), cell, nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return nb


CACHED_BODY = """from nlpbias.core.cache import cached


@cached
def double(x):
    return 2 * x


print(double(n), double(n), double(n + 1))"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    nbdir = tmp_path / "notebooks"
    nbdir.mkdir()
    nbformat.write(
        _notebook("n = 3\nscale = 1.0", "print(sum(range(n)) * scale)"), nbdir / "a.ipynb"
    )
    nbformat.write(_notebook("fail = False", "assert not fail, 'asked to fail'"), nbdir / "b.ipynb")
    nbformat.write(_notebook("n = 2", CACHED_BODY), nbdir / "c.ipynb")
    config = {
        "studies": {
            "alpha": {"notebook": "a.ipynb"},
            "beta": {"notebook": "b.ipynb"},
            "gamma": {"notebook": "c.ipynb"},
        },
        "profiles": {"smoke": {"alpha": {"n": 4}}, "demo": {"alpha": {"n": 5}, "beta": None}},
    }
    (nbdir / "profiles.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    return tmp_path


def _stdout(path: Path) -> str:
    nb = nbformat.read(path, as_version=4)
    return "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_run_injects_profile_and_overrides_and_records(project: Path) -> None:
    template = (project / "notebooks" / "a.ipynb").read_text()
    rec = runner.run("alpha", "smoke", overrides={"scale": 2.0}, root=project)
    assert rec.status == "ok" and rec.parameters == {"n": 4, "scale": 2.0}
    out = Path(rec.output)
    assert out == (project / "_build" / "notebooks" / "a.ipynb").resolve()
    assert _stdout(out).strip() == "12.0"  # (0+1+2+3) * 2
    assert (project / "notebooks" / "a.ipynb").read_text() == template  # template untouched
    meta = nbformat.read(out, as_version=4).metadata["nlpbias"]
    assert meta["profile"] == "smoke" and meta["parameters"] == {"n": 4, "scale": 2.0}
    assert {"python", "numpy", "papermill"} <= set(meta["versions"])
    assert meta["duration_s"] > 0 and "git_commit" in meta
    assert meta["cache"] == {"hits": 0, "misses": 0, "steps": []}  # no cached step here
    logged = [
        json.loads(line)
        for line in (project / "_build" / "runs.jsonl").read_text().split("\n")
        if line
    ]
    assert logged[-1]["study"] == "alpha" and logged[-1]["status"] == "ok"


@pytest.mark.parametrize(
    ("study", "profile", "overrides", "needle"),
    [
        ("alpha", "smoke", {"nonexistent": 1}, "unknown parameter 'nonexistent'"),
        ("alpha", "nope", {}, "unknown profile 'nope': choose one of smoke, demo"),
        ("delta", "smoke", {}, "unknown study 'delta': choose one of alpha, beta, gamma, or 'all'"),
    ],
)
def test_bad_requests_fail_before_running_with_one_line(
    project: Path, study: str, profile: str, overrides: dict, needle: str
) -> None:
    with pytest.raises(runner.RunnerError) as err:
        runner.run(study, profile, overrides=overrides, root=project)
    assert needle in str(err.value) and "\n" not in str(err.value)
    assert not (project / "_build" / "notebooks").exists()


def test_unknown_parameter_lists_what_the_notebook_defines(project: Path) -> None:
    with pytest.raises(runner.RunnerError, match=r"defines n, scale$"):
        runner.resolve_parameters(project, "alpha", "smoke", {"nonexistent": 1})


def test_failing_cell_names_notebook_cell_and_error(project: Path) -> None:
    with pytest.raises(runner.RunnerError) as err:
        runner.run("beta", "demo", overrides={"fail": True}, root=project)
    msg = str(err.value)
    assert "b.ipynb failed in cell" in msg and "AssertionError: asked to fail" in msg
    assert "\n" not in msg
    last = json.loads((project / "_build" / "runs.jsonl").read_text().splitlines()[-1])
    assert last["status"] == "failed" and "asked to fail" in last["error"]


def test_run_all_applies_overrides_only_where_defined(project: Path) -> None:
    records = runner.run_many("all", "demo", overrides={"scale": 0.5}, root=project)
    assert [r.study for r in records] == ["alpha", "beta", "gamma"]
    assert records[0].parameters == {"n": 5, "scale": 0.5} and records[1].parameters == {}
    with pytest.raises(runner.RunnerError, match="no notebook defines it"):
        runner.run_many("all", "demo", overrides={"zzz": 1}, root=project)


def test_refuses_to_overwrite_template(project: Path) -> None:
    with pytest.raises(runner.RunnerError, match="refusing to overwrite the template"):
        runner.run("alpha", "smoke", root=project, output_dir=project / "notebooks")


@pytest.mark.parametrize(
    ("text", "expected"),
    [("n=5", ("n", 5)), ("x=0.5", ("x", 0.5)), ("w=[a, b]", ("w", ["a", "b"])),
     ("flag=true", ("flag", True)), ("s=hello world", ("s", "hello world")), ("e=", ("e", ""))],
)  # fmt: skip
def test_parse_override_reads_yaml_values(text: str, expected: tuple) -> None:
    assert runner.parse_override(text) == expected


@pytest.mark.parametrize("text", ["n", "=3", "1x=2"])
def test_parse_override_rejects_malformed(text: str) -> None:
    with pytest.raises(runner.RunnerError, match="write it as -p name=value"):
        runner.parse_override(text)


def test_run_records_which_cached_steps_were_hits(project: Path, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))  # the kernel inherits it
    first = runner.run("gamma", "demo", root=project)
    assert _stdout(Path(first.output)).split() == ["4", "4", "6"]
    assert (first.cache["hits"], first.cache["misses"]) == (1, 2)
    assert [s["hit"] for s in first.cache["steps"]] == [False, True, False]
    assert first.cache["steps"][0]["function"] == "__main__.double"
    second = runner.run("gamma", "demo", root=project)
    assert (second.cache["hits"], second.cache["misses"]) == (3, 0)
    meta = nbformat.read(Path(second.output), as_version=4).metadata["nlpbias"]
    assert meta["cache"]["hits"] == 3
    logged = json.loads((project / "_build" / "runs.jsonl").read_text().splitlines()[-1])
    assert logged["cache"]["hits"] == 3 and len(logged["cache"]["steps"]) == 3


def test_read_cache_log_counts_hits_and_skips_broken_lines(tmp_path) -> None:
    log = tmp_path / "log.jsonl"
    lines = [
        {"function": "m.f", "study": "logan", "hit": False, "seconds": 2.5, "key": "ab"},
        {"function": "m.f", "study": "logan", "hit": True, "seconds": 0.1, "key": "ab"},
        {"function": "m.g", "study": "shared", "hit": True, "seconds": 0.1, "key": "cd"},
    ]
    log.write_text("\n".join([*map(json.dumps, lines), "{broken", '"no dict"']) + "\n")
    summary = runner.read_cache_log(log)
    assert (summary["hits"], summary["misses"]) == (2, 1)
    assert summary["steps"] == lines
    assert runner.read_cache_log(tmp_path / "none.jsonl") == {"hits": 0, "misses": 0, "steps": []}
