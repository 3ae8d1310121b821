"""Node for the tests that run clients Taskchat did not write (tests/clients): where the packages are,
running them, and what the scripted model answers to the messages those clients send.

The packages are pinned in tests/node/package-lock.json and installed by scripts/ensure-node.sh (run
by `make test`). Without Node or its packages the tests skip, except under `make test`
(TASKCHAT_NODE_REQUIRED=1), where that is a failure: CI must not pass without them.
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

from support.fake_llm import calls, completion

NODE_DIR = Path(__file__).resolve().parents[1] / "node"
NODE = shutil.which("node")


def require_node() -> str:
    """The node executable; skips the test (fails it under `make test`) when Node or the packages are missing."""
    why = None
    if NODE is None:
        why = "node is not installed"
    elif not (NODE_DIR / "node_modules" / "ai").is_dir():
        why = "tests/node has no node_modules (run scripts/ensure-node.sh)"
    if why is None and NODE is not None:
        return NODE
    if os.environ.get("TASKCHAT_NODE_REQUIRED") == "1":
        pytest.fail(f"the Node client tests cannot run: {why}")
    pytest.skip(str(why))


async def run(*args: str | Path, env: dict[str, str] | None = None, timeout_s: float = 120) -> str:
    """Run `args` in tests/node; fails the test with the output when it exits non-zero."""
    process = await asyncio.create_subprocess_exec(
        *map(str, args),
        cwd=NODE_DIR,
        env={**os.environ, "NODE_NO_WARNINGS": "1", "NODE_PATH": str(NODE_DIR / "node_modules"), **(env or {})},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), timeout=timeout_s)
    report = output.decode(errors="replace")
    assert process.returncode == 0, report
    return report


def counts(report: str) -> dict[str, int]:
    """The totals of `node --test`'s spec report ("ℹ pass 5"): a file that ran fewer tests than it holds fails."""
    return {kind: int(n) for kind, n in re.findall(r"^ℹ (pass|fail|skipped) (\d+)$", report, re.M)}


# What the scripted model does for each message the clients send (the last user message).
SCRIPT: dict[str, Any] = {
    "add buy milk": calls(("add_task", {"title": "Buy milk"})),
    "complete walk the dog": calls(("complete_task", {"task_id": "Walk the dog"})),
    "delete taxes, bread, gym and laundry": calls(
        *[("delete_task", {"task_id": t}) for t in ("Taxes", "Bread", "Gym", "Laundry")]
    ),
    "what is on my list, model that fails": httpx.Response(503, json={"error": "down"}),
    "add a task that cannot be recorded": calls(("add_task", {"title": "Unrecorded"})),
}
SEEDED = ("Taxes", "Bread", "Gym", "Laundry")  # what "delete taxes, bread, gym and laundry" finds


def scripted(body: dict[str, Any]) -> Any:
    said = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    return SCRIPT.get(said, completion("I can add, list, complete, update and delete tasks."))
