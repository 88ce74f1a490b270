"""Tests for nlpbias.studies.scoring.mlm (stand-in adaptation and per-person fine-tuning, one step
loop) on a tiny BERT."""

from __future__ import annotations

import doctest
import json
import re
import time

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

import nlpbias.studies.scoring.mlm as mlm  # noqa: E402
from nlpbias.models.encoders import load_mlm  # noqa: E402
from nlpbias.studies.scoring.effects import dong_bias  # noqa: E402
from nlpbias.studies.scoring.kurita import kurita_scores  # noqa: E402
from nlpbias.studies.scoring.mlm import (  # noqa: E402
    StandInConfig,
    adapt_mlm,
    fine_tune_mlm,
    predict_masked,
    quality_card,
)
from nlpbias.studies.scoring.synthetic import planted_corpus  # noqa: E402

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LEADER, FOLLOWER = ["leader", "boss"], ["follower", "helper"]
FEMALE, MALE = ["she", "women"], ["he", "men"]
TEMPLATES = ["[TARGET] is [ATTRIBUTE].", "[TARGET] are [ATTRIBUTE]."]


@pytest.fixture(autouse=True)
def _one_thread_and_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NLPBIAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("TQDM_DISABLE", "1")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny models: threads only add overhead on a shared machine
    yield
    torch.set_num_threads(threads)


def _corpus(direction: str, n: int = 3000, seed: int = 0) -> list[str]:
    return planted_corpus(
        n,
        attribute_words=LEADER,
        opposite_words=FOLLOWER,
        female=FEMALE,
        male=MALE,
        direction=direction,
        planted_share=0.9,
        random_state=seed,
    )


def _vocab() -> dict[str, int]:
    words = set(FEMALE + MALE + LEADER + FOLLOWER + ["is", "are", "."])
    for direction in ("female", "male"):
        for post in _corpus(direction, 2000):
            words.update(re.findall(r"\w+|[^\w\s]", post))
    return {w: i for i, w in enumerate(SPECIAL + sorted(words))}


def _save_tiny(
    folder, *, head: bool, hidden: int = 32, heads: int = 2, seed: int = 0, dropout: float = 0.0
):
    """A random tiny BERT (no dropout by default) and its tokenizer, saved for from_pretrained."""
    vocab = _vocab()
    tok = transformers.BertTokenizer(vocab=vocab)
    cfg = transformers.BertConfig(
        vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=2, num_attention_heads=heads,
        intermediate_size=2 * hidden, max_position_embeddings=64, hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
    )  # fmt: skip
    torch.manual_seed(seed)
    model = transformers.BertForMaskedLM(cfg) if head else transformers.BertModel(cfg)
    model.save_pretrained(folder)
    tok.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def encoder_dir(tmp_path_factory):
    """A tiny BERT encoder WITHOUT an MLM head, like all-MiniLM-L6-v2."""
    return _save_tiny(tmp_path_factory.mktemp("encoder"), head=False)


@pytest.fixture(scope="module")
def dropout_encoder_dir(tmp_path_factory):
    """The same without a head but WITH dropout (its draws must be seeded per step)."""
    return _save_tiny(tmp_path_factory.mktemp("encoder_dropout"), head=False, dropout=0.1)


@pytest.fixture(scope="module")
def mlm_dir(tmp_path_factory):
    """A tiny BertForMaskedLM (random, with a head)."""
    return _save_tiny(tmp_path_factory.mktemp("mlm"), head=True)


TEXTS = _corpus("female", 300)


def _cfg(encoder_dir, **kw) -> StandInConfig:
    base = {
        "encoder": str(encoder_dir), "steps": 6, "head_steps": 3, "unfreeze_layers": 1,
        "train_embeddings": False, "batch_size": 8, "max_length": 16, "head_lr": 2e-3,
        "layer_lr": 2e-4, "warmup_steps": 2, "weight_decay": 0.01, "mlm_probability": 0.3,
        "n_eval_blocks": 4, "bf16": False, "random_state": 0,
    }  # fmt: skip
    return StandInConfig.from_mapping({**base, **kw})


def _encoder_weights(folder) -> dict[str, torch.Tensor]:
    state = transformers.BertModel.from_pretrained(folder).state_dict()
    return {k: v for k, v in state.items() if not k.startswith("pooler.")}  # MLMs have none


def _weights(folder) -> dict[str, torch.Tensor]:
    _, model = load_mlm(folder, device="cpu")
    return {k: v.clone() for k, v in model.state_dict().items()}


