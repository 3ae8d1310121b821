"""Running trials: each one is the product's chat turn (ChatService) on a fresh migrated SQLite file.

The database is migrated once per run into a template file that every trial copies: each trial still
starts from its own empty, fully migrated database, without paying for Alembic every time.
Errors become failure codes, never exceptions: one bad trial must not end a 20-minute run.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.agent.llm import HttpLLMClient
from backend.app.agent.loop_types import ChatCompletionsClient
from backend.app.agent.offline import OfflineModel
from backend.app.agent.presets import Preset, select_preset
from backend.app.agent.wire import HttpxWire
from backend.app.core.clock import Clock, SystemClock
from backend.app.core.config import Settings, ToolPolicyName
from backend.app.core.exceptions import AppError, LLMError, LLMTimeout
from backend.app.core.metrics import Metrics
from backend.app.db.migrate import migrate
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.db.session import create_engine, create_sessionmaker, unit_of_work
from backend.app.schemas.chat import ChatRequest, ChatResponse
from backend.app.services.reply.compose import TOOL_NOT_TRIGGERED
from backend.app.services.turn.commands import offline_reading
from backend.app.services.turn.pipeline import ChatService
from backend.devtools.evals.profiles import SamplingProfile
from backend.devtools.evals.scenarios import Observation, Scenario, TaskState

Strategy = Literal["production", "baseline"]
STRATEGIES: tuple[Strategy, ...] = ("production", "baseline")
USER_ID = "eval-user"
# Stop reasons that end a turn normally; any other one on a failed trial is worth its own code.
_NORMAL_STOPS = frozenset({"final", "composed", "tool_not_triggered", "llm_error"})


@dataclass(frozen=True, slots=True)
class EvalConfig:
    scenarios: tuple[Scenario, ...]
    models: tuple[str, ...]
    profiles: tuple[SamplingProfile, ...]
    strategies: tuple[Strategy, ...]
    trials: int
    provider: str
    # TOOL_POLICY per cell: `guarded` (the product) beside e.g. `auto` (the raw model) on the same prompts.
    policies: tuple[ToolPolicyName, ...] = ("guarded",)
    base_url: str | None = None  # None: the offline model
    api_key: str | None = None
    timeout_s: float = 60.0
    max_tokens: int = 512
    retries: int = 1
    concurrency: int = 1
    # Preset fields set on top of both strategies, to try a workaround before it lands in presets.py.
    preset_overrides: Mapping[str, Any] = field(default_factory=dict)

    @property
    def total(self) -> int:
        cells = len(self.models) * len(self.profiles) * len(self.strategies) * len(self.policies)
        return len(self.scenarios) * cells * self.trials


@dataclass(slots=True)
class TrialResult:
    scenario: str
    model: str
    sampling_profile: str
    strategy: str
    trial: int
    control: bool
    ok: bool
    outcome: str
    reason: str | None  # the primary failure code; None when ok
    reasons: list[str] = field(default_factory=list)
    latency_ms: float = 0.0
    llm_calls: int = 0
    tool_calls: list[str] = field(default_factory=list)  # "name:ok" or "name:CODE", in order
    stop_reason: str | None = None
    guard: str | None = None
    preset: str = ""
    reply: str = ""
    error_detail: str | None = None
    family: str = ""  # the scenario's family, or its own name
    policy: str = "guarded"  # the turn's TOOL_POLICY
    asks_change: bool = True  # the scenario's message asks for a change
    changed: bool = False  # the owner's tasks differ after the turn

    @property
    def effect(self) -> str:
        """`right` (the asked change, or no change where none was asked), `wrong` (a change that fails
        the check: unasked, or not the one asked), or `none` (a change was asked and nothing changed)."""
        if self.changed:
            return "right" if self.ok and self.asks_change else "wrong"
        return "none" if self.asks_change else ("right" if self.ok else "none")

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True, slots=True)
class _Job:
    scenario: Scenario
    model: str
    profile: SamplingProfile
    strategy: Strategy
    trial: int
    index: int
    policy: ToolPolicyName = "guarded"


def preset_for(config: EvalConfig, *, model: str, profile: SamplingProfile, strategy: Strategy) -> Preset:
    base = select_preset(provider=config.provider, model=model, strategy=strategy, overrides=config.preset_overrides)
    overrides = {**base.request_overrides, **profile.overrides}
    return select_preset(
        provider=config.provider,
        model=model,
        strategy=strategy,
        overrides={**config.preset_overrides, "request_overrides": overrides},
    )


def jobs(config: EvalConfig) -> list[_Job]:
    grid = itertools.product(
        config.models,
        config.policies,
        config.strategies,
        config.profiles,
        config.scenarios,
        range(1, config.trials + 1),
    )
    return [_Job(sc, m, p, st, n, i, policy=po) for i, (m, po, st, p, sc, n) in enumerate(grid)]


async def run_eval(
    config: EvalConfig,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    clock: Clock | None = None,
    on_trial: Callable[[TrialResult], Awaitable[None]] | None = None,
) -> list[TrialResult]:
    """Run every trial of the grid; `transport` scripts the model server in tests."""
    clock = clock or SystemClock()
    results: list[TrialResult] = []
    metrics = Metrics()  # one registry for the run: the trials' counters are not reported
    with tempfile.TemporaryDirectory(prefix="taskchat-eval-") as tmp:
        template = Path(tmp) / "template.db"
        await asyncio.to_thread(migrate, _sqlite_url(template), quiet=True)
        async with httpx.AsyncClient(transport=transport) as http:
            client = _client(config, http)
            gate = asyncio.Semaphore(max(1, config.concurrency))

            async def one(job: _Job) -> None:
                async with gate:
                    db = Path(tmp) / f"trial-{job.index}.db"
                    shutil.copyfile(template, db)
                    try:
                        result = await _trial(job, config=config, client=client, db=db, clock=clock, metrics=metrics)
                    finally:
                        db.unlink(missing_ok=True)
                    results.append(result)
                    if on_trial is not None:
                        await on_trial(result)

            await asyncio.gather(*(one(job) for job in jobs(config)))
    results.sort(key=lambda r: (r.model, r.policy, r.strategy, r.sampling_profile, r.scenario, r.trial))
    return results


def _client(config: EvalConfig, http: httpx.AsyncClient) -> ChatCompletionsClient:
    if config.base_url is None:
        return OfflineModel(read=offline_reading)
    return HttpLLMClient(
        wire=HttpxWire(http),
        base_url=config.base_url,
        api_key=config.api_key,
        read_timeout_s=config.timeout_s,
        max_retries=config.retries,
    )


def _sqlite_url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


def _settings(config: EvalConfig, scenario: Scenario, db: Path, policy: ToolPolicyName) -> Settings:
    defaults = Settings(environment="test", database_url=_sqlite_url(db))
    # A turn may make budget_max_llm_calls requests of up to --timeout each: the turn's own deadline
    # must not be the thing that times out first.
    latency_ms = max(defaults.budget_max_latency_ms, int(config.timeout_s * 1000 * defaults.budget_max_llm_calls))
    return defaults.model_copy(
        update={
            "llm_max_tokens": config.max_tokens,
            "budget_max_latency_ms": latency_ms,
            "rate_limit_per_minute": 1_000_000,  # trials are not users; the limiter is tested elsewhere
            "tool_policy": policy,
            **scenario.settings,
        }
    )


async def _trial(
    job: _Job, *, config: EvalConfig, client: ChatCompletionsClient, db: Path, clock: Clock, metrics: Metrics
) -> TrialResult:
    scenario = job.scenario
    settings = _settings(config, scenario, db, job.policy)
    preset = preset_for(config, model=job.model, profile=job.profile, strategy=job.strategy)
    result = _unjudged(job, preset)
    engine = create_engine(settings)
    try:
        sessionmaker = create_sessionmaker(engine)
        async with unit_of_work(sessionmaker) as session:
            repo = TaskRepository(session, USER_ID)
            for title in scenario.seed:
                await repo.add(title=title, description=None, priority="medium", due_date=None, tags=[])
        before = await _tasks(sessionmaker)
        service = ChatService(
            settings=settings,
            sessionmaker=sessionmaker,
            client=client,
            model=job.model,
            preset=preset,
            clock=clock,
            metrics=metrics,
        )
        started = time.perf_counter()
        try:
            # The client's timeouts bound each request; this bounds the turn if a server trickles bytes.
            async with asyncio.timeout(settings.budget_max_latency_ms / 1000 + 10):
                outcome = await service.chat(
                    user_id=USER_ID, request=ChatRequest(message=scenario.message), idempotency_key=None
                )
        except (TimeoutError, LLMTimeout) as exc:
            return _failed(result, "TIMEOUT", str(exc) or "turn timed out", started)
        except LLMError as exc:
            return _failed(result, f"LLM_ERROR:{exc.code}", exc.detail, started)
        except AppError as exc:
            return _failed(result, f"APP_ERROR:{exc.code}", exc.detail, started)
        result.latency_ms = round((time.perf_counter() - started) * 1000, 1)
        after = await _tasks(sessionmaker)
        assert isinstance(outcome, ChatResponse)  # a turn without an Idempotency-Key is never a replay
        body = outcome.model_dump(mode="json")
        _judge(result, scenario, Observation(body=body, before=before, after=after, today=clock.today()))
    except Exception as exc:  # a harness or product bug: recorded, and the run goes on
        result.reason = f"ERROR:{type(exc).__name__}"
        result.reasons = [result.reason]
        result.error_detail = str(exc)[:300]
    finally:
        await engine.dispose()
    return result


def _unjudged(job: _Job, preset: Preset) -> TrialResult:
    """The trial's record before its turn runs: what it tries, and an error until it is judged."""
    scenario = job.scenario
    return TrialResult(
        scenario=scenario.name,
        model=job.model,
        sampling_profile=job.profile.name,
        strategy=job.strategy,
        trial=job.trial,
        control=scenario.control,
        family=scenario.group,
        policy=job.policy,
        asks_change=scenario.asks_change,
        ok=False,
        outcome="error",
        reason=None,
        preset=preset.name,
    )


