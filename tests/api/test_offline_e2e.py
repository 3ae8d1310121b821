"""No key configured: the built-in offline model serves real turns end to end."""

from __future__ import annotations

import pytest
from support.api import MakeClient, chat, tasks_of

# Postgres, SQLite, and Postgres through PgBouncer in transaction mode.
EVERY_DATABASE = pytest.mark.parametrize("database", ["postgres", "sqlite", "pgbouncer"], indirect=True)


@EVERY_DATABASE
async def test_offline_model_full_flow(make_client: MakeClient) -> None:
    client = await make_client(offline=True)

    added = (await chat(client, "add buy milk tomorrow high priority #shopping")).json()
    assert added["execution_metadata"]["model"]["offline"] is True
    assert added["execution_metadata"]["model"]["name"] == "taskchat-offline"
    assert added["execution_metadata"]["llm_calls"] == 1
    [task] = await tasks_of(client)
    assert (task["title"].lower(), task["due_date"], task["priority"], task["tags"]) == (
        "buy milk",
        "2026-11-23",
        "high",
        ["shopping"],
    )

    listed = (await chat(client, "what's left?")).json()
    assert "buy milk" in listed["assistant_message"].lower()

    done = (await chat(client, "mark Buy milk as done")).json()
    assert done["action_metadata"] == {**done["action_metadata"], "action": "complete_task", "success": True}
    assert (await tasks_of(client))[0]["status"] == "completed"

    gone = (await chat(client, "delete buy milk")).json()
    assert gone["action_metadata"]["action"] == "delete_task"
    assert await tasks_of(client) == []

    hello = (await chat(client, "hello")).json()
    assert hello["tool_calls"] == []
    assert "offline" in hello["assistant_message"].lower()


async def test_offline_model_retries_shorter_after_arguments_too_large(make_client: MakeClient) -> None:
    client = await make_client(offline=True, max_tool_args_bytes=1000)
    long_text = "the quarterly numbers " * 100  # ~2.2 kB: over the limit

    body = (await chat(client, f'add a task "Write report" with this description: {long_text}')).json()

    results = [(c["name"], c["result"]["success"], c["result"].get("code")) for c in body["tool_calls"]]
    assert results == [("add_task", False, "ARGUMENTS_TOO_LARGE"), ("add_task", True, None)]
    assert body["execution_metadata"]["llm_calls"] == 2
    [task] = await tasks_of(client)
    assert task["title"] == "Write report"
    assert task["description"].startswith("the quarterly numbers") and task["description"].endswith("…")
    assert len(task["description"].encode()) < 1000


@pytest.mark.parametrize(
    "message",
    ["delete gym. wait, leave that one", "remove gym... actually no, never mind", "mark gym done. no wait, don't"],
)
async def test_the_offline_model_takes_a_retraction_as_the_reader_does(make_client: MakeClient, message: str) -> None:
    # Its English rules read "delete gym. wait, leave that one" as a delete; the reader's retraction stands.
    client = await make_client(offline=True)
    await chat(client, "add gym")

    body = (await chat(client, message)).json()

    assert body["tool_calls"] == [], body["tool_calls"]
    assert [(t["title"].lower(), t["status"]) for t in await tasks_of(client)] == [("gym", "pending")]
    assert "Not run" not in body["assistant_message"] and body["confirmation"] is None


async def test_the_offline_model_renames_and_reprioritises_with_its_english_rules(make_client: MakeClient) -> None:
    client = await make_client(offline=True)
    await chat(client, "add gym")

    await chat(client, "make gym urgent")
    await chat(client, "rename gym to yoga")

    [task] = await tasks_of(client)
    assert (task["title"].lower(), task["priority"]) == ("yoga", "high")
