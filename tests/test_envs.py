"""The conda environment of the rules (envs/paracomp.yaml) installs what requirements.lock pins,
which is what pyproject.toml declares and what the code imports.

The environment file holds Python, torch (at the version the lock was resolved with, the one
the README's set-up and CI install) and build tools; its post-deploy script installs the lock
with its hashes; every version either names agrees with the lock's (no drift), and the file
carries the lock's digest, so that Snakemake builds a new environment when the lock changes
(``envs/lock.sh`` refreshes both).
"""

from __future__ import annotations

import ast
import hashlib
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
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
ENVS = sorted((REPO / "envs").glob("*.yaml"))
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
LOCK = REPO / "requirements.lock"

# conda-forge names whose PyPI name differs
CONDA_TO_PYPI = {"pytorch": "torch", "matplotlib-base": "matplotlib", "py-opencv": "opencv-python"}
# conda packages that are not Python distributions (interpreter, installer, toolchains)
NOT_PYTHON = {"python", "pip", "c-compiler", "cxx-compiler", "compilers", "make"}


def lock_pins(text: str) -> dict[str, Version]:
    """PyPI name → version of every ``name[extras]==version`` entry of a pip-compile lock that
    carries at least one hash."""
    entries = re.findall(
        r"^([A-Za-z0-9_.-]+)(?:\[[^\]]+\])?==([^ \n]+) \\\n    --hash=sha256:[0-9a-f]{64}",
        text,
        re.M,
    )
    return {canonicalize_name(name): Version(version) for name, version in entries}


PINS = lock_pins(LOCK.read_text())


def torch_version() -> Version:
    """The torch version ``envs/lock.sh`` resolves the lock with."""
    found = re.search(r"^TORCH=([0-9][^\s]*)$", (REPO / "envs" / "lock.sh").read_text(), re.M)
    assert found, "envs/lock.sh sets no TORCH="
    return Version(found.group(1))


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
    """PyPI name → (how the env file writes it, specifier) for the Python packages an
    environment file names (conda packages and its pip section)."""
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
        if name not in NOT_PYTHON:
            out[canonicalize_name(CONDA_TO_PYPI.get(name, name))] = (dep, spec)
    return out


def installs_the_lock(env_file: Path) -> bool:
    """Whether the environment's post-deploy script installs requirements.lock with hashes."""
    script = env_file.with_suffix(".post-deploy.sh")
    text = script.read_text() if script.is_file() else ""
    return bool(re.search(r'pip install .*--require-hashes -r "\$src/requirements.lock"', text))


def test_one_environment():
    assert [p.name for p in ENVS] == ["paracomp.yaml"]


def test_lock_parsing():
    text = (
        "numpy==2.1.3 \\\n    --hash=sha256:"
        + "a" * 64
        + " \\\n    --hash=sha256:"
        + "b" * 64
        + "\n"
        "smart-open[http]==7.1.0 \\\n    --hash=sha256:" + "c" * 64 + "\n"
        "unhashed==1.0\n"
    )
    assert lock_pins(text) == {"numpy": Version("2.1.3"), "smart-open": Version("7.1.0")}
    assert len(PINS) > 100 and PINS["numpy"] >= Version("1.26")


def test_lock_pins_every_declared_dependency_in_its_range():
    project = PYPROJECT["project"]
    declared = [*project["dependencies"], *sum(project["optional-dependencies"].values(), [])]
    problems = []
    for raw in declared:
        req = Requirement(raw)
        name = canonicalize_name(req.name)
        if name == "paracomp":
            continue  # an extra naming another extra
        pinned = torch_version() if name == "torch" else PINS.get(name)
        if pinned is None or not req.specifier.contains(pinned, prereleases=True):
            problems.append(f"{raw}: the lock pins {pinned or 'nothing'}")
    assert not problems, "run `bash envs/lock.sh`:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("env_file", ENVS, ids=lambda p: p.stem)
