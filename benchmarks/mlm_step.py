"""What the stand-in's training step costs, and what the two speed-ups of
nlpbias.studies.scoring.mlm buy.

One optimiser step of the stand-in's second phase (head, every MiniLM layer and the word
embeddings trainable, batch 32 x 128 tokens of Wikipedia summaries, 15 % masking), three ways,
in this process:

- baseline: the model's own forward (``BertForMaskedLM(..., labels=...)``: vocabulary logits at
  every position), float32;
- masked head: the output layer applied at the masked positions only (``masked_lm_loss``);
- masked head + bfloat16 autocast (what ``bf16: true`` runs; ``auto`` runs it where bfloat16
  products are fast: :func:`nlpbias.models.encoders.native_bf16`);
- the same with dropout masks drawn by numpy (:mod:`nlpbias.studies.scoring.dropout`), which
  is what the book's training runs on a CPU.

    .venv/bin/python benchmarks/mlm_step.py [--repeat 5]

First it prints what a reader needs to compare two machines: the CPU (model, family/model/
stepping, the vector-instruction flags that pick kernels, usable cores), torch's kernel level,
BLAS and threads, what the profiles' ``bf16: auto`` resolves to here, and three probes of the
step's ingredients: a float32 and a bfloat16 matrix product of the feed-forward layer's shape
(GFLOP/s; the product ``bf16: auto`` times to decide), a large copy (memory bandwidth,
GB/s), and one layer's attention-dropout mask drawn by torch and by numpy (ns per element: torch
draws on one thread except with MKL on Intel CPUs). bfloat16 pays off on GPUs, on CPUs with
AMX-BF16 tiles, and on some CPUs with ``avx512_bf16`` alone but not on others: its products were
0.76x float32's speed on 2026-11-27's Xeon (a step 3.00 s against 2.07 s) and 4.66x on an AMD
EPYC (Zen 5; 1.08 s against 2.22 s).

Last, the book's step beside one busy process (a Python loop at normal priority), with torch's
threads and with one: how much another running program costs it. With two threads on two
cores every parallel region waits for the thread that shares a core with the other program; on
2026-11-28's AMD EPYC a masked-LM step took 2.9x as long beside it, against 1.0x with
one thread (which leaves the other core to the program). A machine that is "idle" but for one
busy process makes the scoring chapter's two-thread steps two to three times slower.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

from nlpbias.book import runner
from nlpbias.core import repro
from nlpbias.data.corpora import load_wiki_summaries
from nlpbias.models.encoders import BF16_PROBE_SHAPE, bf16_auto_report, bf16_matmul_seconds
from nlpbias.studies.scoring import mlm
from nlpbias.studies.scoring.dropout import dropout_seed, masked_dropout, numpy_dropout
from nlpbias.studies.scoring.mlm import mask_tokens, masked_lm_loss, pack_blocks

ROOT = Path(__file__).resolve().parents[1]


def _best(fn, repeat: int) -> float:
    fn()  # warm-up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def machine_report(repeat: int = 5) -> list[str]:
    """The lines that tell two machines apart for this step (see the module docstring)."""
    info = repro.machine()
    fp32_s, bf16_s = bf16_matmul_seconds(repeat)  # the product bf16: auto times
    m, k, n = BF16_PROBE_SHAPE
    flops = 2 * m * k * n
    fp32, bf16 = flops / fp32_s / 1e9, flops / bf16_s / 1e9
    big = torch.empty(64 * 2**20 // 4)  # 64 MiB, well past the caches
    out = torch.empty_like(big)
    bandwidth = 2 * big.nbytes / _best(lambda: out.copy_(big), repeat) / 1e9  # read + write
    probs = torch.empty(32, 12, 128, 128)  # one layer's attention probabilities, batch 32 x 128
    per = 1e9 / probs.numel()
    torch_ns = _best(lambda: torch.nn.functional.dropout(probs, 0.1, training=True), repeat) * per
    with dropout_seed(0):
        numpy_ns = _best(lambda: masked_dropout(probs, 0.1, training=True), repeat) * per
    return [
        f"CPU: {info['cpu_model']} (family/model/stepping {info['cpu_family_model_stepping']}),"
        f" {info['cpus']} usable cores",
        f"flags: {' '.join(info['isa']) or 'none of ' + ', '.join(repro.ISA_FLAGS)}",
        f"torch {torch.__version__}: kernels {info.get('torch_cpu_capability')},"
        f" BLAS {info.get('torch_blas')}, {torch.get_num_threads()} threads",
        f"bf16: auto -> {bf16_auto_report()}",
        f"matrix product {m} x {k} x {n}: float32 {fp32:6.1f} GFLOP/s,"
        f" bfloat16 {bf16:6.1f} GFLOP/s ({bf16 / fp32:.2f}x)",
        f"memory copy of 64 MiB: {bandwidth:5.1f} GB/s",
        f"dropout mask of {probs.numel() / 1e6:.1f} M elements: torch"
        f" {torch_ns:4.2f} ns/element, numpy {numpy_ns:4.2f} ns/element (mask and multiply)",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for line in machine_report(args.repeat):
        print(line, flush=True)
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
        bf16 = kind != "baseline" and kind != "masked head"
        ctx = torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()
        numpy_masks = kind == "masked head + bf16 + numpy dropout"
        swap = numpy_dropout(model) if numpy_masks else contextlib.nullcontext()
        t0 = time.perf_counter()
        with swap, dropout_seed(i), ctx:
            if kind == "baseline":
                loss = model(input_ids=inputs, attention_mask=attention, labels=labels).loss
            else:
                loss, _ = masked_lm_loss(model, inputs, attention, labels)
        loss.backward()
        optimiser.step()
        optimiser.zero_grad(set_to_none=True)
        return time.perf_counter() - t0

    kinds = ["baseline", "masked head", "masked head + bf16", "masked head + bf16 + numpy dropout"]
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
        print(f"  {k:<34} {med:6.2f} s   speed-up vs baseline {base / med:4.1f}x")
    book = kinds[-1]  # what the book's training runs
    threads = torch.get_num_threads()
    print(f"the book's step ({book}) beside one busy process (another program running):")
    for n in sorted({threads, 1}, reverse=True):
        torch.set_num_threads(n)
        alone = statistics.median(step(book, i) for i in range(1, args.repeat + 1))
        with _busy_process():
            beside = statistics.median(step(book, i) for i in range(1, args.repeat + 1))
        print(
            f"  torch threads {n}: alone {alone:5.2f} s, beside it {beside:5.2f} s"
            f" ({beside / alone:3.1f}x)"
        )
    torch.set_num_threads(threads)


@contextlib.contextmanager
def _busy_process():
    """A Python busy loop in another process, at normal priority, for the block's duration: a
    stand-in for anything else running (a browser tab, an indexer, a second notebook)."""
    proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)  # let the scheduler give it its share
        yield
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
