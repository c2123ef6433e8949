"""``Client`` and ``AsyncClient``: the same methods over httpx, sync and
async. Each method builds its call in ``_calls`` and sends it here: 429 and
503 are retried (honouring Retry-After, else backing off), writes carry an
Idempotency-Key so a retry never writes twice, and every failure is a
``KeepGraphError`` with KeepGraph's code."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Dict, Mapping, Optional, Sequence, TypeVar

import httpx
from pydantic import BaseModel

from . import _calls as c
from . import _generated_models as m
from ._errors import KeepGraphError

T = TypeVar("T", bound=BaseModel)

_RETRY = {429, 503}


def _wait_s(r: Optional[httpx.Response], attempt: int, backoff_s: float) -> float:
    if r is not None:
        after: Optional[str] = r.headers.get("retry-after")
        if after is not None:
            try:
                return max(0.0, float(after))
            except ValueError:
                pass
    return float(backoff_s * (2**attempt))


def _error(r: httpx.Response) -> KeepGraphError:
    try:
        body = r.json().get("error", {})
    except ValueError:
        body = {}
    return KeepGraphError(
        str(body.get("code", f"http_{r.status_code}")),
        str(body.get("message", r.text[:200])),
        r.status_code,
        body.get("details"),
    )


def _parse(call: c.Call[T], r: httpx.Response) -> T:
    if r.status_code >= 400:
        raise _error(r)
    return call.model.model_validate(r.json())


def _settle(call: c.Call[T], r: Optional[httpx.Response], failure: Optional[httpx.TransportError], last: bool) -> Optional[T]:
    """One attempt's outcome, the same for both clients: the parsed answer,
    a raised KeepGraphError, or None to wait and try again."""
    if failure is not None:
        if not last:
            return None
        if isinstance(failure, httpx.TimeoutException):
            raise KeepGraphError("timeout", str(failure) or "no answer in time", 0) from failure
        raise KeepGraphError("network_error", str(failure), 0) from failure
    assert r is not None
    if r.status_code in _RETRY and not last:
        return None
    return _parse(call, r)


class _Options:
    def __init__(self, base_url: str, api_key: str, timeout: float, retries: int, backoff: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"authorization": f"Bearer {api_key}"}
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff


def _memory(kind: str, text: str, origin: Mapping[str, Any], extra: Mapping[str, Any]) -> Dict[str, Any]:
    return {"kind": kind, "text": text, "origin": dict(origin), **extra}


class Client:
    """The KeepGraph API, synchronously. ``Client(base_url, api_key=...)``."""

    def __init__(self, base_url: str, *, api_key: str, timeout: float = 30.0, retries: int = 3, backoff: float = 0.25) -> None:
        self._o = _Options(base_url, api_key, timeout, retries, backoff)
        self._http = httpx.Client(base_url=self._o.base_url, headers=self._o.headers, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self, call: c.Call[T]) -> T:
        headers = call.headers()
        for attempt in range(self._o.retries + 1):
            r: Optional[httpx.Response] = None
            failure: Optional[httpx.TransportError] = None
            try:
                r = self._http.request(call.method, call.path, json=call.json, params=call.params, content=call.content, headers=headers)
            except httpx.TransportError as e:
                failure = e
            done = _settle(call, r, failure, attempt >= self._o.retries)
            if done is not None:
                return done
            time.sleep(_wait_s(r, attempt, self._o.backoff))
        raise AssertionError("unreachable")

    def invoke(self, name: str, *args: Any, idempotency_key: Optional[str] = None) -> BaseModel:
        """Any exposed use-case by name (``_exposed.py``), with the engine method's arguments; its answer's model."""
        return self._run(c.invoke(name, args, idempotency_key))

    def remember(self, owner_id: str, *, kind: str, text: str, origin: Mapping[str, Any], idempotency_key: Optional[str] = None, **fields: Any) -> m.RememberResult:
        return self._run(c.remember(owner_id, _memory(kind, text, origin, fields), idempotency_key))

    def remember_many(self, owner_id: str, memories: Sequence[Mapping[str, Any]], *, idempotency_key: Optional[str] = None) -> m.RememberManyResult:
        return self._run(c.remember_many(owner_id, memories, idempotency_key))

    def correct(self, owner_id: str, memory_id: str, *, text: str, reason: str, idempotency_key: Optional[str] = None, **fields: Any) -> m.CorrectionResult:
        return self._run(c.correct(owner_id, memory_id, {"text": text, "reason": reason, **fields}, idempotency_key))

    def recall(self, owner_id: str, query: str, **options: Any) -> m.RecallResult:
        return self._run(c.recall(owner_id, query, options))

    def why(self, owner_id: str, query: str, **options: Any) -> m.WhyResult:
        return self._run(c.why(owner_id, query, options))

    def get(self, owner_id: str, memory_id: str) -> m.Memory:
        return self._run(c.get(owner_id, memory_id))

    def lineage(self, owner_id: str, memory_id: str) -> m.Graph:
        return self._run(c.lineage(owner_id, memory_id))

    def neighbours(self, owner_id: str, memory_id: str) -> m.Neighbours:
        """The memory, its sources, what was derived from it, its versions and the relations it asserts."""
        return self._run(c.neighbours(owner_id, memory_id))

    def entity_graph(self, owner_id: str, *, limit: Optional[int] = None) -> m.EntityGraph:
        """The owner's entities and the relations live memories assert between them."""
        return self._run(c.entity_graph(owner_id, limit))

    def whoami(self) -> m.WhoAmI:
        """What the credential says: principal, role, owners (``"all"``: every owner) and expiry."""
        return self._run(c.whoami())

    def list_memories(self, owner_id: str, *, after: Optional[str] = None, limit: Optional[int] = None, **filters: Any) -> m.MemoryPage:
        return self._run(c.list_memories(owner_id, filters, after, limit))

    def forget(self, owner_id: str, ids: Sequence[str], *, idempotency_key: Optional[str] = None) -> m.Receipt:
        return self._run(c.forget(owner_id, ids, idempotency_key))

    def verify_forgotten(self, owner_id: str, ids: Sequence[str], content_hashes: Optional[Sequence[str]] = None) -> m.ForgottenCheck:
        return self._run(c.verify_forgotten(owner_id, ids, content_hashes))

    def session_append(self, owner_id: str, session_id: str, messages: Sequence[Mapping[str, str]], *, remember: bool = False, idempotency_key: Optional[str] = None) -> m.SessionAppendResult:
        return self._run(c.session_append(owner_id, session_id, messages, remember, idempotency_key))

    def read_session(self, owner_id: str, session_id: str) -> m.SessionMessages:
        return self._run(c.read_session(owner_id, session_id))

    def read_log(self, owner_id: str, *, memory_id: Optional[str] = None, limit: Optional[int] = None, before: Optional[str] = None) -> m.ReadLog:
        """Which reads served the owner's memories, newest first (``memory_id``: those that served it)."""
        return self._run(c.read_log(owner_id, memory_id, limit, before))

    def session_context(self, owner_id: str, session_id: str, query: Optional[str] = None) -> m.SessionContext:
        return self._run(c.session_context(owner_id, session_id, query))

    def forget_session(self, owner_id: str, session_id: str, *, dry_run: bool = False, idempotency_key: Optional[str] = None) -> m.SessionForgetting:
        return self._run(c.forget_session(owner_id, session_id, dry_run, idempotency_key))

    def import_jsonl(self, owner_id: str, jsonl: str, *, idempotency_key: Optional[str] = None) -> m.ImportReport:
        return self._run(c.import_jsonl(owner_id, jsonl, idempotency_key))

    def put_by_key(self, owner_id: str, key: str, *, text: str, origin: Mapping[str, Any], idempotency_key: Optional[str] = None, **fields: Any) -> m.RememberResult:
        return self._run(c.put_by_key(owner_id, key, {"text": text, "origin": dict(origin), **fields}, idempotency_key))

    def get_by_key(self, owner_id: str, key: str) -> m.KeyValue:
        return self._run(c.get_by_key(owner_id, key))

    def list_sessions(self, owner_id: str, *, limit: Optional[int] = None) -> m.SessionList:
        return self._run(c.list_sessions(owner_id, limit))

    def delete_session(self, owner_id: str, session_id: str, seq: Optional[int] = None, *, idempotency_key: Optional[str] = None) -> m.SessionDeletion:
        return self._run(c.delete_session(owner_id, session_id, seq, idempotency_key))


