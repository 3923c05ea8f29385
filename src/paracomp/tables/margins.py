"""Printed margins against our noise: could a test set of our size resolve the margin by which
the paper's printed numbers make a claim hold (or fail)?

A claim's test (:mod:`paracomp.tables.claims`) compares expressions of cells. Each **link**
of a comparison (``a > b``; a chain ``a > b > c`` has two) has a *printed margin*, ``left −
right`` on the paper's numbers for ``>``/``>=`` and ``right − left`` for ``<``/``<=``
(positive where the printed numbers satisfy the link), and a *noise*: the standard deviation of
the same difference over our joint bootstrap replicates (each cell of ours its replicates, so
cells on a shared test set are paired and cells on different sets independent; a printed
``[t|r|c|paper]`` cell and a number are constants). A link reading no cell of ours has no noise
of ours and is left out. The link that decides the claim is the one of smallest margin / sd
(``and`` and chains need every link, so the least resolved; ``or`` needs one, so the best
resolved), and ``margin_resolvable`` is ``yes`` where its |printed margin| > 1.96 sd.

The noise is at **our** test sets' sizes, not scaled by √(n_ours / n_paper): the compare files
do not carry the paper's number of pairs. With the mirror's published test sets that is the
paper's size; where our sets are smaller (the embedded default's subsets), our noise is larger
than the paper's, so a ``yes`` holds at the paper's sizes too and a ``no`` may be a ``yes``
there.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

Z = 1.96
"""A margin is resolvable where it exceeds ``Z`` standard deviations of our noise."""
COLUMNS = ("printed_margin", "noise_sd", "margin_resolvable", "margin_why")

CellKey = tuple[str, str, str, str]
"""Table, row, column, ``"paper"`` or ``""`` (as :data:`paracomp.tables.claims.Cell`)."""
Evaluate = Callable[[ast.AST, list[Any]], Any]
"""Evaluates a test's node on each cell's number or ``(B,)`` replicates."""


@dataclass(frozen=True)
class Link:
    """One comparison link: its difference as text, its printed margin and our noise's sd."""

    text: str
    margin: float
    sd: float

    @property
    def z(self) -> float:
        """The margin in standard deviations of our noise (±inf where the noise is 0)."""
        if self.sd > 0:
            return self.margin / self.sd
        return math.copysign(math.inf, self.margin) if self.margin else 0.0


def margin_columns(
    tree: ast.Expression,
    cells: list[CellKey],
    values: Mapping[str, Mapping[CellKey, float | None]],
    boot: Mapping[CellKey, Any],
    evaluate: Evaluate,
) -> dict[str, str]:
    """The claim's :data:`COLUMNS`: ``cells`` in the order of ``tree``'s names ``_0, _1, …``,
    ``values["paper"]`` the printed numbers (keyed with side ``""``), ``boot`` each cell of
    ours' replicates (``.values``, ``(B,)``); empty with the reason in ``margin_why`` where a
    cell has no printed number or a cell of ours no number or no replicates."""
    printed = [values["paper"].get((*c[:3], "")) for c in cells]
    lacking = [c for c, v in zip(cells, printed, strict=True) if v is None]
    if lacking:
        return _empty("no printed number in " + ", ".join(map(_name, lacking)))
    unsampled = [c for c in cells if not c[3] and c not in boot]
    if unsampled:
        empty = [c for c in unsampled if values["ours"].get(c) is None]
        held = [c for c in unsampled if c not in empty]
        why = ["no number of ours in " + ", ".join(map(_name, empty))] if empty else []
        why += ["no replicates for " + ", ".join(map(_name, held))] if held else []
        return _empty("; ".join(why))
    import numpy as np

    ours = {i for i, c in enumerate(cells) if not c[3]}
    if not ours:
        return _empty("reads no cell of ours (printed numbers only)")
    replicated = [printed[i] if c[3] else boot[c].values for i, c in enumerate(cells)]
    finite = np.logical_and.reduce([np.isfinite(replicated[i]) for i in ours])
    if finite.sum() < 2:
        return _empty("fewer than 2 resamples where every cell of ours is defined")

    def link(low: ast.expr, high: ast.expr) -> Link | None:
        reads = {int(n.id[1:]) for side in (low, high) for n in ast.walk(side) if _is_cell(n)}
        if not reads & ours:
            return None
        margin = float(evaluate(high, printed) - evaluate(low, printed))
        noise = np.broadcast_to(
            evaluate(high, replicated) - evaluate(low, replicated), finite.shape
        )
        text = ast.unparse(ast.BinOp(high, ast.Sub(), low))
        text = re.sub(r"\b_(\d+)\b", lambda m: _name(cells[int(m.group(1))]), text)
        return Link(text, margin, float(np.std(noise[finite], ddof=1)))

    found = _decide(tree.body, link)
    if isinstance(found, str):
        return _empty(found)
    deciding, count = found
    of = f"deciding of {count} comparisons: " if count > 1 else ""
    return {
        "printed_margin": f"{deciding.margin:.4g}",
        "noise_sd": f"{deciding.sd:.3g}",
        "margin_resolvable": "yes" if abs(deciding.margin) > Z * deciding.sd else "no",
        "margin_why": f"{of}{deciding.text}; sd over {int(finite.sum())} resamples at our"
        " test sets' sizes",
    }


def _decide(
    node: ast.expr, link: Callable[[ast.expr, ast.expr], Link | None]
) -> tuple[Link, int] | str:
    """The link that decides ``node`` and how many links with noise it has, or why none."""
    if isinstance(node, ast.Compare):
        links, left = [], node.left
        for op, right in zip(node.ops, node.comparators, strict=True):
            low, high = (right, left) if isinstance(op, ast.Gt | ast.GtE) else (left, right)
            links.append(link(low, high))
            left = right
        kept = [found for found in links if found is not None]
        if not kept:
            return "no comparison reads a cell of ours"
        return min(kept, key=lambda found: found.z), len(kept)
    if isinstance(node, ast.BoolOp):
        parts = [_decide(value, link) for value in node.values]
        kept = [part for part in parts if not isinstance(part, str)]
        if not kept:
            return "no comparison reads a cell of ours"
        pick = min if isinstance(node.op, ast.And) else max
        return pick(kept, key=lambda part: part[0].z)[0], sum(part[1] for part in kept)
    return "the test compares nothing"


def _is_cell(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and re.fullmatch(r"_\d+", node.id) is not None


def _name(cell: CellKey) -> str:
    return f"[{'|'.join(part for part in cell if part)}]"


def _empty(why: str) -> dict[str, str]:
    return {"printed_margin": "", "noise_sd": "", "margin_resolvable": "", "margin_why": why}


def margin_cell(row: Mapping[str, str]) -> str:
    """The findings markdown's cell: ``yes (4.1 vs sd 0.52)``, or ``—`` and the reason (a list
    of cells as their number: the CSV names them)."""
    if not row["margin_resolvable"]:
        why = re.sub(
            r"\[[^\]]*\](?:, \[[^\]]*\])+", lambda m: f"{m[0].count('[')} cells", row["margin_why"]
        )
        return f"— ({why})"
    return f"{row['margin_resolvable']} ({row['printed_margin']} vs sd {row['noise_sd']})"
