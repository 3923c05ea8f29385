"""Every measure of Scheepers et al. (2018) Table 1 for one CompVec run.

- ``mrr``: CompVecEval on the test split's distinct definitions; candidates are the target
  lemmas (``all``, the paper's 33,186) or the test lemmas (``test``, the final code's), both
  passed through the run's composition function as one-token segments, never padded (the word
  vectors themselves for the algebraic functions, ``max`` included). Both are computed and
  recorded; ``candidates`` picks the one the table shows.
- ``sts14``/``sts15``: Pearson of the cosine per subset, size-weighted mean (SentEval's
  ``wmean``), whitespace tokens lowercased as SentEval's loader and the CompVec batcher.
- ``sick_e``/``sick_r``: SentEval-style classifiers on ``[|u−v|, u∗v]``
  (:mod:`paracomp.eval.senteval`).
- ``simlex``/``simverb``/``ws353``: Spearman of the cosine of the word matrix rows, pairs with
  both words in the vocabulary only (no fallback), as the authors' code.

Values are fractions (MRR ÷ 100), as the other evaluation outputs; tables scale them.
``items.parquet`` beside ``scores.json`` keeps what each measure is computed from, one row per
item (:data:`ITEM_COLUMNS`: a test definition's reciprocal rank, an STS pair's gold and cosine
with its subset's key, a word pair's gold and cosine with its place in its set, a SICK test
pair's gold and SICK-R prediction, and whether SICK-E classified it right), for the table's
test-set bootstrap intervals.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from paracomp import artefacts
from paracomp.atomic import atomic_path
from paracomp.data.parsers import missing_subsets
from paracomp.eval.composed import ComposedEncoder
from paracomp.eval.encode import AveragedEmbeddings
from paracomp.eval.metrics import spearman
from paracomp.eval.senteval import evaluate_sick
from paracomp.eval.sts import predict_pairs, subset_metrics
from paracomp.eval.wordsim import wordsim_predictions
from paracomp.models.definition import DefinitionModel, EncodedDefinitions
from paracomp.papers.scheepers2018.compvec_eval import compvec_both, group_queries
from paracomp.papers.scheepers2018.dataset import DefinitionData
from paracomp.run_folder import read_definition_model

log = logging.getLogger(__name__)

MEASURE_SETS = {
    "sts14": "sts2014",
    "sts15": "sts2015",
    "sick_e": "sick2014",
    "sick_r": "sick2014",
    "simlex": "simlex999",
    "simverb": "simverb3500",
    "ws353": "ws353-all",
}
"""The evaluation set each measure reads (CompVecEval reads the dataset folder)."""
CANDIDATES = ("all", "test")
TOKENIZER = "whitespace"
ITEM_COLUMNS = ["measure", "key", "size", "position", "gold", "pred"]
"""An item of a measure: its test set's ``key`` and ``size``, its ``position`` there, the gold
(NaN for CompVecEval and SICK-E) and the model's value (cosine, a definition's reciprocal rank,
or 1/0: SICK-E's label predicted right or not)."""
COMPVEC_KEY = "scheepers2018/compvec-test"


def _items(measure: str, key: str, positions: np.ndarray, size: int, gold, pred) -> pd.DataFrame:
    return pd.DataFrame({
        "measure": measure, "key": key, "size": size, "position": positions,
        "gold": np.asarray(gold, np.float64), "pred": np.asarray(pred, np.float64),
    })  # fmt: skip


def _cell(value: float | None, data: str = "", reason: str = "") -> dict[str, Any]:
    return {"value": value, "data": data, "reason": reason}


def compvec_measure(
    model: DefinitionModel,
    data: DefinitionData,
    max_length: int,
    ranks: dict[str, np.ndarray] | None = None,
) -> dict[str, dict[str, Any]]:
    """CompVecEval under both candidate sets (each query's first relevant rank into
    ``ranks``, when given)."""
    lemmas = data.test.column("lemma").to_pylist()
    definitions, relevant = group_queries(lemmas, data.test.column("definition").to_pylist())
    index = {word: i for i, word in enumerate(data.vocabulary)}
    encoded = EncodedDefinitions.build(definitions, [], index, max_length)
    test_names = sorted({lemma for group in relevant for lemma in group})
    with torch.no_grad():
        composed = model.compose(*encoded.take(torch.arange(len(encoded)))).numpy()
        targets = model.lemma_vectors(torch.tensor([index[t] for t in data.targets])).numpy()
        tests = model.lemma_vectors(torch.tensor([index[t] for t in test_names])).numpy()
    results = compvec_both(composed, relevant, data.targets, targets, tests)
    if ranks is not None:
        ranks.update({name: r.first_ranks for name, r in results.items()})
    return {
        name: {
            "mrr": r.mrr / 100,
            "mnr": r.mnr / 100,
            "map": r.map / 100,
            "p_at_10": r.p_at_10 / 100,
            "queries": len(definitions),
            "candidates": r.candidates,
        }
        for name, r in results.items()
    }


def _sts(
    path: Path, encoder: ComposedEncoder, measure: str = "", items: list | None = None
) -> dict[str, Any]:
    table = artefacts.read(path, artefacts.SENTENCE_PAIRS)
    frame = table.to_pandas()
    source = artefacts.provenance(path).get("source", "")
    preds = predict_pairs(frame, encoder, TOKENIZER, True, "skip")
    metrics = subset_metrics(preds)
    if items is not None:
        for (dataset, subset, split), part in preds.groupby(["dataset", "subset", "split"]):
            key, n = f"{dataset}/{subset}/{split}", len(part)
            items.append(_items(measure, key, np.arange(n), n, part["gold"], part["pred"]))
    n = metrics["n"].to_numpy()
    wmean = float(np.sum(metrics["pearson"] * n) / n.sum())
    missing = missing_subsets(str(frame["dataset"].iloc[0]), table, source)
    subsets = ", ".join(f"{r.subset} {r.n}" for r in metrics.itertuples())
    data = f"{path.stem} ({source}): wmean Pearson over {len(metrics)} subsets ({subsets} pairs)"
    if missing:
        data += f"; missing {', '.join(missing)}"
    return {
        **_cell(wmean, data),
        "subsets": {
            r.subset: {"n": int(r.n), "pearson": float(r.pearson)} for r in metrics.itertuples()
        },
    }


