"""LLM server faults, end to end: each one maps to 502/503/504 with the contract's error JSON,
retries are bounded, the user's message and the error are stored, and nothing half-done remains.

Faults are injected through the scripted model (httpx.MockTransport): HTTP statuses, transport
exceptions, provider errors inside a 200 body, malformed bodies and a response slower than the
turn's deadline. Backoff delays are computed by the real client and recorded, but slept only
briefly (see `backoffs`), so the suite stays fast.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from reliability.rel_support import Figures, app_sessions, assert_error_shape, db_now, stored_turn
from sqlalchemy.ext.asyncio import AsyncEngine
from support.api import MakeClient, chat, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.agent.llm import HttpLLMClient

MAX_RETRIES = 2


@pytest.fixture
def backoffs(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Record each backoff the client computes (jitter and Retry-After included); sleep at most 10 ms."""
    seen: list[float] = []
    real = HttpLLMClient._backoff

    def fast(self: HttpLLMClient, attempt: int, retry_after: float | None) -> float:
        delay = real(self, attempt, retry_after)
        seen.append(delay)
        return min(delay, 0.01)

    monkeypatch.setattr(HttpLLMClient, "_backoff", fast)
    return seen


def _status(code: int, *, json: Any = None, headers: dict[str, str] | None = None) -> Callable[[Any], httpx.Response]:
    return lambda _body: httpx.Response(code, json=json or {"error": {"message": f"upstream {code}"}}, headers=headers)


def _raw(content: bytes) -> Callable[[Any], httpx.Response]:
    return lambda _body: httpx.Response(200, content=content, headers={"Content-Type": "application/json"})


def _body(body: Any) -> Callable[[Any], httpx.Response]:
    return lambda _body: httpx.Response(200, json=body)


def _raise(exc: Callable[[], Exception]) -> Callable[[Any], Exception]:
    return lambda _body: exc()


@dataclass(frozen=True)
class Fault:
    name: str
    answer: Callable[[Any], Any]
    status: int
    code: str
    retried: bool
    retry_after: str | None = None


FAULTS = [
    Fault("429 Retry-After 0", _status(429, headers={"Retry-After": "0"}), 503, "LLM_UNAVAILABLE", True, "1"),
    Fault("429 Retry-After 2", _status(429, headers={"Retry-After": "2"}), 503, "LLM_UNAVAILABLE", True, "2"),
    Fault("500", _status(500), 503, "LLM_UNAVAILABLE", True),
    Fault("502", _status(502), 503, "LLM_UNAVAILABLE", True),
    Fault("503", _status(503), 503, "LLM_UNAVAILABLE", True),
    Fault("503 Retry-After 1", _status(503, headers={"Retry-After": "1"}), 503, "LLM_UNAVAILABLE", True, "1"),
    Fault("504", _status(504), 504, "LLM_TIMEOUT", True),
    Fault("408", _status(408), 504, "LLM_TIMEOUT", True),
    Fault("ConnectError", _raise(lambda: httpx.ConnectError("connection refused")), 503, "LLM_UNAVAILABLE", True),
    Fault("ReadTimeout", _raise(lambda: httpx.ReadTimeout("read timed out")), 504, "LLM_TIMEOUT", True),
    Fault("RemoteProtocolError", _raise(lambda: httpx.RemoteProtocolError("eof")), 503, "LLM_UNAVAILABLE", True),
    Fault("400", _status(400), 502, "LLM_BAD_RESPONSE", False),
    Fault("401", _status(401), 502, "LLM_BAD_RESPONSE", False),
    Fault("404", _status(404), 502, "LLM_BAD_RESPONSE", False),
    Fault(
        "200 with error object",
        _body({"error": {"message": "Provider returned error", "code": 502}}),
        502,
        "LLM_BAD_RESPONSE",
        False,
    ),
    Fault("200 choices []", _body({"choices": []}), 502, "LLM_BAD_RESPONSE", False),
    Fault("200 no choices key", _body({"id": "x"}), 502, "LLM_BAD_RESPONSE", False),
    Fault(
        "200 message null",
        _body({"choices": [{"index": 0, "message": None, "finish_reason": "stop"}]}),
        502,
        "LLM_BAD_RESPONSE",
        False,
    ),
    Fault(
        "200 finish_reason length, no content",
        _body(completion(None, finish_reason="length")),
        502,
        "LLM_BAD_RESPONSE",
        False,
    ),
    Fault("200 finish_reason error", _body(completion("", finish_reason="error")), 502, "LLM_BAD_RESPONSE", False),
    Fault("200 not JSON", _raw(b"<html>Bad gateway</html>"), 502, "LLM_BAD_RESPONSE", False),
    Fault("200 JSON array", _body([1, 2, 3]), 502, "LLM_BAD_RESPONSE", False),
]


