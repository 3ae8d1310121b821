"""Where a turn's CPU goes: a deterministic profile of the server's side of the load phase's turns.

The app runs in this process (built as `taskchat serve` builds it, from the same settings: JSON logs
at INFO, direct or model mode), called through httpx's ASGI transport at a fixed concurrency by 64
users, each cycling through the load phase's simple actions (add, list, complete, delete by title;
load.simple_turns), against Postgres and the scripted fake model over loopback HTTP (so the LLM
client's HTTP path is measured too). Three passes of the same shape, each with users of its own: a
warm-up, one timed without the profiler, one under yappi with its CPU clock. Each stage is the total
CPU of the functions that are that stage, subcalls included. yappi is coroutine-aware: a coroutine's
time is counted only while it runs, never while it awaits (cProfile's cumulative times are not,
under asyncio: with 8 turns interleaved they add up to several times the process's CPU):

    prepare   services/turn/store.py  TurnStore.prepare   the start: rate limit, history, message (key)
    read      services/turn/context.py        Step.guarded        the message read: intent, guard, policy
    model     agent/request.py        Requester.ask       each request built, sent, read, normalised
                                      Requester.check     (and, in model mode, the reply's check)
    tools     tools/task_tools.py     execute_batch       the tool step and its transaction (and the
                                                          message's calls, read when a repair needs them)
    reply     services/turn/record.py     finish              the reply composed, the metadata built
    persist   services/turn/store.py  TurnStore.persist   the record: assistant message (and key)

`server` is the whole ASGI app; `turn, other` what of `ChatService.chat` no stage holds (the
pipeline's glue, the observing, the turn's context); `http` what of the app is outside the turn
(middleware, auth, routing, body validation, the JSON response written; not uvicorn's HTTP parsing,
which the ASGI transport replaces). The profiler's own overhead inflates every figure, and more
where the calls are many and small (Python-heavy code more than pydantic's or orjson's C), so the
shares are what to read; `unprofiled_ms` is the same turns' CPU without it (this process: the
driving client's share included), to scale them by.

`timed_stages` measures the same stages without a profiler: turns one at a time, each stage's
functions wrapped where a turn finds them (`STAGES`' sites) to add up their thread's CPU time. One
turn at a time, the CPU spent while a stage awaits is its own (its driver's callbacks, its answer
read), so the database stages come out as they are; the price is that it is not the load point.

A streamed turn (`Accept: text/event-stream`, read to its `done` event) is timed, not split by stage
(`streamed_cpu`): its turn runs in a task of its own, and yappi's CPU clock keeps running for a
function whose SQLAlchemy greenlet is parked while other tasks run, so under it the database stages
came out larger than the turn that holds them (prepare 7.6 ms and tools 12.6 ms of a 27 ms turn,
against 1.8 and 2.9 in the plain turn's profile of the same minute). Its unprofiled CPU is measured
in passes alternating with plain turns of the same app, and compared with theirs.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
import inspect
import json
import logging
import os
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import yappi
from fastapi import FastAPI

from backend.app.core.config import Settings
from backend.app.main import create_app
from backend.devtools.bench.load import TURNS_PER_CONVERSATION, simple_turns, token
from backend.devtools.bench.servers import AppConfig

USERS = 64

Function = tuple[str, str]  # (file suffix, function name): how the profiler names a function
Site = tuple[str, str | None, str]  # (module, class or None, attribute): where a turn finds the function

# The functions of each stage, where a turn calls them from, in the order of a turn (none calls another's).
STAGES: dict[str, tuple[Site, ...]] = {
    "prepare": (("backend.app.services.turn.store", "TurnStore", "prepare"),),
    "read": (("backend.app.services.turn.context", "Step", "guarded"),),
    "model": (("backend.app.agent.request", "Requester", "ask"), ("backend.app.agent.request", "Requester", "check")),
    "tools": (("backend.app.tools.task_tools", "TaskTools", "execute_batch"),),
    "reply": (("backend.app.services.turn.pipeline", None, "finish"),),
    "persist": (("backend.app.services.turn.store", "TurnStore", "persist"),),
}
TURN_SITE: Site = ("backend.app.services.turn.pipeline", "ChatService", "chat")
SERVER: Function = ("fastapi/applications.py", "__call__")  # the app as the transport calls it
EVENT_STREAM = "text/event-stream"


def _owner(site: Site) -> Any:
    module = importlib.import_module(site[0])
    return getattr(module, site[1]) if site[1] is not None else module


def _profiled_as(site: Site) -> Function:
    """How the profiler names the function found at `site`: its file (from `backend/app/`) and name."""
    function = inspect.unwrap(getattr(_owner(site), site[2]))
    path = Path(function.__code__.co_filename).as_posix()
    return path.split("backend/app/", 1)[-1], function.__name__


@dataclass(slots=True)
class _User:
    name: str
    headers: dict[str, str]
    message: Callable[[int], str]
    conversation_id: str | None = None
    said: int = 0


def app_settings(database_url: str, fake_url: str, response_mode: str) -> Settings:
    """The served bench's settings (servers.AppConfig.env), as `Settings` fields: what they do not
    name comes from the environment and `.env`, as for `taskchat serve`."""
    config = AppConfig(database_url=database_url, workers=1, llm_base_url=fake_url, response_mode=response_mode)
    fields: dict[str, Any] = {name.lower(): value for name, value in config.env().items()}
    return Settings(**fields)


def new_users(tag: str) -> list[_User]:
    return [
        _User(f"bench-{tag}-{i}", {"Authorization": f"Bearer {token(f'bench-{tag}-{i}')}"}, simple_turns(f"{tag}{i}"))
        for i in range(USERS)
    ]


def _done(events: str) -> dict[str, Any] | None:
    """The data of a server-sent event stream's `done` event (the plain response's body)."""
    for block in events.split("\n\n"):
        lines = block.splitlines()
        if "event: done" in lines:
            data = "\n".join(line.removeprefix("data: ") for line in lines if line.startswith("data: "))
            found: dict[str, Any] = json.loads(data)
            return found
    return None


async def drive(
    client: httpx.AsyncClient, users: list[_User], *, turns: int, concurrency: int, stream: bool = False
) -> int:
    """`turns` turns, `concurrency` at a time, users taken round robin; returns how many failed.
    `stream`: each asked as server-sent events and read to the end (a turn without `done` failed)."""
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
            headers = user.headers | {"Accept": EVENT_STREAM} if stream else user.headers
            answer = await client.post(f"/api/{user.name}/chat", json=body, headers=headers)
            final = (_done(answer.text) if stream else answer.json()) if answer.status_code == 200 else None
            if final is None:
                failed += 1
                continue
            user.conversation_id = final["conversation_id"]

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return failed


def _stage_cpu(stats: yappi.YFuncStats) -> dict[str, float]:
    """Total CPU seconds of each stage's functions (and of the server and the turn), subcalls included."""
    found = dict.fromkeys([*STAGES, "server", "turn"], 0.0)
    wanted = {_profiled_as(site): stage for stage, sites in STAGES.items() for site in sites}
    wanted |= {SERVER: "server", _profiled_as(TURN_SITE): "turn"}
    for stat in stats:
        path = str(stat.module).replace(os.sep, "/")
        function = str(stat.name).rsplit(".", 1)[-1]
        for (suffix, name), stage in wanted.items():
            if function == name and path.endswith(suffix):
                found[stage] += float(stat.ttot)
    return found


