"""Row layouts: which evaluation subset, or group of subsets, each table row is computed from."""

from __future__ import annotations

from dataclasses import dataclass

from paracomp.errors import ConfigError


@dataclass(frozen=True)
class LeafRef:
    """One subset of an evaluation set (``split`` None: whichever split was evaluated)."""

    name: str
    set: str
    subset: str
    split: str | None = None


@dataclass(frozen=True)
class GroupRef:
    name: str
    members: tuple[LeafRef | GroupRef, ...]


def leaf_refs(ref: LeafRef | GroupRef) -> list[LeafRef]:
    """The subsets under a row, depth first."""
    return [ref] if isinstance(ref, LeafRef) else [x for m in ref.members for x in leaf_refs(m)]


def _resolve(raw: dict, name: str, seen: tuple[str, ...] = ()) -> LeafRef | GroupRef:
    if name in seen:
        raise ConfigError(f"layout group {name!r} contains itself")
    if name in raw.get("leaves", {}):
        spec = raw["leaves"][name]
        return LeafRef(name, spec["set"], spec["subset"], spec.get("split"))
    if name in raw.get("groups", {}):
        members = tuple(_resolve(raw, m, (*seen, name)) for m in raw["groups"][name])
        return GroupRef(name, members)
    raise ConfigError(f"layout names {name!r}, which is neither a leaf nor a group")


def parse_rows(raw: dict, table: str) -> dict[str, LeafRef | GroupRef]:
    """Evaluation rows of ``table`` in a parsed layout (``leaves``, ``groups``, ``tables``);
    rows not listed are not computed from evaluations."""
    rows = raw.get("tables", {}).get(table, {})
    return {str(row): _resolve(raw, str(name)) for row, name in rows.items()}
