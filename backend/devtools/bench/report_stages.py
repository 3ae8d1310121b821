"""results.md's section on the stages phase: CPU per turn by stage from a profile, a streamed turn
beside a plain one, each stage timed without a profiler, and the instructions a turn executes."""

from __future__ import annotations

from typing import Any

from backend.devtools.bench.tables import table


def section(results: dict[str, Any]) -> list[str]:
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
        *table(["stage", "ms per turn", "share"], rows),
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
