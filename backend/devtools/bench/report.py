"""results.json and results.md: the numbers, the targets of issue 7 and whether each was met
(bench/targets.py), and results.md's sections, one per phase (the stages phase's: bench/report_stages.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from backend.app.tools.task_tools import PREFILTER_ABOVE
from backend.devtools.bench import report_stages
from backend.devtools.bench.tables import table
from backend.devtools.bench.targets import targets


def write(results: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    results["targets"] = targets(results)
    json_path = out_dir / "results.json"
    json_path.write_bytes(orjson.dumps(results, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n")
    md_path = out_dir / "results.md"
    md_path.write_text(markdown(results))
    return json_path, md_path


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
        lines += table(
            ["target", "goal", "measured", "met"],
            [[t["target"], t["goal"], t["value"], "yes" if t["met"] else "**no**"] for t in results["targets"]],
        )
    for section in (
        _load,
        _floor,
        report_stages.section,
        _streaming,
        _scale,
        _scenarios,
        _tool_schemas,
        _growth,
        _resolver,
    ):
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
    lines += table([*header, "errors", "server CPU/turn ms", "machine busy %", "worker RSS MB"], rows)
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
    return lines + table([*header, "floor turns/s", "Taskchat turns/s"], rows)


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
    lines += table(["", "p50 ms", "p95 ms"], rows)
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
    lines += table([*header, "PgBouncer CPU/turn ms", "Postgres connections", "machine busy %"], rows)
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
        lines += table(
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
    lines += table(
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
    lines += table(
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
    lines += table(
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
