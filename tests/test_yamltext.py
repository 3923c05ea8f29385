"""YAML read with libyaml's parser gives what PyYAML's pure-Python safe loader gives, for every
YAML file the package reads."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import paracomp
from paracomp.yamltext import LOADER, safe_load

FILES = sorted(Path(paracomp.__file__).parent.rglob("*.yaml"))


def test_libyaml_is_used_where_present():
    assert LOADER is getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(p.parents[2])))
def test_same_documents_as_the_pure_python_loader(path):
    text = path.read_text(encoding="utf-8")
    assert safe_load(text) == yaml.load(text, Loader=yaml.SafeLoader)
