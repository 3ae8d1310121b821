"""results.json and results.md: the numbers, the targets of issue 7 and whether each was met."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from backend.app.tools.task_tools import PREFILTER_ABOVE

TARGET_OVERHEAD_P95_MS = 15.0
TARGET_TURNS_PER_S = 300.0
TARGET_RESOLVER_P95_MS = 5.0
TARGET_CALLS_PER_SIMPLE_ACTION = 1.1
TARGET_SEARCH_P95_MS = 10.0  # issue 16


def _find(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any] | None:
    return next((r for r in rows if all(r.get(k) == v for k, v in match.items())), None)


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    load = results.get("load", [])
    for workers in sorted({r["workers"] for r in load if r["database"] == "postgres"}):
        row = _find(load, database="postgres", workers=workers, concurrency=8)
        if row is not None:
            value = row["overhead_ms"]["p95"]
            out.append(
                _target(
                    f"overhead p95, Postgres, {workers} worker(s), concurrency 8",
                    value,
                    TARGET_OVERHEAD_P95_MS,
                    "ms",
                    below=True,
                )
            )
    best = max((r["turns_per_s"] for r in load if r["database"] == "postgres" and r["workers"] == 2), default=None)
    if best is not None:
        out.append(
            _target("turns/s, Postgres, 2 workers (best concurrency)", best, TARGET_TURNS_PER_S, "turns/s", below=False)
        )
    simple = [s for s in results.get("scenarios", {}).get("direct", []) if s["simple"]]
    if simple:
        mean = round(sum(s["llm_calls"] for s in simple) / len(simple), 3)
        out.append(
            _target(
                "LLM calls per simple action (direct mode)",
                mean,
                TARGET_CALLS_PER_SIMPLE_ACTION,
                "calls",
                below=True,
                strict=False,
            )
        )
    growth = results.get("growth")
    if growth:
        out.append(
            _target(
                f"most prompt tokens in {len(growth['turns'])} turns: system + tools + history budget + message",
                growth["max_prompt_tokens"],
                growth["bound_tokens"],
                "tokens",
                below=True,
                strict=False,
            )
        )
    largest = max((r["tasks"] for r in results.get("resolver", [])), default=None)
    search = _find(results.get("resolver", []), tasks=largest, path="search (postgres)") if largest else None
    if search is not None:
        out.append(
            _target(
                f"search p95 (q=), Postgres, {largest:,} tasks",
                search["all"]["p95"],
                TARGET_SEARCH_P95_MS,
                "ms",
                below=True,
            )
        )
    row = _find(results.get("resolver", []), tasks=largest, path="postgres") if largest else None
    if row is not None:
        out.append(
            _target(
                f"resolver p95, Postgres, {largest:,} tasks",
                row["all"]["p95"],
                TARGET_RESOLVER_P95_MS,
                "ms",
                below=True,
            )
        )
    return out


def _target(
    name: str, value: float | None, target: float, unit: str, *, below: bool, strict: bool = True
) -> dict[str, Any]:
    if value is None:
        met = False
    elif below:
        met = value < target if strict else value <= target
    else:
        met = value >= target
    sign = ("<" if strict else "≤") if below else "≥"
    return {"target": name, "value": value, "goal": f"{sign} {target:g} {unit}", "met": met}


def write(results: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    results["targets"] = targets(results)
    json_path = out_dir / "results.json"
    json_path.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    md_path = out_dir / "results.md"
    md_path.write_text(markdown(results))
    return json_path, md_path


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.1f}" if value >= 100 else f"{value:.2f}"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_fmt(c) for c in row) + " |" for row in rows]
    return [*lines, ""]


def markdown(results: dict[str, Any]) -> str:
    meta = results["meta"]
    lines = [
        "# Taskchat benchmark",
        "",
        f"`{meta['command']}` on {meta['date']}: {meta['cpus']} CPUs, Python {meta['python']}, "
        f"{meta.get('postgres') or 'no Postgres'}; load average {meta['loadavg_start']} at the start and "
        f"{meta['loadavg_end']} at the end (other work on the machine shows up here); {meta['elapsed_s']:.0f} s; "
        f"CPU probe {meta.get('cpu_probe_ms_start', '?')} ms at the start and {meta.get('cpu_probe_ms_end', '?')} "
        "ms at the end (a fixed Python loop: lower is a faster machine; results compare only at similar probes).",
        f"The fake model answers in {meta['fake_latency_ms']:g} ms, so latency is Taskchat's own overhead "
        "(HTTP, auth, database, tool loop, JSON) plus the loopback hops; load is closed-loop, one user per "
        f"connection, {meta['duration_s']:g} s per point after {meta['warmup_s']:g} s of warm-up. "
        "Results: `results.json` beside this file.",
    ]
    if results["targets"]:  # none when the phases that measure them were skipped
        lines += ["", "## Targets", ""]
        lines += _table(
            ["target", "goal", "measured", "met"],
            [[t["target"], t["goal"], t["value"], "yes" if t["met"] else "**no**"] for t in results["targets"]],
        )
    for section in (_load, _floor, _stages, _streaming, _scale, _scenarios, _tool_schemas, _growth, _resolver):
        lines += section(results)
    return "\n".join(lines)


def _load(results: dict[str, Any]) -> list[str]:
    """Overhead and throughput per load point."""
    if not results.get("load"):
        return []
    lines: list[str] = []
    lines += [
        "## Overhead per turn and throughput (fake model at 0 ms)",
        "",
        "`server CPU/turn`: CPU time of the server and its workers over the measured window, per turn "
        "(robust to other load); `machine busy`: share of both cores busy with anything in that window; "
        "`worker RSS`: the largest worker's resident memory at the window's end.",
        "",
    ]
    rows = [
        [
            r["database"],
            r["workers"],
            r["concurrency"],
            r["turns_per_s"],
            r["overhead_ms"]["p50"],
            r["overhead_ms"]["p95"],
            r["overhead_ms"]["p99"],
            r["llm_calls_per_turn"],
            r["errors"],
            r.get("server_cpu_ms_per_turn"),
            r.get("machine_busy_pct"),
            r.get("worker_rss_mb"),
        ]
        for r in results["load"]
    ]
    header = ["database", "workers", "concurrency", "turns/s", "p50 ms", "p95 ms", "p99 ms", "LLM calls/turn"]
    lines += _table([*header, "errors", "server CPU/turn ms", "machine busy %", "worker RSS MB"], rows)
    return lines


def _floor(results: dict[str, Any]) -> list[str]:
    """The stack's floor beside Taskchat at one load point (bench/floor.py)."""
    found = results.get("floor")
    if not found:
        return []
    lines = [
        "",
        f"## The stack's floor ({found['workers']} workers, concurrency {found['concurrency']}, Postgres)",
        "",
        "The same parts (uvicorn, FastAPI, python-jose, asyncpg, aiohttp, orjson) doing the least a turn "
        "can: the token and body checked, one statement to store the message and read the history, one "
        "request to the same fake model with the same prompt and tools, one for the tool, one for the reply "
        "(backend/devtools/bench/floor.py), served and driven as Taskchat is, in alternating rounds.",
        "",
    ]
    rows = []
    for r in found["rows"]:
        floor, taskchat = r["floor"], r["taskchat"]
        ratio = (
            round(taskchat["server_cpu_ms_per_turn"] / floor["server_cpu_ms_per_turn"], 2)
            if floor["server_cpu_ms_per_turn"] and taskchat["server_cpu_ms_per_turn"]
            else None
        )
        rows.append(
            [
                r["round"],
                r["probe_ms"],
                floor["server_cpu_ms_per_turn"],
                taskchat["server_cpu_ms_per_turn"],
                ratio,
                floor["turns_per_s"],
                taskchat["turns_per_s"],
            ]
        )
    header = ["round", "CPU probe ms", "floor CPU/turn ms", "Taskchat CPU/turn ms", "Taskchat / floor"]
    return lines + _table([*header, "floor turns/s", "Taskchat turns/s"], rows)


