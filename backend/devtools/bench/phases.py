"""The benchmark's phases (bench/cli.py runs them in order): each starts the servers it needs, drives
them (bench/load.py, bench/stages.py, bench/resolver.py) and returns what results.json keeps of it.

load: closed-loop load per database, worker count and concurrency; floor: the stack's floor beside
Taskchat (bench/floor.py); stages: CPU per turn by stage; tokens: LLM calls and tokens per scenario,
and prompt growth; streaming: time to the first event and the first words; scale: one-worker
instances on one Postgres, directly and through PgBouncer; resolver: time per call by size.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Coroutine
from contextlib import ExitStack
from datetime import UTC, datetime
from typing import Any, TypeVar

import orjson
import uvloop
from sqlalchemy.ext.asyncio import create_async_engine
from tqdm import tqdm

from backend.app.core.config import Settings
from backend.app.db.session import configure_sqlite
from backend.app.services.turn.history import MESSAGE_OVERHEAD_TOKENS, estimate_tokens
from backend.app.services.turn.prompt import system_prompt
from backend.app.tools.registry import TOOL_SPECS
from backend.devtools.bench import instructions, load, resolver, servers, stages
from backend.devtools.bench.meta import cpu_probe_ms

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """The coroutine's result, run on a uvloop event loop of its own."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


def load_phase(
    urls: dict[str, str],
    workers_list: list[int],
    concurrency_list: list[int],
    duration: float,
    warmup: float,
    fake_url: str,
    fake_latency_ms: float,
) -> list[dict[str, Any]]:
    """Closed-loop load on each database, worker count and concurrency: one server per database and
    worker count, the concurrencies one after another against it."""
    rows = []
    for database, url in urls.items():
        for workers in workers_list:
            config = servers.AppConfig(database_url=url, workers=workers, llm_base_url=fake_url)
            with servers.taskchat(config) as server:
                for concurrency in concurrency_list:
                    label = f"load {database} w={workers} c={concurrency}"
                    with tqdm(desc=label, unit="turn", leave=True, file=sys.stderr, mininterval=1.0) as bar:
                        tag = f"{database[0]}{workers}c{concurrency}"
                        result = _drive(server, concurrency, duration, warmup, tag, on_turn=lambda: bar.update())
                    summary = result.summary(fake_latency_ms=fake_latency_ms)
                    rows.append({"database": database, "workers": workers, **summary})
    return rows


def _drive(
    server: servers.Server, concurrency: int, duration: float, warmup: float, tag: str, *, on_turn: Callable[[], object]
) -> load.LoadResult:
    """Closed-loop load on one server (bench/load.py), its CPU counted from its own process."""
    return run(
        load.run_load(
            [server.port],
            concurrency=concurrency,
            duration_s=duration,
            warmup_s=warmup,
            tag=tag,
            on_turn=on_turn,
            server_pids=[server.pid],
        )
    )


FLOOR_WORKERS = 2
FLOOR_CONCURRENCY = 8


def floor_phase(postgres_url: str, fake_url: str, duration: float, warmup: float, *, quick: bool) -> dict[str, Any]:
    """The stack's floor (bench/floor.py) and Taskchat at the same load point (Postgres, 2 workers,
    c8), in alternating rounds, each a server of its own: their server CPU per turn and its ratio."""
    rows = []
    for i in range(1 if quick else 3):
        probe = cpu_probe_ms()
        point: dict[str, Any] = {"round": i + 1, "probe_ms": probe}
        config = servers.AppConfig(database_url=postgres_url, workers=FLOOR_WORKERS, llm_base_url=fake_url)
        for name, server in (
            ("floor", servers.floor(postgres_url, fake_url, workers=FLOOR_WORKERS)),
            ("taskchat", servers.taskchat(config)),
        ):
            with server as running:
                tag = f"floor{name[0]}{i}{int(time.time())}"
                result = _drive(running, FLOOR_CONCURRENCY, duration, warmup, tag, on_turn=lambda: None)
            summary = result.summary(fake_latency_ms=0.0)
            point[name] = {k: summary.get(k) for k in ("server_cpu_ms_per_turn", "turns_per_s", "errors")}
        rows.append(point)
    return {"workers": FLOOR_WORKERS, "concurrency": FLOOR_CONCURRENCY, "rows": rows}


