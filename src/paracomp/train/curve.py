"""The loss and tuning-metric curve of a run, as parquet and PNG."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from paracomp.atomic import atomic_path

BASE_COLUMNS = ("epoch", "loss", "seconds", "pairs_per_s")
"""Columns of every curve; the epoch callback's metrics follow them."""


def write_curve(history: pd.DataFrame, parquet: Path, png: Path, x: str = "epoch") -> None:
    """Write the history (one row per ``x``: epoch or step), and a plot of the loss with the
    metrics on a second axis."""
    with atomic_path(parquet) as tmp:
        history.to_parquet(tmp, index=False)
    fig = Figure(figsize=(6, 4))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot(history[x], history["loss"], marker="o", color="black", label="loss")
    ax.set_xlabel(x)
    ax.set_ylabel("mean batch loss")
    metrics = [c for c in history.columns if c not in (*BASE_COLUMNS, x)]
    if metrics:
        right = ax.twinx()
        for name in metrics:
            right.plot(history[x], history[name], marker="s", label=name)
        right.set_ylabel("metric")
        right.legend(loc="upper right")
    ax.legend(loc="upper left")
    fig.tight_layout()
    with atomic_path(png) as tmp:
        fig.savefig(tmp, format="png", dpi=100)
