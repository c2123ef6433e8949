"""Each API call, once: its route, its body or query, and the model of its
answer. ``Client`` and ``AsyncClient`` run the same calls, so the two
differ only in how they send them."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Dict, Generic, List, Mapping, Optional, Sequence, Type, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, RootModel

from . import _generated_models as m
from ._exposed import EXPOSED

T = TypeVar("T", bound=BaseModel)


@dataclass
class Call(Generic[T]):
    method: str
    path: str
    model: Type[T]
    json: Optional[Any] = None
    params: Dict[str, str] = field(default_factory=dict)
    content: Optional[str] = None
    #: Writes carry an Idempotency-Key, so a retry cannot write twice.
    write: bool = False
    idempotency_key: Optional[str] = None

    def headers(self) -> Dict[str, str]:
        h: Dict[str, str] = {}
        if self.content is not None:
            h["content-type"] = "application/x-ndjson"
        if self.write:
            h["idempotency-key"] = self.idempotency_key or str(uuid.uuid4())
        return h


def _q(v: str) -> str:
    """One path segment. Dots are sent as %2E: httpx drops a segment that is
    "." or ".." from the path, so a call about session ".." of owner "zed"
    would reach another route; sent escaped, it reaches its own, and the
    server refuses such an id with invalid_input."""
    return quote(v, safe="").replace(".", "%2E")


def _o(owner_id: str) -> str:
    return f"/v1/owners/{_q(owner_id)}"


def _defined(d: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def remember(owner_id: str, memory: Mapping[str, Any], key: Optional[str]) -> Call[m.RememberResult]:
    return Call("POST", f"{_o(owner_id)}/memories", m.RememberResult, json=dict(memory), write=True, idempotency_key=key)


def remember_many(owner_id: str, memories: Sequence[Mapping[str, Any]], key: Optional[str]) -> Call[m.RememberManyResult]:
    return Call(
        "POST", f"{_o(owner_id)}/memories:batch", m.RememberManyResult,
        json={"memories": [dict(x) for x in memories]}, write=True, idempotency_key=key,
    )


def correct(owner_id: str, memory_id: str, correction: Mapping[str, Any], key: Optional[str]) -> Call[m.CorrectionResult]:
    return Call(
        "PATCH", f"{_o(owner_id)}/memories/{_q(memory_id)}", m.CorrectionResult,
        json=dict(correction), write=True, idempotency_key=key,
    )


def recall(owner_id: str, query: str, options: Mapping[str, Any]) -> Call[m.RecallResult]:
    return Call("POST", f"{_o(owner_id)}/recall", m.RecallResult, json={**_defined(options), "query": query})


def why(owner_id: str, query: str, options: Mapping[str, Any]) -> Call[m.WhyResult]:
    return Call("POST", f"{_o(owner_id)}/why", m.WhyResult, json={**_defined(options), "query": query})


def get(owner_id: str, memory_id: str) -> Call[m.Memory]:
    return Call("GET", f"{_o(owner_id)}/memories/{_q(memory_id)}", m.Memory)


def lineage(owner_id: str, memory_id: str) -> Call[m.Graph]:
    return Call("GET", f"{_o(owner_id)}/memories/{_q(memory_id)}/lineage", m.Graph)


def neighbours(owner_id: str, memory_id: str) -> Call[m.Neighbours]:
    return Call("GET", f"{_o(owner_id)}/memories/{_q(memory_id)}/neighbours", m.Neighbours)


def entity_graph(owner_id: str, limit: Optional[int]) -> Call[m.EntityGraph]:
    return Call("GET", f"{_o(owner_id)}/entities/graph", m.EntityGraph, params=_defined({"limit": limit}))


def whoami() -> Call[m.WhoAmI]:
    return Call("GET", "/v1/whoami", m.WhoAmI)


def list_memories(owner_id: str, filters: Mapping[str, Any], after: Optional[str], limit: Optional[int]) -> Call[m.MemoryPage]:
    params: Dict[str, str] = {}
    for k, v in _defined({**filters, "after": after, "limit": limit}).items():
        if isinstance(v, bool):
            params[k] = "true" if v else "false"
        elif isinstance(v, (list, tuple)):
            params[k] = ",".join(str(x) for x in v)
        else:
            params[k] = str(v)
    return Call("GET", f"{_o(owner_id)}/memories", m.MemoryPage, params=params)


def forget(owner_id: str, ids: Sequence[str], key: Optional[str]) -> Call[m.Receipt]:
    return Call("POST", f"{_o(owner_id)}/forget", m.Receipt, json={"ids": list(ids)}, write=True, idempotency_key=key)


def verify_forgotten(owner_id: str, ids: Sequence[str], content_hashes: Optional[Sequence[str]]) -> Call[m.ForgottenCheck]:
    body: Dict[str, Any] = {"ids": list(ids)}
    if content_hashes is not None:
        body["contentHashes"] = list(content_hashes)
    return Call("POST", f"{_o(owner_id)}/verify-forgotten", m.ForgottenCheck, json=body)


def session_append(owner_id: str, session_id: str, messages: Sequence[Mapping[str, str]], remember: bool, key: Optional[str]) -> Call[m.SessionAppendResult]:
    return Call(
        "POST", f"{_o(owner_id)}/sessions/{_q(session_id)}/messages", m.SessionAppendResult,
        json={"messages": [dict(x) for x in messages], "remember": remember}, write=True, idempotency_key=key,
    )


def read_session(owner_id: str, session_id: str) -> Call[m.SessionMessages]:
    return Call("GET", f"{_o(owner_id)}/sessions/{_q(session_id)}/messages", m.SessionMessages)


def session_context(owner_id: str, session_id: str, query: Optional[str]) -> Call[m.SessionContext]:
    return Call(
        "GET", f"{_o(owner_id)}/sessions/{_q(session_id)}/context", m.SessionContext,
        params=_defined({"query": query}),
    )


def forget_session(owner_id: str, session_id: str, dry_run: bool, key: Optional[str]) -> Call[m.SessionForgetting]:
    return Call(
        "POST", f"{_o(owner_id)}/sessions/{_q(session_id)}/forget", m.SessionForgetting,
        json={"dryRun": dry_run}, write=True, idempotency_key=key,
    )


def import_jsonl(owner_id: str, jsonl: str, key: Optional[str]) -> Call[m.ImportReport]:
    return Call("POST", f"{_o(owner_id)}/import", m.ImportReport, content=jsonl, write=True, idempotency_key=key)


def put_by_key(owner_id: str, key: str, value: Mapping[str, Any], idem: Optional[str]) -> Call[m.RememberResult]:
    return Call("PUT", f"{_o(owner_id)}/kv/{_q(key)}", m.RememberResult, json=dict(value), write=True, idempotency_key=idem)


def get_by_key(owner_id: str, key: str) -> Call[m.KeyValue]:
    return Call("GET", f"{_o(owner_id)}/kv/{_q(key)}", m.KeyValue)


def list_sessions(owner_id: str, limit: Optional[int]) -> Call[m.SessionList]:
    return Call("GET", f"{_o(owner_id)}/sessions", m.SessionList, params=_defined({"limit": limit}))


def read_log(owner_id: str, memory_id: Optional[str], limit: Optional[int], before: Optional[str]) -> Call[m.ReadLog]:
    return Call(
        "GET", f"{_o(owner_id)}/reads", m.ReadLog,
        params=_defined({"memoryId": memory_id, "limit": limit, "before": before}),
    )


def delete_session(owner_id: str, session_id: str, seq: Optional[int], idem: Optional[str]) -> Call[m.SessionDeletion]:
    path = f"{_o(owner_id)}/sessions/{_q(session_id)}" + ("" if seq is None else f"/messages/{seq}")
    return Call("DELETE", path, m.SessionDeletion, write=True, idempotency_key=idem)



class Json(RootModel[Any]):
    """An answer as the server's JSON, for the calls of ``invoke``."""


