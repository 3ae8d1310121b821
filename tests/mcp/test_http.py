"""MCP over streamable HTTP at /mcp, driven by the official SDK client against a live server."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
import sqlalchemy as sa
from mcp import Client, ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent
from support.api import INIT_MCP, auth, make_settings, tasks_of, token_for

from backend.app.core.logging import request_id_var
from backend.app.main import create_app
from backend.app.tools.registry import TOOLS

Live = Any  # the `live` fixture of tests/mcp/conftest.py

INIT = INIT_MCP
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def payload(result: CallToolResult) -> dict[str, Any]:
    """The tool result envelope, which the server sends both structured and as JSON text."""
    text = result.content[0]
    assert isinstance(text, TextContent), result.content
    assert result.structured_content == json.loads(text.text)
    return dict(result.structured_content)


async def test_lists_the_five_tools_with_the_models_schemas(live: Live, mcp_session: Any) -> None:
    async with mcp_session(live.url) as session:
        listed = (await session.list_tools()).tools
    assert [t.name for t in listed] == list(TOOLS)
    for tool in listed:
        spec = TOOLS[tool.name].spec
        assert tool.input_schema == spec.parameters  # the very schema the chat model sees
        assert tool.description == spec.description
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is spec.read_only
        assert tool.annotations.destructive_hint is spec.destructive


async def test_each_tool_changes_the_database(live: Live, mcp_session: Any) -> None:
    async with mcp_session(live.url) as session:
        added = payload(await session.call_tool("add_task", {"title": "Buy milk", "due_date": "2026-11-23"}))
        assert added["success"] is True
        [task] = await tasks_of(live.client)
        assert (task["id"], task["title"], task["due_date"]) == (added["data"]["id"], "Buy milk", "2026-11-23")

        listed = payload(await session.call_tool("list_tasks", {"status": "pending"}))
        assert [t["title"] for t in listed["data"]["tasks"]] == ["Buy milk"]

        # Title references go through the same fuzzy resolver as chat turns.
        updated = payload(await session.call_tool("update_task", {"task_id": "buy mlk", "priority": "high"}))
        assert updated["success"] is True
        assert (await tasks_of(live.client))[0]["priority"] == "high"

        done = payload(await session.call_tool("complete_task", {"task_id": "BUY MILK"}))
        assert done["data"]["status"] == "completed"
        assert (await tasks_of(live.client))[0]["status"] == "completed"

        gone = payload(await session.call_tool("delete_task", {"task_id": added["data"]["id"]}))
        assert gone["data"] == {"id": added["data"]["id"], "title": "Buy milk", "status": "deleted"}
        assert await tasks_of(live.client) == []


async def test_each_call_is_recorded_beside_its_effect(live: Live, mcp_session: Any) -> None:
    async with mcp_session(live.url) as session:
        added = payload(await session.call_tool("add_task", {"title": "Buy milk"}))
        refused = payload(await session.call_tool("add_task", {"title": ""}))
    async with live.client.app.state.engine.connect() as conn:
        rows = (
            await conn.execute(sa.text("SELECT * FROM tool_executions ORDER BY created_at, tool_call_id"))
        ).mappings()
        recorded = [dict(r) for r in rows]
    assert [(r["tool_name"], r["success"], r["user_id"], r["conversation_id"]) for r in recorded] == [
        ("add_task", True, "alice", None),
        ("add_task", False, "alice", None),
    ]
    assert recorded[0]["result"]["data"]["id"] == added["data"]["id"]
    assert recorded[1]["result"]["code"] == refused["code"] == "INVALID_ARGUMENTS"
    assert recorded[0]["turn_id"] != recorded[1]["turn_id"]  # each call is its own unit
    assert all(r["tool_call_id"].startswith("mcp-") for r in recorded)


async def test_same_coercion_validation_and_guards_as_chat(live: Live, mcp_session: Any) -> None:
    async with mcp_session(live.url) as session:
        # Coerced (enum case) and an invented owner dropped: the owner is always the token's user.
        coerced = await session.call_tool("add_task", {"title": "Call mom", "priority": "HIGH", "user_id": "bob"})
        body = payload(coerced)
        assert body["success"] is True and body["data"]["priority"] == "high"
        assert any("dropped" in w for w in body["warnings"])
        assert [t["title"] for t in await tasks_of(live.client, "alice")] == ["Call mom"]
        assert await tasks_of(live.client, "bob") == []

        invalid = await session.call_tool("add_task", {"title": ""})
        assert invalid.is_error and payload(invalid)["code"] == "INVALID_ARGUMENTS"

        past = await session.call_tool("add_task", {"title": "Old", "due_date": "2020-01-01"})
        assert past.is_error and payload(past)["code"] == "DUE_DATE_IN_PAST"

        missing = await session.call_tool("complete_task", {"task_id": "walk the dog"})
        assert missing.is_error and payload(missing)["error"] == "No task matching 'walk the dog' found"

        with pytest.raises(MCPError, match="Unknown tool"):
            await session.call_tool("drop_database", {})
    assert [t["title"] for t in await tasks_of(live.client)] == ["Call mom"]


async def test_dates_are_read_in_the_callers_time_zone(live: Live, mcp_session: Any) -> None:
    """The frozen clock says 12:00 UTC on 22 November: 02:00 on the 23rd in Kiritimati (UTC+14), where the
    22nd is past; 01:00 on the 22nd in Pago Pago (UTC-11). X-Time-Zone, then the token's zoneinfo claim."""
    day = {"title": "Pay rent", "due_date": "2026-11-22"}
    async with mcp_session(live.url, time_zone="Pacific/Kiritimati") as session:
        past = await session.call_tool("add_task", day)
        assert past.is_error and payload(past)["code"] == "DUE_DATE_IN_PAST"
        assert "2026-11-23" in payload(past)["error"]
    async with mcp_session(live.url, time_zone="Pacific/Pago_Pago") as session:
        assert not (await session.call_tool("add_task", day)).is_error
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        bad = await http.post("/mcp", json=INIT, headers={**MCP_HEADERS, **auth(), "X-Time-Zone": "Mars/Base"})
        assert bad.status_code == 422 and bad.json()["error"] == "INVALID_TIME_ZONE"
        claimed = {"Authorization": f"Bearer {token_for(zoneinfo='Mars/Base')}"}
        assert (await http.post("/mcp", json=INIT, headers={**MCP_HEADERS, **claimed})).status_code == 422
    assert [t["due_date"] for t in await tasks_of(live.client)] == ["2026-11-22"]


