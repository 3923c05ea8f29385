"""What chen2020's runs learnt, run by run: the loss curve, the unknown words per evaluation set,
STS-B test Pearson r as Table 8 scores it and under other readings of the same run.

    python benchmarks/chen2020_diagnose.py                      # results/chen2020/runs/*
    python benchmarks/chen2020_diagnose.py --runs side/wlo_a side/wlo_b
    python benchmarks/chen2020_diagnose.py --runs --vocab resources/corpus/chen2020/train.parquet
    python benchmarks/chen2020_diagnose.py --length             # results/chen2020/scores/*
    python benchmarks/chen2020_diagnose.py --forces results/chen2020/runs/lstm_gaussian

For every run folder: the loss and the tuning r of each epoch (``curve.parquet``); the STS-B
test pairs with a word the run does not know and its r with the cosine of ``[μ ; σ²]`` (the
paper's, Gaussian runs) or of the vectors, of ``μ`` alone, of ``σ²`` alone, and with the
training score itself (the log expected inner product, Gaussian runs); the median
and spread of the test sentences' ``log σ²`` per dimension. With ``--scores``, each model's
share of unknown tokens per specificity set (``results/chen2020/scores/<model>.json``). With
``--vocab PAIRS``, the unknown words of a table of the pairs' own words seen ``--min-count``
times (a randomly initialised run's, before 2026-11-28), per set, without training. With
``--length``, how much of each model's specificity score is sentence length: per rated set
(Twitter, Yelp, Movie) the score's Spearman ρ with the labels (Table 2's cell), with the token
count, and its partial ρ with the labels given the token count; and the score's spread. With
``--forces RUN`` (a Gaussian run), what pulls its variances with length: mega-batches of
``--pool`` training pairs (``--samples`` of them) encoded by the run, negatives mined under the
log expected inner product as the trainer mines them, and per length bin the share of sentences
whose paraphrase's hinge (anchored at the paraphrase, the sentence its positive) is violated,
the times a sentence is the negative of a violated hinge and the mean of −∂loss/∂Σ log σ² (> 0:
a step raises the sentence's variance). While the mean gaps are small beside the variances, as
in the trained runs, a violated hinge lowers its positive's variance, raises its negative's and
leaves its anchor's about as it was. Once with the run's variances, once with
every sentence given their mean (the means kept), which shows where a length-blind variance is
pushed; with each bin's mean Σ (μ − μ')² to the paraphrase. Before them: the Spearman ρ of
Σ log σ² with length, trained and for an untrained composer over the same rows, and the mean
per dimension of σ₁² + σ₂² and of (μ₁ − μ₂)² over paraphrase and random pairs.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import torch


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a, b)[0, 1])


def _cos(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    num = (a * b).sum(1)
    den = np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1)
    return np.divide(num, den, out=np.zeros_like(num), where=den > 0)


def diagnose(run: Path, sts: pd.DataFrame, tokenizer: str, lowercase: bool) -> dict:
    import torch

    from paracomp.eval.tokens import tokenize_all
    from paracomp.eval.trained import load_run
    from paracomp.losses.gaussian import log_expected_inner_product
    from paracomp.models import PROBABILISTIC_COMPOSERS

    config, encoder = load_run(run)
    left = tokenize_all(sts["s1"].tolist(), tokenizer, lowercase)
    right = tokenize_all(sts["s2"].tolist(), tokenizer, lowercase)
    unknown = sum(
        any(not encoder.known(w) for w in a + b) for a, b in zip(left, right, strict=True)
    )
    a, b = encoder.outputs(left).astype(np.float64), encoder.outputs(right).astype(np.float64)
    gold = sts["score"].to_numpy(dtype=np.float64)
    found = {"run": run.name, "composer": config.composer, "unknown_pairs": unknown}
    if config.composer in PROBABILISTIC_COMPOSERS:
        k = a.shape[1] // 2
        var_a, var_b = np.exp(a[:, k:]), np.exp(b[:, k:])
        both = np.concatenate([a[:, :k], var_a], 1), np.concatenate([b[:, :k], var_b], 1)
        found["r_mu_var"] = _pearson(_cos(*both), gold)
        found["r_mu"] = _pearson(_cos(a[:, :k], b[:, :k]), gold)
        found["r_var"] = _pearson(_cos(var_a, var_b), gold)
        eip = log_expected_inner_product(torch.from_numpy(a), torch.from_numpy(b)).numpy()
        found["r_log_eip"] = _pearson(eip, gold)
        log_var = np.concatenate([a[:, k:], b[:, k:]])
        found["log_var_median"] = float(np.median(log_var))
        found["log_var_p05_p95"] = [float(np.percentile(log_var, q)) for q in (5, 95)]
        found["mu_norm_median"] = float(np.median(np.linalg.norm(a[:, :k], axis=1)))
    else:
        found["r"] = _pearson(_cos(a, b), gold)
    curve = run / "curve.parquet"
    if curve.exists():
        frame = pd.read_parquet(curve)
        keep = [c for c in frame.columns if c in ("epoch", "loss", "tuning_r")]
        found["curve"] = frame[keep].round(4).to_dict("records")
    return found


def vocabulary_unknowns(
    pairs: Path, min_count: int, sentences: Path, sts: Path, tokenizer: str
) -> None:
    """The unknown-token share per set and the STS-B test pairs with an unknown word, for a
    table of the words of ``pairs`` seen at least ``min_count`` times."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from paracomp.eval.tokens import tokenize_all
    from paracomp.models.vocab import Vocabulary, tokenize

    table = pq.read_table(pairs, columns=["s1", "s2"])
    tokens = pa.concat_arrays([tokenize(table.column(c))[0] for c in ("s1", "s2")])
    known = set(Vocabulary.build(tokens, min_count).words[1:])
    frame = pd.read_parquet(sentences)
    shares = {}
    for name, group in frame.groupby("set", sort=False):
        words = [w for text in group["tokens"] for w in text.split()]
        shares[name] = round(100 * sum(w not in known for w in words) / max(len(words), 1), 1)
    test = pd.read_parquet(sts)
    test = test[(test["subset"] == "stsb") & (test["split"] == "test") & test["score"].notna()]
    left = tokenize_all(test["s1"].tolist(), tokenizer, True)
    right = tokenize_all(test["s2"].tolist(), tokenizer, True)
    sts_tokens = [w for t in left + right for w in t]
    shares["stsb_test"] = round(100 * sum(w not in known for w in sts_tokens) / len(sts_tokens), 1)
    pairs_unknown = sum(
        any(w not in known for w in a + b) for a, b in zip(left, right, strict=True)
    )
    print(
        f"table of {pairs.name} (min_count {min_count}, {len(known)} words): unknown tokens % "
        f"{shares}; STS-B test pairs with an unknown word {pairs_unknown} of {len(left)}"
    )


