"""Tests for nlpbias.data.toxicity: tiny fixtures in each source's schema, then the real files."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from nlpbias.data import toxicity as tox

# --------------------------------------------------------------------------- Davidson


DAVIDSON_CSV = (
    ",count,hate_speech,offensive_language,neither,class,tweet\n"
    "7,3,2,1,0,0,hateful tweet\n"
    "9,3,0,3,0,1,rude tweet\n"
    '12,4,0,1,3,2,"nice, kind tweet"\n'
    "20,3,0,0,3,2,NA\n"
)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_davidson_maps_each_class(tmp_path: Path) -> None:
    df = tox.load_davidson(path=_write(tmp_path, "labeled_data.csv", DAVIDSON_CSV))
    assert list(df.columns[:3]) == ["text", "toxic", "label"]
    assert {"count", "hate_speech", "offensive_language", "neither", "class"} <= set(df.columns)
    assert df.index.name == "tweet_id"
    assert df.index.tolist() == [7, 9, 12, 20]
    assert df["toxic"].tolist() == [True, True, False, False]
    assert df["label"].tolist() == ["hate", "offensive", "neither", "neither"]
    assert df["text"].tolist() == ["hateful tweet", "rude tweet", "nice, kind tweet", "NA"]
    assert df.loc[12, "count"] == 4 and df.loc[12, "neither"] == 3
    assert df["toxic"].dtype == bool


def test_davidson_rejects_wrong_schema(tmp_path: Path) -> None:
    bad = _write(tmp_path, "x.csv", ",count,class,text\n0,3,1,hello\n")
    with pytest.raises(ValueError, match=r"lacks columns \['hate_speech'") as err:
        tox.load_davidson(path=bad)
    assert "\n" not in str(err.value)


def test_davidson_rejects_unknown_class(tmp_path: Path) -> None:
    text = DAVIDSON_CSV.replace("3,0,0,3,2,NA", "3,0,0,3,5,NA")
    with pytest.raises(ValueError, match=r"class must be one of \[0, 1, 2\], got \[5\]"):
        tox.load_davidson(path=_write(tmp_path, "labeled_data.csv", text))


def test_missing_path_is_clear(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not found"):
        tox.load_davidson(path=tmp_path / "nope.csv")


# --------------------------------------------------------------------------- Dixon


def test_dixon_templates(tmp_path: Path) -> None:
    text = 'Text,Label,Template\n"murder american",BAD,verb_adj\n"respect trans",NOT_BAD,verb_adj\n'
    text += "being gay is great,NOT_BAD,being_adj\n"
    df = tox.load_dixon_templates(path=_write(tmp_path, "m.csv", text))
    assert list(df.columns) == ["text", "toxic", "template"]
    assert df["toxic"].tolist() == [True, False, False]
    assert df["template"].tolist() == ["verb_adj", "verb_adj", "being_adj"]
    assert df["text"].iloc[2] == "being gay is great"


def test_dixon_templates_rejects_unknown_label(tmp_path: Path) -> None:
    p = _write(tmp_path, "m.csv", "Text,Label,Template\nhi,TOXIC,verb_adj\n")
    with pytest.raises(ValueError, match=r"\['BAD', 'NOT_BAD'\], got \['TOXIC'\]"):
        tox.load_dixon_templates(path=p)


def test_dixon_wiki_test(tmp_path: Path) -> None:
    text = (
        'rev_id,comment,toxic\n598296,"Is this, original?  ",False\n12,"you idiot\nreally",True\n'
    )
    df = tox.load_dixon_wiki_test(fuzzed=True, path=_write(tmp_path, "t.csv", text))
    assert list(df.columns) == ["text", "toxic", "rev_id"]
    assert df["toxic"].tolist() == [False, True]
    assert df["rev_id"].tolist() == [598296, 12]
    assert df["text"].tolist() == ["Is this, original?  ", "you idiot\nreally"]


def test_dixon_wiki_test_rejects_non_boolean(tmp_path: Path) -> None:
    p = _write(tmp_path, "t.csv", "rev_id,comment,toxic\n1,a,maybe\n")
    with pytest.raises(ValueError, match="non-boolean values"):
        tox.load_dixon_wiki_test(path=p)


POOL_TSV = (
    "rev_id\tcomment\tis_toxic\tsplit\n"
    'wikipedia1_A_2\t"He said ""gay relationship,"" and\nleft."\tFalse\ttrain\n'
    "wikipedia2_B_0\tA plain sentence.\tFalse\tdev\n"
    'wikipedia3_C_1\t"Tab\tinside"\tFalse\ttest\n'
)


def test_dixon_pool_reads_quoted_multiline_fields(tmp_path: Path) -> None:
    df = tox.load_dixon_pool("debias", path=_write(tmp_path, "p.tsv", POOL_TSV))
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
        tox.load_dixon_pool("mitigation")


# --------------------------------------------------------------------------- MLMA


def test_mlma(tmp_path: Path) -> None:
    text = (
        "HITId,tweet,sentiment,directness,annotator_sentiment,target,group\n"
        "1,call sis shut,offensive,indirect,confusion_disgust,origin,gay\n"
        "2,have a nice day,normal,direct,indifference,other,women\n"
        "3,mixed one,hateful_normal,indirect,anger,gender,women\n"
    )
    df = tox.load_mlma(with_stop_words=False, path=_write(tmp_path, "en.csv", text))
    assert list(df.columns[:2]) == ["text", "toxic"]
    assert df["toxic"].tolist() == [True, False, True]
    assert df["target"].tolist() == ["origin", "other", "gender"]
    assert df["group"].tolist() == ["gay", "women", "women"]
    assert df["hit_id"].tolist() == [1, 2, 3]


# --------------------------------------------------------------------------- Jigsaw

JIGSAW_IDS = list(tox.JIGSAW_REQUIRED_IDENTITY_COLUMNS)


def _jigsaw(tmp_path: Path, score: str = "target", drop: tuple[str, ...] = ()) -> Path:
    rows = [
        # id, text, score, male, muslim, others ...
        (1, "a toxic comment about men", 0.8, 0.9, 0.0),
        (2, "a mild, comment", 0.2, 0.4, 0.6),
        (3, "no identity labels here", 0.5, None, None),
    ]
    data = {
        "id": [r[0] for r in rows],
        "comment_text": [r[1] for r in rows],
        score: [r[2] for r in rows],
        "severe_toxicity": [0.0, 0.0, 0.0],
    }
    for c in JIGSAW_IDS:
        data[c] = [0.0, 0.0, None]
    data["male"] = [r[3] for r in rows]
    data["muslim"] = [r[4] for r in rows]
    data["transgender"] = [0.0, 1.0, None]
    df = pd.DataFrame(data).drop(columns=list(drop))
    p = tmp_path / "train.csv"
    df.to_csv(p, index=False)
    return p


def test_jigsaw_train_schema(tmp_path: Path) -> None:
    df = tox.load_jigsaw(_jigsaw(tmp_path))
    assert list(df.columns[:5]) == ["text", "toxic", "id", "toxicity", "identity_annotated"]
    assert df["toxic"].tolist() == [True, False, True]
    assert df["toxicity"].tolist() == [0.8, 0.2, 0.5]
    assert df["identity_annotated"].tolist() == [True, True, False]
    assert df["male"].tolist() == [True, False, False]
    assert df["muslim"].tolist() == [False, True, False]
    assert df["transgender"].tolist() == [False, True, False]
    assert set(JIGSAW_IDS) <= set(df.columns)
    assert "severe_toxicity" not in df.columns
    assert df["text"].iloc[1] == "a mild, comment"


def test_jigsaw_threshold_and_test_schema(tmp_path: Path) -> None:
    df = tox.load_jigsaw(_jigsaw(tmp_path, score="toxicity"), identity_threshold=0.3)
    assert df["male"].tolist() == [True, True, False]
    assert df["toxic"].tolist() == [True, False, True]


def test_jigsaw_names_missing_columns(tmp_path: Path) -> None:
    p = _jigsaw(tmp_path, drop=("target", "muslim", "white"))
    with pytest.raises(ValueError, match=r"\['target \(or toxicity\)', 'muslim', 'white'\]"):
        tox.load_jigsaw(p)


def test_jigsaw_bad_threshold(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"identity_threshold must be in \(0, 1\]"):
        tox.load_jigsaw(_jigsaw(tmp_path), identity_threshold=1.5)


def test_jigsaw_missing_file_says_where_to_get_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="Kaggle"):
        tox.load_jigsaw(tmp_path / "train.csv")


# --------------------------------------------------------------------------- real data


@pytest.mark.usefixtures("use_data_home")
def test_real_davidson() -> None:
    df = tox.load_davidson()
    assert len(df) == 24_783
    assert df["label"].value_counts().to_dict() == {
        "offensive": 19_190,
        "neither": 4_163,
        "hate": 1_430,
    }
    assert int(df["toxic"].sum()) == 1_430 + 19_190
    assert df.index.is_unique
    assert (df["count"] == df[["hate_speech", "offensive_language", "neither"]].sum(axis=1)).all()


@pytest.mark.usefixtures("use_data_home")
def test_real_dixon_templates() -> None:
    df = tox.load_dixon_templates()
    assert len(df) == 76_564
    assert int(df["toxic"].sum()) == 38_282
    assert df["template"].value_counts()["name_adj"] == 72_000


@pytest.mark.usefixtures("use_data_home")
@pytest.mark.parametrize("fuzzed", [False, True])
def test_real_dixon_wiki_test(fuzzed: bool) -> None:
    df = tox.load_dixon_wiki_test(fuzzed=fuzzed)
    assert len(df) == 1_492
    assert int(df["toxic"].sum()) == 248


@pytest.mark.usefixtures("use_data_home")
@pytest.mark.parametrize("kind", ["debias", "random"])
def test_real_dixon_pool(kind: str) -> None:
    df = tox.load_dixon_pool(kind)
    assert len(df) == 5_775
    assert df["split"].value_counts().to_dict() == {"train": 3_465, "dev": 1_155, "test": 1_155}
    assert not df["toxic"].any()
    assert df["rev_id"].is_unique
    assert df["text"].str.len().min() > 0


@pytest.mark.usefixtures("use_data_home")
@pytest.mark.parametrize("with_stop_words", [True, False])
def test_real_mlma(with_stop_words: bool) -> None:
    df = tox.load_mlma(with_stop_words=with_stop_words)
    assert len(df) == 5_647
    assert int((~df["toxic"]).sum()) == 661
    assert df["target"].value_counts()["origin"] == 2_448


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
    df = tox.load_wikipedia_talk(*_wiki(tmp_path))
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
    df = tox.load_wikipedia_talk(*_wiki(tmp_path), threshold=0.4)
    assert df["toxic"].tolist() == [False, True, True, True]
    with pytest.raises(ValueError, match=r"threshold must be in \[0, 1\]"):
        tox.load_wikipedia_talk(*_wiki(tmp_path), threshold=1.5)


def test_wikipedia_talk_names_missing_columns(tmp_path: Path, one_line) -> None:
    comments = WIKI_COMMENTS_TSV.replace("\tsplit\n", "\tpart\n", 1)
    with pytest.raises(ValueError, match=r"lacks columns \['split'\]") as err:
        tox.load_wikipedia_talk(*_wiki(tmp_path, comments=comments))
    one_line(err)
    ann = WIKI_ANNOTATIONS_TSV.replace("\ttoxicity\t", "\ttox\t", 1)
    with pytest.raises(ValueError, match=r"toxicity_annotations.tsv lacks columns \['toxicity'\]"):
        tox.load_wikipedia_talk(*_wiki(tmp_path, ann=ann))


def test_wikipedia_talk_rejects_unannotated_and_bad_votes(tmp_path: Path, one_line) -> None:
    ann = "".join(line + "\n" for line in WIKI_ANNOTATIONS_TSV.splitlines() if "26547" not in line)
    with pytest.raises(
        ValueError, match=r"1 comments have no annotation .*rev_id \[26547\]"
    ) as err:
        tox.load_wikipedia_talk(*_wiki(tmp_path, ann=ann))
    one_line(err)
    ann = WIKI_ANNOTATIONS_TSV.replace("2232.0\t723\t0", "2232.0\t723\t", 1)
    with pytest.raises(ValueError, match="must be 0 or 1"):
        tox.load_wikipedia_talk(*_wiki(tmp_path, ann=ann))
    comments = WIKI_COMMENTS_TSV.replace("4216.0", "2232.0", 1)
    with pytest.raises(ValueError, match=r"repeats rev_id values \[2232\]"):
        tox.load_wikipedia_talk(*_wiki(tmp_path, comments=comments))


def test_wikipedia_talk_missing_file_says_where_to_get_it(tmp_path: Path, one_line) -> None:
    with pytest.raises(FileNotFoundError, match="figshare 4563973") as err:
        tox.load_wikipedia_talk(tmp_path / "c.tsv", tmp_path / "a.tsv")
    one_line(err)
