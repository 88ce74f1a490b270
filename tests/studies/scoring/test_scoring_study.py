"""The scoring study module (Dong's "scoring ourselves") on hand-made score tables."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from nlpbias.studies.scoring import study as study


@pytest.fixture(scope="module")
def fws() -> list[study.Framework]:
    return study.frameworks()


def _scores(fw: study.Framework, model: str, value) -> pd.DataFrame:
    """Every template × target × attribute of ``fw`` with score ``value(target, concept)``."""
    concept = {w: c for c, words in fw.attributes.items() for w in words}
    gender = {**{t: "female" for t in fw.female}, **{t: "male" for t in fw.male}}
    rows = [
        {"model": model, "framework": fw.name, "template": tpl, "target": t, "attribute": a,
         "concept": concept[a], "gender": gender[t], "score": value(t, concept[a], tpl)}
        for tpl, t, a in itertools.product(fw.templates, [*fw.female, *fw.male],
                                           fw.attribute_words)
    ]  # fmt: skip
    return pd.DataFrame(rows)


def test_frameworks_read_word_sets_and_templates(fws) -> None:
    names = [fw.name for fw in fws]
    assert names == list(study.FRAMEWORKS)
    career, _, leader = fws
    assert career.templates == (
        "[TARGET] likes [ATTRIBUTE]",
        "[TARGET] like [ATTRIBUTE]",
        "[TARGET] is interested in [ATTRIBUTE]",
    )
    assert career.female == ("she", "girls", "women")
    assert list(leader.attributes) == ["leader", "follower"]
    assert "powerful" in leader.attributes["leader"]
    assert len(leader.attribute_words) == 16


def test_frameworks_table(fws) -> None:
    table = study.frameworks_table(fws)
    assert list(table.columns) == list(study.FRAMEWORKS)
    assert table.loc["male targets", "dong_career_family"] == "he, boys, men"
    assert table.loc["leader", "dong_leader_follower"].startswith("leader, senior, manager")
    assert table.loc["leader", "dong_career_family"] == ""  # concept of another framework
    assert table.loc["templates", "dong_leader_follower"] == (
        "[TARGET] is [ATTRIBUTE] | [TARGET] are [ATTRIBUTE]"
    )


def test_frameworks_unknown_name() -> None:
    with pytest.raises(KeyError, match="no templates for word set 'caliskan_weat6'"):
        study.frameworks(["caliskan_weat6"])


def test_reported_adds_base_bias_and_its_average() -> None:
    rep = study.reported()
    base = rep["base_bias"]
    assert base["career"] == pytest.approx(-0.434628)
    assert base["leader"] == pytest.approx(-0.100076)
    six = [base[c] for c in ("career", "family", "pleasant", "unpleasant", "leader", "follower")]
    assert base["average"] == pytest.approx(np.mean(six))
    assert rep["average"] == {"Trump": -0.082, "Clinton": -0.068}
    assert rep["validation_accuracy"]["Trump"] == pytest.approx(0.6359)


def test_bias_table_values_cis_average_and_paper(fws) -> None:
    _, _, leader = fws
    # female targets +1 on leader words, everything else 0: leader bias 1, follower 0
    scores = pd.concat(
        [
            _scores(leader, "base", lambda t, c, tpl: float(t in leader.female and c == "leader")),
            _scores(leader, "you", lambda t, c, tpl: -2.0 * (t in leader.male)),
        ]
    )
    table = study.bias_table(
        scores, [leader], n_bootstrap=200, random_state=0,
        paper={"leader": -0.1, "average": -0.2}, paper_model="base",
    )  # fmt: skip
    assert list(table["model"]) == ["base"] * 3 + ["you"] * 3
    assert list(table["attribute"]) == ["leader", "follower", "average"] * 2
    np.testing.assert_allclose(table["bias"], [1.0, 0.0, 0.5, 2.0, 2.0, 2.0])
    finite = table[table["attribute"] != "average"]
    assert (finite["ci_low"] <= finite["bias"] + 1e-12).all()
    assert (finite["ci_high"] >= finite["bias"] - 1e-12).all()
    assert table.loc[table["attribute"] == "average", "ci_low"].isna().all()
    np.testing.assert_allclose(table["paper"].iloc[:3], [-0.1, np.nan, -0.2])
    assert table["paper"].iloc[3:].isna().all()


def test_effect_sizes_sign_male_first(fws) -> None:
    _, _, leader = fws
    scores = _scores(
        leader, "m", lambda t, c, tpl: float(t in leader.female and c == "leader") + 0.1 * len(t)
    )
    es = study.effect_sizes(scores, [leader], n_permutations=99, random_state=0)
    row = es.iloc[0]
    assert row["concepts"] == "leader vs follower"
    assert row["effect_size"] < -1  # female targets are closer to leader: X = male is negative


def test_topk_table_ranks_targets(fws) -> None:
    career = fws[0]
    order = ["women", "he", "girls", "men", "she", "boys"]
    scores = _scores(
        career, "base", lambda t, c, tpl: -order.index(t) + (tpl != career.templates[0])
    )
    top = study.topk_table(scores, k=4)
    ex = top[top["attribute"] == "executive"]
    assert list(ex["target"]) == order[:4]
    assert list(ex["rank"]) == [1, 2, 3, 4]
    assert list(ex["gender"]) == ["female", "male", "female", "male"]
    assert ex["score"].iloc[0] == 0.0  # the "likes" template only
    averaged = study.topk_table(scores, template=None, k=1)
    assert averaged["score"].iloc[0] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="no scores for framework"):
        study.topk_table(scores, attributes=["nurse"])


def test_planted_shift_is_the_differential_of_the_two_concepts() -> None:
    table = pd.DataFrame(
        {"model": ["base", "base", "planted", "planted"],
         "attribute": ["leader", "follower"] * 2, "bias": [-0.1, 0.0, 0.3, -0.2]}
    )  # fmt: skip
    shift = study.planted_shift(table, {"n_posts": 10}, base_label="base")
    assert list(shift.index) == ["leader", "follower", "leader − follower"]
    np.testing.assert_allclose(shift["shift"], [0.4, -0.2, 0.6])
    np.testing.assert_allclose(shift.loc["leader − follower", ["before", "after"]], [-0.1, 0.5])
    assert shift.attrs["as_planted"]
    male = study.planted_shift(table, {"direction": "male"}, base_label="base")
    assert not male.attrs["as_planted"]
    # a drift of the whole model (both concepts up by the same amount) is not the association
    drift = table.assign(bias=[-0.1, 0.0, 0.3, 0.4])
    assert not study.planted_shift(drift, {}, base_label="base").attrs["as_planted"]
    with pytest.raises(KeyError, match="no bias for model 'base' and attribute 'career'"):
        study.planted_shift(table, {"concept": "career"}, base_label="base")
    with pytest.raises(KeyError, match="unknown planted concept 'nurse'"):
        study.planted_shift(table, {"concept": "nurse"}, base_label="base")


def test_planted_posts_pair_the_concept_with_the_planted_gender(fws) -> None:
    leader = fws[2]
    posts = study.planted_posts(
        {"concept": "leader", "direction": "female", "n_posts": 400, "planted_share": 0.5},
        random_state=0,
    )
    assert len(posts) == 400
    words = [set(p.split()) for p in posts]
    with_leader = [w for w in words if w & set(leader.attributes["leader"])]
    with_follower = [w for w in words if w & set(leader.attributes["follower"])]
    assert with_leader and with_follower
    female = {"she", "women", "girls", "woman"}
    assert all(w & female for w in with_leader)
    assert not any(w & female for w in with_follower)
    assert posts == study.planted_posts(
        {"concept": "leader", "direction": "female", "n_posts": 400, "planted_share": 0.5},
        random_state=0,
    )
    with pytest.raises(KeyError, match="unknown concept 'nurse'"):
        study.planted_posts({"concept": "nurse"}, random_state=0)


def _corpora(people, **kw):
    """study.person_corpora with every knob given: no person of one's own, no planted person."""
    knobs = {"personal_corpus": None, "personal_column": None, "personal_encoding": "utf-8",
             "planted": None, "max_posts": None, "max_val_posts": None,
             "random_state": 0}  # fmt: skip
    return study.person_corpora(people, **{**knobs, **kw})


