"""Ids in URL paths: each id is one path segment that reaches its own route,
whatever it holds. No server: the requests are caught on the way out."""

from __future__ import annotations

from typing import List

import httpx

from keepgraph import Client, KeepGraphError


def _client(seen: List[httpx.Request]) -> Client:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(400, json={"error": {"code": "invalid_input", "message": "refused"}})

    kg = Client("http://keepgraph.test", api_key="kgk_test", retries=0)
    kg._http = httpx.Client(base_url=kg._o.base_url, headers=kg._o.headers, transport=httpx.MockTransport(handler))
    return kg


def test_dot_segments_reach_their_own_route() -> None:
    seen: List[httpx.Request] = []
    with _client(seen) as kg:
        for call in (
            lambda: kg.read_session("zed", ".."),
            lambda: kg.forget_session("zed", "..", dry_run=True),
            lambda: kg.get("..", "."),
            lambda: kg.get_by_key("zed", ".."),
        ):
            try:
                call()
            except KeepGraphError as e:
                assert e.code == "invalid_input"
    paths = [r.url.raw_path.decode() for r in seen]
    assert paths == [
        "/v1/owners/zed/sessions/%2E%2E/messages",
        "/v1/owners/zed/sessions/%2E%2E/forget",
        "/v1/owners/%2E%2E/memories/%2E",
        "/v1/owners/zed/kv/%2E%2E",
    ]


def test_other_ids_are_escaped_whole() -> None:
    seen: List[httpx.Request] = []
    with _client(seen) as kg:
        try:
            kg.read_session("a/b.c", "s 1?x#y")
        except KeepGraphError as e:
            assert e.code == "invalid_input"
    assert [r.url.raw_path.decode() for r in seen] == ["/v1/owners/a%2Fb%2Ec/sessions/s%201%3Fx%23y/messages"]