def test_doctests() -> None:
    failed, attempted = doctest.testmod(mlm, raise_on_error=False, verbose=False)[:2]
    assert attempted > 0 and failed == 0


# ----------------------------------------------------------------------------- adapt_mlm
def test_adapt_mlm_writes_a_loadable_model_and_a_card(encoder_dir, tmp_path) -> None:
    path = adapt_mlm(TEXTS, config=_cfg(encoder_dir), eval_every=2, show_progress=False)
    assert path.parent == tmp_path / "cache" / "scoring" / "models"
    assert path.name.startswith("standin-")
    tok, model = load_mlm(path, device="cpu")  # refuses folders without a head
    assert not model.training
    card = quality_card(path)
    assert card["complete"] and card["steps_done"] == 6
    assert [h["step"] for h in card["history"]] == [0, 2, 4, 6]
    assert card["held_out"] == card["history"][-1]
    assert 0 <= card["held_out"]["top1"] <= card["held_out"]["top5"] <= 1
    assert card["data"]["n_texts"] == len(TEXTS)
    assert card["data"]["n_eval_blocks"] >= 1
    assert {p["probe"] for p in card["probes"]} == set(mlm.DEFAULT_PROBES)
    assert not (path / "checkpoint.pt").exists()
    probes = predict_masked(model, tok, ["she is [MASK] ."], k=3)
    assert list(probes["rank"]) == [1, 2, 3]
    assert probes["probability"].is_monotonic_decreasing


def test_head_phase_freezes_encoder_and_tied_decoder(encoder_dir, tmp_path) -> None:
    before = _encoder_weights(encoder_dir)
    out = adapt_mlm(
        TEXTS,
        config=_cfg(encoder_dir, steps=4, head_steps=4),
        output_dir=tmp_path / "head",
        show_progress=False,
    )
    with mlm._seeded(0):  # the same fresh head as adapt_mlm drew (random_state 0)
        fresh = transformers.BertForMaskedLM.from_pretrained(encoder_dir).state_dict()
    after = _weights(out)
    for key, value in before.items():  # every encoder weight is unchanged
        torch.testing.assert_close(after[f"bert.{key}"], value, rtol=0, atol=0)
    decoder = after["cls.predictions.decoder.weight"]
    torch.testing.assert_close(decoder, before["embeddings.word_embeddings.weight"])
    changed = [k for k in after if k.startswith("cls.") and not torch.equal(after[k], fresh[k])]
    assert "cls.predictions.transform.dense.weight" in changed
    assert "cls.predictions.bias" in changed


def test_layer_phase_trains_only_the_top_layers(encoder_dir, tmp_path) -> None:
    before = _encoder_weights(encoder_dir)
    out = adapt_mlm(TEXTS, config=_cfg(encoder_dir), output_dir=tmp_path / "l", show_progress=False)
    after = _weights(out)
    moved = {k for k, v in before.items() if not torch.equal(after[f"bert.{k}"], v)}
    assert moved and all(k.startswith("encoder.layer.1.") for k in moved)


def test_the_default_layer_phase_trains_every_layer_and_the_tied_word_embeddings(
    encoder_dir, tmp_path
) -> None:
    before = _encoder_weights(encoder_dir)
    cfg = _cfg(encoder_dir, unfreeze_layers=None, train_embeddings=True)
    after = _weights(adapt_mlm(TEXTS, config=cfg, output_dir=tmp_path / "a", show_progress=False))
    moved = {k for k, v in before.items() if not torch.equal(after[f"bert.{k}"], v)}
    for layer in ("encoder.layer.0.", "encoder.layer.1."):
        assert any(k.startswith(layer) for k in moved)
    assert "embeddings.word_embeddings.weight" in moved
    assert "embeddings.position_embeddings.weight" not in moved  # only the word embeddings
    # the output layer is still the word-embedding matrix, as trained
    torch.testing.assert_close(
        after["cls.predictions.decoder.weight"],
        after["bert.embeddings.word_embeddings.weight"],
        rtol=0,
        atol=0,
    )


@pytest.mark.parametrize("layers", [-1, 1.5])
def test_unfreeze_layers_must_be_a_count_or_none(encoder_dir, tmp_path, layers, one_line) -> None:
    with pytest.raises((TypeError, ValueError), match="unfreeze_layers") as err:
        adapt_mlm(TEXTS, config=_cfg(encoder_dir, unfreeze_layers=layers), output_dir=tmp_path)
    one_line(err)