def _stages(results: dict[str, Any]) -> list[str]:
    """CPU per turn by stage, from a profile (bench/stages.py)."""
    found = results.get("stages")
    if not found:
        return []
    first = found["rows"][0]
    return [
        "",
        "## CPU per turn by stage (a profile of the server's side)",
        "",
        f"The load phase's simple turns (add, list, complete, delete), {first['turns']} per pass, "
        f"{first['concurrency']} at a time, the app in one process on Postgres; yappi with a CPU clock over "
        "the measured turns. The profiler inflates every figure, Python-heavy code more than C: read the "
        "shares, and scale by the unprofiled figure. How each stage is chosen: backend/devtools/bench/stages.py.",
        "",
        *_stage_table(found["rows"], probe_ms=found["probe_ms"]),
        "",
        *_streamed_turn(found.get("streamed"), probe_ms=found["probe_ms"]),
        *_timed_stages(found.get("timed"), probe_ms=found["probe_ms"]),
        *_instructions(found.get("instructions")),
    ]


def _instructions(counted: dict[str, Any] | None) -> list[str]:
    """The instructions a turn executes (bench/instructions.py)."""
    if not counted:
        return []
    if "skipped" in counted:
        return [f"Instructions per turn: not counted, {counted['skipped']}.", ""]
    return [
        f"Instructions per turn, counted by valgrind's callgrind over {counted['turns']} of the same turns one "
        f"at a time (the driving client included; {counted['failed']} failed): "
        f"**{counted['instructions_per_turn_m']} M**. The same to 0.3% run to run where CPU time moves by 10-20%: "
        "the measure to compare two versions of the code by (backend/devtools/bench/instructions.py says what "
        "it does not see).",
        "",
    ]


