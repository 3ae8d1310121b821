"""`taskchat bench`: run the benchmark and write specs/bench/results.{json,md}.

Phases (each bounded in time or count; only loopback traffic):
1. load: Postgres and SQLite, 1 and 2 workers, concurrency 1, 8 and 32;
   stages: CPU per turn by stage (prepare, read, model, tools, reply, persist), from a profile of
   the app in this process (bench/stages.py), direct and model mode;
2. scenarios: LLM calls and tokens per scenario, RESPONSE_MODE=direct and model;
3. growth: prompt tokens of one conversation up to 50 turns;
4. resolver: 1k, 10k and 100k tasks for one user;
5. streaming: time to the first server-sent event, to the first reply text and to `done`, against a
   fake model taking 200 ms to its first token and 40 ms a word, with and without LLM_STREAM;
6. scale: 1 and 3 one-worker instances on one Postgres, directly and through PgBouncer (transaction
   pooling), at concurrency 32: turns/s, server and PgBouncer CPU per turn, Postgres connections.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import shlex
import sys
import tempfile
import time
from collections.abc import Coroutine
from contextlib import ExitStack
from datetime import UTC, datetime
from pathlib import Path
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
from backend.devtools.bench import instructions, load, report, resolver, servers, stages

T = TypeVar("T")
DEFAULT_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:5432/taskchat_bench"
DEFAULT_OUT = Path("specs/bench")  # from the repository root, as `make bench` runs it


def register(sub: Any) -> None:
    bench = sub.add_parser("bench", help="the performance benchmark (fake model on loopback); writes specs/bench/")
    bench.add_argument("--quick", action="store_true", help="a smoke run of a few seconds (not for the tables)")
    bench.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where results.json and results.md go")
    bench.add_argument(
        "--postgres-url",
        default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_POSTGRES),
        help="benchmark database (created if missing and emptied; its name must contain 'bench')",
    )
    bench.add_argument("--databases", default="postgres,sqlite", help="comma-separated: postgres, sqlite")
    bench.add_argument("--workers", default=None, help="comma-separated worker counts (default 1,2; quick 1)")
    bench.add_argument("--concurrency", default=None, help="comma-separated concurrency (default 1,8,32; quick 1,8)")
    bench.add_argument("--duration", type=float, default=None, help="seconds per load point (default 8; quick 1)")
    bench.add_argument("--fake-url", default=None, help="use this running fake model (…/v1) instead of starting one")
    bench.add_argument(
        "--fake-latency-ms",
        type=float,
        default=0.0,
        help="the fake model's latency (of the one started, or of --fake-url's, to subtract it)",
    )
    bench.add_argument("--sizes", default=None, help="resolver task counts (default 1000,10000,100000; quick 1000)")
    bench.add_argument("--instances", default=None, help="scale phase: instance counts (default 1,3; quick 1,2)")
    bench.add_argument("--scale-concurrency", default=None, help="scale phase: concurrency (default 32; quick 8)")
    bench.add_argument(
        "--skip",
        default="",
        help="comma-separated phases to skip: load,floor,stages,scenarios,growth,resolver,streaming,scale",
    )
    bench.set_defaults(func=_cmd_bench)


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def _run(coroutine: Coroutine[Any, Any, T]) -> T:
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


def _cmd_bench(args: argparse.Namespace) -> int:
    quick = bool(args.quick)
    duration = args.duration if args.duration is not None else (0.7 if quick else 8.0)
    warmup = 0.3 if quick else 2.0
    workers = _ints(args.workers or ("1" if quick else "1,2"))
    concurrency = _ints(args.concurrency or ("1,8" if quick else "1,8,32"))
    databases = [d.strip() for d in args.databases.split(",") if d.strip()]
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    sizes = _ints(args.sizes) if args.sizes else ([1_000] if quick else [1_000, 10_000, 100_000])
    started = time.monotonic()
    results: dict[str, Any] = {
        "meta": {
            "command": "taskchat bench" + ("" if len(sys.argv) <= 2 else " " + shlex.join(sys.argv[2:])),
            "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "loadavg_start": _loadavg(),
            "cpu_probe_ms_start": cpu_probe_ms(),
            "quick": quick,
            "duration_s": duration,
            "warmup_s": warmup,
            "fake_latency_ms": args.fake_latency_ms,
            "settings": f"taskchat serve defaults (LOG_LEVEL=INFO JSON logs, DB pool {_pool()} per worker, "
            "RESPONSE_MODE=direct, TOOL_POLICY=guarded); RATE_LIMIT_PER_MINUTE raised so the limiter never refuses",
        }
    }
    results["tool_schemas"] = tool_schema_sizes()
    with tempfile.TemporaryDirectory(prefix="taskchat-bench-") as tmp:
        urls = {}
        if "postgres" in databases:
            _run(servers.prepare_postgres(args.postgres_url))
            urls["postgres"] = args.postgres_url
            results["meta"]["postgres"] = _run(_postgres_version(args.postgres_url))
        if "sqlite" in databases:
            urls["sqlite"] = servers.sqlite_url(Path(tmp))
            _run(servers.prepare_sqlite(urls["sqlite"]))
        with _fake(args) as fake_url:
            if "load" not in skip:
                latency = results["meta"]["fake_latency_ms"]
                results["load"] = _load_phase(urls, workers, concurrency, duration, warmup, fake_url, latency)
            main_url = urls.get("postgres") or next(iter(urls.values()))
            if "floor" not in skip and "postgres" in urls:
                results["floor"] = _floor_phase(urls["postgres"], fake_url, duration, warmup, quick=quick)
            if "stages" not in skip and "postgres" in urls:
                results["stages"] = _stages_phase(urls["postgres"], fake_url, quick=quick)
            results.update(_token_phases(main_url, fake_url, skip, quick=quick))
            if "streaming" not in skip:
                results["streaming"] = _streaming_phase(main_url, quick=quick)
            if "scale" not in skip and "postgres" in urls:
                results["scale"] = _scale_phase(
                    urls["postgres"],
                    fake_url,
                    _ints(args.instances or ("1,2" if quick else "1,3")),
                    _ints(args.scale_concurrency or ("8" if quick else "32")),
                    max(duration, 1.5),  # a new instance's first turns are slow: a short window can miss them all
                    warmup,
                    latency_ms=float(args.fake_latency_ms),
                )
        if "resolver" not in skip:
            results["resolver"] = []
            for name, url in urls.items():
                results["resolver"] += _resolver_phase(name, url, sizes, quick=quick)
    results["meta"]["loadavg_end"] = _loadavg()
    results["meta"]["cpu_probe_ms_end"] = cpu_probe_ms()
    results["meta"]["elapsed_s"] = round(time.monotonic() - started, 1)
    json_path, md_path = report.write(results, args.out)
    print(f"wrote {json_path} and {md_path}")
    for t in results["targets"]:
        print(f"  {'met    ' if t['met'] else 'MISSED '} {t['target']}: {t['value']} (goal {t['goal']})")
    return 0


FLOOR_WORKERS = 2
FLOOR_CONCURRENCY = 8


def _floor_phase(postgres_url: str, fake_url: str, duration: float, warmup: float, *, quick: bool) -> dict[str, Any]:
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
                result = _run(
                    load.run_load(
                        [running.port],
                        concurrency=FLOOR_CONCURRENCY,
                        duration_s=duration,
                        warmup_s=warmup,
                        tag=f"floor{name[0]}{i}{int(time.time())}",
                        on_turn=lambda: None,
                        server_pids=[running.pid],
                    )
                )
            summary = result.summary(fake_latency_ms=0.0)
            point[name] = {k: summary.get(k) for k in ("server_cpu_ms_per_turn", "turns_per_s", "errors")}
        rows.append(point)
    return {"workers": FLOOR_WORKERS, "concurrency": FLOOR_CONCURRENCY, "rows": rows}


def _stages_phase(postgres_url: str, fake_url: str, *, quick: bool) -> dict[str, Any]:
    """CPU per turn by stage, direct and model mode; a streamed turn's CPU beside a plain one's; each
    stage timed without a profiler, one turn at a time (bench/stages.py); the instructions a turn
    executes, the measure that does not move with the host (bench/instructions.py)."""
    turns = 48 if quick else 400
    rows = [
        _run(stages.profile_stages(database_url=postgres_url, fake_url=fake_url, response_mode=mode, turns=turns))
        for mode in ("direct", "model")
    ]
    streamed = _run(stages.streamed_cpu(database_url=postgres_url, fake_url=fake_url, turns=turns))
    timed = _run(stages.timed_stages(database_url=postgres_url, fake_url=fake_url, turns=turns))
    counted = instructions.measure(database_url=postgres_url, fake_url=fake_url, turns=16 if quick else 100)
    return {"rows": rows, "streamed": streamed, "timed": timed, "instructions": counted, "probe_ms": cpu_probe_ms()}


class _fake:
    """The fake model given by --fake-url, or one started for the run."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self._context: Any = None

    def __enter__(self) -> str:
        if self.args.fake_url:
            return str(self.args.fake_url)
        self._context = servers.fake_model(latency_ms=self.args.fake_latency_ms)
        return str(self._context.__enter__())

    def __exit__(self, *exc: object) -> None:
        if self._context is not None:
            self._context.__exit__(*exc)


