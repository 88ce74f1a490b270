"""Tests of nlpbias.data.store: verification, the verified-file cache, errors, downloads."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace

import pytest
from fakes import fake_dataset

from nlpbias import data
from nlpbias.data import registry, store

# --------------------------------------------------------------------------- fixtures/helpers


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the fallback cache in tmp and start every test online-by-default."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("NLPBIAS_OFFLINE", raising=False)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty, writable data home."""
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("NLPBIAS_DATA", str(h))
    return h


def _register(
    monkeypatch: pytest.MonkeyPatch,
    contents: dict[str, bytes],
    urls: dict[str, str | None] | None = None,
    name: str = "fake",
) -> registry.Dataset:
    ds = fake_dataset(contents, urls, name=name)
    monkeypatch.setitem(registry.datasets(), name, ds)
    return ds


def _write(home: Path, dataset: str, fname: str, body: bytes) -> Path:
    p = home / dataset / fname
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes(body)
    return p


def _leftovers(home: Path) -> list[str]:
    return sorted(
        str(p.relative_to(home))
        for p in home.rglob("*")
        if p.is_file() and p.name != store.CACHE_NAME
    )


def _count_hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    calls: list[Path] = []
    real = store._sha256_file

    def counting(p: Path) -> str:
        calls.append(p)
        return real(p)

    monkeypatch.setattr(store, "_sha256_file", counting)
    return calls


