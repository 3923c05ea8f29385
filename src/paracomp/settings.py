"""One settings parser for the workflow's config and every command's JSON arguments.

The schemas: the workflow's config (``config.schema.yaml`` beside this module), a run's settings
(``run_config.schema.yaml``) and each paper's block (``papers/<paper>/config.schema.yaml``).
:func:`check` validates settings against one of them, or a part of one (:func:`part`), and
raises a one-line :class:`ConfigError` naming the key (an unknown key with the known ones
listed); :func:`parse` does the same for a command's JSON argument; :func:`coerce` turns the
strings that Snakemake's ``--config`` hands over for nested values into the schema's type.
Importing this module imports no torch, pandas or scipy.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable, Mapping
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

from paracomp.errors import ConfigError
from paracomp.yamltext import safe_load

CONFIG_SCHEMA = str(files(__package__).joinpath("config.schema.yaml"))
"""The workflow's config schema (Snakemake validates ``config`` against it)."""
RUN_SCHEMA = str(files(__package__).joinpath("run_config.schema.yaml"))
"""A training run's settings."""
TABLE_SCHEMA = str(files(__package__).joinpath("tables", "table.schema.yaml"))
"""A paper table's columns (``$defs``: ``table``, ``column``)."""


@cache
def load(path: str) -> dict[str, Any]:
    """The schema in file ``path`` (its ``$ref``s resolve relative to it)."""
    return safe_load(Path(path).read_text())


def config_schema() -> dict[str, Any]:
    """The workflow's config schema."""
    return load(CONFIG_SCHEMA)


def part(schema: Mapping[str, Any], key: str) -> dict[str, Any]:
    """The schema of ``key`` (dotted: ``corpus.pivot``) inside object schema ``schema``."""
    for name in key.split("."):
        schema = schema["properties"][name]
    return dict(schema)


def check(values: Any, schema: Mapping[str, Any], where: str, path: str | None = None) -> None:
    """Validate ``values`` against ``schema`` (loaded from file ``path``, or a part of it:
    its ``$ref``s resolve against that file, ``#/$defs/…`` to its definitions); the first
    error is a one-line :class:`ConfigError` naming ``where`` and the key."""
    if path is not None and "$defs" not in schema and "$defs" in load(path):
        schema = {**schema, "$defs": load(path)["$defs"]}
    validator = jsonschema.Draft202012Validator(schema, registry=_registry(path))
    errors = sorted(
        validator.iter_errors(values), key=lambda e: (len(e.path), list(map(str, e.path)))
    )
    if not errors:
        return
    error = errors[0]
    key = ".".join(map(str, error.path))
    at = f"{where}: {key}: " if key else f"{where}: "
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        known = sorted(error.schema.get("properties", {}))
        unknown = sorted(set(error.instance) - set(known))
        raise ConfigError(f"{at}unknown key(s) {unknown}; known: {known}")
    if error.validator == "required" or not key:
        raise ConfigError(f"{at}{error.message}")
    raise ConfigError(f"{where}: {key}={error.instance!r}: {error.message}")


def checked(values: Any, path: str, where: str) -> Any:
    """``values`` coerced (:func:`coerce`) and checked against the schema in file ``path``:
    what the workflow does with its config (``path``: :data:`CONFIG_SCHEMA`, ``where``:
    ``config``) and each paper's block before Snakemake's own validation fills in defaults."""
    schema = load(path)
    values = coerce(values, schema, path)
    check(values, schema, where, path)
    return values


def parse(
    text: str, schema: Mapping[str, Any], where: str, path: str | None = None
) -> dict[str, Any]:
    """A command's JSON argument ``text`` (an object) checked against ``schema`` (whose
    ``$ref``s resolve against file ``path``)."""
    try:
        values = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(values, dict):
        raise ConfigError(f"{where}: expected a JSON object, got {text!r}")
    check(values, schema, where, path)
    return values


def ref(path: str, pointer: str = "") -> dict[str, Any]:
    """A schema that is the one at ``pointer`` (``/$defs/table``) of the schema file ``path``,
    for :func:`parse` or :func:`check` with that ``path``."""
    return {"$ref": f"{posixpath.basename(path)}#{pointer}"}


