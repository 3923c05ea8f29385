"""A checkpoint that cannot be written (the disk full, or the file-size limit reached, which
fails the same write) is one line naming the file; the old checkpoint stays whole and no
temporary file is left."""

import subprocess
import sys
from pathlib import Path

import pytest
import torch

SCRIPT = """
import resource, signal, sys
from pathlib import Path
import torch
from paracomp.errors import WriteError
from paracomp.run_folder import save
out = Path(sys.argv[1])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail the write with EFBIG, as a full disk with ENOSPC
resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
try:
    save({"w": torch.zeros(1_000_000)}, out)
except WriteError as exc:
    print(exc)
"""


@pytest.mark.slow  # a fresh Python process
def test_a_checkpoint_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    """It used to end in torch's RuntimeError: [enforce fail at inline_container.cc:672] .
    unexpected pos 704 vs 598."""
    from paracomp.run_folder import save

    checkpoint = tmp_path / "checkpoint.pt"
    save({"w": torch.arange(10.0)}, checkpoint)
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(checkpoint)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == f"{checkpoint}: cannot write (File too large)"
    assert [p.name for p in tmp_path.iterdir()] == ["checkpoint.pt"]
    assert torch.equal(torch.load(checkpoint, weights_only=True)["w"], torch.arange(10.0))