def _stop_after(monkeypatch, k: int) -> None:
    """Make the clock jump past any budget once ``k`` training steps have run."""
    calls = {"n": 0}
    loss = mlm.masked_lm_loss

    def counting(*args, **kwargs):
        calls["n"] += 1
        return loss(*args, **kwargs)

    monkeypatch.setattr(mlm, "masked_lm_loss", counting)
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0 if calls["n"] < k else 1e9)


@pytest.mark.parametrize("stop", [2, 3, 4])  # inside the head phase, at its end, in phase 2
def test_resumed_run_equals_an_uninterrupted_one(dropout_encoder_dir, tmp_path, monkeypatch, stop):
    cfg = _cfg(dropout_encoder_dir)
    torch.manual_seed(1)  # the global generator's state must not matter: head and dropout
    whole = adapt_mlm(TEXTS, config=cfg, output_dir=tmp_path / "whole", show_progress=False)
    with monkeypatch.context() as patch:
        _stop_after(patch, stop)
        torch.manual_seed(2)  # are seeded from random_state (per step for dropout)
        part = adapt_mlm(
            TEXTS, config=cfg, output_dir=tmp_path / "part", max_minutes=1, show_progress=False
        )
    card = quality_card(part)
    assert not card["complete"] and card["steps_done"] == stop
    assert (part / "checkpoint.pt").is_file()
    torch.manual_seed(3)
    adapt_mlm(TEXTS, config=cfg, output_dir=tmp_path / "part", show_progress=False)
    assert quality_card(part)["complete"]
    expected, got = _weights(whole), _weights(part)
    for key, value in expected.items():
        torch.testing.assert_close(got[key], value, rtol=0, atol=0, msg=key)


def test_checkpoint_loads_without_running_code(encoder_dir, tmp_path, monkeypatch) -> None:
    cfg = _cfg(encoder_dir)
    with monkeypatch.context() as patch:
        _stop_after(patch, 2)
        part = adapt_mlm(
            TEXTS, config=cfg, output_dir=tmp_path / "p", max_minutes=1, show_progress=False
        )
    # the safe loader refuses anything but tensors and plain values
    saved = torch.load(part / "checkpoint.pt", weights_only=True)
    assert set(saved) == {"model", "optimiser", "phase", "state"}
    assert saved["state"]["step"] == 2 and saved["phase"] == "head"


def test_model_folders_are_keyed_by_the_code_too(encoder_dir, mlm_dir, monkeypatch) -> None:
    standin = adapt_mlm(TEXTS, config=_cfg(encoder_dir, steps=1, head_steps=1), show_progress=False)
    tuned = _fine_tune(mlm_dir, TEXTS[:64], max_steps=1)
    assert standin.parent == tuned.path.parent  # one model cache, one key function
    monkeypatch.setattr(mlm, "code_digest", lambda name: "edited")
    again = adapt_mlm(TEXTS, config=_cfg(encoder_dir, steps=1, head_steps=1), show_progress=False)
    assert again != standin and again.parent == standin.parent
    assert again.name.startswith("standin-")
    assert _fine_tune(mlm_dir, TEXTS[:64], max_steps=1).path != tuned.path


def test_adapt_mlm_cache_hit_does_not_train(encoder_dir, monkeypatch) -> None:
    cfg = _cfg(encoder_dir, steps=2, head_steps=2)
    path = adapt_mlm(TEXTS, config=cfg, show_progress=False)

    def boom(*args, **kwargs):
        raise AssertionError("trained again")

    monkeypatch.setattr(mlm, "_build_standin", boom)
    assert adapt_mlm(TEXTS, config=cfg, show_progress=False) == path
    other = _cfg(encoder_dir, steps=2, head_steps=1)
    with pytest.raises(AssertionError, match="trained again"):
        adapt_mlm(TEXTS, config=other, show_progress=False)


