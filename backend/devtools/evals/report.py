"""Summaries of a run: JSON files, a Markdown table (model x profile x strategy) and the chart.

Tool scenarios and the chat_only control are counted apart, as in the harness this one adapts: a
model that calls tools well but chats badly (or the reverse) should show as exactly that.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from backend.devtools.evals.harness import TrialResult

TOP_FAILURES = 3


def p95(values: Sequence[float]) -> float | None:
    """Nearest-rank 95th percentile: with few trials it is the slowest but one, never interpolated."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def stats(trials: Sequence[TrialResult]) -> dict[str, Any]:
    ok = sum(t.ok for t in trials)
    latencies = [t.latency_ms for t in trials]
    return {
        "runs": len(trials),
        "ok": ok,
        "ok_rate": round(ok / len(trials), 4) if trials else None,
        "p50_ms": _median(latencies),
        "p95_ms": p95(latencies),
        "failures": dict(Counter(t.reason for t in trials if t.reason).most_common()),
        "outcomes": dict(Counter(t.outcome for t in trials).most_common()),
    }


def _median(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else round((ordered[mid - 1] + ordered[mid]) / 2, 1)


def _group(trials: Iterable[TrialResult], key: Callable[[TrialResult], Any]) -> dict[Any, list[TrialResult]]:
    groups: dict[Any, list[TrialResult]] = defaultdict(list)
    for t in trials:
        groups[key(t)].append(t)
    return dict(groups)


def matrix_rows(trials: Sequence[TrialResult]) -> list[dict[str, Any]]:
    rows = []
    for (model, policy, profile, strategy), group in sorted(
        _group(trials, lambda t: (t.model, t.policy, t.sampling_profile, t.strategy)).items()
    ):
        tool = [t for t in group if not t.control]
        control = [t for t in group if t.control]
        failures = Counter(f"{t.scenario}: {t.reason}" for t in tool if t.reason)
        rows.append(
            {
                "model": model,
                "policy": policy,
                "sampling_profile": profile,
                "strategy": strategy,
                "preset": group[0].preset,
                "tool_ok": sum(t.ok for t in tool),
                "tool_runs": len(tool),
                "tool_ok_rate": round(sum(t.ok for t in tool) / len(tool), 4) if tool else None,
                "control_ok": sum(t.ok for t in control),
                "control_runs": len(control),
                "p95_ms": p95([t.latency_ms for t in group]),
                "top_tool_failures": [f"{k} x{n}" for k, n in failures.most_common(TOP_FAILURES)],
            }
        )
    return rows


def policy_rows(trials: Sequence[TrialResult]) -> list[dict[str, Any]]:
    """Per model and TOOL_POLICY, on the same prompts: the effects on the tasks. Right effects on the
    prompts that ask for a change, right no-change on those that ask for none, wrong effects (a change
    that fails its check: unasked, or not the one asked) anywhere; crashes and timeouts count as
    not right."""
    rows = []
    for (model, policy), group in sorted(_group(trials, lambda t: (t.model, t.policy)).items()):
        action = [t for t in group if t.asks_change]
        quiet = [t for t in group if not t.asks_change]
        rows.append(
            {
                "model": model,
                "policy": policy,
                "action_right": sum(t.effect == "right" for t in action),
                "action_runs": len(action),
                "no_change_right": sum(t.effect == "right" for t in quiet),
                "no_change_runs": len(quiet),
                "wrong_effects": sum(t.effect == "wrong" for t in group),
                "crashes_or_timeouts": sum((t.reason or "").startswith(_SERVER_FAULTS) for t in group),
                "llm_calls_mean": round(sum(t.llm_calls for t in group) / len(group), 2),
                "latency_ms_mean": round(sum(t.latency_ms for t in group) / len(group), 1),
            }
        )
    return rows


_SERVER_FAULTS = ("TIMEOUT", "LLM_ERROR", "SERVER_CRASHED")


def policy_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| model | policy | right effects (action prompts) | right no-change | wrong effects | crashes / timeouts "
        "| LLM calls / turn | mean time ms |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| `{r['model']}` | `{r['policy']}` | {_pct(r['action_right'], r['action_runs'])} "
            f"| {_pct(r['no_change_right'], r['no_change_runs'])} | {r['wrong_effects']} "
            f"| {r['crashes_or_timeouts']} | {r['llm_calls_mean']} | {r['latency_ms_mean']:.0f} |"
        )
    return "\n".join(lines)


