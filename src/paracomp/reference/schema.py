"""Config keys from a JSON schema: each key's dotted path, type, default and description.

A key under ``additionalProperties`` is written ``<name>``, an array's items ``[]``. A
``$ref`` within the file (``#/$defs/…``) is followed; a ``$ref`` to another file is a key whose
keys are documented with that file (its description is the file's own when the key has none).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paracomp.reference.pages import cell
from paracomp.yamltext import safe_load


@dataclass(frozen=True)
class Key:
    """One key of a schema."""

    path: str
    kind: str
    default: str
    description: str
    ref: str = ""
    """The other schema file this key's value is checked against (its path as written)."""


def load(path: Path) -> dict[str, Any]:
    """A YAML schema file."""
    return safe_load(path.read_text())


def keys(path: Path, prefix: str = "") -> list[Key]:
    """Every key of the schema file ``path``, in file order, under ``prefix``."""
    root = load(path)
    return list(_walk(root, root, path.parent, prefix))


def undocumented(found: list[Key]) -> list[str]:
    """The paths of named keys without a description (a ``<name>`` entry is described by the
    key it is under)."""
    return [
        key.path
        for key in found
        if not key.description.strip() and not key.path.endswith(("<name>", "[]"))
    ]


def _walk(
    node: Mapping[str, Any], root: Mapping[str, Any], base: Path, prefix: str
) -> Iterator[Key]:
    node = _local(node, root)
    for name, child in (node.get("properties") or {}).items():
        path = f"{prefix}.{name}" if prefix else name
        yield _key(path, child, root, base)
        if "$ref" not in child or child["$ref"].startswith("#"):
            yield from _walk(child, root, base, path)
    extra = node.get("additionalProperties")
    if isinstance(extra, Mapping):
        path = f"{prefix}.<name>" if prefix else "<name>"
        extra = _local(extra, root)
        if extra.get("properties") or extra.get("description"):
            yield _key(path, extra, root, base)
        yield from _walk(extra, root, base, path)
    items = node.get("items")
    if isinstance(items, Mapping) and _local(items, root).get("properties"):
        yield from _walk(items, root, base, f"{prefix}[]")


def _local(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any]:
    """``node`` with a ``$ref`` within its file followed (its own keys on top)."""
    ref = node.get("$ref", "")
    if not ref.startswith("#/"):
        return node
    target: Any = root
    for part in ref[2:].split("/"):
        target = target[part]
    return {**_local(target, root), **{k: v for k, v in node.items() if k != "$ref"}}


def _key(path: str, node: Mapping[str, Any], root: Mapping[str, Any], base: Path) -> Key:
    ref = node.get("$ref", "")
    description = str(node.get("description", ""))
    if ref and not ref.startswith("#"):
        description = description or str(load(base / ref).get("description", ""))
        return Key(path, "see its schema", "", " ".join(description.split()), ref=ref)
    node = _local(node, root)
    default = json.dumps(node["default"], ensure_ascii=False) if "default" in node else ""
    return Key(path, kind(node), default, " ".join(description.split()))


def kind(node: Mapping[str, Any]) -> str:
    """A key's type and range in a few words: ``integer ≥ 1``, ``one of: a, b``, …"""
    if "enum" in node:
        return "one of: " + ", ".join(json.dumps(v) for v in node["enum"])
    if "const" in node:
        return f"= {json.dumps(node['const'])}"
    types = node.get("type")
    names = [types] if isinstance(types, str) else list(types or [])
    if not names and ("anyOf" in node or "oneOf" in node):
        names = [kind(branch) for branch in node.get("anyOf") or node["oneOf"]]
    text = " or ".join(names) if names else "any"
    items = node.get("items")
    if isinstance(items, Mapping) and "array" in names:
        text += f" of {kind(items)}"
    bounds = [
        f"{sign} {node[word]}"
        for word, sign in (
            ("minimum", "≥"),
            ("exclusiveMinimum", ">"),
            ("maximum", "≤"),
            ("exclusiveMaximum", "<"),
        )
        if word in node
    ]
    if bounds:
        text += " " + ", ".join(bounds)
    if "pattern" in node:
        text += f" matching `{node['pattern']}`"
    return text


def markdown(found: list[Key], links: Mapping[str, str] | None = None) -> str:
    """A markdown table of ``found``; ``links`` maps a ``$ref`` to the anchor of its section."""
    rows = ["| key | type | default | description |", "|---|---|---|---|"]
    for key in found:
        kind_cell = key.kind
        if key.ref and links and key.ref in links:
            kind_cell = f"see [{Path(key.ref).name}]({links[key.ref]})"
        cells = (
            f"`{key.path}`",
            kind_cell,
            f"`{key.default}`" if key.default else "",
            key.description,
        )
        rows.append("| " + " | ".join(cell(c) for c in cells) + " |")
    return "\n".join(rows) + "\n"
