"""Driving a running Taskchat: closed-loop load, per-scenario LLM calls and tokens, prompt growth,
and streamed turns' time to the first event.

Load is closed-loop: `concurrency` virtual users, each its own user id, token and keep-alive
connection, each sending its next turn as soon as the last one answered. A user cycles through the
simple actions (add, list, complete and delete by title) and starts a new conversation every
`TURNS_PER_CONVERSATION` turns, so history is loaded and sent as in real use.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from backend.app.core.config import Settings
from backend.app.core.security import create_token
from backend.devtools.bench.http import Connection, HttpError
from backend.devtools.bench.servers import JWT_SECRET, cpu_seconds, machine_jiffies, worker_rss_mb

TURNS_PER_CONVERSATION = 8
REQUEST_TIMEOUT_S = 30.0


def token(user: str) -> str:
    settings = Settings(_env_file=None, jwt_secret=JWT_SECRET)
    return create_token(settings=settings, user_id=user, minutes=60)


class Client:
    """One user's chat session against the server."""

    def __init__(self, port: int, user: str) -> None:
        self.user = user
        self.conn = Connection("127.0.0.1", port, timeout_s=REQUEST_TIMEOUT_S)
        self.headers = {"Authorization": f"Bearer {token(user)}", "Content-Type": "application/json"}
        self.conversation_id: str | None = None

    async def say(self, message: str) -> tuple[int, dict[str, Any]]:
        payload: dict[str, Any] = {"message": message, "conversation_id": self.conversation_id}
        status, raw = await self.conn.request(
            "POST", f"/api/{self.user}/chat", body=orjson.dumps(payload), headers=self.headers
        )
        body = orjson.loads(raw) if raw else {}
        if status == 200:
            self.conversation_id = body["conversation_id"]
        return status, body

    async def close(self) -> None:
        await self.conn.close()


def simple_turns(tag: str) -> Callable[[int], str]:
    """The i-th message of a user's cycle of simple actions; every task it touches is its own."""

    def message(i: int) -> str:
        n = i // 4
        return (
            f"add Bench task {tag} {n}",
            "list my tasks",
            f"complete Bench task {tag} {n}",
            f"delete bench task {tag} {n}",
        )[i % 4]

    return message


@dataclass(slots=True)
class LoadResult:
    concurrency: int
    duration_s: float
    latencies_ms: list[float] = field(default_factory=list)
    llm_calls: list[int] = field(default_factory=list)
    errors: int = 0
    statuses: dict[int, int] = field(default_factory=dict)
    server_cpu_s: float | None = None
    pooler_cpu_s: float | None = None  # PgBouncer's, when the instances reach Postgres through it
    machine_busy: float | None = None  # share of all cores busy (anything on the machine) in the window
    db_connections: int | None = None  # most Postgres connections to the database seen in the window
    worker_rss_mb: float | None = None  # the largest worker's resident memory at the window's end

    def summary(self, *, fake_latency_ms: float) -> dict[str, Any]:
        lat = sorted(self.latencies_ms)
        # Overhead: what Taskchat adds to the model's own time (zero with a 0 ms fake).
        overhead = sorted(x - c * fake_latency_ms for x, c in zip(self.latencies_ms, self.llm_calls, strict=True))
        return {
            "concurrency": self.concurrency,
            "turns": len(lat),
            "errors": self.errors,
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "duration_s": round(self.duration_s, 2),
            "turns_per_s": round(len(lat) / self.duration_s, 1) if self.duration_s else 0.0,
            "latency_ms": percentiles(lat),
            "overhead_ms": percentiles(overhead),
            "llm_calls_per_turn": round(sum(self.llm_calls) / len(self.llm_calls), 3) if self.llm_calls else None,
            "server_cpu_ms_per_turn": round(self.server_cpu_s * 1000 / len(lat), 2)
            if self.server_cpu_s is not None and lat
            else None,
            "machine_busy_pct": round(self.machine_busy * 100, 1) if self.machine_busy is not None else None,
            "pooler_cpu_ms_per_turn": round(self.pooler_cpu_s * 1000 / len(lat), 2)
            if self.pooler_cpu_s is not None and lat
            else None,
            "db_connections": self.db_connections,
            "worker_rss_mb": self.worker_rss_mb,
        }


def percentiles(values: list[float]) -> dict[str, float | None]:
    if not values:
        return {"p50": None, "p95": None, "p99": None, "mean": None}
    ordered = sorted(values)

    def at(q: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)

    return {"p50": at(0.50), "p95": at(0.95), "p99": at(0.99), "mean": round(sum(ordered) / len(ordered), 2)}