def stages_phase(postgres_url: str, fake_url: str, *, quick: bool) -> dict[str, Any]:
    """CPU per turn by stage, direct and model mode; a streamed turn's CPU beside a plain one's; each
    stage timed without a profiler, one turn at a time (bench/stages.py); the instructions a turn
    executes, the measure that does not move with the host (bench/instructions.py)."""
    turns = 48 if quick else 400
    rows = [
        run(stages.profile_stages(database_url=postgres_url, fake_url=fake_url, response_mode=mode, turns=turns))
        for mode in ("direct", "model")
    ]
    streamed = run(stages.streamed_cpu(database_url=postgres_url, fake_url=fake_url, turns=turns))
    timed = run(stages.timed_stages(database_url=postgres_url, fake_url=fake_url, turns=turns))
    counted = instructions.measure(database_url=postgres_url, fake_url=fake_url, turns=16 if quick else 100)
    return {"rows": rows, "streamed": streamed, "timed": timed, "instructions": counted, "probe_ms": cpu_probe_ms()}


def token_phases(url: str, fake_url: str, skip: set[str], *, quick: bool) -> dict[str, Any]:
    """Scenarios in both response modes and prompt growth, each mode on its own one-worker server."""
    out: dict[str, Any] = {"scenarios": {}}
    for mode in ("direct", "model"):
        wanted = [p for p in ("scenarios", "growth") if p not in skip and (p == "scenarios" or mode == "direct")]
        if not wanted:
            continue
        config = servers.AppConfig(database_url=url, workers=1, llm_base_url=fake_url, response_mode=mode)
        with (
            servers.taskchat(config) as server,
            tqdm(desc=f"tokens ({mode})", unit="turn", file=sys.stderr, mininterval=1.0) as bar,
        ):
            if "scenarios" in wanted:
                reps = 1 if quick else 10
                out["scenarios"][mode] = run(load.run_scenarios(server.port, repetitions=reps, on_turn=bar.update))
            if "growth" in wanted:
                turns = 10 if quick else 50
                out["growth"] = _growth_summary(run(load.run_growth(server.port, turns=turns, on_turn=bar.update)))
    return out


