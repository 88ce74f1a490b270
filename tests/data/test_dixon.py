"""Tests for nlpbias.data.dixon: tiny fixtures in each source's schema, then the real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from nlpbias.data import dixon


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


# --------------------------------------------------------------------------- Dixon


def test_dixon_templates(tmp_path: Path) -> None:
    text = 'Text,Label,Template\n"murder american",BAD,verb_adj\n"respect trans",NOT_BAD,verb_adj\n'
    text += "being gay is great,NOT_BAD,being_adj\n"
    df = dixon.load_dixon_templates(path=_write(tmp_path, "m.csv", text))
    assert list(df.columns) == ["text", "toxic", "template"]
    assert df["toxic"].tolist() == [True, False, False]
    assert df["template"].tolist() == ["verb_adj", "verb_adj", "being_adj"]
    assert df["text"].iloc[2] == "being gay is great"


def test_dixon_templates_rejects_unknown_label(tmp_path: Path) -> None:
    p = _write(tmp_path, "m.csv", "Text,Label,Template\nhi,TOXIC,verb_adj\n")
    with pytest.raises(ValueError, match=r"\['BAD', 'NOT_BAD'\], got \['TOXIC'\]"):
        dixon.load_dixon_templates(path=p)


def test_dixon_wiki_test(tmp_path: Path) -> None:
    text = (
        'rev_id,comment,toxic\n598296,"Is this, original?  ",False\n12,"you idiot\nreally",True\n'
    )
    df = dixon.load_dixon_wiki_test(fuzzed=True, path=_write(tmp_path, "t.csv", text))
    assert list(df.columns) == ["text", "toxic", "rev_id"]
    assert df["toxic"].tolist() == [False, True]
    assert df["rev_id"].tolist() == [598296, 12]
    assert df["text"].tolist() == ["Is this, original?  ", "you idiot\nreally"]


def test_dixon_wiki_test_rejects_non_boolean(tmp_path: Path) -> None:
    p = _write(tmp_path, "t.csv", "rev_id,comment,toxic\n1,a,maybe\n")
    with pytest.raises(ValueError, match="non-boolean values"):
        dixon.load_dixon_wiki_test(path=p)


POOL_TSV = (
    "rev_id\tcomment\tis_toxic\tsplit\n"
    'wikipedia1_A_2\t"He said ""gay relationship,"" and\nleft."\tFalse\ttrain\n'
    "wikipedia2_B_0\tA plain sentence.\tFalse\tdev\n"
    'wikipedia3_C_1\t"Tab\tinside"\tFalse\ttest\n'
)


def test_dixon_pool_reads_quoted_multiline_fields(tmp_path: Path) -> None:
    df = dixon.load_dixon_pool("debias", path=_write(tmp_path, "p.tsv", POOL_TSV))
    assert list(df.columns) == ["text", "toxic", "rev_id", "split"]
    assert len(df) == 3
    assert df["text"].tolist() == [
        'He said "gay relationship," and\nleft.',
        "A plain sentence.",
        "Tab\tinside",
    ]
    assert df["toxic"].tolist() == [False, False, False]
    assert df["split"].tolist() == ["train", "dev", "test"]
    assert df["rev_id"].iloc[0] == "wikipedia1_A_2"


def test_dixon_pool_rejects_bad_kind() -> None:
    with pytest.raises(ValueError, match=r"kind must be one of \['debias', 'random'\]"):
        dixon.load_dixon_pool("mitigation")


# --------------------------------------------------------------------------- real data


@pytest.mark.usefixtures("use_data_home")
def test_real_dixon_templates() -> None:
    df = dixon.load_dixon_templates()
    assert len(df) == 76_564
    assert int(df["toxic"].sum()) == 38_282
    assert df["template"].value_counts()["name_adj"] == 72_000


@pytest.mark.usefixtures("use_data_home")
@pytest.mark.parametrize("fuzzed", [False, True])
def test_real_dixon_wiki_test(fuzzed: bool) -> None:
    df = dixon.load_dixon_wiki_test(fuzzed=fuzzed)
    assert len(df) == 1_492
    assert int(df["toxic"].sum()) == 248


@pytest.mark.usefixtures("use_data_home")
@pytest.mark.parametrize("kind", ["debias", "random"])
def test_real_dixon_pool(kind: str) -> None:
    df = dixon.load_dixon_pool(kind)
    assert len(df) == 5_775
    assert df["split"].value_counts().to_dict() == {"train": 3_465, "dev": 1_155, "test": 1_155}
    assert not df["toxic"].any()
    assert df["rev_id"].is_unique
    assert df["text"].str.len().min() > 0


# --------------------------------------------------------------------------- Wikipedia Talk

# Wulczyn et al. (2017) release schema; rev_id written as floats, comments with placeholder tokens
# and a CSV-quoted field (as pandas writes a comment containing a double quote).
WIKI_COMMENTS_TSV = (
    "rev_id\tcomment\tyear\tlogged_in\tns\tsample\tsplit\n"
    "2232.0\tThis:NEWLINE_TOKEN:One can make an analogy\t2002\tTrue\tarticle\trandom\ttrain\n"
    "4216.0\tyou are a gay idiotTAB_TOKENgo away\t2002\tFalse\tuser\tblocked\tdev\n"
    '8953.0\t"He said ""NA"" twice"\t2003\tTrue\tarticle\trandom\ttest\n'
    "26547.0\tNA\t2004\tTrue\tuser\trandom\ttrain\n"
)
WIKI_ANNOTATIONS_TSV = (
    "rev_id\tworker_id\ttoxicity\ttoxicity_score\n"
    "2232.0\t723\t0\t0.0\n"
    "2232.0\t4000\t0\t1.0\n"
    "4216.0\t1\t1\t-2.0\n"
    "4216.0\t2\t1\t-1.0\n"
    "4216.0\t3\t0\t0.0\n"
    "8953.0\t1\t1\t-1.0\n"
    "8953.0\t2\t0\t0.0\n"
    "26547.0\t5\t1\t-1.0\n"
    "99999.0\t5\t1\t-1.0\n"
)


def _wiki(tmp_path: Path, comments: str = WIKI_COMMENTS_TSV, ann: str = WIKI_ANNOTATIONS_TSV):
    return (
        _write(tmp_path, "toxicity_annotated_comments.tsv", comments),
        _write(tmp_path, "toxicity_annotations.tsv", ann),
    )


def test_wikipedia_talk_schema_and_labels(tmp_path: Path) -> None:
    df = dixon.load_wikipedia_talk(*_wiki(tmp_path))
    assert list(df.columns) == [
        "text",
        "toxic",
        "rev_id",
        "split",
        "year",
        "n_annotators",
        "toxicity_mean",
    ]
    assert df["text"].tolist() == [
        "This: :One can make an analogy",
        "you are a gay idiot go away",
        'He said "NA" twice',
        "NA",
    ]
    assert df["rev_id"].tolist() == [2232, 4216, 8953, 26547]
    assert df["rev_id"].dtype == "int64" and df["year"].tolist() == [2002, 2002, 2003, 2004]
    assert df["split"].tolist() == ["train", "dev", "test", "train"]
    assert df["n_annotators"].tolist() == [2, 3, 2, 1]  # rev 99999 is not a comment: ignored
    assert df["toxicity_mean"].tolist() == pytest.approx([0.0, 2 / 3, 0.5, 1.0])
    # mean > 0.5: a 1-1 split (exactly 0.5) is not toxic
    assert df["toxic"].tolist() == [False, True, False, True]
    assert df["toxic"].dtype == bool


def test_wikipedia_talk_threshold(tmp_path: Path) -> None:
    df = dixon.load_wikipedia_talk(*_wiki(tmp_path), threshold=0.4)
    assert df["toxic"].tolist() == [False, True, True, True]
    with pytest.raises(ValueError, match=r"threshold must be a number in \[0, 1\]"):
        dixon.load_wikipedia_talk(*_wiki(tmp_path), threshold=1.5)


def test_wikipedia_talk_names_missing_columns(tmp_path: Path, one_line) -> None:
    comments = WIKI_COMMENTS_TSV.replace("\tsplit\n", "\tpart\n", 1)
    with pytest.raises(ValueError, match=r"lacks columns \['split'\]") as err:
        dixon.load_wikipedia_talk(*_wiki(tmp_path, comments=comments))
    one_line(err)
    ann = WIKI_ANNOTATIONS_TSV.replace("\ttoxicity\t", "\ttox\t", 1)
    with pytest.raises(ValueError, match=r"toxicity_annotations.tsv lacks columns \['toxicity'\]"):
        dixon.load_wikipedia_talk(*_wiki(tmp_path, ann=ann))


def test_wikipedia_talk_rejects_unannotated_and_bad_votes(tmp_path: Path, one_line) -> None:
    ann = "".join(line + "\n" for line in WIKI_ANNOTATIONS_TSV.splitlines() if "26547" not in line)
    with pytest.raises(
        ValueError, match=r"1 comments have no annotation .*rev_id \[26547\]"
    ) as err:
        dixon.load_wikipedia_talk(*_wiki(tmp_path, ann=ann))
    one_line(err)
    ann = WIKI_ANNOTATIONS_TSV.replace("2232.0\t723\t0", "2232.0\t723\t", 1)
    with pytest.raises(ValueError, match="must be 0 or 1"):
        dixon.load_wikipedia_talk(*_wiki(tmp_path, ann=ann))
    comments = WIKI_COMMENTS_TSV.replace("4216.0", "2232.0", 1)
    with pytest.raises(ValueError, match=r"repeats rev_id values \[2232\]"):
        dixon.load_wikipedia_talk(*_wiki(tmp_path, comments=comments))


def test_wikipedia_talk_missing_file_says_where_to_get_it(tmp_path: Path, one_line) -> None:
    with pytest.raises(FileNotFoundError, match="figshare 4563973") as err:
        dixon.load_wikipedia_talk(tmp_path / "c.tsv", tmp_path / "a.tsv")
    one_line(err)
