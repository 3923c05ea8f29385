"""``paracomp corpus STEP``: one step of the training-corpus chain."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _corpus(args: argparse.Namespace) -> None:
    from paracomp.corpus.steps import run_step

    inputs = [Path(p) for p in args.input]
    run_step(args.step, inputs, Path(args.out), json.loads(args.params))


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
)
"""The steps ``paracomp corpus`` runs: ``sentences`` and the keys of
:data:`paracomp.corpus.steps.STEPS` (named here so that parsing imports no step)."""


def add_parsers(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("corpus", help="one step of the training-corpus chain")
    p.add_argument("step", choices=STEP_NAMES)
    p.add_argument("--input", nargs="+", required=True, help="input artefacts or folders")
    p.add_argument("--params", default="{}", help="the step's settings from config, as JSON")
    p.add_argument("--out", required=True)
    p.set_defaults(func=_corpus)
