"""A paper's findings: the claims its text makes, checked on the paper's printed numbers and
on ours.

A paper's ``findings.yaml`` lists claims, each with the sentence it quotes, where it is
(``where``: section or table), and ``test``: a comparison over table cells written
``[table|row|column]`` (the row and column keys of the table's compare file), numbers, ``+ −
× /``, ``max(…)``, ``min(…)``, ``abs(…)``, comparisons (chained too) and ``and`` / ``or``;
``[table|row|column|paper]`` is always the printed number (prior work the paper compares
with, which we do not recompute). A claim is evaluated twice: on the compare files' ``paper``
column (the printed numbers: a claim that fails there is written wrongly) and on their
``ours`` column; a cell without a number makes the verdict ``not computable``, naming the
cells it lacks. Nothing here imports pandas
(the DAG build reads the tables a paper's claims need).

With the tables' bootstrap replicates (:mod:`paracomp.tables.replicates`) a claim is also
evaluated on every joint resample (:func:`probability`): ``p_holds`` is the share of resamples
on which it holds, ``verdict`` ``holds`` (P ≥ 0.95), ``fails`` (P ≤ 0.05) or ``unresolved``,
and ``noise`` says what was resampled: cells on one test set share its resamples (paired),
cells on different sets are resampled independently per set, and a cell without replicates
is held at its value (named).
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from paracomp.errors import ConfigError
from paracomp.tables.margins import COLUMNS as MARGIN_COLUMNS
from paracomp.tables.margins import margin_cell, margin_columns
from paracomp.yamltext import safe_load

CELL = re.compile(r"\[([^\]|]+)\|([^\]|]+)\|([^\]|]+)(?:\|(paper))?\]")
"""A cell reference: ``[table|row|column]``, or ``[table|row|column|paper]``."""

Cell = tuple[str, str, str, str]
"""Table, row, column and ``"paper"`` (the printed number whatever the side) or ``""``."""

_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_COMPARE: dict[type, Callable[[float, float], bool]] = {
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
}
_CALLS: dict[str, Callable[..., float]] = {"max": max, "min": min, "abs": abs}


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
            *_BINARY, *_COMPARE,
        )  # fmt: skip
        if not isinstance(node, allowed):
            raise ConfigError(f"{where}: test {test!r} uses {type(node).__name__}")
        cell = isinstance(node, ast.Name) and re.fullmatch(r"_\d+", node.id)
        if isinstance(node, ast.Name) and not cell and node.id not in _CALLS:
            raise ConfigError(f"{where}: test {test!r}: {node.id!r} is not a cell [t|r|c]")
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) not in _CALLS:
            raise ConfigError(f"{where}: test {test!r} calls other than {sorted(_CALLS)}")
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
        return _BINARY[type(node.op)](_evaluate(node.left, values), _evaluate(node.right, values))
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        return _CALLS[node.func.id](*(_evaluate(a, values) for a in node.args))
    if isinstance(node, ast.BoolOp):
        results = [bool(_evaluate(v, values)) for v in node.values]
        return all(results) if isinstance(node.op, ast.And) else any(results)
    assert isinstance(node, ast.Compare)
    left = _evaluate(node.left, values)
    for op, comparator in zip(node.ops, node.comparators, strict=True):
        right = _evaluate(comparator, values)
        if not _COMPARE[type(op)](left, right):
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
        return "not computable", "no number in " + ", ".join(_name(c) for c in missing)
    numbers = [float(values[c]) for c in cells]  # type: ignore[arg-type]
    holds = _evaluate(claim.tree, numbers)
    shown = ", ".join(f"{_name(c)} = {_number(v)}" for c, v in zip(cells, numbers, strict=True))
    return ("yes" if holds else "no"), shown


def _name(cell: Cell) -> str:
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


def cell_value(text: str | None) -> float | None:
    """A compare file's ``ours`` or ``paper`` field as a number (None: empty or not a
    number)."""
    if text is None or text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return None if math.isnan(value) else value


def compare_values(compare: Mapping[str, Path]) -> dict[str, dict[Cell, float | None]]:
    """Each compare file's cells as ``{"ours": {cell: value}, "paper": {…}}``."""
    from paracomp.tables.compare_file import read_compare

    found: dict[str, dict[Cell, float | None]] = {"ours": {}, "paper": {}}
    for table, path in compare.items():
        for row in read_compare(path):
            cell = (table, row["row"], row["column"], "")
            for side in found:
                found[side][cell] = cell_value(row.get(side))
    return found