@pytest.mark.parametrize("fault", FAULTS, ids=[f.name for f in FAULTS])
async def test_fault_maps_to_contract_error(
    make_client: MakeClient, backoffs: list[float], figures: Figures, fault: Fault
) -> None:
    llm = ScriptedLLM(default=fault.answer)
    client = await make_client(llm, llm_max_retries=MAX_RETRIES)

    response = await chat(client, "add Buy milk")

    figures["faults"]["injected"] += 1
    figures["faults"]["llm_requests"] += len(llm.requests)
    figures["faults"]["mapped_5xx"] += response.status_code in (502, 503, 504)
    figures["faults"]["unmapped_5xx"] += response.status_code >= 500 and response.status_code not in (502, 503, 504)
    assert_error_shape(response, fault.status, fault.code)
    # Bounded: retryable faults are tried 1 + LLM_MAX_RETRIES times, the others exactly once.
    assert len(llm.requests) == (1 + MAX_RETRIES if fault.retried else 1)
    assert response.headers.get("Retry-After") == fault.retry_after
    # Nothing half-done: no task; the user's message and the error are both kept.
    assert await tasks_of(client) == []
    user, assistant = await stored_turn(client)
    assert (user["role"], user["content"], user["is_error"]) == ("user", "add Buy milk", False)
    assert assistant["role"] == "assistant" and assistant["is_error"] is True
    assert assistant["execution_metadata"]["error"] == fault.code
    assert assistant["execution_metadata"]["status"] == fault.status


async def test_backoff_is_jittered_exponential(make_client: MakeClient, backoffs: list[float]) -> None:
    llm = ScriptedLLM(default=_status(500))
    client = await make_client(llm, llm_max_retries=4)

    assert (await chat(client, "add Buy milk")).status_code == 503

    assert len(llm.requests) == 5
    # 0.5 s doubling to 8 s, each drawn from [ceiling/2, ceiling].
    for attempt, delay in enumerate(backoffs, start=1):
        ceiling = min(8.0, 0.5 * 2 ** (attempt - 1))
        assert ceiling / 2 <= delay <= ceiling, (attempt, delay)


@pytest.mark.parametrize("max_retries", [0, 1, 3])
async def test_retries_are_bounded_by_setting(make_client: MakeClient, backoffs: list[float], max_retries: int) -> None:
    for answer in (_status(502), _raise(lambda: httpx.ConnectError("refused"))):
        llm = ScriptedLLM(default=answer)
        client = await make_client(llm, llm_max_retries=max_retries)
        assert_error_shape(await chat(client, "add Buy milk"), 503, "LLM_UNAVAILABLE")
        assert len(llm.requests) == 1 + max_retries


async def test_transient_faults_then_success_create_one_task(make_client: MakeClient, backoffs: list[float]) -> None:
    llm = ScriptedLLM(
        httpx.Response(503),
        httpx.ConnectError("refused"),
        calls(("add_task", {"title": "Buy milk"})),
    )
    client = await make_client(llm, llm_max_retries=2)

    response = await chat(client, "add Buy milk")

    assert response.status_code == 200, response.text
    assert len(llm.requests) == 3
    assert [t["title"] for t in await tasks_of(client)] == ["Buy milk"]


async def test_retry_after_beyond_the_deadline_fails_at_once(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=_status(429, headers={"Retry-After": "120"}))
    client = await make_client(llm, llm_max_retries=3)

    started = time.monotonic()
    response = await chat(client, "add Buy milk")

    assert time.monotonic() - started < 2
    assert_error_shape(response, 503, "LLM_UNAVAILABLE")
    assert response.headers["Retry-After"] == "120"
    assert len(llm.requests) == 1  # waiting 120 s would pass the 60 s deadline: no retry


