"""Where a turn's CPU goes: a deterministic profile of the server's side of "add Task k" turns.

The app runs in this process (as `taskchat serve` builds it: JSON logs at INFO, direct or model
mode), driven through httpx's ASGI transport at a fixed concurrency by 64 users, against Postgres and
the scripted fake model over loopback HTTP (so the LLM client's HTTP path is measured too). yappi,
with its CPU clock, runs over the measured turns only; each stage is the total CPU of the function
that is that stage, subcalls included. yappi is coroutine-aware: a coroutine's time is counted only
while it runs, never while it awaits (cProfile's cumulative times are not, under asyncio: with 8
turns interleaved they add up to several times the process's CPU):

    prepare   services/turn_store.py  TurnStore.prepare   tx 1: idempotency, rate limit, history, message
    read      services/turn.py        Step.guarded        the message read: intent, guard, policy
    model     agent/request.py        Requester.ask       the request built, sent, read, normalised
    tools     tools/task_tools.py     execute_batch       the tool step and its transaction
    reply     services/records.py     finish              the reply composed, the metadata built
    persist   services/turn_store.py  TurnStore.persist   tx 2: assistant message, tool rows, key

`server` is the whole ASGI app; `turn, other` what of `ChatService.chat` no stage holds (the
pipeline's glue, the observing, the turn's context); `http` what of the app is outside the turn
(middleware, auth, routing, body validation, the JSON response written). The profiler's own
overhead inflates every figure (about 7x here, more where the calls are many and small), so the
shares are what to read; `unprofiled_ms` is the same turns' CPU without it (this process: the
driving client's share included), to scale them by.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import httpx
import yappi

from backend.app.core.config import Settings
from backend.app.main import create_app
from backend.devtools.bench.load import simple_turns, token
from backend.devtools.bench.servers import JWT_SECRET

USERS = 64
TURNS_PER_CONVERSATION = 8  # as the load phase: a new conversation every 8 turns

# (file suffix, function name) of each stage, in the order of a turn.
STAGES: dict[str, tuple[str, str]] = {
    "prepare": ("services/turn_store.py", "prepare"),
    "read": ("services/turn.py", "guarded"),
    "model": ("agent/request.py", "ask"),
    "tools": ("tools/task_tools.py", "execute_batch"),
    "reply": ("services/records.py", "finish"),
    "persist": ("services/turn_store.py", "persist"),
}
SERVER = ("fastapi/applications.py", "__call__")  # the app as the transport calls it
TURN = ("services/chat.py", "chat")


@dataclass(slots=True)
class _User:
    name: str
    headers: dict[str, str]
    message: Callable[[int], str]
    conversation_id: str | None = None
    said: int = 0


def _settings(database_url: str, fake_url: str, response_mode: str) -> Settings:
    return Settings(
        _env_file=None,
        environment="development",
        database_url=database_url,
        llm_base_url=fake_url,
        llm_api_key="bench-key",
        llm_model="bench/fake-model",
        llm_provider="bench",
        jwt_secret=JWT_SECRET,
        response_mode=response_mode,
        rate_limit_per_minute=100_000_000,
    )


async def _turns(client: httpx.AsyncClient, users: list[_User], *, turns: int, concurrency: int) -> int:
    """`turns` turns, `concurrency` at a time, users taken round robin; returns how many failed."""
    queue: asyncio.Queue[_User] = asyncio.Queue()
    for i in range(turns):
        queue.put_nowait(users[i % len(users)])
    failed = 0

    async def worker() -> None:
        nonlocal failed
        while not queue.empty():
            user = queue.get_nowait()
            if user.said % TURNS_PER_CONVERSATION == 0:
                user.conversation_id = None
            body = {"message": user.message(user.said), "conversation_id": user.conversation_id}
            user.said += 1
            answer = await client.post(f"/api/{user.name}/chat", json=body, headers=user.headers)
            if answer.status_code != 200:
                failed += 1
                continue
            user.conversation_id = answer.json()["conversation_id"]

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return failed


def _stage_cpu(stats: yappi.YFuncStats) -> dict[str, float]:
    """Total CPU seconds of each stage's function (and of the server), subcalls included."""
    found = dict.fromkeys([*STAGES, "server", "turn"], 0.0)
    wanted = {**{v: k for k, v in STAGES.items()}, SERVER: "server", TURN: "turn"}
    for stat in stats:
        path = str(stat.module).replace(os.sep, "/")
        function = str(stat.name).rsplit(".", 1)[-1]
        for (suffix, name), stage in wanted.items():
            if function == name and path.endswith(suffix):
                found[stage] += float(stat.ttot)
    return found


