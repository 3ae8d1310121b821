"""Streaming chat (issue 16): `Accept: text/event-stream` streams the turn over real HTTP (uvicorn on
loopback): tool events as they run, then the checked reply in deltas, then `done` with exactly the
plain body; replays, errors, and a client that disconnects mid-turn."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from support.api import auth, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion
from support.live import LiveWith
from support.sse import STREAM, parse, streamed

from backend.app.schemas.chat import ChatResponse


async def test_tool_events_then_the_reply_then_done_equal_to_the_plain_body(live_with: LiveWith) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Buy milk"}), ("add_task", {"title": "Call mom"})))
    live = await live_with(llm)

    response = await streamed(live, "add buy milk and call mom")

    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = parse(response.text)
    kinds = [kind for kind, _ in events]
    assert kinds == ["tool", "tool", *(["delta"] * (len(kinds) - 3)), "done"] and "delta" in kinds
    done = events[-1][1]
    assert [data for kind, data in events if kind == "tool"] == done["tool_calls"]
    assert "".join(data["text"] for kind, data in events if kind == "delta") == done["assistant_message"]
    assert done["assistant_message"] == "Added: “Buy milk”.\nAdded: “Call mom”."
    assert done == ChatResponse.model_validate(done).model_dump(mode="json")  # the plain route's body, whole
    assert sorted(t["title"] for t in await tasks_of(live.client)) == ["Buy milk", "Call mom"]


async def test_a_confirmation_is_an_event_before_the_reply(live_with: LiveWith) -> None:
    four = ("Taxes", "Bread", "Gym", "Laundry")
    llm = ScriptedLLM(calls(*[("delete_task", {"task_id": t}) for t in four]))
    live = await live_with(llm, max_destructive_calls_per_turn=2)
    await seed_tasks(live.client, *four)

    events = parse((await streamed(live, "delete taxes, bread, gym and laundry")).text)

    kinds = [kind for kind, _ in events]
    assert kinds.index("confirmation") < kinds.index("delta") < kinds.index("done")
    confirmation = next(data for kind, data in events if kind == "confirmation")
    assert confirmation == events[-1][1]["confirmation"] and "Answer yes or no" in confirmation["question"]


async def test_tool_events_arrive_while_the_model_still_thinks(live_with: LiveWith) -> None:
    """The second model call takes 1.5 s; the first step's tool event is on the wire before it ends."""

    async def answer(body: dict[str, Any]) -> Any:
        if body["messages"][-1]["role"] == "tool":
            await asyncio.sleep(1.5)
            return completion("Added it.")
        return calls(("add_task", {"title": "Buy milk"}))

    live = await live_with(ScriptedLLM(default=answer), response_mode="model")
    arrivals: list[tuple[str, float]] = []
    started = time.monotonic()
    async with (
        httpx.AsyncClient(base_url=live.url, timeout=30) as http,
        http.stream("POST", "/api/alice/chat", json={"message": "add buy milk"}, headers={**auth(), **STREAM}) as r,
    ):
        async for line in r.aiter_lines():
            if line.startswith("event: "):
                arrivals.append((line.removeprefix("event: "), time.monotonic() - started))

    tool_at = next(t for kind, t in arrivals if kind == "tool")
    done_at = next(t for kind, t in arrivals if kind == "done")
    assert done_at - tool_at >= 1.0, arrivals  # the tool event did not wait for the reply


async def test_a_replay_streams_the_stored_response(live_with: LiveWith) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Renew passport"})))
    live = await live_with(llm)

    first = await streamed(live, "add renew passport", key="stream-1")
    again = await streamed(live, "add renew passport", key="stream-1")

    assert again.headers["Idempotency-Replayed"] == "true"
    assert parse(again.text) == parse(first.text)  # the same tool events, reply and body
    assert [t["title"] for t in await tasks_of(live.client)] == ["Renew passport"]
    assert len(llm.requests) == 1


async def test_errors_before_the_first_event_keep_their_status(live_with: LiveWith) -> None:
    live = await live_with(ScriptedLLM(httpx.Response(503)), llm_max_retries=0, rate_limit_per_minute=1)

    unavailable = await streamed(live, "add buy milk")
    limited = await streamed(live, "add buy milk")

    assert unavailable.status_code == 503 and unavailable.json()["error"] == "LLM_UNAVAILABLE"
    assert limited.status_code == 429 and limited.headers["Retry-After"]
    assert await tasks_of(live.client) == []


async def test_an_error_after_the_stream_began_is_an_error_event_and_is_recorded(
    live_with: LiveWith, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = await live_with(ScriptedLLM(calls(("add_task", {"title": "Buy milk"}))))
    service = live.client.app.state.chat_service

    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the turn could not be recorded")

    monkeypatch.setattr(service.store, "persist", broken)
    events = parse((await streamed(live, "add buy milk")).text)

    assert [kind for kind, _ in events] == ["tool", "error"]
    assert events[-1][1] == {"error": "INTERNAL_ERROR", "detail": "An unexpected error occurred"}
    [conversation] = (await live.client.get("/api/alice/conversations", headers=auth())).json()
    messages = (await live.client.get(f"/api/alice/conversations/{conversation['id']}/messages", headers=auth())).json()
    assert [m["role"] for m in messages] == ["user", "assistant"] and messages[1]["is_error"] is True


async def test_a_client_that_disconnects_mid_turn_leaves_a_complete_record(live_with: LiveWith) -> None:
    gate = asyncio.Event()

    async def answer(body: dict[str, Any]) -> Any:
        if body["messages"][-1]["role"] == "tool":
            await gate.wait()  # the model is still writing when the client goes away
            return completion("Added it.")
        return calls(("add_task", {"title": "Buy milk"}))

    live = await live_with(ScriptedLLM(default=answer), response_mode="model")
    headers = {**auth(), **STREAM, "Idempotency-Key": "gone-1"}
    async with (
        httpx.AsyncClient(base_url=live.url, timeout=30) as http,
        http.stream("POST", "/api/alice/chat", json={"message": "add buy milk"}, headers=headers) as response,
    ):
        async for line in response.aiter_lines():
            if line == "event: tool":
                break  # the client leaves after the first event
    gate.set()

    for _ in range(200):  # the turn finishes on its own; until then the key is in flight (409)
        stored = await live.client.post(
            "/api/alice/chat", json={"message": "add buy milk"}, headers={**auth(), "Idempotency-Key": "gone-1"}
        )
        if stored.status_code == 200:
            break
        await asyncio.sleep(0.05)
    assert stored.status_code == 200 and stored.headers["Idempotency-Replayed"] == "true"
    reply = stored.json()["assistant_message"]
    assert reply.startswith("Added it.") and "Buy milk" in reply
    assert stored.json()["tool_calls"][0]["result"]["success"] is True
    [conversation] = (await live.client.get("/api/alice/conversations", headers=auth())).json()
    messages = (await live.client.get(f"/api/alice/conversations/{conversation['id']}/messages", headers=auth())).json()
    assert [m["role"] for m in messages] == ["user", "assistant"] and messages[1]["content"] == reply


async def test_accept_json_is_the_plain_route(live_with: LiveWith) -> None:
    live = await live_with(ScriptedLLM(calls(("add_task", {"title": "Buy milk"}))))
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        response = await http.post(
            "/api/alice/chat", json={"message": "add buy milk"}, headers={**auth(), "Accept": "application/json"}
        )
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["tool_calls"][0]["name"] == "add_task"
