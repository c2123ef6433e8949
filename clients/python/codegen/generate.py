"""Generate the client's models from the server's OpenAPI document.

Usage: generate.py OPENAPI_JSON OUTPUT_PY

The named answers (``#/components/schemas``) become pydantic models, with
snake_case attributes aliased to the API's camelCase and unknown fields kept
(``extra="allow"``). Enumerations are read as plain strings: a newer server
may answer a kind or role this client does not know yet, and must not break
it. The output is committed; the test command generates it again and fails
while the committed file differs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from datamodel_code_generator import DataModelType, InputFileType, PythonVersion, generate


def open_enums(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: open_enums(v) for k, v in node.items() if k != "enum"}
    if isinstance(node, list):
        return [open_enums(v) for v in node]
    return node


def main(source: str, target: str) -> None:
    doc = json.loads(Path(source).read_text())
    # Only the named answers: the paths would add a model per inline body.
    doc = {"openapi": doc["openapi"], "info": doc["info"], "paths": {}, "components": open_enums(doc["components"])}
    generate(
        json.dumps(doc),
        input_file_type=InputFileType.OpenAPI,
        input_filename="openapi.json",
        output=Path(target),
        output_model_type=DataModelType.PydanticV2BaseModel,
        target_python_version=PythonVersion.PY_310,
        snake_case_field=True,
        extra_fields="allow",
        use_schema_description=True,
        disable_timestamp=True,
        use_standard_collections=True,
        use_union_operator=True,
        use_annotated=True,
        use_double_quotes=True,
        custom_file_header=(
            '"""The API\'s named answers as pydantic models, generated from the server\'s\n'
            "OpenAPI document by clients/python/codegen/generate.py (`pnpm generate`):\n"
            'do not edit."""'
        ),
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
