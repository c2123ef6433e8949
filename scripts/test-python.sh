#!/usr/bin/env bash
# The Python client's checks: install it (as users do, `pip install
# ./clients/python`, with its dev extras from PyPI) into a fresh virtualenv,
# type-check it with mypy --strict, and run its tests against a real
# `keepgraph start` (the tests start one from this checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.tmp/python-client
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "./clients/python[dev]"
# The models' generator, pinned: a test generates them again from the served document.
"$venv/bin/pip" install -q --disable-pip-version-check -r clients/python/codegen/requirements.txt
echo "[test] python client: mypy --strict"
"$venv/bin/mypy" --strict clients/python/src/keepgraph
echo "[test] python client: pytest"
"$venv/bin/python" -m pytest -q clients/python/tests