@pytest.mark.parametrize("where", ["setting", "request budget"])
async def test_slow_model_beyond_the_deadline_is_504(make_client: MakeClient, figures: Figures, where: str) -> None:
    llm = ScriptedLLM(default=completion("too late"), delay_s=30)
    if where == "setting":
        client = await make_client(llm, budget_max_latency_ms=300)
        extra: dict[str, Any] = {}
    else:
        client = await make_client(llm)
        extra = {"budget": {"max_latency_ms": 300}}

    started = time.monotonic()
    response = await chat(client, "add Buy milk", **extra)
    elapsed = time.monotonic() - started

    figures["faults"]["injected"] += 1
    figures["faults"]["llm_requests"] += len(llm.requests)
    figures["faults"]["mapped_5xx"] += response.status_code in (502, 503, 504)
    figures["faults"]["unmapped_5xx"] += response.status_code >= 500 and response.status_code not in (502, 503, 504)
    assert_error_shape(response, 504, "LLM_TIMEOUT")
    assert elapsed < 10, elapsed  # the turn's 0.3 s deadline bounds the wait, not the server's 30 s
    assert len(llm.requests) == 1
    assert await tasks_of(client) == []
    assert [m["is_error"] for m in await stored_turn(client)] == [False, True]


async def test_tool_effect_stands_when_the_provider_fails_afterwards(
    make_client: MakeClient, backoffs: list[float], figures: Figures
) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Buy milk"})), default=_status(500))
    # `model` response mode asks the model for the reply after the tool ran: that second request fails.
    client = await make_client(llm, response_mode="model", llm_max_retries=MAX_RETRIES)

    response = await chat(client, "add Buy milk")

    figures["faults"]["injected"] += 1
    figures["faults"]["llm_requests"] += len(llm.requests)
    figures["faults"]["after_tool_200"] += response.status_code == 200
    figures["faults"]["unmapped_5xx"] += response.status_code >= 500 and response.status_code not in (502, 503, 504)
    assert response.status_code == 200, response.text
    body = response.json()
    assert len(llm.requests) == 1 + 1 + MAX_RETRIES
    tasks = await tasks_of(client)
    assert [t["title"] for t in tasks] == ["Buy milk"]
    # The reply is built from the tool result, not from a model that never answered.
    assert "Buy milk" in body["assistant_message"]
    assert body["action_metadata"]["success"] is True
    assert body["action_metadata"]["task_id"] == tasks[0]["id"]
    assert body["execution_metadata"]["provider_error"]["code"] == "LLM_UNAVAILABLE"
    assert body["tool_calls"][0]["result"]["success"] is True
    _user, assistant = await stored_turn(client)
    assert assistant["is_error"] is False
    assert assistant["content"] == body["assistant_message"]
    assert assistant["tool_calls"][0]["name"] == "add_task"


async def test_no_transaction_is_held_across_an_llm_call(make_client: MakeClient, probe: AsyncEngine) -> None:
    """While the model "thinks", no app session may sit in a transaction that began before the call.

    (Another turn's own short transaction may be open for a few milliseconds at any moment; one that
    began before this model call and is still open after it would be held across it.)
    """
    seen: list[tuple[int, int]] = []

    async def observe(answer: dict[str, Any]) -> dict[str, Any]:
        called = await db_now(probe)
        await asyncio.sleep(0.1)
        seen.append(await app_sessions(probe, since=called))
        return answer

    def answer(body: dict[str, Any]) -> Any:
        last = body["messages"][-1]
        if last["role"] == "tool":
            return observe(completion("Added it."))
        return observe(calls(("add_task", {"title": last["content"].removeprefix("add ")})))

    llm = ScriptedLLM(default=answer)
    client = await make_client(llm, response_mode="model")

    # One turn alone, then two overlapping turns; each asks the model twice (before and after its tool ran).
    assert (await chat(client, "add Pay rent")).status_code == 200
    responses = await asyncio.gather(chat(client, "add Buy milk"), chat(client, "add Call mom"))

    assert [r.status_code for r in responses] == [200, 200]
    assert len(seen) == 6
    assert all(sessions >= 1 for _idle, sessions in seen), seen  # the app's pool really is connected
    assert [idle for idle, _sessions in seen] == [0] * 6
    assert len(await tasks_of(client)) == 3


async def test_idle_in_transaction_probe_detects_an_open_transaction(probe: AsyncEngine, database: str) -> None:
    """Control for the test above: the probe does see a session that holds a transaction open."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    holder = create_async_engine(database, connect_args={"server_settings": {"application_name": "tx-holder"}})
    try:
        async with holder.connect() as conn:
            await conn.execute(text("SELECT 1"))  # autobegin: the transaction stays open
            idle, sessions = await app_sessions(probe, "tx-holder")
            assert (idle, sessions) == (1, 1)
    finally:
        await holder.dispose()