def findings(
    claims: Iterable[Claim],
    compare: Mapping[str, Path],
    replicates: Mapping[str, Path] | None = None,
) -> list[dict[str, str]]:
    """One row per claim: its quote and test, the verdict on the printed numbers (``paper``)
    and on ours (``holds``), and why (the values, or the cells without a number); with the
    tables' ``replicates`` files, its probability columns (:func:`probability_columns`) and its
    printed margin against our noise (:mod:`paracomp.tables.margins`)."""
    values = compare_values(compare)
    boot = read_cell_replicates(replicates or {})
    rows = []
    for claim in claims:
        paper, paper_why = verdict(claim, values["paper"], values["paper"])
        ours, why = verdict(claim, values["ours"], values["paper"])
        rows.append(
            {
                "claim": claim.id,
                "where": claim.where,
                "quote": claim.quote,
                "test": claim.test,
                "paper": paper,
                "holds": ours,
                **probability_columns(claim, values, boot),
                **margin_columns(claim.tree, claim.cells(), values, boot, _evaluate_replicates),
                "why": why,
                "paper_values": paper_why,
            }
        )
    return rows


COLUMNS = (
    "claim", "where", "quote", "test", "paper", "holds", "p_holds", "verdict", "noise", "why",
    "paper_values", *MARGIN_COLUMNS,
)  # fmt: skip
VERDICTS = ("holds", "fails", "unresolved", "no interval", "not computable")
HOLDS_AT = 0.95
FAILS_AT = 0.05


@dataclass(frozen=True)
class CellReplicates:
    """A cell's bootstrap replicates and the test sets they resample."""

    values: Any  # np.ndarray (B,)
    sets: tuple[str, ...]


def read_cell_replicates(files: Mapping[str, Path]) -> dict[Cell, CellReplicates]:
    """Every cell's replicates from the tables' replicates files (``table -> path``); files
    drawn with different resamples or seeds are refused, naming them."""
    from paracomp.errors import DataError
    from paracomp.tables.replicates import read_replicates

    found: dict[Cell, CellReplicates] = {}
    drawn: dict[tuple[int, int], str] = {}
    for table, path in files.items():
        reps = read_replicates(Path(path))
        drawn.setdefault((reps.resamples, reps.seed), str(path))
        if len(drawn) > 1:
            raise DataError(f"{path}: resamples or seed differ from {next(iter(drawn.values()))}")
        for key, values in reps.values.items():
            row, column = key.split("|", 1)
            found[table, row, column, ""] = CellReplicates(values, tuple(reps.sets[key]))
    return found


def probability(
    claim: Claim, values: Mapping[Cell, float], boot: Mapping[Cell, CellReplicates]
) -> tuple[float, str]:
    """The share of joint resamples on which ``claim`` holds, and what was resampled.

    ``values`` has a number for every cell the claim reads; a cell in ``boot`` takes its
    replicates (resample b of every cell the same draw of each test set), the others their
    value. Resamples where some cell is NaN are left out. NaN when no cell has replicates.
    """
    import numpy as np

    cells = claim.cells()
    resampled = [c for c in cells if not c[3] and c in boot]
    if not resampled:
        return float("nan"), "no cell has bootstrap replicates"
    numbers = [boot[c].values if c in resampled else values[c] for c in cells]
    finite = np.logical_and.reduce([np.isfinite(boot[c].values) for c in resampled])
    held = np.broadcast_to(_evaluate_replicates(claim.tree, numbers), finite.shape)
    p = float(held[finite].mean()) if finite.any() else float("nan")
    return p, _noise(cells, resampled, boot, int(finite.sum()))


def _noise(
    cells: list[Cell], resampled: list[Cell], boot: Mapping[Cell, CellReplicates], used: int
) -> str:
    """What was resampled: the cells grouped by the test sets they read (datasets named)."""
    groups: dict[tuple[str, ...], list[Cell]] = {}
    for cell in resampled:
        groups.setdefault(boot[cell].sets, []).append(cell)

    def datasets(sets: tuple[str, ...]) -> str:
        return ", ".join(dict.fromkeys(s.split("/")[0] for s in sets))

    if len(groups) == 1:
        how = f"test pairs, paired: every cell on {datasets(next(iter(groups)))}"
    else:
        each = "; ".join(f"{len(g)} on {datasets(sets)}" for sets, g in groups.items())
        how = (
            "test pairs; cells on different test sets, resampled independently per set and "
            f"paired on the sets they share ({each})"
        )
    fixed = [c for c in cells if not c[3] and c not in resampled]
    if fixed:
        how += f"; held at their values (no replicates): {', '.join(_name(c) for c in fixed)}"
    return f"{how}; {used} resamples"


