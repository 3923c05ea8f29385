"""Tables 5 and 6 as CSV, with compare files beside the paper's printed lists (``lists.yaml``).

- Table 5: a trained WLO's four top-``k`` word lists (:func:`.lists.word_lists`) over the words
  seen at least ``min_count`` times in the training pairs (UNK excluded). The compare file puts
  each of our words beside the paper's at the same rank and says whether our word is anywhere
  in the paper's list.
- Table 6: for each configured length, the ``k`` most specific and most general sentences of a
  seeded subsample of the training sentences (side 1) under WORDSUM (the norm of the summed
  WORDAVG rows) and WLO (−entropy). The paper's selected lengths are not given: its two
  example rows are set beside our first sentence at each of our lengths.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from paracomp import artefacts
from paracomp.models.vocab import UNK
from paracomp.papers.chen2020.lists import COLUMNS, sentence_extremes, word_lists
from paracomp.tables.build import COMPARE_COLUMNS, titled_grid
from paracomp.tables.write import write_outputs
from paracomp.yamltext import safe_load

MODELS = ("wordsum", "wlo")
ENDS = ("specific", "general")


@cache
def printed_lists() -> dict[str, Any]:
    return safe_load(files(__package__).joinpath("lists.yaml").read_text())


def _counts(pairs: Path) -> Counter[str]:
    table = pq.read_table(pairs, columns=["s1", "s2"])
    return Counter(w for c in ("s1", "s2") for s in table.column(c).to_pylist() for w in s.split())


def table5(run: Path, pairs: Path, min_count: int, k: int, quantile: float) -> pd.DataFrame:
    """The four lists, one row per rank, columns ``small_norm/small_abs_entropy`` etc."""
    words, matrix = artefacts.read_embeddings(run / "embeddings.parquet")
    counts = _counts(pairs)
    keep = [i for i, w in enumerate(words) if w != UNK and counts[w] >= min_count]
    half = matrix.shape[1] // 2
    rows = np.asarray(matrix, dtype=np.float64)[keep]
    lists = word_lists([words[i] for i in keep], rows[:, :half], rows[:, half:], k, quantile)
    frame = pd.DataFrame({"rank": np.arange(1, k + 1)})
    for key in COLUMNS:
        found = lists[key]
        frame["/".join(key)] = found + [""] * (k - len(found))
    return frame


def _markdown(title: str, caption: str, frame: pd.DataFrame, notes: list[str]) -> str:
    return "\n".join([*titled_grid(title, caption, frame), *notes]) + "\n"


def write_table5(run: Path, pairs: Path, params: dict[str, Any], corpus: str, out: Path) -> None:
    frame = table5(run, pairs, params["min_count"], params["k"], params["quantile"])
    paper = printed_lists()["table5"]
    records = []
    for column, printed in paper["columns"].items():
        for rank, word in enumerate(frame[column], start=1):
            theirs = printed[rank - 1] if rank <= len(printed) else None
            records.append(
                {
                    "row": rank,
                    "column": column,
                    "ours": word,
                    "paper": theirs,
                    "delta": None,
                    "data": "in the paper's list" if word in printed else "",
                    "note": "qualitative list; ranks compared position by position",
                }
            )
    compare = pd.DataFrame(records, columns=COMPARE_COLUMNS)
    shared = int(compare["data"].astype(bool).sum())
    notes = [
        f"Words of run `{run.name}` (WLO, trained on {corpus}) seen at least "
        f"{params['min_count']} times in the training pairs; norm = ‖B_w‖ (small: at most the "
        f"{params['quantile']} quantile, large: at least the {1 - params['quantile']:.2g} quantile); "
        "entropy = ΔH_w = Σ_d log|A_w,d|, the entropy a one-word sentence adds to N(0, I).",
        f"Our words also in the paper's list of the same column: {shared} of {len(compare)}.",
    ]
    write_outputs(out, frame, compare, _markdown("chen2020 table5", paper["caption"], frame, notes))


def table6(
    outputs: dict[str, np.ndarray], sentences: list[str], lengths: list[int], k: int
) -> pd.DataFrame:
    """Rows ``model, length, end, rank, sentence`` from each model's specificity scores of
    ``sentences`` (token lengths from the sentences)."""
    sizes = [len(s.split()) for s in sentences]
    records = []
    for model in MODELS:
        extremes = sentence_extremes(sentences, outputs[model], sizes, k)
        for length in lengths:
            specific, general = extremes.get(length, ([], []))
            for end, found in zip(ENDS, (specific, general), strict=True):
                for rank, sentence in enumerate(found, start=1):
                    records.append([model, length, end, rank, sentence])
    return pd.DataFrame(records, columns=["model", "length", "end", "rank", "sentence"])


def sample_sentences(pairs: Path, n: int, seed: int) -> list[str]:
    """A seeded subsample of the training pairs' side-1 sentences, distinct."""
    side1 = list(dict.fromkeys(pq.read_table(pairs, columns=["s1"]).column("s1").to_pylist()))
    rng = np.random.default_rng(seed)
    chosen = rng.choice(len(side1), size=min(n, len(side1)), replace=False)
    return [side1[i] for i in sorted(chosen)]


def write_table6(
    runs: dict[str, Path], pairs: Path, params: dict[str, Any], corpus: str, out: Path
) -> None:
    """``runs``: the WORDAVG run (for WORDSUM) as ``wordsum`` and the WLO run as ``wlo``."""
    from paracomp.papers.chen2020.scores import score_model

    sentences = sample_sentences(pairs, params["sentences"], params["seed"])
    frame_in = pd.DataFrame(
        {"set": "train", "index": np.arange(len(sentences)), "tokens": sentences}
    )
    kinds = {"wordsum": "run_sum", "wlo": "run"}
    scores = {m: score_model(kinds[m], frame_in, run=runs[m]).of("train") for m in MODELS}
    frame = table6(scores, sentences, list(params["lengths"]), params["k"])
    paper = printed_lists()["table6"]
    records = []
    for column, printed in paper["columns"].items():
        model, end = column.split("/")
        for position, theirs in enumerate(printed):
            length = params["lengths"][position] if position < len(params["lengths"]) else None
            ours = frame[
                (frame["model"] == model)
                & (frame["end"] == end)
                & (frame["length"] == length)
                & (frame["rank"] == 1)
            ]["sentence"]
            records.append(
                {
                    "row": position + 1,
                    "column": column,
                    "ours": ours.iloc[0] if len(ours) else None,
                    "paper": theirs,
                    "delta": None,
                    "data": f"our most {end} sentence of length {length}",
                    "note": "qualitative; the paper's selected lengths are not given",
                }
            )
    compare = pd.DataFrame(records, columns=COMPARE_COLUMNS)
    notes = [
        f"A seeded subsample of {len(sentences):,} training sentences (side 1 of {corpus}); "
        f"lengths {params['lengths']} in tokens; WORDSUM: norm of the summed WORDAVG rows, "
        "WLO: −entropy (higher = more specific); unknown words take the run's UNK row."
    ]
    write_outputs(out, frame, compare, _markdown("chen2020 table6", paper["caption"], frame, notes))