async def test_a_repeating_task_at_a_time_is_added_and_moved_through_mcp(live: Live, mcp_session: Any) -> None:
    """Sunday 22 November, 12:00 UTC: "every Tuesday at 07:00" in Pago Pago is due Tuesday the 24th;
    completing it moves it to 1 December, the same local time (the result says when: `next_due`)."""
    async with mcp_session(live.url, time_zone="Pacific/Pago_Pago") as session:
        added = payload(
            await session.call_tool(
                "add_task", {"title": "Bins", "due_at": "2026-11-24T07:00", "recurrence": "FREQ=WEEKLY;BYDAY=TU"}
            )
        )
        done = payload(await session.call_tool("complete_task", {"task_id": "Bins"}))
    assert added["data"]["due_at"] == "2026-11-24T07:00:00-11:00", added
    assert done["success"] and done["data"]["next_due"] == "2026-12-01T07:00:00-11:00", done
    assert done["data"]["status"] == "pending"


async def test_missing_or_invalid_token_is_401_in_the_contract_shape(live: Live) -> None:
    for headers in ({}, {"Authorization": "Bearer not-a-jwt"}, {"Authorization": "Basic abc"}):
        response = await live.client.post("/mcp", json=INIT, headers={**MCP_HEADERS, **headers})
        assert response.status_code == 401
        assert response.json()["error"] == "UNAUTHORIZED" and response.json()["detail"]
        assert response.headers["www-authenticate"] == "Bearer"