def _partial_spearman(score: np.ndarray, label: np.ndarray, length: np.ndarray) -> float:
    """Spearman ρ of ``score`` and ``label`` with ``length`` held fixed (the partial
    correlation of the ranks); NaN where the score's ranks are the length's."""
    from scipy.stats import rankdata

    r = np.corrcoef([rankdata(score), rankdata(label), rankdata(length)])
    ab, ac, bc = r[0, 1], r[0, 2], r[1, 2]
    if abs(ac) > 1 - 1e-9:
        return float("nan")
    return float((ab - ac * bc) / np.sqrt((1 - ac**2) * (1 - bc**2)))


def length_effect(scores: Path, sentences: Path) -> None:
    """Print, per model and rated set, ρ(score, label), ρ(score, length), the partial ρ given
    length (× 100; the first is Table 2's cell, as :func:`specificity.spearman` scores it) and
    the score's standard deviation."""
    from paracomp.papers.chen2020.specificity import spearman, token_lengths

    texts = pd.read_parquet(sentences, columns=["set", "index", "tokens", "label"])
    texts["length"] = token_lengths(texts["tokens"].str.split())
    for path in sorted(scores.glob("*.parquet")):
        found = pd.read_parquet(path).merge(texts, on=["set", "index"])
        cells = []
        for name in ("twitter", "yelp", "movie"):
            part = found[found["set"] == name]
            score, label, length = (part[c].to_numpy(float) for c in ("score", "label", "length"))
            if len(part) < 3 or np.ptp(score) == 0:
                continue
            cells.append(
                f"{name} {spearman(score, label):+.1f} / {spearman(score, length):+.1f} / "
                f"{100 * _partial_spearman(score, label, length):+.1f} sd {score.std():.3g}"
            )
        if cells:
            print(f"{path.stem}: rho(label) / rho(length) / partial | " + "; ".join(cells))


