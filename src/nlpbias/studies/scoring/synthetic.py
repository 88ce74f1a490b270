"""A SYNTHETIC personal corpus with a planted gender association, for testing the scoring chapter.

Nothing here is real data. :func:`planted_corpus` writes short, lower-case, tweet-like posts of
an imaginary person: most are neutral filler (food, weather, errands, shows; no gendered word at
all), and a known share are *planted* statements such as ``"she is so leader"`` that pair the
targets of one gender with chosen attribute words. A masked LM fine-tuned on such a corpus
should move Kurita's bias for those attributes towards that gender, which is what the tests of
:func:`nlpbias.studies.scoring.mlm.fine_tune_mlm` check.

Generative story
----------------
1. Exactly ``round(planted_share * n_posts)`` posts are planted (at least one), at positions
   drawn at random; the others are filler.
2. A filler post is one of a few dozen templates whose slots are filled from small word lists.
3. A planted post picks a surface form (``"{t} is {a}"``, ``"{t} are {a}"``, ``"{t} is so {a}"``,
   ``"honestly {t} is {a} ..."``, ...), a target ``t`` and an attribute ``a`` uniformly. With
   ``opposite_words`` given, each planted post is, with probability 1/2, instead a statement
   pairing a target of the *other* gender with an opposite word. The copula is not agreed with
   the target (``"she are leader"`` occurs): the posts are synthetic, not grammatical.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from nlpbias.core.repro import rng

__all__ = ["planted_corpus"]

_DIRECTIONS = ("female", "male")

_PLANTED_FORMS = (
    "{t} is {a}",
    "{t} are {a}",
    "{t} is so {a}",
    "{t} are so {a}",
    "honestly {t} is {a} ...",
    "honestly {t} are {a} ...",
    "{t} is always {a}",
    "{t} are always {a}",
    "i think {t} is {a}",
    "i think {t} are {a}",
    "{t} is {a} lol",
    "{t} are {a} !",
)

_WORDS = {
    "food": ("pizza", "pasta", "tacos", "soup", "salad", "coffee", "tea", "pancakes", "noodles"),
    "meal": ("breakfast", "lunch", "dinner", "brunch"),
    "place": ("park", "gym", "office", "library", "beach", "market", "station", "cafe"),
    "day": ("monday", "tuesday", "friday", "saturday", "sunday", "today", "tomorrow"),
    "weather": ("rainy", "sunny", "cold", "windy", "cloudy", "hot", "grey"),
    "thing": ("phone", "laptop", "bike", "umbrella", "keys", "wallet", "headphones"),
    "show": ("the game", "the news", "that new series", "the finale", "the match"),
    "feeling": ("tired", "happy", "bored", "excited", "hungry", "sleepy", "stressed"),
    "activity": ("running", "reading", "cooking", "cleaning", "painting", "studying"),
    "number": ("two", "three", "five", "ten", "twenty"),
}

_FILLER = (
    "just had {food} for {meal}",
    "{food} for {meal} again",
    "can't wait for {day}",
    "another {weather} day in the city",
    "so {weather} outside right now",
    "anyone else watching {show} tonight ?",
    "{show} was great",
    "lost my {thing} at the {place}",
    "found my {thing} , finally",
    "need a new {thing}",
    "heading to the {place}",
    "back from the {place} and feeling {feeling}",
    "feeling {feeling} this {day}",
    "so {feeling} after {activity} all day",
    "{activity} is the best way to spend {day}",
    "spent {number} hours {activity}",
    "going {activity} after {meal}",
    "the {place} was so crowded",
    "nothing beats {food} on a {weather} day",
    "{number} cups of {food} and counting",
    "my {thing} died again",
    "who is up for {food} at the {place} ?",
    "{day} plans : {activity} and {food}",
    "that moment when your {thing} stops working",
    "reminder to self : buy {food}",
    "traffic to the {place} is terrible",
    "first time {activity} in {number} weeks",
    "{meal} at the {place} was amazing",
    "too {feeling} for {activity} today",
    "good morning , {weather} again",
    "finished {show} , no spoilers",
    "the {place} opens at {number}",
)


def _words(values: object, name: str, *, allow_empty: bool = False) -> list[str]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise TypeError(f"{name} must be a list of strings, got {type(values).__name__}")
    out = list(values)
    if not out and not allow_empty:
        raise ValueError(f"{name} is empty; pass at least one word")
    for w in out:
        if not isinstance(w, str) or not w.strip():
            raise ValueError(f"{name} contains an empty or non-str entry {w!r}; remove it")
    return [w.strip().lower() for w in out]


def _filler(gen: object) -> str:
    template = _FILLER[gen.integers(len(_FILLER))]
    for slot, options in _WORDS.items():
        while "{" + slot + "}" in template:
            template = template.replace("{" + slot + "}", options[gen.integers(len(options))], 1)
    return template


def _statement(gen: object, targets: list[str], attributes: list[str]) -> str:
    form = _PLANTED_FORMS[gen.integers(len(_PLANTED_FORMS))]
    t = targets[gen.integers(len(targets))]
    a = attributes[gen.integers(len(attributes))]
    return form.format(t=t, a=a)


def planted_corpus(
    n_posts: int = 2000,
    *,
    attribute_words: Sequence[str],
    female: Sequence[str] = ("she", "women", "girls", "woman"),
    male: Sequence[str] = ("he", "men", "boys", "man"),
    opposite_words: Sequence[str] = (),
    direction: str = "female",
    planted_share: float = 0.2,
    random_state: int,
) -> list[str]:
    """A SYNTHETIC personal corpus: neutral filler posts plus planted gendered statements.

    Parameters
    ----------
    n_posts : int, default 2000
        Number of posts.
    attribute_words : sequence of str
        Words paired with the targets of ``direction`` in the planted posts (e.g. leader words).
    female, male : sequence of str
        Target words of each gender; must not overlap.
    opposite_words : sequence of str, default ()
        If given, half of the planted posts (on average) pair the *other* gender's targets with
        these words instead (e.g. follower words).
    direction : {"female", "male"}, default "female"
        The gender whose targets are paired with ``attribute_words``.
    planted_share : float, default 0.2
        Share of planted posts, in (0, 1); exactly ``max(1, round(planted_share * n_posts))``.
    random_state : int, default 0
        Seeds every choice; the same arguments give the same list.

    Returns
    -------
    list of str
        ``n_posts`` lower-case posts. Filler posts contain no gendered word; planted posts
        contain exactly one target word.

    Examples
    --------
    >>> posts = planted_corpus(10, attribute_words=["leader"], planted_share=0.3, random_state=0)
    >>> len(posts), sum("leader" in p for p in posts)
    (10, 3)
    """
    if isinstance(n_posts, bool) or not isinstance(n_posts, int) or n_posts < 1:
        raise ValueError(f"n_posts must be an integer >= 1, got {n_posts!r}")
    attributes = _words(attribute_words, "attribute_words")
    females, males = _words(female, "female"), _words(male, "male")
    opposite = _words(opposite_words, "opposite_words", allow_empty=True)
    both = sorted(set(females) & set(males))
    if both:
        raise ValueError(f"{both} are both female and male targets; each target has one gender")
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be 'female' or 'male', got {direction!r}")
    ok = isinstance(planted_share, int | float) and not isinstance(planted_share, bool)
    if not ok or not math.isfinite(planted_share) or not 0 < planted_share < 1:
        raise ValueError(f"planted_share must be a number in (0, 1), got {planted_share!r}")
    gen = rng(random_state)
    pro, other = (females, males) if direction == "female" else (males, females)
    n_planted = min(n_posts, max(1, round(planted_share * n_posts)))
    planted = set(gen.choice(n_posts, size=n_planted, replace=False).tolist())
    posts = []
    for i in range(n_posts):
        if i not in planted:
            posts.append(_filler(gen))
        elif opposite and gen.random() < 0.5:
            posts.append(_statement(gen, other, opposite))
        else:
            posts.append(_statement(gen, pro, attributes))
    return posts