def _timed_stages(timed: dict[str, Any] | None, *, probe_ms: float) -> list[str]:
    """Each stage's CPU without a profiler, one turn at a time (bench/stages.py `timed_stages`)."""
    if not timed:
        return []
    rows = [[stage, ms, f"{ms / timed['cpu_ms']:.0%}"] for stage, ms in timed["stages"]]
    return [
        f"Each stage timed without a profiler: the same turns (direct mode), {timed['turns']} of them one at "
        "a time, each stage's functions adding up their thread's CPU while they run (awaits included: with "
        "one turn at a time, what runs then is the stage's own work). `outside the turn` is the framework, "
        f"the middleware and the driving client. {timed['cpu_ms']} ms of CPU a turn "
        f"({timed['cpu_ms'] / probe_ms:.2f}× the probe), {timed['failed']} failed.",
        "",
        *_table(["stage", "ms per turn", "share"], rows),
        "",
    ]


def _streamed_turn(streamed: dict[str, Any] | None, *, probe_ms: float) -> list[str]:
    """A streamed turn's CPU beside a plain one's (timed, not profiled: bench/stages.py says why)."""
    if not streamed:
        return []
    plain, stream = streamed["plain_ms"], streamed["streamed_ms"]
    return [
        f"A streamed turn (direct mode, `Accept: text/event-stream`, read to its `done` event), timed in "
        f"passes alternating with plain turns of the same app ({streamed['turns']} turns each, "
        f"{streamed['concurrency']} at a time, the driving client included): {stream} ms of CPU against "
        f"{plain} ms, {stream / plain:.2f}× the plain turn ({stream / probe_ms:.2f}× the probe). Not split "
        "by stage: the profiler misattributes the CPU of a turn run in a task of its own.",
        "",
    ]


