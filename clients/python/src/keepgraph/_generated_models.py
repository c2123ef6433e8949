"""The API's named answers as pydantic models, generated from the server's
OpenAPI document by clients/python/codegen/generate.py (`pnpm generate`):
do not edit."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel
from typing_extensions import TypeAliasType


class Tool(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    name: str
    call_id: Annotated[str | None, Field(alias="callId")] = None


class Source(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    kind: str
    uri: str


class Extractor(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    name: str
    version: str
    model: str | None = None
    prompt_version: Annotated[str | None, Field(alias="promptVersion")] = None


class Origin(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    session_id: Annotated[str | None, Field(alias="sessionId")] = None
    turn: str | None = None
    message_id: Annotated[str | None, Field(alias="messageId")] = None
    speaker: str | None = None
    tool: Tool | None = None
    source: Source | None = None
    observed_at: Annotated[
        str,
        Field(alias="observedAt", description="When the claim was observed (ISO 8601)"),
    ]
    extractor: Extractor | None = None
    written_by: Annotated[
        str,
        Field(
            alias="writtenBy",
            description="Principal that wrote the memory (from credentials)",
        ),
    ]


class Failure(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    index: Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)]
    code: str
    message: str


class Ranks(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    vector: float | None = None
    text: float | None = None
    entity: float | None = None
    derived: float | None = None
    reply: float | None = None
    via: float | None = None


class Raw(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    vector: float | None = None
    text: float | None = None
    entity: float | None = None
    derived: float | None = None
    reply: float | None = None
    via: float | None = None


class Breakdown(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    ranks: Ranks
    raw: Raw
    fused: float
    authority: float
    recency: float
    confidence: float
    time: float
    speaker: float
    final: float


class Trace(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    where: str
    id: str | None = None
    detail: str | None = None


class SessionWriter(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    principal: Annotated[
        str,
        Field(
            description="The principal of the credentials that appended it (`key:<id>`, `jwt:<sub>`)"
        ),
    ]
    role: Annotated[str, Field(description="That credential's role")]


class SessionMessage(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    seq: Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)]
    role: str
    text: str
    at: str
    memory_id: Annotated[
        str | None,
        Field(
            alias="memoryId",
            description="The long-term memory that holds a copy, if any",
        ),
    ]
    writer: Annotated[
        SessionWriter | None,
        Field(
            description="Who appended the message; null for a message stored before writers were recorded (rendered untrusted)"
        ),
    ]


class SessionSummary(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    session_id: Annotated[str, Field(alias="sessionId")]
    messages: Annotated[
        int,
        Field(
            description="Unexpired messages in its buffer",
            ge=-9007199254740991,
            le=9007199254740991,
        ),
    ]
    memories: Annotated[
        int,
        Field(
            description="Unexpired memories observed in it",
            ge=-9007199254740991,
            le=9007199254740991,
        ),
    ]
    first_at: Annotated[str, Field(alias="firstAt")]
    last_at: Annotated[str, Field(alias="lastAt")]


class ReadRecord(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    request_id: Annotated[str, Field(alias="requestId")]
    principal: Annotated[str, Field(description="Who read (from credentials)")]
    session_id: Annotated[
        str | None,
        Field(
            alias="sessionId",
            description="The keyed hash of the reader's session id, never the id; null without one",
        ),
    ]
    memory_ids: Annotated[
        list[str], Field(alias="memoryIds", description="The memories the read served")
    ]
    at: str


class AboutItem(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    name: str
    type: str


class Subject(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    name: str
    type: str


class Object(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    name: str
    type: str


class Relation(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    subject: Subject
    type: str
    object: Object
    reason: str | None = None


class Memory(BaseModel):
    """
    A stored memory (a copy)
    """

    model_config = ConfigDict(
        extra="allow",
    )
    id: str
    owner_id: Annotated[str, Field(alias="ownerId")]
    kind: str
    text: str
    key: str | None
    origin: Origin
    source_origins: Annotated[
        list[Origin],
        Field(
            alias="sourceOrigins",
            description="For derived memories: the union of their sources’ origins",
        ),
    ]
    authority: str
    created_at: Annotated[str, Field(alias="createdAt")]
    valid_from: Annotated[str, Field(alias="validFrom")]
    valid_to: Annotated[str | None, Field(alias="validTo")]
    expires_at: Annotated[str, Field(alias="expiresAt")]
    sensitivity: str
    tags: list[str]
    confidence: float
    content_hash: Annotated[str, Field(alias="contentHash")]
    derived_from: Annotated[list[str], Field(alias="derivedFrom")]
    supersedes: str | None
    superseded_by: Annotated[str | None, Field(alias="supersededBy")]
    conflict: Annotated[
        bool,
        Field(
            description="A lower-authority claim kept beside a higher one it contradicts"
        ),
    ]
    about: list[AboutItem]
    relations: list[Relation]
    embedding_model: Annotated[str | None, Field(alias="embeddingModel")]
    redactions: list[str]


class RememberResult(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    memory: Memory
    superseded: Annotated[
        str | None,
        Field(description="Id of the memory this write superseded (same key)"),
    ]


class RememberManyResult(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    stored: list[Memory]
    failed: list[Failure]


class Options(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    type: Literal["directed"]
    multi: Literal[False]
    allow_self_loops: Annotated[Literal[False], Field(alias="allowSelfLoops")]


class Node(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    key: str
    attributes: dict[str, Any]


class Edge(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    key: str
    source: str
    target: str
    attributes: dict[str, Any]


class Graph(BaseModel):
    """
    graphology's serialisation format: load it with Graph.from()
    """

    model_config = ConfigDict(
        extra="allow",
    )
    attributes: dict[str, Any]
    options: Options
    nodes: list[Node]
    edges: list[Edge]


class MemoryNode(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    node_type: Annotated[Literal["memory"], Field(alias="nodeType")]
    kind: str
    text: str
    authority: str
    origin: Origin
    source_origins: Annotated[
        list[Origin],
        Field(
            alias="sourceOrigins",
            description="A derived memory's sources' origins: the first 20 (`get` has them all)",
        ),
    ]
    source_origin_count: Annotated[
        int,
        Field(
            alias="sourceOriginCount",
            description="How many origins its sources have in all",
            ge=-9007199254740991,
            le=9007199254740991,
        ),
    ]
    created_at: Annotated[str, Field(alias="createdAt")]
    expires_at: Annotated[str, Field(alias="expiresAt")]
    content_hash: Annotated[str, Field(alias="contentHash")]
    superseded_by: Annotated[str | None, Field(alias="supersededBy")]
    conflict: bool


class EntityNode(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    node_type: Annotated[Literal["entity"], Field(alias="nodeType")]
    name: Annotated[str, Field(description="One spelling of the name")]
    entity_type: Annotated[
        str | None,
        Field(
            alias="entityType",
            description="The entity type (person, place, thing...), absent when its names disagree",
        ),
    ] = None


class RelationEdge(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    type: Annotated[str, Field(description="The relation, e.g. PREFERS_AGAINST")]
    reasons: Annotated[list[str], Field(description="The reasons its assertions give")]
    asserted_by: Annotated[
        list[str],
        Field(alias="assertedBy", description="Ids of the memories asserting it"),
    ]


class Attributes(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    root: Annotated[str, Field(description="The memory asked about")]
    owner_id: Annotated[str, Field(alias="ownerId")]
    truncated: Annotated[
        bool,
        Field(
            description="Whether memories around it were left out at the policy's limits.graphNodes"
        ),
    ]


class Options1(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    type: Literal["directed"]
    multi: Literal[True]
    allow_self_loops: Annotated[Literal[False], Field(alias="allowSelfLoops")]


class Node1(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    key: str
    attributes: MemoryNode | EntityNode


class Attributes1(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    type: Annotated[
        str,
        Field(
            description="DERIVED_FROM: derived memory to source; SUPERSEDES: newer version to older; ASSERTS: memory to an entity it relates"
        ),
    ]


class Edge1(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    key: str
    source: str
    target: str
    attributes: RelationEdge | Attributes1


class Neighbours(BaseModel):
    """
    graphology's serialisation format: load it with Graph.from()
    """

    model_config = ConfigDict(
        extra="allow",
    )
    attributes: Attributes
    options: Options1
    nodes: list[Node1]
    edges: list[Edge1]


class Attributes2(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]
    truncated: Annotated[
        bool, Field(description="True when relation edges were left out at the limit")
    ]


class Node2(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    key: str
    attributes: EntityNode


class Edge2(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    key: str
    source: str
    target: str
    attributes: RelationEdge


class EntityGraph(BaseModel):
    """
    graphology's serialisation format: load it with Graph.from()
    """

    model_config = ConfigDict(
        extra="allow",
    )
    attributes: Attributes2
    options: Options1
    nodes: list[Node2]
    edges: list[Edge2]


class WhoAmI(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    principal: Annotated[
        str,
        Field(
            description="`key:<id>` for an API key, `jwt:<sub>` for a JWT (`jwt:sha256:<hex>` for a sub over 200 characters)"
        ),
    ]
    role: str
    owners: Annotated[
        Literal["all"] | list[str],
        Field(
            description="The owners the credential may act on; `all` for every owner (as keys say it)"
        ),
    ]
    expires_at: Annotated[
        str | None,
        Field(
            alias="expiresAt",
            description="When the credential stops authenticating; null: never",
        ),
    ]


class RederiveItem(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    id: str
    kind: str
    tags: list[str]
    surviving_source_count: Annotated[
        int,
        Field(
            alias="survivingSourceCount",
            description="How many of its sources survive: its re-derivation reads them",
            ge=-9007199254740991,
            le=9007199254740991,
        ),
    ]


class Receipt(BaseModel):
    """
    What a deletion cascade removed (ids and hashes, never content)
    """

    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]
    reason: str
    requested: list[str]
    deleted_memory_ids: Annotated[list[str], Field(alias="deletedMemoryIds")]
    deleted_content_hashes: Annotated[list[str], Field(alias="deletedContentHashes")]
    embeddings_deleted: Annotated[float, Field(alias="embeddingsDeleted")]
    full_text_entries_deleted: Annotated[float, Field(alias="fullTextEntriesDeleted")]
    relation_edges_deleted: Annotated[float, Field(alias="relationEdgesDeleted")]
    entities_deleted: Annotated[float, Field(alias="entitiesDeleted")]
    session_messages_deleted: Annotated[float, Field(alias="sessionMessagesDeleted")]
    rederive: list[RederiveItem]
    at: str


class Scope(BaseModel):
    """
    Only this owner's data was searched: another owner's id reads as forgotten
    """

    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]


class ForgottenCheck(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    forgotten: bool
    traces: list[Trace]
    scope: Annotated[
        Scope,
        Field(
            description="Only this owner's data was searched: another owner's id reads as forgotten"
        ),
    ]


class CorrectionResult(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    memory: Annotated[Memory, Field(description="The new version")]
    corrected: Annotated[str, Field(description="The id of the version corrected")]
    superseded: Annotated[
        bool,
        Field(
            description="True when the new version supersedes the old; false when kept as a conflict"
        ),
    ]
    rederiving: Annotated[
        list[str],
        Field(
            description="Memories derived from the old version: deleted, and re-derived from the new one by a job"
        ),
    ]
    receipt: Annotated[
        Receipt | None, Field(description="The cascade that took them, if any")
    ]


class MemoryPage(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]
    memories: Annotated[list[Memory], Field(description="The matches, in id order")]
    next: Annotated[
        str | None,
        Field(
            description="Pass as `after` for the next page; null once every memory has been read"
        ),
    ]


class SessionAppendResult(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    appended: Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)]
    trimmed: Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)]
    remembered_ids: Annotated[list[str], Field(alias="rememberedIds")]


class SessionMessages(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]
    session_id: Annotated[str, Field(alias="sessionId")]
    messages: Annotated[
        list[SessionMessage], Field(description="Unexpired messages, oldest first")
    ]


class SessionItem(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    seq: Annotated[
        int,
        Field(
            description="The message number: DELETE …/messages/{seq} deletes it",
            ge=-9007199254740991,
            le=9007199254740991,
        ),
    ]
    role: str
    text: str
    at: str
    writer: Annotated[
        SessionWriter | None,
        Field(
            description="Who appended the message; null for a message stored before writers were recorded (rendered untrusted)"
        ),
    ]


class SessionForgetting(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]
    session_id: Annotated[str, Field(alias="sessionId")]
    dry_run: Annotated[
        bool,
        Field(
            alias="dryRun",
            description="True: nothing was deleted; the lists say what would go",
        ),
    ]
    observed: Annotated[
        list[str], Field(description="Memories observed in the session (the roots)")
    ]
    memory_ids: Annotated[
        list[str],
        Field(
            alias="memoryIds",
            description="Every memory that goes: the roots and all derived from them",
        ),
    ]
    session_messages: Annotated[
        int,
        Field(
            alias="sessionMessages",
            description="Buffer messages that go",
            ge=-9007199254740991,
            le=9007199254740991,
        ),
    ]
    receipt: Receipt | None


RefusedByCodeAdditionalProperty = TypeAliasType(
    "RefusedByCodeAdditionalProperty",
    Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)],
)


class Failure1(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    line: Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)]
    code: str
    message: str


class StoredItem(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    line: Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)]
    id: str


class ImportReport(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    lines: Annotated[
        int,
        Field(
            description="Non-blank lines read",
            ge=-9007199254740991,
            le=9007199254740991,
        ),
    ]
    imported: Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)]
    refused: Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)]
    refused_by_code: Annotated[
        dict[str, RefusedByCodeAdditionalProperty], Field(alias="refusedByCode")
    ]
    skipped_derived: Annotated[
        int,
        Field(
            alias="skippedDerived",
            description="Exported derived memories left out: their sources get new ids",
            ge=-9007199254740991,
            le=9007199254740991,
        ),
    ]
    failures: list[Failure1]
    stored: list[StoredItem]


class KeyValue(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    current: Memory | None
    conflicts: list[Memory]


class SessionList(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]
    sessions: list[SessionSummary]


class ReadLog(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    reads: Annotated[list[ReadRecord], Field(description="Newest first")]


class Seq(RootModel[int]):
    root: Annotated[int, Field(ge=-9007199254740991, le=9007199254740991)]


class SessionDeletion(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]
    session_id: Annotated[str, Field(alias="sessionId")]
    seq: Seq | None
    session_messages_deleted: Annotated[
        int,
        Field(
            alias="sessionMessagesDeleted", ge=-9007199254740991, le=9007199254740991
        ),
    ]


ByKindAdditionalProperty = TypeAliasType(
    "ByKindAdditionalProperty", Annotated[int, Field(ge=0, le=9007199254740991)]
)


ByAuthorityAdditionalProperty = TypeAliasType(
    "ByAuthorityAdditionalProperty", Annotated[int, Field(ge=0, le=9007199254740991)]
)


class MedianAgeMs(RootModel[float]):
    root: Annotated[
        float,
        Field(
            description="Median age of the live memories at the time of asking, in ms; null when none",
            ge=0.0,
        ),
    ]


class OwnerStats(BaseModel):
    """
    How much is held for one owner, by kind and authority, and how old it is
    """

    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]
    memories: Annotated[
        int,
        Field(
            description="Memories stored for the owner, superseded versions included",
            ge=0,
            le=9007199254740991,
        ),
    ]
    by_kind: Annotated[
        dict[str, ByKindAdditionalProperty],
        Field(alias="byKind", description="Memories per kind (episode, fact, …)"),
    ]
    by_authority: Annotated[
        dict[str, ByAuthorityAdditionalProperty],
        Field(
            alias="byAuthority", description="Memories per authority (user, tool, …)"
        ),
    ]
    median_age_ms: Annotated[
        MedianAgeMs | None,
        Field(
            alias="medianAgeMs",
            description="Median age of the live memories at the time of asking, in ms; null when none",
        ),
    ]


class RecallHit(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    memory: Memory
    origin: Origin
    source_origins: Annotated[list[Origin], Field(alias="sourceOrigins")]
    authority: str
    derived_from: Annotated[list[str], Field(alias="derivedFrom")]
    via: list[str]
    score: float
    breakdown: Breakdown


class RecallResult(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    request_id: Annotated[str, Field(alias="requestId")]
    owner_id: Annotated[str, Field(alias="ownerId")]
    query: str
    results: list[RecallHit]


class WhyResult(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    request_id: Annotated[str, Field(alias="requestId")]
    owner_id: Annotated[str, Field(alias="ownerId")]
    query: str
    results: list[RecallHit]
    lineage: dict[str, Graph]
    prompt: Annotated[
        str,
        Field(
            description='The same results rendered for an LLM prompt as quoted data: each item a JSON string with its origin; third-party memories and tool messages carry untrusted="true"'
        ),
    ]


class SessionContext(BaseModel):
    model_config = ConfigDict(
        extra="allow",
    )
    owner_id: Annotated[str, Field(alias="ownerId")]
    session_id: Annotated[str, Field(alias="sessionId")]
    session: list[SessionItem]
    long_term: Annotated[RecallResult | None, Field(alias="longTerm")]
    prompt: Annotated[
        str,
        Field(
            description='The same results rendered for an LLM prompt as quoted data: each item a JSON string with its origin; third-party memories and tool messages carry untrusted="true"'
        ),
    ]