@pytest.mark.parametrize("native", [True, False])
def test_auto_bf16_is_resolved_before_the_key(encoder_dir, monkeypatch, native) -> None:
    """``bf16: auto`` trains as the machine decides, and the folder and card say what ran."""

    def resolve(bf16, device):
        return native if bf16 == "auto" else bf16

    seen = []
    real = mlm._bf16_autocast
    monkeypatch.setattr(mlm, "resolve_bf16", resolve)
    monkeypatch.setattr(mlm, "_bf16_autocast", lambda on, dev: seen.append(on) or real(on, dev))
    auto = adapt_mlm(TEXTS, config=_cfg(encoder_dir, steps=2, head_steps=1, bf16="auto"),
                     show_progress=False)  # fmt: skip
    assert set(seen) == {native}
    assert quality_card(auto)["config"]["bf16"] is native
    precision = mlm.card_summary(quality_card(auto))["precision"]
    assert precision == ("bfloat16 autocast" if native else "float32")
    explicit = adapt_mlm(TEXTS, config=_cfg(encoder_dir, steps=2, head_steps=1, bf16=native),
                         show_progress=False)  # fmt: skip
    assert explicit == auto  # the same key: a cache hit
    tuned = _fine_tune(auto, TEXTS[:64], max_steps=1, bf16="auto")  # fine-tune the stand-in
    assert tuned.params["bf16"] is native
    assert _fine_tune(auto, TEXTS[:64], max_steps=1, bf16=native).path == tuned.path


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"config": "x"}, TypeError, "StandInConfig"),
        ({"steps": 0}, ValueError, "steps must be"),
        ({"steps": 2, "head_steps": 3}, ValueError, "head_steps"),
        ({"max_minutes": -0.5}, ValueError, "max_minutes must be >= 0"),
        ({"eval_every": 0}, ValueError, "eval_every"),
    ],
)
def test_adapt_mlm_errors(encoder_dir, kwargs, error, match) -> None:
    cfg_kw = {k: kwargs.pop(k) for k in ("steps", "head_steps") if k in kwargs}
    kwargs.setdefault("config", _cfg(encoder_dir, **cfg_kw))
    with pytest.raises(error, match=match):
        adapt_mlm(TEXTS, show_progress=False, **kwargs)


def test_quality_card_missing(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="adapt_mlm"):
        quality_card(tmp_path)


# ----------------------------------------------------------------------------- fine_tune_mlm
def _fine_tune(base, texts, **kw):
    args = {
        "epochs": 1, "learning_rate": 5e-5, "batch_size": 16, "max_length": 16, "bf16": False,
        "random_state": 0, "device": "cpu",
    }  # fmt: skip
    return fine_tune_mlm(base, texts, show_progress=False, **{**args, **kw})


def test_fine_tune_split_record_and_cache(mlm_dir, tmp_path, monkeypatch) -> None:
    texts = TEXTS[:200]
    res = _fine_tune(mlm_dir, texts, learning_rate=1e-3, max_steps=3)
    assert (res.n_train_texts, res.n_val_texts) == (180, 20)
    assert res.steps == 3
    assert res.path.parent == tmp_path / "cache" / "scoring" / "models"
    assert res.before["n_masked"] == res.after["n_masked"] > 0  # the same held-out masks
    assert res.before != res.after
    record = json.loads((res.path / "fine_tune.json").read_text())
    assert record["result"]["before"] == res.before
    summary = res.summary()
    assert summary["train texts"] == 180 and summary["top-1 after"] == res.after["top1"]
    load_mlm(res.path, device="cpu")

    monkeypatch.setattr(mlm, "load_mlm", lambda *a, **k: pytest.fail("trained again"))
    again = _fine_tune(mlm_dir, texts, learning_rate=1e-3, max_steps=3)
    assert again.path == res.path and again.after == res.after


def test_fine_tune_given_validation_and_steps(mlm_dir, tmp_path) -> None:
    res = _fine_tune(
        mlm_dir, TEXTS[:64], val_texts=TEXTS[64:80], epochs=2, output_dir=tmp_path / "o"
    )
    assert (res.n_train_texts, res.n_val_texts) == (64, 16)
    n_blocks = len(mlm.pack_blocks(load_mlm(mlm_dir, device="cpu")[0], TEXTS[:64], max_length=16))
    assert res.steps == 2 * -(-n_blocks // 16)
    assert res.path == tmp_path / "o"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epochs": 0}, "epochs"),
        ({"batch_size": 0}, "batch_size"),
        ({"max_steps": 0}, "max_steps"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"val_fraction": 1.0}, "val_fraction"),
        ({"val_texts": [""]}, "val_texts has no non-empty text"),
    ],
)
def test_fine_tune_errors(mlm_dir, kwargs, match) -> None:
    with pytest.raises(ValueError, match=match):
        _fine_tune(mlm_dir, TEXTS[:20], **kwargs)


def test_fine_tune_refuses_empty_texts(mlm_dir) -> None:
    with pytest.raises(ValueError, match="no non-empty text"):
        _fine_tune(mlm_dir, ["", "  "])


