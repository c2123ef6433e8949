"""KeepGraph's HTTP API for Python: ``Client`` and ``AsyncClient``."""

from ._client import AsyncClient, Client
from ._errors import KeepGraphError
from ._models import (
    CorrectionResult,
    ForgottenCheck,
    Graph,
    ImportReport,
    Memory,
    MemoryPage,
    Origin,
    Receipt,
    RecallHit,
    RecallResult,
    RememberManyResult,
    RememberResult,
    SessionAppendResult,
    SessionContext,
    SessionForgetting,
    SessionMessages,
    WhoAmI,
    WhyResult,
)

__all__ = [
    "AsyncClient",
    "Client",
    "CorrectionResult",
    "ForgottenCheck",
    "Graph",
    "ImportReport",
    "KeepGraphError",
    "Memory",
    "MemoryPage",
    "Origin",
    "Receipt",
    "RecallHit",
    "RecallResult",
    "RememberManyResult",
    "RememberResult",
    "SessionAppendResult",
    "SessionContext",
    "SessionForgetting",
    "SessionMessages",
    "WhoAmI",
    "WhyResult",
]
