"""Taskchat against clients it did not write, in Node: the AI SDK (`ai`: the transport `useChat` uses and
its stream reader), the MCP TypeScript SDK's client, and the README's React `useChat` example in Chromium.

The packages are pinned in tests/node/package-lock.json and installed by scripts/ensure-node.sh (run
by `make test`). Each test serves the app on loopback with a scripted model and runs a Node test file
(`node --test`) against it; the Node files hold the assertions on what the clients built.
Without Node or its packages the tests skip, except under `make test` (TASKCHAT_NODE_REQUIRED=1),
where that is a failure: CI must not pass without them.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.api import USER, seed_tasks, token_for
from support.fake_llm import ScriptedLLM, calls, completion
from support.live import Live, serve

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
NODE = shutil.which("node")


def _missing() -> str | None:
    if NODE is None:
        return "node is not installed"
    if not (NODE_DIR / "node_modules" / "ai").is_dir():
        return "tests/node has no node_modules (run scripts/ensure-node.sh)"
    return None


@pytest.fixture(autouse=True)
def _node_present() -> None:
    why = _missing()
    if why is None:
        return
    if os.environ.get("TASKCHAT_NODE_REQUIRED") == "1":
        pytest.fail(f"the Node client tests cannot run: {why}")
    pytest.skip(why)


async def node_test(live: Live, test_file: str, **env: str) -> str:
    """Run `node --test tests/node/<test_file>` against `live`; fails with Node's report if it fails."""
    assert NODE is not None
    environment = {
        **os.environ,
        "TASKCHAT_URL": live.url,
        "TASKCHAT_USER": USER,
        "TASKCHAT_TOKEN": token_for(USER),
        "TASKCHAT_OTHER_TOKEN": token_for("bob"),
        "NODE_NO_WARNINGS": "1",
        **env,
    }
    process = await asyncio.create_subprocess_exec(
        NODE,
        "--test",
        "--test-reporter=spec",
        test_file,
        cwd=NODE_DIR,
        env=environment,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=120)
    report = output.decode(errors="replace")
    assert process.returncode == 0, report
    return report


def counts(report: str) -> dict[str, int]:
    """The totals of node's spec report ("ℹ pass 5"): a file that ran fewer tests than it holds fails."""
    return {kind: int(n) for kind, n in re.findall(r"^ℹ (pass|fail|skipped) (\d+)$", report, re.M)}


# What the scripted model does for each message the Node tests send (the last user message).
SCRIPT: dict[str, Any] = {
    "add buy milk": calls(("add_task", {"title": "Buy milk"})),
    "complete walk the dog": calls(("complete_task", {"task_id": "Walk the dog"})),
    "delete taxes, bread, gym and laundry": calls(
        *[("delete_task", {"task_id": t}) for t in ("Taxes", "Bread", "Gym", "Laundry")]
    ),
    "what is on my list, model that fails": httpx.Response(503, json={"error": "down"}),
    "add a task that cannot be recorded": calls(("add_task", {"title": "Unrecorded"})),
}


def scripted(body: dict[str, Any]) -> Any:
    said = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    return SCRIPT.get(said, completion("I can add, list, complete, update and delete tasks."))


async def test_the_ai_sdk_reads_real_turns(make_client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    client = await make_client(ScriptedLLM(default=scripted), max_destructive_calls_per_turn=2)
    await seed_tasks(client, "Taxes", "Bread", "Gym", "Laundry")
    service = client.app.state.chat_service  # type: ignore[attr-defined]
    persist = service._persist

    async def failing_for_one_message(turn: Any, *args: Any) -> Any:
        # A fault after the tool ran, so the stream has begun: the SDK must get an error part.
        if turn.request.message == "add a task that cannot be recorded":
            raise RuntimeError("the turn could not be recorded")
        return await persist(turn, *args)

    monkeypatch.setattr(service, "_persist", failing_for_one_message)
    async with serve(client) as live:
        report = await node_test(live, "ai-sdk.test.mjs")
    assert counts(report) == {"pass": 5, "fail": 0, "skipped": 0}, report


async def test_the_mcp_typescript_client_uses_the_tools_as_its_user(make_client: Any) -> None:
    async with serve(await make_client(offline=True)) as live:
        report = await node_test(live, "mcp.test.mjs")
    assert counts(report) == {"pass": 3, "fail": 0, "skipped": 0}, report
