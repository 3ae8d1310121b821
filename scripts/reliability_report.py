"""Run the reliability suite and render the figures of specs/reliability.md.

    .venv/bin/python scripts/reliability_report.py            # run tests/reliability, print the tables
    .venv/bin/python scripts/reliability_report.py --write    # ... and replace the generated block in the spec
    .venv/bin/python scripts/reliability_report.py --from-json figures.json   # render saved figures only

The tests count what they try and what goes wrong (see tests/reliability/conftest.py); with
REL_REPORT=path set they write the totals as JSON, which this script turns into Markdown. The
defaults table is read from `Settings`, so it cannot drift from the code.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "specs" / "reliability.md"
START, END = "<!-- figures:start -->", "<!-- figures:end -->"

Figures = dict[str, dict[str, int]]


def run_suite() -> tuple[Figures, dict[str, int]]:
    with tempfile.TemporaryDirectory() as tmp:
        figures_path, junit = Path(tmp) / "figures.json", Path(tmp) / "junit.xml"
        env = {**os.environ, "REL_REPORT": str(figures_path)}
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:warnings", f"--junitxml={junit}"]
        command.append("tests/reliability")
        completed = subprocess.run(command, cwd=ROOT, env=env, check=False)
        if not figures_path.exists():
            sys.exit(f"the suite wrote no figures (pytest exit code {completed.returncode})")
        suite = ET.parse(junit).getroot()
        node = suite if suite.tag == "testsuite" else suite[0]
        counts = {k: int(node.get(k, "0")) for k in ("tests", "failures", "errors", "skipped")}
        counts["seconds"] = round(float(node.get("time", "0")))
        counts["exit_code"] = completed.returncode
        return json.loads(figures_path.read_text()), counts


def _g(figures: Figures, section: str, key: str) -> int:
    return int(figures.get(section, {}).get(key, 0))


def figures_table(f: Figures) -> str:
    rows: list[tuple[str, str, str, str]] = [
        (
            "Hostile tokens × protected routes (`test_auth_corpus.py`)",
            f"{_g(f, 'auth', 'tokens_tried')} requests",
            f"**{_g(f, 'auth', 'wrongly_accepted')}** wrongly accepted, {_g(f, 'auth', 'server_errors')} × 5xx",
            "0",
        ),
    ]
    for section, label in (
        ("race_tools_forced", "Races, both read before either writes, two TaskTools executors"),
        ("race_chat_forced", "Races, both read before either writes, two chat turns"),
        ("race_tools_natural", "Races, started together, two TaskTools executors"),
        ("race_chat_natural", "Races, started together, two chat turns"),
    ):
        double = f", {_g(f, section, 'double_wins')} double winners" if "forced" in section else ""
        errors = f", {_g(f, section, 'server_errors')} × 5xx" if "chat" in section else ""
        rows.append(
            (
                f"{label} (`test_concurrency.py`)",
                f"{_g(f, section, 'races')} races",
                f"**{_g(f, section, 'lost_updates')}** lost updates{double}{errors}",
                "0",
            )
        )
    rows += [
        (
            "Loser of a delete race looks for its task among similarly named ones",
            f"{_g(f, 'race_chat_natural', 'sibling_races')} scenario",
            f"**{_g(f, 'race_chat_natural', 'misdirected_writes')}** writes to the wrong task",
            "0",
        ),
        (
            "Idempotent retries: concurrent (2 workers) + sequential replays + retry after a fault",
            f"{_g(f, 'idempotency', 'requests')} requests on {_g(f, 'idempotency', 'keys')} keys",
            f"**{_g(f, 'idempotency', 'duplicate_tasks')}** duplicate tasks, "
            f"{_g(f, 'idempotency', 'server_errors')} × 5xx",
            "0",
        ),
        (
            "LLM faults injected (`test_llm_faults.py`)",
            f"{_g(f, 'faults', 'injected')} faults, {_g(f, 'faults', 'llm_requests')} model requests",
            f"**{_g(f, 'faults', 'unmapped_5xx')}** 5xx from our code; "
            f"{_g(f, 'faults', 'mapped_5xx')} mapped 502/503/504, {_g(f, 'faults', 'after_tool_200')} × 200 "
            "(tool had already run)",
            "0 unmapped",
        ),
        (
            "Schemathesis, positive + negative cases (`test_fuzz_api.py`)",
            f"{_g(f, 'schemathesis', 'cases_positive')} + {_g(f, 'schemathesis', 'cases_negative')} cases",
            f"**{_g(f, 'schemathesis', 'failures')}** check failures, {_g(f, 'schemathesis', 'server_errors')} × 5xx",
            "0",
        ),
        (
            "Random tool-call batches through normalizer + TaskTools (`test_fuzz_properties.py`)",
            f"{_g(f, 'fuzz_tools', 'batches')} batches, {_g(f, 'fuzz_tools', 'calls')} calls "
            f"({_g(f, 'fuzz_tools', 'rejected')} rejected)",
            f"**{_g(f, 'fuzz_tools', 'stray_writes')}** stray writes, 0 crashes (a crash fails the test)",
            "0",
        ),
        (
            "Model asks to act for another user / on another user's task id (`test_excessive_agency.py`)",
            f"{_g(f, 'agency', 'owner_overrides_tried')} + {_g(f, 'agency', 'foreign_ids_tried')} attempts",
            f"**{_g(f, 'agency', 'owner_overrides_obeyed') + _g(f, 'agency', 'foreign_ids_reached')}** obeyed",
            "0",
        ),
        (
            "Prompt injection stored in a task title (scripted and offline model)",
            f"{_g(f, 'agency', 'injections_tried')} turns",
            f"**{_g(f, 'agency', 'injections_obeyed')}** extra actions",
            "0",
        ),
        (
            "Deletes requested in one turn beyond the destructive cap (5)",
            f"{_g(f, 'agency', 'destructive_calls_tried')} deletes",
            f"{_g(f, 'agency', 'destructive_calls_refused')} refused with DESTRUCTIVE_LIMIT",
            "all beyond 5",
        ),
        (
            "Three instances on one database, directly and through PgBouncer (`test_scale_out.py`)",
            f"{_g(f, 'scale_out', 'turns')} concurrent turns, {_g(f, 'scale_out', 'idempotent_requests')} "
            "requests on one key",
            f"**{_g(f, 'scale_out', 'server_errors')}** × 5xx, **{_g(f, 'scale_out', 'duplicate_tasks')}** "
            "duplicate tasks",
            "0",
        ),
        (
            "One user's burst of 32 simultaneous chats over three instances, limit 5 a minute, directly and "
            "through PgBouncer (`test_scale_out.py`)",
            f"{_g(f, 'scale_out', 'rate_limit_burst_requests')} requests",
            f"**{_g(f, 'scale_out', 'rate_limit_overshoot')}** accepted over the limit",
            "0",
        ),
        (
            "The database stopped and started under load, behind a TCP proxy (`test_db_outage.py`)",
            f"{_g(f, 'outage', 'requests')} requests",
            f"**{_g(f, 'outage', 'server_errors')}** × 500 (503 with Retry-After while it was gone)",
            "0",
        ),
        (
            "Burst of simultaneous turns, pool 5 + 5 (`test_retries_and_load.py`)",
            f"{_g(f, 'load', 'turns')} turns",
            f"{_g(f, 'load', 'turns') - _g(f, 'load', 'ok')} not 200, {_g(f, 'load', 'server_errors')} × 5xx, "
            f"peak {_g(f, 'load', 'peak_connections')} DB sessions",
            "0, ≤ 10",
        ),
    ]
    lines = ["| what | tried | went wrong | must be |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows]
    return "\n".join(lines)


# setting -> how the suite exercises it
DEFAULTS: list[tuple[str, str, str]] = [
    ("llm_connect_timeout_s", "s", "per phase, capped by what is left of the turn's deadline"),
    ("llm_read_timeout_s", "s", "`ReadTimeout` fault → 504 after retries"),
    ("budget_max_latency_ms", "ms", "turn deadline: a slower model → 504 within it (setting and per request)"),
    ("llm_max_retries", "", "5xx/408/429/connection faults tried 1 + N times (N = 0…4); 4xx and bad 200 bodies once"),
    ("budget_max_llm_calls", "", "per-turn budget (tests/agent); the fault tests count model requests"),
    ("budget_max_tool_calls", "", "per-turn budget (tests/agent)"),
    ("llm_max_tokens", "", "sent as `max_tokens`; `finish_reason: length` with no answer → 502"),
    ("max_destructive_calls_per_turn", "", "7 deletes in one step → 5 run, 2 refused; also counted across steps"),
    ("max_tool_args_bytes", "B", "hypothesis: oversized arguments → ARGUMENTS_TOO_LARGE, never parsed"),
    ("max_body_bytes", "B", "tests/api/test_limits.py (413, also chunked)"),
    ("max_message_chars", "chars", "tests/api/test_limits.py (422); NUL in the message → 422"),
    (
        "rate_limit_per_minute",
        "/user/min",
        "tests/api/test_limits.py (shared by two app instances, 429 + Retry-After); 32 at once over three "
        "instances (test_scale_out.py): exactly the limit",
    ),
    ("idempotency_ttl_hours", "h", "retry storm (100 concurrent + 30 replays on 10 keys, two workers): 0 duplicates"),
    ("jwt_max_lifetime_minutes", "min", "2 h and 10-year tokens → 401; `iat` in the future → 401"),
    ("jwt_leeway_s", "s", "exp 60 s past → 401; iat 10 s ahead → accepted (clock skew)"),
    ("db_pool_size", "", "40 simultaneous turns on a smaller pool (5 + 5 connections) all succeed"),
    ("db_max_overflow", "", "peak app sessions ≤ 10 during the burst"),
    ("db_statement_timeout_ms", "ms", "set at connect, or per transaction (`SET LOCAL`) behind PgBouncer: "
     "a longer statement is cancelled either way (tests/db/test_session.py); races finish far inside it"),
    ("db_pooler", "", "`transaction`: the main flows, idempotency, races and three instances run through a real "
     "PgBouncer; without it PgBouncer refuses the connection"),
    ("prune_interval_s", "s", "expired keys, rate-limit events and deleted tasks past retention pruned, one "
     "instance at a time (tests/services/test_maintenance.py)"),
    ("db_lock_timeout_ms", "ms", "a racer blocked on the winner's row lock waits, then sees 0 rows → CONFLICT"),
    ("db_idle_in_transaction_timeout_ms", "ms", "no app session idle in a transaction across a model call"),
]


def defaults_table() -> str:
    sys.path.insert(0, str(ROOT))
    from backend.app.core.config import Settings

    fields = Settings.model_fields
    lines = ["| setting (env var) | default | how it is tested |", "|---|---|---|"]
    for name, unit, how in DEFAULTS:
        value: Any = fields[name].default
        if isinstance(value, bool) or not isinstance(value, int | float):
            shown = f"`{value}`"
        else:
            shown = f"{value:,}".replace(",", " ") if isinstance(value, int) else f"{value:g}"
        lines.append(f"| `{name.upper()}` | {shown}{' ' + unit if unit else ''} | {how} |")
    return "\n".join(lines)


def render(figures: Figures, counts: dict[str, int] | None) -> str:
    parts = [START, "", "Generated by `scripts/reliability_report.py`; do not edit by hand.", ""]
    if counts is not None:
        parts += [
            f"Suite: {counts['tests']} tests, {counts['failures'] + counts['errors']} failed, "
            f"{counts['skipped']} skipped or xfailed, {counts['seconds']} s.",
            "",
        ]
    parts += [figures_table(figures), "", "### Reference defaults in effect", "", defaults_table(), "", END]
    return "\n".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help=f"replace the generated block in {SPEC.name}")
    parser.add_argument("--from-json", type=Path, help="render figures saved earlier instead of running the suite")
    args = parser.parse_args()
    if args.from_json:
        figures, counts = json.loads(args.from_json.read_text()), None
    else:
        figures, counts = run_suite()
    block = render(figures, counts)
    print(block)
    if args.write:
        text = SPEC.read_text()
        head, _, rest = text.partition(START)
        _, _, tail = rest.partition(END)
        SPEC.write_text(head + block + tail)
    if counts is not None and counts["exit_code"] != 0:
        sys.exit(counts["exit_code"])


if __name__ == "__main__":
    main()
