"""The targets of issue 7 (and issue 16's search): each one's goal, the measured value and whether it
was met. A target whose phase was skipped is left out."""

from __future__ import annotations

from typing import Any

TARGET_OVERHEAD_P95_MS = 15.0
TARGET_TURNS_PER_S = 300.0
TARGET_RESOLVER_P95_MS = 5.0
TARGET_CALLS_PER_SIMPLE_ACTION = 1.1
TARGET_SEARCH_P95_MS = 10.0  # issue 16


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """Every target the run measured, in the order of the report's table."""
    return [
        *_overhead(results.get("load", [])),
        *_throughput(results.get("load", [])),
        *_calls_per_simple_action(results.get("scenarios", {}).get("direct", [])),
        *_prompt_bound(results.get("growth")),
        *_resolver(results.get("resolver", [])),
    ]


def _overhead(load: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Overhead p95 on Postgres at concurrency 8, one target per worker count."""
    out = []
    for workers in sorted({r["workers"] for r in load if r["database"] == "postgres"}):
        row = _find(load, database="postgres", workers=workers, concurrency=8)
        if row is not None:
            out.append(
                _target(
                    f"overhead p95, Postgres, {workers} worker(s), concurrency 8",
                    row["overhead_ms"]["p95"],
                    TARGET_OVERHEAD_P95_MS,
                    "ms",
                    below=True,
                )
            )
    return out


def _throughput(load: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Turns per second on Postgres with 2 workers, at the best concurrency."""
    best = max((r["turns_per_s"] for r in load if r["database"] == "postgres" and r["workers"] == 2), default=None)
    if best is None:
        return []
    return [
        _target("turns/s, Postgres, 2 workers (best concurrency)", best, TARGET_TURNS_PER_S, "turns/s", below=False)
    ]


def _calls_per_simple_action(direct: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The mean LLM calls of the simple scenarios in direct mode."""
    simple = [s for s in direct if s["simple"]]
    if not simple:
        return []
    mean = round(sum(s["llm_calls"] for s in simple) / len(simple), 3)
    name = "LLM calls per simple action (direct mode)"
    return [_target(name, mean, TARGET_CALLS_PER_SIMPLE_ACTION, "calls", below=True, strict=False)]


def _prompt_bound(growth: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The largest prompt of the growing conversation against its bound."""
    if not growth:
        return []
    return [
        _target(
            f"most prompt tokens in {len(growth['turns'])} turns: system + tools + history budget + message",
            growth["max_prompt_tokens"],
            growth["bound_tokens"],
            "tokens",
            below=True,
            strict=False,
        )
    ]


def _resolver(resolver: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Search and resolver p95 on Postgres, at the largest size measured."""
    largest = max((r["tasks"] for r in resolver), default=None)
    if not largest:
        return []
    out = []
    for path, label, goal in (
        ("search (postgres)", "search p95 (q=)", TARGET_SEARCH_P95_MS),
        ("postgres", "resolver p95", TARGET_RESOLVER_P95_MS),
    ):
        row = _find(resolver, tasks=largest, path=path)
        if row is not None:
            out.append(_target(f"{label}, Postgres, {largest:,} tasks", row["all"]["p95"], goal, "ms", below=True))
    return out


def _find(rows: list[dict[str, Any]], **match: Any) -> dict[str, Any] | None:
    return next((r for r in rows if all(r.get(k) == v for k, v in match.items())), None)


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
