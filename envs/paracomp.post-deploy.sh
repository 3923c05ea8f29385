#!/usr/bin/env bash
# Snakemake runs this once, inside the environment it has just created from the .yaml file of
# the same name (--software-deployment-method conda), from its working directory. It installs
# every package but torch at the version and hash requirements.lock pins, as the README's
# set-up does, then the paracomp package, whose `paracomp` command the rules call: editable,
# so the environment follows the checkout, and without dependencies, which the lock provides.
# Snakemake copies the .yaml file to its environment folder (.snakemake/conda/ or
# --conda-prefix) before creating the environment, so a relative pip path in the .yaml file
# would not point at the repository; this script uses the working directory, or
# $PARACOMP_SRC when Snakemake runs elsewhere (--directory).
set -euo pipefail
src="${PARACOMP_SRC:-$PWD}"
if ! grep -qs '^name = "paracomp"' "$src/pyproject.toml"; then
    echo "post-deploy: $src is not the paracomp repository; set PARACOMP_SRC to it" >&2
    exit 1
fi
python -m pip install --quiet --require-hashes -r "$src/requirements.lock"
python -m pip install --quiet --no-deps --editable "$src"
python -c "import paracomp.cli"