def _failed(result: TrialResult, reason: str, detail: str, started: float) -> TrialResult:
    result.latency_ms = round((time.perf_counter() - started) * 1000, 1)
    result.reason, result.reasons, result.error_detail = reason, [reason], detail[:300]
    return result


async def _tasks(sessionmaker: async_sessionmaker[AsyncSession]) -> tuple[TaskState, ...]:
    async with unit_of_work(sessionmaker) as session:
        rows = await TaskRepository(session, USER_ID).list_tasks()
        return tuple(
            TaskState(
                title=t.title,
                description=t.description,
                status=t.status,
                priority=t.priority,
                due_date=t.due_date.isoformat() if t.due_date else None,
            )
            for t in rows
        )


def _judge(result: TrialResult, scenario: Scenario, o: Observation) -> None:
    meta: Mapping[str, Any] = o.body.get("execution_metadata") or {}
    result.llm_calls = int(meta.get("llm_calls") or 0)
    result.stop_reason = meta.get("stop_reason")
    result.guard = (meta.get("guard") or {}).get("outcome")
    result.tool_calls = [
        f"{c['name']}:{'ok' if c['result']['success'] else c['result'].get('code') or 'failed'}" for c in o.calls
    ]
    result.reply = o.reply[:200]
    result.changed = o.before != o.after
    check = scenario.check(o)
    result.ok, result.outcome = not check.failures, check.outcome
    if result.ok:
        return
    # Run-level causes first (they explain the assertion), then the assertions themselves.
    causes: list[str] = []
    provider_error = meta.get("provider_error")
    if provider_error:
        code = str(provider_error.get("code"))
        causes.append("TIMEOUT" if code == LLMTimeout.code else f"LLM_ERROR:{code}")
    # Tool errors come before what they led to (a stop, the guard giving up).
    causes += sorted(f"TOOL_ERROR:{code}" for code in o.codes() - scenario.expected)
    if result.stop_reason and result.stop_reason not in _NORMAL_STOPS:
        causes.append(f"STOPPED:{result.stop_reason}")
    if o.reply == TOOL_NOT_TRIGGERED:
        causes.append("TOOL_NOT_TRIGGERED")
    elif not o.calls and not scenario.control:
        causes.append("NO_TOOL_CALLS")
    result.reasons = causes + list(check.failures)
    result.reason = result.reasons[0]