def _wordsim(
    path: Path, words: list[str], matrix: np.ndarray, measure: str, items: list
) -> dict[str, Any]:
    encoder = AveragedEmbeddings(words, matrix, "skip")
    frame = artefacts.read(path, artefacts.WORD_PAIRS).to_pandas()
    keep, _, gold, pred = wordsim_predictions(frame, encoder, True, "skip")
    items.append(_items(measure, f"scheepers2018/{path.stem}", np.flatnonzero(keep), len(frame),
                        gold, pred))  # fmt: skip
    n, n_total = int(keep.sum()), len(frame)
    data = f"{path.stem}: {n} of {n_total} pairs in the vocabulary"
    return _cell(spearman(gold, pred), data) | {"n": n, "n_total": n_total}


def _sick(
    path: Path, encoder: ComposedEncoder, items: list | None = None
) -> dict[str, dict[str, Any]]:
    frame = artefacts.read(path, artefacts.SENTENCE_PAIRS).to_pandas()
    entail, relate = evaluate_sick(frame, encoder, TOKENIZER, True)
    if items is not None:  # both tasks' test predictions, in the frame's order of test rows
        test = frame[frame["split"] == "test"]
        key, n = f"{test['dataset'].iloc[0]}/{test['subset'].iloc[0]}/test", len(test)
        items.append(_items("sick_r", key, np.arange(n), n, test["score"], relate.predictions))
        items.append(_items("sick_e", key, np.arange(n), n, np.full(n, np.nan),
                            entail.correct.astype(np.float64)))  # fmt: skip
    sizes = f"{entail.n_train}/{entail.n_trial}/{entail.n_test} train/trial/test pairs"
    return {
        "sick_e": _cell(
            entail.accuracy / 100,
            f"SICK test accuracy, logistic regression on [|u-v|, u*v], C={entail.c} chosen on "
            f"trial ({entail.trial_accuracy:.1f}); {sizes}",
        ),
        "sick_r": _cell(
            relate.pearson / 100,
            f"SICK test Pearson of the expected score, softmax regression (Tai et al. targets, "
            f"{relate.epochs} epochs, trial r {relate.trial_pearson:.1f}); {sizes}",
        ),
    }


def evaluate_run(
    run_dir: Path,
    data_dir: Path,
    pretrained: Path,
    sets: Mapping[str, Path],
    unavailable: Mapping[str, str],
    candidates: str,
    out: Path,
    max_length: int = 32,
) -> dict[str, Any]:
    """Evaluate a run folder on every measure and write the JSON ``out`` and the measures'
    items, ``items.parquet`` beside it."""
    if candidates not in CANDIDATES:
        raise ValueError(f"candidates must be one of {CANDIDATES}, not {candidates!r}")
    start = time.perf_counter()
    model, vocabulary = read_definition_model(run_dir)
    data = DefinitionData.load(data_dir)
    matrix = model.weight.detach().numpy()
    ranks: dict[str, np.ndarray] = {}
    compvec = compvec_measure(model, data, max_length, ranks)
    chosen = compvec[candidates]
    queries = len(ranks[candidates])
    items = [_items("mrr", COMPVEC_KEY, np.arange(queries), queries, np.full(queries, np.nan),
                    1.0 / ranks[candidates])]  # fmt: skip
    made = artefacts.provenance(Path(data_dir) / "test.parquet")
    measures: dict[str, dict[str, Any]] = {
        "mrr": _cell(
            chosen["mrr"],
            f"CompVecEval on {chosen['queries']} test definitions ({made.get('dataset')}, "
            f"{made.get('source')} split) against {chosen['candidates']} "
            f"{candidates} lemmas (MRR {compvec['all']['mrr'] * 100:.1f} with all, "
            f"{compvec['test']['mrr'] * 100:.1f} with test candidates)",
        )
    }
    pretrained_words, pretrained_matrix = artefacts.read_embeddings(pretrained)
    encoder = ComposedEncoder(
        model.composer, vocabulary, matrix, pretrained_words, pretrained_matrix, max_length
    )
    for measure, name in MEASURE_SETS.items():
        if name not in sets:
            measures[measure] = _cell(None, reason=unavailable.get(name, f"{name} not configured"))
        elif measure in ("sts14", "sts15"):
            measures[measure] = _sts(sets[name], encoder, measure, items)
        elif measure in ("simlex", "simverb", "ws353"):
            measures[measure] = _wordsim(sets[name], vocabulary[2:], matrix[2:], measure, items)
    if "sick2014" in sets:
        measures.update(_sick(sets["sick2014"], encoder, items))
    result = {
        "run": str(run_dir),
        "candidates": candidates,
        "measures": measures,
        "compvec": compvec,
    }
    with atomic_path(out.with_name("items.parquet")) as tmp:
        pd.concat(items, ignore_index=True)[ITEM_COLUMNS].to_parquet(tmp, index=False)
    with atomic_path(out) as tmp:
        tmp.write_text(json.dumps(result, indent=2))
    log.info("evaluated %s in %.1fs", run_dir, time.perf_counter() - start)
    return result
