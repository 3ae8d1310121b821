"""Idempotency-Key: a client retry can never create a task twice (Stripe's semantics)."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import httpx
import pytest
from support.api import NOW, MakeClient, auth, tasks_of
from support.fake_llm import ScriptedLLM, calls

from backend.app.core.clock import FixedClock
from backend.app.core.exceptions import AppError
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.services.turn.store import TurnStore

pytestmark = pytest.mark.through_pgbouncer  # the same tests through PgBouncer in transaction mode


async def post(client: httpx.AsyncClient, message: str, key: str) -> httpx.Response:
    headers = {**auth(), "Idempotency-Key": key}
    return await client.post("/api/alice/chat", json={"message": message}, headers=headers)


async def test_retry_with_same_key_returns_stored_response(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Pay rent"})))
    client = await make_client(llm)

    first = await post(client, "add Pay rent", "key-1")
    again = await post(client, "add Pay rent", "key-1")

    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.headers["Idempotency-Replayed"] == "true"
    assert len(llm.requests) == 1
    assert [t["title"] for t in await tasks_of(client)] == ["Pay rent"]


async def test_same_key_other_body_is_422(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM(calls(("add_task", {"title": "Pay rent"}))))
    assert (await post(client, "add Pay rent", "key-2")).status_code == 200
    response = await post(client, "add Pay the rent", "key-2")
    assert response.status_code == 422
    assert response.json()["error"] == "IDEMPOTENCY_KEY_REUSED"


async def test_same_key_while_in_flight_is_409(make_client: MakeClient) -> None:
    reached = asyncio.Event()

    async def slow(_body: dict[str, Any]) -> dict[str, Any]:
        reached.set()
        await asyncio.sleep(0.5)
        return calls(("add_task", {"title": "Slow one"}))

    client = await make_client(ScriptedLLM(slow))

    first = asyncio.create_task(post(client, "add Slow one", "key-3"))
    # The key is claimed before the model is called: once the first request reaches the model (which
    # then takes 0.5 s), the second one finds it in flight. (A fixed sleep lost the race on a busy
    # machine: the second request came first.)
    await asyncio.wait_for(reached.wait(), timeout=10)
    second = await post(client, "add Slow one", "key-3")

    assert second.status_code == 409
    assert second.json()["error"] == "IDEMPOTENCY_KEY_IN_FLIGHT"
    assert (await first).status_code == 200
    assert len(await tasks_of(client)) == 1


async def test_concurrent_retries_create_one_task(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=calls(("add_task", {"title": "Exactly once"})), delay_s=0.05)
    client = await make_client(llm)

    responses = await asyncio.gather(*(post(client, "add Exactly once", "key-race") for _ in range(20)))

    statuses = sorted(r.status_code for r in responses)
    assert set(statuses) <= {200, 409}
    assert 200 in statuses
    assert len(await tasks_of(client)) == 1
    assert len(llm.requests) == 1


async def test_failed_turn_releases_the_key(make_client: MakeClient) -> None:
    llm = ScriptedLLM(httpx.Response(400, json={"error": "bad"}), calls(("add_task", {"title": "Second try"})))
    client = await make_client(llm)

    failed = await post(client, "add Second try", "key-4")
    assert failed.status_code == 502
    retried = await post(client, "add Second try", "key-4")
    assert retried.status_code == 200
    assert [t["title"] for t in await tasks_of(client)] == ["Second try"]


async def test_a_turn_that_failed_after_its_change_is_not_run_again(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The task was added (and its call recorded) before the turn failed: releasing the key would let
    the retry add it again, so the retry gets the failure back instead."""

    async def fail(*_args: Any, **_kwargs: Any) -> None:
        raise AppError("The turn could not be recorded")

    monkeypatch.setattr(ConversationRepository, "record_turn", fail)
    llm = ScriptedLLM(calls(("add_task", {"title": "Only once"})))
    client = await make_client(llm)

    failed = await post(client, "add Only once", "key-after-change")
    retried = await post(client, "add Only once", "key-after-change")

    assert failed.status_code == 500 and failed.json()["error"] == "INTERNAL_ERROR"
    assert (retried.status_code, retried.json()) == (500, failed.json())
    assert retried.headers["Idempotency-Replayed"] == "true"
    assert len(llm.requests) == 1
    assert [t["title"] for t in await tasks_of(client)] == ["Only once"]