def test_fine_tune_refuses_a_single_string(mlm_dir) -> None:
    with pytest.raises(TypeError, match="list of strings"):
        _fine_tune(mlm_dir, "one post")


# ----------------------------------------------------------------------------- seed 003's choices
def _saved(folder) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(folder / "model.safetensors"))


def test_fine_tune_head_only_moves_the_head_transform_alone(mlm_dir) -> None:
    res = _fine_tune(mlm_dir, TEXTS[:100], learning_rate=1e-2, max_steps=3, train="head")
    before, after = _saved(mlm_dir), _saved(res.path)
    moved = {k for k in before if not torch.equal(before[k], after[k])}
    assert moved == {
        "cls.predictions.transform.dense.weight", "cls.predictions.transform.dense.bias",
        "cls.predictions.transform.LayerNorm.weight", "cls.predictions.transform.LayerNorm.bias",
    }  # fmt: skip
    everything = _fine_tune(mlm_dir, TEXTS[:100], learning_rate=1e-2, max_steps=3)
    assert any(k.startswith("bert.encoder") and not torch.equal(before[k], v)
               for k, v in _saved(everything.path).items())  # fmt: skip
    assert res.path != everything.path  # the choice is part of the cache key


def test_fine_tune_extra_head_layers_start_as_identity_and_reload(mlm_dir) -> None:
    from nlpbias.models.encoders import HEAD_LAYERS_KEY, add_head_layers

    tok, model = load_mlm(mlm_dir, device="cpu")
    ids = torch.tensor([[2, 5, 6, 4, 7, 3]])
    with torch.no_grad():
        plain = model(input_ids=ids).logits
        add_head_layers(model, 2)
        torch.testing.assert_close(model(input_ids=ids).logits, plain)  # the identity at first
    res = _fine_tune(mlm_dir, TEXTS[:100], learning_rate=1e-2, max_steps=3, train="head",
                     extra_head_layers=1)  # fmt: skip
    weights = _saved(res.path)
    assert not torch.equal(
        weights["cls.predictions.transform.0.dense.weight"],
        torch.zeros_like(weights["cls.predictions.transform.0.dense.weight"]),
    )
    config = json.loads((res.path / "config.json").read_text())
    assert config[HEAD_LAYERS_KEY] == 1
    _, again = load_mlm(res.path, device="cpu")  # rebuilt with its layer, weights tied
    assert isinstance(again.cls.predictions.transform, torch.nn.Sequential)
    assert again.cls.predictions.decoder.weight is again.get_input_embeddings().weight
    for k, v in again.state_dict().items():
        if k in weights:
            torch.testing.assert_close(v, weights[k])
    acc = mlm.masked_accuracy(
        again, tok, mlm.pack_blocks(tok, TEXTS[100:130], max_length=16), random_state=0
    )
    assert acc["n_masked"] > 0