def three_way(p: float) -> str:
    """``holds`` (P ≥ 0.95), ``fails`` (P ≤ 0.05), ``unresolved`` otherwise; ``no interval``
    for NaN."""
    if math.isnan(p):
        return "no interval"
    return "holds" if p >= HOLDS_AT else "fails" if p <= FAILS_AT else "unresolved"


def probability_columns(
    claim: Claim, values: Mapping[str, Mapping[Cell, float | None]], boot: Mapping[Cell, Any]
) -> dict[str, str]:
    """``p_holds``, ``verdict`` and ``noise`` of ``claim`` (``not computable`` where a cell
    has no number, as on the point values)."""
    cells = claim.cells()
    numbers = {c: (values["paper"] if c[3] else values["ours"]).get((*c[:3], "")) for c in cells}
    if any(v is None for v in numbers.values()):
        return {"p_holds": "", "verdict": "not computable", "noise": ""}
    p, noise = probability(claim, numbers, boot)  # type: ignore[arg-type]
    return {"p_holds": "" if math.isnan(p) else f"{p:.3f}", "verdict": three_way(p), "noise": noise}


def _evaluate_replicates(node: ast.AST, values: list[Any]) -> Any:
    """:func:`_evaluate` on arrays: every cell a number or a ``(B,)`` array, the result a
    boolean array (or a bool when no cell is an array)."""
    import numpy as np

    if isinstance(node, ast.Expression):
        return _evaluate_replicates(node.body, values)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[int(node.id[1:])]
    if isinstance(node, ast.UnaryOp):
        return -_evaluate_replicates(node.operand, values)
    if isinstance(node, ast.BinOp):
        left, right = (_evaluate_replicates(n, values) for n in (node.left, node.right))
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        args = [_evaluate_replicates(a, values) for a in node.args]
        if node.func.id == "abs":
            return np.abs(args[0])
        reduce = np.maximum if node.func.id == "max" else np.minimum
        return reduce.reduce(np.broadcast_arrays(*args)) if len(args) > 1 else args[0]
    if isinstance(node, ast.BoolOp):
        parts = [np.asarray(_evaluate_replicates(v, values), bool) for v in node.values]
        return (np.logical_and if isinstance(node.op, ast.And) else np.logical_or).reduce(parts)
    assert isinstance(node, ast.Compare)
    left, held = _evaluate_replicates(node.left, values), np.asarray(True)
    for op, comparator in zip(node.ops, node.comparators, strict=True):
        right = _evaluate_replicates(comparator, values)
        held = held & _COMPARE[type(op)](left, right)
        left = right
    return held


def write_findings(rows: list[dict[str, str]], csv_path: Path, markdown: Path, title: str) -> None:
    """``findings.csv`` and its markdown rendering, atomically."""
    import csv

    from paracomp.atomic import atomic_path

    with atomic_path(csv_path) as tmp, open(tmp, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    counts = {v: sum(r["holds"] == v for r in rows) for v in ("yes", "no", "not computable")}
    verdicts = {v: sum(r["verdict"] == v for r in rows) for v in VERDICTS}
    lines = [
        f"# {title}: findings",
        "",
        f"{len(rows)} claims: {counts['yes']} hold on our run, {counts['no']} do not,"
        f" {counts['not computable']} not computable.",
        "",
        "On the test-set bootstrap (P(holds) over the joint resamples): "
        + ", ".join(f"{n} {v}" for v, n in verdicts.items() if n)
        + f" (holds: P ≥ {HOLDS_AT}, fails: P ≤ {FAILS_AT}).",
        "",
        "| claim | where | quote | on the paper's numbers | on ours | P(holds) | verdict | why "
        "| printed margin resolvable by our noise |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        cells = [r["claim"], r["where"], r["quote"], r["paper"], r["holds"], r["p_holds"]]
        cells += [r["verdict"], r["why"] + (f" ({r['noise']})" if r["noise"] else "")]
        cells.append(margin_cell(r))
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    with atomic_path(markdown) as tmp:
        Path(tmp).write_text("\n".join(lines) + "\n", encoding="utf-8")
