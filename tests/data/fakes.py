"""A registry entry for test files: shared by test_registry.py and test_store.py."""

from __future__ import annotations

import hashlib

from nlpbias.data import registry


def fake_dataset(
    contents: dict[str, bytes],
    urls: dict[str, str | None] | None = None,
    *,
    name: str = "fake",
    used_by: tuple[str, ...] = ("tests",),
) -> registry.Dataset:
    """A Dataset whose files have these contents (sha256 and size computed), optional URLs."""
    urls = urls or {}
    files = tuple(
        registry.DataFile(
            name=fname,
            sha256=hashlib.sha256(body).hexdigest(),
            bytes=len(body),
            url=urls.get(fname),
            prepared=None if urls.get(fname) else "made by hand for the test",
        )
        for fname, body in contents.items()
    )
    return registry.Dataset(
        name=name,
        title="Fake",
        description="A test dataset.",
        homepage="https://example.org/fake",
        commit="0" * 40,
        licence="CC0",
        citation="Nobody 2024",
        used_by=used_by,
        files=files,
    )
