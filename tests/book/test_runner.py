"""The papermill runner on a throwaway project with two tiny notebooks."""

from __future__ import annotations

import json
import os
import re
import socket
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


# ------------------------------------------------------------ parameter types, before any run


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"n": "abc"}, "parameter 'n' of study 'alpha' (a.ipynb) must be an integer (like its "
         "default 3), got 'abc' (a string), from -p n=abc; write it like -p n=3"),
        ({"n": 2.0}, "must be an integer (like its default 3), got 2.0 (a number), from -p n=2.0"),
        ({"n": True}, "must be an integer (like its default 3), got True (true or false)"),
        ({"scale": [1]}, "parameter 'scale' of study 'alpha' (a.ipynb) must be a number (like its "
         "default 1.0), got [1] (a list), from -p scale=[1]; write it like -p scale=1.0"),
        ({"n": None}, "must be an integer (like its default 3), got None (null), from -p n=null"),
    ],
)  # fmt: skip
def test_a_value_of_the_wrong_type_fails_before_running(
    project: Path, overrides: dict, message: str, one_line
) -> None:
    with pytest.raises(runner.RunnerError) as err:
        runner.run("alpha", "smoke", overrides=overrides, root=project)
    assert message in one_line(err)
    assert not (project / "_build" / "notebooks").exists()


def test_an_int_is_a_number_and_the_profile_values_are_checked_too(project: Path) -> None:
    assert runner.resolve_parameters(project, "alpha", "smoke", {"scale": 2}) == {
        "n": 4,
        "scale": 2,
    }
    config = yaml.safe_load((project / "notebooks" / "profiles.yml").read_text())
    config["profiles"]["smoke"]["alpha"]["n"] = "four"
    (project / "notebooks" / "profiles.yml").write_text(yaml.safe_dump(config))
    with pytest.raises(runner.RunnerError) as err:
        runner.resolve_parameters(project, "alpha", "smoke")
    assert str(err.value) == (
        "parameter 'n' of study 'alpha' (a.ipynb) must be an integer (like its default 3), got "
        "'four' (a string), from notebooks/profiles.yml, profile 'smoke'; fix it in "
        "notebooks/profiles.yml"
    )


def test_run_all_checks_every_notebook_before_the_first_runs(project: Path) -> None:
    with pytest.raises(runner.RunnerError, match="parameter 'fail' of study 'beta'"):
        runner.run_many("all", "demo", overrides={"fail": "yes"}, root=project)
    assert not (project / "_build" / "notebooks").exists()  # alpha did not run either


# --------------------------------------------------- a failed run never replaces a good one


def test_a_failed_run_is_kept_aside_and_the_good_one_stays(project: Path, one_line) -> None:
    out = project / "_build" / "notebooks"
    good = runner.run("beta", "demo", root=project)
    assert good.status == "ok" and Path(good.output) == (out / "b.ipynb").resolve()
    with pytest.raises(runner.RunnerError) as err:
        runner.run("beta", "demo", overrides={"fail": True}, root=project)
    msg = one_line(err)
    assert f"(see {(out / 'b.failed.ipynb').resolve()})" in msg
    assert msg.endswith(f"; the last good run is still {(out / 'b.ipynb').resolve()}")
    assert nbformat.read(out / "b.ipynb", as_version=4).metadata["nlpbias"]["status"] == "ok"
    failed = nbformat.read(out / "b.failed.ipynb", as_version=4).metadata["nlpbias"]
    assert failed["status"] == "failed" and failed["output"].endswith("b.failed.ipynb")
    runner.run("beta", "demo", root=project)  # fixed: the failed copy is gone
    assert sorted(p.name for p in out.iterdir()) == ["b.ipynb"]  # no lock or temporary file


def test_a_second_run_of_a_running_chapter_is_refused(project: Path, one_line) -> None:
    out = project / "_build" / "notebooks"
    out.mkdir(parents=True)
    holder = {"pid": os.getpid(), "host": socket.gethostname(), "profile": "paper",
              "started": "2026-01-01T10:00:00"}  # fmt: skip
    (out / "a.lock").write_text(json.dumps(holder))
    with pytest.raises(runner.RunnerError) as err:
        runner.run("alpha", "smoke", root=project)
    assert one_line(err) == (
        f"study 'alpha' is already running into {out.resolve()}: process {os.getpid()} "
        f"(profile paper, started 2026-01-01T10:00:00) holds {(out / 'a.lock').resolve()}; "
        "wait for it to end, or delete the lock file if that process is gone"
    )
    assert not (out / "a.ipynb").exists()


# ----------------------------------------------------------- what a run prints, and the kernel


