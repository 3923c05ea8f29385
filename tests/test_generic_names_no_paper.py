"""A paper is a unit: no generic code names one. Outside src/paracomp/papers/ and
rules/papers/, no Python name, attribute or string (docstrings aside) and no rules code
(comments and docstrings aside) holds a paper's key, so adding a paper touches no generic
code, only the list of papers (paracomp.papers.PAPERS); the catalogue's data and the default
`paper:` of config.yaml name papers as settings."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from paracomp.papers import PAPERS

REPO = Path(__file__).resolve().parents[1]


def _python_names(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    docs = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = "" if id(node) in docs else node.value
        else:
            text = getattr(node, "id", None) or getattr(node, "attr", None) or ""
        found += [f"{path.name}:{node.lineno}: {p}" for p in PAPERS if p in text]
    return found


def _rules_code(path: Path) -> str:
    code = re.sub(r'"""[\s\S]*?"""', "", path.read_text())
    return "\n".join(line.split("#", 1)[0] for line in code.splitlines())


def test_no_generic_code_names_a_paper():
    src = REPO / "src" / "paracomp"
    named = [
        hit
        for path in sorted(src.rglob("*.py"))
        if path.relative_to(src).parts[0] != "papers"
        for hit in _python_names(path)
    ]
    rules = [*sorted((REPO / "rules").glob("*.smk")), REPO / "Snakefile"]
    named += [f"{path.name}: {p}" for path in rules for p in PAPERS if p in _rules_code(path)]
    assert not named, named


def test_the_check_sees_a_paper_in_code(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text('"""wieting2017 in a docstring is fine."""\nRUNS = {"wieting2017": 1}\n')
    assert _python_names(planted) == ["planted.py:2: wieting2017"]
