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
    with pytest.raises(ValueError, match=r"identity_threshold must be a number in \(0, 1\]"):
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
@pytest.mark.parametrize("with_stop_words", [True, False])
def test_real_mlma(with_stop_words: bool) -> None:
    df = tox.load_mlma(with_stop_words=with_stop_words)
    assert len(df) == 5_647
    assert int((~df["toxic"]).sum()) == 661
    assert df["target"].value_counts()["origin"] == 2_448
