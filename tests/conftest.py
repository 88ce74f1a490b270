"""Shared pytest fixtures."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session", autouse=True)
def _temporary_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every test caches into one temporary folder, never into the checkout's .nlpbias_cache
    (or a $NLPBIAS_CACHE of the shell): an entry left by an earlier run cannot make a test pass,
    and the tests leave nothing behind. Notebook kernels inherit it. A test that needs its own
    cache still sets ``NLPBIAS_CACHE`` with ``monkeypatch``."""
    folder = tmp_path_factory.mktemp("nlpbias_cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NLPBIAS_CACHE", str(folder))
        yield folder


@pytest.fixture(autouse=True)
def _book_style() -> Iterator[None]:
    """Every test draws in the book's style (``plotting.set_style``), whichever test ran before
    it; the rcParams a test changes are restored after it. So a figure test's layout does not
    depend on the order in which pytest runs the files."""
    import matplotlib

    from nlpbias import plotting

    with matplotlib.rc_context():
        plotting.set_style()
        yield


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


@pytest.fixture
def four():
    """Four texts, 2 toxic: "gay" in one toxic and one non-toxic text, "deaf" in a toxic one."""
    import pandas as pd

    return pd.DataFrame(
        {
            "text": ["Gay idiot!", "you deaf idiot", "gay pride parade", "hello there"],
            "toxic": [True, True, False, False],
        }
    )


def _message_on_one_line(err: BaseException | pytest.ExceptionInfo) -> str:
    msg = str(err.value if isinstance(err, pytest.ExceptionInfo) else err)
    assert msg and "\n" not in msg, f"error message is not one line: {msg!r}"
    return msg


@pytest.fixture
def one_line():
    """``one_line(exc)`` asserts the message of an error is one non-empty line; returns it."""
    return _message_on_one_line