def test_fine_tune_momentum_differs_from_adamw(mlm_dir) -> None:
    adam = _fine_tune(mlm_dir, TEXTS[:100], learning_rate=1e-2, max_steps=3)
    sgd = _fine_tune(mlm_dir, TEXTS[:100], learning_rate=1e-2, max_steps=3, optimiser="momentum")
    assert sgd.path != adam.path
    a, b = _saved(adam.path), _saved(sgd.path)
    assert any(not torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"optimiser": "sgd"}, ValueError, "optimiser"),
        ({"train": "dense"}, ValueError, "train"),
        ({"extra_head_layers": -1}, ValueError, "extra_head_layers"),
        ({"train": "head", "train_embeddings": True}, ValueError, "train_embeddings=False"),
    ],
)
def test_fine_tune_choice_errors(mlm_dir, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        _fine_tune(mlm_dir, TEXTS[:20], **kwargs)


# ----------------------------------------------------------------------------- planted corpus
@pytest.fixture(scope="module")
def planted_base(tmp_path_factory):
    """A tiny random MLM (hidden 64) and its leader bias before any fine-tuning."""
    folder = _save_tiny(tmp_path_factory.mktemp("planted"), head=True, hidden=64)
    return folder, _leader_bias(folder)


def _leader_bias(folder) -> float:
    tok, model = load_mlm(folder, device="cpu")
    scores = kurita_scores(model, tok, TEMPLATES, FEMALE + MALE, LEADER + FOLLOWER)
    bias = dong_bias(scores, female=FEMALE, male=MALE, attribute_groups={"leader": LEADER})
    return float(bias["leader"])


@pytest.mark.parametrize(("direction", "sign"), [("female", 1), ("male", -1)])
def test_planted_corpus_moves_the_kurita_bias_its_way(planted_base, direction, sign) -> None:
    """Fine-tuning on posts that pair one gender with leader words moves Dong's leader bias
    (mean Kurita score of female minus male targets) towards that gender."""
    folder, before = planted_base
    res = _fine_tune(
        folder,
        _corpus(direction),
        epochs=20,
        learning_rate=5e-3,
        batch_size=128,
        max_length=10,
        train_embeddings=True,
    )
    after = _leader_bias(res.path)
    assert res.after["top1"] > res.before["top1"] + 0.2  # it learnt the corpus
    assert sign * (after - before) > 0.5


def test_zero_budget_saves_the_checkpoint_without_training(encoder_dir, tmp_path, monkeypatch):
    cfg = _cfg(encoder_dir)
    out = tmp_path / "zero"
    with monkeypatch.context() as patch:
        _stop_after(patch, 2)
        adapt_mlm(TEXTS, config=cfg, output_dir=out, max_minutes=1, show_progress=False)
    stopped = _weights(out)
    calls = []
    loss = mlm.masked_lm_loss
    monkeypatch.setattr(mlm, "masked_lm_loss", lambda *a, **k: calls.append(1) or loss(*a, **k))
    adapt_mlm(TEXTS, config=cfg, output_dir=out, max_minutes=0, show_progress=False)
    assert calls == []  # no training step
    card = quality_card(out)
    assert not card["complete"] and card["steps_done"] == 2
    assert card["held_out"]["step"] == 2
    assert (out / "checkpoint.pt").is_file()  # a later call still resumes
    for key, value in stopped.items():
        torch.testing.assert_close(_weights(out)[key], value, rtol=0, atol=0, msg=key)
    with pytest.raises(ValueError, match="max_minutes must be >= 0"):
        adapt_mlm(TEXTS, config=cfg, output_dir=out, max_minutes=-1, show_progress=False)


# ----------------------------------------------------------------------------- one loop, one recipe
def test_the_stand_in_and_fine_tuning_run_the_same_step_loop(encoder_dir, mlm_dir, monkeypatch):
    seen = []
    loop = mlm._train_steps

    def spy(*args, **kwargs):
        seen.append((kwargs["what"], list(args[4])))  # which model, which steps
        return loop(*args, **kwargs)

    monkeypatch.setattr(mlm, "_train_steps", spy)
    adapt_mlm(TEXTS, config=_cfg(encoder_dir), show_progress=False)
    _fine_tune(mlm_dir, TEXTS[:64], max_steps=2)
    assert seen == [("stand-in", [0, 1, 2]), ("stand-in", [3, 4, 5]), ("fine-tuning", [0, 1])]


def test_cpu_training_draws_dropout_from_numpy_and_saves_a_plain_model(
    dropout_encoder_dir, tmp_path, monkeypatch
) -> None:
    from nlpbias.studies.scoring import dropout as nd

    draws = []
    draw = nd._scaled_keep_mask
    monkeypatch.setattr(nd, "_scaled_keep_mask", lambda x, p: draws.append(x.shape) or draw(x, p))
    folder = adapt_mlm(
        TEXTS, config=_cfg(dropout_encoder_dir), output_dir=tmp_path, show_progress=False
    )
    assert draws, "no dropout mask came from numpy"
    config = json.loads((folder / "config.json").read_text())
    assert nd.ATTENTION_NAME not in json.dumps(config)
    _, model = load_mlm(folder)
    assert not any(isinstance(m, nd.NumpyDropout) for m in model.modules())
    assert model.config._attn_implementation != nd.ATTENTION_NAME


def test_the_stand_in_recipe_names_missing_and_unknown_fields(encoder_dir, one_line) -> None:
    full = dict(vars(_cfg(encoder_dir)))
    assert StandInConfig.from_mapping(full) == _cfg(encoder_dir)
    with pytest.raises(ValueError, match="lacks head_lr, layer_lr; list every field") as err:
        StandInConfig.from_mapping({k: v for k, v in full.items() if not k.endswith("_lr")})
    one_line(err)
    with pytest.raises(ValueError, match=r"unknown fields \['stepz'\]"):
        StandInConfig.from_mapping({**full, "stepz": 3})
    with pytest.raises(TypeError, match="mapping"):
        StandInConfig.from_mapping([("steps", 3)])
