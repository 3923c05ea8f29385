"""``KEY=VALUE`` arguments, shared by the stages' and the papers' commands: a module below
:mod:`paracomp.cli`, so that a paper's commands parse them without importing the command line."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from paracomp.errors import ConfigError

THEN = "--then"
"""The word between ``paracomp`` commands that one process runs one after the other
(``paracomp A … --then B …``: ``B`` once ``A`` has succeeded)."""


def key_values(items: Sequence[str] | None) -> dict[str, str]:
    """``KEY=VALUE`` arguments (none: an option not given) as a mapping."""
    return dict(key_value_pairs(items))


def key_value_pairs(items: Sequence[str] | None) -> list[tuple[str, str]]:
    """``KEY=VALUE`` arguments in order, a key possibly repeated (none: an option not
    given)."""
    bad = [item for item in items or [] if "=" not in item]
    if bad:
        raise ConfigError(f"expected KEY=VALUE arguments, got {bad[0]!r}")
    return [(key, value) for key, _, value in (item.partition("=") for item in items or [])]


def seed_key(key: str, value: str, option: str, form: str = "NAME:SEED=VALUE") -> tuple[str, int]:
    """The name and seed of a ``NAME:SEED=VALUE`` argument of ``option`` (``key`` its part
    before ``=``); a malformed one is one line naming ``option`` and the ``form`` expected."""
    name, _, seed = key.rpartition(":")
    if not name or not seed.lstrip("-").isdigit():
        raise ConfigError(f"{option}: expected {form}, got {key}={value}")
    return name, int(seed)


def seeded_paths(items: Sequence[str] | None, option: str) -> dict[str, dict[int, Path]]:
    """``NAME:SEED=PATH`` arguments of ``option`` as name -> seed -> path."""
    found: dict[str, dict[int, Path]] = {}
    for key, value in key_value_pairs(items):
        name, seed = seed_key(key, value, option)
        found.setdefault(name, {})[seed] = Path(value)
    return found


def add_tokenisation(parser: argparse.ArgumentParser, *, required: bool = False) -> None:
    """``--tokenizer`` and ``--lowercase``/``--no-lowercase``, the evaluator's tokenisation
    (config ``evaluation.tokenizer`` and ``evaluation.lowercase``): required where a rule
    always passes them, else the evaluation's defaults (Moses, lowercased)."""
    parser.add_argument(
        "--tokenizer",
        required=required,
        default=None if required else "moses",
        choices=["moses", "whitespace"],
        help="the tokeniser (config evaluation.tokenizer)",
    )
    parser.add_argument(
        "--lowercase",
        action=argparse.BooleanOptionalAction,
        required=required,
        default=None if required else True,
        help="lowercase sentences before looking words up (config evaluation.lowercase)",
    )
