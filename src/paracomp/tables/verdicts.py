"""A claim on the tables' bootstrap replicates (:mod:`paracomp.tables.replicates`): evaluated
on every joint resample (:func:`probability`), ``p_holds`` is the share of resamples on which
it holds, ``verdict`` ``holds`` (P ≥ 0.95), ``fails`` (P ≤ 0.05) or ``unresolved``, and
``noise`` says what was resampled: cells on one test set share its resamples (paired), cells
on different sets are resampled independently per set, and a cell without replicates is held
at its value (named). Where some cell is a mean over seed replicates
(:mod:`paracomp.tables.seeds`), its resamples also draw a seed, and ``noise`` says which
source dominates (:func:`dominant_noise`) and names any seed left out as collapsed.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paracomp.tables.claims import BINARY, COMPARE, Cell, Claim, cell_name

VERDICTS = ("holds", "fails", "unresolved", "no interval", "not computable")
HOLDS_AT = 0.95
FAILS_AT = 0.05


@dataclass(frozen=True)
class CellReplicates:
    """A cell's bootstrap replicates and the test sets they resample; of a cell over seed
    replicates, its seeds' values and one seed's test-pair replicates."""

    values: Any  # np.ndarray (B,)
    sets: tuple[str, ...]
    seeds: Any = None  # np.ndarray (k,)
    test: Any = None  # np.ndarray (B,)


def read_cell_replicates(files: Mapping[str, Path]) -> dict[Cell, CellReplicates]:
    """Every cell's replicates from the tables' replicates files (``table -> path``); files
    drawn with different resamples or seeds are refused, naming them."""
    import numpy as np

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
            seeds = reps.seeds.get(key)
            found[table, row, column, ""] = CellReplicates(
                values, tuple(reps.sets[key]), seeds and np.asarray(seeds), reps.test.get(key)
            )
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
    held = np.broadcast_to(evaluate_replicates(claim.tree, numbers), finite.shape)
    p = float(held[finite].mean()) if finite.any() else float("nan")
    noise = _noise(cells, resampled, boot, int(finite.sum()))
    dominant = dominant_noise(claim, values, boot)
    return p, f"{noise}; {dominant}" if dominant else noise


def dominant_noise(
    claim: Claim, values: Mapping[Cell, float], boot: Mapping[Cell, CellReplicates]
) -> str:
    """Which noise dominates the claim's margin (:func:`margin`: how far it is from flipping)
    where some cell is a mean over seeds: ``seeds`` when its variance across the seeds (each
    cell at one seed's value, seed i of every run together, the others held at their values)
    exceeds its variance across test resamples (each cell at one seed's test-pair
    replicates), else ``test pairs``; "" without seeds."""

    cells = claim.cells()
    seeded = [c for c in cells if not c[3] and c in boot and boot[c].seeds is not None]
    if not seeded:
        return ""
    k = min(len(boot[c].seeds) for c in seeded)
    if k < 2:
        return ""
    per_seed = [boot[c].seeds[:k] if c in seeded else values[c] for c in cells]
    per_test = [
        values[c] if c[3] or c not in boot
        else boot[c].test if boot[c].test is not None else boot[c].values
        for c in cells
    ]  # fmt: skip
    seed_var = _variance(margin(claim.tree, per_seed))
    test_var = _variance(margin(claim.tree, per_test))
    which = "seeds" if seed_var > test_var else "test pairs"
    return (
        f"{which} dominate (margin sd over {k} seeds {math.sqrt(seed_var):.3g}, "
        f"over test resamples {math.sqrt(test_var):.3g})"
    )


def _variance(values: Any) -> float:
    import numpy as np

    finite = np.asarray(values, np.float64)
    finite = finite[np.isfinite(finite)]
    return float(np.var(finite, ddof=1)) if len(finite) > 1 else float("nan")


def margin(node: ast.AST, values: list[Any]) -> Any:
    """How far a test is from flipping, on numbers or arrays (cells as in
    :func:`evaluate_replicates`): ``a > b`` (or ``≥``) gives ``a − b``, ``a < b`` ``b − a``,
    a chain its smallest link, ``and`` the smallest part, ``or`` the largest; positive where
    the test holds."""
    import numpy as np

    if isinstance(node, ast.Expression):
        return margin(node.body, values)
    if isinstance(node, ast.BoolOp):
        parts = np.broadcast_arrays(*(margin(v, values) for v in node.values))
        return (np.minimum if isinstance(node.op, ast.And) else np.maximum).reduce(parts)
    if not isinstance(node, ast.Compare):
        return evaluate_replicates(node, values)
    left, links = evaluate_replicates(node.left, values), []
    for op, comparator in zip(node.ops, node.comparators, strict=True):
        right = evaluate_replicates(comparator, values)
        links.append(left - right if isinstance(op, ast.Gt | ast.GtE) else right - left)
        left = right
    return np.minimum.reduce(np.broadcast_arrays(*links))


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
        how += f"; held at their values (no replicates): {', '.join(cell_name(c) for c in fixed)}"
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
    notes = values.get("collapsed", {})
    dropped = [f"{cell_name(c)}: {notes[c]}" for c in cells if notes.get(c)]
    if dropped:
        noise += "; collapsed seeds left out: " + "; ".join(dropped)
    return {"p_holds": "" if math.isnan(p) else f"{p:.3f}", "verdict": three_way(p), "noise": noise}


def evaluate_replicates(node: ast.AST, values: list[Any]) -> Any:
    """:func:`paracomp.tables.claims.verdict`'s evaluation on arrays: every cell a number or a ``(B,)`` array, the result a
    boolean array (or a bool when no cell is an array)."""
    import numpy as np

    if isinstance(node, ast.Expression):
        return evaluate_replicates(node.body, values)
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return values[int(node.id[1:])]
    if isinstance(node, ast.UnaryOp):
        return -evaluate_replicates(node.operand, values)
    if isinstance(node, ast.BinOp):
        left, right = (evaluate_replicates(n, values) for n in (node.left, node.right))
        return BINARY[type(node.op)](left, right)
    if isinstance(node, ast.Call):
        assert isinstance(node.func, ast.Name)
        args = [evaluate_replicates(a, values) for a in node.args]
        if node.func.id == "abs":
            return np.abs(args[0])
        reduce = np.maximum if node.func.id == "max" else np.minimum
        return reduce.reduce(np.broadcast_arrays(*args)) if len(args) > 1 else args[0]
    if isinstance(node, ast.BoolOp):
        parts = [np.asarray(evaluate_replicates(v, values), bool) for v in node.values]
        return (np.logical_and if isinstance(node.op, ast.And) else np.logical_or).reduce(parts)
    assert isinstance(node, ast.Compare)
    left, held = evaluate_replicates(node.left, values), np.asarray(True)
    for op, comparator in zip(node.ops, node.comparators, strict=True):
        right = evaluate_replicates(comparator, values)
        held = held & COMPARE[type(op)](left, right)
        left = right
    return held
