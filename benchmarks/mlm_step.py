"""What the stand-in's training step costs, and what the two speed-ups of
nlpbias.studies.scoring.mlm buy.

One optimiser step of the stand-in's second phase (head, every MiniLM layer and the word
embeddings trainable, batch 32 x 128 tokens of Wikipedia summaries, 15 % masking), three ways,
in this process:

- baseline: the model's own forward (``BertForMaskedLM(..., labels=...)``: vocabulary logits at
  every position), float32;
- masked head: the output layer applied at the masked positions only (``masked_lm_loss``);
- masked head + bfloat16 autocast (the stand-in's default, ``bf16=True``).

    .venv/bin/python benchmarks/mlm_step.py [--repeat 5]

bfloat16 pays off on CPUs with native bf16 instructions (``avx512_bf16``/AMX) and on GPUs.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from pathlib import Path

import torch

from nlpbias.book import runner
from nlpbias.data.corpora import load_wiki_summaries
from nlpbias.studies.scoring import mlm
from nlpbias.studies.scoring.mlm import mask_tokens, masked_lm_loss, pack_blocks

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    recipe = runner.load_config(ROOT)["profiles"]["paper"]["scoring"]["standin"]  # the published
    cfg = mlm.StandInConfig.from_mapping(recipe)
    tokenizer, model = mlm._build_standin(cfg.encoder, 0)
    optimiser = mlm._optimiser(model, cfg, "layers")
    blocks = pack_blocks(tokenizer, list(load_wiki_summaries().values[:3000]), max_length=128)
    model.train()

    def step(kind: str, i: int) -> float:
        gen = torch.Generator().manual_seed(i)
        rows = torch.randint(len(blocks), (cfg.batch_size,), generator=gen).tolist()
        ids, attention = mlm._batch_tensors(
            blocks, rows, tokenizer.pad_token_id, torch.device("cpu")
        )
        inputs, labels = mask_tokens(
            ids, attention, tokenizer=tokenizer, generator=gen,
            mlm_probability=mlm.BERT_MLM_PROBABILITY,
        )  # fmt: skip
        bf16 = kind == "masked head + bf16"
        ctx = torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()
        t0 = time.perf_counter()
        with ctx:
            if kind == "baseline":
                loss = model(input_ids=inputs, attention_mask=attention, labels=labels).loss
            else:
                loss, _ = masked_lm_loss(model, inputs, attention, labels)
        loss.backward()
        optimiser.step()
        optimiser.zero_grad(set_to_none=True)
        return time.perf_counter() - t0

    kinds = ["baseline", "masked head", "masked head + bf16"]
    times: dict[str, list[float]] = {k: [] for k in kinds}
    for k in kinds:
        step(k, 0)  # warm-up
    for i in range(1, args.repeat + 1):  # interleaved, so drifts in machine load hit all three
        for k in kinds:
            times[k].append(step(k, i))
    base = statistics.median(times["baseline"])
    print(f"one training step, batch {cfg.batch_size} x {cfg.max_length}, median of {args.repeat}")
    print(f"torch threads: {torch.get_num_threads()}")
    for k in kinds:
        med = statistics.median(times[k])
        print(f"  {k:<20} {med:6.2f} s   speed-up vs baseline {base / med:4.1f}x")


if __name__ == "__main__":
    main()