def obj(properties: Mapping[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """The schema of an object with exactly these ``properties`` (``required`` among them)."""
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": dict(properties),
        "required": list(required),
    }


def pick(schema: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """The schema of an object holding ``keys`` of ``schema``, what a command takes from a
    config block: ``a.b`` is key ``b`` of block ``a``, required; ``a.*`` every key of block
    ``a``, those it requires required."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for key in keys:
        if key.endswith(".*"):
            block = part(schema, key[:-2])
            properties.update(block["properties"])
            required += block.get("required", [])
        else:
            name = key.rsplit(".", 1)[-1]
            properties[name] = part(schema, key)
            required.append(name)
    return obj(properties, tuple(required))


def _registry(path: str | None) -> Registry:
    """Every schema file a ``$ref`` may name, by its path relative to ``path``'s folder."""
    if path is None:
        return Registry()
    return Registry(retrieve=lambda uri: Resource.from_contents(_resolve(path, uri)))


def _resolve(base: str, ref: str) -> dict[str, Any]:
    return load(_relative(base, ref))


_INTEGER = re.compile(r"[-+]?\d+")
_BOOLEANS = {"true": True, "false": False, "True": True, "False": False}
_NULLS = {"null", "~", "None", ""}


def coerce(values: Any, schema: Mapping[str, Any], path: str | None = None) -> Any:
    """``values`` with every string that the schema does not allow as a string turned into the
    schema's integer, number, boolean or null (Snakemake's ``--config`` hands nested values
    over as strings: ``training={threads: 2}`` gives ``'2'``); a string that is none of them is
    left for validation to refuse by name."""
    schema, path = _deref(schema, path)
    if isinstance(values, dict):
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        return {
            k: coerce(v, props.get(k, extra), path)
            if isinstance(props.get(k, extra), Mapping)
            else v
            for k, v in values.items()
        }
    if isinstance(values, list):
        items = schema.get("items")
        return [coerce(v, items, path) for v in values] if isinstance(items, Mapping) else values
    if isinstance(values, str):
        return _scalar(values, schema, path)
    return values


def _scalar(text: str, schema: Mapping[str, Any], path: str | None) -> Any:
    types, enum = _kinds(schema, path)
    if "string" in types or text in enum or not (types or enum):
        return text
    if "integer" in types | {_json_type(v) for v in enum} and _INTEGER.fullmatch(text.strip()):
        return int(text)
    if "number" in types:
        try:
            return float(text)
        except ValueError:
            pass
    if "boolean" in types and text in _BOOLEANS:
        return _BOOLEANS[text]
    if ("null" in types or None in enum) and text in _NULLS:
        return None
    return text


def _kinds(schema: Mapping[str, Any], path: str | None) -> tuple[set[str], list[Any]]:
    """The JSON types a value of ``schema`` may have and the values its enums allow (of it
    and its alternatives); both empty where it does not say."""
    schema, path = _deref(schema, path)
    kind = schema.get("type")
    types = {kind} if isinstance(kind, str) else set(kind or ())
    enum = list(schema.get("enum", ()))
    for key in ("oneOf", "anyOf"):
        for option in schema.get(key, ()):
            more_types, more_enum = _kinds(option, path)
            types |= more_types
            enum += more_enum
    return types, enum


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


def _deref(schema: Mapping[str, Any], path: str | None) -> tuple[Mapping[str, Any], str | None]:
    """``schema`` with a ``$ref`` (``#/…`` in the file ``path``, or another file) followed,
    and the file it is in."""
    ref = schema.get("$ref") if isinstance(schema, Mapping) else None
    if not ref or path is None:
        return schema, path
    target, _, pointer = ref.partition("#")
    file = path if not target else _relative(path, target)
    node: Any = load(file)
    for name in filter(None, pointer.split("/")):
        node = node[name]
    return _deref({**node, **{k: v for k, v in schema.items() if k != "$ref"}}, file)


def _relative(base: str, ref: str) -> str:
    """The file ``ref`` names, relative to file ``base``."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), ref))
