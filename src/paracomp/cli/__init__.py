"""The ``paracomp`` command line: what the Snakemake rules call, and what users inspect with.

Argument parsing only: each stage's commands are in a module of this package, each paper's in
its package's ``cli`` module (``paracomp <paper> …``); the work is done by the package.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from paracomp.cli import corpus, data, evaluate, tables, train
from paracomp.errors import ParacompError
from paracomp.papers import PAPERS

STAGES = (data, corpus, train, evaluate, tables)


def pairs(items: Sequence[str]) -> dict[str, str]:
    """``KEY=VALUE`` arguments as a mapping."""
    return dict(item.split("=", 1) for item in items)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="paracomp", description=__doc__.splitlines()[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logging")
    sub = parser.add_subparsers(dest="command", required=True)
    for stage in STAGES:
        stage.add_parsers(sub)
    for paper in PAPERS:
        try:
            module = importlib.import_module(f"paracomp.papers.{paper}.cli")
        except ModuleNotFoundError as exc:
            if exc.name != f"paracomp.papers.{paper}.cli":
                raise
            continue
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        args.func(args)
    except ParacompError as exc:
        print(f"paracomp: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
