"""Tests for nlpbias.studies.scoring.synthetic (a synthetic personal corpus with planted bias)."""

from __future__ import annotations

import pytest

from nlpbias.studies.scoring.synthetic import planted_corpus

LEADER = ["leader", "boss"]
FOLLOWER = ["follower", "helper"]
FEMALE = {"she", "women", "girls", "woman"}
MALE = {"he", "men", "boys", "man"}
GENDERED = FEMALE | MALE | {
    "her", "hers", "herself", "him", "his", "himself", "girl", "boy", "mother", "father",
    "mom", "dad", "wife", "husband", "sister", "brother", "daughter", "son", "lady", "guy",
    "female", "male", "mr", "mrs", "ms", "queen", "king",
}  # fmt: skip


def _tokens(post: str) -> set[str]:
    return set(post.split())


def test_exact_share_of_planted_posts_and_their_pairs() -> None:
    posts = planted_corpus(1000, attribute_words=LEADER, planted_share=0.25, random_state=3)
    assert len(posts) == 1000
    planted = [p for p in posts if _tokens(p) & (FEMALE | MALE)]
    assert len(planted) == 250
    for p in planted:  # direction female, no opposite words: female target + leader word
        assert len(_tokens(p) & FEMALE) == 1 and not _tokens(p) & MALE
        assert _tokens(p) & set(LEADER)
    assert all(p == p.lower() for p in posts)


def test_opposite_words_pair_the_other_gender_about_half_the_time() -> None:
    posts = planted_corpus(
        2000,
        attribute_words=LEADER,
        opposite_words=FOLLOWER,
        direction="male",
        planted_share=0.5,
        random_state=0,
    )
    pro = [p for p in posts if _tokens(p) & MALE]
    con = [p for p in posts if _tokens(p) & FEMALE]
    assert len(pro) + len(con) == 1000
    assert all(_tokens(p) & set(LEADER) and not _tokens(p) & set(FOLLOWER) for p in pro)
    assert all(_tokens(p) & set(FOLLOWER) and not _tokens(p) & set(LEADER) for p in con)
    assert 430 <= len(con) <= 570  # Binomial(1000, 1/2): > 4 sd either side


def test_several_surface_forms_are_used() -> None:
    posts = planted_corpus(
        600, attribute_words=["boss"], female=["she"], planted_share=0.5, random_state=0
    )
    planted = {p for p in posts if "she" in _tokens(p)}
    assert {"she is boss", "she are boss", "she is so boss"} <= planted
    assert any(p.startswith("honestly she") for p in planted)


def test_filler_has_no_gendered_word_and_varies() -> None:
    posts = planted_corpus(3000, attribute_words=["boss"], planted_share=0.01, random_state=1)
    filler = [p for p in posts if "boss" not in _tokens(p)]
    assert len(filler) == 3000 - 30
    words = set().union(*map(_tokens, filler))
    assert not words & GENDERED
    assert len(set(filler)) > 500


def test_deterministic_by_random_state() -> None:
    kw = {"attribute_words": LEADER, "opposite_words": FOLLOWER}
    assert planted_corpus(300, **kw, random_state=5) == planted_corpus(300, **kw, random_state=5)
    assert planted_corpus(300, **kw, random_state=5) != planted_corpus(300, **kw, random_state=6)


def test_at_least_one_planted_post() -> None:
    posts = planted_corpus(5, attribute_words=["boss"], planted_share=0.01, random_state=0)
    assert sum("boss" in _tokens(p) for p in posts) == 1


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"attribute_words": []}, "attribute_words is empty"),
        ({"attribute_words": ["boss"], "female": []}, "female is empty"),
        ({"attribute_words": ["boss"], "male": ()}, "male is empty"),
        ({"attribute_words": ["boss", ""]}, "empty or non-str"),
        ({"attribute_words": ["boss"], "planted_share": 0.0}, "planted_share"),
        ({"attribute_words": ["boss"], "planted_share": 1.0}, "planted_share"),
        ({"attribute_words": ["boss"], "planted_share": float("nan")}, "planted_share"),
        ({"attribute_words": ["boss"], "direction": "both"}, "direction"),
        ({"attribute_words": ["boss"], "female": ["she", "he"]}, "both female and male"),
        ({"attribute_words": ["boss"], "n_posts": 0}, "n_posts"),
    ],
)
def test_bad_input_raises_one_line(kwargs: dict, match: str) -> None:
    kwargs = {"n_posts": 10, **kwargs}
    n = kwargs.pop("n_posts")
    with pytest.raises(ValueError, match=match) as err:
        planted_corpus(n, **kwargs, random_state=0)
    assert "\n" not in str(err.value)


def test_a_single_string_is_refused() -> None:
    with pytest.raises(TypeError, match="list of strings"):
        planted_corpus(10, attribute_words="boss", random_state=0)