def test_env_versions_are_the_locks(env_file):
    """Every package the environment file names is pinned to the lock's version (torch: the
    version the lock was resolved with)."""
    expected = {**PINS, "torch": torch_version()}
    problems = []
    for name, (written, spec) in env_packages(env_file).items():
        version = expected.get(name)
        if version is None:
            problems.append(f"{written}: not in requirements.lock (add it to pyproject.toml)")
        elif str(spec) not in (f"=={version}", f"=={version}.*"):
            problems.append(f"{written}: the lock pins {name}=={version}")
    assert not problems, f"{env_file.name}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("env_file", ENVS, ids=lambda p: p.stem)
def test_env_installs_the_lock_then_paracomp(env_file):
    assert installs_the_lock(env_file), f"{env_file.stem}.post-deploy.sh does not install the lock"
    text = env_file.with_suffix(".post-deploy.sh").read_text()
    assert re.search(r"pip install .*--no-deps --editable", text), text


@pytest.mark.parametrize("env_file", ENVS, ids=lambda p: p.stem)
def test_env_carries_the_locks_digest(env_file):
    found = re.search(r"^# requirements.lock sha256: ([0-9a-f]{64})$", env_file.read_text(), re.M)
    assert found, f"{env_file.name}: no '# requirements.lock sha256:' line"
    assert found.group(1) == hashlib.sha256(LOCK.read_bytes()).hexdigest(), (
        f"{env_file.name}: the lock changed since its digest was written; run `bash envs/lock.sh`"
    )


def test_torch_is_the_same_version_for_the_lock_the_setup_and_ci():
    """(and for the environment: test_env_versions_are_the_locks)"""
    version = str(torch_version())
    for path in (REPO / "README.md", REPO / ".ci" / "run"):
        assert set(re.findall(r"pip install (?:-q )?torch==(\S+)", path.read_text())) == {
            version
        }, path.name


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


@pytest.mark.parametrize("env_file", ENVS, ids=lambda p: p.stem)
def test_env_holds_every_package_the_code_imports(env_file):
    distributions = importlib.metadata.packages_distributions()
    env = set(env_packages(env_file)) | (set(PINS) if installs_the_lock(env_file) else set())
    missing = {
        module: distributions.get(module)
        for module in imported_modules()
        if not {canonicalize_name(d) for d in distributions.get(module, [module])} & env
    }
    assert not missing, f"imported by src/paracomp but not in {env_file.name}: {missing}"


@pytest.mark.parametrize("env_file", ENVS, ids=lambda p: p.stem)
def test_env_python_meets_requires_python(env_file):
    env = yaml.safe_load(env_file.read_text())
    pythons = [
        d for d in env["dependencies"] if isinstance(d, str) and conda_spec(d)[0] == "python"
    ]
    assert pythons == ["python=3.11"], f"{env_file.name}: the lock is for Python 3.11"
    requires = SpecifierSet(PYPROJECT["project"]["requires-python"])
    assert requires.contains("3.11"), str(requires)


def test_rules_use_existing_envs():
    used = set()
    for smk in (REPO / "rules").rglob("*.smk"):
        used |= set(re.findall(r"conda:\s*\n\s*\"(?:\.\./)+envs/([^\"]+)\"", smk.read_text()))
    assert used, "no conda: directives found in rules/*.smk"
    missing = sorted(u for u in used if not (REPO / "envs" / u).is_file())
    assert not missing, missing


def test_conda_spec_parsing():
    assert conda_spec("python=3.11") == ("python", SpecifierSet("==3.11.*"))
    assert conda_spec("pytorch=2.13.0") == ("pytorch", SpecifierSet("==2.13.0.*"))
    assert conda_spec("numpy>=1.26,<3") == ("numpy", SpecifierSet(">=1.26,<3"))
    assert conda_spec("numpy 1.26.*")[1] == SpecifierSet("==1.26.*")
    assert conda_spec("pip") == ("pip", SpecifierSet())
