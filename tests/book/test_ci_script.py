"""`.ci/run` installs Chromium for the browser check, run with fake apt-get, id and make."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ("dirname", "mktemp", "tail", "rm", "chmod")


def _tool(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)


def _ci(tmp_path: Path, *, uid: int = 0, apt: str | None = "ok", chromium: bool = False):
    """Run a copy of .ci/run where PATH holds only fakes (and the coreutils it needs)."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy2(ROOT / ".ci" / "run", repo / ".ci" / "run")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in TOOLS:
        (bin_dir / name).symlink_to(shutil.which(name))
    calls = tmp_path / "calls"
    _tool(bin_dir, "id", f"echo {uid}")
    _tool(bin_dir, "make", f'echo "make $*" >> {calls}')
    if chromium:
        _tool(bin_dir, "chromium", "exit 0")
    if apt == "ok":  # installs chromium when asked to
        _tool(
            bin_dir,
            "apt-get",
            f'echo "apt-get $*" >> {calls}\n'
            f'case "$*" in *install*) printf "#!/bin/sh\\n" > {bin_dir}/chromium;'
            f" chmod +x {bin_dir}/chromium;; esac",
        )
    elif apt == "fails":
        _tool(
            bin_dir,
            "apt-get",
            f'echo "apt-get $*" >> {calls}\n'
            'case "$*" in *install*) echo "E: Unable to locate package chromium"; exit 100;; esac',
        )
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path)}
    proc = subprocess.run(
        ["/bin/bash", str(repo / ".ci" / "run")], capture_output=True, text=True, env=env
    )
    made = calls.read_text().splitlines() if calls.is_file() else []
    return proc, made


@pytest.mark.skipif(os.name != "posix", reason="runs the bash script")
def test_ci_installs_chromium_quietly_when_it_is_missing(tmp_path: Path) -> None:
    proc, calls = _ci(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert calls == ["apt-get update -qq", "apt-get install -y -qq chromium", "make test"]
    assert "installing Debian's chromium" in proc.stdout and proc.stderr == ""


@pytest.mark.skipif(os.name != "posix", reason="runs the bash script")
def test_ci_goes_on_with_one_clear_line_when_apt_fails(tmp_path: Path) -> None:
    proc, calls = _ci(tmp_path, apt="fails")
    assert proc.returncode == 0
    assert calls[-1] == "make test"
    assert proc.stderr.strip().splitlines() == [
        "ci: could not install chromium (apt-get failed: E: Unable to locate package chromium):"
        " the browser check will be skipped"
    ]


@pytest.mark.skipif(os.name != "posix", reason="runs the bash script")
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"chromium": True}, ""),
        ({"uid": 1000}, "no chromium, and no apt-get as root"),
        ({"apt": None}, "no chromium, and no apt-get as root"),
    ],
    ids=["chromium-present", "not-root", "no-apt"],
)
def test_ci_runs_no_apt_when_it_has_chromium_or_cannot_install(
    tmp_path: Path, kwargs: dict, message: str
) -> None:
    proc, calls = _ci(tmp_path, **kwargs)
    assert proc.returncode == 0
    assert calls == ["make test"]
    assert message in proc.stderr and (message or proc.stderr == "")
