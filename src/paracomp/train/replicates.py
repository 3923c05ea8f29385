"""Seed replicates of a paper's generic runs: ``replicates`` (k, or a list of seeds) at the
run, the paper or the ``training`` level, the first one set in that order; by default none
(one seed, the run as it is).

A run with seeds s₁ … s_k becomes k runs of the generic rules: the run itself where its own
seed is among them, and ``<run>_seed<s>`` for every other seed, each with that ``seed`` and
``tune_as`` the run's tuned run (the grid point is selected once; only the final training
and the evaluation are repeated, so stacked grids serve the replicates unchanged).
``replicates: k`` gives the seeds s₀, s₀ + 1, …, s₀ + k − 1 from the run's seed s₀; a list
gives exactly those seeds. Importing this module imports no torch.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paracomp.errors import ConfigError

SUFFIX = "_seed"
"""A replicate run's name is ``<run>_seed<s>``."""

Setting = int | list[int] | None


def seeds(setting: Setting, own: int) -> list[int]:
    """The seeds of a run whose own seed is ``own`` under ``replicates: setting``."""
    if setting is None:
        return [own]
    if isinstance(setting, int):
        return [own + i for i in range(setting)]
    return list(setting)


def setting_of(*levels: Mapping[str, Any]) -> Setting:
    """The ``replicates`` of the first level (run, paper, training) that sets one."""
    return next((level["replicates"] for level in levels if "replicates" in level), None)


def replicate_name(run: str, seed: int, own: int) -> str:
    """The name of ``run``'s replicate with ``seed`` (the run itself for its own seed)."""
    return run if seed == own else f"{run}{SUFFIX}{seed}"


def split_replicate(name: str) -> tuple[str, int | None]:
    """``<run>_seed<s>`` -> (run, s); any other name -> (name, None)."""
    run, suffix, seed = name.rpartition(SUFFIX)
    return (run, int(seed)) if suffix and seed.isdigit() else (name, None)


def expand(
    runs: Mapping[str, Mapping[str, Any]],
    paper: Mapping[str, Any],
    training: Mapping[str, Any],
    default_seed: int,
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[int, str]]]:
    """``runs`` (a paper's ``runs`` block, its ``replicates`` keys removed) with every
    replicate run added, and each run with more than one seed -> seed -> its replicate run,
    in the order of its seeds. ``paper`` and ``training`` are the blocks whose ``replicates`` apply
    where a run sets none; ``default_seed`` is a run's seed where it sets none. A replicate
    name that is already a run is an error naming both."""
    out: dict[str, dict[str, Any]] = {}
    groups: dict[str, dict[int, str]] = {}
    for run, spec in runs.items():
        own = int(spec.get("seed", default_seed))
        base = {k: v for k, v in spec.items() if k != "replicates"}
        out[run] = base
        chosen = seeds(setting_of(spec, paper, training), own)
        if len(chosen) < 2:
            continue
        names = [replicate_name(run, s, own) for s in chosen]
        for name, seed in zip(names, chosen, strict=True):
            if name == run:
                continue
            if name in runs:
                raise ConfigError(f"runs.{run}: replicate {name!r} is also a configured run")
            out[name] = {**base, "seed": seed, "tune_as": spec.get("tune_as", run)}
        groups[run] = dict(zip(chosen, names, strict=True))
    return out, groups


def own_seed(training: Mapping[str, Any]) -> int:
    """A run's seed where it sets none: ``training.defaults``' else the run schema's."""
    from paracomp.run_config import schema

    return int(training.get("defaults", {}).get("seed", schema()["properties"]["seed"]["default"]))


def expand_blocks(
    blocks: Mapping[str, dict[str, Any]], training: Mapping[str, Any]
) -> dict[str, dict[str, dict[int, str]]]:
    """Every paper block's ``runs`` expanded in place (:func:`expand`, ``training`` the
    workflow's ``training`` block); paper -> run -> seed -> its replicate run."""
    default_seed = own_seed(training)
    groups: dict[str, dict[str, dict[int, str]]] = {}
    for paper, block in blocks.items():
        if "runs" in block:
            block["runs"], groups[paper] = expand(block["runs"], block, training, default_seed)
    return groups
