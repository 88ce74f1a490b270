"""Tests for nlpbias.studies.scoring.kurita on a stub tokenizer + stub MLM with known
probabilities."""

from __future__ import annotations

import math

import pandas as pd
import pytest

torch = pytest.importorskip("torch")

from nlpbias.studies.scoring.kurita import (  # noqa: E402
    SCORE_COLUMNS,
    kurita_scores,
    mask_positions,
)

SPECIAL = ["[PAD]", "[CLS]", "[SEP]", "[MASK]", "[UNK]"]
WORDS = [
    "he", "she", "her", "##self", "is", "a", "the", "nurse", "program", "##mer",
    "said", "nice", ".", "makes", "happy", "likes", "home", "work",
]  # fmt: skip
SPLITS = {"programmer": ["program", "##mer"], "herself": ["her", "##self"]}


class StubTokenizer:
    """Whitespace word-piece tokenizer with a fixed vocabulary and BERT's special tokens."""

    def __init__(self, with_mask: bool = True) -> None:
        self.vocab = {w: i for i, w in enumerate(SPECIAL + WORDS)}
        self.pad_token_id = 0
        self.unk_token_id = 4
        self.mask_token = "[MASK]" if with_mask else None
        self.mask_token_id = 3 if with_mask else None

    def id(self, word: str) -> int:
        return self.vocab[word]

    def _encode(self, text: str, add_special_tokens: bool) -> list[int]:
        ids = []
        for word in text.replace(".", " . ").split():
            for piece in SPLITS.get(word, [word]):
                ids.append(self.vocab.get(piece, self.unk_token_id))
        return [1, *ids, 2] if add_special_tokens else ids

    def __call__(self, texts, padding=False, return_tensors=None, add_special_tokens=True):
        if isinstance(texts, str):
            return {"input_ids": self._encode(texts, add_special_tokens)}
        rows = [self._encode(t, add_special_tokens) for t in texts]
        width = max(len(r) for r in rows)
        ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
        att = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
        return {"input_ids": ids, "attention_mask": att}


TOK = StubTokenizer()
V = len(TOK.vocab)


def table(**probs: float) -> torch.Tensor:
    """Log-probabilities over the vocab: the given words get these probabilities, the rest
    share the remaining mass equally."""
    p = torch.full((V,), (1.0 - sum(probs.values())) / (V - len(probs)), dtype=torch.float64)
    for word, prob in probs.items():
        p[TOK.id(word.replace("__", "##"))] = prob
    return p.log()


class StubMLM(torch.nn.Module):
    """Logits at a mask = tables[(trigger, left)], falling back to (trigger, None), then
    (None, None); trigger = a table-key word present in the row, left = the token left of the
    mask. Non-mask positions put almost all mass on their own token (so reading the wrong
    position gives a visibly wrong answer)."""

    def __init__(self, tables: dict) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))
        self.tables = {
            (None if t is None else TOK.id(t), None if lt is None else TOK.id(lt)): v
            for (t, lt), v in tables.items()
        }
        self.modes: list[bool] = []
        self.batch_sizes: list[int] = []

    def forward(self, input_ids, attention_mask=None):
        self.modes.append(self.training)
        self.batch_sizes.append(int(input_ids.shape[0]))
        b, n = input_ids.shape
        out = torch.full((b, n, V), -30.0, dtype=torch.float64)
        triggers = {t for t, _ in self.tables if t is not None}
        for r in range(b):
            row = input_ids[r].tolist()
            trig = next((t for t in row if t in triggers), None)
            for i, tok in enumerate(row):
                if tok != TOK.mask_token_id:
                    out[r, i, tok] = 0.0
                    continue
                left = row[i - 1]
                for key in ((trig, left), (trig, None), (None, None)):
                    if key in self.tables:
                        out[r, i] = self.tables[key]
                        break

        class Out:
            logits = out + self.weight

        return Out()


D = table(he=0.2, she=0.1, her=0.05, __self=0.5)  # no attribute
N = table(he=0.1, she=0.4, her=0.2, __self=0.25)  # "nurse" present
G = table(he=0.9, she=0.05)  # garbage: only read if the wrong mask is used


# ----------------------------------------------------------------------------- mask positions


