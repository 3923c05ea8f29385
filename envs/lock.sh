#!/usr/bin/env bash
# Refresh requirements.lock: every package paracomp and its test, docs and slurm extras need,
# pinned with hashes for Python 3.11 on Linux, resolved with the CPU build of torch (whose
# dependencies hold no CUDA libraries). torch itself stays out of the lock: the set-up installs
# it first (the CPU wheel, or a user's own CUDA build), and pip takes it as already satisfied.
# It then writes the lock's digest and torch's version into envs/paracomp.yaml (the rules'
# conda environment installs the same lock), which makes Snakemake build that environment anew.
# Run it after changing pyproject.toml's dependencies or TORCH, on Python 3.11; then change the
# torch version of the README's set-up and .ci/run to TORCH (tests/test_envs.py checks all four).
set -euo pipefail
TORCH=2.13.0
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "pip-tools>=7.4"
echo "torch==$TORCH+cpu" > "$work/torch.txt"
# the header names this script, not the temporary constraint file: the same pins, the same lock
CUSTOM_COMPILE_COMMAND="bash envs/lock.sh" "$work/venv/bin/pip-compile" -q --generate-hashes \
    --extra test --extra docs --extra slurm \
    --no-strip-extras --unsafe-package torch --unsafe-package paracomp \
    --no-emit-index-url --no-emit-find-links -c "$work/torch.txt" \
    -o requirements.lock pyproject.toml
# pip's hash-checking mode also needs a package pinned under its plain name when the lock pins
# it with extras (smart-open[http]) and another package requires it without them.
python3 - <<'PY'
import re
from pathlib import Path

lock = Path("requirements.lock")
text = lock.read_text()
pins = re.findall(r"^([A-Za-z0-9_.-]+)\[[^\]]+\](==[^ \n]+ \\\n(?:    --hash=[^\n]+\n)+)", text, re.M)
for name, rest in pins:
    if not re.search(rf"^{re.escape(name)}==", text, re.M):
        text += f"{name}{rest}    # {name} without its extras (pip's hash-checking mode)\n"
lock.write_text(text)
PY
digest=$(sha256sum requirements.lock | cut -d' ' -f1)
sed -i -E -e "s/^(# requirements.lock sha256: ).*/\1$digest/" \
    -e "s/^(  - pytorch=)[^ ]+/\1$TORCH/" envs/paracomp.yaml
echo "requirements.lock: $(grep -c '^[A-Za-z]' requirements.lock) packages pinned"
