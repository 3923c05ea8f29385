"""YAML documents read with libyaml's parser where PyYAML was built with it (several times
faster than the pure-Python one: the data catalogue takes 0.6 s with that, which every
``paracomp`` command and DAG build that reads it paid)."""

from __future__ import annotations

from typing import Any

import yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""The safe loader, libyaml's where present (the same Python constructors and resolver)."""


def safe_load(text: str) -> Any:
    """``yaml.safe_load(text)``, with :data:`LOADER`."""
    return yaml.load(text, Loader=LOADER)
