#!/usr/bin/env bash
# The whole test suite on a fresh project root without the data mirror (as on a machine that never
# had it), the `notebooks` tier included (every notebook at the smoke profile: it runs here, once):
# LCL_ROOT points at a temporary copy holding only the manifest, the reference data, the notebooks
# and the Makefile, so files an earlier step fetched into data/raw cannot stand in for the mirror.
# Tests that need mirrored data skip (marker `mirror`, with the reason), they must not fail. The
# `build` tier checks a build this root does not have: it runs after `make all` (make test-build).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/data" "$root/lib"
cp data/sources.toml "$root/data/"
cp -r data/reference "$root/data/reference"
cp -r notebooks "$root/notebooks"
cp Makefile "$root/"
: > "$root/pyproject.toml"
export LOCAL_DATA_MIRROR="" LCL_ROOT="$root" LCL_CACHE="$root/.cache"
PY="${PYTHON:-.venv/bin/python}"
# the tests run `make` in scratch roots, where the Makefile reads PYTHON (the interpreter that works
# out what each notebook imports): a relative .venv/bin/python from here does not exist there
unset PYTHON
"$PY" -m pytest -q -p no:cacheprovider -m "not build" "$@"
