"""A cost model of every composer's training step: pairs/s and the fraction of a FLOP limit.

    nice -n 5 python benchmarks/bench_cost.py                    # d 50 and 300, 1 and 2 threads
    python benchmarks/bench_cost.py --dims 50 --threads 1 --families lstm gran gran+noise

Each family is the trainer's step of one composer of the five papers, with the paper's run
settings (``paper_settings``), batch 100 and word width = hidden size ``d``:

- wieting2017 (J_pa, cosine, MAX, Adam over every word row): ``avg`` … ``bigran``, each also
  ``+noise`` (dropout 0.4 and scrambling 0.5: the mining pass composes the 2B segments without
  gradient, then the 4B anchors and negatives' copies with gradient, as the authors' code);
- chen2020 (mega-batches of 2 batches instead of 20, to time a few steps whole; scrambling
  0.4): ``lstm_avg``, ``lstm_gaussian``, ``wlo``;
- wieting2015 (``max_skip``, dot, AdaGrad): ``paragram`` on one-word pairs, ``tree_rnn`` on
  2–5-word phrases;
- scheepers2018 (CompVec, segments to target words, Adam, dropout 0.25, the word matrix tuned):
  ``cv-sum`` … ``cv-cnn3579`` on the released definitions of the mirror (skipped without it);
- elgohary2016: ``J_bi`` (the reference form, k = 10 from the batch) and ``J_pa`` (MAX,
  cosine), additive composers trained by hand (numba) on CPU.

Pairs are random, 20–30 Zipf-distributed words a side (one word for ``paragram``, 2–5 for
``tree_rnn``) over 20,000 words. A family's time is the median of ``--steps`` steps (drawing
the batch included: mega-batch mining happens there) after ``--warmup`` untimed ones, best
of ``--repeats`` rounds; every round times all families one after the other, so that a
shared machine's load falls on all of them alike (compare ratios within one run). Each time
is taken by the wall clock (``pairs/s``) and by the process's CPU time (``pairs/cpu-s``:
on a loaded machine the wall clock counts the time other jobs hold the cores; with one thread
the CPU time is the wall time the step would take on an idle machine). Ratios and the FLOP
fraction are of CPU times.

**FLOP limit.** A step's FLOPs are Σ 2·m·k·n over the matrix products (and convolutions) of
its forward and backward passes, counted from their shapes by
:class:`torch.utils.flop_counter.FlopCounterMode` over ``--steps`` further steps;
elementwise work is not counted. For the peephole LSTM over ``T`` tokens (``D``-wide words,
``H`` units) that is ``3 · 2·T·(D + H)·4H`` per composition with gradient (forward, and a
backward twice its products) and ``2·T·(D + H)·4H`` without; a GRAN adds ``3 · 2·T·2H·H``
for its gate, a Bi encoder doubles it all. The limit is those FLOPs at the rate of one
1,024 × 1,024 × 1,024 float32 ``torch.mm`` measured in the same run and thread count, per
CPU-second (``sgemm`` in the header); ``of limit`` is the step's FLOPs per CPU-second over
that rate. The additive and algebraic families (``avg``, ``J_bi``, ``J_pa``, ``paragram``,
``cv-sum`` …) do few products: their steps are bound by memory and per-operation overhead,
not the limit. The README's *CPU cost model* has the table of 2026-11-27.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numba
import numpy as np
import pyarrow as pa
import torch
from torch.utils.flop_counter import FlopCounterMode

from paracomp.registry import paper_settings
from paracomp.run_config import TrainConfig
from paracomp.train.tasks import pair_task

REPO = Path(__file__).resolve().parents[1]
BATCH = 100
NOISE = {"dropout": 0.4, "scramble": 0.5}
W2017 = ["avg", "lstm", "lstmavg", "bilstmavg", "gran", "gran2", "gran3", "gran4", "gran5"]
W2017 += ["bigran"]
COMPVEC = ["sum", "mean", "product", "max_pad", "sum_proj", "rnn", "gru", "bigru", "cnn3"]
COMPVEC += ["cnn3579"]


def _w2017(composer: str, noise: bool) -> dict[str, Any]:
    block = paper_settings("wieting2017")
    name = block["composers"].get(composer, composer)
    return {**block["run"], "composer": name, **(NOISE if noise else {})}


def _chen2020(run: str) -> dict[str, Any]:
    settings = paper_settings("chen2020")["runs"][run]
    return {**{k: v for k, v in settings.items() if k not in ("data", "grid")}, "megabatch": 2}


def _w2015(part: str) -> dict[str, Any]:
    return dict(paper_settings("wieting2015")[part]["run"])


PAIR_FAMILIES: dict[str, tuple[str, tuple[int, int], dict[str, Any]]] = {
    **{c: ("wieting2017", (20, 30), _w2017(c, False)) for c in W2017},
    **{f"{c}+noise": ("wieting2017", (20, 30), _w2017(c, True)) for c in W2017},
    **{r: ("chen2020", (20, 30), _chen2020(r)) for r in ("lstm_avg", "lstm_gaussian", "wlo")},
    "paragram": ("wieting2015", (1, 1), _w2015("words")),
    "tree_rnn": ("wieting2015", (2, 5), _w2015("rnn")),
    "J_bi": (
        "elgohary2016",
        (20, 30),
        {"objective": "bicvm", "shared_vocab": False, "composer": "sum", "sampler": "random", "k": 10, "pool": "batch",
         "score": "half_sq_euclidean", "attraction": 1.0, "hinge_scale": 0.1},
    ),
    "J_pa": (
        "elgohary2016",
        (20, 30),
        {"objective": "paraphrase", "composer": "mean", "sampler": "max", "margin": 0.4,
         "score": "cosine"},
    ),
}  # fmt: skip
"""Pair families: paper, tokens a side (least, most) and run settings."""

FAMILIES = [*PAIR_FAMILIES, *(f"cv-{c}" for c in COMPVEC)]

RATIOS = [
    ("GRAN ÷ LSTM", "gran", "lstm", 1.6),
    ("BiLSTMAVG ÷ LSTMAVG", "bilstmavg", "lstmavg", 2.2),
    ("BiGRAN ÷ GRAN", "bigran", "gran", 2.2),
    ("LSTM noise ÷ none", "lstm+noise", "lstm", 1.2),
    ("LSTMAVG noise ÷ none", "lstmavg+noise", "lstmavg", 1.2),
    ("GRAN noise ÷ none", "gran+noise", "gran", 1.2),
    ("BiLSTMAVG noise ÷ none", "bilstmavg+noise", "bilstmavg", 1.2),
]
"""Time-per-pair ratios the issue sets targets for: (label, family, reference, target)."""


def random_pairs(n: int, lengths: tuple[int, int], vocab: int, seed: int = 0) -> pa.Table:
    """``n`` pairs of ``lengths`` (least, most) Zipf-distributed words a side."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, vocab + 1)
    weights /= weights.sum()

    def side() -> list[str]:
        sizes = rng.integers(lengths[0], lengths[1] + 1, n)
        words = np.char.add("w", rng.choice(vocab, sizes.sum(), p=weights).astype(str))
        return [" ".join(s) for s in np.split(words, np.cumsum(sizes)[:-1])]

    s1, s2 = side(), side()
    return pa.table({"id": [str(i) for i in range(n)], "s1": s1, "s2": s2})


