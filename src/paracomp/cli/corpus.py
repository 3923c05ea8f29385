"""``paracomp corpus STEP``: one step of the training-corpus chain."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _corpus(args: argparse.Namespace) -> None:
    from paracomp.corpus.steps import run_step

    inputs = [Path(p) for p in args.input]
    run_step(args.step, inputs, [Path(p) for p in args.out], json.loads(args.params))


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from paracomp.corpus.steps import SHARDED_STEPS, STEPS

    p = sub.add_parser("corpus", help="one step of the training-corpus chain")
    p.add_argument("step", choices=["sentences", *STEPS, *SHARDED_STEPS])
    p.add_argument("--input", nargs="+", required=True, help="input artefacts or folders")
    p.add_argument("--params", default="{}", help="the step's settings from config, as JSON")
    p.add_argument("--out", nargs="+", required=True, help="its outputs (most steps: one)")
    p.set_defaults(func=_corpus)
