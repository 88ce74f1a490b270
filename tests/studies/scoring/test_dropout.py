"""Dropout with numpy-drawn masks: distribution, seeding, gradients, and the swap into a model."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import transformers

from nlpbias.studies.scoring import dropout as nd
from nlpbias.studies.scoring.dropout import (
    ATTENTION_NAME,
    NumpyDropout,
    attention_forward,
    dropout_seed,
    masked_dropout,
    numpy_dropout,
)


def test_same_seed_same_mask_other_seed_other_mask_whatever_torch_seed() -> None:
    x = torch.ones(64, 64)
    torch.manual_seed(1)
    with dropout_seed(7):
        a = masked_dropout(x, 0.1, training=True)
    torch.manual_seed(2)  # torch's generator plays no part
    with dropout_seed(7):
        b = masked_dropout(x, 0.1, training=True)
    with dropout_seed(8):
        c = masked_dropout(x, 0.1, training=True)
    assert torch.equal(a, b)
    assert not torch.equal(a, c)


def test_mask_is_numpy_pcg64_uniforms_compared_with_p() -> None:
    x = torch.arange(1, 13, dtype=torch.float32).view(3, 4)
    with dropout_seed(5):
        y = masked_dropout(x, 0.3, training=True)
    u = np.random.Generator(np.random.PCG64(5)).random(12, dtype=np.float32).reshape(3, 4)
    expected = np.where(u >= np.float32(0.3), x.numpy() / np.float32(0.7), 0.0)
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-6)


def test_keep_rate_and_scale() -> None:
    n, p = 1_000_000, 0.1
    with dropout_seed(0):
        y = masked_dropout(torch.ones(n), p, training=True)
    kept = y != 0
    # binomial: sd of the kept share is sqrt(p(1-p)/n) = 3e-4; allow 5 sd
    assert abs(float(kept.float().mean()) - (1 - p)) < 5 * np.sqrt(p * (1 - p) / n)
    assert torch.allclose(y[kept], torch.full_like(y[kept], 1 / (1 - p)))
    assert abs(float(y.mean()) - 1.0) < 5 * np.sqrt(p / (1 - p) / n)  # unbiased in expectation


def test_successive_calls_draw_fresh_masks() -> None:
    x = torch.ones(1000)
    with dropout_seed(0):
        a = masked_dropout(x, 0.5, training=True)
        b = masked_dropout(x, 0.5, training=True)
    assert not torch.equal(a, b)


def test_backward_uses_the_forward_mask() -> None:
    x = torch.randn(50, 40, requires_grad=True)
    with dropout_seed(3):
        y = masked_dropout(x, 0.2, training=True)
    y.backward(torch.ones_like(y))
    with dropout_seed(3):
        mask = masked_dropout(torch.ones(50, 40), 0.2, training=True)
    assert torch.equal(x.grad, mask)
    assert torch.unique(mask).tolist() == [0.0, pytest.approx(1 / 0.8)]


def test_keeps_dtype_and_edge_probabilities() -> None:
    x = torch.randn(8, 8, dtype=torch.bfloat16)
    with dropout_seed(0):
        assert masked_dropout(x, 0.1, training=True).dtype == torch.bfloat16
        assert torch.equal(masked_dropout(x, 0.0, training=True), x)
        assert torch.equal(masked_dropout(x, 1.0, training=True), torch.zeros_like(x))
    assert masked_dropout(x, 0.5, training=False) is x  # evaluation: no seed needed


# The masks of the book's trained models were drawn as float32 uniforms compared with p; the
# raw-bits path must give the same booleans and leave the generator where the floats would.
_SIZES = [2, 10, 7, 4096, 1, 1, 6, 3, 100_000, 5, 8]  # odd sizes buffer half an output


def _meaningful(rng: np.random.Generator) -> tuple:
    """The PCG64 state that decides later draws (a stale ``uinteger`` does not)."""
    state = rng.bit_generator.state
    return state["state"], state["has_uint32"], state["has_uint32"] and state["uinteger"]


@pytest.mark.parametrize("p", [0.0, 0.1, 0.3, 0.5, 2**-24, 1 - 2**-24, 0.99999999, 1.0])
def test_keep_draws_equal_the_float_comparison_call_after_call(p) -> None:
    fast = np.random.Generator(np.random.PCG64(11))
    floats = np.random.Generator(np.random.PCG64(11))
    for n in _SIZES:
        got = nd.keep_draws(fast, n, p)
        expected = floats.random(n, dtype=np.float32) >= np.float32(p)
        assert got.dtype == bool and got.shape == (n,)
        np.testing.assert_array_equal(got, expected)
        assert _meaningful(fast) == _meaningful(floats)
    assert fast.random(3, dtype=np.float32).tolist() == floats.random(3, dtype=np.float32).tolist()


def test_keep_draws_at_the_boundary() -> None:
    # a draw equal to p is kept, one just below it (p half a step of 2**-24 above) is dropped
    draws = np.random.Generator(np.random.PCG64(4)).random(64, dtype=np.float32)
    i = int(np.flatnonzero((draws >= 0.25) & (draws < 0.5))[0])
    for p, kept in ((draws[i], True), (np.nextafter(draws[i], np.float32(1)), False)):
        got = nd.keep_draws(np.random.Generator(np.random.PCG64(4)), 64, float(p))
        assert got[i] == kept
        np.testing.assert_array_equal(got, draws >= p)


def test_keep_draws_reads_raw_bits_where_it_can(monkeypatch) -> None:
    compared: list[np.dtype] = []
    real = np.greater_equal
    monkeypatch.setattr(nd.np, "greater_equal", lambda a, b: compared.append(a.dtype) or real(a, b))
    rng = np.random.Generator(np.random.PCG64(0))
    nd.keep_draws(rng, 8, 0.1)  # even, nothing buffered: the raw outputs
    nd.keep_draws(rng, 3, 0.1)  # odd: floats, half an output left
    nd.keep_draws(rng, 8, 0.1)  # that half first: floats
    nd.keep_draws(np.random.Generator(np.random.Philox(0)), 8, 0.1)  # another bit generator
    assert compared == [np.uint32, np.float32, np.float32, np.float32]


def test_errors_name_the_fix() -> None:
    with pytest.raises(RuntimeError, match="dropout_seed"):
        masked_dropout(torch.ones(3), 0.1, training=True)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        masked_dropout(torch.ones(3), 1.5, training=True)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        NumpyDropout(-0.1)
    with pytest.raises(ValueError, match="non-negative integer"):
        with dropout_seed(-1):
            pass
    with pytest.raises(TypeError, match="set_attn_implementation"):
        with numpy_dropout(torch.nn.Linear(2, 2)):
            pass


# ----------------------------------------------------------------------------- attention
class _Module(torch.nn.Module):
    is_causal = False


def _qkv(padding: bool):
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 4, generator=g) for _ in range(3))
    mask = None
    if padding:
        mask = torch.ones(2, 1, 5, 5, dtype=torch.bool)
        mask[1, :, :, 3:] = False  # the last two keys of row 1 are padding
    return q, k, v, mask


@pytest.mark.parametrize("padding", [False, True])
def test_attention_with_dropout_equals_eager_attention_with_the_same_mask(padding) -> None:
    q, k, v, mask = _qkv(padding)
    module = _Module().train()
    with dropout_seed(11):
        out, weights = attention_forward(module, q, k, v, mask, scaling=0.5, dropout=0.25)
    scores = q @ k.transpose(2, 3) * 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, torch.finfo(scores.dtype).min)
    probs = torch.softmax(scores, dim=-1)
    with dropout_seed(11):
        keep = masked_dropout(torch.ones_like(probs), 0.25, training=True)
    expected = (probs * keep) @ v
    torch.testing.assert_close(out, expected.transpose(1, 2), rtol=1e-6, atol=1e-6)
    torch.testing.assert_close(weights, probs * keep)
    if padding:
        assert torch.all(weights[1, :, :, 3:] == 0)


@pytest.mark.parametrize("padding", [False, True])
def test_attention_without_dropout_is_transformers_sdpa(padding) -> None:
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    q, k, v, mask = _qkv(padding)
    for module, p in [(_Module().eval(), 0.25), (_Module().train(), 0.0)]:
        out, _ = attention_forward(module, q, k, v, mask, scaling=0.5, dropout=p)
        ref, _ = sdpa_attention_forward(module, q, k, v, mask, scaling=0.5, dropout=0.0)
        assert torch.equal(out, ref)


def test_attention_refuses_causal_modules() -> None:
    q, k, v, _ = _qkv(False)
    module = _Module().train()
    module.is_causal = True
    with dropout_seed(0), pytest.raises(ValueError, match="bidirectional"):
        attention_forward(module, q, k, v, None, dropout=0.1)


# ----------------------------------------------------------------------------- in a model
@pytest.fixture
def tiny_bert():
    torch.manual_seed(0)
    cfg = transformers.BertConfig(
        vocab_size=50, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=32, attn_implementation="sdpa",
    )  # fmt: skip
    return transformers.BertForMaskedLM(cfg)


def _inputs():
    ids = torch.randint(5, 50, (3, 10), generator=torch.Generator().manual_seed(1))
    attention = torch.ones_like(ids)
    attention[2, 6:] = 0
    return ids, attention


def test_numpy_dropout_swaps_and_restores(tiny_bert) -> None:
    n_dropout = sum(type(m) is torch.nn.Dropout for m in tiny_bert.modules())
    assert n_dropout > 0
    with numpy_dropout(tiny_bert) as model:
        assert model is tiny_bert
        assert sum(isinstance(m, NumpyDropout) for m in model.modules()) == n_dropout
        assert not any(type(m) is torch.nn.Dropout for m in model.modules())
        assert model.config._attn_implementation == ATTENTION_NAME
    assert sum(type(m) is torch.nn.Dropout for m in tiny_bert.modules()) == n_dropout
    assert not any(isinstance(m, NumpyDropout) for m in tiny_bert.modules())
    assert tiny_bert.config._attn_implementation == "sdpa"


def test_in_eval_mode_the_model_is_unchanged(tiny_bert) -> None:
    ids, attention = _inputs()
    tiny_bert.eval()
    with torch.no_grad():
        before = tiny_bert(input_ids=ids, attention_mask=attention).logits
        with numpy_dropout(tiny_bert):
            inside = tiny_bert(input_ids=ids, attention_mask=attention).logits
    assert torch.equal(before, inside)


def test_training_forward_is_seeded_by_numpy_and_drops_every_kind(tiny_bert, monkeypatch) -> None:
    ids, attention = _inputs()
    shapes: list[tuple[int, ...]] = []
    draw = nd._scaled_keep_mask

    def spy(x, p):
        shapes.append(tuple(x.shape))
        return draw(x, p)

    monkeypatch.setattr(nd, "_scaled_keep_mask", spy)
    tiny_bert.train()
    with numpy_dropout(tiny_bert):
        outs = []
        for seed in (4, 4, 5):
            torch.manual_seed(seed * 10)  # torch's generator plays no part
            with dropout_seed(seed):
                outs.append(tiny_bert(input_ids=ids, attention_mask=attention).logits)
    assert torch.equal(outs[0], outs[1])
    assert not torch.equal(outs[0], outs[2])
    per_pass = shapes[: len(shapes) // 3]
    # embeddings + per layer: attention probabilities, attention output, feed-forward output
    assert per_pass.count((3, 2, 10, 10)) == 2  # the attention probabilities, one per layer
    assert per_pass.count((3, 10, 32)) == 1 + 2 * 2
