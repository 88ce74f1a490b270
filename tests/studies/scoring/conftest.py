"""Fixtures of the scoring chapter's tests."""

from __future__ import annotations

import pytest
from matplotlib.figure import Figure


@pytest.fixture
def close():
    """Collect the figures a test makes and clear them afterwards."""
    made: list[Figure] = []

    def keep(fig: Figure) -> Figure:
        assert isinstance(fig, Figure)
        made.append(fig)
        return fig

    yield keep
    for fig in made:
        fig.clear()
