"""The ``nlpbias`` command: every failure is one line on stderr and exit status 1."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from nlpbias.book import cli, runner

ROOT = Path(__file__).resolve().parents[2]


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("nlpbias: error: ") and "\n" not in err, err
    return err


def test_unknown_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    rc = cli.main(["run", "data", "--profile", "smoke", "-p", "nonexistent=1", "--root", str(ROOT)])
    assert rc == 1
    assert "unknown parameter 'nonexistent'" in _one_error_line(capsys)


def test_unknown_profile(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "data", "--profile", "nope", "--root", str(ROOT)]) == 1
    msg = _one_error_line(capsys)
    assert "unknown profile 'nope': choose one of smoke, demo, paper, paper-smoke, full" in msg


def test_unknown_study(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["run", "logan2", "--profile", "smoke", "--root", str(ROOT)]) == 1
    assert "unknown study 'logan2'" in _one_error_line(capsys)


def test_checksum_mismatch(
    capsys: pytest.CaptureFixture[str], data_home: Path, tmp_path: Path, monkeypatch
) -> None:
    folder = tmp_path / "winobias"
    shutil.copytree(data_home / "winobias", folder)
    target = folder / "male_occupations.txt"
    target.write_bytes(target.read_bytes().replace(b"a", b"o", 1))
    monkeypatch.setenv("NLPBIAS_DATA", str(tmp_path))
    assert cli.main(["data", "verify", "winobias"]) == 1
    out = capsys.readouterr()
    assert "bad checksum" in out.out
    assert "nlpbias: error: " in out.err and "\n" not in out.err.strip()


def test_missing_dataset_offline(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setenv("NLPBIAS_DATA", str(tmp_path))
    monkeypatch.setenv("NLPBIAS_OFFLINE", "1")
    assert cli.main(["data", "fetch", "davidson2017"]) == 1
    err = _one_error_line(capsys)
    assert "davidson2017" in err and "labeled_data.csv" in err and "https://" in err


def test_data_list_shows_every_dataset(capsys: pytest.CaptureFixture[str], use_data_home) -> None:
    assert cli.main(["data", "list"]) == 0
    out = capsys.readouterr().out
    for folder in sorted(p.name for p in use_data_home.iterdir() if p.is_dir()):
        assert folder in out


def test_console_script_is_installed() -> None:
    exe = Path(sys.executable).with_name("nlpbias")
    proc = subprocess.run([str(exe), "run", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "--profile" in proc.stdout


def test_profiles_define_every_study_for_every_profile() -> None:
    config = runner.load_config(ROOT)
    assert list(config["profiles"]) == ["smoke", "demo", "paper", "paper-smoke", "full"]
    for profile in config["profiles"]:
        for study in runner.chapters(ROOT):  # the studies and the pages
            # raises RunnerError if a profile sets a parameter the notebook does not define
            runner.resolve_parameters(ROOT, study, profile)


def _entry(root: Path, rel: str, size: int) -> None:
    (root / rel).mkdir(parents=True)
    (root / rel / "output.pkl").write_bytes(b"x" * size)


def test_cache_list_and_clear(capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch) -> None:
    root = tmp_path / "cache"
    monkeypatch.setenv("NLPBIAS_CACHE", str(root))
    _entry(root, "logan/nlpbias.studies.logan.study._fit/k1", 1_500_000)
    _entry(root, "scoring/models/standin-abc", 10)
    (root / "joblib").mkdir()
    assert cli.main(["cache", "list"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:] if line.strip()}
    assert rows["logan"][:2] == ["1", "1.5"] and rows["scoring"][0] == "1"
    assert rows["shared"][:2] == ["0", "0.0"] and rows["pinned_auc"][0] == "0"
    assert f"cache folder: {root}" in out and "joblib" in out
    assert cli.main(["cache", "clear", "logan"]) == 0
    assert "cleared the logan part of" in capsys.readouterr().out
    assert not (root / "logan").exists() and (root / "scoring").exists()
    assert cli.main(["cache", "clear"]) == 0
    assert not list(root.iterdir())


def test_cache_clear_refuses_an_unknown_study(
    capsys: pytest.CaptureFixture[str], tmp_path, monkeypatch
):
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path))
    (tmp_path / "logan").mkdir()
    assert cli.main(["cache", "clear", "logan2"]) == 1
    err = _one_error_line(capsys)
    assert "unknown study 'logan2': choose one of " in err and "pinned_auc" in err
    assert (tmp_path / "logan").is_dir()


@pytest.mark.parametrize(("busy", "said"), [(75.0, True), (20.0, False)])
def test_run_at_a_terminal_says_when_other_programs_keep_the_cpus_busy(
    capsys: pytest.CaptureFixture[str], monkeypatch, busy: float, said: bool
) -> None:
    import psutil

    monkeypatch.setattr(psutil, "cpu_percent", lambda interval: busy)
    monkeypatch.setattr(psutil, "cpu_count", lambda: 2)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert cli.main(["run", "data", "--profile", "nope", "--root", str(ROOT)]) == 1
    err = capsys.readouterr().err
    assert ("other programs keep 1.5 of the 2 CPUs busy" in err) is said
    assert "unknown profile 'nope'" in err  # and then the run goes on as ever


def test_run_with_one_thread_or_off_a_terminal_does_not_measure(
    capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    import psutil

    def measured(interval: float) -> float:
        raise AssertionError("measured the CPUs")

    monkeypatch.setattr(psutil, "cpu_percent", measured)
    cli.main(["run", "data", "--profile", "nope", "--root", str(ROOT)])  # not a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    cli.main(["run", "data", "--profile", "nope", "--threads", "1", "--root", str(ROOT)])
    assert "measured the CPUs" not in capsys.readouterr().err