def test_run_many_reports_a_line_as_each_chapter_starts_and_ends(project: Path, capfd) -> None:
    lines: list[str] = []
    runner.run_many("all", "smoke", root=project, report=lines.append)
    assert len(lines) == 6
    assert lines[0] == "[1/3] alpha (smoke): started at 0:00; no smoke run yet"
    assert re.fullmatch(r"\[1/3\] alpha \(smoke\): ok in \d+\.\d s, at \d:\d\d; no smoke run yet",
                        lines[1])  # fmt: skip
    assert lines[2].startswith("[2/3] beta (smoke): started at ")
    lines.clear()
    runner.run_many("alpha", "smoke", root=project, report=lines.append)
    assert re.fullmatch(r"\[1/1\] alpha \(smoke\): started at 0:00; last smoke run \d+\.\d s",
                        lines[0])  # fmt: skip
    assert "Kernel is running over TCP without encryption" not in capfd.readouterr().err


def test_the_commit_recorded_is_the_one_the_run_started_from(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long run outlives commits made meanwhile: its record names the commit at its start."""
    commits = iter(["aaaa1111", "bbbb2222", "cccc3333"])
    monkeypatch.setattr(runner, "git_commit", lambda root: next(commits))
    rec = runner.run("alpha", "smoke", root=project)
    assert rec.git_commit == "aaaa1111"
    meta = nbformat.read(Path(rec.output), as_version=4).metadata["nlpbias"]
    assert meta["git_commit"] == "aaaa1111"


# ------------------------------------------------------------ chapters side by side (beside:)

TIMED_BODY = """import os, time
start = time.time()
time.sleep(pause)
assert not fail, 'asked to fail'
print(start, time.time(), os.environ.get("OMP_NUM_THREADS"))"""


def _beside_project(root: Path, *, companion_fails: bool = False) -> Path:
    nbdir = root / "notebooks"
    nbdir.mkdir()
    for name in ("host", "side", "after"):
        params = f"pause = 0.0\nfail = {companion_fails and name == 'side'}"
        nbformat.write(_notebook(params, TIMED_BODY), nbdir / f"{name}.ipynb")
    config = {
        "studies": {
            "side": {"notebook": "side.ipynb", "beside": "host"},
            "host": {"notebook": "host.ipynb"},
            "after": {"notebook": "after.ipynb"},
        },
        "profiles": {"smoke": {"host": {"pause": 4.0}, "side": {"pause": 4.0}}},
    }
    (nbdir / "profiles.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    return root


def _times(path: Path) -> tuple[float, float, str]:
    start, end, threads = _stdout(path).split()
    return float(start), float(end), threads


def test_a_study_beside_another_runs_at_the_same_time_with_one_thread(tmp_path: Path) -> None:
    project = _beside_project(tmp_path)
    lines: list[str] = []
    records = runner.run_many("all", "smoke", root=project, report=lines.append)
    assert [r.study for r in records] == ["side", "host", "after"]  # book order
    assert all(r.status == "ok" for r in records)
    out = project / "_build" / "notebooks"
    side, host, after = (_times(out / f"{n}.ipynb") for n in ("side", "host", "after"))
    assert side[0] < host[1] and host[0] < side[1]  # they overlapped
    assert after[0] >= max(host[1], side[1])  # the next chapter waited for both
    assert side[2] == host[2] == "1"  # one native thread each, while side by side
    assert after[2] != "1" or os.environ.get("OMP_NUM_THREADS") == "1"  # not after them
    assert sum("started at" in line for line in lines) == 3
    side_by_side = [line for line in lines if "] side " in line or "] host " in line]
    assert len(side_by_side) == 4 and not any("left" in line for line in side_by_side)
    # one study on its own runs as before: in this process's order, its own threads
    assert runner.run_many("side", "smoke", root=project)[0].study == "side"


def test_a_failing_study_beside_another_fails_the_run_once_both_end(tmp_path: Path) -> None:
    project = _beside_project(tmp_path, companion_fails=True)
    with pytest.raises(runner.RunnerError, match=r"side.ipynb failed in cell .*asked to fail"):
        runner.run_many("all", "smoke", root=project)
    out = project / "_build" / "notebooks"
    assert (out / "host.ipynb").is_file()  # the host finished
    assert not (out / "after.ipynb").exists()  # nothing ran after the failure


def test_beside_must_name_another_study(tmp_path: Path) -> None:
    project = _beside_project(tmp_path)
    config = yaml.safe_load((project / "notebooks" / "profiles.yml").read_text())
    config["studies"]["side"]["beside"] = "nowhere"
    (project / "notebooks" / "profiles.yml").write_text(yaml.safe_dump(config))
    with pytest.raises(runner.RunnerError, match="says beside: 'nowhere'; name another study"):
        runner.beside(project)
