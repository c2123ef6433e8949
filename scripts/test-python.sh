#!/usr/bin/env bash
# The Python client's checks, as a user gets it: build its sdist and wheel
# (`python -m build`, checked by `twine check`), install the wheel with its dev
# extras from PyPI into a fresh virtualenv, type-check the sources with mypy
# --strict, and run its tests (the README example included) against a real
# `keepgraph start` (the tests start one from this checkout), importing the
# installed wheel, not the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."
dist=.tmp/python-dist
buildenv=.tmp/python-build
venv=.tmp/python-client
rm -rf "$dist" "$buildenv" "$venv"
python3 -m venv "$buildenv"
"$buildenv/bin/pip" install -q --disable-pip-version-check -r clients/python/packaging/requirements.txt
echo "[test] python client: build the sdist and the wheel"
"$buildenv/bin/python" -m build -q --outdir "$dist" clients/python >/dev/null
"$buildenv/bin/twine" check --strict "$dist"/*
wheel=("$dist"/keepgraph-*-py3-none-any.whl)
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "keepgraph[dev] @ file://$PWD/${wheel[0]}"
"$venv/bin/python" - <<'PY'
import keepgraph
assert "site-packages" in keepgraph.__file__, keepgraph.__file__
PY
# The models' generator, pinned: a test generates them again from the served document.
"$venv/bin/pip" install -q --disable-pip-version-check -r clients/python/codegen/requirements.txt
echo "[test] python client: mypy --strict"
"$venv/bin/mypy" --strict clients/python/src/keepgraph
echo "[test] python client: pytest"
"$venv/bin/python" -m pytest -q clients/python/tests
