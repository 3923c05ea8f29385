"""The data and records of the supervised STS and SICK runs (Tables 5, 6, 8), whose encoders
the generic trainer trains with Tai et al.'s (2015) head and loss (objective ``supervised``,
:mod:`paracomp.train.similarity`), as the paper's §3.5 and §4.3.

- Data: the 20 STS 2012-2015 subsets pooled, each split with a seeded permutation into 40 %
  training, 10 % validation and the rest test (:func:`sts_splits`; the paper's sizes are
  4,481 / 1,207 / 6,060 and its procedure is not stated); SICK's standard train / trial / test.
  Tokenised once per task into a SCORED_PAIRS table (:func:`write_supervised_data`).
- Target: Tai et al.'s sparse p (SICK: K = 5 on 1-5; STS: K = 6 on gold + 1, the digest's
  plausible choice): the runs' ``classes`` and ``score_shift``
  (:data:`~paracomp.papers.wieting2017.workflow_supervised.TASK_SETTINGS`).
- A "universal" run starts from the word rows and composer of the transfer run's point that
  2016 STS selects, and is regularised towards them (§3.5, Table 8).
- A point's record (:func:`supervised_record`) is the trainer's (the test r of the epoch with
  the best validation r) with the run, the absent STS subsets and where it started.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paracomp.errors import DataError

STS_FRACTIONS = (0.4, 0.1)


def sts_splits(frame: pd.DataFrame, seed: int) -> pd.DataFrame:
    """``frame`` (scored pairs of the STS subsets) with a ``part`` column: per (dataset,
    subset), a permutation seeded by ``seed`` gives the first floor(40 %) pairs to ``train``,
    the next floor(10 %) to ``dev`` and the rest to ``test``."""
    parts = []
    for index, (_, group) in enumerate(frame.groupby(["dataset", "subset"], sort=True)):
        order = np.random.default_rng([seed, index]).permutation(len(group))
        n_train = int(math.floor(STS_FRACTIONS[0] * len(group)))
        n_dev = int(math.floor(STS_FRACTIONS[1] * len(group)))
        part = np.array(["test"] * len(group), dtype=object)
        part[order[:n_train]] = "train"
        part[order[n_train : n_train + n_dev]] = "dev"
        parts.append(group.assign(part=part))
    return pd.concat(parts) if parts else frame.assign(part=[])


SICK_PARTS = {"train": "train", "trial": "dev", "test": "test"}


def sick_splits(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(part=frame["split"].map(SICK_PARTS))


def supervised_frame(
    task: str, sets: Mapping[str, Path], seed: int
) -> tuple[pd.DataFrame, list[str]]:
    """The pairs of ``task`` with their parts, and the absent STS subsets' notes."""
    from paracomp.papers.wieting2017.transfer import STS_SUBSETS

    if task == "sick":
        frame = pd.read_parquet(sets["sick2014"])
        frame = frame[frame["score"].notna()]
        return sick_splits(frame), []
    frames = [pd.read_parquet(sets[d]) for d in sorted({d for d, _ in STS_SUBSETS}) if d in sets]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if len(frame):
        frame = frame[frame["score"].notna()]
        keys = set(STS_SUBSETS)
        frame = frame[[(d, s) in keys for d, s in zip(frame["dataset"], frame["subset"])]]
    present = set(zip(frame["dataset"], frame["subset"])) if len(frame) else set()
    notes = [f"{d}/{s}" for d, s in STS_SUBSETS if (d, s) not in present]
    return sts_splits(frame, seed), notes


def _tokenisation(sets: Mapping[str, Path], tokenizer: str, lowercase: bool) -> tuple[str, bool]:
    """How to tokenise the sentences of ``sets``: all raw or all tokenised so
    (:func:`~paracomp.eval.tokens.tokenisation`)."""
    from paracomp import artefacts
    from paracomp.eval.tokens import tokenisation

    ways = {
        tokenisation(artefacts.provenance(path), Path(path), tokenizer, lowercase)
        for path in sets.values()
    }
    if len(ways) > 1:
        raise DataError(f"sets {sorted(map(str, sets.values()))}: some raw, some tokenised")
    return ways.pop() if ways else (tokenizer, lowercase)


def write_supervised_data(
    task: str, sets: Mapping[str, Path], split_seed: int, tokenizer: str, lowercase: bool, out: Path
) -> list[str]:
    """The pairs of ``task`` in their parts, tokenised as the evaluator tokenises ``sets``, as
    a SCORED_PAIRS artefact at ``out`` (the absent STS subsets in its provenance); returns
    those subsets."""
    import pyarrow as pa

    from paracomp import artefacts
    from paracomp.eval.tokens import tokenize_all

    tokenizer, lowercase = _tokenisation(sets, tokenizer, lowercase)
    frame, missing = supervised_frame(task, sets, split_seed)
    sides = [tokenize_all(frame[s].tolist(), tokenizer, lowercase) for s in ("s1", "s2")]
    table = pa.table({
        "dataset": frame["dataset"].tolist(), "subset": frame["subset"].tolist(),
        "part": frame["part"].tolist(), "tokens1": [list(t) for t in sides[0]],
        "tokens2": [list(t) for t in sides[1]],
        "score": frame["score"].to_numpy(dtype=np.float64),
    })  # fmt: skip
    config = {"task": task, "split_seed": split_seed, "tokenizer": tokenizer,
              "lowercase": lowercase, "missing_subsets": missing}  # fmt: skip
    prov = artefacts.Provenance(
        f"wieting2017-supervised-{task}", "paracomp.papers.wieting2017.supervised",
        artefacts.input_checksums(list(sets.values())), config,
    )  # fmt: skip
    artefacts.write(table, out, artefacts.SCORED_PAIRS, prov)
    return missing


def supervised_record(
    trained: Mapping[str, Any], task: str, run: str, index: int, data: Path,
    source: Mapping[str, Any],
) -> dict[str, Any]:  # fmt: skip
    """A supervised point's record: the trainer's record ``trained`` (its ``point``, the dev
    and test r of the selected epoch, the test pairs), the run, the task, the STS subsets
    absent from ``data`` (its provenance) and the ``source`` it started from."""
    from paracomp import artefacts

    missing = artefacts.provenance(data).get("config", {}).get("missing_subsets")
    if missing is None:
        raise DataError(f"{data}: not the supervised data of wieting2017 (no missing_subsets)")
    return {**trained, "run": run, "index": index, "task": task,
            "missing_subsets": missing, "source": dict(source)}  # fmt: skip
