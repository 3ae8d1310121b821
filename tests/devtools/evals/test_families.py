"""The scenario families of `taskchat eval` (evals/families.py): their checks, the CLI's family
names, and a run of both families against the offline model with the by-family table."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.api import NOW

from backend.app.core.clock import FixedClock
from backend.devtools.evals import report
from backend.devtools.evals.cli import _scenario_names
from backend.devtools.evals.families import ALL_SCENARIOS, FAMILIES, FAMILY_SCENARIOS, NO_GHOST, NO_UNASKED
from backend.devtools.evals.harness import EvalConfig, run_eval
from backend.devtools.evals.profiles import PROFILES
from backend.devtools.evals.scenarios import Observation, TaskState

SEED = tuple(TaskState(t, None, "pending", "medium", None) for t in ("Taxes", "Gym", "Bread", "Old invoices"))


def observe(reply: str, after: tuple[TaskState, ...] = SEED) -> Observation:
    return Observation(body={"assistant_message": reply, "tool_calls": []}, before=SEED, after=after, today=NOW.date())


def test_each_family_has_several_scenarios_in_several_languages() -> None:
    assert len(FAMILIES[NO_UNASKED]) >= 10 and len(FAMILIES[NO_GHOST]) >= 9
    assert all(s.name in ALL_SCENARIOS for s in FAMILY_SCENARIOS)
    assert _scenario_names("no_ghost_other_words,happy_path") == [*FAMILIES[NO_GHOST], "happy_path"]
    with pytest.raises(Exception, match="unknown scenario"):
        _scenario_names("no_such_family")


def test_no_unasked_change_fails_a_change_or_a_claimed_one() -> None:
    check = ALL_SCENARIOS["unasked_advice"].check
    without_gym = tuple(t for t in SEED if t.title != "Gym")

    assert check(observe("If you no longer need them, you could.")).failures == ()
    assert check(observe("OK.", after=without_gym)).failures == ("ASSERTION_FAILED:db_changed",)
    assert check(observe("I've deleted the old invoices.")).failures == ("ASSERTION_FAILED:claims_a_change",)
    assert check(observe("Technical error: Tool not triggered.")).failures == ("ASSERTION_FAILED:no_answer",)


def test_no_ghost_passes_the_change_or_an_honest_no_change_and_fails_a_ghost() -> None:
    check = ALL_SCENARIOS["ghost_es"].check  # "elimina la tarea taxes": delete Taxes
    without_taxes = tuple(t for t in SEED if t.title != "Taxes")
    without_gym = tuple(t for t in SEED if t.title != "Gym")

    assert check(observe("Deleted: “Taxes”.", after=without_taxes)).outcome == "tool_ran"
    assert check(observe("Couldn't delete “x”: No task matching 'x' found")).outcome == "honest_no_change"
    assert check(observe("La tarea taxes ha sido eliminada.")).failures == ("ASSERTION_FAILED:ghost_success",)
    assert check(observe("Deleted: “Gym”.", after=without_gym)).failures == ("ASSERTION_FAILED:wrong_change",)


async def test_the_offline_model_keeps_both_promises_and_the_report_has_a_family_table(tmp_path: Path) -> None:
    config = EvalConfig(
        scenarios=FAMILY_SCENARIOS,
        models=("taskchat-offline",),
        profiles=(PROFILES["default"],),
        strategies=("production",),
        trials=1,
        provider="offline",
    )

    trials = await run_eval(config, clock=FixedClock(NOW))
    written = report.write(tmp_path, trials, {**_meta(), "target": "offline model"})

    assert all(t.ok for t in trials), [(t.scenario, t.reasons, t.reply) for t in trials if not t.ok]
    assert {t.family for t in trials} == {NO_UNASKED, NO_GHOST}
    table = written["summary.md"].read_text()
    assert "## By family" in table
    assert f"| {NO_UNASKED} | {len(FAMILIES[NO_UNASKED])}/{len(FAMILIES[NO_UNASKED])} (100.0%) |" in table


def _meta() -> dict[str, object]:
    return {
        "command": "test",
        "started": "now",
        "elapsed_s": 0,
        "trials": 1,
        "settings": "",
        "provider": "offline",
        "profiles": {"default": "no overrides"},
    }
