"""Tests for nlpbias.studies.scoring.mlm: packing, masking, masked loss and accuracy."""

from __future__ import annotations

import math

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from nlpbias.studies.scoring.mlm import (  # noqa: E402
    BERT_MLM_PROBABILITY,
    mask_tokens,
    masked_accuracy,
    masked_lm_loss,
    masked_logits,
    pack_blocks,
    split_indices,
    step_generator,
    texts_fingerprint,
)
from nlpbias.studies.scoring.mlm import _batch_tensors as batch_tensors  # noqa: E402

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = [f"w{i}" for i in range(40)]
PAD, UNK, CLS, SEP, MASK = range(5)
P = BERT_MLM_PROBABILITY


@pytest.fixture(scope="module")
def tok():
    vocab = {w: i for i, w in enumerate(SPECIAL + WORDS)}
    return transformers.BertTokenizer(vocab=vocab)


def _text(*ids: int) -> str:
    return " ".join(f"w{i}" for i in ids)


def _ids(*words: int) -> list[int]:
    return [5 + w for w in words]


# ----------------------------------------------------------------------------- pack_blocks
def test_pack_blocks_layout_and_ids_equal_the_tokenizer(tok) -> None:
    texts = [_text(0, 1), _text(2), _text(3, 4, 5)]
    assert pack_blocks(tok, texts, max_length=8) == [
        [CLS, *_ids(0, 1), SEP, *_ids(2), SEP],  # 3rd text (4 ids) does not fit in 8
        [CLS, *_ids(3, 4, 5), SEP],
    ]
    assert tok(texts[2], add_special_tokens=False)["input_ids"] == _ids(3, 4, 5)


def test_pack_blocks_never_splits_a_text_and_keeps_order(tok) -> None:
    gen = np.random.default_rng(0)
    texts = [_text(*gen.integers(0, 40, size=gen.integers(1, 9))) for _ in range(200)]
    blocks = pack_blocks(tok, texts, max_length=16)
    pieces = []
    for i, block in enumerate(blocks):
        assert block[0] == CLS and block[-1] == SEP and len(block) <= 16
        assert CLS not in block[1:]
        segment: list[int] = []
        for t in block[1:]:
            if t == SEP:
                pieces.append(segment)
                segment = []
            else:
                segment.append(t)
        if i + 1 < len(blocks):  # greedy: the next block's first text did not fit here
            first = blocks[i + 1][1:].index(SEP) + 1
            assert len(block) + first > 16
    assert pieces == [tok(t, add_special_tokens=False)["input_ids"] for t in texts]


def test_pack_blocks_truncates_long_texts_and_skips_empty_ones(tok) -> None:
    long = _text(*range(20))
    assert pack_blocks(tok, ["", long, "  ", _text(7)], max_length=6) == [
        [CLS, *_ids(0, 1, 2, 3), SEP],
        [CLS, *_ids(7), SEP],
    ]


def test_pack_blocks_errors(tok) -> None:
    with pytest.raises(TypeError, match="list of strings"):
        pack_blocks(tok, "w1 w2", max_length=8)
    with pytest.raises(TypeError, match="only strings"):
        pack_blocks(tok, ["w1", 3], max_length=8)
    with pytest.raises(ValueError, match="no non-empty text"):
        pack_blocks(tok, ["", " "], max_length=8)
    with pytest.raises(ValueError, match="max_length"):
        pack_blocks(tok, ["w1"], max_length=3)

    class NoCls:
        cls_token_id = None
        sep_token_id = 3

    with pytest.raises(ValueError, match=r"\[CLS\]"):
        pack_blocks(NoCls(), ["w1"], max_length=8)


