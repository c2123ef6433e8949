"""Generated from the use-case registry by `pnpm generate:bindings`: do not edit.

The HTTP binding of every use-case whose registry row declares its exposure
(core's exposure.ts); ``Client.invoke`` calls them by name."""

from __future__ import annotations

import json
from typing import Any, Dict

EXPOSED: Dict[str, Dict[str, Any]] = json.loads(
    r"""{"ownerStats":{"method":"GET","path":"/owners/:ownerId/stats","args":[{"name":"ownerId","in":"path","optional":false}],"restIn":"query","write":false,"status":200}}"""
)
