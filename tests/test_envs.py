"""The conda environment of the rules (envs/paracomp.yaml) agrees with pyproject.toml and
holds what the code imports.

Every package it installs must be declared in pyproject.toml (``dependencies`` or an extra),
under its PyPI name, with a version range that can be satisfied together with the declared one
and that does not admit versions older than the declared lower bound; every dependency of the
package but snakemake is in it; every third-party module that src/paracomp imports is provided
by one of its packages; it installs the paracomp package itself with its post-deploy script.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

REPO = Path(__file__).resolve().parents[1]
ENVS = sorted((REPO / "envs").glob("*.yaml"))
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())

# conda-forge names whose PyPI name differs
CONDA_TO_PYPI = {"pytorch": "torch", "matplotlib-base": "matplotlib", "py-opencv": "opencv-python"}
# conda packages that are not Python distributions (interpreter, installer, toolchains)
NOT_PYTHON = {"python", "pip", "c-compiler", "cxx-compiler", "compilers", "make"}


def declared() -> dict[str, SpecifierSet]:
    """PyPI name → specifier, over ``dependencies`` and every optional extra."""
    project = PYPROJECT["project"]
    reqs = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        reqs += extra
    out: dict[str, SpecifierSet] = {}
    for raw in reqs:
        req = Requirement(raw)
        name = canonicalize_name(req.name)
        out[name] = out.get(name, SpecifierSet()) & req.specifier
    return out


def conda_spec(entry: str) -> tuple[str, SpecifierSet]:
    """``numpy>=1.26,<3`` / ``python=3.11`` / ``numpy 1.26.*`` → (name, PEP 440 specifier)."""
    m = re.fullmatch(r"\s*([A-Za-z0-9_.\-]+)\s*(.*?)\s*", entry)
    assert m, f"cannot parse conda spec {entry!r}"
    name, spec = m.groups()
    assert "|" not in spec and " " not in spec.strip(), f"unsupported conda spec {entry!r}"
    parts = []
    for part in filter(None, spec.split(",")):
        if re.match(r"^=[^=]", part):  # conda's fuzzy '=3.11' means 3.11.*
            part = "==" + part[1:] + ("" if part.endswith("*") else ".*")
        elif re.match(r"^[0-9]", part):  # bare version
            part = "==" + part
        parts.append(part)
    return name, SpecifierSet(",".join(parts))


def env_packages(path: Path) -> dict[str, tuple[str, SpecifierSet]]:
    """PyPI name → (how the env file writes it, specifier) for one environment file."""
    env = yaml.safe_load(path.read_text())
    out: dict[str, tuple[str, SpecifierSet]] = {}
    for dep in env["dependencies"]:
        if isinstance(dep, dict):
            for raw in dep.get("pip", []):
                if raw.startswith(("-", ".", "/")) or "://" in raw:
                    continue  # options, paths and URLs
                req = Requirement(raw)
                out[canonicalize_name(req.name)] = (raw, req.specifier)
            continue
        name, spec = conda_spec(dep)
        if name in NOT_PYTHON:
            continue
        out[canonicalize_name(CONDA_TO_PYPI.get(name, name))] = (dep, spec)
    return out


def _version(text: str) -> Version | None:
    try:
        return Version(text.rstrip(".*"))
    except InvalidVersion:
        return None


def lower_bound(spec: SpecifierSet) -> Version | None:
    bounds = [_version(s.version) for s in spec if s.operator in (">=", ">", "==", "~=", "===")]
    bounds = [b for b in bounds if b is not None]
    return max(bounds) if bounds else None


def satisfiable_together(a: SpecifierSet, b: SpecifierSet) -> bool:
    """Some release satisfies both (checked on the versions the two ranges name, and their
    neighbours)."""
    both = a & b
    candidates = set()
    for s in both:
        v = _version(s.version)
        if v is None:
            continue
        rel = list(v.release)
        candidates.add(v)
        for i in range(len(rel)):
            bumped = rel[: i + 1]
            bumped[i] += 1
            candidates.add(Version(".".join(map(str, bumped))))
        candidates.add(Version(".".join(map(str, rel)) + ".post1"))
    if not candidates:
        return True  # neither side names a version
    return any(both.contains(c, prereleases=True) for c in candidates)


def test_one_environment():
    assert [p.name for p in ENVS] == ["paracomp.yaml"]


def test_env_holds_every_dependency_but_snakemake():
    env = set(env_packages(ENVS[0]))
    needed = {canonicalize_name(Requirement(r).name) for r in PYPROJECT["project"]["dependencies"]}
    assert sorted(needed - env - {"snakemake"}) == []


def imported_modules() -> set[str]:
    """Top-level modules that src/paracomp imports (absolute imports), but for the docs
    site's generator (paracomp.reference: it loads the workflow where Snakemake runs, never
    inside a rule's environment)."""
    found = set()
    for path in (REPO / "src" / "paracomp").rglob("*.py"):
        if "reference" in path.relative_to(REPO / "src" / "paracomp").parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"paracomp", "__future__"}