def _quiet_logs() -> TextIO:
    """The JSON log lines are still formatted and written (a served turn's cost), to nowhere."""
    null = Path(os.devnull).open("w")  # noqa: SIM115 - the caller closes it
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.setStream(null)
    return null


async def profile_stages(
    *, database_url: str, fake_url: str, response_mode: str = "direct", turns: int = 400, concurrency: int = 8
) -> dict[str, Any]:
    """Warm up, measure `turns` turns without the profiler, then `turns` under it."""
    settings = _settings(database_url, fake_url, response_mode)
    app = create_app(settings)
    null = _quiet_logs()
    tag = f"stages-{response_mode}-{int(time.time())}"
    users = [
        _User(f"bench-{tag}-{i}", {"Authorization": f"Bearer {token(f'bench-{tag}-{i}')}"}, simple_turns(f"{tag}{i}"))
        for i in range(USERS)
    ]
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://taskchat.bench", timeout=30) as client:
                failed = await _turns(client, users, turns=max(USERS, turns // 4), concurrency=concurrency)
                cpu0 = time.process_time()
                failed += await _turns(client, users, turns=turns, concurrency=concurrency)
                unprofiled = (time.process_time() - cpu0) / turns
                yappi.clear_stats()
                yappi.set_clock_type("cpu")
                yappi.start()
                try:
                    failed += await _turns(client, users, turns=turns, concurrency=concurrency)
                finally:
                    yappi.stop()
    finally:
        null.close()
    cpu = _stage_cpu(yappi.get_func_stats())
    yappi.clear_stats()
    server_ms, turn_ms = cpu.pop("server") / turns * 1000, cpu.pop("turn") / turns * 1000
    per_turn = {stage: seconds / turns * 1000 for stage, seconds in cpu.items()}
    per_turn["turn, other"] = max(0.0, turn_ms - sum(per_turn.values()))
    per_turn["http"] = max(0.0, server_ms - turn_ms)
    return {
        "response_mode": response_mode,
        "turns": turns,
        "concurrency": concurrency,
        "failed": failed,
        "unprofiled_ms": round(unprofiled * 1000, 2),
        "server_profiled_ms": round(server_ms, 2),
        "stages": {
            stage: {"profiled_ms": round(ms, 2), "share": round(ms / server_ms, 3) if server_ms else None}
            for stage, ms in per_turn.items()
        },
    }


def table(rows: list[dict[str, Any]], *, probe_ms: float) -> str:
    """The per-stage table, one column per response mode."""
    head = "| stage | " + " | ".join(f"{r['response_mode']}: ms (share)" for r in rows) + " |"
    lines = [head, "|---|" + "---|" * len(rows)]
    for stage in [*STAGES, "turn, other", "http"]:
        cells = [f"{r['stages'][stage]['profiled_ms']} ({r['stages'][stage]['share']:.0%})" for r in rows]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    lines.append("| server, profiled | " + " | ".join(f"{r['server_profiled_ms']}" for r in rows) + " |")
    lines.append("| whole process, unprofiled | " + " | ".join(f"{r['unprofiled_ms']}" for r in rows) + " |")
    ratio = " | ".join(f"{r['unprofiled_ms'] / probe_ms:.3f}×" for r in rows)
    lines.append(f"| unprofiled / CPU probe ({probe_ms} ms) | {ratio} |")
    return "\n".join(lines)
