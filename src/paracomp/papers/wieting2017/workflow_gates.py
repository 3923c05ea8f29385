"""The inputs and params of wieting2017's gate analysis (Tables 9-11; rules/papers/wieting2017.smk):
World English Bible sentences tagged and parsed by spaCy, and the gate L1 norms of the GRAN
transfer run that ``gates.run`` names. Imports no torch.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from paracomp.papers.wieting2017.workflow import RESOURCES, Inputs


@dataclass(frozen=True)
class Gates:
    """The gate analysis of ``transfer``'s config block (``gates``)."""

    transfer: Inputs

    def block(self) -> Mapping[str, Any]:
        return self.transfer.block["gates"]

    def parse_params(self, wildcards=None) -> str:
        g = self.block()
        return json.dumps({k: g[k] for k in ("sentences", "max_tokens", "max_words", "seed")})

    def inputs(self, wildcards=None) -> dict[str, Any]:
        run = self.block()["run"]
        if run not in self.transfer.runs():
            raise ValueError(
                f"papers.wieting2017.gates.run: run {run} is not configured (transfer)"
            )
        return {
            "parsed": f"{RESOURCES}/gates/parsed.parquet",
            "points": self.transfer.point_records(run),
        }

    def args(self, wildcards=None) -> str:
        run = self.block()["run"]
        return " ".join(f"{run}={d}" for d in self.transfer.point_folders(run))

    def setting(self, wildcards=None) -> str:
        g = dict(self.block())
        g["corpus"] = (
            "the World English Bible (Debian sword-text-web, the cased English side of the "
            "KJV-WEB pairs), verses split into spaCy's sentences"
        )
        return json.dumps({"gates": g, "note": self.transfer.block.get("note", "")})