def summaries(trials: Sequence[TrialResult], meta: dict[str, Any]) -> dict[str, Any]:
    """Every summary file's content, by file name."""
    tool = [t for t in trials if not t.control]
    control = [t for t in trials if t.control]
    by_scenario = {name: stats(group) for name, group in sorted(_group(trials, lambda t: t.scenario).items())}
    by_strategy: dict[str, dict[str, Any]] = defaultdict(dict)
    for (scenario, strategy), group in sorted(_group(trials, lambda t: (t.scenario, t.strategy)).items()):
        by_strategy[scenario][strategy] = stats(group)
    by_family: dict[str, dict[str, Any]] = defaultdict(dict)
    for (family, model, policy, strategy), group in sorted(
        _group(trials, lambda t: (t.family, t.model, t.policy, t.strategy)).items()
    ):
        by_family[family][f"{model} / {policy} / {strategy}"] = stats(group)
    summary = {
        "meta": meta,
        "overall": {**stats(trials), "tool": stats(tool), "control": stats(control)},
        "by_strategy": {s: stats(g) for s, g in sorted(_group(trials, lambda t: t.strategy).items())},
        "by_model_profile_strategy": matrix_rows(trials),
        "by_policy": policy_rows(trials),
    }
    return {
        "summary.json": summary,
        "summary_by_scenario.json": by_scenario,
        "summary_by_scenario_and_strategy.json": dict(by_strategy),
        "summary_by_family.json": dict(by_family),
    }


def _pct(ok: int, runs: int) -> str:
    return f"{ok}/{runs} ({100 * ok / runs:.1f}%)" if runs else "-"


