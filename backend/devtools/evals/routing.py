"""The choice among several models, evaluated: each strategy over the same turns (issue 26 part 5).

`python -m backend.devtools.evals.routing [--turns 1500] [--out specs/evals/routing]`

Three scripted models stand in for real ones, behind the real service (ChatService, the guard, the
fallback client, the router and its outcomes table on SQLite):

| model | calls the tool | claims it without | server error | latency | price in/out per Mtok |
|---|---|---|---|---|---|
| steady | 95 % | 3 % | 2 % | 6 ms | $2.50 / $10 |
| patchy | 75 % | 15 % | 10 % | 3 ms | $0.50 / $1.50 |
| cheap | 50 % | 30 % | 20 % | 1 ms | $0.10 / $0.40 |

and "steady" is down (every request a 503) for turns 40-60 % of the run. A claim without the tool is
forced by the guard (the model complies when forced): the task is added but the turn counts half. A
server error moves the request to the next model. A turn succeeds when its task was added once and
the turn answered. The run's clock ticks a second a turn, and ROUTING_MAX_AGE_S is 300 s: what a
model did more than 300 turns ago no longer counts (so a model that was down gets a fresh start).
Each strategy starts with no outcomes; the best fixed arm is the fixed order with the model of best
success first. Regret is the best fixed arm's success rate times the turns so far, minus the
successes so far. Written: results.json, results.md and regret.png.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from backend.app.agent.fallback import Arm, FallbackClient
from backend.app.agent.loop_types import Attempt, TextSink
from backend.app.agent.presets import select_preset
from backend.app.calls.tools import Tool
from backend.app.core.clock import FixedClock
from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError, LLMUnavailable
from backend.app.core.metrics import Metrics
from backend.app.db.migrate import migrate
from backend.app.db.session import create_engine, create_sessionmaker
from backend.app.schemas.chat import ChatRequest, ChatResponse
from backend.app.services.turn.pipeline import ChatService
from backend.app.services.turn.routing import Price, Router, Strategy, Tuning


@dataclass(frozen=True, slots=True)
class Behaviour:
    ok: float
    ghost: float
    latency_s: float
    price: Price


MODELS = {
    "steady": Behaviour(0.95, 0.03, 0.006, Price(2.5, 10.0)),
    "patchy": Behaviour(0.75, 0.15, 0.003, Price(0.5, 1.5)),
    "cheap": Behaviour(0.50, 0.30, 0.001, Price(0.1, 0.4)),
}
DOWN = ("steady", 0.4, 0.6)  # this model fails every request for this share of the run
MAX_AGE_S = 300.0  # ROUTING_MAX_AGE_S: with a turn a second, outcomes of the last 300 turns count


@dataclass
class Scripted:
    """One model: does what its behaviour says, and complies when a tool is forced on it."""

    name: str
    behaviour: Behaviour
    rng: random.Random
    down: bool = False
    label: str = "http"

    async def create(
        self,
        body: dict[str, Any],
        *,
        deadline: float,
        on_text: TextSink | None = None,
        attempts: list[Attempt] | None = None,
    ) -> dict[str, Any]:
        await asyncio.sleep(self.behaviour.latency_s)
        if self.down:
            raise LLMUnavailable(f"{self.name} is down (503)")
        messages = body["messages"]
        if messages[-1]["role"] == "tool":
            return _answer("Done.")
        title = str(messages[-1]["content"]).removeprefix("add ").strip()
        forced = isinstance(body.get("tool_choice"), dict)
        roll = self.rng.random()
        if forced or roll < self.behaviour.ok:
            return _answer(None, {"name": Tool.ADD, "arguments": json.dumps({"title": title})})
        if roll < self.behaviour.ok + self.behaviour.ghost:
            return _answer(f"Added {title}!")
        raise LLMUnavailable(f"{self.name} server error (500)")


def _answer(content: str | None, call: dict[str, Any] | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if call is not None:
        message["tool_calls"] = [{"id": "c1", "type": "function", "function": call}]
    return {
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if call else "stop"}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 40},
    }


@dataclass
class Run:
    name: str
    strategy: Strategy
    order: list[str]
    floor: float = 0.0
    successes: list[int] = field(default_factory=list)
    costs: list[float] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    chosen: list[str] = field(default_factory=list)
    explored: int = 0

    def summary(self, best: float) -> dict[str, Any]:
        n = len(self.successes)
        wins = sum(self.successes)
        latencies = sorted(self.latencies)
        return {
            "run": self.name,
            "strategy": self.strategy,
            "floor": self.floor,
            "turns": n,
            "success_rate": round(wins / n, 4),
            "cost_usd_per_1k_turns": round(sum(self.costs) / n * 1000, 4),
            "latency_ms_p50": round(latencies[n // 2], 1),
            "latency_ms_p95": round(latencies[int(n * 0.95)], 1),
            "regret": round(best * n - wins, 1),
            "chosen": {m: self.chosen.count(m) for m in MODELS},
            "explored": self.explored,
        }


async def run_one(run: Run, *, turns: int, seed: int, folder: Path) -> Run:
    db = folder / f"{run.name}.db"
    url = f"sqlite+aiosqlite:///{db}"
    await asyncio.to_thread(migrate, url, quiet=True)  # alembic runs its own event loop
    settings = Settings(environment="test", database_url=url).model_copy(
        update={
            "rate_limit_per_minute": 1_000_000,
            "llm_model": run.order[0],
            "routing_strategy": run.strategy,
            "routing_refresh_s": 0.0,
            "routing_success_floor": run.floor,
            "llm_max_retries": 0,
            "reply_check": "lists",  # the scripted models answer tasks, not checks of their own words
        }
    )
    rng = random.Random(seed)
    clock = FixedClock(datetime(2026, 11, 28, tzinfo=UTC))  # a turn a second: the run's own time
    models = {name: Scripted(name, b, random.Random(rng.random())) for name, b in MODELS.items()}
    client = FallbackClient([Arm(m, models[m]) for m in run.order], cooldown_s=0.0)
    engine = create_engine(settings)
    sessionmaker = create_sessionmaker(engine)
    router = Router(
        models=run.order,
        prices={m: b.price for m, b in MODELS.items()},
        strategy=run.strategy,
        tuning=Tuning(floor=run.floor, min_turns=30),
        window=500,
        refresh_s=0.0,
        sessionmaker=sessionmaker,
        clock=clock,
        max_age_s=MAX_AGE_S,
        seed=seed,
    )
    preset = select_preset(provider="openai", model=run.order[0])
    service = ChatService(
        settings=settings,
        sessionmaker=sessionmaker,
        client=client,
        model=run.order[0],
        preset=preset,
        clock=clock,
        metrics=Metrics(),
        router=router,
    )
    name, start, end = DOWN
    try:
        for k in range(turns):
            models[name].down = start * turns <= k < end * turns
            await _turn(service, run, k)
            clock.moment += timedelta(seconds=1)
    finally:
        await engine.dispose()
    return run


async def _turn(service: ChatService, run: Run, k: int) -> None:
    started = time.perf_counter()
    try:
        request = ChatRequest(message=f"add task {k}")
        outcome = await service.chat(user_id=f"u{k % 50}", request=request, idempotency_key=None)
    except AppError:
        run.successes.append(0)
        run.costs.append(0.0)
        run.latencies.append((time.perf_counter() - started) * 1000)
        run.chosen.append(run.order[0])
        return
    assert isinstance(outcome, ChatResponse)  # a turn without an Idempotency-Key is never a replay
    body = outcome.model_dump(mode="json")
    meta = body["execution_metadata"]
    routing = meta.get("routing") or {}
    run.chosen.append(routing.get("chosen", run.order[0]))
    run.explored += routing.get("how") == "explore"
    added = [c for c in body["tool_calls"] if c["name"] == Tool.ADD and c["result"]["success"]]
    retried = meta["guard"]["outcome"] == "retried"
    run.successes.append(int(len(added) == 1 and not retried))
    cost = 0.0
    for step in meta["trace"]:
        if "request" in step:
            price = MODELS[step.get("model", run.order[0])].price
            cost += price.of(step["usage"]["prompt"], step["usage"]["completion"])
    run.costs.append(cost)
    run.latencies.append(float(meta["total_latency_ms"]))


def plans() -> list[Run]:
    names = list(MODELS)
    fixed = [Run(f"fixed: {m} first", "fixed", [m, *(n for n in names if n != m)]) for m in names]
    learning: list[Strategy] = ["greedy", "epsilon_greedy", "ucb1", "thompson"]
    return [
        *fixed,
        *(Run(s, s, names) for s in learning),
        Run("thompson, success floor 0.7", "thompson", names, floor=0.7),
    ]


async def evaluate(turns: int, seed: int) -> dict[str, Any]:
    done: list[Run] = []
    with tempfile.TemporaryDirectory() as folder:
        for run in plans():
            started = time.perf_counter()
            done.append(await run_one(run, turns=turns, seed=seed, folder=Path(folder)))
            print(f"{run.name}: {time.perf_counter() - started:.0f} s", file=sys.stderr)
    fixed = [r for r in done if r.strategy == "fixed"]
    best = max(fixed, key=lambda r: sum(r.successes))
    best_rate = sum(best.successes) / len(best.successes)
    curves = {r.name: _regret_curve(r, best_rate) for r in done}
    return {
        "turns": turns,
        "seed": seed,
        "models": {
            m: {
                "ok": b.ok,
                "ghost": b.ghost,
                "latency_ms": b.latency_s * 1000,
                "price_per_mtok": {"prompt": b.price.prompt, "completion": b.price.completion},
            }
            for m, b in MODELS.items()
        },
        "down": {"model": DOWN[0], "from": DOWN[1], "to": DOWN[2]},
        "best_fixed_arm": best.name,
        "runs": [r.summary(best_rate) for r in done],
        "regret_curves": {name: curve[:: max(1, turns // 100)] for name, curve in curves.items()},
    }


def _regret_curve(run: Run, best: float) -> list[float]:
    curve, wins = [], 0
    for i, s in enumerate(run.successes, start=1):
        wins += s
        curve.append(round(best * i - wins, 2))
    return curve


def write(result: dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    lines = [
        f"# Routing among three scripted models: {result['turns']} turns per run (seed {result['seed']})",
        "",
        f'Best fixed arm: {result["best_fixed_arm"]}. "steady" is down from {int(result["down"]["from"] * 100)} % '
        f"to {int(result['down']['to'] * 100)} % of each run.",
        "",
        "| run | success | cost $/1k turns | latency p50 / p95 ms | regret (turns) "
        "| chosen steady / patchy / cheap | explored |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result["runs"]:
        chosen = " / ".join(str(r["chosen"][m]) for m in MODELS)
        lines.append(
            f"| {r['run']} | {r['success_rate']:.1%} | {r['cost_usd_per_1k_turns']:.3f} | "
            f"{r['latency_ms_p50']} / {r['latency_ms_p95']} | {r['regret']} | {chosen} | {r['explored']} |"
        )
    (out / "results.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    _chart(result, out / "regret.png")


def _chart(result: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    step = max(1, result["turns"] // 100)
    for name, curve in result["regret_curves"].items():
        ax.plot([i * step for i in range(len(curve))], curve, label=name, linestyle="--" if "fixed" in name else "-")
    ax.axvspan(result["down"]["from"] * result["turns"], result["down"]["to"] * result["turns"], alpha=0.1)
    ax.set_xlabel("turn")
    ax.set_ylabel("regret against the best fixed arm (turns)")
    ax.set_title("Cumulative regret; shaded: steady is down")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--turns", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", type=Path, default=Path("specs/evals/routing"))
    args = parser.parse_args(argv)
    logging.disable(logging.WARNING)  # each fallback and forced retry logs a warning: thousands of lines
    result = asyncio.run(evaluate(args.turns, args.seed))
    write(result, args.out)
    print((args.out / "results.md").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