def test_mask_positions_one_and_two_masks_from_tokenizer():
    # [CLS]=0 the=1 program=2 ##mer=3 said=4 [MASK]=5: counting words would give 4
    texts = [
        "the programmer said [MASK] is nice .",
        "[MASK] is a [MASK] .",
        "a [MASK] makes [MASK] happy .",
        "the programmer likes [MASK] [MASK] .",
    ]
    assert mask_positions(TOK, texts) == [[5], [1, 4], [2, 4], [5, 6]]
    assert mask_positions(TOK, []) == []


def test_mask_positions_errors():
    with pytest.raises(ValueError, match="no mask token"):
        mask_positions(StubTokenizer(with_mask=False), ["[MASK] is"])
    with pytest.raises(TypeError, match="wrap it in a list"):
        mask_positions(TOK, "[MASK] is nice")


# ----------------------------------------------------------------------------- Kurita score


def test_kurita_score_hand_computed():
    model = StubMLM({("nurse", None): N, (None, None): D})
    df = kurita_scores(model, TOK, ["[TARGET] is a [ATTRIBUTE] ."], ["he", "she"], ["nurse"])
    assert list(df.columns) == list(SCORE_COLUMNS)
    she = df.set_index("target").loc["she"]
    assert she["log_p_target"] == pytest.approx(math.log(0.4))
    assert she["log_p_prior"] == pytest.approx(math.log(0.1))
    assert she["score"] == pytest.approx(math.log(4.0))
    assert df.set_index("target").loc["he", "score"] == pytest.approx(math.log(0.5))
    assert (df["n_pieces"] == 1).all()


def test_kurita_score_word_before_slot_splits_into_two_pieces():
    # a word counter would read position 4 (said) instead of 5 ([MASK]) -> log P ~ -30
    model = StubMLM({("nurse", None): N, (None, None): D})
    df = kurita_scores(model, TOK, ["the programmer said [TARGET] is [ATTRIBUTE] ."], ["she"],
                       ["nurse"])  # fmt: skip
    assert df["score"].iloc[0] == pytest.approx(math.log(4.0))


def test_kurita_attribute_before_target_uses_the_last_mask():
    # prior sentence "[CLS] [MASK] makes [MASK] happy ." : the target mask is the second one;
    # the first (attribute) mask follows [CLS] and gets the garbage table G.
    model = StubMLM({("nurse", None): N, (None, "[CLS]"): G, (None, None): D})
    df = kurita_scores(model, TOK, ["[ATTRIBUTE] makes [TARGET] happy ."], ["he"], ["nurse"])
    assert df["log_p_prior"].iloc[0] == pytest.approx(math.log(0.2))
    assert df["score"].iloc[0] == pytest.approx(math.log(0.1 / 0.2))
    # and the target-first case: the target mask is the first one (follows [CLS] -> G)
    df = kurita_scores(model, TOK, ["[TARGET] is a [ATTRIBUTE] ."], ["he"], ["nurse"])
    assert df["log_p_prior"].iloc[0] == pytest.approx(math.log(0.9))


def test_multi_piece_target_sums_piece_log_probs():
    model = StubMLM({("nurse", None): N, (None, None): D})
    tpl = ["[TARGET] likes [ATTRIBUTE] ."]
    df = kurita_scores(model, TOK, tpl, ["she", "herself"], ["nurse"]).set_index("target")
    assert df.loc["herself", "n_pieces"] == 2
    assert df.loc["herself", "log_p_target"] == pytest.approx(math.log(0.2) + math.log(0.25))
    assert df.loc["herself", "log_p_prior"] == pytest.approx(math.log(0.05) + math.log(0.5))
    assert df.loc["herself", "score"] == pytest.approx(math.log(0.2 * 0.25 / (0.05 * 0.5)))
    dropped = kurita_scores(model, TOK, tpl, ["she", "herself"], ["nurse"], multi_piece="drop")
    assert list(dropped["target"]) == ["she"]
    with pytest.raises(ValueError, match="splits into 2 word pieces"):
        kurita_scores(model, TOK, tpl, ["herself"], ["nurse"], multi_piece="raise")


def test_multi_piece_attribute_gets_as_many_masks():
    # prior sentence has two attribute masks; the target mask is still the first
    model = StubMLM({("nurse", None): N, (None, None): D})
    df = kurita_scores(model, TOK, ["[TARGET] is a [ATTRIBUTE] ."], ["she"], ["programmer"])
    assert df["score"].iloc[0] == pytest.approx(0.0)  # "programmer" is not a trigger