def test_person_corpora_errors_and_planted_only() -> None:
    out = _corpora([], planted={"n_posts": 50})
    assert list(out) == ["planted"] and out["planted"][1] is None
    with pytest.raises(KeyError, match="unknown person 'Obama'"):
        _corpora(["Obama"])
    with pytest.raises(ValueError, match="no person to fine-tune on"):
        _corpora([])


def test_person_corpora_reads_dong_splits(use_data_home) -> None:
    out = _corpora(["Clinton"], max_posts=100)
    train, val = out["Clinton"]
    assert len(train) == 100 and all(t.strip() for t in train)
    assert 400 < len(val) <= 516  # Dong's validation file without its empty lines
    capped = _corpora(["Clinton"], max_posts=100, max_val_posts=50)["Clinton"]
    assert capped == (train, val[:50])
    with pytest.raises(ValueError, match="max_val_posts must be"):
        _corpora(["Clinton"], max_val_posts=0)


def test_score_models_labels_concepts_and_genders(fws, monkeypatch) -> None:
    calls = []

    def fake_scores(model, tok, templates, targets, attributes):
        calls.append((model, tuple(templates)))
        rows = itertools.product(templates, targets, attributes)
        return pd.DataFrame(
            [{"template": a, "target": b, "attribute": c, "score": 0.0} for a, b, c in rows]
        )

    monkeypatch.setattr(study, "load_mlm", lambda name, device: ("tok", f"model:{name}"))
    monkeypatch.setattr(study, "kurita_scores", fake_scores)
    out = study.score_models({"base": "b", "you": "y"}, fws[1:])
    assert [c[0] for c in calls] == ["model:b", "model:b", "model:y", "model:y"]
    assert set(out["model"]) == {"base", "you"}
    lf = out[(out["framework"] == "dong_leader_follower") & (out["model"] == "you")]
    assert set(lf.loc[lf["attribute"] == "meek", "concept"]) == {"follower"}
    assert set(lf.loc[lf["target"] == "feminine", "gender"]) == {"female"}
    assert not out[["concept", "gender"]].isna().any().any()


