"""Imports run one way: from a higher layer to a lower one, never back up. The layers are
declared once, here, top first; a module belongs to the group of its longest matching name (a
group names a module or a package). Groups on one layer may import each other (the cycle test
keeps them acyclic); every import of ``src/`` counts, at module level or inside a function."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_CYCLES = Path(__file__).with_name("test_import_cycles.py")
_spec = importlib.util.spec_from_file_location("import_graph", _CYCLES)
graph = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(graph)

LAYERS: tuple[tuple[str, ...], ...] = (
    ("paracomp.cli", "paracomp.reference", "paracomp.workflow"),
    ("paracomp.papers.*",),
    ("paracomp.registry", "paracomp.registration"),
    ("paracomp.encoders",),
    ("paracomp.tables",),
    ("paracomp.train", "paracomp.corpus"),
    ("paracomp.eval", "paracomp.losses", "paracomp.paraphrase", "paracomp.wordnet"),
    ("paracomp.run_folder",),
    ("paracomp.run_config", "paracomp.phrases", "paracomp.data"),
    ("paracomp.models", "paracomp.align"),
    (
        "paracomp",
        "paracomp.arguments",
        "paracomp.artefacts",
        "paracomp.atomic",
        "paracomp.errors",
        "paracomp.papers",
        "paracomp.timing",
        "paracomp.yamltext",
    ),
)
"""Top first: the command line and the docs' reference generated from it, and what the
Snakemake rules compute their inputs from (``paracomp.workflow``); the papers (each ``paracomp.papers.<paper>``); the registry of
their data files and their registrations with the generic rules; the encoders of trained
models (``paracomp.load_encoder``, ``paracomp encode``); the tables; the trainer and the corpus chain; evaluation and the stages below
them; a run's folder and settings, which training writes and evaluation reads; the models; the
core (errors, artefacts, the list of papers)."""


def layer(module: str, layers: tuple[tuple[str, ...], ...] = LAYERS) -> int:
    """The index of ``module``'s layer (0 is the top), by its longest matching group."""
    best, found = -1, None
    for index, groups in enumerate(layers):
        for group in groups:
            if group.endswith(".*"):
                prefix = group[:-1]
                length = len(prefix) if module.startswith(prefix) else -1
            else:
                matches = module == group or module.startswith(f"{group}.")
                length = len(group) if matches else -1
            if length > best:
                best, found = length, index
    if found is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return found


def upward(edges: dict[str, set[str]], layers: tuple[tuple[str, ...], ...] = LAYERS) -> list[str]:
    """Every import from a lower layer to a higher one, as ``importer -> imported``."""
    return sorted(
        f"{name} -> {other}"
        for name, imported in edges.items()
        for other in imported
        if layer(other, layers) < layer(name, layers)
    )


def test_every_module_has_a_layer() -> None:
    for name in graph._modules():
        layer(name)


def test_no_import_runs_up() -> None:
    modules = graph._modules()
    edges = {name: graph._imports(name, path, modules) for name, path in modules.items()}
    assert upward(edges) == []


def test_the_check_sees_an_arrow_running_up() -> None:
    layers = (("a.top",), ("a.mid", "a.side"), ("a",))
    edges = {"a.mid.x": {"a.top.y", "a.side", "a"}, "a": {"a.mid"}, "a.top.y": {"a.mid.x"}}
    assert upward(edges, layers) == ["a -> a.mid", "a.mid.x -> a.top.y"]


def test_a_paper_package_is_above_the_list_of_papers() -> None:
    assert layer("paracomp.papers.somepaper.tables") == 1
    assert layer("paracomp.papers") == len(LAYERS) - 1
