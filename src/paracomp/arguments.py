"""``KEY=VALUE`` arguments, shared by the stages' and the papers' commands: a module below
:mod:`paracomp.cli`, so that a paper's commands parse them without importing the command line."""

from __future__ import annotations

from collections.abc import Sequence

from paracomp.errors import ConfigError


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
