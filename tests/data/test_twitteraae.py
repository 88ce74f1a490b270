"""Tests for nlpbias.data.twitteraae: a 5-word fixture model checked by hand, then the real one."""

from __future__ import annotations

import gzip
from fractions import Fraction as F
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nlpbias.data import twitteraae as ta

# Counts per topic (AA, Hispanic, Asian, White); every column sums to 20, so
# wordprobs = (count + 1) / 20.
FIXTURE = {
    "yo": (9, 1, 1, 1),
    "finna": (7, 1, 1, 1),
    "hello": (1, 1, 1, 9),
    "the": (2, 16, 16, 8),
    "😂": (1, 1, 1, 1),
}


def _write_model(folder: Path, *, gz: bool = False) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    counts = "".join("\t".join(f"{c:.2f}" for c in row) + "\n" for row in FIXTURE.values())
    vocab = "".join(f"{100 - i}\t{w}\n" for i, w in enumerate(FIXTURE))
    for name, text in (("model_count_table.txt", counts), ("model_vocab.txt", vocab)):
        if gz:
            with gzip.open(folder / f"{name}.gz", "wt", encoding="utf-8") as fh:
                fh.write(text)
        else:
            (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def tiny(tmp_path: Path) -> ta.DialectModel:
    return ta.load_dialect_model(path=_write_model(tmp_path / "model"))


def _theta(qs: list[list[F]], alpha: F = F(1)) -> list[F]:
    n = [sum(q[k] for q in qs) for k in range(4)]
    return [(n[k] + alpha) / (len(qs) + 4 * alpha) for k in range(4)]


def _normalise(v: list[F]) -> list[F]:
    return [x / sum(v) for x in v]


# --------------------------------------------------------------------------- tokenizer


def test_tweet_tokens_drops_markup_and_keeps_tweet_tokens() -> None:
    got = ta.tweet_tokens("RT @bob: I'm finna go &amp; eat!!! &#128514;&#128514; http://t.co/x")
    assert got == ["i'm", "finna", "go", "&", "eat", "!!!", "😂😂"]
    got = ta.tweet_tokens("#TBT :) <3 -_- U.S. 10:30 $3.50 b/c w/ lol😂")
    assert got == ["#tbt", ":)", "<3", "-_-", "u.s.", "10:30", "$3.50", "b/c", "w/", "lol", "😂"]
    assert ta.tweet_tokens("Don’t ❤️") == ["don’t", "❤️"]  # typographic apostrophe kept
    assert ta.tweet_tokens("&#8220;@x: hi&#8221;food") == ["“", "hi", "”", "food"]
    assert ta.tweet_tokens("see https://t.co/ab”food") == ["see", "”", "food"]
    assert ta.tweet_tokens("art RT start") == ["art", "start"]
    assert ta.tweet_tokens("") == []


def test_tweet_tokens_rejects_non_strings(one_line) -> None:
    with pytest.raises(TypeError) as err:
        ta.tweet_tokens(None)  # type: ignore[arg-type]
    assert "must be a str" in one_line(err)


# --------------------------------------------------------------------------- loading


def test_load_fixture_model(tiny: ta.DialectModel) -> None:
    assert tiny.vocab == tuple(FIXTURE)
    assert len(tiny) == 5
    np.testing.assert_allclose(tiny.counts, np.array(list(FIXTURE.values()), dtype=float))
    np.testing.assert_allclose(tiny.wordprobs[0], [10 / 20, 2 / 20, 2 / 20, 2 / 20])
    np.testing.assert_allclose(tiny.wordprobs[3], [3 / 20, 17 / 20, 17 / 20, 9 / 20])
    assert not tiny.wordprobs.flags.writeable


def test_load_gzipped_fixture_and_cache(tmp_path: Path) -> None:
    folder = _write_model(tmp_path / "gz", gz=True)
    first = ta.load_dialect_model(path=folder)
    assert first is ta.load_dialect_model(path=str(folder))  # cached
    assert first.vocab == tuple(FIXTURE)


def test_load_errors(tmp_path: Path, one_line) -> None:
    with pytest.raises(NotADirectoryError) as err:
        ta.load_dialect_model(path=tmp_path / "nope")
    assert "is not a folder" in one_line(err)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError) as err:
        ta.load_dialect_model(path=tmp_path / "empty")
    assert "not found" in one_line(err)
    bad = _write_model(tmp_path / "bad")
    (bad / "model_vocab.txt").write_text("1\tyo\n2\tfinna\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        ta.load_dialect_model(path=bad)
    assert "5 rows but the vocabulary has 2" in one_line(err)
    (bad / "model_vocab.txt").write_text("1 yo\n", encoding="utf-8")
    with pytest.raises(ValueError) as err:
        ta.load_dialect_model(path=bad)
    assert "count<TAB>word" in one_line(err)


# --------------------------------------------------------------------------- posterior


def test_one_token_posterior_by_hand(tiny: ta.DialectModel) -> None:
    # One token: q ∝ alpha * phi = [10, 2, 2, 2] / 16 whatever the passes; theta = (q + 1) / 5.
    post = tiny.posterior(["Yo!!"], min_coverage=0.5)  # "!!" is out of vocabulary
    q = _normalise([F(10), F(2), F(2), F(2)])
    want = [float(x) for x in _theta([q])]
    np.testing.assert_allclose(post.loc[0, list(ta.DIALECTS)].to_numpy(float), want, rtol=1e-12)
    assert want == [0.325, 0.225, 0.225, 0.225]
    assert post.loc[0, "n_tokens"] == 2 and post.loc[0, "n_in_vocab"] == 1
    assert post.loc[0, "coverage"] == 0.5 and post.loc[0, "status"] == "ok"


def test_two_token_cvb0_pass_by_hand(tiny: ta.DialectModel) -> None:
    phi_yo, phi_hello = [F(10), F(2), F(2), F(2)], [F(2), F(2), F(2), F(10)]
    q1, q2 = _normalise(phi_yo), _normalise(phi_hello)  # initialisation
    # one sequential pass: token 1 sees token 2's counts, then token 2 sees the new token 1
    q1 = _normalise([(q2[k] + 1) * phi_yo[k] for k in range(4)])
    q2 = _normalise([(q1[k] + 1) * phi_hello[k] for k in range(4)])
    assert q1 == _normalise([F(180), F(36), F(36), F(52)])
    want = [float(x) for x in _theta([q1, q2])]
    got = tiny.posterior(["yo hello"], n_iter=1).loc[0, list(ta.DIALECTS)].to_numpy(float)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # zero passes keeps the initialisation
    got0 = tiny.posterior(["yo hello"], n_iter=0).loc[0, list(ta.DIALECTS)].to_numpy(float)
    want0 = _theta([_normalise(phi_yo), _normalise(phi_hello)])
    np.testing.assert_allclose(got0, [float(x) for x in want0], rtol=1e-12)


def _reference(model: ta.DialectModel, text: str, alpha: float, n_iter: int) -> np.ndarray:
    """Plain per-token CVB0 loop, written independently of the vectorised code."""
    rows = [model.index[t] for t in ta.tweet_tokens(text) if t in model.index]
    phi = [model.wordprobs[r] for r in rows]
    q = [p / p.sum() for p in phi]
    for _ in range(n_iter):
        for i in range(len(q)):
            others = sum((q[j] for j in range(len(q)) if j != i), np.zeros(4))
            new = (others + alpha) * phi[i]
            q[i] = new / new.sum()
    return (sum(q) + alpha) / (len(q) + 4 * alpha)


def test_matches_reference_loop_across_batches(
    tiny: ta.DialectModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = np.random.default_rng(0)
    words = list(FIXTURE)
    texts = [" ".join(rng.choice(words, size=rng.integers(1, 12))) for _ in range(40)]
    monkeypatch.setattr(ta, "_BATCH", 7)  # several batches of mixed lengths
    post = tiny.posterior(texts, alpha=0.5, n_iter=3)
    want = np.array([_reference(tiny, t, 0.5, 3) for t in texts])
    np.testing.assert_allclose(post[list(ta.DIALECTS)].to_numpy(float), want, rtol=1e-10)
    np.testing.assert_allclose(post[list(ta.DIALECTS)].sum(axis=1), 1.0, rtol=1e-12)


def test_deterministic_and_independent_of_other_texts(tiny: ta.DialectModel) -> None:
    texts = ["yo finna the", "hello the hello", "the 😂 yo hello finna"]
    a = tiny.posterior(texts)
    pd.testing.assert_frame_equal(a, tiny.posterior(texts))
    alone = tiny.posterior(texts[2:])
    np.testing.assert_allclose(
        a.iloc[2][list(ta.DIALECTS)].to_numpy(float),
        alone.iloc[0][list(ta.DIALECTS)].to_numpy(float),
        rtol=1e-12,
    )


def test_coverage_rule_and_status(tiny: ta.DialectModel) -> None:
    s = pd.Series(
        ["yo a b c d", "yo a b c d e", "nothing known", "@bob http://t.co/x", "yo"],
        index=list("vwxyz"),
    )
    post = tiny.posterior(s)
    assert post.index.tolist() == list("vwxyz")
    assert post["status"].tolist() == ["ok", "low_coverage", "no_vocab_tokens", "no_tokens", "ok"]
    assert post["n_tokens"].tolist() == [5, 6, 2, 0, 1]
    assert post["n_in_vocab"].tolist() == [1, 1, 0, 0, 1]
    np.testing.assert_allclose(post["coverage"].iloc[:3], [0.2, 1 / 6, 0.0])  # 0.2 is enough
    assert np.isnan(post["coverage"].iloc[3])
    assert post[list(ta.DIALECTS)].iloc[1:4].isna().all().all()
    assert post[list(ta.DIALECTS)].iloc[[0, 4]].notna().all().all()
    # a stricter rule
    assert tiny.posterior(s, min_coverage=0.25)["status"].iloc[0] == "low_coverage"


def test_posterior_bad_arguments(tiny: ta.DialectModel, one_line) -> None:
    with pytest.raises(TypeError) as err:
        tiny.posterior("yo")
    assert "not one string" in one_line(err)
    with pytest.raises(TypeError) as err:
        tiny.posterior(["yo", None])
    assert "1 are not" in one_line(err)
    for kwargs in ({"alpha": 0}, {"n_iter": -1}, {"n_iter": 1.5}, {"min_coverage": 2}):
        with pytest.raises(ValueError) as err:
            tiny.posterior(["yo"], **kwargs)
        one_line(err)


def test_empty_input(tiny: ta.DialectModel) -> None:
    post = tiny.posterior([])
    assert len(post) == 0
    assert list(post.columns) == [*ta.DIALECTS, "n_tokens", "n_in_vocab", "coverage", "status"]


# --------------------------------------------------------------------------- dialect_group


def test_dialect_group_labels(tiny: ta.DialectModel) -> None:
    post = tiny.posterior(["yo finna", "hello", "the the", "zzz"])
    assert dialect_list(post) == ["AA-aligned", "white-aligned", "other", "unknown"]
    all4 = ta.dialect_group(post, groups=ta.DIALECTS).tolist()
    assert all4 == ["AA-aligned", "white-aligned", "Hispanic-aligned", "unknown"]
    # "the" ties Hispanic and Asian exactly: the first in DIALECTS order wins
    strict = ta.dialect_group(post, min_proportion=0.9).tolist()
    assert strict == ["other", "other", "other", "unknown"]


def dialect_list(post: pd.DataFrame) -> list[str]:
    out = ta.dialect_group(post)
    assert out.name == "dialect_group" and out.notna().all()
    return out.tolist()


def test_dialect_group_bad_input(one_line) -> None:
    post = pd.DataFrame({"aa": [0.5], "hispanic": [0.5], "asian": [0.0]})
    with pytest.raises(ValueError) as err:
        ta.dialect_group(post)
    assert "lacks columns ['white']" in one_line(err)
    post["white"] = 0.0
    with pytest.raises(ValueError) as err:
        ta.dialect_group(post, groups=("aa", "black"))
    one_line(err)
    post.loc[0, "aa"] = np.nan
    with pytest.raises(ValueError) as err:
        ta.dialect_group(post)
    assert "some but not all" in one_line(err)


# --------------------------------------------------------------------------- real model


@pytest.fixture
def real(use_data_home: Path) -> ta.DialectModel:
    return ta.load_dialect_model()


def _extreme_words(model: ta.DialectModel, aa: bool, k: int = 6) -> list[str]:
    """The k frequent words with the largest AA/White (or White/AA) probability ratio."""
    frequent = model.counts.sum(axis=1) >= 2000
    ratio = np.log(model.wordprobs[:, 0]) - np.log(model.wordprobs[:, 3])
    order = np.argsort(-ratio if aa else ratio)
    out = []
    for i in order:
        w = model.vocab[i]
        if frequent[i] and w.isalpha() and ta.tweet_tokens(w) == [w]:
            out.append(w)
        if len(out) == k:
            break
    return out


def test_real_model_shape(real: ta.DialectModel) -> None:
    assert real.counts.shape == (len(real.vocab), 4) == (191874, 4)
    assert real.vocab[:3] == ("i", ".", "the")


def test_real_model_follows_the_count_table(real: ta.DialectModel) -> None:
    aa_words, white_words = _extreme_words(real, True), _extreme_words(real, False)
    assert not set(aa_words) & set(white_words)
    texts = [" ".join(aa_words), " ".join(white_words), *aa_words, *white_words]
    post = real.posterior(texts)
    assert (post["status"] == "ok").all()
    k = len(aa_words)
    aa_rows, white_rows = [0, *range(2, 2 + k)], [1, *range(2 + k, 2 + 2 * k)]
    assert (post["aa"].iloc[aa_rows] > post["white"].iloc[aa_rows]).all()
    assert (post["white"].iloc[white_rows] > post["aa"].iloc[white_rows]).all()
    groups = ta.dialect_group(post)
    assert groups.iloc[0] == "AA-aligned" and groups.iloc[1] == "white-aligned"
    # the sentence of six strong words is more extreme than each word alone
    assert post["aa"].iloc[0] > post["aa"].iloc[2 : 2 + k].max()
    assert post["white"].iloc[1] > post["white"].iloc[2 + k :].max()


def test_real_model_on_known_aae_word(real: ta.DialectModel) -> None:
    # Blodgett et al. (2016) list "finna" among AAE-associated words.
    post = real.posterior(["finna", "finna go to the store"])
    assert (post["aa"] > post["white"]).all()
