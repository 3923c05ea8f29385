"""Why the overview gives the mean |ours − paper| an sd and a noise floor, not an interval.

    python benchmarks/overview_noise.py                 # 2,000 draws, 1,000 resamples each
    python benchmarks/overview_noise.py --draws 500

Cells lie ``gap`` from their printed numbers, each observed with noise of sd ``--sd`` and
resampled around the observation as the test-set bootstrap does (normal noise both times).
For each layout of gaps it prints, over ``--draws`` draws, how often a 95% interval of the mean
|ours − paper| built from the resamples covers the true mean |gap| (percentile; basic, the
quantiles reflected about the estimate; shifted, the quantiles moved down by the resamples'
bias), the resamples' sd (:func:`paracomp.tables.overview.distance_noise`) over the estimate's
own sd, and the estimate's bias. The layouts: chen2020's Table 2 at k = 1 (41 cells, about a
quarter on print, a quarter near it, half far), every cell far, every cell on print, and a mix.
"""

from __future__ import annotations

import argparse

import numpy as np

from paracomp.tables.overview import distance_noise
from paracomp.tables.replicates import Replicates

LAYOUTS = {
    "chen2020 Table 2-like: 10 on print, 10 at 2, 21 at 20": np.r_[
        np.zeros(10), np.full(10, 2.0), np.full(21, 20.0)
    ],
    "40 cells at 20": np.full(40, 20.0),
    "40 cells on print": np.zeros(40),
    "20 on print, 21 from 1 to 40": np.r_[np.zeros(20), np.linspace(1, 40, 21)],
}


def coverage(
    gaps: np.ndarray, sd: float, draws: int, resamples: int, seed: int
) -> dict[str, float]:
    """Coverage of three intervals, the sd ratio and the bias over ``draws`` draws."""
    rng = np.random.default_rng(seed)
    truth = float(np.abs(gaps).mean())
    keys = [f"c|{i}" for i in range(gaps.size)]
    covered = {"percentile": 0, "basic": 0, "shifted": 0}
    estimates, sds = [], []
    for _ in range(draws):
        ours = gaps + rng.normal(0, sd, gaps.size)
        reps = ours[:, None] + rng.normal(0, sd, (gaps.size, resamples))
        estimate = float(np.abs(ours).mean())
        means = np.abs(reps).mean(axis=0)
        low, high = np.quantile(means, [0.025, 0.975])
        bias = float(means.mean()) - estimate
        intervals = {
            "percentile": (low, high),
            "basic": (2 * estimate - high, 2 * estimate - low),
            "shifted": (low - bias, high - bias),
        }
        for name, (a, b) in intervals.items():
            covered[name] += a <= truth <= b
        noise = distance_noise(
            dict.fromkeys(keys, 0.0), Replicates(dict(zip(keys, reps, strict=True)), {}, 0, 0)
        )
        assert noise is not None
        estimates.append(estimate)
        sds.append(noise[0])
    result = {name: n / draws for name, n in covered.items()}
    result["sd ratio"] = float(np.mean(sds) / np.std(estimates, ddof=1))
    result["bias"] = float(np.mean(estimates)) - truth
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--sd", type=float, default=3.0, help="each cell's noise (sd)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("layout | percentile | basic | shifted | resamples' sd / estimate's sd | bias")
    for name, gaps in LAYOUTS.items():
        r = coverage(gaps, args.sd, args.draws, args.resamples, args.seed)
        print(
            f"{name} | {r['percentile']:.3f} | {r['basic']:.3f} | {r['shifted']:.3f}"
            f" | {r['sd ratio']:.2f} | {r['bias']:+.2f}"
        )


if __name__ == "__main__":
    main()
