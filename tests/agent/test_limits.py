"""Budget and BudgetUse: the checks before each request and tool call, cost, deadline, summary."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from backend.app.agent.limits import Budget, BudgetExceeded, BudgetUse
from backend.app.agent.loop_types import Usage


def test_capped_by_only_lowers() -> None:
    server = Budget(max_llm_calls=5, max_tool_calls=8, max_latency_ms=60_000, max_tokens=20_000, max_cost_usd=0.05)
    asked = Budget(max_llm_calls=2, max_tool_calls=100, max_latency_ms=1_000, max_tokens=10**9, max_cost_usd=1.0)

    assert asked.capped_by(server) == Budget(
        max_llm_calls=2, max_tool_calls=8, max_latency_ms=1_000, max_tokens=20_000, max_cost_usd=0.05
    )


def _exceeded(check: Callable[[], object]) -> BudgetExceeded:
    with pytest.raises(BudgetExceeded) as caught:
        check()
    return caught.value


def test_llm_calls_limit() -> None:
    use = BudgetUse(Budget(max_llm_calls=2))
    use.check_before_request()
    use.record_request(Usage())
    use.check_before_request()
    use.record_request(Usage())

    error = _exceeded(use.check_before_request)

    assert (error.kind, error.used, error.limit) == ("llm_calls", 2, 2)
    assert str(error) == "llm_calls budget exhausted (2 of 2)"


def test_tokens_limit_counts_prompt_and_completion() -> None:
    use = BudgetUse(Budget(max_tokens=100))
    use.record_request(Usage(prompt_tokens=60, completion_tokens=39))
    use.check_before_request()
    use.record_request(Usage(prompt_tokens=0, completion_tokens=1))

    error = _exceeded(use.check_before_request)

    assert (error.kind, error.used) == ("tokens", 100)


def test_cost_uses_prices_per_million_tokens() -> None:
    use = BudgetUse(Budget(max_cost_usd=0.001), price_in_per_mtok=2.0, price_out_per_mtok=10.0)
    use.record_request(Usage(prompt_tokens=250, completion_tokens=40))  # 0.0005 + 0.0004

    assert use.cost_usd == pytest.approx(0.0009)
    use.check_before_request()
    use.record_request(Usage(prompt_tokens=50, completion_tokens=0))

    error = _exceeded(use.check_before_request)
    assert (error.kind, error.used, error.limit) == ("cost_usd", 0.001, 0.001)


def test_zero_prices_never_trip_the_cost_budget() -> None:
    use = BudgetUse(Budget(max_tokens=10**12, max_cost_usd=0.0001))
    use.record_request(Usage(prompt_tokens=10**9, completion_tokens=10**9))

    use.check_before_request()  # no exception
    assert use.cost_usd == 0


def test_tool_calls_limit() -> None:
    use = BudgetUse(Budget(max_tool_calls=1))
    use.check_before_tool_call()
    use.tool_calls += 1

    error = _exceeded(use.check_before_tool_call)

    assert (error.kind, error.used, error.limit) == ("tool_calls", 1, 1)


def test_latency_limit_for_requests_and_tools() -> None:
    use = BudgetUse(Budget(max_latency_ms=50))
    use.started = time.monotonic() - 0.2

    assert _exceeded(use.check_before_request).kind == "latency_ms"
    assert _exceeded(use.check_before_tool_call).kind == "latency_ms"
    assert use.elapsed_ms >= 200


def test_checks_report_the_first_exhausted_budget() -> None:
    use = BudgetUse(Budget(max_llm_calls=1, max_tokens=1))
    use.record_request(Usage(prompt_tokens=5))

    assert _exceeded(use.check_before_request).kind == "llm_calls"


def test_deadline_is_start_plus_latency_budget() -> None:
    use = BudgetUse(Budget(max_latency_ms=1_500))

    assert use.deadline == pytest.approx(use.started + 1.5)


def test_summary() -> None:
    use = BudgetUse(Budget(max_llm_calls=3), price_in_per_mtok=1.0, price_out_per_mtok=1.0)
    use.record_request(Usage(prompt_tokens=10, completion_tokens=5))
    use.tool_calls = 2

    summary = use.summary()

    assert {k: summary[k] for k in ("llm_calls", "tool_calls", "prompt_tokens", "completion_tokens", "cost_usd")} == {
        "llm_calls": 1,
        "tool_calls": 2,
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "cost_usd": 0.000015,
    }
    assert summary["limits"]["max_llm_calls"] == 3
    assert isinstance(summary["latency_ms"], int)