async def test_another_users_token_cannot_reach_its_tasks_and_no_session_is_kept(live: Live, mcp_session: Any) -> None:
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        opened = await http.post("/mcp", json=INIT, headers={**MCP_HEADERS, **auth("alice")})
        assert opened.status_code == 200
        assert "mcp-session-id" not in opened.headers  # stateless: nothing for another request to hijack

    async with mcp_session(live.url, "alice") as alice:
        task_id = payload(await alice.call_tool("add_task", {"title": "Alice's secret"}))["data"]["id"]
    async with mcp_session(live.url, "bob") as bob:
        assert payload(await bob.call_tool("list_tasks", {}))["data"]["tasks"] == []
        for tool in ("delete_task", "complete_task"):
            result = await bob.call_tool(tool, {"task_id": task_id})
            assert result.is_error and payload(result)["code"] == "NOT_FOUND"
        result = await bob.call_tool("update_task", {"task_id": "Alice's secret", "title": "pwned"})
        assert result.is_error
    [task] = await tasks_of(live.client, "alice")
    assert (task["id"], task["title"], task["status"]) == (task_id, "Alice's secret", "pending")


class _RequestIds(logging.Handler):
    """Records the request id on the logging context when each `mcp_tool_call` line is emitted."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str | None] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == "mcp_tool_call":
            self.seen.append(request_id_var.get())


async def test_mcp_calls_are_counted_and_logged_with_their_request_id(live: Live, mcp_session: Any) -> None:
    request_id = f"mcp-{uuid.uuid4().hex[:8]}"
    handler = _RequestIds()
    logger = logging.getLogger("backend.app.mcp.server")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        async with mcp_session(live.url, request_id=request_id) as session:
            await session.call_tool("add_task", {"title": "Counted"})
            await session.call_tool("delete_task", {"task_id": "nothing like it"})
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    assert handler.seen == [request_id, request_id]

    text = (await live.client.get("/metrics")).text
    assert 'taskchat_tool_results_total{source="mcp",status="success",tool="add_task"} 1.0' in text
    assert 'taskchat_tool_results_total{source="mcp",status="error",tool="delete_task"} 1.0' in text
    assert 'route="/mcp"' in text


async def test_the_2026_protocol_era_serves_the_same_tools(live: Live) -> None:
    """The SDK's high-level Client negotiates the newest protocol (per-request, no session) by default."""
    headers = {"Authorization": f"Bearer {token_for('alice')}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(f"{live.url}/mcp", http_client=http), mode="auto") as client,
    ):
        assert client.session.protocol_version not in (None, "2025-06-18", "2025-11-25")
        assert [t.name for t in (await client.list_tools()).tools] == list(TOOLS)
        added = await client.call_tool("add_task", {"title": "Modern milk"})
        assert not added.is_error
    assert [t["title"] for t in await tasks_of(live.client)] == ["Modern milk"]


