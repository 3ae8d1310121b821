"""`taskchat bench`: run the benchmark and write specs/bench/results.{json,md}.

Phases (each bounded in time or count; only loopback traffic):
1. load: Postgres and SQLite, 1 and 2 workers, concurrency 1, 8 and 32;
   floor: the stack's floor (bench/floor.py) beside Taskchat, Postgres, 2 workers, concurrency 8;
   stages: CPU per turn by stage (prepare, read, model, tools, reply, persist), from a profile of
   the app in this process (bench/stages.py), direct and model mode;
2. scenarios: LLM calls and tokens per scenario, RESPONSE_MODE=direct and model;
3. growth: prompt tokens of one conversation up to 50 turns;
4. resolver: 1k, 10k and 100k tasks for one user;
5. streaming: time to the first server-sent event, to the first reply text and to `done`, against a
   fake model taking 200 ms to its first token and 40 ms a word, with and without LLM_STREAM;
6. scale: 1 and 3 one-worker instances on one Postgres, directly and through PgBouncer (transaction
   pooling), at concurrency 32: turns/s, server and PgBouncer CPU per turn, Postgres connections.

This module reads the flags and runs the phases in order (bench/phases.py runs each one);
bench/meta.py notes the machine, bench/report.py writes the results.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from backend.devtools.bench import meta, phases, report, servers

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


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the flags ask for, --quick's smaller defaults filled in."""

    quick: bool
    duration: float
    warmup: float
    workers: list[int]
    concurrency: list[int]
    databases: list[str]
    skip: set[str]
    sizes: list[int]


def _plan(args: argparse.Namespace) -> _Plan:
    quick = bool(args.quick)
    return _Plan(
        quick=quick,
        duration=args.duration if args.duration is not None else (0.7 if quick else 8.0),
        warmup=0.3 if quick else 2.0,
        workers=_ints(args.workers or ("1" if quick else "1,2")),
        concurrency=_ints(args.concurrency or ("1,8" if quick else "1,8,32")),
        databases=[d.strip() for d in args.databases.split(",") if d.strip()],
        skip={s.strip() for s in args.skip.split(",") if s.strip()},
        sizes=_ints(args.sizes) if args.sizes else ([1_000] if quick else [1_000, 10_000, 100_000]),
    )


def _cmd_bench(args: argparse.Namespace) -> int:
    plan = _plan(args)
    started = time.monotonic()
    about = meta.at_start(
        quick=plan.quick, duration=plan.duration, warmup=plan.warmup, fake_latency_ms=args.fake_latency_ms
    )
    results: dict[str, Any] = {"meta": about, "tool_schemas": phases.tool_schema_sizes()}
    with tempfile.TemporaryDirectory(prefix="taskchat-bench-") as tmp:
        urls = _databases(args.postgres_url, plan.databases, Path(tmp))
        if "postgres" in urls:
            about["postgres"] = phases.run(meta.postgres_version(urls["postgres"]))
        with _fake(args) as fake_url:
            results.update(_served_phases(args, plan, urls, fake_url))
        if "resolver" not in plan.skip:
            results["resolver"] = []
            for name, url in urls.items():
                results["resolver"] += phases.resolver_phase(name, url, plan.sizes, quick=plan.quick)
    meta.at_end(about, started=started)
    json_path, md_path = report.write(results, args.out)
    print(f"wrote {json_path} and {md_path}")
    for t in results["targets"]:
        print(f"  {'met    ' if t['met'] else 'MISSED '} {t['target']}: {t['value']} (goal {t['goal']})")
    return 0


def _databases(postgres_url: str, databases: list[str], tmp: Path) -> dict[str, str]:
    """The databases asked for, by name, each ready and empty (SQLite's a file in `tmp`)."""
    urls = {}
    if "postgres" in databases:
        phases.run(servers.prepare_postgres(postgres_url))
        urls["postgres"] = postgres_url
    if "sqlite" in databases:
        urls["sqlite"] = servers.sqlite_url(tmp)
        phases.run(servers.prepare_sqlite(urls["sqlite"]))
    return urls


def _served_phases(args: argparse.Namespace, plan: _Plan, urls: dict[str, str], fake_url: str) -> dict[str, Any]:
    """The phases that serve Taskchat against the fake model, in the order they run. A skipped phase is
    left out, as are those that need Postgres when it is not among the databases."""
    out: dict[str, Any] = {}
    skip, quick = plan.skip, plan.quick
    if "load" not in skip:
        out["load"] = phases.load_phase(
            urls, plan.workers, plan.concurrency, plan.duration, plan.warmup, fake_url, args.fake_latency_ms
        )
    main_url = urls.get("postgres") or next(iter(urls.values()))
    if "floor" not in skip and "postgres" in urls:
        out["floor"] = phases.floor_phase(urls["postgres"], fake_url, plan.duration, plan.warmup, quick=quick)
    if "stages" not in skip and "postgres" in urls:
        out["stages"] = phases.stages_phase(urls["postgres"], fake_url, quick=quick)
    out.update(phases.token_phases(main_url, fake_url, skip, quick=quick))
    if "streaming" not in skip:
        out["streaming"] = phases.streaming_phase(main_url, quick=quick)
    if "scale" not in skip and "postgres" in urls:
        out["scale"] = phases.scale_phase(
            urls["postgres"],
            fake_url,
            _ints(args.instances or ("1,2" if quick else "1,3")),
            _ints(args.scale_concurrency or ("8" if quick else "32")),
            max(plan.duration, 1.5),  # a new instance's first turns are slow: a short window can miss them all
            plan.warmup,
            latency_ms=float(args.fake_latency_ms),
        )
    return out


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