def _query_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)


def invoke(name: str, args: Sequence[Any], key: Optional[str]) -> Call[BaseModel]:
    """Any exposed use-case by name, with the engine method's arguments: the
    binding (path, query or body) is generated from the server's use-case
    registry (``_exposed.py``), so a new exposed use-case needs no change here.
    The answer is the use-case's generated model (``ownerStats``: ``OwnerStats``)
    where the document names one, else ``Json``."""
    b = EXPOSED.get(name)
    if b is None:
        raise ValueError(f"{name!r} is not an exposed use-case; one of {sorted(EXPOSED)}")
    path: str = b["path"]
    rest: Optional[Dict[str, Any]] = None
    for i, a in enumerate(b["args"]):
        v = args[i] if i < len(args) else None
        if a["in"] == "path":
            path = path.replace(f":{a['name']}", _q(str(v)))
        elif a["in"] == "whole":
            rest = None if v is None else dict(v)
        elif v is not None:
            rest = {**(rest or {}), a["name"]: v}
    model: Type[BaseModel] = getattr(m, name[0].upper() + name[1:], Json)
    if b["restIn"] == "query":
        params = {k: _query_value(v) for k, v in (rest or {}).items() if v is not None}
        return Call(b["method"], f"/v1{path}", model, params=params, write=b["write"], idempotency_key=key)
    return Call(b["method"], f"/v1{path}", model, json=rest, write=b["write"], idempotency_key=key)


__all__: List[str] = []