def tool_schema_sizes() -> dict[str, Any]:
    """The characters and estimated tokens of each tool schema sent with every request."""
    sizes = {spec.name: len(orjson.dumps(spec.to_openai())) for spec in TOOL_SPECS}
    tools = [{"tool": name, "chars": chars, "tokens": -(-chars // 4)} for name, chars in sizes.items()]
    total = sum(sizes.values())
    return {"tools": tools, "chars": total, "tokens": -(-total // 4)}


def _growth_summary(turns: list[dict[str, int]]) -> dict[str, Any]:
    settings = Settings(_env_file=None)
    budget = settings.history_token_budget
    fixed = estimate_tokens(system_prompt(datetime.now(UTC).date())) + tool_schema_sizes()["tokens"]
    # The longest benchmark message, its framing, and the request's own JSON keys.
    bound = fixed + budget + estimate_tokens("complete Bench task g 99") + 10 * MESSAGE_OVERHEAD_TOKENS
    return {
        "history_token_budget": budget,
        "bound_tokens": bound,
        "max_prompt_tokens": max(t["prompt_tokens"] for t in turns),
        "turns": turns,
    }


STREAM_FAKE_LATENCY_MS = 200.0
STREAM_FAKE_WORD_MS = 40.0


STREAM_RUNS = (
    # The model's words read by the word lists only, so checked sentences can leave as they are written.
    ("whole", {"REPLY_CHECK": "lists"}),
    ("llm_stream", {"LLM_STREAM": "true", "REPLY_CHECK": "lists"}),
    # The default: the model says what its words claim before any of them is shown (one more call).
    ("checked", {"LLM_STREAM": "true"}),
)


def streaming_phase(url: str, *, quick: bool) -> dict[str, Any]:
    """Streamed turns (RESPONSE_MODE=model) against a fake model that takes 200 ms to its first token
    and 40 ms a word: with whole answers from the model, with LLM_STREAM (both with REPLY_CHECK=lists),
    and with the reply check (the default)."""
    measured: dict[str, Any] = {}
    with servers.fake_model(latency_ms=STREAM_FAKE_LATENCY_MS, word_ms=STREAM_FAKE_WORD_MS) as slow_fake:
        for label, extra in STREAM_RUNS:
            config = servers.AppConfig(
                database_url=url, workers=1, llm_base_url=slow_fake, response_mode="model", extra_env=extra
            )
            with (
                servers.taskchat(config) as server,
                tqdm(desc=f"streaming ({label})", unit="turn", file=sys.stderr, mininterval=1.0) as bar,
            ):
                turns = 3 if quick else 20
                measured[label] = run(load.run_streaming(server.port, turns=turns, on_turn=bar.update))
    return {"fake_latency_ms": STREAM_FAKE_LATENCY_MS, "fake_word_ms": STREAM_FAKE_WORD_MS, **measured}


def scale_phase(
    postgres_url: str,
    fake_url: str,
    instance_counts: list[int],
    concurrency_list: list[int],
    duration: float,
    warmup: float,
    *,
    latency_ms: float,
) -> list[dict[str, Any]]:
    """N identical one-worker instances on one Postgres, directly and through PgBouncer; the load
    spreads its users over the instances (a balancer without stickiness)."""
    rows = []
    for path in ("direct", "pgbouncer"):
        with ExitStack() as outer:
            bouncer = outer.enter_context(servers.pgbouncer(postgres_url)) if path == "pgbouncer" else None
            url = servers.pooled_url(postgres_url, bouncer) if bouncer else postgres_url
            extra = {"DB_POOLER": "transaction"} if bouncer else {}
            for count in instance_counts:
                with ExitStack() as stack:
                    config = servers.AppConfig(database_url=url, workers=1, llm_base_url=fake_url, extra_env=extra)
                    started = [stack.enter_context(servers.taskchat(config)) for _ in range(count)]
                    for concurrency in concurrency_list:
                        label = f"scale {path} x{count} c={concurrency}"
                        with tqdm(desc=label, unit="turn", file=sys.stderr, mininterval=1.0) as bar:
                            result = run(
                                _measured_load(
                                    postgres_url,
                                    [s.port for s in started],
                                    concurrency=concurrency,
                                    duration_s=duration,
                                    warmup_s=warmup,
                                    tag=f"{path[0]}{count}c{concurrency}",
                                    on_turn=lambda: bar.update(),
                                    server_pids=[s.pid for s in started],
                                    pooler_pid=bouncer.pid if bouncer else None,
                                )
                            )
                        rows.append({"path": path, "instances": count, **result.summary(fake_latency_ms=latency_ms)})
    return rows


CONNECTIONS = (
    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
    "AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
)


async def _measured_load(postgres_url: str, ports: list[int], **options: Any) -> load.LoadResult:
    """`load.run_load`, counting the database's connections from the side (directly, not through the
    bouncer: these are what Postgres carries)."""
    import sqlalchemy as sa

    engine = create_async_engine(postgres_url, pool_size=1, max_overflow=0)

    async def connections() -> int:
        async with engine.connect() as conn:
            return int(await conn.scalar(sa.text(CONNECTIONS)) or 0)

    try:
        return await load.run_load(ports, connections=connections, **options)
    finally:
        await engine.dispose()


def resolver_phase(name: str, url: str, sizes: list[int], *, quick: bool) -> list[dict[str, Any]]:
    """Resolver and search time per call on one database, at each size (Postgres also compared with
    scoring every title in process)."""
    per_kind = 2 if quick else 10
    repeat = 1 if quick else 3

    async def go(bar: tqdm[Any]) -> list[dict[str, Any]]:
        engine = create_async_engine(url)
        if name == "sqlite":
            configure_sqlite(engine)  # the search functions Postgres has from migration 0008
        try:
            return await resolver.run_resolver(
                engine,
                sizes=sizes,
                per_kind=per_kind,
                repeat=repeat,
                compare=name == "postgres",
                on_call=lambda: bar.update(),
            )
        finally:
            await engine.dispose()

    with tqdm(desc=f"resolver {name}", unit="call", file=sys.stderr, mininterval=1.0) as bar:
        return run(go(bar))