def compvec_task(composer: str, dim: int, threads: int) -> Any:
    """The CompVec task of ``composer`` on the mirror's released definitions (None without)."""
    from paracomp.data.catalog import mirror_dir
    from paracomp.papers.scheepers2018.wordnet_pairs import read_released, read_vocabulary
    from paracomp.train.targets.task import TargetTask

    folder = (mirror_dir(None) or REPO.parent / "shared" / "data") / "compvec-wordnet"
    if not folder.is_dir():
        return None
    run = paper_settings("scheepers2018")["run"]
    settings = {**run, "objective": "targets", "composer": composer, "batch_size": BATCH}
    settings.update(margin=0.25, optimizer="adam", freeze_steps=0, steps=10**6, dim=dim)
    settings.update(threads=threads)
    vocabulary = read_vocabulary(folder / "vocab.gz")
    matrix = np.random.default_rng(0).uniform(-1, 1, (len(vocabulary), dim))
    config = TrainConfig.from_dict(settings)
    return TargetTask(config, read_released(folder / "train_data.gz"), vocabulary, matrix)


def make_task(family: str, dim: int, threads: int, pairs: dict[tuple, pa.Table]) -> Any:
    if family.startswith("cv-"):
        return compvec_task(family[3:], dim, threads)
    _, lengths, settings = PAIR_FAMILIES[family]
    if lengths not in pairs:
        pairs[lengths] = random_pairs(40 * BATCH, lengths, 20000)
    config = {"shared_vocab": True, "optimizer": "adam", "lr": 0.001, "margin": 0.4}
    config.update(settings, batch_size=BATCH, epochs=1, dim=dim, threads=threads, min_count=1)
    return pair_task(TrainConfig.from_dict(config), pairs[lengths])


