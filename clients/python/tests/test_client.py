"""The Python client against `keepgraph start`: the agent's flow with the
sync and the async client, refusals as KeepGraphError with our codes that
write nothing, and the models checked against the server's OpenAPI."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from pathlib import Path

import httpx
import pytest

import keepgraph._generated_models
from keepgraph import AsyncClient, Client, KeepGraphError, Memory

from .conftest import ROOT, Server

CODEGEN = ROOT / "clients/python/codegen/generate.py"


def test_flow_sync(server: Server) -> None:
    with Client(server.base, api_key=server.user_key) as kg:
        stored = kg.remember(
            server.owner, kind="preference", text="Alex prefers aisle seats on long flights",
            origin={"sessionId": "py-1", "turn": "2"}, tags=["travel"],
        )
        hit = kg.recall(server.owner, "Which seat should I book?", topK=3).results[0]
        assert hit.memory.id == stored.memory.id
        assert hit.origin.session_id == "py-1" and hit.origin.turn == "2"
        assert hit.authority == "user"
        reads = kg.read_log(server.owner, memory_id=stored.memory.id, limit=5).reads
        assert reads and all(stored.memory.id in r.memory_ids for r in reads)
        why = kg.why(server.owner, "aisle seats")
        assert why.lineage[stored.memory.id].nodes[0].key == stored.memory.id
        around = kg.neighbours(server.owner, stored.memory.id)
        assert [n.key for n in around.nodes] == [stored.memory.id]
        assert around.nodes[0].attributes.node_type == "memory"
        assert kg.entity_graph(server.owner, limit=10).attributes.model_dump(by_alias=True) == {"ownerId": server.owner, "truncated": False}
        me = kg.whoami()
        assert me.role == "user" and me.owners == [server.owner] and me.principal.startswith("key:")
        fixed = kg.correct(server.owner, stored.memory.id, text="Alex prefers window seats on long flights", reason="outdated")
        assert fixed.superseded and fixed.corrected == stored.memory.id
        page = kg.list_memories(server.owner, kind=["preference"], tag="travel")
        assert [m.id for m in page.memories] == [fixed.memory.id]
        receipt = kg.forget(server.owner, [fixed.memory.id])
        check = kg.verify_forgotten(server.owner, receipt.deleted_memory_ids, receipt.deleted_content_hashes)
        assert check.forgotten and check.traces == []
        # An Idempotency-Key repeat is answered, not written again.
        a = kg.remember(server.owner, kind="fact", text="The office is on the third floor", origin={"sessionId": "py-2"}, idempotency_key="py-once")
        b = kg.remember(server.owner, kind="fact", text="The office is on the third floor", origin={"sessionId": "py-2"}, idempotency_key="py-once")
        assert a.memory.id == b.memory.id
        kv = kg.put_by_key(server.owner, "seat", text="Seat preference: aisle", origin={"sessionId": "py-2"})
        assert kg.get_by_key(server.owner, "seat").current.id == kv.memory.id  # type: ignore[union-attr]
        kg.session_append(server.owner, "py-5", [{"role": "user", "text": "hello there, planning a trip"}])
        assert "py-5" in [s.session_id for s in kg.list_sessions(server.owner).sessions]
        assert kg.delete_session(server.owner, "py-5").session_messages_deleted == 1


def test_flow_async(server: Server) -> None:
    async def run() -> None:
        async with AsyncClient(server.base, api_key=server.user_key) as kg:
            await kg.session_append(server.owner, "py-3", [{"role": "user", "text": "I would like to visit Porto in May"}], remember=True)
            assert len((await kg.read_session(server.owner, "py-3")).messages) == 1
            ctx = await kg.session_context(server.owner, "py-3", "Where does the user want to go?")
            assert "Porto" in ctx.prompt
            dry = await kg.forget_session(server.owner, "py-3", dry_run=True)
            assert dry.dry_run and dry.session_messages == 1
            done = await kg.forget_session(server.owner, "py-3")
            assert sorted(done.memory_ids) == sorted(dry.memory_ids)
            hits = await kg.recall(server.owner, "Porto in May")
            assert all(h.memory.id not in dry.memory_ids for h in hits.results)

    asyncio.run(run())


def test_refusals_are_typed_and_write_nothing(server: Server) -> None:
    with Client(server.base, api_key=server.user_key) as kg:
        before = len(kg.list_memories(server.owner, limit=500).memories)
        cases = [
            (lambda: kg.remember(server.owner, kind="fact", text=f"the token is ghp_{uuid.uuid4().hex}Wxyz", origin={"sessionId": "x"}), 422, "refused_secret"),
            (lambda: kg.recall(f"someone-else-{uuid.uuid4()}", "anything"), 403, "owner_out_of_scope"),
            (lambda: kg.remember(server.owner, kind="gossip", text="x", origin={}), 400, "invalid_input"),
            (lambda: kg.correct(server.owner, str(uuid.uuid4()), text="x", reason="other"), 404, "not_found"),
            # A dot segment reaches its own route (not the owner's) and is refused there.
            (lambda: kg.session_append(server.owner, "..", [{"role": "user", "text": "this goes nowhere"}]), 400, "invalid_input"),
            (lambda: kg.remember(server.owner, kind="fact", text="a NUL \u0000 in the text", origin={"sessionId": "x"}), 400, "invalid_input"),
        ]
        for call, status, code in cases:
            with pytest.raises(KeepGraphError) as e:
                call()
            assert (e.value.status, e.value.code) == (status, code)
        assert len(kg.list_memories(server.owner, limit=500).memories) == before
    with Client(server.base, api_key="kgk_0000000000000000_nope") as stranger:
        with pytest.raises(KeepGraphError) as e:
            stranger.list_memories(server.owner)
        assert e.value.code == "unauthenticated"


def test_models_are_generated_from_the_served_openapi_document(server: Server, tmp_path: Path) -> None:
    # The models are generated (codegen/generate.py) from the named answers of
    # the document this server serves; a schema changed on the server without
    # `pnpm generate` leaves the committed file behind, and fails here.
    doc = httpx.get(f"{server.base}/openapi.json").json()
    source = tmp_path / "openapi.json"
    source.write_text(json.dumps(doc))
    fresh = tmp_path / "models.py"
    subprocess.run([sys.executable, str(CODEGEN), str(source), str(fresh)], check=True, capture_output=True)
    committed = Path(keepgraph._generated_models.__file__).read_text()
    assert fresh.read_text() == committed, "run `pnpm generate`: the Python models are stale"
    # And the client reads what the server writes: a stored memory's fields.
    write = doc["paths"]["/v1/owners/{ownerId}/memories"]["post"]["responses"]["201"]
    assert write["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/RememberResult"}
    served = set(doc["components"]["schemas"]["Memory"]["properties"])
    assert {f.alias or name for name, f in Memory.model_fields.items()} == served