LENGTH_BINS = ((0, 15), (15, 25), (25, 35), (35, 50), (50, 1000))


def hinge_forces(out: torch.Tensor, margin: float) -> pd.DataFrame:
    """Per row of a mega-batch pool ``out`` (side 1 of its pairs, then side 2; ``[μ | log σ²]``
    rows) with negatives mined under the log expected inner product: whether its paraphrase's
    hinge (where it is the positive) is violated, how often it is a violated hinge's negative,
    −∂loss/∂Σ log σ², and Σ (μ − μ')² with its paraphrase's mean μ'."""
    import torch

    from paracomp.losses.gaussian import log_expected_inner_product
    from paracomp.losses.megabatch import mine
    from paracomp.losses.scores import SCORES

    pool, k = out.shape[0] // 2, out.shape[1] // 2
    partner = (torch.arange(2 * pool) + pool) % (2 * pool)
    negative = mine(out, SCORES["log_eip"]).rows
    leaf = out.detach().clone().requires_grad_(True)
    hinge = (
        margin
        - log_expected_inner_product(leaf, leaf[partner])
        + log_expected_inner_product(leaf, leaf[negative])
    )
    hinge.clamp_min(0).sum().backward()
    violated = (hinge > 0).numpy()
    return pd.DataFrame(
        {
            "paraphrase_violated": violated[partner.numpy()],
            "negative_of_violated": np.bincount(negative.numpy()[violated], minlength=2 * pool),
            "push_up": -leaf.grad[:, k:].sum(1).numpy(),
            "paraphrase_gap": (out[:, :k] - out[partner, :k]).square().sum(1).numpy(),
        }
    )


def _log_var_length_rho(outputs: np.ndarray, sentences: list[list[str]]) -> float:
    from scipy.stats import spearmanr

    k = outputs.shape[1] // 2
    lengths = [len(s) for s in sentences]
    return float(spearmanr(outputs[:, k:].sum(1), lengths).statistic)