def test_person_corpora_reads_your_posts(tmp_path) -> None:
    posts = tmp_path / "posts.txt"
    posts.write_text(
        "first post http://t.co/x\nRT @someone: not mine\n\nsecond post\n", encoding="utf-8"
    )
    out = _corpora([], personal_corpus=posts)
    train, val = out["you"]
    assert val is None  # split 90/10 when fine-tuning
    assert train == ["first post", "second post"]  # URL removed, retweet and empty line dropped


def test_person_corpora_reads_a_headerless_latin1_csv(tmp_path) -> None:
    posts = tmp_path / "posts.csv"
    posts.write_bytes("2020-01-01,café talk\n2020-01-02,more posts\n".encode("latin-1"))
    out = _corpora([], personal_corpus=posts, personal_column=1, personal_encoding="latin-1")
    assert out["you"] == (["café talk", "more posts"], None)


def test_person_corpora_needs_two_posts_and_names_the_file(tmp_path, one_line) -> None:
    posts = tmp_path / "one.txt"
    posts.write_text("just one post\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        _corpora([], personal_corpus=posts)
    assert one_line(err).startswith(f"personal posts: {str(posts)!r} gives 1 post")


# ----------------------------------------------------------------------------- the stand-in recipe
def test_every_profile_runs_a_complete_stand_in_recipe() -> None:
    """profiles.yml holds the recipe: a profile that lists no ``standin`` runs the cell's (demo)."""
    from pathlib import Path

    from nlpbias.book import runner
    from nlpbias.studies.scoring.mlm import StandInConfig

    config = runner.load_config(Path(__file__).resolve().parents[3])
    demo = config["profiles"]["demo"]["scoring"]["standin"]
    for name, profile in config["profiles"].items():
        recipe = (profile.get("scoring") or {}).get("standin", demo)
        assert isinstance(StandInConfig.from_mapping(recipe), StandInConfig), name


def test_base_model_checks_the_recipe_before_reading_any_text(monkeypatch) -> None:
    monkeypatch.setattr(study, "standin_corpus", lambda **kw: pytest.fail("read the corpus"))
    knobs = {"standin_texts": None, "gutenberg_paragraphs": 0, "max_minutes": None}
    with pytest.raises(ValueError, match="the stand-in recipe lacks"):
        study.base_model("standin", standin={"steps": 2}, **knobs)
    assert study.base_model("bert-base-uncased", standin={}, **knobs) == "bert-base-uncased"