def matrix_table(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| model | policy | sampling_profile | strategy | tool_ok | tool_ok_rate | control_ok (chat_only) | p95_ms "
        "| top tool failures |",
        "|---|---|---|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        rate = f"{100 * r['tool_ok_rate']:.1f}%" if r["tool_ok_rate"] is not None else "-"
        p95_ms = f"{r['p95_ms']:.0f}" if r["p95_ms"] is not None else "-"
        lines.append(
            f"| `{r['model']}` | `{r['policy']}` | `{r['sampling_profile']}` | {r['strategy']} "
            f"| {r['tool_ok']}/{r['tool_runs']} "
            f"| {rate} | {r['control_ok']}/{r['control_runs']} | {p95_ms} | "
            f"{'; '.join(r['top_tool_failures']) or '-'} |"
        )
    return "\n".join(lines)


def scenario_table(by_scenario: dict[str, Any], by_strategy: dict[str, dict[str, Any]]) -> str:
    strategies = sorted({s for per in by_strategy.values() for s in per})
    head = "| scenario | ok | " + " | ".join(strategies) + " | p95_ms | outcomes | failures |"
    lines = [head, "|---|---:|" + "---:|" * len(strategies) + "---:|---|---|"]
    for name, s in by_scenario.items():
        per = [by_strategy[name].get(st) for st in strategies]
        cells = [_pct(p["ok"], p["runs"]) if p else "-" for p in per]
        outcomes = ", ".join(f"{k} x{n}" for k, n in s["outcomes"].items() if k not in ("failed", "error")) or "-"
        failures = ", ".join(f"{k} x{n}" for k, n in s["failures"].items()) or "-"
        lines.append(
            f"| {name} | {_pct(s['ok'], s['runs'])} | {' | '.join(cells)} | {s['p95_ms']:.0f} | {outcomes} "
            f"| {failures} |"
        )
    return "\n".join(lines)


def family_table(by_family: dict[str, dict[str, Any]]) -> str:
    """Each family's pass rate per model and strategy: a scenario family tests one promise."""
    columns = sorted({c for per in by_family.values() for c in per})
    lines = [
        "| family | " + " | ".join(f"`{c}`" for c in columns) + " | outcomes | failures |",
        "|---|" + "---:|" * len(columns) + "---|---|",
    ]
    for family, per in by_family.items():
        cells = [_pct(per[c]["ok"], per[c]["runs"]) if c in per else "-" for c in columns]
        outcomes: Counter[str] = Counter()
        failures: Counter[str] = Counter()
        for s in per.values():
            outcomes.update({k: v for k, v in s["outcomes"].items() if k not in ("failed", "error")})
            failures.update(s["failures"])
        shown = ", ".join(f"{k} x{n}" for k, n in outcomes.most_common()) or "-"
        failed = ", ".join(f"{k} x{n}" for k, n in failures.most_common(TOP_FAILURES)) or "-"
        lines.append(f"| {family} | {' | '.join(cells)} | {shown} | {failed} |")
    return "\n".join(lines)


def markdown(files: dict[str, Any], *, chart: str | None) -> str:
    summary = files["summary.json"]
    meta, overall = summary["meta"], summary["overall"]
    tool, control = overall["tool"], overall["control"]
    lines = [
        f"# Taskchat eval: {meta['target']}",
        "",
        f"- Command: `{meta['command']}`",
        f"- Date: {meta['started']} ({meta['elapsed_s']} s); {meta['trials']} trial(s) per cell; "
        f"settings: {meta['settings']}",
        f"- Provider preset family: `{meta['provider']}`; sampling profiles: "
        + "; ".join(f"`{name}` ({desc})" for name, desc in meta["profiles"].items()),
        *(
            [f"- Preset overrides on both strategies: `{meta['preset_overrides']}`"]
            if meta.get("preset_overrides")
            else []
        ),
        f"- Overall: {_pct(overall['ok'], overall['runs'])}; tool scenarios {_pct(tool['ok'], tool['runs'])}; "
        f"control (chat_only) {_pct(control['ok'], control['runs'])}",
        "",
        "## Effects per tool policy (same prompts, same server)",
        "",
        policy_table(summary["by_policy"]),
        "",
        "## Model x sampling profile",
        "",
        matrix_table(summary["by_model_profile_strategy"]),
        "",
        "## By family",
        "",
        family_table(files["summary_by_family.json"]),
        "",
        "## By scenario",
        "",
        scenario_table(files["summary_by_scenario.json"], files["summary_by_scenario_and_strategy.json"]),
        "",
    ]
    if chart:
        lines += [f"![success rate per scenario]({chart})", ""]
    else:
        lines += ["(No chart: matplotlib is not installed; `pip install matplotlib` adds it.)", ""]
    lines += ["Failure codes and scenarios: docs/eval.md.", ""]
    return "\n".join(lines)


def write(out: Path, trials: Sequence[TrialResult], meta: dict[str, Any]) -> dict[str, Path]:
    """Write every report file into `out`; returns them by name."""
    from backend.devtools.evals.chart import draw  # matplotlib is a dev dependency: loaded only here

    out.mkdir(parents=True, exist_ok=True)
    files = summaries(trials, meta)
    written = {}
    for name, content in files.items():
        path = out / name
        path.write_bytes(orjson.dumps(content, option=orjson.OPT_INDENT_2) + b"\n")
        written[name] = path
    trials_path = out / "trials.jsonl"
    trials_path.write_bytes(b"".join(orjson.dumps(t.to_dict()) + b"\n" for t in trials))
    written["trials.jsonl"] = trials_path
    chart = draw(trials, out / "chart.png")
    if chart is not None:
        written["chart.png"] = chart
    md = out / "summary.md"
    md.write_text(markdown(files, chart=chart.name if chart else None))
    written["summary.md"] = md
    return written
