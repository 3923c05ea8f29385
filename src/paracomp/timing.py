"""Where a command's CPU time goes: start-up, imports of heavy libraries, loading, training
steps, evaluation, bootstrap resampling, writing and the rest, in CPU-seconds of the whole process (all threads).

The ``paracomp`` command prints one line of these at exit (:func:`report`), which the whole-run
benchmark (``benchmarks/bench_whole_run.py``) reads from each rule's log beside Snakemake's
benchmark file. A block inside another is counted to the inner one only.
"""

from __future__ import annotations

import functools
import importlib.machinery
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

PHASES = ("startup", "imports", "load", "steps", "evaluate", "bootstrap", "write", "other")
"""The phases, in the order :func:`report` prints them."""

HEAVY = frozenset(
    {"torch", "numpy", "pandas", "pyarrow", "scipy", "numba", "sklearn", "spacy", "matplotlib"}
)
"""Top-level packages whose import is counted as ``imports`` (the nested imports of one of
them in another count to the outer one)."""

PREFIX = "paracomp cpu-seconds:"
"""What the line of :func:`report` starts with."""

_spent: dict[str, float] = dict.fromkeys(PHASES, 0.0)
_stack: list[str] = []
_since = 0.0


def _switch(name: str | None) -> None:
    """Count the CPU time since the last switch to the phase that was running."""
    global _since
    now = time.process_time()
    _spent[_stack[-1] if _stack else "other"] += now - _since
    _since = now
    if name is not None:
        _stack.append(name)


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Count the block's CPU time to ``name`` (one of :data:`PHASES`)."""
    if name not in _spent:
        raise ValueError(f"unknown phase {name!r}, known: {', '.join(PHASES)}")
    _switch(name)
    try:
        yield
    finally:
        _switch(None)
        _stack.pop()


def timed(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Count every call of the decorated function to phase ``name``."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(function)
        def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with phase(name):
                return function(*args, **kwargs)

        return wrapper

    return decorate


class _TimedLoader:
    """A loader that counts its module's execution (and what it imports) as ``imports``
    (a loader by protocol: ``importlib.abc`` costs 50 ms to import, every command's start-up)."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        if _stack and _stack[-1] == "imports":
            self._loader.exec_module(module)
            return
        with phase("imports"):
            self._loader.exec_module(module)


class _TimedFinder:
    """Wrap the loader of every :data:`HEAVY` top-level package."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if name not in HEAVY:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            spec.loader = _TimedLoader(spec.loader)
        return spec


def start() -> None:
    """Start counting afresh: everything so far (interpreter and the command line's imports)
    is ``startup``; the heavy imports from now on are ``imports``."""
    global _since
    _since = time.process_time()
    _spent.update(dict.fromkeys(PHASES, 0.0), startup=_since)
    _stack.clear()
    if not any(isinstance(f, _TimedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _TimedFinder())


def spent() -> dict[str, float]:
    """CPU-seconds per phase so far."""
    _switch(None)
    return dict(_spent)


def report() -> str:
    """One line: :data:`PREFIX` and ``phase=seconds`` for every phase."""
    return f"{PREFIX} " + " ".join(f"{k}={v:.3f}" for k, v in spent().items())


def parse(line: str) -> dict[str, float] | None:
    """The phases of a :func:`report` line, or None for any other line."""
    if not line.startswith(PREFIX):
        return None
    pairs = (item.split("=", 1) for item in line[len(PREFIX) :].split())
    return {k: float(v) for k, v in pairs if k in _spent}
