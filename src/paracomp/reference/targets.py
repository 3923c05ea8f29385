"""The workflow's targets and rules as Snakemake itself reads them from the ``Snakefile``.

The workflow is loaded (not run) in a child process, so that Snakemake's state and log lines
stay out of the caller and the page does not depend on the caller's ``$PARACOMP_MIRROR``:
``python -m paracomp.reference.targets [CONFIGFILE …]`` prints what :func:`read` returns.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from paracomp.errors import ParacompError


@dataclass(frozen=True)
class Rule:
    """One rule: a named target (no outputs; ``files`` its inputs) or a rule making files
    (``files`` its output patterns)."""

    name: str
    target: bool
    files: tuple[str, ...]


def read(root: Path, configfiles: Sequence[str] = ()) -> list[Rule]:
    """The rules of the workflow in ``root`` with ``configfiles`` (default: its own
    ``configfile:``), read in a child process without a mirror."""
    env = {k: v for k, v in os.environ.items() if k != "PARACOMP_MIRROR"}
    command = [sys.executable, "-m", "paracomp.reference.targets", *configfiles]
    done = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    if done.returncode:
        tail = done.stderr.strip().splitlines()[-1:] or ["no message"]
        raise ParacompError(f"loading {root / 'Snakefile'} failed: {tail[0]}")
    return [Rule(r["name"], r["target"], tuple(r["files"])) for r in json.loads(done.stdout)]


def _load(configfiles: Sequence[str]) -> list[dict[str, object]]:
    """The rules of ``./Snakefile``, loaded in this process (output patterns without their
    wildcard constraints)."""
    from snakemake.api import SnakemakeApi
    from snakemake.io import strip_wildcard_constraints
    from snakemake.settings.types import (
        ConfigSettings,
        OutputSettings,
        ResourceSettings,
        StorageSettings,
    )

    config = ConfigSettings(configfiles=[Path(f) for f in configfiles])
    with SnakemakeApi(OutputSettings()) as api:
        workflow = api.workflow(
            resource_settings=ResourceSettings(),
            config_settings=config,
            storage_settings=StorageSettings(),
            snakefile=Path("Snakefile"),
            workdir=Path.cwd(),
        )._workflow
        return [
            {
                "name": rule.name,
                "target": not rule.output,
                "files": [
                    strip_wildcard_constraints(str(f))
                    for f in (rule.input if not rule.output else rule.output)
                ],
            }
            for rule in workflow.rules
        ]


def markdown(settings: Mapping[str, list[Rule]]) -> str:
    """The named targets (their files under each of ``settings``, a name -> rules mapping),
    then every rule with the files it makes."""
    first = next(iter(settings.values()))
    out = [
        "## Named targets",
        "",
        "`snakemake --cores N <name>` builds every file listed (`all` is the default target).",
        "",
    ]
    for rule in (r for r in first if r.target):
        out += [f"### `{rule.name}`", ""]
        by_files: dict[tuple[str, ...], list[str]] = {}
        for label, rules in settings.items():
            files = next((r.files for r in rules if r.name == rule.name), ())
            by_files.setdefault(files, []).append(label)
        for files, labels in by_files.items():
            out += [" and ".join(labels).capitalize() + ":", ""]
            out += [f"- `{f}`" for f in files] + [""]
    out += ["## Rules and the files they make", "", "| rule | output |", "|---|---|"]
    for rule in (r for r in first if not r.target):
        out.append(f"| `{rule.name}` | " + "<br>".join(f"`{f}`" for f in rule.files) + " |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    json.dump(_load(sys.argv[1:]), sys.stdout)