async def crash_mid_turn(client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, message: str, key: str) -> None:
    """Send a turn whose worker "dies" at its end: neither its reply nor its failure is recorded, so
    its claim on `key` stays in flight, as a killed process leaves it."""

    async def die(*_args: Any, **_kwargs: Any) -> None:
        raise RuntimeError("worker killed")

    with monkeypatch.context() as patch:
        patch.setattr(ConversationRepository, "record_turn", die)
        patch.setattr(TurnStore, "record_failure", die)
        with pytest.raises(RuntimeError, match="worker killed"):
            await post(client, message, key)


async def test_an_abandoned_claim_whose_turn_changed_nothing_is_taken_over(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FixedClock(NOW)
    llm = ScriptedLLM(httpx.ConnectError("the model never answered"), calls(("add_task", {"title": "Call mom"})))
    client = await make_client(llm, clock=clock, llm_max_retries=0, budget_max_latency_ms=1000)
    await crash_mid_turn(client, monkeypatch, "add Call mom", "key-abandoned")

    early = await post(client, "add Call mom", "key-abandoned")
    clock.moment = NOW + timedelta(seconds=2, milliseconds=1)  # past stale_after: twice the turn's deadline
    late = await post(client, "add Call mom", "key-abandoned")

    assert early.status_code == 409  # still looks in flight
    assert late.status_code == 200, late.text
    assert [t["title"] for t in await tasks_of(client)] == ["Call mom"]


async def test_an_abandoned_claim_whose_turn_changed_a_task_is_not_run_again(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = FixedClock(NOW)
    llm = ScriptedLLM(calls(("add_task", {"title": "Pay rent"})), default=calls(("add_task", {"title": "Pay rent"})))
    client = await make_client(llm, clock=clock, budget_max_latency_ms=1000)
    await crash_mid_turn(client, monkeypatch, "add Pay rent", "key-crashed")

    clock.moment = NOW + timedelta(seconds=2, milliseconds=1)
    late = await post(client, "add Pay rent", "key-crashed")
    again = await post(client, "add Pay rent", "key-crashed")

    assert late.status_code == 500 and "not run again" in late.json()["detail"], late.text
    assert (again.status_code, again.json()) == (500, late.json())
    assert len(llm.requests) == 1
    assert [t["title"] for t in await tasks_of(client)] == ["Pay rent"]


async def test_keys_expire(make_client: MakeClient) -> None:
    clock = FixedClock(NOW)
    llm = ScriptedLLM(calls(("add_task", {"title": "Water plants"})), calls(("add_task", {"title": "Water plants"})))
    client = await make_client(llm, clock=clock, idempotency_ttl_hours=24)

    assert (await post(client, "add Water plants", "key-5")).status_code == 200
    clock.moment = NOW + timedelta(hours=25)
    again = await post(client, "add Water plants", "key-5")

    assert again.status_code == 200
    assert "Idempotency-Replayed" not in again.headers
    assert len(llm.requests) == 2


async def test_overlong_key_is_422(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM())
    response = await post(client, "add x", "k" * 256)
    assert response.status_code == 422
    assert response.json()["error"] == "VALIDATION_ERROR"


async def test_a_key_is_checked_as_a_declared_header_before_the_body(make_client: MakeClient) -> None:
    """The key is read from the request (not a declared FastAPI parameter: api/routes/chat.py), so its
    checks are the route's own: empty or over 255 characters is a 422 naming the header, after the
    token and before the body is read (a bad body beside it is not what the answer names); 255
    characters are a key."""
    llm = ScriptedLLM(calls(("add_task", {"title": "Long key"})))
    client = await make_client(llm)

    empty = await post(client, "add x", "")
    over = await post(client, "add x", "k" * 256)
    both = await client.post("/api/alice/chat", json={"text": "no message"}, headers={**auth(), "Idempotency-Key": ""})

    for response in (empty, over, both):
        assert response.status_code == 422, response.text
        assert response.json()["error"] == "VALIDATION_ERROR"
    assert empty.json()["detail"] == "header.Idempotency-Key: String should have at least 1 character"
    assert over.json()["detail"] == "header.Idempotency-Key: String should have at most 255 characters"
    assert both.json()["detail"] == empty.json()["detail"]
    # As when it was a declared header, the token is checked first: no token is a 401, whatever the key.
    unknown = await client.post("/api/alice/chat", json={"message": "add x"}, headers={"Idempotency-Key": ""})
    assert (unknown.status_code, unknown.json()["error"]) == (401, "UNAUTHORIZED")
    assert llm.requests == []
    longest = await post(client, "add Long key", "k" * 255)
    assert longest.status_code == 200, longest.text
    assert (await post(client, "add Long key", "k" * 255)).headers["Idempotency-Replayed"] == "true"
    assert len(llm.requests) == 1