def test_eval_mode_set_and_restored():
    model = StubMLM({(None, None): D})
    model.train()
    kurita_scores(model, TOK, ["[TARGET] is [ATTRIBUTE] ."], ["he"], ["nice"])
    assert model.modes and not any(model.modes)
    assert model.training
    model.eval()
    kurita_scores(model, TOK, ["[TARGET] is [ATTRIBUTE] ."], ["he"], ["nice"])
    assert not model.training


def test_batching_gives_identical_results():
    model = StubMLM({("nurse", None): N, ("home", None): G, (None, None): D})
    args = (
        ["[TARGET] is a [ATTRIBUTE] .", "the programmer said [ATTRIBUTE] makes [TARGET] happy ."],
        ["he", "she", "herself"],
        ["nurse", "home", "work"],
    )
    one = kurita_scores(model, TOK, *args, batch_size=1)
    assert max(model.batch_sizes) == 1
    many = kurita_scores(model, TOK, *args, batch_size=32)
    assert max(model.batch_sizes) > 1
    pd.testing.assert_frame_equal(one, many)
    assert len(one) == 2 * 3 * 3


@pytest.mark.parametrize(
    ("templates", "targets", "attributes", "match"),
    [
        (["[TARGET] is nice ."], ["he"], ["nurse"], r"0 \[ATTRIBUTE\] slots"),
        (["[TARGET] [TARGET] [ATTRIBUTE]"], ["he"], ["nurse"], r"2 \[TARGET\] slots"),
        (["[MASK] [TARGET] [ATTRIBUTE]"], ["he"], ["nurse"], "contains the mask token"),
        (["[TARGET] [ATTRIBUTE]"], [""], ["nurse"], "empty"),
        (["[TARGET] [ATTRIBUTE]"], ["he"], [], "attributes is empty"),
        (["[TARGET] [ATTRIBUTE]"], ["zebra"], ["nurse"], "unknown token"),
        ([], ["he"], ["nurse"], "templates is empty"),
    ],
)
def test_kurita_scores_errors(templates, targets, attributes, match):
    model = StubMLM({(None, None): D})
    with pytest.raises(ValueError, match=match) as err:
        kurita_scores(model, TOK, templates, targets, attributes)
    assert "\n" not in str(err.value)


def test_kurita_scores_needs_mask_token_and_valid_options():
    model = StubMLM({(None, None): D})
    with pytest.raises(ValueError, match="no mask token"):
        kurita_scores(model, StubTokenizer(False), ["[TARGET] [ATTRIBUTE]"], ["he"], ["nurse"])
    with pytest.raises(ValueError, match="batch_size"):
        kurita_scores(model, TOK, ["[TARGET] [ATTRIBUTE]"], ["he"], ["nurse"], batch_size=0)
    with pytest.raises(ValueError, match="multi_piece"):
        kurita_scores(model, TOK, ["[TARGET] [ATTRIBUTE]"], ["he"], ["nurse"], multi_piece="x")


# ----------------------------------------------------------------------------- real HF model


def test_tiny_hf_bert_built_locally():
    """A randomly initialised tiny BertForMaskedLM (built here, nothing downloaded)."""
    transformers = pytest.importorskip("transformers")
    vocab = {w: i for i, w in enumerate(SPECIAL + WORDS)}
    tok = transformers.BertTokenizer(vocab=vocab, do_lower_case=True)  # transformers >= 5
    torch.manual_seed(0)
    cfg = transformers.BertConfig(
        vocab_size=len(SPECIAL + WORDS), hidden_size=16, num_hidden_layers=1,
        num_attention_heads=2, intermediate_size=32, max_position_embeddings=32,
    )  # fmt: skip
    model = transformers.BertForMaskedLM(cfg)
    model.train()
    assert mask_positions(tok, ["the programmer said [MASK] is nice ."]) == [[5]]
    df = kurita_scores(model, tok, ["[TARGET] is a [ATTRIBUTE] ."], ["she"], ["nurse"])
    assert model.training
    model.eval()
    with torch.no_grad():
        enc = tok(["[MASK] is a nurse .", "[MASK] is a [MASK] ."], return_tensors="pt")
        logp = torch.log_softmax(model(**enc).logits, dim=-1)
    sid = tok.convert_tokens_to_ids("she")
    expected = float(logp[0, 1, sid] - logp[1, 1, sid])
    assert df["score"].iloc[0] == pytest.approx(expected, abs=1e-5)