async def run_load(
    ports: Sequence[int],
    *,
    concurrency: int,
    duration_s: float,
    warmup_s: float,
    tag: str,
    on_turn: Callable[[], object],
    server_pids: Sequence[int] = (),
    pooler_pid: int | None = None,
    connections: Callable[[], Awaitable[int]] | None = None,
) -> LoadResult:
    """Closed-loop load for warmup_s (not recorded) then duration_s; every loop ends at its deadline.

    Virtual user i talks to `ports[i % len(ports)]` (several instances: a balancer without
    stickiness, on the client's side). With `server_pids`, the servers' CPU time (all workers) and
    the machine's busy share are taken over the measured window, so CPU per turn does not depend on
    what else shares the cores; `pooler_pid` is PgBouncer's, counted apart; `connections` is polled
    for the database's connection count.
    """
    result = LoadResult(concurrency=concurrency, duration_s=duration_s)
    start = time.monotonic() + warmup_s
    window = _Window(start=start, stop=start + duration_s)
    users = (
        _user(ports[i % len(ports)], f"bench-{tag}-{i}", f"{tag}{i}", window, result, on_turn)
        for i in range(concurrency)
    )
    began = time.monotonic()
    await asyncio.gather(
        _sample(window, result, server_pids, pooler_pid), _count_connections(window, result, connections), *users
    )
    result.duration_s = min(duration_s, max(0.0, time.monotonic() - max(start, began)))
    return result


@dataclass(frozen=True, slots=True)
class _Window:
    """The measured window on the monotonic clock: what comes before `start` is warm-up."""

    start: float
    stop: float


async def _sleep_until(moment: float) -> None:
    await asyncio.sleep(max(0.0, moment - time.monotonic()))


async def _user(
    port: int, user: str, tag: str, window: _Window, result: LoadResult, on_turn: Callable[[], object]
) -> None:
    """One virtual user: its next turn as soon as the last one answered, until the window closes; the
    turns completed inside the window are recorded."""
    client = Client(port, user)
    next_message = simple_turns(tag)
    i = 0
    try:
        while time.monotonic() < window.stop:
            if i % TURNS_PER_CONVERSATION == 0:
                client.conversation_id = None
                # A new conversation on a new connection, as a reopened tab would: the kernel hands
                # each connection to one worker, so 8 keep-alive connections held for a whole run
                # can split 6/2 and leave a worker idle (measured: 65% busy instead of 100%).
                await client.close()
            began = time.perf_counter()
            try:
                status, body = await client.say(next_message(i))
            except (HttpError, OSError, TimeoutError):
                status, body = 0, {}
            elapsed_ms = (time.perf_counter() - began) * 1000
            i += 1
            if not window.start <= time.monotonic() <= window.stop:
                continue  # throughput counts the turns completed inside the measured window
            result.statuses[status] = result.statuses.get(status, 0) + 1
            if status != 200:
                result.errors += 1
                continue
            result.latencies_ms.append(elapsed_ms)
            result.llm_calls.append(int(body["execution_metadata"]["llm_calls"]))
            on_turn()
    finally:
        await client.close()


def _cpu(server_pids: Sequence[int], pooler_pid: int | None) -> tuple[float | None, float | None]:
    """The servers' CPU seconds together (None unless every one is known), and the pooler's."""
    servers = [cpu_seconds(pid) for pid in server_pids]
    known = [c for c in servers if c is not None]
    pooler = cpu_seconds(pooler_pid) if pooler_pid else None
    return (sum(known) if known and len(known) == len(servers) else None), pooler


async def _sample(window: _Window, result: LoadResult, server_pids: Sequence[int], pooler_pid: int | None) -> None:
    """The servers' and the pooler's CPU time and the machine's busy share over the window, and the
    largest worker's memory at its end."""
    await _sleep_until(window.start)
    (cpu0, pooler0), jiffies0 = _cpu(server_pids, pooler_pid), machine_jiffies()
    await _sleep_until(window.stop)
    (cpu1, pooler1), jiffies1 = _cpu(server_pids, pooler_pid), machine_jiffies()
    if cpu0 is not None and cpu1 is not None:
        result.server_cpu_s = cpu1 - cpu0
    if pooler0 is not None and pooler1 is not None:
        result.pooler_cpu_s = pooler1 - pooler0
    if jiffies0 and jiffies1 and jiffies1[1] > jiffies0[1]:
        result.machine_busy = (jiffies1[0] - jiffies0[0]) / (jiffies1[1] - jiffies0[1])
    sizes = [size for pid in server_pids if (size := worker_rss_mb(pid)) is not None]
    result.worker_rss_mb = max(sizes) if sizes else None


async def _count_connections(
    window: _Window, result: LoadResult, connections: Callable[[], Awaitable[int]] | None
) -> None:
    """The most database connections `connections` reports, polled every half second in the window."""
    if connections is None:
        return
    await _sleep_until(window.start)
    while time.monotonic() < window.stop:
        seen = await connections()
        result.db_connections = max(result.db_connections or 0, seen)
        await asyncio.sleep(0.5)


# -- scenarios ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    setup: tuple[str, ...]
    message: str
    simple: bool  # a single action: the target is one LLM call


