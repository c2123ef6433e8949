"""The README's Python example, run as it is written, against the test server."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import httpx

from .conftest import ROOT, Server


def test_readme_example_runs(server: Server) -> None:
    readme = Path(ROOT, "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    example = next(b for b in blocks if "KEEPGRAPH_URL" in b)
    made = httpx.post(
        f"{server.base}/v1/keys",
        headers={"authorization": f"Bearer {server.operator_key}"},
        json={"name": "readme python", "role": "user", "owners": ["alex"]},
    )
    made.raise_for_status()
    os.environ["KEEPGRAPH_URL"] = server.base
    os.environ["KEEPGRAPH_KEY"] = made.json()["key"]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, "README.md", "exec"), {})
    assert out.getvalue().splitlines() == ["Alex prefers aisle seats on long flights user s1", "True"]
