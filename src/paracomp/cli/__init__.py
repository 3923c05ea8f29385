"""The ``paracomp`` command line: what the Snakemake rules call, and what users inspect with.

Argument parsing only: each stage's commands are in a module of this package, each paper's in
its package's ``cli`` module (``paracomp <paper> …``); the work is done by the package.

``paracomp A … --then B …`` runs command ``B`` after ``A`` succeeds, in the same process: a
grid point's scoring after its training pays no second interpreter start-up and imports.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import os
import sys
from collections.abc import Sequence

from paracomp import timing
from paracomp.arguments import THEN
from paracomp.cli import corpus, data, evaluate, tables, train, use
from paracomp.errors import ParacompError
from paracomp.papers import PAPERS

STAGES = (data, corpus, train, evaluate, tables, use)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paracomp",
        description=__doc__.splitlines()[0],
        epilog=f"paracomp A … {THEN} B … runs command B once A has succeeded, in the same "
        "process (a grid point's scoring after its training: one interpreter start-up and "
        "one set of imports); every command line is parsed before the first runs.",
    )
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
    timing.start()
    parser = build_parser()
    commands = [parser.parse_args(words) for words in _commands(argv)]  # all, before any runs
    _pin_threads(commands[0])
    logging.basicConfig(
        level=logging.DEBUG if any(args.verbose for args in commands) else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for args in commands:
        try:
            args.func(args)
        except (ParacompError, OSError, json.JSONDecodeError) as exc:
            print(f"paracomp: error: {_message(exc, args)}", file=sys.stderr)
            return 2
    logging.getLogger("paracomp.timing").info(timing.report())
    return 0


def _commands(argv: Sequence[str] | None) -> list[list[str]]:
    """The command lines of ``argv`` (the process's own by default), split at :data:`THEN`."""
    commands: list[list[str]] = [[]]
    for word in sys.argv[1:] if argv is None else argv:
        if word == THEN:
            commands.append([])
        else:
            commands[-1].append(word)
    return commands


def _pin_threads(args: argparse.Namespace) -> None:
    """Set ``OMP_NUM_THREADS`` to a command's ``--threads`` where the user has not, before torch
    is imported: as Snakemake sets it for a job. torch's kernels choose their paths by the
    OpenMP pool they start with, and ``torch.set_num_threads`` alone does not bring a process
    started with a larger pool onto the same bits (chen2020's LSTM GAUSSIAN tuning point:
    dev r 0.43399168505 from a shell, 0.43399167489 in the pipeline; the same with this)."""
    threads = getattr(args, "threads", None)
    if isinstance(threads, int) and "torch" not in sys.modules:
        os.environ.setdefault("OMP_NUM_THREADS", str(threads))


def _message(exc: Exception, args: argparse.Namespace) -> str:
    """One line for a failure the user can fix: the project's errors as they are, a file that
    cannot be opened by its path, malformed JSON by the argument that held it."""
    if isinstance(exc, json.JSONDecodeError):
        names = [f"--{k.replace('_', '-')}" for k, v in vars(args).items() if v == exc.doc]
        where = f"argument {names[0]}" if names else "a JSON document"
        return f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    if isinstance(exc, OSError):
        path = exc.filename if exc.filename is not None else (exc.args or ("?",))[0]
        reason = exc.strerror or _REASONS.get(type(exc), type(exc).__name__)
        return f"{path}: {reason[0].lower()}{reason[1:]}"
    return str(exc)


_REASONS: dict[type[OSError], str] = {
    FileNotFoundError: "no such file",
    IsADirectoryError: "is a directory",
    NotADirectoryError: "not a directory",
    PermissionError: "permission denied",
}
"""Reasons for OSErrors raised with a path alone (as pyarrow raises them)."""


if __name__ == "__main__":
    sys.exit(main())