def _stage_table(rows: list[dict[str, Any]], *, probe_ms: float) -> list[str]:
    """One column per response mode: profiled ms and the share of the server's, in the order of a turn."""
    lines = [
        "| stage | " + " | ".join(f"{r['response_mode']}: profiled ms (share)" for r in rows) + " |",
        "|---|" + "---:|" * len(rows),
    ]
    for i, (stage, _) in enumerate(rows[0]["stages"]):
        cells = [f"{r['stages'][i][1]} ({r['stages'][i][1] / r['server_profiled_ms']:.0%})" for r in rows]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    lines.append("| server, profiled | " + " | ".join(f"{r['server_profiled_ms']}" for r in rows) + " |")
    unprofiled = [f"{r['unprofiled_ms']} ({r['unprofiled_ms'] / probe_ms:.2f}× the probe)" for r in rows]
    lines.append("| the process unprofiled (the driving client included) | " + " | ".join(unprofiled) + " |")
    return lines


def _streaming(results: dict[str, Any]) -> list[str]:
    """Time to the first streamed event and to the first reply text."""
    if not results.get("streaming"):
        return []
    lines: list[str] = []
    streaming = results["streaming"]
    labels = (
        ("whole answers, REPLY_CHECK=lists", "whole"),
        ("LLM_STREAM, REPLY_CHECK=lists", "llm_stream"),
        ("LLM_STREAM, reply check (default)", "checked"),
    )
    runs = [(label, streaming[key]) for label, key in labels if streaming.get(key)]
    runs = [(label, run) for label, run in runs if run]
    if not runs:
        return []
    lines += [
        "## Streaming: time to the first event and to the first words",
        "",
        f"`Accept: text/event-stream`, RESPONSE_MODE=model (two model calls per turn, three with the reply "
        f"check), a fake model taking {streaming['fake_latency_ms']:g} ms to its first token and "
        f"{streaming.get('fake_word_ms', 0):g} ms a word; {runs[0][1]['turns']} turns of each kind, one at a time. "
        "With whole answers the model's words arrive at once; with LLM_STREAM and the word lists alone the "
        "sentences they find no contradiction in leave as the model writes them; with the reply check no "
        "word of the model's leaves before the model said what its words claim.",
        "",
    ]
    rows = [
        [f"{label}: {what}", run[key]["p50"], run[key]["p95"]]
        for label, run in runs
        for what, key in (
            ("first event (the tool's)", "first_event_ms"),
            ("first reply text (`delta`)", "first_text_ms"),
            ("`done`", "done_ms"),
            ("plain response, for comparison", "plain_response_ms"),
        )
    ]
    lines += _table(["", "p50 ms", "p95 ms"], rows)
    return lines


def _scale(results: dict[str, Any]) -> list[str]:
    """Instances on one Postgres, directly and through PgBouncer."""
    if not results.get("scale"):
        return []
    lines: list[str] = []
    lines += [
        "## Scale-out: instances on one Postgres, directly and through PgBouncer",
        "",
        "One-worker `taskchat serve` instances, the load's users spread over them; `DB_POOLER=transaction` "
        "through PgBouncer. `server CPU/turn`: all instances together; `PgBouncer CPU/turn`: the pooler's own; "
        "`Postgres connections`: the most the database carried during the window.",
        "",
    ]
    rows = [
        [
            r["path"],
            r["instances"],
            r["concurrency"],
            r["turns_per_s"],
            r["overhead_ms"]["p50"],
            r["overhead_ms"]["p95"],
            r["errors"],
            r.get("server_cpu_ms_per_turn"),
            r.get("pooler_cpu_ms_per_turn"),
            r.get("db_connections"),
            r.get("machine_busy_pct"),
        ]
        for r in results["scale"]
    ]
    header = ["path", "instances", "concurrency", "turns/s", "p50 ms", "p95 ms", "errors", "server CPU/turn ms"]
    lines += _table([*header, "PgBouncer CPU/turn ms", "Postgres connections", "machine busy %"], rows)
    return lines