# ----------------------------------------------------------------------------- mask_tokens
def _batch(n_rows: int = 400, width: int = 30, seed: int = 0):
    gen = np.random.default_rng(seed)
    ids = torch.full((n_rows, width), PAD)
    att = torch.zeros((n_rows, width), dtype=torch.long)
    for r in range(n_rows):
        n = int(gen.integers(3, width + 1))
        ids[r, :n] = torch.as_tensor(gen.integers(5, 45, size=n))
        ids[r, 0], ids[r, n - 1] = CLS, SEP
        if n > 4:
            ids[r, n // 2] = SEP  # an inner separator, as in packed blocks
            ids[r, 1] = UNK
        att[r, :n] = 1
    return ids, att


def test_mask_tokens_never_touches_special_tokens_or_padding(tok) -> None:
    ids, att = _batch()
    inputs, labels = mask_tokens(
        ids, att, tokenizer=tok, generator=step_generator(0, 0), mlm_probability=P
    )
    special = (ids < 5) | (att == 0)  # [PAD] [UNK] [CLS] [SEP] [MASK] and padding
    assert torch.equal(inputs[special], ids[special])
    assert (labels[special] == -100).all()
    selected = labels != -100
    assert torch.equal(labels[selected], ids[selected])
    assert torch.equal(inputs[~selected], ids[~selected])


def test_mask_tokens_proportions(tok) -> None:
    ids, att = _batch(n_rows=1000)
    inputs, labels = mask_tokens(
        ids, att, tokenizer=tok, generator=step_generator(3, 1), mlm_probability=P
    )
    eligible = (att == 1) & (ids >= 5)
    selected = labels != -100
    n_sel = int(selected.sum())
    share = n_sel / int(eligible.sum())
    assert share == pytest.approx(0.15, abs=0.01)  # ~16,000 eligible tokens: sd 0.003
    masked = int((inputs[selected] == MASK).sum())
    kept = int((inputs[selected] == ids[selected]).sum())
    other = n_sel - masked - kept
    sd = math.sqrt(0.1 * 0.9 / n_sel)
    assert masked / n_sel == pytest.approx(0.8, abs=5 * math.sqrt(0.16 / n_sel))
    # kept = the 10 % kept + random replacements that drew the original token (1/45 of 10 %)
    assert kept / n_sel == pytest.approx(0.1 + 0.1 / len(tok), abs=5 * sd)
    assert other / n_sel == pytest.approx(0.1 * (1 - 1 / len(tok)), abs=5 * sd)


def test_mask_tokens_custom_shares(tok) -> None:
    ids, att = _batch(n_rows=300)
    inputs, labels = mask_tokens(
        ids,
        att,
        tokenizer=tok,
        generator=step_generator(0, 0),
        mlm_probability=0.5,
        replace_probabilities=(1.0, 0.0),
    )
    selected = labels != -100
    assert (inputs[selected] == MASK).all()
    assert int(selected.sum()) / int(((att == 1) & (ids >= 5)).sum()) == pytest.approx(
        0.5, abs=0.03
    )


def test_mask_tokens_is_deterministic_by_generator(tok) -> None:
    ids, att = _batch(n_rows=50)
    a = mask_tokens(ids, att, tokenizer=tok, generator=step_generator(1, 7), mlm_probability=P)
    b = mask_tokens(ids, att, tokenizer=tok, generator=step_generator(1, 7), mlm_probability=P)
    c = mask_tokens(ids, att, tokenizer=tok, generator=step_generator(1, 8), mlm_probability=P)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[1], c[1])


def test_mask_tokens_selects_at_least_one_token(tok) -> None:
    ids = torch.tensor([[CLS, 9, SEP, PAD]])
    att = torch.tensor([[1, 1, 1, 0]])
    for step in range(20):  # p = 0.15 would often select nothing
        inputs, labels = mask_tokens(
            ids, att, tokenizer=tok, generator=step_generator(0, step), mlm_probability=P
        )
        assert labels.tolist() == [[-100, 9, -100, -100]]


def test_mask_tokens_errors(tok) -> None:
    ids, att = _batch(n_rows=2)
    gen = step_generator(0, 0)
    with pytest.raises(ValueError, match="mlm_probability"):
        mask_tokens(ids, att, tokenizer=tok, generator=gen, mlm_probability=0)
    with pytest.raises(ValueError, match="replace_probabilities"):
        mask_tokens(
            ids, att, tokenizer=tok, generator=gen, mlm_probability=P,
            replace_probabilities=(0.8, 0.3),
        )  # fmt: skip
    with pytest.raises(ValueError, match="no maskable token"):
        mask_tokens(
            torch.tensor([[CLS, UNK, SEP, PAD]]),
            torch.tensor([[1, 1, 1, 0]]),
            tokenizer=tok,
            generator=gen,
            mlm_probability=P,
        )


# ----------------------------------------------------------------------------- step_generator
def test_step_generator_and_fingerprint() -> None:
    def draw(g):
        return torch.rand(3, generator=g).tolist()

    assert draw(step_generator(2, 5)) == draw(step_generator(2, 5))
    assert draw(step_generator(2, 5)) != draw(step_generator(2, 6))
    assert draw(step_generator(2, 5)) != draw(step_generator(3, 5))
    assert texts_fingerprint(["a", "b"]) == texts_fingerprint(["a", "b"])
    assert texts_fingerprint(["ab"]) != texts_fingerprint(["a", "b"])
    assert len(texts_fingerprint(["x"])) == 16


# ----------------------------------------------------------------------------- batch_tensors
def test_batch_tensors_pads_the_chosen_rows() -> None:
    blocks = [[2, 7, 3], [2, 8, 9, 10, 3], [2, 6, 3, 11, 3]]
    ids, att = batch_tensors(blocks, [2, 0], 0, torch.device("cpu"))
    assert ids.tolist() == [[2, 6, 3, 11, 3], [2, 7, 3, 0, 0]]
    assert att.tolist() == [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]]


# ----------------------------------------------------------------------------- masked logits
@pytest.fixture(scope="module")
def tiny_bert():
    torch.manual_seed(0)
    cfg = transformers.BertConfig(
        vocab_size=len(SPECIAL + WORDS), hidden_size=32, num_hidden_layers=2,
        num_attention_heads=2, intermediate_size=64, max_position_embeddings=64,
    )  # fmt: skip
    model = transformers.BertForMaskedLM(cfg)
    with torch.no_grad():  # make the head's bias and transform non-trivial
        model.cls.predictions.bias.normal_()
    return model.eval()


