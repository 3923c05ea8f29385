#!/usr/bin/env bash
# Refresh requirements.lock: every package paracomp and its test, docs and slurm extras need,
# pinned with hashes for Python 3.11 on Linux, resolved with the CPU build of torch (whose
# dependencies hold no CUDA libraries). torch itself stays out of the lock: the set-up installs
# it first (the CPU wheel, or a user's own CUDA build), and pip takes it as already satisfied.
# Run it from the repository root after changing pyproject.toml's dependencies, on Python 3.11.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q "pip-tools>=7.4"
echo "torch==2.13.0+cpu" > "$work/torch.txt"
"$work/venv/bin/pip-compile" -q --generate-hashes --extra test --extra docs --extra slurm \
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
echo "requirements.lock: $(grep -c '^[A-Za-z]' requirements.lock) packages pinned"