def _load_phase(
    urls: dict[str, str],
    workers_list: list[int],
    concurrency_list: list[int],
    duration: float,
    warmup: float,
    fake_url: str,
    fake_latency_ms: float,
) -> list[dict[str, Any]]:
    rows = []
    for database, url in urls.items():
        for workers in workers_list:
            config = servers.AppConfig(database_url=url, workers=workers, llm_base_url=fake_url)
            with servers.taskchat(config) as server:
                for concurrency in concurrency_list:
                    label = f"load {database} w={workers} c={concurrency}"
                    with tqdm(desc=label, unit="turn", leave=True, file=sys.stderr, mininterval=1.0) as bar:
                        result = _run(
                            load.run_load(
                                [server.port],
                                concurrency=concurrency,
                                duration_s=duration,
                                warmup_s=warmup,
                                tag=f"{database[0]}{workers}c{concurrency}",
                                on_turn=lambda: bar.update(),
                                server_pids=[server.pid],
                            )
                        )
                    summary = result.summary(fake_latency_ms=fake_latency_ms)
                    rows.append({"database": database, "workers": workers, **summary})
    return rows


STREAM_FAKE_LATENCY_MS = 200.0
STREAM_FAKE_WORD_MS = 40.0


STREAM_RUNS = (
    # The model's words read by the word lists only, so checked sentences can leave as they are written.
    ("whole", {"REPLY_CHECK": "lists"}),
    ("llm_stream", {"LLM_STREAM": "true", "REPLY_CHECK": "lists"}),
    # The default: the model says what its words claim before any of them is shown (one more call).
    ("checked", {"LLM_STREAM": "true"}),
)


