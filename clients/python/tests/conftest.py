"""A real `keepgraph start` for the tests: started from the repository on
a fresh data directory, with a user key for one owner made by its
operator key. Stopped (SIGTERM) after the session."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Iterator, NamedTuple

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[3]


class Server(NamedTuple):
    base: str
    operator_key: str
    user_key: str
    owner: str


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    data = tempfile.mkdtemp(prefix="keepgraph-py-")
    env = {**os.environ, "KEEPGRAPH_RATE_LIMIT": "0", "KEEPGRAPH_STORE": "sqlite"}
    proc = subprocess.Popen(
        ["node", "--import", "tsx", "packages/cli/src/main.ts", "start", "--port", "0", "--data", data],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    out = ""
    deadline = time.time() + 120
    base = None
    assert proc.stdout is not None
    while time.time() < deadline and base is None:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            raise RuntimeError(f"keepgraph start exited:\n{out}")
        out += line
        found = re.search(r"listening on (http://[\d.:]+)", line)
        if found:
            base = found.group(1)
    if base is None:
        proc.kill()
        raise RuntimeError(f"keepgraph start did not listen:\n{out}")
    operator_key = Path(data, "operator.key").read_text().strip()
    owner = f"py-{uuid.uuid4()}"
    made = httpx.post(
        f"{base}/v1/keys",
        headers={"authorization": f"Bearer {operator_key}"},
        json={"name": "python tests", "role": "user", "owners": [owner]},
    )
    made.raise_for_status()
    try:
        yield Server(base, operator_key, made.json()["key"], owner)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
