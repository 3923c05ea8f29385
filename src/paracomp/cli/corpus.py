"""``paracomp corpus STEP``: one step of the training-corpus chain."""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _corpus(args: argparse.Namespace) -> None:
    from paracomp.corpus.steps import run_step

    inputs = [Path(p) for p in args.input]
    run_step(args.step, inputs, Path(args.out), json.loads(args.params))


def add_parsers(sub: argparse._SubParsersAction) -> None:
    from paracomp.corpus.steps import STEPS

    p = sub.add_parser("corpus", help="one step of the training-corpus chain")
    p.add_argument("step", choices=["sentences", *STEPS])
    p.add_argument("--input", nargs="+", required=True, help="input artefacts or folders")
    p.add_argument("--params", default="{}", help="the step's settings from config, as JSON")
    p.add_argument("--out", required=True)
    p.set_defaults(func=_corpus)