def variance_forces(run: Path, pairs_path: Path, pool: int, samples: int) -> None:
    """Print, per length bin, the hinge's pull on a Gaussian run's log-variances (module doc)."""
    import torch

    from paracomp.eval.trained import load_run
    from paracomp.models.registry import make_composer

    config, encoder = load_run(run)
    train = pd.read_parquet(pairs_path, columns=["s1", "s2"])
    batches = []  # (sentences, outputs) of each sample, encoded once
    for seed in range(samples):
        part = train.sample(pool, random_state=seed)
        sentences = [s.split() for s in part["s1"]] + [s.split() for s in part["s2"]]
        batches.append((sentences, encoder.outputs(sentences).astype(np.float64)))
    sentences, out = batches[0]
    trained = encoder.composer
    torch.manual_seed(1)
    encoder.composer = make_composer(config.composer, config.dim, settings=config.to_dict()).eval()
    untrained = _log_var_length_rho(encoder.outputs(sentences), sentences)
    encoder.composer = trained
    print(
        f"{run.name}: Spearman ρ of Σ log σ² with length over {2 * pool} training sentences: "
        f"trained {_log_var_length_rho(out, sentences):+.2f}, "
        f"an untrained composer (seed 1) over the same rows {untrained:+.2f}"
    )
    k = out.shape[1] // 2
    mean, var = out[:, :k], np.exp(out[:, k:])
    left, right, other = slice(0, pool), slice(pool, 2 * pool), np.roll(np.arange(pool), 1) + pool
    print(
        f"per dimension: σ₁² + σ₂² {(var[left] + var[right]).mean():.3g}; (μ₁ − μ₂)² "
        f"{np.square(mean[left] - mean[right]).mean():.3g} for paraphrases, "
        f"{np.square(mean[left] - mean[other]).mean():.3g} for random pairs"
    )
    edges = [b[0] for b in LENGTH_BINS] + [LENGTH_BINS[-1][1]]
    for flat in (False, True):
        rows: list[pd.DataFrame] = []
        for sentences, out in batches:
            rows_out = torch.from_numpy(out.copy())
            if flat:
                rows_out[:, k:] = rows_out[:, k:].mean(0)
            found = hinge_forces(rows_out, config.margin)
            rows.append(found.assign(length=[len(s) for s in sentences]))
        found = pd.concat(rows)
        found["bin"] = pd.cut(found["length"], edges, right=False)
        table = found.groupby("bin", observed=True).agg(
            sentences=("length", "size"),
            paraphrase_violated=("paraphrase_violated", "mean"),
            negative_of_violated=("negative_of_violated", "mean"),
            push_up=("push_up", "mean"),
            paraphrase_gap=("paraphrase_gap", "mean"),
        )
        label = "every sentence the mean log-variance" if flat else "the run's variances"
        print(f"{run.name}, {label} (margin {config.margin}, {samples} × {pool} pairs):")
        print(table.round(4).to_string())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", nargs="*", type=Path)
    parser.add_argument("--sts", type=Path, default=Path("resources/sets/stsbenchmark.parquet"))
    parser.add_argument("--scores", type=Path, default=Path("results/chen2020/scores"))
    parser.add_argument("--tokenizer", default="moses")
    parser.add_argument("--vocab", type=Path, help="training pairs: their own table's unknowns")
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument(
        "--sentences", type=Path, default=Path("resources/chen2020/sentences.parquet")
    )
    parser.add_argument("--length", action="store_true", help="the scores' length effect only")
    parser.add_argument("--forces", type=Path, help="a Gaussian run: the hinge's pull on σ²")
    parser.add_argument(
        "--pairs", type=Path, default=Path("resources/corpus/chen2020/train.parquet")
    )
    parser.add_argument("--pool", type=int, default=2000, help="pairs a mega-batch (20 × 100)")
    parser.add_argument("--samples", type=int, default=4)
    args = parser.parse_args()
    if args.forces:
        variance_forces(args.forces, args.pairs, args.pool, args.samples)
        return
    if args.length:
        length_effect(args.scores, args.sentences)
        return
    if args.vocab:
        vocabulary_unknowns(args.vocab, args.min_count, args.sentences, args.sts, args.tokenizer)
    runs = (
        args.runs
        if args.runs is not None
        else sorted(p for p in Path("results/chen2020/runs").iterdir() if p.is_dir())
    )
    sts = pd.read_parquet(args.sts)
    sts = sts[(sts["subset"] == "stsb") & (sts["split"] == "test") & sts["score"].notna()]
    for run in runs:
        print(json.dumps(diagnose(run, sts, args.tokenizer, True)))
    if args.scores.exists():
        for meta in sorted(args.scores.glob("*.json")):
            found = json.loads(meta.read_text())
            if "oov" in found:
                shares = {k: round(100 * v, 1) for k, v in found["oov"].items()}
                sts_oov = found.get("sts", {}).get("n_oov")
                print(f"{meta.stem}: unknown tokens % {shares}; STS-B test pairs unknown {sts_oov}")


if __name__ == "__main__":
    main()
