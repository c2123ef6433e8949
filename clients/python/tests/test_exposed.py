"""Every use-case the server's registry exposes is callable through
``invoke`` with no code of its own here (the bindings in ``_exposed.py`` are
generated from the registry), sync and async; an unknown name is refused
before anything is sent."""

from __future__ import annotations

import asyncio

import pytest

from keepgraph import AsyncClient, Client
from keepgraph._exposed import EXPOSED
from keepgraph._generated_models import OwnerStats

from .conftest import Server


def test_owner_stats_is_exposed(server: Server) -> None:
    # The worked example of docs/adding-a-use-case.md.
    assert "ownerStats" in EXPOSED
    with Client(server.base, api_key=server.user_key) as kg:
        kg.remember(server.owner, kind="fact", text="Alex keeps bees on the allotment", origin={"sessionId": "py-x"})
        stats = kg.invoke("ownerStats", server.owner)
        # Its model, generated from the answer's schema declared in core.
        assert isinstance(stats, OwnerStats)
        assert stats.owner_id == server.owner
        assert stats.memories >= 1 and stats.by_kind["fact"] >= 1
        assert stats.by_authority["user"] >= 1

    async def run() -> None:
        async with AsyncClient(server.base, api_key=server.user_key) as kg:
            again = await kg.invoke("ownerStats", server.owner)
            assert isinstance(again, OwnerStats) and again.owner_id == server.owner

    asyncio.run(run())


def test_unknown_use_case_is_refused(server: Server) -> None:
    with Client(server.base, api_key=server.user_key) as kg:
        with pytest.raises(ValueError):
            kg.invoke("noSuchUseCase", server.owner)
