"""The ``paracomp`` command's start-up: parsing the arguments of any command imports none of
the heavy libraries (each command imports what its work needs when it runs)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from paracomp.cli.corpus import STEP_NAMES

HEAVY = ["torch", "numba", "pandas", "scipy", "sacremoses", "pyarrow", "numpy", "matplotlib"]


def test_parser_imports_no_heavy_library():
    code = (
        "import sys\n"
        "metadata = 'importlib.metadata' in sys.modules  # the interpreter's start may load it\n"
        "import paracomp.cli as cli\n"
        "cli.build_parser().parse_args(['corpus', 'align', '--input', 'a', '--out', 'b'])\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
        "print(('importlib.metadata' in sys.modules) == metadata)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["[]", "True"]


@pytest.mark.parametrize("command", ["encode", "similarity", "neighbours", "export"])
def test_a_model_commands_help_imports_no_heavy_library(command):
    """``paracomp encode --help`` (0.13 s, docs/benchmarks.md) loads neither the model nor
    numpy: the command imports what it needs once its arguments are parsed."""
    code = (
        "import sys\n"
        "from paracomp.cli import main\n"
        "try:\n"
        f"    main([{command!r}, '--help'])\n"
        "except SystemExit as exc:\n"
        "    assert exc.code == 0, exc.code\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"usage: paracomp {command}" in proc.stdout
    assert proc.stdout.split()[-1] == "[]"


def test_version_is_looked_up_on_use():
    import paracomp

    assert paracomp.__version__ and isinstance(paracomp.__version__, str)


def test_corpus_step_names_are_the_steps():
    from paracomp.corpus.steps import SHARDED_STEPS, STEPS

    assert set(STEP_NAMES) == {"sentences", *STEPS, *SHARDED_STEPS}


@pytest.mark.parametrize(("user", "threads"), [(None, "1"), ("1", "2")])
def test_threads_start_torchs_pool_as_snakemake_does(tmp_path, user, threads):
    """A command's ``--threads`` becomes ``OMP_NUM_THREADS`` before torch is imported (as a
    Snakemake job's ``threads`` does), unless the user set it: a run from a shell then takes
    the pipeline's kernel paths, so its bits."""
    code = (
        "from paracomp.cli import main\n"
        "main(['train', '--pairs', 'missing.parquet', '--params', '{}', '--out', 'o',"
        f" '--record', 'r.json', '--threads', '{threads}'])\n"
        "import os, torch\n"
        "print(os.environ.get('OMP_NUM_THREADS'), torch.get_num_threads())"
    )
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    if user is not None:
        env["OMP_NUM_THREADS"] = user
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split()[-2:] == ["1", "1"]  # without the pin: the machine's cores