@asynccontextmanager
async def in_process(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """A client of `app`, called in this process, with its lifespan running and its logs quiet."""
    with _quiet_logs():
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://taskchat.bench", timeout=30) as client:
                yield client


@contextmanager
def _quiet_logs() -> Iterator[None]:
    """The JSON log lines are still formatted and written (a served turn's cost), to nowhere; the
    handlers get their streams back after."""
    handlers = [h for h in logging.getLogger().handlers if isinstance(h, logging.StreamHandler)]
    with Path(os.devnull).open("w") as null:
        before = [handler.setStream(null) for handler in handlers]
        try:
            yield
        finally:
            for handler, stream in zip(handlers, before, strict=True):
                handler.setStream(stream)


async def profile_stages(
    *, database_url: str, fake_url: str, response_mode: str = "direct", turns: int = 400, concurrency: int = 8
) -> dict[str, Any]:
    """`turns` turns three times, each by new users: a warm-up, without the profiler, under it."""
    app = create_app(app_settings(database_url, fake_url, response_mode), served_gc=True)
    tag = f"stages-{response_mode}-{int(time.time())}"
    run = partial(drive, turns=turns, concurrency=concurrency)
    async with in_process(app) as client:
        warm, timed, profiled = new_users(f"{tag}w"), new_users(f"{tag}u"), new_users(f"{tag}p")  # tokens made here
        failed = await run(client, warm)
        cpu0 = time.process_time()
        failed += await run(client, timed)
        unprofiled = (time.process_time() - cpu0) / turns
        yappi.clear_stats()
        yappi.set_clock_type("cpu")
        yappi.start()
        try:
            failed += await run(client, profiled)
        finally:
            yappi.stop()
    cpu = _stage_cpu(yappi.get_func_stats())
    yappi.clear_stats()
    server_ms, turn_ms = cpu.pop("server") / turns * 1000, cpu.pop("turn") / turns * 1000
    per_turn = {stage: seconds / turns * 1000 for stage, seconds in cpu.items()}
    per_turn["turn, other"] = turn_ms - sum(per_turn.values())
    per_turn["http"] = server_ms - turn_ms
    return {
        "response_mode": response_mode,
        "turns": turns,
        "concurrency": concurrency,
        "failed": failed,
        "unprofiled_ms": round(unprofiled * 1000, 2),
        "server_profiled_ms": round(server_ms, 2),
        "turn_profiled_ms": round(turn_ms, 2),
        "stages": [[stage, round(ms, 2)] for stage, ms in per_turn.items()],  # in the order of a turn
    }


async def streamed_cpu(
    *, database_url: str, fake_url: str, turns: int = 400, concurrency: int = 8, rounds: int = 2
) -> dict[str, Any]:
    """The CPU of a streamed turn (direct mode) beside a plain one's: after a warm-up of each, `rounds`
    pairs of passes of `turns` turns, plain then streamed, each pass by new users."""
    app = create_app(app_settings(database_url, fake_url, "direct"), served_gc=True)
    tag = f"stages-stream-{int(time.time())}"
    cpu = {False: 0.0, True: 0.0}
    failed = 0
    async with in_process(app) as client:
        for i in range(rounds + 1):
            for stream in (False, True):
                users = new_users(f"{tag}{i}{'s' if stream else 'p'}")
                cpu0 = time.process_time()
                failed += await drive(client, users, turns=turns, concurrency=concurrency, stream=stream)
                if i:  # the first round warms up
                    cpu[stream] += time.process_time() - cpu0
    plain_ms, streamed_ms = (cpu[stream] / (rounds * turns) * 1000 for stream in (False, True))
    return {
        "turns": turns * rounds,
        "concurrency": concurrency,
        "failed": failed,
        "plain_ms": round(plain_ms, 2),
        "streamed_ms": round(streamed_ms, 2),
    }


async def timed_stages(*, database_url: str, fake_url: str, turns: int = 400) -> dict[str, Any]:
    """Each stage's CPU without a profiler: the same turns one at a time, every stage function wrapped
    to add up its thread's CPU time while it runs. With one turn at a time, what runs while a stage
    awaits is that stage's own work (its driver's callbacks, its answer read), so the figures hold for
    the database stages too, which yappi's clock blurs; the price is concurrency 1, not the load point."""
    app = create_app(app_settings(database_url, fake_url, "direct"), served_gc=True)
    tag = f"stages-timed-{int(time.time())}"
    async with in_process(app) as client:
        warm, timed = new_users(f"{tag}w"), new_users(f"{tag}t")
        failed = await drive(client, warm, turns=max(turns // 8, 8), concurrency=1)
        with _timed({**STAGES, "turn": (TURN_SITE,)}) as spent:
            cpu0 = time.thread_time()
            failed += await drive(client, timed, turns=turns, concurrency=1)
            total = time.thread_time() - cpu0
    per_turn = {stage: seconds / turns * 1000 for stage, seconds in spent.items()}
    turn_ms = per_turn.pop("turn")
    per_turn["turn, other"] = turn_ms - sum(per_turn.values())
    per_turn["outside the turn"] = total / turns * 1000 - turn_ms
    return {
        "turns": turns,
        "concurrency": 1,
        "failed": failed,
        "cpu_ms": round(total / turns * 1000, 2),
        "turn_ms": round(turn_ms, 2),
        "stages": [[stage, round(ms, 3)] for stage, ms in per_turn.items()],  # in the order of a turn
    }


@contextmanager
def _timed(stages: dict[str, tuple[Site, ...]]) -> Iterator[dict[str, float]]:
    """Each stage's functions wrapped where a turn finds them, adding up the thread's CPU seconds
    spent inside them; put back as they were on the way out."""
    spent = dict.fromkeys(stages, 0.0)
    replaced: list[tuple[Any, str, Any]] = []
    try:
        for stage, sites in stages.items():
            for site in sites:
                owner, name = _owner(site), site[2]
                found = inspect.getattr_static(owner, name)
                replaced.append((owner, name, found))
                setattr(owner, name, _timing(found, spent, stage))
        yield spent
    finally:
        for owner, name, found in reversed(replaced):
            setattr(owner, name, found)


def _timing(found: Any, spent: dict[str, float], stage: str) -> Any:
    """`found` (a function, or a classmethod of one) adding its thread's CPU time to `spent[stage]`."""
    if isinstance(found, classmethod):
        return classmethod(_timing(found.__func__, spent, stage))
    if inspect.iscoroutinefunction(found):

        @functools.wraps(found)
        async def timed_coroutine(*args: Any, **kwargs: Any) -> Any:
            began = time.thread_time()
            try:
                return await found(*args, **kwargs)
            finally:
                spent[stage] += time.thread_time() - began

        return timed_coroutine

    @functools.wraps(found)
    def timed(*args: Any, **kwargs: Any) -> Any:
        began = time.thread_time()
        try:
            return found(*args, **kwargs)
        finally:
            spent[stage] += time.thread_time() - began

    return timed
