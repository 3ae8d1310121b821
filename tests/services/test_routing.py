"""The choice among several models (services/turn/routing.py `choose`), by strategy, in seeded runs.

Three models stand in: "steady" succeeds 90 % of the time, "patchy" 60 %, "weak" 30 %. Each
strategy learns only from its own choices' rewards, as the service does.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from backend.app.db.repositories.routing import Totals
from backend.app.services.turn.routing import Strategy, Tuning, choose

MODELS = ["weak", "patchy", "steady"]
SUCCESS = {"weak": 0.3, "patchy": 0.6, "steady": 0.9}
COST = {"weak": 0.0001, "patchy": 0.0004, "steady": 0.002}


def simulate(strategy: Strategy, turns: int, *, seed: int) -> list[str]:
    rng, world = random.Random(seed), random.Random(seed + 1)
    totals: dict[str, Totals] = {}
    chosen = []
    for _ in range(turns):
        choice = choose(MODELS, totals, strategy=strategy, policy="auto", rng=rng)
        model = choice.model
        reward = 1.0 if world.random() < SUCCESS[model] else 0.0
        t = totals.get(model, Totals(0, 0.0, 0.0, 0.0))
        totals[model] = Totals(t.n + 1, t.reward + reward, t.latency_ms + 10, t.cost_usd + COST[model])
        chosen.append(model)
    return chosen


@pytest.mark.parametrize("strategy", ["epsilon_greedy", "ucb1", "thompson"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_each_learning_strategy_converges_on_the_better_model(strategy: Strategy, seed: int) -> None:
    chosen = simulate(strategy, 2_000, seed=seed)
    late = Counter(chosen[-500:])
    assert late["steady"] / 500 >= 0.8, late
    assert set(chosen) == set(MODELS)  # every model was tried


def test_greedy_tries_each_model_once_then_keeps_the_best_mean() -> None:
    totals = {"weak": Totals(4, 1.0, 0, 0), "patchy": Totals(4, 3.0, 0, 0), "steady": Totals(4, 2.0, 0, 0)}
    choice = choose(MODELS, totals, strategy="greedy", policy="auto", rng=random.Random(0))
    assert (choice.model, choice.how) == ("patchy", "exploit")
    fresh = choose(MODELS, {"weak": Totals(1, 1.0, 0, 0)}, strategy="greedy", policy="auto", rng=random.Random(0))
    assert (fresh.model, fresh.how) == ("patchy", "explore")  # never tried: tried first


def test_fixed_is_the_configured_order_whatever_the_outcomes() -> None:
    totals = {"weak": Totals(100, 0.0, 0, 0), "steady": Totals(100, 100.0, 0, 0)}
    choice = choose(MODELS, totals, strategy="fixed", policy="auto", rng=random.Random(0))
    assert (choice.model, choice.how) == ("weak", "fixed")


def test_a_success_floor_picks_the_cheapest_model_above_it() -> None:
    totals = {
        "weak": Totals(50, 15.0, 500, 50 * COST["weak"]),
        "patchy": Totals(50, 44.0, 500, 50 * COST["patchy"]),  # 0.88
        "steady": Totals(50, 46.0, 500, 50 * COST["steady"]),  # 0.92
    }
    floor = Tuning(floor=0.85, min_turns=20)
    choice = choose(MODELS, totals, strategy="greedy", policy="auto", rng=random.Random(0), tuning=floor)
    assert (choice.model, choice.how) == ("patchy", "floor")
    strict = Tuning(floor=0.9, min_turns=20)
    choice = choose(MODELS, totals, strategy="greedy", policy="auto", rng=random.Random(0), tuning=strict)
    assert (choice.model, choice.how) == ("steady", "floor")
    nobody = Tuning(floor=0.99, min_turns=20)
    choice = choose(MODELS, totals, strategy="greedy", policy="auto", rng=random.Random(0), tuning=nobody)
    assert (choice.model, choice.how) == ("steady", "exploit")  # none above: the strategy's choice


def test_the_estimates_behind_a_choice_are_on_record() -> None:
    totals = {"weak": Totals(10, 3.0, 1000, 0.001), "patchy": Totals(10, 6.0, 500, 0.004)}
    choice = choose(MODELS, totals, strategy="ucb1", policy="auto", rng=random.Random(0))
    record = choice.info()
    assert record.chosen == "steady" and record.how == "explore"  # never tried
    assert [(e.model, e.n, e.mean_reward) for e in record.estimates] == [
        ("weak", 10, 0.3),
        ("patchy", 10, 0.6),
        ("steady", 0, None),
    ]
    assert record.estimates[0].mean_latency_ms == 100.0
