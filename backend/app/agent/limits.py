"""Per-turn budgets: one dataclass of limits, one of use, checked before each request and tool call."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

from backend.app.agent.loop_types import Usage


@dataclass(frozen=True, slots=True)
class Budget:
    max_llm_calls: int = 5
    max_tool_calls: int = 8
    max_latency_ms: int = 60_000
    max_tokens: int = 20_000
    max_cost_usd: float = 0.05

    def capped_by(self, server: Budget) -> Budget:
        """A request may lower the server's limits, never raise them."""
        return Budget(
            max_llm_calls=min(self.max_llm_calls, server.max_llm_calls),
            max_tool_calls=min(self.max_tool_calls, server.max_tool_calls),
            max_latency_ms=min(self.max_latency_ms, server.max_latency_ms),
            max_tokens=min(self.max_tokens, server.max_tokens),
            max_cost_usd=min(self.max_cost_usd, server.max_cost_usd),
        )


class BudgetExceeded(Exception):
    """Raised by the checks; the runner turns it into a clean stop and a finding."""

    def __init__(self, kind: str, *, used: float, limit: float) -> None:
        super().__init__(f"{kind} budget exhausted ({used} of {limit})")
        self.kind = kind
        self.used = used
        self.limit = limit


@dataclass(slots=True)
class BudgetUse:
    budget: Budget
    price_in_per_mtok: float = 0.0
    price_out_per_mtok: float = 0.0
    started: float = field(default_factory=time.monotonic)
    llm_calls: int = 0
    tool_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def deadline(self) -> float:
        return self.started + self.budget.max_latency_ms / 1000

    @property
    def elapsed_ms(self) -> int:
        return round((time.monotonic() - self.started) * 1000)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def cost_usd(self) -> float:
        return (self.prompt_tokens * self.price_in_per_mtok + self.completion_tokens * self.price_out_per_mtok) / 1e6

    def check_before_request(self) -> None:
        b = self.budget
        if self.llm_calls >= b.max_llm_calls:
            raise BudgetExceeded("llm_calls", used=self.llm_calls, limit=b.max_llm_calls)
        if self.elapsed_ms >= b.max_latency_ms:
            raise BudgetExceeded("latency_ms", used=self.elapsed_ms, limit=b.max_latency_ms)
        if self.tokens >= b.max_tokens:
            raise BudgetExceeded("tokens", used=self.tokens, limit=b.max_tokens)
        if self.cost_usd >= b.max_cost_usd:
            raise BudgetExceeded("cost_usd", used=round(self.cost_usd, 6), limit=b.max_cost_usd)

    def check_before_tool_call(self) -> None:
        b = self.budget
        if self.tool_calls >= b.max_tool_calls:
            raise BudgetExceeded("tool_calls", used=self.tool_calls, limit=b.max_tool_calls)
        if self.elapsed_ms >= b.max_latency_ms:
            raise BudgetExceeded("latency_ms", used=self.elapsed_ms, limit=b.max_latency_ms)

    def record_request(self, usage: Usage) -> None:
        self.llm_calls += 1
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens

    def summary(self) -> dict[str, Any]:
        return {
            "llm_calls": self.llm_calls,
            "tool_calls": self.tool_calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "latency_ms": self.elapsed_ms,
            "limits": asdict(self.budget),
        }