def test_env_holds_every_package_the_code_imports():
    distributions = importlib.metadata.packages_distributions()
    env = set(env_packages(ENVS[0]))
    missing = {
        module: distributions.get(module)
        for module in imported_modules()
        if not {canonicalize_name(d) for d in distributions.get(module, [module])} & env
    }
    assert not missing, f"imported by src/paracomp but not in {ENVS[0].name}: {missing}"


@pytest.mark.parametrize("env_file", ENVS, ids=lambda p: p.stem)
def test_env_packages_are_declared_in_pyproject(env_file):
    decl = declared()
    problems = []
    for name, (written, spec) in env_packages(env_file).items():
        if name not in decl:
            problems.append(
                f"{written}: not declared in pyproject.toml; add it to [project] dependencies "
                "or to an extra in [project.optional-dependencies]"
            )
            continue
        ours = decl[name]
        if not satisfiable_together(spec, ours):
            problems.append(f"{written}: no version satisfies both it and pyproject's {ours}")
        low, env_low = lower_bound(ours), lower_bound(spec)
        if low is not None and (env_low is None or env_low < low):
            problems.append(
                f"{written}: admits versions below pyproject's lower bound {low} ({name}{ours})"
            )
    assert not problems, f"{env_file.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("env_file", ENVS, ids=lambda p: p.stem)
def test_env_python_meets_requires_python(env_file):
    env = yaml.safe_load(env_file.read_text())
    pythons = [
        d for d in env["dependencies"] if isinstance(d, str) and conda_spec(d)[0] == "python"
    ]
    assert pythons, f"{env_file.name} does not pin python"
    spec = conda_spec(pythons[0])[1]
    requires = SpecifierSet(PYPROJECT["project"]["requires-python"])
    low = lower_bound(spec)
    assert low is not None and requires.contains(low), (pythons[0], str(requires))


@pytest.mark.parametrize("env_file", ENVS, ids=lambda p: p.stem)
def test_env_installs_paracomp_after_deployment(env_file):
    script = env_file.with_suffix(".post-deploy.sh")
    assert script.is_file(), f"{script.name} missing: the rules call the paracomp command"
    text = script.read_text()
    assert re.search(r"pip install .*--no-deps", text), text


def test_rules_use_existing_envs():
    used = set()
    for smk in (REPO / "rules").rglob("*.smk"):
        used |= set(re.findall(r"conda:\s*\n\s*\"(?:\.\./)+envs/([^\"]+)\"", smk.read_text()))
    assert used, "no conda: directives found in rules/*.smk"
    missing = sorted(u for u in used if not (REPO / "envs" / u).is_file())
    assert not missing, missing


def test_conda_spec_parsing():
    assert conda_spec("python=3.11") == ("python", SpecifierSet("==3.11.*"))
    assert conda_spec("numpy>=1.26,<3") == ("numpy", SpecifierSet(">=1.26,<3"))
    assert conda_spec("numpy 1.26.*")[1] == SpecifierSet("==1.26.*")
    assert conda_spec("pip") == ("pip", SpecifierSet())
    assert satisfiable_together(SpecifierSet(">=1.26"), SpecifierSet(">=1.20"))
    assert not satisfiable_together(SpecifierSet("<1.20"), SpecifierSet(">=1.26"))
    assert satisfiable_together(SpecifierSet("==2.0.0"), SpecifierSet(">=2"))
