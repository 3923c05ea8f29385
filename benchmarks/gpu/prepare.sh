#!/usr/bin/env bash
# Stage into .gpu/ (git-ignored) what a lent GPU machine of the `device` tool lacks: it reaches
# no network and runs Python 3.12 with its own torch. Run here, from the repository, with the
# project installed (the README's set-up) and the mirror at $PARACOMP_MIRROR or ../shared/data:
#   wheels/    the 3.12 wheels (pysword: its package) of the imports its image does not hold
#   mirror/    the mirror's folders the CUDA tests and GPU benchmarks read
#   packages/  the Debian packages the tests unpack (a package cache: PARACOMP_PACKAGE_CACHE)
#   bible_pairs.parquet  the tokenised WEB–SPARV verse pairs (elgohary2016's Bible stand-in)
# Then one device run with carry [".gpu"]: bash benchmarks/gpu/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
MIRROR="${PARACOMP_MIRROR:-$(cd .. && pwd)/shared/data}"
GPU=.gpu
rm -rf "$GPU"
mkdir -p "$GPU/wheels" "$GPU/mirror" "$GPU/packages"

python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
    --platform manylinux2014_x86_64 -d "$GPU/wheels" \
    $(python3 -c 'import importlib.metadata as m; print(*(f"{n}=={m.version(n)}" for n in (
        "sacremoses", "nltk", "jsonschema", "jsonschema-specifications",
        "referencing", "rpds-py")))')

# pysword is published as a source archive only: its pure-Python package is copied instead.
python3 -c 'import pathlib, pysword; print(pathlib.Path(pysword.__file__).parent)' \
    | xargs -I{} cp -r {} "$GPU/wheels/"

for folder in sick2014 compvec-wordnet ppdb-xl-lexicon ppdb-phrase-train-60k; do
    cp -r "$MIRROR/$folder" "$GPU/mirror/"
done

PARACOMP_PACKAGE_CACHE="$GPU/packages" python3 - <<'PY'
"""Fetch the SWORD packages into the cache and write the Bible stand-in's verse pairs."""
import os
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

from paracomp.corpus.bible import read_bible_pairs
from paracomp.corpus.build import bilingual_sentences
from paracomp.data.catalog import load
from paracomp.data.fetch import fetch_package

cache = Path(os.environ["PARACOMP_PACKAGE_CACHE"])
with tempfile.TemporaryDirectory() as tmp:
    roots = []
    for name in ("sword-text-web", "sword-text-sparv"):
        fetch_package(load().package(name), Path(tmp) / name, cache)
        roots.append(Path(tmp) / name / "root")
    pairs = bilingual_sentences(read_bible_pairs(*roots), n_jobs=2)
pq.write_table(pairs, ".gpu/bible_pairs.parquet")
print(f"{pairs.num_rows} verse pairs")
PY

du -sh "$GPU"
