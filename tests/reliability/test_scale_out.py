"""Three identical instances on one database, as behind a load balancer without sticky sessions, on
Postgres directly and through PgBouncer in transaction mode: no answer depends on which instance
served the request before it.

Each instance is a separate app (its own engine, pool, metrics and caches) on the same database; a
"balancer" sends each request to the next instance in turn.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter
from typing import Any

import httpx
import pytest
from reliability.rel_support import Figures
from support.api import USER, AppClient, MakeClient, auth, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion

pytestmark = pytest.mark.through_pgbouncer

INSTANCES = 3


class Balancer:
    """Round robin over the instances: request n goes to instance n mod 3."""

    def __init__(self, clients: list[AppClient]) -> None:
        self.clients = clients
        self._next = itertools.cycle(range(len(clients)))
        self.served: Counter[int] = Counter()

    def pick(self) -> AppClient:
        index = next(self._next)
        self.served[index] += 1
        return self.clients[index]

    async def chat(self, message: str, *, user: str = USER, key: str | None = None, **body: Any) -> httpx.Response:
        headers = {**auth(user), **({"Idempotency-Key": key} if key else {})}
        return await self.pick().post(f"/api/{user}/chat", json={"message": message, **body}, headers=headers)


def adding_model(body: dict[str, Any]) -> Any:
    """Adds the task the message names ("add X"), then says so."""
    last = body["messages"][-1]
    if last["role"] == "tool":
        return completion("Added.")
    return calls(("add_task", {"title": last["content"].removeprefix("add ")}))


async def instances(make_client: MakeClient, llm: Any, **settings: Any) -> Balancer:
    return Balancer([await make_client(llm, **settings) for _ in range(INSTANCES)])


async def test_concurrent_users_over_three_instances_each_get_their_own_tasks(
    make_client: MakeClient, figures: Figures
) -> None:
    balancer = await instances(make_client, ScriptedLLM(default=adding_model))
    users = [f"user{i}" for i in range(6)]
    messages = [(user, f"task {n} of {user}") for user in users for n in range(4)]

    responses = await asyncio.gather(*(balancer.chat(f"add {title}", user=user) for user, title in messages))

    statuses = Counter(r.status_code for r in responses)
    figures["scale_out"]["turns"] += len(responses)
    figures["scale_out"]["server_errors"] += sum(n for s, n in statuses.items() if s >= 500)
    assert statuses == Counter({200: len(messages)}), [r.text for r in responses if r.status_code != 200][:3]
    assert set(balancer.served) == set(range(INSTANCES))
    for user in users:  # read back through a fourth path: each instance sees every user's whole state
        for client in balancer.clients:
            assert sorted(t["title"] for t in await tasks_of(client, user)) == [f"task {n} of {user}" for n in range(4)]


async def test_one_idempotency_key_sent_to_every_instance_runs_one_turn(
    make_client: MakeClient, figures: Figures
) -> None:
    llm = ScriptedLLM(default=adding_model, delay_s=0.05)
    balancer = await instances(make_client, llm)

    racing = await asyncio.gather(*(balancer.chat("add Renew passport", key="one-key") for _ in range(9)))
    replays = [await balancer.chat("add Renew passport", key="one-key") for _ in range(INSTANCES)]

    figures["scale_out"]["idempotent_requests"] += len(racing) + len(replays)
    assert {r.status_code for r in racing} <= {200, 409} and 200 in {r.status_code for r in racing}
    first = next(r for r in racing if r.status_code == 200).json()
    assert all(r.status_code == 200 and r.headers["Idempotency-Replayed"] == "true" for r in replays)
    assert all(r.json() == first for r in replays)  # the stored answer, whichever instance stored it
    titles = [t["title"] for t in await tasks_of(balancer.clients[0])]
    figures["scale_out"]["duplicate_tasks"] += len(titles) - 1
    assert titles == ["Renew passport"]


async def test_the_rate_limit_is_one_window_shared_by_every_instance(make_client: MakeClient) -> None:
    balancer = await instances(make_client, ScriptedLLM(default=completion("Hi.")), rate_limit_per_minute=6)

    responses = [await balancer.chat("hello") for _ in range(9)]

    assert [r.status_code for r in responses] == [200] * 6 + [429] * 3  # not 6 per instance
    assert all(int(r.headers["Retry-After"]) >= 1 for r in responses[6:])
    assert {r.json()["error"] for r in responses[6:]} == {"RATE_LIMITED"}


async def test_the_rate_limit_is_exact_under_a_concurrent_burst_over_every_instance(
    make_client: MakeClient, figures: Figures
) -> None:
    # 32 chats of one user at once, spread over three instances (each with its own pool): exactly the
    # limit gets through, never the requests in flight; another user is not held up by the burst.
    limit = 5
    balancer = await instances(make_client, ScriptedLLM(default=completion("Hi.")), rate_limit_per_minute=limit)

    burst = [balancer.chat(f"hello {i}") for i in range(32)]
    other = balancer.chat("hello", user="bob")
    *responses, bobs = await asyncio.gather(*burst, other)

    statuses = Counter(r.status_code for r in responses)
    figures["scale_out"]["rate_limit_burst_requests"] += len(responses)
    figures["scale_out"]["rate_limit_overshoot"] += max(0, statuses[200] - limit)
    assert statuses == {200: limit, 429: 32 - limit}, statuses
    assert bobs.status_code == 200, bobs.text
    assert all(int(r.headers["Retry-After"]) >= 1 for r in responses if r.status_code == 429)


async def test_the_rate_limit_is_exact_under_a_burst_in_one_conversation(make_client: MakeClient) -> None:
    """A turn in a conversation takes the rate limit in its first statement (with the history read and
    the message stored, one round trip): a burst of one user's turns in one conversation, over every
    instance, gets exactly the limit through, and only their messages are stored."""
    limit = 5
    balancer = await instances(make_client, ScriptedLLM(default=completion("Hi.")), rate_limit_per_minute=limit)
    first = await balancer.chat("hello")
    conversation = first.json()["conversation_id"]

    responses = await asyncio.gather(*(balancer.chat(f"again {i}", conversation_id=conversation) for i in range(24)))

    statuses = Counter(r.status_code for r in responses)
    assert statuses == {200: limit - 1, 429: 24 - (limit - 1)}, statuses
    page = await balancer.pick().get(f"/api/{USER}/conversations/{conversation}/messages", headers=auth())
    said = [m["content"] for m in page.json() if m["role"] == "user"]
    accepted = {f"again {i}" for i, r in enumerate(responses) if r.status_code == 200}
    assert said[0] == "hello" and len(said) == limit and set(said[1:]) == accepted, said


async def test_a_conversation_moves_between_instances(make_client: MakeClient) -> None:
    """A question asked by one instance is answered on the next, and undone on the third."""
    four = ("Taxes", "Bread", "Gym", "Laundry")
    llm = ScriptedLLM(calls(*[("delete_task", {"task_id": t}) for t in four]))
    balancer = await instances(make_client, llm, max_destructive_calls_per_turn=2)
    await seed_tasks(balancer.clients[0], *four)

    asked = (await balancer.chat("delete taxes, bread, gym and laundry")).json()  # instance 0
    assert asked["confirmation"] is not None
    conversation = asked["conversation_id"]
    answered = (await balancer.chat("yes", conversation_id=conversation)).json()  # instance 1
    assert answered["execution_metadata"]["confirmation_answer"]["verdict"] == "run"
    assert await tasks_of(balancer.clients[2]) == []

    undone = await balancer.pick().post(f"/api/{USER}/undo", headers=auth())  # instance 2
    assert undone.status_code == 200, undone.text
    # The last change was the answered turn's: both of its deletes come back.
    assert sorted(t["title"] for t in await tasks_of(balancer.clients[0])) == ["Gym", "Laundry"]
    assert dict(balancer.served) == {0: 1, 1: 1, 2: 1}
