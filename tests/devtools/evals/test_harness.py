"""The eval harness end to end in-process: the offline model over every scenario, and a scripted
model that tries a ghost success twice against the guard."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import orjson
from support.api import NOW
from support.fake_llm import ScriptedLLM, calls, completion

from backend.app.core.clock import FixedClock
from backend.app.services.reply.compose import TOOL_NOT_TRIGGERED
from backend.devtools.evals import report
from backend.devtools.evals.families import ALL_SCENARIOS
from backend.devtools.evals.harness import EvalConfig, run_eval
from backend.devtools.evals.profiles import PROFILES
from backend.devtools.evals.scenarios import SCENARIOS, Observation, TaskState

# The offline model is deterministic rules; it passes every scenario, and long_arguments_guard
# by retrying with the description cut after ARGUMENTS_TOO_LARGE, as a model should.
OFFLINE_OUTCOMES = {
    "happy_path": "deleted",
    "missing_reference": "honest_not_found",
    "type_error_recovery": "right_first_time",
    "long_arguments_guard": "retried_shorter",
    "ghost": "tool_ran",
    "empty_final": "answered",
    "multi_call": "three_added",
    "chat_only": "chatted",
}
# A limit not even the title fits under: the retry cannot help, the guard gives up honestly.
IMPOSSIBLE = dataclasses.replace(SCENARIOS["long_arguments_guard"], settings={"max_tool_args_bytes": 20})
IMPOSSIBLE_FAILS = ["TOOL_ERROR:ARGUMENTS_TOO_LARGE", "ASSERTION_FAILED:task_not_added"]


def _config(**changes: Any) -> EvalConfig:
    config = EvalConfig(
        scenarios=tuple(SCENARIOS.values()),
        models=("taskchat-offline",),
        profiles=(PROFILES["default"],),
        strategies=("production", "baseline"),
        trials=1,
        provider="offline",
    )
    return dataclasses.replace(config, **changes)


async def test_offline_model_over_every_scenario_writes_the_reports(tmp_path: Path) -> None:
    scenarios = (*(s for s in SCENARIOS.values() if s.name != "long_arguments_guard"), IMPOSSIBLE)
    trials = await run_eval(_config(scenarios=scenarios), clock=FixedClock(NOW))

    assert len(trials) == len(SCENARIOS) * 2
    for t in trials:
        if t.scenario == "long_arguments_guard":
            assert (t.ok, t.reasons) == (False, IMPOSSIBLE_FAILS), t
            assert t.reason == IMPOSSIBLE_FAILS[0]
        else:
            assert (t.ok, t.outcome, t.reason) == (True, OFFLINE_OUTCOMES[t.scenario], None), t
    assert {t.preset for t in trials} == {"offline"}

    written = report.write(
        tmp_path,
        trials,
        {
            "target": "offline model",
            "command": "test",
            "started": "now",
            "elapsed_s": 0,
            "trials": 1,
            "settings": "defaults",
            "provider": "offline",
            "profiles": {"default": "no overrides"},
        },
    )
    names = {
        "summary.json",
        "summary_by_scenario.json",
        "summary_by_scenario_and_strategy.json",
        "summary_by_family.json",
        "trials.jsonl",
        "chart.png",
        "summary.md",
    }
    assert set(written) == names and all((tmp_path / n).stat().st_size > 0 for n in names)
    assert (tmp_path / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    summary = orjson.loads((tmp_path / "summary.json").read_bytes())
    overall = summary["overall"]
    assert (overall["runs"], overall["ok"]) == (16, 14)
    assert (overall["tool"]["runs"], overall["tool"]["ok"]) == (14, 12)
    assert (overall["control"]["runs"], overall["control"]["ok"]) == (2, 2)
    assert overall["failures"] == {"TOOL_ERROR:ARGUMENTS_TOO_LARGE": 2}
    rows = summary["by_model_profile_strategy"]
    assert [(r["strategy"], r["tool_ok"], r["tool_runs"], r["control_ok"], r["control_runs"]) for r in rows] == [
        ("baseline", 6, 7, 1, 1),
        ("production", 6, 7, 1, 1),
    ]
    assert rows[0]["top_tool_failures"] == ["long_arguments_guard: TOOL_ERROR:ARGUMENTS_TOO_LARGE x1"]

    by_scenario = orjson.loads((tmp_path / "summary_by_scenario.json").read_bytes())
    assert set(by_scenario) == set(SCENARIOS)
    assert sum(s["runs"] for s in by_scenario.values()) == overall["runs"]
    assert sum(s["ok"] for s in by_scenario.values()) == overall["ok"]
    by_strategy = orjson.loads((tmp_path / "summary_by_scenario_and_strategy.json").read_bytes())
    assert all(set(per) == {"baseline", "production"} for per in by_strategy.values())
    assert sum(per["production"]["ok"] for per in by_strategy.values()) == 7

    lines = (tmp_path / "trials.jsonl").read_bytes().splitlines()
    assert len(lines) == 16 and {orjson.loads(line)["scenario"] for line in lines} == set(SCENARIOS)
    md = (tmp_path / "summary.md").read_text()
    assert "| `taskchat-offline` | `guarded` | `default` | production | 6/7 | 85.7% | 1/1 |" in md
    assert "![success rate per scenario](chart.png)" in md


async def test_offline_model_retries_shorter_after_arguments_too_large() -> None:
    [trial] = await run_eval(
        _config(scenarios=(SCENARIOS["long_arguments_guard"],), strategies=("production",)), clock=FixedClock(NOW)
    )

    assert (trial.ok, trial.outcome, trial.guard, trial.llm_calls) == (True, "retried_shorter", "passed", 2)
    assert trial.tool_calls == ["add_task:ARGUMENTS_TOO_LARGE", "add_task:ok"]


async def test_guard_stops_a_model_that_claims_success_twice() -> None:
    llm = ScriptedLLM(default=completion("Done! I've added 'call mom' to your tasks."))
    config = _config(
        scenarios=(SCENARIOS["ghost"],),
        models=("scripted",),
        strategies=("production",),
        provider="openai",
        base_url="http://llm.test/v1",
        retries=0,
        timeout_s=5.0,
    )

    [trial] = await run_eval(config, transport=llm.transport, clock=FixedClock(NOW))

    assert (trial.ok, trial.outcome, trial.reason) == (True, "guard_blocked", None)
    assert trial.reply == TOOL_NOT_TRIGGERED and trial.tool_calls == []
    assert (trial.llm_calls, trial.guard) == (2, "tool_not_triggered")
    # The guard's one retry forced the tool the message needs; the model still did not call it.
    assert llm.tool_choice(1) == {"type": "function", "function": {"name": "add_task"}}


async def test_ghost_scenario_with_the_guard_off_is_rescued_only_by_the_reply() -> None:
    llm = ScriptedLLM(default=completion("Done! I've added 'call mom' to your tasks."))
    unguarded = dataclasses.replace(SCENARIOS["ghost"], settings={"tool_policy": "auto"})
    config = _config(
        scenarios=(unguarded,),
        models=("scripted",),
        strategies=("baseline",),
        provider="openai",
        base_url="http://llm.test/v1",
        retries=0,
    )

    [trial] = await run_eval(config, transport=llm.transport, clock=FixedClock(NOW))

    # No forced retry (auto has no guard), one LLM call; the claim is still never shown.
    assert (trial.ok, trial.outcome, trial.llm_calls) == (True, "claim_replaced", 1)
    assert "added" not in trial.reply.lower()


def test_ghost_check_fails_a_claimed_success_that_reached_the_user() -> None:
    body = {"assistant_message": "Done! I've added 'call mom' to your tasks.", "tool_calls": []}
    state = (TaskState("Buy milk", None, "pending", "medium", None),)
    observation = Observation(body=body, before=state, after=state, today=NOW.date())

    check = SCENARIOS["ghost"].check(observation)

    assert check.failures == ("ASSERTION_FAILED:ghost_success",)


async def test_sampling_profile_is_sent_as_request_overrides() -> None:
    llm = ScriptedLLM(default=completion("Hello!"))
    config = _config(
        scenarios=(SCENARIOS["chat_only"],),
        models=("scripted",),
        profiles=(PROFILES["creative"],),
        strategies=("production",),
        provider="openai",
        base_url="http://llm.test/v1",
        preset_overrides={"assistant_tool_call_content": "empty_string"},
    )

    [trial] = await run_eval(config, transport=llm.transport, clock=FixedClock(NOW))

    assert trial.ok and trial.sampling_profile == "creative"
    assert (llm.requests[0]["temperature"], llm.requests[0]["top_p"]) == (1.2, 0.95)


async def test_a_server_error_is_a_failure_code_not_a_crash() -> None:
    import httpx

    llm = ScriptedLLM(default=httpx.Response(400, json={"error": "bad"}))
    config = _config(
        scenarios=(SCENARIOS["happy_path"],),
        models=("scripted",),
        strategies=("production",),
        provider="openai",
        base_url="http://llm.test/v1",
        retries=0,
    )

    [trial] = await run_eval(config, transport=llm.transport, clock=FixedClock(NOW))

    assert (trial.ok, trial.reasons) == (False, ["LLM_ERROR:LLM_BAD_RESPONSE"])
    assert trial.error_detail and "400" in trial.error_detail


async def test_policies_run_side_by_side_and_the_report_counts_effects(tmp_path: Path) -> None:
    """A weak model that deletes Taxes whatever it is told: under raw `auto` that is right when asked
    and a wrong effect on a question; under `guarded` the question changes nothing."""

    def deletes_taxes(body: dict[str, Any]) -> dict[str, Any]:
        last = body["messages"][-1]
        return completion("Done.") if last["role"] == "tool" else calls(("delete_task", {"task_id": "Taxes"}))

    llm = ScriptedLLM(default=deletes_taxes)
    config = _config(
        scenarios=(ALL_SCENARIOS["ghost_bin"], ALL_SCENARIOS["unasked_question_state"]),
        models=("weak",),
        strategies=("production",),
        policies=("guarded", "auto"),
        provider="openai",
        base_url="http://llm.test/v1",
    )

    trials = await run_eval(config, transport=llm.transport, clock=FixedClock(NOW))

    effects = {(t.policy, t.scenario): t.effect for t in trials}
    assert effects == {
        ("guarded", "ghost_bin"): "right",
        ("guarded", "unasked_question_state"): "right",
        ("auto", "ghost_bin"): "right",
        ("auto", "unasked_question_state"): "wrong",
    }
    rows = {r["policy"]: r for r in report.summaries(trials, {})["summary.json"]["by_policy"]}
    assert (rows["auto"]["action_right"], rows["auto"]["no_change_right"], rows["auto"]["wrong_effects"]) == (1, 0, 1)
    assert (rows["guarded"]["action_right"], rows["guarded"]["no_change_right"], rows["guarded"]["wrong_effects"]) == (
        1,
        1,
        0,
    )
    assert rows["auto"]["crashes_or_timeouts"] == rows["guarded"]["crashes_or_timeouts"] == 0
    assert "| `weak` | `auto` | 1/1 (100.0%) | 0/1 (0.0%) | 1 | 0 |" in report.policy_table(list(rows.values()))
