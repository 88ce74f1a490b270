"""Tests for nlpbias.data.corpora.gutenberg_documents: Gutenberg books cut into blocks."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd
import pytest

from nlpbias.data import corpora

# Two books, one paragraph a line, an empty line after each book (the data home's format).
BOOK_A = ["a b c", "d e", "f g h i", "j"]
BOOK_B = ["k l m n o", "p q"]
MANIFEST = pd.DataFrame(
    {
        "part": [1, 1],
        "author": ["Author, A", "Author, B"],
        "title": ["Book A", "Book B"],
        "paragraphs": [4, 2],
        "whitespace_tokens": [10, 7],
    }
)
# block_tokens = 4: paragraphs are added until a block holds >= 4 tokens; a book's end closes
# its last block whatever its size.
EXPECTED_4 = [
    ("Author, A", "Book A", 0, 5, "a b c\nd e"),
    ("Author, A", "Book A", 1, 4, "f g h i"),
    ("Author, A", "Book A", 2, 1, "j"),
    ("Author, B", "Book B", 0, 5, "k l m n o"),
    ("Author, B", "Book B", 1, 2, "p q"),
]
KEYS = ("author", "title", "block", "n_tokens", "text")


def write(path: Path, books: list[list[str]], *, ending: str = "empty", eol: str = "\n") -> Path:
    """Write ``books`` as the data home does; ``ending``: after the last book an empty line
    ("empty"), only the last paragraph's line break ("newline") or nothing ("none")."""
    text = "".join(eol.join(b) + eol + eol for b in books)
    cut = {"empty": 0, "newline": len(eol), "none": 2 * len(eol)}[ending]
    text = text[: len(text) - cut]
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8", newline="") as fh:
        fh.write(text)
    return path


def blocks(path: Path, manifest: pd.DataFrame, block_tokens: int) -> list[tuple]:
    return [tuple(b[k] for k in KEYS) for b in corpora._book_blocks(path, manifest, block_tokens)]


# --------------------------------------------------------------------------- _book_blocks


@pytest.mark.parametrize("name", ["gutenberg_part01.txt.gz", "part.txt"])
@pytest.mark.parametrize("ending", ["empty", "newline", "none"])
@pytest.mark.parametrize("eol", ["\n", "\r\n"])
def test_book_blocks_by_hand(tmp_path: Path, name: str, ending: str, eol: str) -> None:
    f = write(tmp_path / name, [BOOK_A, BOOK_B], ending=ending, eol=eol)
    raw = gzip.decompress(f.read_bytes()) if name.endswith(".gz") else f.read_bytes()
    tail = {"empty": 2 * eol, "newline": eol, "none": ""}[ending]
    assert raw.endswith(("p q" + tail).encode())
    assert blocks(f, MANIFEST, 4) == EXPECTED_4


def test_book_blocks_one_paragraph_each_when_block_tokens_is_1(tmp_path: Path) -> None:
    f = write(tmp_path / "p.txt", [BOOK_A, BOOK_B])
    got = blocks(f, MANIFEST, 1)
    assert [t[4] for t in got] == BOOK_A + BOOK_B
    assert [t[2] for t in got] == [0, 1, 2, 3, 0, 1]
    assert [t[3] for t in got] == [3, 2, 4, 1, 5, 2]


def test_book_blocks_never_span_two_books(tmp_path: Path) -> None:
    f = write(tmp_path / "p.txt", [BOOK_A, BOOK_B])
    got = blocks(f, MANIFEST, 1000)
    assert got == [
        ("Author, A", "Book A", 0, 10, "\n".join(BOOK_A)),
        ("Author, B", "Book B", 0, 7, "\n".join(BOOK_B)),
    ]


def test_book_blocks_counts_whitespace_tokens(tmp_path: Path) -> None:
    book = ["It was  a dark night.", "\u201cNo!\u201d said he --  twice"]
    f = write(tmp_path / "p.txt", [book])
    assert blocks(f, MANIFEST.iloc[:1], 6) == [  # 5 tokens < 6: the next paragraph joins
        ("Author, A", "Book A", 0, 10, "\n".join(book))
    ]
    assert blocks(f, MANIFEST.iloc[:1], 5) == [
        ("Author, A", "Book A", 0, 5, book[0]),
        ("Author, A", "Book A", 1, 5, book[1]),
    ]


