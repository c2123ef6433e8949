#!/usr/bin/env bash
# Generate the Python client's models (clients/python/src/keepgraph/
# _generated_models.py) from the server's OpenAPI document, with the pinned
# generator (clients/python/codegen/requirements.txt) in a virtualenv of its
# own under .tmp/. The Python tests generate them again and compare.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.tmp/python-codegen
if [ ! -x "$venv/bin/datamodel-codegen" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r clients/python/codegen/requirements.txt
fi
mkdir -p .tmp
node --import tsx packages/server/scripts/openapi.ts > .tmp/openapi.json
"$venv/bin/python" clients/python/codegen/generate.py .tmp/openapi.json clients/python/src/keepgraph/_generated_models.py
echo "wrote clients/python/src/keepgraph/_generated_models.py"
