"""Taskchat against clients it did not write, in Node: the AI SDK (`ai`: the transport `useChat` uses and
its stream reader) and the MCP TypeScript SDK's client (support/node.py says how Node is found).

Each test serves the app on loopback with a scripted model and runs a Node test file (`node --test`)
against it; the Node files (tests/node/*.test.mjs) hold the assertions on what the clients built.
"""

from __future__ import annotations

from typing import Any

import pytest
from support.api import USER, MakeClient, seed_tasks, token_for
from support.fake_llm import ScriptedLLM
from support.live import Live, serve
from support.node import SEEDED, counts, require_node, run, scripted


async def node_test(live: Live, test_file: str) -> dict[str, int]:
    """`node --test tests/node/<test_file>` against `live`: its totals (it fails the test if it fails)."""
    env = {
        "TASKCHAT_URL": live.url,
        "TASKCHAT_USER": USER,
        "TASKCHAT_TOKEN": token_for(USER),
        "TASKCHAT_OTHER_TOKEN": token_for("bob"),
    }
    return counts(await run(require_node(), "--test", "--test-reporter=spec", test_file, env=env))


async def test_the_ai_sdk_reads_real_turns(make_client: MakeClient, monkeypatch: pytest.MonkeyPatch) -> None:
    require_node()
    client = await make_client(ScriptedLLM(default=scripted), max_destructive_calls_per_turn=2)
    await seed_tasks(client, *SEEDED)
    service = client.app.state.chat_service
    persist = service.store.persist

    async def failing_for_one_message(turn: Any, *args: Any) -> Any:
        # A fault after the tool ran, so the stream has begun: the SDK must get an error part.
        if turn.request.message == "add a task that cannot be recorded":
            raise RuntimeError("the turn could not be recorded")
        return await persist(turn, *args)

    monkeypatch.setattr(service.store, "persist", failing_for_one_message)
    async with serve(client) as live:
        assert await node_test(live, "ai-sdk.test.mjs") == {"pass": 5, "fail": 0, "skipped": 0}


async def test_the_mcp_typescript_client_uses_the_tools_as_its_user(make_client: MakeClient) -> None:
    require_node()
    async with serve(await make_client(offline=True)) as live:
        assert await node_test(live, "mcp.test.mjs") == {"pass": 3, "fail": 0, "skipped": 0}