def test_book_blocks_more_books_than_manifest(tmp_path: Path, one_line) -> None:
    f = write(tmp_path / "gutenberg_part01.txt.gz", [BOOK_A, BOOK_B, ["x y z"]])
    gen = corpora._book_blocks(f, MANIFEST, 4)
    assert [next(gen)["text"] for _ in range(5)] == [t[4] for t in EXPECTED_4]  # lazy
    with pytest.raises(ValueError, match="more books in gutenberg_part01.txt.gz") as err:
        next(gen)
    assert "manifest's 2" in one_line(err)


def test_book_blocks_fewer_books_than_manifest_is_fine(tmp_path: Path) -> None:
    f = write(tmp_path / "p.txt", [BOOK_A])
    assert blocks(f, MANIFEST, 4) == EXPECTED_4[:3]


def test_book_blocks_collapse_line_breaks_in_manifest_titles(tmp_path: Path) -> None:
    f = write(tmp_path / "p.txt", [BOOK_A])
    man = MANIFEST.assign(title=["Thoughts,\r\nPart I", "Book B"], author=[" Author,  A ", "B"])
    first = next(corpora._book_blocks(f, man, 4))
    assert (first["title"], first["author"]) == ("Thoughts, Part I", "Author, A")


# --------------------------------------------------------------------------- gutenberg_documents
# without the data home: the file lookup and the manifest are replaced by fixtures


@pytest.fixture
def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[int, Path]:
    files = {
        1: write(tmp_path / "gutenberg_part01.txt.gz", [BOOK_A, BOOK_B]),
        2: write(tmp_path / "gutenberg_part02.txt.gz", [["r s t u"], ["v w", "x y z"]]),
    }
    manifest = pd.concat(
        [
            MANIFEST,
            pd.DataFrame(
                {
                    "part": [2, 2],
                    "author": ["Author, C", "Author, D"],
                    "title": ["Book C", "Book D"],
                    "paragraphs": [1, 2],
                    "whitespace_tokens": [4, 5],
                }
            ),
        ],
        ignore_index=True,
    )

    def fake_resolve(dataset: str, file: str, override: object) -> Path:
        assert dataset == "gutenberg_top100authors_subset" and override is None
        by_name = {p.name: p for p in files.values()}
        return by_name[file]

    monkeypatch.setattr(corpora, "_resolve", fake_resolve)
    monkeypatch.setattr(corpora, "gutenberg_manifest", lambda **kw: manifest.copy())
    return files


def test_gutenberg_documents_frame(fake_home: dict[int, Path]) -> None:
    docs = corpora.gutenberg_documents(parts=(1, 2), block_tokens=4)
    assert docs.index.name == "document"
    assert docs.index.tolist() == list(range(7))
    assert list(docs.columns) == ["part", *KEYS]
    assert docs["part"].tolist() == [1] * 5 + [2, 2]
    rows = [tuple(r) for r in docs[list(KEYS)].itertuples(index=False)]
    assert rows == [
        *EXPECTED_4,
        ("Author, C", "Book C", 0, 4, "r s t u"),
        ("Author, D", "Book D", 0, 5, "v w\nx y z"),
    ]
    assert (docs["n_tokens"] == docs["text"].str.split().str.len()).all()


def test_gutenberg_documents_parts_in_given_order(fake_home: dict[int, Path]) -> None:
    docs = corpora.gutenberg_documents(parts=[2, 1], block_tokens=4)
    assert docs["part"].tolist() == [2, 2, 1, 1, 1, 1, 1]
    assert docs["title"].tolist()[:3] == ["Book C", "Book D", "Book A"]
    single = corpora.gutenberg_documents(parts=2, block_tokens=4)
    assert single["title"].tolist() == ["Book C", "Book D"]


@pytest.mark.parametrize("n", [1, 3, 5, 6, 7, 100])
def test_gutenberg_documents_max_documents(fake_home: dict[int, Path], n: int) -> None:
    full = corpora.gutenberg_documents(parts=(1, 2), block_tokens=4)
    docs = corpora.gutenberg_documents(parts=(1, 2), block_tokens=4, max_documents=n)
    pd.testing.assert_frame_equal(docs, full.iloc[:n])


def test_gutenberg_documents_stops_reading_at_max_documents(fake_home: dict[int, Path]) -> None:
    fake_home[2].write_bytes(b"not gzip")  # part 2 is never opened when part 1 suffices
    docs = corpora.gutenberg_documents(parts=(1, 2), block_tokens=4, max_documents=5)
    assert len(docs) == 5 and (docs["part"] == 1).all()