class AsyncClient:
    """The KeepGraph API, with asyncio: the same methods as ``Client``, awaited."""

    def __init__(self, base_url: str, *, api_key: str, timeout: float = 30.0, retries: int = 3, backoff: float = 0.25) -> None:
        self._o = _Options(base_url, api_key, timeout, retries, backoff)
        self._http = httpx.AsyncClient(base_url=self._o.base_url, headers=self._o.headers, timeout=timeout)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _run(self, call: c.Call[T]) -> T:
        headers = call.headers()
        for attempt in range(self._o.retries + 1):
            r: Optional[httpx.Response] = None
            failure: Optional[httpx.TransportError] = None
            try:
                r = await self._http.request(call.method, call.path, json=call.json, params=call.params, content=call.content, headers=headers)
            except httpx.TransportError as e:
                failure = e
            done = _settle(call, r, failure, attempt >= self._o.retries)
            if done is not None:
                return done
            await asyncio.sleep(_wait_s(r, attempt, self._o.backoff))
        raise AssertionError("unreachable")

    async def invoke(self, name: str, *args: Any, idempotency_key: Optional[str] = None) -> BaseModel:
        """Any exposed use-case by name (``_exposed.py``), with the engine method's arguments; its answer's model."""
        return await self._run(c.invoke(name, args, idempotency_key))

    async def remember(self, owner_id: str, *, kind: str, text: str, origin: Mapping[str, Any], idempotency_key: Optional[str] = None, **fields: Any) -> m.RememberResult:
        return await self._run(c.remember(owner_id, _memory(kind, text, origin, fields), idempotency_key))

    async def remember_many(self, owner_id: str, memories: Sequence[Mapping[str, Any]], *, idempotency_key: Optional[str] = None) -> m.RememberManyResult:
        return await self._run(c.remember_many(owner_id, memories, idempotency_key))

    async def correct(self, owner_id: str, memory_id: str, *, text: str, reason: str, idempotency_key: Optional[str] = None, **fields: Any) -> m.CorrectionResult:
        return await self._run(c.correct(owner_id, memory_id, {"text": text, "reason": reason, **fields}, idempotency_key))

    async def recall(self, owner_id: str, query: str, **options: Any) -> m.RecallResult:
        return await self._run(c.recall(owner_id, query, options))

    async def why(self, owner_id: str, query: str, **options: Any) -> m.WhyResult:
        return await self._run(c.why(owner_id, query, options))

    async def get(self, owner_id: str, memory_id: str) -> m.Memory:
        return await self._run(c.get(owner_id, memory_id))

    async def lineage(self, owner_id: str, memory_id: str) -> m.Graph:
        return await self._run(c.lineage(owner_id, memory_id))

    async def neighbours(self, owner_id: str, memory_id: str) -> m.Neighbours:
        return await self._run(c.neighbours(owner_id, memory_id))

    async def entity_graph(self, owner_id: str, *, limit: Optional[int] = None) -> m.EntityGraph:
        return await self._run(c.entity_graph(owner_id, limit))

    async def whoami(self) -> m.WhoAmI:
        return await self._run(c.whoami())

    async def list_memories(self, owner_id: str, *, after: Optional[str] = None, limit: Optional[int] = None, **filters: Any) -> m.MemoryPage:
        return await self._run(c.list_memories(owner_id, filters, after, limit))

    async def forget(self, owner_id: str, ids: Sequence[str], *, idempotency_key: Optional[str] = None) -> m.Receipt:
        return await self._run(c.forget(owner_id, ids, idempotency_key))

    async def verify_forgotten(self, owner_id: str, ids: Sequence[str], content_hashes: Optional[Sequence[str]] = None) -> m.ForgottenCheck:
        return await self._run(c.verify_forgotten(owner_id, ids, content_hashes))

    async def session_append(self, owner_id: str, session_id: str, messages: Sequence[Mapping[str, str]], *, remember: bool = False, idempotency_key: Optional[str] = None) -> m.SessionAppendResult:
        return await self._run(c.session_append(owner_id, session_id, messages, remember, idempotency_key))

    async def read_session(self, owner_id: str, session_id: str) -> m.SessionMessages:
        return await self._run(c.read_session(owner_id, session_id))

    async def read_log(self, owner_id: str, *, memory_id: Optional[str] = None, limit: Optional[int] = None, before: Optional[str] = None) -> m.ReadLog:
        return await self._run(c.read_log(owner_id, memory_id, limit, before))

    async def session_context(self, owner_id: str, session_id: str, query: Optional[str] = None) -> m.SessionContext:
        return await self._run(c.session_context(owner_id, session_id, query))

    async def forget_session(self, owner_id: str, session_id: str, *, dry_run: bool = False, idempotency_key: Optional[str] = None) -> m.SessionForgetting:
        return await self._run(c.forget_session(owner_id, session_id, dry_run, idempotency_key))

    async def import_jsonl(self, owner_id: str, jsonl: str, *, idempotency_key: Optional[str] = None) -> m.ImportReport:
        return await self._run(c.import_jsonl(owner_id, jsonl, idempotency_key))

    async def put_by_key(self, owner_id: str, key: str, *, text: str, origin: Mapping[str, Any], idempotency_key: Optional[str] = None, **fields: Any) -> m.RememberResult:
        return await self._run(c.put_by_key(owner_id, key, {"text": text, "origin": dict(origin), **fields}, idempotency_key))

    async def get_by_key(self, owner_id: str, key: str) -> m.KeyValue:
        return await self._run(c.get_by_key(owner_id, key))

    async def list_sessions(self, owner_id: str, *, limit: Optional[int] = None) -> m.SessionList:
        return await self._run(c.list_sessions(owner_id, limit))

    async def delete_session(self, owner_id: str, session_id: str, seq: Optional[int] = None, *, idempotency_key: Optional[str] = None) -> m.SessionDeletion:
        return await self._run(c.delete_session(owner_id, session_id, seq, idempotency_key))
