"""Evaluate one model on every configured set and write its result files."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from paracomp import artefacts
from paracomp.atomic import atomic_path, write_json
from paracomp.data.parsers import missing_subsets
from paracomp.eval.encode import SentenceEncoder
from paracomp.eval.model_encoder import Encoding
from paracomp.eval.sts import METRIC_COLUMNS, predict_pairs, subset_metrics
from paracomp.eval.tokens import tokenisation
from paracomp.eval.wordsim import WORDSIM_COLUMNS, evaluate_wordsim
from paracomp.timing import phase

log = logging.getLogger(__name__)

STS_COLUMNS = [*METRIC_COLUMNS, "source", "note"]


def _source(path: Path) -> tuple[str, str]:
    prov = artefacts.provenance(path)
    return prov.get("source", ""), prov.get("notes", "")


def _sts_rows(path: Path, encoder, splits, tokenizer, lowercase, oov):
    table = artefacts.read(path, artefacts.SENTENCE_PAIRS)
    frame = table.to_pandas()
    name = str(frame["dataset"].iloc[0]) if len(frame) else path.stem
    if name in splits:
        frame = frame[frame["split"] == splits[name]]
    prov = artefacts.provenance(path)
    source, note = prov.get("source", ""), prov.get("notes", "")
    tokenizer, lowercase = tokenisation(prov, path, tokenizer, lowercase)
    preds = predict_pairs(frame, encoder, tokenizer, lowercase, oov)
    metrics = subset_metrics(preds).assign(source=source, note=note)
    absent = [
        {
            "dataset": name,
            "subset": subset,
            "split": splits.get(name, ""),
            "n": 0,
            "n_oov": 0,
            "n_dropped": 0,
            "source": source,
            "note": reason,
        }
        for subset, reason in missing_subsets(name, table, source).items()
    ]
    return preds, pd.concat([metrics, pd.DataFrame(absent, columns=STS_COLUMNS)], ignore_index=True)


def score_sets(
    sets: Sequence[Path],
    encoder,
    splits: Mapping[str, str],
    unavailable: Mapping[str, str],
    tokenizer: str,
    lowercase: bool,
    oov: str,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-subset metrics (``STS_COLUMNS``) and per-pair predictions of ``encoder`` on the
    parsed ``sets`` (each on its configured split), with a row for each subset of a full
    release absent from its set and for each ``unavailable`` set (with its reason)."""
    preds, metrics = [], []
    for path in sets:
        p, m = _sts_rows(Path(path), encoder, splits, tokenizer, lowercase, oov)
        preds.append(p)
        metrics.append(m)
    absent = pd.DataFrame(
        [
            {"dataset": s, "subset": "*", "n": 0, "n_oov": 0, "n_dropped": 0, "note": r}
            for s, r in unavailable.items()
        ],
        columns=STS_COLUMNS,
    )
    scores = pd.concat([*metrics, absent], ignore_index=True)[STS_COLUMNS]
    return scores, pd.concat(preds, ignore_index=True) if preds else pd.DataFrame()


def evaluate_model(
    encoding: Encoding,
    encoder: SentenceEncoder,
    sts_sets: list[Path],
    wordsim_sets: list[Path],
    unavailable: dict[str, str],
    splits: dict[str, str],
    tokenizer: str,
    lowercase: bool,
    oov: str,
    out: Path,
) -> None:
    """Write ``sts.csv`` (per subset), ``pairs.parquet`` (per pair), ``wordsim.csv`` and
    ``encoder.json`` (``encoding``: how the model composes, and the tokenisation and OOV
    policy it was scored with, which :func:`paracomp.load_encoder` applies)."""
    start = time.perf_counter()
    log.info("evaluating %s (%s)", encoding.source, encoding.composition)
    with phase("evaluate"):
        sts, pairs = score_sets(sts_sets, encoder, splits, unavailable, tokenizer, lowercase, oov)
        ws_rows = []
        for path in wordsim_sets:
            frame = artefacts.read(path, artefacts.WORD_PAIRS).to_pandas()
            source, note = _source(path)
            ws_rows.append(
                {**evaluate_wordsim(frame, encoder, lowercase, oov), "source": source, "note": note}
            )
    wordsim = pd.DataFrame(ws_rows, columns=[*WORDSIM_COLUMNS, "source", "note"])

    out.mkdir(parents=True, exist_ok=True)
    tokens = {"tokenizer": tokenizer, "lowercase": lowercase, "oov": oov}
    write_json(out / "encoder.json", {**encoding.to_dict(), **tokens})
    with atomic_path(out / "pairs.parquet") as tmp:
        pairs.to_parquet(tmp, index=False)
    with atomic_path(out / "wordsim.csv") as tmp:
        wordsim.to_csv(tmp, index=False, float_format="%.6f")
    with atomic_path(out / "sts.csv") as tmp:
        sts.to_csv(tmp, index=False, float_format="%.6f")
    log.info(
        "evaluated %d pairs and %d word sets in %.1fs",
        len(pairs),
        len(ws_rows),
        time.perf_counter() - start,
    )