class _RoundRobin(httpx2.AsyncBaseTransport):
    """A load balancer without affinity: each request goes to the next instance in turn."""

    def __init__(self, ports: list[int]) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.ports = ports
        self.served: list[int] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        port = self.ports[len(self.served) % len(self.ports)]
        self.served.append(port)
        request.url = request.url.copy_with(port=port)
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_client_is_served_by_any_instance_without_sticky_sessions(two_instances: Any) -> None:
    first, second = two_instances
    ports = [int(live.url.rsplit(":", 1)[1]) for live in (first, second)]
    balancer = _RoundRobin(ports)
    headers = {"Authorization": f"Bearer {token_for('alice')}"}
    async with (
        httpx2.AsyncClient(transport=balancer, headers=headers, timeout=30) as http,
        streamable_http_client(f"{first.url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()  # on one instance …
        added = payload(await session.call_tool("add_task", {"title": "Balanced milk"}))  # … tools on the others
        listed = payload(await session.call_tool("list_tasks", {}))
        done = payload(await session.call_tool("complete_task", {"task_id": "balanced milk"}))
    assert set(balancer.served) == set(ports)  # both instances answered part of the one conversation
    assert [t["title"] for t in listed["data"]["tasks"]] == ["Balanced milk"]
    assert done["data"]["id"] == added["data"]["id"] and done["data"]["status"] == "completed"
    for live in (first, second):  # one database: each instance sees the same result
        assert [t["status"] for t in await tasks_of(live.client)] == ["completed"]


async def test_two_first_requests_at_once_start_one_session_manager(live: Live, mcp_session: Any) -> None:
    """A worker starts the SDK's session manager on its first MCP request; two arriving together
    share the one the first started."""
    assert not [t for t in asyncio.all_tasks() if t.get_name() == "mcp-session-manager"]

    async def tools(user: str) -> list[str]:
        async with mcp_session(live.url, user) as session:
            return [tool.name for tool in (await session.list_tools()).tools]

    listed = await asyncio.gather(tools("alice"), tools("bob"))

    assert listed[0] == listed[1] == list(TOOLS)
    assert len([t for t in asyncio.all_tasks() if t.get_name() == "mcp-session-manager"]) == 1


async def test_outside_the_lifespan_mcp_is_not_ready(database: str) -> None:
    app = create_app(make_settings(database, llm_api_key=None), configure_logs=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://taskchat.test") as client:
        response = await client.post("/mcp", json=INIT, headers={**MCP_HEADERS, **auth()})

    assert response.status_code == 503 and response.json()["error"] == "NOT_READY"


def test_a_worker_loads_the_sdk_with_its_first_mcp_request_only(database: str) -> None:
    """The SDK (its protocol's models: about 26 MB of a worker) is not in a worker that serves only
    the chat and the REST API; its first MCP request loads it. In a process of its own, since this
    one has long imported it."""
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        import httpx
        from support.api import INIT_MCP, auth, make_settings
        from backend.app.main import create_app

        async def main():
            app = create_app(make_settings({database!r}, llm_api_key=None), configure_logs=False)
            async with app.router.lifespan_context(app):
                transport = httpx.ASGITransport(app=app)
                async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                    turn = await client.post("/api/alice/chat", json={{"message": "add milk"}}, headers=auth())
                    listed = await client.get("/api/alice/tasks", headers=auth())
                    print(turn.status_code, listed.status_code, "mcp" in sys.modules)
                    headers = {{**auth(), "Accept": "application/json, text/event-stream"}}
                    first = await client.post("/mcp", json=INIT_MCP, headers=headers)
                    print(first.status_code, "mcp" in sys.modules)

        asyncio.run(main())
        """
    )
    tests = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": f"{tests}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)

    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["200 200 False", "200 True"]


async def test_a_manager_that_starts_as_the_lifespan_ends_is_stopped_not_kept(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first MCP request starting the session manager while the app's lifespan ends gets no
    manager (its request is answered 503), the manager is stopped, and the next lifespan starts one
    of its own instead of the stopped one."""
    from contextlib import asynccontextmanager

    import backend.app.mcp.session as sdk_side
    from backend.app.mcp.http import McpHttpEndpoint

    entered, release = asyncio.Event(), asyncio.Event()
    stopped: list[object] = []

    class SlowManager:
        @asynccontextmanager
        async def run(self) -> Any:
            entered.set()
            await release.wait()
            try:
                yield
            finally:
                stopped.append(self)

    monkeypatch.setattr(sdk_side, "session_manager", lambda tools_for_user, metrics: SlowManager())
    endpoint = McpHttpEndpoint(settings=make_settings(database, llm_api_key=None))
    # SlowManager stands for the SDK's session manager and never asks for tools: a stub will do.
    async with endpoint.run(tools_for_user=lambda user: None):  # type: ignore[arg-type]
        starting = asyncio.create_task(endpoint._started())
        await entered.wait()
    release.set()

    assert await starting is None
    assert len(stopped) == 1
    async with endpoint.run(tools_for_user=lambda user: None):  # type: ignore[arg-type]
        fresh = await endpoint._started()
        assert isinstance(fresh, SlowManager) and fresh is not stopped[0]
    assert len(stopped) == 2
