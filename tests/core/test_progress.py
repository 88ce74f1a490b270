"""Progress bars obey the caller and TQDM_DISABLE (which the runner sets in the kernel)."""

from __future__ import annotations

import pytest

from nlpbias.core.progress import progress


@pytest.mark.parametrize(("env", "enabled", "disabled"), [
    (None, True, False), (None, False, True), ("1", True, True), ("0", True, False),
])  # fmt: skip
def test_progress_is_off_when_the_caller_or_the_environment_says_so(
    monkeypatch: pytest.MonkeyPatch, env: str | None, enabled: bool, disabled: bool
) -> None:
    if env is None:
        monkeypatch.delenv("TQDM_DISABLE", raising=False)
    else:
        monkeypatch.setenv("TQDM_DISABLE", env)
    bar = progress(range(2), enabled=enabled)
    assert bar.disable is disabled
    assert list(bar) == [0, 1]


def test_weat_table_prints_no_bar_when_disabled_by_env(monkeypatch, capsys) -> None:
    from nlpbias.metrics.intrinsic import weat_table
    from nlpbias.metrics.query import Query

    monkeypatch.setenv("TQDM_DISABLE", "1")
    emb = {"a": [1, 0.1], "b": [0.9, 0], "c": [0.1, 1], "d": [0, 0.8], "x": [1, 0], "y": [0, 1]}
    q = Query((["a", "b"], ["c", "d"]), (["x"], ["y"]), name="q")
    weat_table([q], emb, n_bootstrap=0, progress=True)
    assert "WEAT" not in capsys.readouterr().err
