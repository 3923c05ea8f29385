"""``paracomp corpus STEP``: one step of the training-corpus chain."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _corpus(args: argparse.Namespace) -> None:
    from paracomp.corpus.steps import run_step

    inputs = [Path(p) for p in args.input]
    run_step(args.step, inputs, [Path(p) for p in args.out], json.loads(args.params))


STEP_NAMES = (
    "sentences",
    "english-bible",
    "align",
    "phrase-table",
    "bilingual-phrases",
    "pivot",
    "ppdb",
    "bigram-filter",
    "sample",
    "phrase-vocab",
    "phrase-shard",
    "phrase-words",
    "phrase-merge",
    "phrase-score",
    "phrase-gather",
    "pivot-split",
    "pivot-join",
    "pivot-sum",
    "pivot-gather",
)
"""The steps ``paracomp corpus`` runs: ``sentences``, the keys of
:data:`paracomp.corpus.steps.STEPS` and of its ``SHARDED_STEPS`` (named here so that parsing
imports no step)."""


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("corpus", help="one step of the training-corpus chain")
    p.add_argument(
        "step", choices=STEP_NAMES, help="the step (rules/corpus.smk runs each as a job)"
    )
    p.add_argument("--input", nargs="+", required=True, help="input artefacts or folders")
    p.add_argument("--params", default="{}", help="the step's settings from config, as JSON")
    p.add_argument("--out", nargs="+", required=True, help="its outputs (most steps: one)")
    p.set_defaults(func=_corpus)
