"""Shared pytest fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


def _real_data_home() -> Path | None:
    env = os.environ.get("NLPBIAS_DATA")
    for cand in (Path(env) if env else None, SHARED_DATA):
        if cand is not None and (cand / "davidson2017").is_dir():
            return cand.resolve()
    return None


@pytest.fixture(scope="session")
def data_home() -> Path:
    """The real data home (../shared/data or $NLPBIAS_DATA); skips the test when absent."""
    home = _real_data_home()
    if home is None:
        pytest.skip("real data home not available (set NLPBIAS_DATA)")
    return home


@pytest.fixture
def use_data_home(data_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point $NLPBIAS_DATA at the real data home for one test."""
    monkeypatch.setenv("NLPBIAS_DATA", str(data_home))
    return data_home