def test_masked_logits_equal_the_full_model_at_selected_positions(tok, tiny_bert) -> None:
    ids, att = _batch(n_rows=6, width=12)
    inputs, labels = mask_tokens(
        ids, att, tokenizer=tok, generator=step_generator(0, 0), mlm_probability=P
    )
    selected = labels != -100
    with torch.no_grad():
        fast = masked_logits(tiny_bert, inputs, att, selected)
        full = tiny_bert(input_ids=inputs, attention_mask=att).logits[selected]
        loss, n = masked_lm_loss(tiny_bert, inputs, att, labels)
    assert fast.shape == (int(selected.sum()), len(tok))
    torch.testing.assert_close(fast, full, atol=1e-5, rtol=1e-5)
    expected = torch.nn.functional.cross_entropy(full, labels[selected])
    assert n == int(selected.sum())
    assert float(loss) == pytest.approx(float(expected), rel=1e-5)


# ----------------------------------------------------------------------------- masked accuracy
class PositionModel(torch.nn.Module):
    """Logits at position j: ``top`` on token ``truth(j)``, ``second`` on token ``wrong``.

    Blocks built by :func:`_positional_blocks` hold token ``truth(j) = 5 + j % 7`` at position
    ``j``, so the model knows the true token of every position without seeing it."""

    def __init__(self, top: float, second: float, wrong: int = 44) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(()))
        self.top, self.second, self.wrong = top, second, wrong

    def forward(self, input_ids, attention_mask=None):
        b, n = input_ids.shape
        out = torch.zeros((b, n, len(SPECIAL + WORDS)))
        pos = torch.arange(n)
        out[:, pos, 5 + pos % 7] = self.top
        out[:, :, self.wrong] = self.second

        class Out:
            logits = out + self.weight

        return Out()


def _positional_blocks(n: int = 40, width: int = 20) -> list[list[int]]:
    return [[CLS] + [5 + j % 7 for j in range(1, width - 1 - r % 5)] + [SEP] for r in range(n)]


def test_masked_accuracy_of_a_perfect_model(tok) -> None:
    model = PositionModel(top=10.0, second=0.0).train()
    res = masked_accuracy(model, tok, _positional_blocks(), batch_size=16, random_state=0)
    assert res["top1"] == 1.0 and res["top5"] == 1.0
    v = len(SPECIAL + WORDS)
    assert res["loss"] == pytest.approx(-math.log(math.exp(10) / (math.exp(10) + v - 1)), 1e-4)
    eligible = sum(len(b) - 2 for b in _positional_blocks())
    assert res["n_masked"] == pytest.approx(0.15 * eligible, abs=0.06 * eligible)
    assert model.training  # restored


def test_masked_accuracy_of_a_wrong_model(tok) -> None:
    # the truth is the second choice: top-1 never, top-5 always
    model = PositionModel(top=5.0, second=9.0).eval()
    res = masked_accuracy(model, tok, _positional_blocks(), batch_size=7, random_state=0)
    assert res["top1"] == 0.0 and res["top5"] == 1.0
    assert not model.training
    # always the wrong token, truth not in the top 5: the truth ties with 43 other tokens
    model = PositionModel(top=0.0, second=9.0)
    assert masked_accuracy(model, tok, _positional_blocks(), random_state=0)["top1"] == 0.0


def test_masked_accuracy_masks_are_seeded(tok, tiny_bert) -> None:
    blocks = _positional_blocks()
    a = masked_accuracy(tiny_bert, tok, blocks, random_state=1)
    b = masked_accuracy(tiny_bert, tok, blocks, random_state=1)
    c = masked_accuracy(tiny_bert, tok, blocks, random_state=2)
    assert a == b
    assert a != c
    with pytest.raises(ValueError, match="no held-out blocks"):
        masked_accuracy(tiny_bert, tok, [], random_state=0)


# ----------------------------------------------------------------------------- split_indices
def test_split_indices() -> None:
    train, val = split_indices(50, val_fraction=0.1, random_state=0)
    assert len(train) == 45 and len(val) == 5
    assert sorted([*train, *val]) == list(range(50))
    assert list(train) == sorted(train) and list(val) == sorted(val)
    again = split_indices(50, val_fraction=0.1, random_state=0)
    assert np.array_equal(again[1], val)
    assert not np.array_equal(split_indices(50, val_fraction=0.1, random_state=1)[1], val)
    assert [len(x) for x in split_indices(2, val_fraction=0.01, random_state=0)] == [1, 1]
    assert [len(x) for x in split_indices(3, val_fraction=0.99, random_state=0)] == [1, 2]
    with pytest.raises(ValueError, match="val_fraction"):
        split_indices(10, val_fraction=1.0, random_state=0)
    with pytest.raises(ValueError, match="at least 2"):
        split_indices(1, val_fraction=0.5, random_state=0)
