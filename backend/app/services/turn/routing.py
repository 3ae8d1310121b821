"""Which model a turn asks first, from how each model has done (issue 26; ROUTING_STRATEGY).

With several models (LLM_FALLBACKS) each turn records, per model it asked, an outcome: the reward,
0..1, from the guard's verdict and the tools' results (`reward`), the turn's latency and its cost at
that model's price. Every instance writes them to `routing_outcomes` and reads each model's last
ROUTING_WINDOW (at most every ROUTING_REFRESH_S), so every instance learns from every turn and the
memory is bounded. The arm is (model, tool policy): outcomes under one policy say nothing of
another. The chosen model is asked first; the others stay its fallbacks, in their order.

Strategies (`choose`, a pure function of the totals): `fixed` (LLM_MODEL, then the fallbacks: no
learning), `greedy` (the best mean reward; a model never tried is tried first), `epsilon_greedy`
(the same, but a random model with probability ROUTING_EPSILON), `ucb1` (mean + ROUTING_UCB_C ·
sqrt(2 ln N / n)), `thompson` (a draw from Beta(1 + rewards, 1 + failures) per model). With
ROUTING_SUCCESS_FLOOR above 0, an exploiting choice goes to the cheapest model whose mean reward is
at least the floor over ROUTING_MIN_TURNS turns, if there is one. The choice, whether it explored,
and the estimates behind it are in `execution_metadata.routing`.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.agent.loop_types import ANSWERED, StepTrace
from backend.app.agent.run_io import RunResult
from backend.app.calls.codes import ResultCode
from backend.app.core.clock import Clock
from backend.app.db.repositories import routing as outcomes
from backend.app.db.repositories.routing import Observed, Totals
from backend.app.db.session import unit_of_work
from backend.app.schemas.metadata import RoutingEstimate, RoutingInfo

Strategy = Literal["fixed", "greedy", "epsilon_greedy", "ucb1", "thompson"]
How = Literal["fixed", "exploit", "explore", "floor"]
_NONE = Totals(0, 0.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class Price:
    """US dollars per million prompt and completion tokens."""

    prompt: float = 0.0
    completion: float = 0.0

    def of(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.prompt + completion_tokens * self.completion) / 1e6


@dataclass(frozen=True, slots=True)
class Estimate:
    model: str
    n: int
    mean_reward: float | None
    mean_cost_usd: float | None
    mean_latency_ms: float | None
    score: float | None  # what the strategy compared: the mean, the upper bound or the draw


@dataclass(frozen=True, slots=True)
class Choice:
    model: str
    policy: str
    strategy: Strategy
    how: How
    estimates: tuple[Estimate, ...]

    def info(self) -> RoutingInfo:
        """The choice as `execution_metadata.routing` records it."""
        estimates = [
            RoutingEstimate(
                model=e.model,
                n=e.n,
                mean_reward=_round(e.mean_reward),
                mean_cost_usd=_round(e.mean_cost_usd, 8),
                mean_latency_ms=_round(e.mean_latency_ms, 1),
                score=_round(e.score),
            )
            for e in self.estimates
        ]
        return RoutingInfo(
            strategy=self.strategy, policy=self.policy, chosen=self.model, how=self.how, estimates=estimates
        )


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


@dataclass(frozen=True, slots=True)
class Tuning:
    epsilon: float = 0.1
    ucb_c: float = 1.0
    floor: float = 0.0
    min_turns: int = 20


def choose(
    models: Sequence[str],
    totals: Mapping[str, Totals],
    *,
    strategy: Strategy,
    policy: str,
    rng: random.Random,
    tuning: Tuning = Tuning(),
) -> Choice:
    """The model to ask first, how it was chosen, and the estimates behind it."""
    seen = [totals.get(m, _NONE) for m in models]
    means = [t.reward / t.n if t.n else None for t in seen]
    best = max(range(len(models)), key=lambda i: (means[i] if means[i] is not None else -1.0, -i))
    scores: list[float | None] = list(means)
    how: How = "exploit"
    if strategy == "fixed":
        pick, how = 0, "fixed"
    elif strategy != "thompson" and (untried := [i for i, t in enumerate(seen) if t.n == 0]):
        pick, how = untried[0], "explore"
    elif strategy == "greedy":
        pick = best
    elif strategy == "epsilon_greedy":
        explore = rng.random() < tuning.epsilon
        pick = rng.randrange(len(models)) if explore else best
        how = "explore" if explore else "exploit"
    elif strategy == "ucb1":
        total = sum(t.n for t in seen)
        scores = [
            (m or 0.0) + tuning.ucb_c * math.sqrt(2 * math.log(total) / t.n) for m, t in zip(means, seen, strict=True)
        ]
        pick = max(range(len(models)), key=lambda i: (scores[i] or 0.0, -i))
        how = "exploit" if pick == best else "explore"
    else:  # thompson
        scores = [rng.betavariate(1 + t.reward, 1 + max(0.0, t.n - t.reward)) for t in seen]
        pick = max(range(len(models)), key=lambda i: (scores[i] or 0.0, -i))
        how = "exploit" if pick == best else "explore"
    if how == "exploit" and tuning.floor > 0:
        good = [i for i, t in enumerate(seen) if t.n >= tuning.min_turns and (means[i] or 0.0) >= tuning.floor]
        if good:
            pick, how = min(good, key=lambda i: (seen[i].cost_usd / seen[i].n, -(means[i] or 0.0), i)), "floor"
    estimates = tuple(
        Estimate(
            m,
            t.n,
            means[i],
            t.cost_usd / t.n if t.n else None,
            t.latency_ms / t.n if t.n else None,
            scores[i],
        )
        for i, (m, t) in enumerate(zip(models, seen, strict=True))
    )
    return Choice(models[pick], policy, strategy, how, estimates)


def reward(run: RunResult, guard_outcome: str) -> float:
    """0..1 for how the model did: 0 when the turn did not end in an answer or the forced retry ran
    no tool; halved when the guard had to force a tool, and for each call that failed or was refused."""
    if run.stop_reason not in ANSWERED or guard_outcome == "tool_not_triggered":
        return 0.0
    value = 0.5 if guard_outcome == "retried" else 1.0
    for e in run.executed:
        if not e.result.success and e.result.code != ResultCode.NEEDS_CONFIRMATION:
            value /= 2
    return value


class Router:
    """Reads the outcomes (cached per policy for `refresh_s`) and chooses; says what to record."""

    def __init__(
        self,
        *,
        models: Sequence[str],
        prices: Mapping[str, Price],
        strategy: Strategy,
        tuning: Tuning,
        window: int,
        refresh_s: float,
        sessionmaker: async_sessionmaker[AsyncSession],
        clock: Clock,
        max_age_s: float = 3600.0,
        seed: int | None = None,
    ) -> None:
        self.models = list(models)
        self.prices = dict(prices)
        self.strategy = strategy
        self.tuning = tuning
        self.window = window
        self.refresh_s = refresh_s
        self.sessionmaker = sessionmaker
        self.clock = clock
        self.max_age_s = max_age_s
        self.rng = random.Random(seed)
        self._cache: dict[str, tuple[float, dict[str, Totals]]] = {}

    async def choose(self, policy: str) -> Choice:
        totals = {} if self.strategy == "fixed" else await self._totals(policy)
        return choose(self.models, totals, strategy=self.strategy, policy=policy, rng=self.rng, tuning=self.tuning)

    async def _totals(self, policy: str) -> dict[str, Totals]:
        now = time.monotonic()
        cached = self._cache.get(policy)
        if cached is not None and now - cached[0] < self.refresh_s:
            return cached[1]
        since = self.clock.now() - timedelta(seconds=self.max_age_s)
        async with unit_of_work(self.sessionmaker) as session:
            found = await outcomes.totals(session, policy=policy, window=self.window, since=since)
        self._cache[policy] = (now, found)
        return found

    def observed(self, choice: Choice, run: RunResult, *, guard_outcome: str, latency_ms: float) -> list[Observed]:
        """This turn's outcomes: the reward for the model that answered the last request, 0 for each
        model that failed a request before another answered it."""
        failed: list[str] = []
        answered = choice.model
        for event in run.trace:
            if isinstance(event, StepTrace):  # a request of the loop's, not a reply check
                answered = event.model if event.model is not None else answered
                failed += [f.model for f in event.fallbacks if f.model not in failed]
        usage = run.use.prompt_tokens, run.use.completion_tokens
        cost = self.prices.get(answered, Price()).of(*usage)
        found = [Observed(m, choice.policy, 0.0, latency_ms, 0.0) for m in failed if m != answered]
        found.append(Observed(answered, choice.policy, reward(run, guard_outcome), latency_ms, cost))
        return found

    def failed(self, choice: Choice, *, latency_ms: float) -> list[Observed]:
        """A turn that ended in an error: 0 for the model chosen."""
        return [Observed(choice.model, choice.policy, 0.0, latency_ms, 0.0)]