class _Handler(SimpleHTTPRequestHandler):
    hits: list[str]
    drop: set[str]
    slow: set[str]

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        self.hits.append(self.path)
        if self.path in self.slow:
            time.sleep(1.0)
        super().do_GET()

    def copyfile(self, source, outputfile) -> None:  # type: ignore[no-untyped-def]
        body = source.read()
        if self.path in self.drop:  # promise the full length, send half, hang up
            outputfile.write(body[: len(body) // 2])
            outputfile.flush()
            self.close_connection = True
            return
        outputfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(tmp_path: Path):
    """Loopback HTTP server serving files from tmp_path/'srv'; records every request path."""
    root = tmp_path / "srv"
    root.mkdir()
    state = SimpleNamespace(root=root, hits=[], drop=set(), slow=set())
    handler = type(
        "H",
        (_Handler,),
        {"hits": state.hits, "drop": state.drop, "slow": state.slow},
    )

    def factory(*args, **kwargs):  # type: ignore[no-untyped-def]
        return handler(*args, directory=str(root), **kwargs)

    srv = ThreadingHTTPServer(("127.0.0.1", 0), factory)
    thread = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{srv.server_address[1]}"
    yield state
    srv.shutdown()
    srv.server_close()


def test_path_and_verify_on_the_real_data_home(
    use_data_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("NLPBIAS_OFFLINE", "1")
    assert data.data_home() == use_data_home
    assert data.path("gap") == use_data_home / "gap"
    p = data.path("dixon2018", "bias_madlibs_data/names.txt")
    assert p == use_data_home / "dixon2018" / "bias_madlibs_data" / "names.txt" and p.is_file()
    table = data.verify()
    assert len(table) == sum(len(ds.files) for ds in data.datasets().values())
    assert set(table["status"]) == {"ok"}
    listing = data.list_datasets()
    assert listing["available"].all()
    assert listing.set_index("name").loc["winobias", "files"] == 21
    if not store._writable(use_data_home):  # read-only home: cache goes to the user cache folder
        assert (tmp_path / "xdg" / "nlpbias" / "verified.json").is_file()


# --------------------------------------------------------------------------- verified cache


def test_verified_cache_avoids_rehashing_and_notices_changes(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _register(monkeypatch, {"sub/a.txt": b"alpha\n", "b.txt": b"bravo\n"})
    _write(home, "fake", "sub/a.txt", b"alpha\n")
    b = _write(home, "fake", "b.txt", b"bravo\n")
    calls = _count_hashes(monkeypatch)
    assert data.path("fake") == home / "fake"
    assert len(calls) == 2
    assert data.path("fake") == home / "fake"
    assert data.path("fake", "sub/a.txt") == home / "fake" / "sub" / "a.txt"
    assert set(data.verify("fake")["status"]) == {"ok"}
    assert len(calls) == 2  # nothing re-hashed
    cache = json.loads((home / store.CACHE_NAME).read_text())
    assert cache[str(b)]["sha256"] == hashlib.sha256(b"bravo\n").hexdigest()
    st = b.stat()
    os.utime(b, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    data.path("fake")
    assert calls[2:] == [b]  # only the touched file is hashed again
    data.path("fake")
    assert len(calls) == 3


def test_changed_content_is_caught_after_caching(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _register(monkeypatch, {"a.txt": b"alpha\n"})
    a = _write(home, "fake", "a.txt", b"alpha\n")
    calls = _count_hashes(monkeypatch)
    data.path("fake", "a.txt")
    a.write_bytes(b"alphx\n")  # same size, new mtime
    os.utime(a, ns=(a.stat().st_atime_ns, a.stat().st_mtime_ns + 10**9))
    with pytest.raises(data.ChecksumError, match="sha256"):
        data.path("fake", "a.txt")
    assert len(calls) == 2
    a.write_bytes(b"alpha, longer\n")  # size differs: rejected without hashing
    with pytest.raises(data.ChecksumError, match="14 bytes but the registry expects 6"):
        data.path("fake", "a.txt")
    assert len(calls) == 2
    assert a.read_bytes() == b"alpha, longer\n"  # user files are never deleted


def test_read_only_home_keeps_cache_in_user_cache(
    home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _register(monkeypatch, {"a.txt": b"alpha\n"})
    _write(home, "fake", "a.txt", b"alpha\n")
    calls = _count_hashes(monkeypatch)
    home.chmod(0o555)
    try:
        data.path("fake")
        data.path("fake")
    finally:
        home.chmod(0o755)
    assert not (home / store.CACHE_NAME).exists()
    assert (tmp_path / "xdg" / "nlpbias" / "verified.json").is_file()
    assert len(calls) == 1


# --------------------------------------------------------------------------- errors


def test_corrupted_copy_raises_checksum_error(
    data_home: Path, home: Path, monkeypatch: pytest.MonkeyPatch, one_line
) -> None:
    monkeypatch.setenv("NLPBIAS_OFFLINE", "1")
    src = data_home / "winobias" / "female_occupations.txt"
    dst = home / "winobias" / "female_occupations.txt"
    dst.parent.mkdir()
    shutil.copyfile(src, dst)
    assert data.path("winobias", "female_occupations.txt") == dst  # the intact copy is fine
    body = bytearray(dst.read_bytes())
    body[3] ^= 0x01
    dst.write_bytes(bytes(body))
    os.utime(dst, ns=(dst.stat().st_atime_ns, dst.stat().st_mtime_ns + 10**9))
    with pytest.raises(data.ChecksumError) as info:
        data.path("winobias", "female_occupations.txt")
    msg = one_line(info.value)
    assert "'winobias'" in msg and "female_occupations.txt" in msg and str(home) in msg
    assert "`nlpbias data fetch winobias --force`" in msg
    assert dst.read_bytes() == bytes(body)
    table = data.verify("winobias").set_index("file")["status"]
    assert table["female_occupations.txt"] == "bad checksum"
    assert (table.drop("female_occupations.txt") == "missing").all()


def test_missing_file_offline_names_dataset_file_and_url(
    home: Path, monkeypatch: pytest.MonkeyPatch, one_line
) -> None:
    monkeypatch.setenv("NLPBIAS_OFFLINE", "1")

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("network used while offline")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    url = data.get("davidson2017").file("labeled_data.csv").url
    with pytest.raises(data.MissingDataError) as info:
        data.path("davidson2017", "labeled_data.csv")
    msg = one_line(info.value)
    assert "'davidson2017'" in msg and "labeled_data.csv" in msg and url in msg
    assert str(home / "davidson2017") in msg and "offline" in msg
    with pytest.raises(data.MissingDataError) as info:
        data.path("twitteraae")
    msg = one_line(info.value)
    assert "model_vocab.txt.gz" in msg and "https://github.com/slanglab/twitteraae" in msg
    assert "cannot be downloaded" in msg


def test_download_false_never_downloads(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _register(monkeypatch, {"a.txt": b"alpha\n"}, {"a.txt": "http://127.0.0.1:9/a.txt"})
    monkeypatch.setattr(urllib.request, "urlopen", pytest.fail)
    with pytest.raises(data.MissingDataError, match="download=False"):
        data.path("fake", download=False)


def test_unknown_names_raise_in_path_fetch_verify() -> None:
    with pytest.raises(data.DatasetNotFoundError):
        data.path("nope")
    with pytest.raises(data.DatasetNotFoundError):
        data.fetch("nope")
    with pytest.raises(data.DatasetNotFoundError):
        data.verify("nope")
    with pytest.raises(data.DataError, match="no file 'labelled.csv'"):
        data.path("davidson2017", "labelled.csv")


def test_verify_reports_each_state(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _register(monkeypatch, {"ok.txt": b"1234", "gone.txt": b"56", "bad.txt": b"789"})
    _write(home, "fake", "ok.txt", b"1234")
    _write(home, "fake", "bad.txt", b"78X")
    table = data.verify("fake")
    assert table.columns.tolist() == ["dataset", "file", "status", "path"]
    assert table["status"].tolist() == ["ok", "missing", "bad checksum"]
    assert table["path"].tolist() == [
        str(home / "fake" / n) for n in ("ok.txt", "gone.txt", "bad.txt")
    ]
    assert _leftovers(home) == ["fake/bad.txt", "fake/ok.txt"]  # verify never deletes


# --------------------------------------------------------------------------- downloads (loopback)


def test_download_verifies_and_caches(home: Path, server, monkeypatch: pytest.MonkeyPatch) -> None:
    body = b"tweet one\ntweet two\n" * 1000
    (server.root / "a.txt").write_bytes(body)
    _register(monkeypatch, {"sub/a.txt": body}, {"sub/a.txt": f"{server.url}/a.txt"})
    p = data.path("fake", "sub/a.txt")
    assert p == home / "fake" / "sub" / "a.txt" and p.read_bytes() == body
    assert server.hits == ["/a.txt"]
    assert _leftovers(home) == ["fake/sub/a.txt"]
    calls = _count_hashes(monkeypatch)
    assert data.path("fake") == home / "fake"
    assert data.fetch("fake") == home / "fake"
    assert server.hits == ["/a.txt"] and calls == []  # no request, no re-hash
    data.fetch("fake", force=True)
    assert server.hits == ["/a.txt", "/a.txt"]
    assert data.verify("fake")["status"].tolist() == ["ok"]


def test_corrupt_download_leaves_nothing(
    home: Path, server, monkeypatch: pytest.MonkeyPatch, one_line
) -> None:
    (server.root / "a.txt").write_bytes(b"alphx\n")
    _register(monkeypatch, {"a.txt": b"alpha\n"}, {"a.txt": f"{server.url}/a.txt"})
    with pytest.raises(data.ChecksumError) as info:
        data.path("fake", "a.txt")
    msg = one_line(info.value)
    assert "'fake'" in msg and "a.txt" in msg and "nothing was saved" in msg
    assert _leftovers(home) == []


def test_http_404_leaves_nothing(
    home: Path, server, monkeypatch: pytest.MonkeyPatch, one_line
) -> None:
    _register(monkeypatch, {"a.txt": b"alpha\n"}, {"a.txt": f"{server.url}/missing.txt"})
    with pytest.raises(data.MissingDataError) as info:
        data.fetch("fake")
    msg = one_line(info.value)
    assert "404" in msg and "'fake'" in msg and f"{server.url}/missing.txt" in msg
    assert isinstance(info.value.__cause__, urllib.error.HTTPError)
    assert _leftovers(home) == []


def test_dropped_connection_leaves_nothing(
    home: Path, server, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = bytes(range(256)) * 400
    (server.root / "a.bin").write_bytes(body)
    server.drop.add("/a.bin")
    _register(monkeypatch, {"a.bin": body}, {"a.bin": f"{server.url}/a.bin"})
    with pytest.raises(data.MissingDataError, match="IncompleteRead"):
        data.path("fake")
    assert server.hits == ["/a.bin"]
    assert _leftovers(home) == []


def test_stalled_server_times_out(home: Path, server, monkeypatch: pytest.MonkeyPatch) -> None:
    (server.root / "a.txt").write_bytes(b"alpha\n")
    server.slow.add("/a.txt")
    monkeypatch.setattr(store, "TIMEOUT", 0.2)
    _register(monkeypatch, {"a.txt": b"alpha\n"}, {"a.txt": f"{server.url}/a.txt"})
    with pytest.raises(data.MissingDataError, match="timed out"):
        data.path("fake")
    assert _leftovers(home) == []


def test_interrupted_download_removes_part_file(
    home: Path, server, monkeypatch: pytest.MonkeyPatch
) -> None:
    (server.root / "a.txt").write_bytes(b"alpha\n")
    _register(monkeypatch, {"a.txt": b"alpha\n"}, {"a.txt": f"{server.url}/a.txt"})

    class Interrupting:
        def __init__(self, *args: object, **kwargs: object) -> None:
            pass

        def __enter__(self) -> Interrupting:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def update(self, n: int) -> None:
            assert (home / "fake" / "a.txt.part").is_file()
            raise KeyboardInterrupt

    monkeypatch.setattr(store, "tqdm", Interrupting)
    with pytest.raises(KeyboardInterrupt):
        data.path("fake")
    assert _leftovers(home) == []


def test_fetch_downloads_what_it_can_and_names_the_rest(
    home: Path, server, monkeypatch: pytest.MonkeyPatch, one_line
) -> None:
    (server.root / "a.txt").write_bytes(b"alpha\n")
    _register(
        monkeypatch,
        {"a.txt": b"alpha\n", "b.txt.gz": b"prepared"},
        {"a.txt": f"{server.url}/a.txt", "b.txt.gz": None},
    )
    with pytest.raises(data.MissingDataError) as info:
        data.fetch("fake")
    msg = one_line(info.value)
    assert "b.txt.gz" in msg and "https://example.org/fake" in msg and "a.txt," not in msg
    assert _leftovers(home) == ["fake/a.txt"]
    assert data.verify("fake")["status"].tolist() == ["ok", "missing"]


def test_fetch_replaces_a_bad_file_only_when_forced(
    home: Path, server, monkeypatch: pytest.MonkeyPatch
) -> None:
    (server.root / "a.txt").write_bytes(b"alpha\n")
    _register(monkeypatch, {"a.txt": b"alpha\n"}, {"a.txt": f"{server.url}/a.txt"})
    a = _write(home, "fake", "a.txt", b"alphx\n")
    with pytest.raises(data.ChecksumError):
        data.fetch("fake")
    assert a.read_bytes() == b"alphx\n" and server.hits == []
    data.fetch("fake", force=True)
    assert a.read_bytes() == b"alpha\n"