def _streaming_phase(url: str, *, quick: bool) -> dict[str, Any]:
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
                measured[label] = _run(load.run_streaming(server.port, turns=turns, on_turn=bar.update))
    return {"fake_latency_ms": STREAM_FAKE_LATENCY_MS, "fake_word_ms": STREAM_FAKE_WORD_MS, **measured}


def _scale_phase(
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
                            result = _run(
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


def _token_phases(url: str, fake_url: str, skip: set[str], *, quick: bool) -> dict[str, Any]:
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
                out["scenarios"][mode] = _run(load.run_scenarios(server.port, repetitions=reps, on_turn=bar.update))
            if "growth" in wanted:
                turns = 10 if quick else 50
                out["growth"] = _growth_summary(_run(load.run_growth(server.port, turns=turns, on_turn=bar.update)))
    return out


def _resolver_phase(name: str, url: str, sizes: list[int], *, quick: bool) -> list[dict[str, Any]]:
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
        return _run(go(bar))


def tool_schema_sizes() -> dict[str, Any]:
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


async def _postgres_version(url: str) -> str:
    import sqlalchemy as sa

    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            version = str(await conn.scalar(sa.text("SHOW server_version")))
    finally:
        await engine.dispose()
    return f"PostgreSQL {version.split()[0]}"


def _pool() -> str:
    fields = Settings.model_fields
    return f"{fields['db_pool_size'].default}+{fields['db_max_overflow'].default}"


def cpu_probe_ms() -> float:
    """How fast this machine runs Python right now: the best of 3 runs of a fixed 2M-iteration loop.

    Shared hosts change speed from hour to hour (this one by 2x in a day); the probe lets two result
    files be compared. Only runs measured back to back, with their probes close, compare changes."""
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for i in range(2_000_000):
            total += i
        best = min(best, time.perf_counter() - started)
    return round(best * 1000, 1)


def _loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []
