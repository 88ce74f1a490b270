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
    assert "unknown profile 'nope': choose one of smoke, demo, paper, full" in _one_error_line(
        capsys
    )


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


def test_data_list_shows_every_dataset(capsys: pytest.CaptureFixture[str], data_home) -> None:
    assert cli.main(["data", "list"]) == 0
    out = capsys.readouterr().out
    for folder in sorted(p.name for p in data_home.iterdir() if p.is_dir()):
        assert folder in out


def test_console_script_is_installed() -> None:
    exe = Path(sys.executable).with_name("nlpbias")
    proc = subprocess.run([str(exe), "run", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "--profile" in proc.stdout


def test_profiles_define_every_study_for_every_profile() -> None:
    config = runner.load_config(ROOT)
    assert list(config["profiles"]) == ["smoke", "demo", "paper", "full"]
    for profile in config["profiles"]:
        for study in config["studies"]:
            # raises RunnerError if a profile sets a parameter the notebook does not define
            runner.resolve_parameters(ROOT, study, profile)