class Stepper:
    """A task's steps in order: ``run(n)`` times ``n`` steps (each with its batch's drawing),
    by the wall clock and by the process's CPU time."""

    def __init__(self, task: Any):
        self.task, self.step, self.batches = task, 0, task.batches(0)

    def run(self, n: int) -> list[tuple[float, float]]:
        times = []
        for _ in range(n):
            start, start_cpu = time.perf_counter(), time.process_time()
            float(self.task.step(self.step, next(self.batches)))
            times.append((time.perf_counter() - start, time.process_time() - start_cpu))
            self.step += 1
        return times

    def flops(self, n: int) -> float:
        with FlopCounterMode(display=False) as counter:
            self.run(n)
        return counter.get_total_flops() / n


def sgemm_rate(size: int = 1024, repeats: int = 5) -> float:
    """GFLOP per CPU-second of the best of ``repeats`` float32 ``size``³ matrix products."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    torch.mm(a, b)
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        torch.mm(a, b)
        best = min(best, time.process_time() - start)
    return 2 * size**3 / best / 1e9


def measure(
    families: list[str], dim: int, threads: int, args: argparse.Namespace, log: Callable
) -> dict[str, dict[str, float]]:
    """Each family's best median step time (``wall``, ``cpu``: seconds) and FLOPs per step."""
    torch.set_num_threads(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    pairs: dict[tuple, pa.Table] = {}
    steppers = {}
    for family in families:
        task = make_task(family, dim, threads, pairs)
        if task is not None:
            steppers[family] = Stepper(task)
            steppers[family].run(args.warmup)
    rate = sgemm_rate()
    found = {f: {"wall": float("inf"), "cpu": float("inf")} for f in steppers}
    for _ in range(args.repeats):
        for family, stepper in steppers.items():
            times = stepper.run(args.steps)
            for clock, values in zip(("wall", "cpu"), zip(*times, strict=True), strict=True):
                found[family][clock] = min(found[family][clock], statistics.median(values))
    rate = max(rate, sgemm_rate())
    for family, stepper in steppers.items():
        found[family]["flops"] = stepper.flops(args.steps)
    log(f"\nd = {dim}, {threads} thread(s): sgemm {rate:.1f} GFLOP/cpu-s, load {load()}\n")
    log("| family | paper | pairs/s | pairs/cpu-s | GFLOP/step | GFLOP/cpu-s | of limit |")
    log("|---|---|---|---|---|---|---|")
    for family, row in found.items():
        achieved = row["flops"] / row["cpu"] / 1e9
        paper = PAIR_FAMILIES[family][0] if family in PAIR_FAMILIES else "scheepers2018"
        log(
            f"| {family} | {paper} | {BATCH / row['wall']:,.0f} | {BATCH / row['cpu']:,.0f} "
            f"| {row['flops'] / 1e9:.3f} | {achieved:.1f} | {100 * achieved / rate:.0f}% |"
        )
    ratios = [(label, a, b, t) for label, a, b, t in RATIOS if a in found and b in found]
    if ratios:
        log("\n| time per pair (CPU) | ratio | target |\n|---|---|---|")
        for label, a, b, target in ratios:
            log(f"| {label} | {found[a]['cpu'] / found[b]['cpu']:.2f} | ≤ {target} |")
    return found


def cpu() -> str:
    """The processor's model name (Linux), else what ``platform`` knows."""
    info = Path("/proc/cpuinfo")
    for line in info.read_text().splitlines() if info.exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", nargs="+", default=FAMILIES, choices=FAMILIES)
    parser.add_argument("--dims", type=int, nargs="+", default=[50, 300])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--steps", type=int, default=3, help="timed steps per round")
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2, help="rounds over all families")
    args = parser.parse_args()
    torch.set_flush_denormal(True)
    print(
        f"# {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {platform.node()}, "
        f"{cpu()}, {os.cpu_count()} cores, "
        f"torch {torch.__version__}, batch {BATCH}, load {load()}",
        flush=True,
    )
    for threads in args.threads:
        for dim in args.dims:
            measure(args.families, dim, threads, args, lambda line: print(line, flush=True))
    print(f"\n# done, load {load()}")


if __name__ == "__main__":
    main()
