"""Pydantic models of the answers the client reads. Field names follow the
API's JSON (camelCase aliases, snake_case attributes); unknown fields are
kept (``extra="allow"``) so a newer server does not break an older client.
A test compares these fields with the server's OpenAPI document."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")


class Tool(Model):
    name: str
    call_id: Optional[str] = None


class Source(Model):
    kind: str
    uri: str


class Origin(Model):
    session_id: Optional[str] = None
    turn: Optional[str] = None
    message_id: Optional[str] = None
    speaker: Optional[str] = None
    tool: Optional[Tool] = None
    source: Optional[Source] = None
    observed_at: str
    written_by: str
    extractor: Optional[Dict[str, Any]] = None


class Memory(Model):
    id: str
    owner_id: str
    kind: str
    text: str
    key: Optional[str]
    origin: Origin
    source_origins: List[Origin]
    authority: str
    created_at: str
    valid_from: str
    valid_to: Optional[str]
    expires_at: str
    sensitivity: str
    tags: List[str]
    confidence: float
    content_hash: str
    derived_from: List[str]
    supersedes: Optional[str]
    superseded_by: Optional[str]
    conflict: bool
    about: List[Dict[str, Any]]
    relations: List[Dict[str, Any]]
    embedding_model: Optional[str]
    redactions: List[str]


class RememberResult(Model):
    memory: Memory
    superseded: Optional[str]


class Failure(Model):
    index: int
    code: str
    message: str


class RememberManyResult(Model):
    stored: List[Memory]
    failed: List[Failure]


class RecallHit(Model):
    memory: Memory
    origin: Origin
    source_origins: List[Origin]
    authority: str
    derived_from: List[str]
    via: List[str]
    score: float
    breakdown: Dict[str, Any]


class RecallResult(Model):
    request_id: str
    owner_id: str
    query: str
    results: List[RecallHit]


class Graph(Model):
    attributes: Dict[str, Any]
    nodes: List[Dict[str, Any]]
    edges: List[Dict[str, Any]]


class WhoAmI(Model):
    principal: str
    role: str
    #: The owner ids the credential may act on, or ``"all"`` for every owner.
    owners: Union[List[str], str]
    expires_at: Optional[str]


class WhyResult(RecallResult):
    lineage: Dict[str, Graph]
    prompt: str


class Receipt(Model):
    owner_id: str
    reason: str
    requested: List[str]
    deleted_memory_ids: List[str]
    deleted_content_hashes: List[str]
    embeddings_deleted: int
    full_text_entries_deleted: int
    relation_edges_deleted: int
    entities_deleted: int
    session_messages_deleted: int
    rederive: List[Dict[str, Any]]
    at: str


class Trace(Model):
    where: str
    id: Optional[str] = None
    detail: Optional[str] = None


class ForgottenCheck(Model):
    forgotten: bool
    traces: List[Trace]
    scope: Dict[str, str]


class CorrectionResult(Model):
    memory: Memory
    corrected: str
    superseded: bool
    rederiving: List[str]
    receipt: Optional[Receipt]


class MemoryPage(Model):
    owner_id: str
    memories: List[Memory]
    next: Optional[str]


class SessionAppendResult(Model):
    appended: int
    trimmed: int
    remembered_ids: List[Optional[str]]


class SessionWriter(Model):
    """Who appended a session message: the principal and role of its credentials."""

    principal: str
    role: str


class SessionMessage(Model):
    seq: int
    role: str
    text: str
    at: str
    memory_id: Optional[str] = None
    #: None for a message stored before writers were recorded (its writer is unknown).
    writer: Optional[SessionWriter] = None


class SessionMessages(Model):
    owner_id: str
    session_id: str
    messages: List[SessionMessage]


class SessionContext(Model):
    owner_id: str
    session_id: str
    session: List[SessionMessage]
    long_term: Optional[RecallResult]
    prompt: str


class SessionForgetting(Model):
    owner_id: str
    session_id: str
    dry_run: bool
    observed: List[str]
    memory_ids: List[str]
    session_messages: int
    receipt: Optional[Receipt]


class ImportReport(Model):
    lines: int
    imported: int
    refused: int
    refused_by_code: Dict[str, int]
    skipped_derived: int
    failures: List[Dict[str, Any]]
    stored: List[Dict[str, Any]]


class KeyValue(Model):
    current: Optional[Memory]
    conflicts: List[Memory]


class SessionSummary(Model):
    session_id: str
    messages: int
    memories: int
    first_at: str
    last_at: str


class SessionList(Model):
    owner_id: str
    sessions: List[SessionSummary]


class ReadRecord(Model):
    request_id: str
    principal: str
    session_id: Optional[str]
    memory_ids: List[str]
    at: str


class ReadLog(Model):
    reads: List[ReadRecord]


class SessionDeletion(Model):
    owner_id: str
    session_id: str
    seq: Optional[int]
    session_messages_deleted: int
