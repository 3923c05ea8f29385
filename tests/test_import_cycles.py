"""No import cycle anywhere in ``src/``: every ``import`` and ``from … import`` of a paracomp
module, at module level or inside a function, read from the source; the modules that import
each other form no loop (strongly connected components of one module each). And no module
imports another's private name (``_x``)."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The paracomp modules ``name`` imports (a ``from M import x`` of a submodule ``x``
    counts as ``M.x``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base)
    return {m for m in found if m in modules and m != name}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_in_src() -> None:
    modules = _modules()
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    assert "paracomp.train.tasks" in graph["paracomp.train.job"]
    assert _cycles(graph) == []


def test_no_module_imports_a_private_name():
    private = []
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("paracomp"):
                private += [
                    f"{name}: {node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                ]
    assert not private, private


FAMILIES = ("pairs", "targets", "similarity")
"""The trainer's families (subpackages of paracomp.train)."""


def test_the_trainers_families_import_only_the_core():
    """train/pairs, train/targets and train/similarity import the shared core, never each
    other; of the core only the dispatch (tasks, job) imports a family."""

    def family(module: str) -> str | None:
        for name in FAMILIES:
            if module == f"paracomp.train.{name}" or module.startswith(f"paracomp.train.{name}."):
                return name
        return "core" if module.startswith("paracomp.train") else None

    modules = _modules()
    crossing = []
    for name, path in modules.items():
        own = family(name)
        if own is None or name in ("paracomp.train.tasks", "paracomp.train.job"):
            continue
        crossing += [
            f"{name} -> {other}"
            for other in _imports(name, path, modules)
            if family(other) not in (None, "core", own)
        ]
    assert not crossing, crossing


def test_papers_configure_the_trainer_not_import_its_families() -> None:
    """A paper configures the trainer's families through run settings (``paracomp train``)
    and never imports their modules (wieting2017's supervised runs are objective
    ``supervised`` of the generic trainer)."""
    modules = _modules()
    families = tuple(f"paracomp.train.{name}" for name in FAMILIES)
    for name, path in modules.items():
        if name.startswith("paracomp.papers."):
            used = {m for m in _imports(name, path, modules) if m.startswith(families)}
            assert not used, f"{name} imports {sorted(used)}"
