"""Figures of tables: elgohary2016 Table 6 (score against training-set size)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from paracomp.atomic import atomic_path  # noqa: E402

SIZES = {"biphr_0.5m": 0.5, "biphr_1m": 1.0, "biphr_1.9m": 1.9, "biphr_3m": 3.0}
REFERENCES = {"bisent_1.9m": ":", "glove": "--"}


def plot_training_size(compare_csv: Path, out_png: Path) -> None:
    """Ours (solid) and the paper's (faded) score per test row against millions of bilingual
    phrase pairs, with the sentence and GloVe columns as horizontal references."""
    compare = pd.read_csv(compare_csv, dtype={"row": str})
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for index, (row, cells) in enumerate(compare.groupby("row", sort=False)):
        color = f"C{index}"
        sized = cells[cells["column"].isin(list(SIZES))]
        x = sized["column"].map(SIZES)
        ax.plot(x, pd.to_numeric(sized["ours"]), "o-", color=color, label=f"{row} (ours)")
        ax.plot(x, pd.to_numeric(sized["paper"]), "o-", color=color, alpha=0.3)
        for column, style in REFERENCES.items():
            value = pd.to_numeric(cells[cells["column"] == column]["ours"]).dropna()
            if len(value):
                ax.axhline(float(value.iloc[0]), color=color, linestyle=style, linewidth=0.8)
    ax.set_xlabel("bilingual phrase pairs (millions; ours capped at our phrase count)")
    ax.set_ylabel("Pearson r")
    ax.set_title(
        "Table 6: score against training size (faded: paper; dotted: sentences, dashed: GloVe)",
        fontsize=9,
    )
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    with atomic_path(out_png) as tmp:
        fig.savefig(tmp, format="png", dpi=120)
    plt.close(fig)
