"""The client's one error type: KeepGraph's code, the HTTP status, safe details."""

from __future__ import annotations

from typing import Any, Dict, Optional


class KeepGraphError(Exception):
    """An error the API answered (its code, e.g. ``refused_secret``), or one
    before any answer: ``timeout``, ``network_error`` (status 0)."""

    def __init__(
        self,
        code: str,
        message: str,
        status: int,
        details: Optional[Dict[str, Any]] = None,
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status
        self.details = details or {}
