"""A synthetic stand-in for Dixon et al. (2018): planted identity-term bias, pools and templates.

The smoke and demo profiles of the Dixon study run on this generated data instead of the real data
home. Its ground truth is known, so the study's metrics must *detect* the planted bias and the
length-bucket mitigation must *reduce* it;
``tests/studies/pinned_auc/test_pinned_auc_end_to_end.py`` checks both with the linear baseline.
Every frame is marked ``source == "synthetic"``; none of it is real data.

Generative story of :func:`make_mitigation_scenario` (the ground truth)
-----------------------------------------------------------------------
``train`` and ``general_test`` (same distribution, drawn independently)
    :func:`nlpbias.data.synthetic.make_toxicity_corpus` with ``planted = {t: biased_rate for t in
    biased_terms}``: a text mentions one identity term with probability ``mention_rate`` (uniform
    over ``terms``); its label is ``Bernoulli(biased_rate)`` when the term is in ``biased_terms``
    and ``Bernoulli(base_rate)`` otherwise; toxic texts are shorter and carry insults (a
    non-toxic text one stray insult with probability 0.05). Then, independently per text:

    * *Implicit toxicity.* With probability ``implicit_rate`` a toxic text has its insults
      replaced by neutral filler (sarcasm, threats, slurs no word list covers). Nothing in such a
      text tells a bag-of-words model that it is toxic except a biased identity term, so a model
      trained on ``train`` gives the biased terms a large positive weight: the *unintended bias*.
      Because the choice does not depend on the term, a training set in which every term has the
      same toxic share leaves no term predictive; that is what the mitigation aims at.
    * *Friendly words.* With probability ``friendly_rate`` a non-toxic text has one filler word
      replaced by a word of :data:`POSITIVE_ADJECTIVES` ("thanks, great edit"), so the model
      learns what the non-toxic templates say.
    * Every text ends with ``"."`` (the generator's ``"!"`` on toxic texts would leak the label
      to character-level models).

    Hence ``P(toxic | t) = biased_rate`` for ``t`` in ``biased_terms`` and ``base_rate`` for the
    other terms and for texts without a term: the identity-term frequencies are those of
    :func:`nlpbias.data.synthetic.planted_truth` (:func:`scenario_truth`). Column ``implicit``
    marks the toxic texts without an insult, ``p_toxic`` the probability of the label.
``debias_pool`` (Dixon's Wikipedia snippets)
    ``n_pool`` non-toxic texts, each mentioning exactly one term drawn uniformly from ``terms``.
    Their lengths follow the length distribution of ``train`` (a share ``P(toxic)`` of them is
    drawn with the toxic length distribution), so every length bucket of the mitigation has
    candidates; stray insults and friendly words as in ``train``.
``random_pool`` (Dixon's random control)
    ``n_pool`` texts like ``debias_pool``, except that a text mentions a term only with
    probability :data:`RANDOM_POOL_MENTION_RATE`: adding them changes the class balance and the
    length distribution as the mitigation does, but hardly the biased terms' toxic share.
``templates`` (Dixon's identity-term templates)
    The full factorial of :data:`TEMPLATE_FRAMES` x ``terms`` x (:data:`NEGATIVE_ADJECTIVES` +
    :data:`POSITIVE_ADJECTIVES`); a sentence is toxic exactly when its adjective is negative. Every
    term gets the same sentences, half of them toxic, so a model without identity-term bias scores
    all terms alike: any difference between terms in FPR, FNR or pinned AUC here is bias. The
    templates do not depend on ``random_state``.

The defaults are chosen so that the bias is strong and the mitigation can remove it: a linear
TF-IDF model trained on ``train`` puts the non-toxic templates of the biased terms above the
equal-error threshold of ``general_test`` and some of them above toxic templates of other terms
(FPED and PAED clearly > 0); after :func:`nlpbias.studies.pinned_auc.mitigation.balance_by_length`
with ``debias_pool`` both fall to a fraction of that, while the random control changes little.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from nlpbias.core.checks import check_int
from nlpbias.data.synthetic import (
    DEFAULT_TERMS,
    INSULTS,
    NEUTRAL_WORDS,
    check_planted_terms,
    check_rate,
    make_toxicity_corpus,
    planted_truth,
)

__all__ = [
    "DEFAULT_BIASED_TERMS",
    "NEGATIVE_ADJECTIVES",
    "POSITIVE_ADJECTIVES",
    "RANDOM_POOL_MENTION_RATE",
    "SCENARIO_FRAMES",
    "TEMPLATE_FRAMES",
    "make_identity_templates",
    "make_mitigation_scenario",
    "scenario_truth",
]

#: Identity terms whose toxic rate is planted high by default (Dixon's examples: "gay", ...).
DEFAULT_BIASED_TERMS: tuple[str, ...] = ("gay", "muslim", "black")

#: Names of the frames :func:`make_mitigation_scenario` returns, in order.
SCENARIO_FRAMES: tuple[str, ...] = (
    "train",
    "debias_pool",
    "random_pool",
    "general_test",
    "templates",
)

#: Probability that a text of ``random_pool`` mentions an identity term.
RANDOM_POOL_MENTION_RATE = 0.05

#: Template sentence frames, name -> pattern with ``{term}`` and ``{adj}`` (after Dixon et al.).
TEMPLATE_FRAMES: dict[str, str] = {
    "people_are_adj": "{term} people are {adj}",
    "being_adj": "being {term} is {adj}",
    "you_are_adj": "you are a {adj} {term} person",
    "person_is_adj": "the {term} person here is {adj}",
    "think_people_adj": "i think {term} people are {adj}",
}

#: Adjectives of the toxic templates (all of them insults of the training texts).
NEGATIVE_ADJECTIVES: tuple[str, ...] = (
    "stupid",
    "awful",
    "pathetic",
    "disgusting",
    "dumb",
    "ugly",
    "worthless",
    "ridiculous",
)

#: Adjectives of the non-toxic templates (as many as the negative ones).
POSITIVE_ADJECTIVES: tuple[str, ...] = (
    "great",
    "nice",
    "kind",
    "friendly",
    "wonderful",
    "lovely",
    "happy",
    "honest",
)

_POOL_NOISE = 0.05  # share of pool texts with one stray insult (as make_toxicity_corpus's default)
_MEAN_TOKENS = (24.0, 12.0)  # mean lengths of non-toxic / toxic texts (make_toxicity_corpus's)


def _template_words() -> set[str]:
    frames = " ".join(TEMPLATE_FRAMES.values()).replace("{term}", "").replace("{adj}", "")
    return set(frames.split()) | set(NEGATIVE_ADJECTIVES) | set(POSITIVE_ADJECTIVES)


def _check_scenario_terms(
    terms: Sequence[str], biased_terms: Sequence[str], biased_rate: float
) -> tuple[list[str], list[str]]:
    if isinstance(biased_terms, str):
        raise TypeError(
            f"biased_terms must be a list of strings, not the single string {biased_terms!r}"
        )
    biased = [str(t).strip().lower() for t in biased_terms]
    known = set() if isinstance(terms, str) else {str(t).strip().lower() for t in terms}
    unknown = sorted(set(biased) - known)
    if unknown and known:
        raise ValueError(f"biased_terms {unknown} are not in terms; add them to terms or drop them")
    terms, planted = check_planted_terms(terms, dict.fromkeys(biased, biased_rate))
    clash = sorted({w for t in terms for w in t.split()} & _template_words())
    if clash:
        raise ValueError(f"terms {clash} are also template words; choose other identity terms")
    return terms, list(planted)


def scenario_truth(
    *,
    terms: Sequence[str] = DEFAULT_TERMS,
    biased_terms: Sequence[str] = DEFAULT_BIASED_TERMS,
    biased_rate: float = 0.8,
    base_rate: float = 0.2,
    mention_rate: float = 0.2,
) -> pd.DataFrame:
    """Expected identity-term frequencies of ``train`` and ``general_test`` (the ground truth).

    Parameters
    ----------
    terms, biased_terms, biased_rate, base_rate, mention_rate
        As in :func:`make_mitigation_scenario`.

    Returns
    -------
    pandas.DataFrame
        :func:`nlpbias.data.synthetic.planted_truth` of the scenario: one row per term with
        ``term``, ``share_overall``, ``share_toxic``, ``toxic_rate``, ``ratio`` and ``planted``
        (True for the biased terms).

    Examples
    --------
    >>> truth = scenario_truth(terms=["gay", "deaf"], biased_terms=["gay"], biased_rate=0.6,
    ...                        base_rate=0.2, mention_rate=0.5)
    >>> truth.set_index("term")["ratio"].round(2).tolist()
    [2.0, 0.67]
    """
    biased_rate = check_rate(biased_rate, "biased_rate")
    terms, biased = _check_scenario_terms(terms, biased_terms, biased_rate)
    return planted_truth(
        terms=terms,
        planted=dict.fromkeys(biased, biased_rate),
        base_rate=base_rate,
        mention_rate=mention_rate,
    )


def make_identity_templates(terms: Sequence[str] = DEFAULT_TERMS) -> pd.DataFrame:
    """Dixon-style identity templates: the same sentences for every term, half of them toxic.

    Parameters
    ----------
    terms : sequence of str
        Identity terms to fill in (lower case).

    Returns
    -------
    pandas.DataFrame
        Columns ``text``, ``toxic`` (True exactly for a negative adjective), ``term``,
        ``template`` (the frame's name in :data:`TEMPLATE_FRAMES`), ``adjective`` and ``source``
        (``"synthetic"``); ``len(TEMPLATE_FRAMES) * 2 * len(NEGATIVE_ADJECTIVES)`` rows per term.

    Examples
    --------
    >>> df = make_identity_templates(["gay", "deaf"])
    >>> df.groupby("term")["toxic"].mean().tolist()
    [0.5, 0.5]
    >>> df["text"].iloc[0]
    'Gay people are stupid.'
    """
    terms, _ = _check_scenario_terms(terms, [], 0.0)
    adjectives = [(a, True) for a in NEGATIVE_ADJECTIVES] + [
        (a, False) for a in POSITIVE_ADJECTIVES
    ]
    rows = [
        (pattern.format(term=term, adj=adj), toxic, term, name, adj)
        for term in terms
        for name, pattern in TEMPLATE_FRAMES.items()
        for adj, toxic in adjectives
    ]
    df = pd.DataFrame(rows, columns=["text", "toxic", "term", "template", "adjective"])
    df["text"] = df["text"].str[0].str.upper() + df["text"].str[1:] + "."
    df["toxic"] = df["toxic"].astype(bool)
    df["term"] = df["term"].astype("string")
    df["source"] = "synthetic"
    return df


def _plain(words: list[str]) -> str:
    sentence = " ".join(words)
    return sentence[0].upper() + sentence[1:] + "."


def _rewrite(
    df: pd.DataFrame, implicit: np.ndarray, friendly_rate: float, rng: np.random.Generator
) -> pd.DataFrame:
    """End texts with ``.``, drop insults where ``implicit``, add friendly words to non-toxic."""
    insults, neutral = set(INSULTS), set(NEUTRAL_WORDS)
    filler = np.asarray(NEUTRAL_WORDS, dtype=object)
    friendly = np.asarray(POSITIVE_ADJECTIVES, dtype=object)
    toxic = df["toxic"].to_numpy(dtype=bool)
    add_friendly = ~toxic & (rng.random(len(df)) < friendly_rate)
    texts = []
    for i, text in enumerate(df["text"]):
        words = text[:-1].split()
        words[0] = words[0].lower()
        if implicit[i]:
            hit = [k for k, w in enumerate(words) if w in insults]
            for k, j in zip(hit, rng.integers(0, len(filler), size=len(hit)), strict=True):
                words[k] = str(filler[j])
        if add_friendly[i]:
            slots = [k for k, w in enumerate(words) if w in neutral]
            if slots:
                k = slots[int(rng.integers(0, len(slots)))]
                words[k] = str(friendly[int(rng.integers(0, len(friendly)))])
        texts.append(_plain(words))
    out = df.copy()
    out["text"] = texts
    return out


def _labelled(
    n: int,
    terms: list[str],
    planted: dict[str, float],
    rates: tuple[float, float, float, float],
    rng: np.random.Generator,
) -> pd.DataFrame:
    base_rate, mention_rate, implicit_rate, friendly_rate = rates
    df = make_toxicity_corpus(
        n,
        terms=terms,
        planted=planted,
        base_rate=base_rate,
        mention_rate=mention_rate,
        random_state=rng,
    )
    implicit = df["toxic"].to_numpy(dtype=bool) & (rng.random(n) < implicit_rate)
    df = _rewrite(df, implicit, friendly_rate, rng)
    df.insert(df.columns.get_loc("source"), "implicit", implicit)
    return df


def _pool(
    n: int,
    terms: list[str],
    mention_rate: float,
    short_share: float,
    friendly_rate: float,
    rng: np.random.Generator,
) -> pd.DataFrame:
    """Non-toxic texts whose lengths mix the toxic (share ``short_share``) and non-toxic ones."""
    n_short = int(rng.binomial(n, short_share))
    parts = [
        make_toxicity_corpus(
            k,
            terms=terms,
            planted={},
            base_rate=0.0,
            mention_rate=mention_rate,
            mean_tokens=(mean, mean),
            noise=_POOL_NOISE,
            random_state=rng,
        )
        for k, mean in ((n_short, _MEAN_TOKENS[1]), (n - n_short, _MEAN_TOKENS[0]))
        if k > 0
    ]
    df = pd.concat(parts, ignore_index=True)
    df = df.iloc[rng.permutation(n)].reset_index(drop=True)
    df = _rewrite(df, np.zeros(n, dtype=bool), friendly_rate, rng)
    return df[["text", "toxic", "term", "source"]]


def make_mitigation_scenario(
    *,
    n_train: int = 6000,
    n_pool: int = 3000,
    n_test: int = 3000,
    terms: Sequence[str] = DEFAULT_TERMS,
    biased_terms: Sequence[str] = DEFAULT_BIASED_TERMS,
    biased_rate: float = 0.8,
    base_rate: float = 0.2,
    mention_rate: float = 0.2,
    implicit_rate: float = 0.5,
    friendly_rate: float = 0.5,
    random_state: int | np.random.Generator | None,
) -> dict[str, pd.DataFrame]:
    """Generate the data of a Dixon et al. (2018) study with a planted identity-term bias.

    See the module docstring for the generative story; :func:`scenario_truth` gives the planted
    identity-term frequencies of ``train`` and ``general_test``.

    Parameters
    ----------
    n_train, n_pool, n_test : int
        Rows of ``train``, of each pool and of ``general_test``.
    terms : sequence of str
        Identity terms (lower case, at most one per text).
    biased_terms : sequence of str
        Terms of ``terms`` whose texts are toxic at ``biased_rate`` (the planted imbalance).
    biased_rate : float
        P(toxic | text mentions a biased term).
    base_rate : float
        P(toxic) of every other text.
    mention_rate : float
        Probability that a text of ``train`` / ``general_test`` mentions an identity term.
    implicit_rate : float
        Probability that a toxic text carries no insult (implicit toxicity).
    friendly_rate : float
        Probability that a non-toxic text carries one word of :data:`POSITIVE_ADJECTIVES`.
    random_state : int, numpy.random.Generator or None
        Seed; equal seeds give identical frames.

    Returns
    -------
    dict of str to pandas.DataFrame
        Keys :data:`SCENARIO_FRAMES`. Every frame starts with ``text`` (str) and ``toxic`` (bool),
        has ``term`` (the identity term the text mentions, ``<NA>`` when none) and ends with
        ``source`` (``"synthetic"``). ``train`` and ``general_test`` also have ``p_toxic`` (the
        probability the label was drawn with) and ``implicit`` (toxic without an insult);
        ``templates`` has ``template`` and ``adjective`` (see :func:`make_identity_templates`);
        the pools are all non-toxic.

    Examples
    --------
    >>> data = make_mitigation_scenario(n_train=300, n_pool=100, n_test=100, random_state=0)
    >>> list(data)
    ['train', 'debias_pool', 'random_pool', 'general_test', 'templates']
    >>> bool(data["debias_pool"]["term"].notna().all()), bool(data["debias_pool"]["toxic"].any())
    (True, False)
    """
    n_train = check_int(n_train, "n_train", minimum=1)
    n_pool = check_int(n_pool, "n_pool", minimum=1)
    n_test = check_int(n_test, "n_test", minimum=1)
    biased_rate = check_rate(biased_rate, "biased_rate")
    rates = tuple(
        check_rate(v, k)
        for k, v in [
            ("base_rate", base_rate),
            ("mention_rate", mention_rate),
            ("implicit_rate", implicit_rate),
            ("friendly_rate", friendly_rate),
        ]
    )
    terms, biased = _check_scenario_terms(terms, biased_terms, biased_rate)
    planted = dict.fromkeys(biased, biased_rate)
    base, mention = rates[0], rates[1]
    p_toxic = (1 - mention) * base + mention * float(np.mean([planted.get(t, base) for t in terms]))
    rng = np.random.default_rng(random_state)
    r_train, r_debias, r_random, r_test = rng.spawn(4)
    return {
        "train": _labelled(n_train, terms, planted, rates, r_train),
        "debias_pool": _pool(n_pool, terms, 1.0, p_toxic, friendly_rate, r_debias),
        "random_pool": _pool(
            n_pool, terms, RANDOM_POOL_MENTION_RATE, p_toxic, friendly_rate, r_random
        ),
        "general_test": _labelled(n_test, terms, planted, rates, r_test),
        "templates": make_identity_templates(terms),
    }
