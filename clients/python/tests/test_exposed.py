"""Every use-case the server's registry exposes is callable through
``invoke`` with no code of its own here (the bindings in ``_exposed.py`` are
generated from the registry), sync and async; an unknown name is refused
before anything is sent."""

from __future__ import annotations

import asyncio

import pytest

from keepgraph import AsyncClient, Client
from keepgraph._exposed import EXPOSED

from .conftest import Server


def test_owner_stats_is_exposed(server: Server) -> None:
    # The worked example of docs/adding-a-use-case.md.
    assert "ownerStats" in EXPOSED
    with Client(server.base, api_key=server.user_key) as kg:
        kg.remember(server.owner, kind="fact", text="Alex keeps bees on the allotment", origin={"sessionId": "py-x"})
        stats = kg.invoke("ownerStats", server.owner)
        assert stats["ownerId"] == server.owner
        assert stats["memories"] >= 1 and stats["byKind"]["fact"] >= 1
        assert stats["byAuthority"]["user"] >= 1

    async def run() -> None:
        async with AsyncClient(server.base, api_key=server.user_key) as kg:
            again = await kg.invoke("ownerStats", server.owner)
            assert again["ownerId"] == server.owner

    asyncio.run(run())


def test_unknown_use_case_is_refused(server: Server) -> None:
    with Client(server.base, api_key=server.user_key) as kg:
        with pytest.raises(ValueError):
            kg.invoke("noSuchUseCase", server.owner)