SCENARIOS = (
    Scenario("add", (), "add Buy milk", simple=True),
    Scenario("list", ("add Buy milk", "add Call mom"), "list my tasks", simple=True),
    Scenario("delete by title", ("add Read book",), "delete read books", simple=True),
    Scenario("complete by title", ("add Pay rent",), "complete pay rent", simple=True),
    Scenario("update by title", ("add Pay rent",), "update Pay rent priority high", simple=True),
    Scenario("ghost retry", ("add Pay rent",), "delete Pay rent!", simple=False),
    Scenario("multi-call", (), "add Call mom and add Buy bread", simple=False),
)


async def run_scenarios(port: int, *, repetitions: int, on_turn: Callable[[], object]) -> list[dict[str, Any]]:
    """LLM calls and tokens of each scenario's measured turn (setup turns run in the same chat)."""
    out = []
    for scenario in SCENARIOS:
        samples: list[dict[str, Any]] = []
        for _ in range(repetitions):
            client = Client(port, f"scenario-{uuid.uuid4().hex[:10]}")
            try:
                for message in scenario.setup:
                    await client.say(message)
                status, body = await client.say(scenario.message)
            finally:
                await client.close()
            on_turn()
            if status != 200:
                raise RuntimeError(f"scenario {scenario.name!r} answered {status}: {body}")
            meta = body["execution_metadata"]
            samples.append(
                {
                    "llm_calls": meta["llm_calls"],
                    "prompt_tokens": meta["prompt_tokens"],
                    "completion_tokens": meta["completion_tokens"],
                    "tools": [c["name"] for c in body["tool_calls"]],
                    "success": all(c["result"]["success"] for c in body["tool_calls"]) and bool(body["tool_calls"]),
                    "guard": meta["guard"]["outcome"],
                }
            )
        n = len(samples)
        out.append(
            {
                "scenario": scenario.name,
                "message": scenario.message,
                "simple": scenario.simple,
                "repetitions": n,
                "llm_calls": round(sum(s["llm_calls"] for s in samples) / n, 3),
                "prompt_tokens": round(sum(s["prompt_tokens"] for s in samples) / n, 1),
                "completion_tokens": round(sum(s["completion_tokens"] for s in samples) / n, 1),
                "tools": samples[0]["tools"],
                "all_succeeded": all(s["success"] for s in samples),
                "guard": samples[0]["guard"],
            }
        )
    return out


async def run_growth(port: int, *, turns: int, on_turn: Callable[[], object]) -> list[dict[str, int]]:
    """Prompt tokens of each turn of one conversation growing to `turns` turns."""
    client = Client(port, f"growth-{uuid.uuid4().hex[:10]}")
    cycle = simple_turns("g")
    out = []
    try:
        for i in range(turns):
            status, body = await client.say(cycle(i))
            if status != 200:
                raise RuntimeError(f"growth turn {i} answered {status}: {body}")
            meta = body["execution_metadata"]
            out.append({"turn": i + 1, "prompt_tokens": meta["prompt_tokens"], "llm_calls": meta["llm_calls"]})
            on_turn()
    finally:
        await client.close()
    return out


# -- streaming ---------------------------------------------------------------------------------
async def run_streaming(port: int, *, turns: int, on_turn: Callable[[], object]) -> dict[str, Any]:
    """Time to the first server-sent event, to the first reply text (`delta`) and to `done` of
    streamed turns, beside plain turns.

    Each turn is "add …" in `model` mode against a fake model with latency, so a turn is two model
    calls: the tool event can leave after the first, the reply's text only during the second."""
    import httpx  # the load driver's own client reads no streams; this phase is about latency, not CPU

    first: list[float] = []
    first_text: list[float] = []
    done: list[float] = []
    plain: list[float] = []
    user = f"stream-{uuid.uuid4().hex[:8]}"
    headers = {"Authorization": f"Bearer {token(user)}"}
    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=REQUEST_TIMEOUT_S) as http:
        for i in range(turns):
            body = {"message": f"add Streamed task {i}"}
            began = time.perf_counter()
            stream_headers = {**headers, "Accept": "text/event-stream"}
            async with http.stream("POST", f"/api/{user}/chat", json=body, headers=stream_headers) as response:
                seen: dict[str, float] = {}
                async for line in response.aiter_lines():
                    if line.startswith("event: "):
                        seen.setdefault("first", (time.perf_counter() - began) * 1000)
                        seen.setdefault(line.removeprefix("event: "), (time.perf_counter() - began) * 1000)
                for series, event in ((first, "first"), (first_text, "delta"), (done, "done")):
                    if event in seen:  # a turn that failed has no reply text and no `done`
                        series.append(seen[event])
            began = time.perf_counter()
            await http.post(f"/api/{user}/chat", json={"message": f"add Plain task {i}"}, headers=headers)
            plain.append((time.perf_counter() - began) * 1000)
            on_turn()
    return {
        "turns": turns,
        "first_event_ms": percentiles(first),
        "first_text_ms": percentiles(first_text),
        "done_ms": percentiles(done),
        "plain_response_ms": percentiles(plain),
    }
