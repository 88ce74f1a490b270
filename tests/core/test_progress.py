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
    from nlpbias.metrics.query import Query
    from nlpbias.metrics.weat import weat_table

    monkeypatch.setenv("TQDM_DISABLE", "1")
    emb = {"a": [1, 0.1], "b": [0.9, 0], "c": [0.1, 1], "d": [0, 0.8], "x": [1, 0], "y": [0, 1]}
    q = Query((["a", "b"], ["c", "d"]), (["x"], ["y"]), name="q")
    weat_table(
        [q],
        emb,
        n_bootstrap=0,
        progress=True,
        ddof=1,
        n_resamples=10_000,
        max_missing=0.2,
        random_state=None,
    )
    assert "WEAT" not in capsys.readouterr().err


IN_A_KERNEL = """
import sys, warnings
import ipykernel.zmqshell  # what tqdm.autonotebook takes for a Jupyter kernel
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as seen:
    {first}
    from transformers.utils import logging  # imports tqdm.auto, as loading a model does
print(any("IProgress not found" in str(w.message) for w in seen))
"""


@pytest.mark.parametrize(
    ("first", "expected"),
    [("pass", "True"), ("import nlpbias.core.progress", "False")],
    ids=["without-nlpbias", "after-nlpbias"],
)
def test_loading_transformers_in_a_kernel_gives_no_tqdm_warning_after_nlpbias(
    first: str, expected: str
) -> None:
    """The scoring chapter's TqdmWarning: gone once nlpbias.core.progress is imported."""
    import importlib.util
    import os
    import subprocess
    import sys

    if importlib.util.find_spec("ipywidgets") is not None:
        pytest.skip("ipywidgets is installed: tqdm.auto has its widget bar and never warns")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    code = IN_A_KERNEL.format(first=first)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == expected