def _scenarios(results: dict[str, Any]) -> list[str]:
    """LLM calls and tokens per scenario, per response mode."""
    lines: list[str] = []
    for mode, scenarios in results.get("scenarios", {}).items():
        lines += [f"## LLM calls and tokens per scenario (RESPONSE_MODE={mode})", ""]
        rows = [
            [
                s["scenario"],
                f"`{s['message']}`",
                s["llm_calls"],
                s["prompt_tokens"],
                s["completion_tokens"],
                ", ".join(s["tools"]),
                s["guard"],
                "yes" if s["all_succeeded"] else "no",
            ]
            for s in scenarios
        ]
        lines += _table(
            ["scenario", "message", "LLM calls", "prompt tokens", "completion tokens", "tools", "guard", "succeeded"],
            rows,
        )
    return lines


def _tool_schemas(results: dict[str, Any]) -> list[str]:
    """The tool schemas sent with every request."""
    if not results.get("tool_schemas"):
        return []
    lines: list[str] = []
    schemas = results["tool_schemas"]
    lines += ["## Tool schemas sent with every request", ""]
    lines += _table(
        ["tool", "characters", "≈ tokens"],
        [[s["tool"], s["chars"], s["tokens"]] for s in schemas["tools"]]
        + [["all five", schemas["chars"], schemas["tokens"]]],
    )
    return lines


def _growth(results: dict[str, Any]) -> list[str]:
    """Prompt tokens as one conversation grows."""
    if not results.get("growth"):
        return []
    lines: list[str] = []
    growth = results["growth"]
    lines += [
        "## Prompt tokens as one conversation grows",
        "",
        f"History budget {growth['history_token_budget']} tokens; bound = system prompt + tool schemas + "
        f"budget + message + framing = {growth['bound_tokens']} tokens.",
        "",
    ]
    marks = [t for t in growth["turns"] if t["turn"] in (1, 2, 5, 10, 20, 30, 40, 50) or t is growth["turns"][-1]]
    lines += _table(
        ["turn", "prompt tokens", "LLM calls"], [[t["turn"], t["prompt_tokens"], t["llm_calls"]] for t in marks]
    )
    return lines


def _resolver(results: dict[str, Any]) -> list[str]:
    """Resolver and search time per call, by size and probe kind."""
    if not results.get("resolver"):
        return []
    lines: list[str] = []
    lines += [
        "## Resolver time per call (one user; queries + scoring, one transaction)",
        "",
        "Probes per size: exact titles, UPPER-CASED titles, pluralized, one-typo, vague two-word and absent "
        "references (`backend/devtools/bench/titles.py`). `postgres` is the shipped path, one statement "
        "(`task_title_candidates`, migration 0003): an exact title first, then every title scored in process "
        f"up to {PREFILTER_ABOVE:,} tasks, above that the database's shortlist (the owner's title words, then "
        "trigrams). Compared with scoring every title in process: `decisive` = "
        "the shortlist resolves the task the in-process resolver lists first but, having cut its own "
        "shortlist at 200, only offers.",
        "",
    ]
    rows = []
    for r in results["resolver"]:
        kinds = r["by_kind"]
        agree = r.get("agreement_with_in_process")
        rows.append(
            [f"{r['tasks']:,}", r["path"], r["all"]["p50"], r["all"]["p95"], r["all"]["p99"]]
            + [kinds.get(k, {}).get("p95") for k in ("exact", "case", "plural", "typo", "ambiguous", "missing")]
            + [f"{agree['same']} / {agree['decisive']} / {agree['conflicts']}" if agree else "–"]
        )
    lines += _table(
        [
            "tasks",
            "path",
            "p50 ms",
            "p95 ms",
            "p99 ms",
            "exact p95",
            "case p95",
            "plural p95",
            "typo p95",
            "vague p95",
            "absent p95",
            "vs in-process: same / decisive / conflicts",
        ],
        rows,
    )
    return lines