@pytest.mark.parametrize("parts", [[4], [1, 0], True, ["1"]])
def test_gutenberg_documents_rejects_unknown_parts(fake_home, parts, one_line) -> None:
    with pytest.raises(ValueError, match="each of parts must be one of") as err:
        corpora.gutenberg_documents(parts=parts, block_tokens=4)
    one_line(err)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"block_tokens": 0}, "block_tokens must be an integer >= 1"),
        ({"block_tokens": -5}, "block_tokens must be an integer >= 1"),
        ({"block_tokens": 2.5}, "block_tokens must be an integer >= 1"),
        ({"block_tokens": True}, "block_tokens must be an integer >= 1"),
        ({"max_documents": 0}, "max_documents must be an integer >= 1"),
        ({"max_documents": -1}, "max_documents must be an integer >= 1"),
        ({"max_documents": True}, "max_documents must be an integer >= 1"),
        ({"max_documents": 1.0}, "max_documents must be an integer >= 1"),
        ({"parts": []}, "parts must name at least one of"),
        ({"parts": ()}, "parts must name at least one of"),
    ],
)
def test_gutenberg_documents_validates_before_reading(
    kwargs: dict, match: str, monkeypatch: pytest.MonkeyPatch, one_line
) -> None:
    def no_data(**kw):
        raise AssertionError("read the manifest before checking the arguments")

    monkeypatch.setattr(corpora, "gutenberg_manifest", no_data)
    with pytest.raises(ValueError, match=match) as err:
        corpora.gutenberg_documents(**kwargs)
    one_line(err)


# --------------------------------------------------------------------------- the real data home


@pytest.fixture(scope="module")
def part1(data_home: Path) -> dict:
    """The first 40 blocks of 500 tokens of part 1, the manifest and book 1's paragraphs."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NLPBIAS_DATA", str(data_home))
        docs = corpora.gutenberg_documents(parts=1, block_tokens=500, max_documents=40)
        manifest = corpora.gutenberg_manifest()
    paragraphs = []
    f = data_home / "gutenberg_top100authors_subset" / "gutenberg_part01.txt.gz"
    with gzip.open(f, "rt", encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                break
            paragraphs.append(line.rstrip("\n"))
    return {"docs": docs, "manifest": manifest[manifest["part"] == 1], "book1": paragraphs}


def test_real_first_blocks(use_data_home: Path, part1: dict) -> None:
    docs = corpora.gutenberg_documents(parts=1, block_tokens=500, max_documents=20)
    assert len(docs) == 20
    pd.testing.assert_frame_equal(docs, part1["docs"].iloc[:20])
    first = part1["manifest"].iloc[0]
    assert (docs["part"] == 1).all()
    assert (docs["author"] == first["author"]).all()
    assert (docs["title"] == first["title"]).all()
    assert docs["block"].tolist() == list(range(20))
    assert (docs["n_tokens"] == docs["text"].map(lambda t: len(t.split()))).all()
    assert (docs["n_tokens"] >= 500).all()  # book 1 is longer than 20 blocks
    assert docs["text"].iloc[0].startswith(part1["book1"][0])


def test_real_blocks_cover_the_first_book(part1: dict) -> None:
    docs, man, book1 = part1["docs"], part1["manifest"], part1["book1"]
    first, second = man.iloc[0], man.iloc[1]
    in_book1 = docs["title"].eq(first["title"]) & docs["author"].eq(first["author"])
    b1 = docs[in_book1]
    n1 = len(b1)
    assert 0 < n1 < len(docs) and in_book1.iloc[:n1].all()  # book 1's blocks come first
    # the blocks of book 1 are its paragraphs, in order, all of them
    assert "\n".join(b1["text"]).split("\n") == book1
    assert len(book1) == first["paragraphs"]
    assert b1["n_tokens"].sum() == first["whitespace_tokens"]
    assert b1["block"].tolist() == list(range(n1))
    assert (b1["n_tokens"].iloc[:-1] >= 500).all()  # only the last block may be short
    # each block closes at the first paragraph that reaches 500 tokens
    without_last = b1["text"].map(lambda t: len(t.split()) - len(t.split("\n")[-1].split()))
    assert (without_last < 500).all()
    # then book 2 starts at block 0 with the manifest's second row
    b2 = docs.iloc[n1:]
    assert (b2["author"] == second["author"]).all() and (b2["title"] == second["title"]).all()
    assert b2["block"].tolist() == list(range(len(b2)))
    assert (b2["n_tokens"] >= 500).all()


@pytest.mark.usefixtures("use_data_home")
@pytest.mark.parametrize("parts", [[4], [0]])
def test_real_rejects_unknown_parts(parts: list[int], one_line) -> None:
    with pytest.raises(ValueError, match=r"each of parts must be one of \[1, 2, 3\]") as err:
        corpora.gutenberg_documents(parts=parts)
    one_line(err)
