"""The claims a paper's text makes, as tests over table cells.

A paper's ``findings.yaml`` lists claims, each with the sentence it quotes, where it is
(``where``: section or table), and ``test``: a comparison over table cells written
``[table|row|column]`` (the row and column keys of the table's compare file), numbers, ``+ −
× /``, ``max(…)``, ``min(…)``, ``abs(…)``, comparisons (chained too) and ``and`` / ``or``;
``[table|row|column|paper]`` is always the printed number (prior work the paper compares
with, which we do not recompute). A cell without a number makes the verdict ``not
computable``, naming the cells it lacks. Nothing here imports pandas (the DAG build reads the
tables a paper's claims need).
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from paracomp.errors import ConfigError
from paracomp.yamltext import safe_load

CELL = re.compile(r"\[([^\]|]+)\|([^\]|]+)\|([^\]|]+)(?:\|(paper))?\]")
"""A cell reference: ``[table|row|column]``, or ``[table|row|column|paper]``."""

Cell = tuple[str, str, str, str]
"""Table, row, column and ``"paper"`` (the printed number whatever the side) or ``""``."""

BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
COMPARE: dict[type, Callable[[float, float], bool]] = {
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
}
CALLS: dict[str, Callable[..., float]] = {"max": max, "min": min, "abs": abs}


@dataclass(frozen=True)
class Claim:
    """One checkable claim of a paper."""

    id: str
    quote: str
    where: str
    test: str

    @cached_property
    def tree(self) -> ast.Expression:
        """The test, parsed and checked once (:func:`parse_test`)."""
        return parse_test(self.test, self.id)

    def cells(self) -> list[Cell]:
        """The cells the test reads, in order of first use."""
        return list(dict.fromkeys(_cell(m) for m in CELL.finditer(self.test)))


def _cell(match: re.Match[str]) -> Cell:
    table, row, column, side = match.groups()
    return table, row, column, side or ""


def parse_test(test: str, where: str) -> ast.Expression:
    """The test with its cells as names ``_0``, ``_1``, … (in :meth:`Claim.cells`' order),
    parsed and checked to use only what the module docstring allows."""
    names: dict[Cell, str] = {}

    def name(match: re.Match[str]) -> str:
        return names.setdefault(_cell(match), f"_{len(names)}")

    try:
        tree = ast.parse(CELL.sub(name, test), mode="eval")
    except SyntaxError as exc:
        raise ConfigError(f"{where}: test {test!r} is not an expression ({exc.msg})") from exc
    for node in ast.walk(tree):
        allowed = (
            ast.Expression, ast.BoolOp, ast.And, ast.Or, ast.BinOp, ast.UnaryOp, ast.USub,
            ast.Compare, ast.Constant, ast.Name, ast.Call, ast.Load,
            *BINARY, *COMPARE,
        )  # fmt: skip
        if not isinstance(node, allowed):
            raise ConfigError(f"{where}: test {test!r} uses {type(node).__name__}")
        cell = isinstance(node, ast.Name) and re.fullmatch(r"_\d+", node.id)
        if isinstance(node, ast.Name) and not cell and node.id not in CALLS:
            raise ConfigError(f"{where}: test {test!r}: {node.id!r} is not a cell [t|r|c]")
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) not in CALLS:
            raise ConfigError(f"{where}: test {test!r} calls other than {sorted(CALLS)}")
        if isinstance(node, ast.Constant) and not isinstance(node.value, int | float):
            raise ConfigError(f"{where}: test {test!r} has a constant {node.value!r}")
    return tree


def _evaluate(node: ast.AST, values: list[float]) -> Any:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body, values)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[int(node.id[1:])]
    if isinstance(node, ast.UnaryOp):
        return -_evaluate(node.operand, values)
    if isinstance(node, ast.BinOp):
        return BINARY[type(node.op)](_evaluate(node.left, values), _evaluate(node.right, values))
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return CALLS[node.func.id](*(_evaluate(a, values) for a in node.args))
    if isinstance(node, ast.BoolOp):
        results = [bool(_evaluate(v, values)) for v in node.values]
        return all(results) if isinstance(node.op, ast.And) else any(results)
    assert isinstance(node, ast.Compare)
    left = _evaluate(node.left, values)
    for op, comparator in zip(node.ops, node.comparators, strict=True):
        right = _evaluate(comparator, values)
        if not COMPARE[type(op)](left, right):
            return False
        left = right
    return True


def verdict(
    claim: Claim, values: Mapping[Cell, float | None], printed: Mapping[Cell, float | None]
) -> tuple[str, str]:
    """``("yes" | "no" | "not computable", why)`` of ``claim`` on cell ``values`` (keyed with
    side ``""``; a ``paper`` cell is read from ``printed``)."""
    cells = claim.cells()
    values = {c: (printed if c[3] else values).get((*c[:3], "")) for c in cells}
    missing = [c for c in cells if values.get(c) is None]
    if missing:
        return "not computable", "no number in " + ", ".join(cell_name(c) for c in missing)
    numbers = [float(values[c]) for c in cells]  # type: ignore[arg-type]
    holds = _evaluate(claim.tree, numbers)
    shown = ", ".join(f"{cell_name(c)} = {_number(v)}" for c, v in zip(cells, numbers, strict=True))
    return ("yes" if holds else "no"), shown


def cell_name(cell: Cell) -> str:
    return f"[{'|'.join(part for part in cell if part)}]"


def _number(value: float) -> str:
    return f"{value:g}"


def read_claims(path: Path) -> list[Claim]:
    """The claims of a ``findings.yaml``, their tests checked; errors name the file and key."""
    try:
        doc = safe_load(Path(path).read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not YAML ({exc})") from exc
    entries = (doc or {}).get("claims")
    if not isinstance(entries, list) or not entries:
        raise ConfigError(f"{path}: expected a non-empty list under 'claims'")
    claims, seen = [], set()
    for index, entry in enumerate(entries):
        where = f"{path}: claims[{index}]"
        keys = {"id", "quote", "where", "test"}
        if not isinstance(entry, dict) or set(entry) != keys:
            raise ConfigError(f"{where}: expected exactly the keys {sorted(keys)}")
        claim = Claim(**{k: str(entry[k]) for k in keys})
        if claim.id in seen:
            raise ConfigError(f"{where}: id {claim.id!r} appears twice")
        if not claim.cells():
            raise ConfigError(f"{where} ({claim.id}): the test reads no cell [table|row|column]")
        try:
            claim.tree  # noqa: B018 (parsed and checked here, once)
        except ConfigError as exc:
            raise ConfigError(f"{path}: {exc}") from exc
        seen.add(claim.id)
        claims.append(claim)
    return claims


def tables_of(claims: Iterable[Claim]) -> list[str]:
    """The tables the claims read, in order of first use."""
    return list(dict.fromkeys(cell[0] for claim in claims for cell in claim.cells()))
