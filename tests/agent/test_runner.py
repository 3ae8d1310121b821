"""AgentRunner.run: modes, failure policies, empty finals, overrides, limits, budgets and errors."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import pytest
from agent.fakes import (
    USER,
    FakeTools,
    ScriptedClient,
    assert_every_call_answered,
    budget_use,
    make_runner,
    run,
    step_trace,
)
from support.fake_llm import calls, completion, tool_call

from backend.app.agent.guard_protocol import (
    ACCEPT_CALLS,
    Accept,
    CallsVerdict,
    CheckWords,
    FinalVerdict,
    ForceRetry,
    GiveUp,
    Words,
    WordsVerdict,
)
from backend.app.agent.limits import Budget, BudgetUse
from backend.app.agent.loop_types import (
    CheckTrace,
    StepRequest,
    StepTrace,
    StopReason,
    Usage,
)
from backend.app.agent.policy import ToolPolicy
from backend.app.agent.presets import Preset, select_preset
from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import GuardDecision, GuardEvent, GuardReason
from backend.app.calls.facts import Grounding, Hold
from backend.app.calls.types import BatchResult, ExecutedCall, StepInfo, ToolCall, ToolResult, ToolSpec
from backend.app.calls.verdicts import verdict_of
from backend.app.core.exceptions import LLMBadResponse, LLMTimeout, LLMUnavailable, ToolBindingError


def not_found(_: object) -> ToolResult:
    return ToolResult(success=False, code=ResultCode.NOT_FOUND, error="No task matching 'x' found")


# -- a plain run ----------------------------------------------------------------------------------


async def test_tool_then_answer_sends_results_and_records_the_trace() -> None:
    client = ScriptedClient(
        calls(("add_task", {"title": "milk"})), completion("Added milk.", prompt_tokens=7, completion_tokens=3)
    )
    tools = FakeTools()
    messages = list(USER)

    result = await make_runner(client).run(
        messages=messages, executor=tools, policy=ToolPolicy.AUTO, expected_tools=["add_task"], use=budget_use()
    )

    assert tools.ran == [("add_task", {"title": "milk"})]
    assert (result.text, result.stop_reason, result.ok, result.error_code) == ("Added milk.", "final", True, None)
    assert messages == USER  # the caller's list is not mutated
    second = client.bodies[1]
    assert second["model"] == "test-model" and second["max_tokens"] == 1024
    assistant, tool = second["messages"][2:]
    assert assistant["role"] == "assistant" and assistant["content"] is None
    assert assistant["tool_calls"][0]["function"] == {"name": "add_task", "arguments": '{"title":"milk"}'}
    assert tool["tool_call_id"] == assistant["tool_calls"][0]["id"] and "name" not in tool
    assert client.tool_messages(1)[0]["content"] == {
        "success": True,
        "data": {"tool": "add_task", "title": "milk"},
        "error": None,
    }
    assert [t.step for t in result.trace] == [0, 1]
    step_one, step_two = result.trace
    assert isinstance(step_one, StepTrace) and isinstance(step_two, StepTrace)
    assert step_one.request == StepRequest(
        tools=("add_task", "list_tasks", "delete_task"), tool_choice="auto", messages=2
    )
    assert step_one.calls == ("add_task",) and step_one.finish_reason == "tool_calls"
    assert step_two.usage == Usage(prompt_tokens=7, completion_tokens=3)
    assert (result.use.llm_calls, result.use.tool_calls, result.use.tokens) == (2, 1, 130)


async def test_normalizations_are_traced() -> None:
    client = ScriptedClient(
        completion(tool_calls=tool_call("functions.list_tasks", "", call_id="x", raw=True)), completion("ok")
    )
    tools = FakeTools()

    result = await run(make_runner(client), tools)

    assert tools.ran == [("list_tasks", {})]
    assert list(step_trace(result, 0).normalizations) == [
        "tool_calls_object_wrapped",
        "tool_name_prefix_stripped",
        "empty_arguments",
    ]


async def test_content_tag_calls_run_under_a_fallback_preset() -> None:
    preset = select_preset(provider="openrouter", model="qwen/qwen3-235b-a22b-2507")
    client = ScriptedClient(
        completion('<tool_call>{"name": "add_task", "arguments": {"title": "milk"}}</tool_call>'), completion("Added.")
    )
    tools = FakeTools()

    result = await run(make_runner(client, preset=preset), tools)

    assert tools.ran == [("add_task", {"title": "milk"})]
    assert result.text == "Added."
    assert_every_call_answered(client.bodies[1])


# -- tool_use_mode --------------------------------------------------------------------------------


async def test_enforced_without_a_tool_call_stops() -> None:
    client = ScriptedClient(completion("Sure, done!"))

    result = await run(make_runner(client, tool_use_mode="enforced"), FakeTools())

    assert (result.stop_reason, result.ok, result.error_code) == ("no_tool_calls", False, "NO_TOOL_CALLS")
    assert result.text == ""  # the runner reports; the service writes "Tool not triggered"
    assert len(client.bodies) == 1


@pytest.mark.parametrize("failure_policy", ["fatal", "tolerated"])
async def test_enforced_is_not_satisfied_by_a_refused_call(failure_policy: str) -> None:
    client = ScriptedClient(calls(("add_tasks", {"title": "milk"})), completion("Added milk!"))
    tools = FakeTools()

    result = await run(make_runner(client, tool_use_mode="enforced", tool_failure_policy=failure_policy), tools)

    assert tools.ran == []
    assert (result.stop_reason, result.ok) == ("no_tool_calls", False)
    assert [(e.call.name, e.ran) for e in result.executed] == [("add_tasks", False)]


async def test_enforced_with_a_successful_tool_is_ok() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"})), completion("Added."))

    result = await run(make_runner(client, tool_use_mode="enforced"), FakeTools())

    assert (result.stop_reason, result.ok) == ("final", True)


async def test_enforced_tolerated_needs_one_success() -> None:
    client = ScriptedClient(calls(("delete_task", {"task_id": "x"})), completion("Deleted!"))
    tools = FakeTools(handlers={"delete_task": not_found})

    result = await run(make_runner(client, tool_use_mode="enforced", tool_failure_policy="tolerated"), tools)

    assert result.stop_reason == "final" and result.ok is False


async def test_relaxed_succeeds_without_tools() -> None:
    client = ScriptedClient(completion("Hello!"))

    result = await run(make_runner(client, tool_use_mode="relaxed"), FakeTools())

    assert (result.text, result.stop_reason, result.ok, result.executed) == ("Hello!", "final", True, [])


async def test_disabled_sends_no_tools_even_under_a_tool_policy() -> None:
    client = ScriptedClient(completion("Chat only."))

    result = await run(make_runner(client, tool_use_mode="disabled"), FakeTools(), policy=ToolPolicy.REQUIRED)

    assert "tools" not in client.bodies[0] and "tool_choice" not in client.bodies[0]
    assert step_trace(result, 0).request.tools == ()
    assert (result.text, result.ok) == ("Chat only.", True)


async def test_disabled_needs_no_bound_tools() -> None:
    client = ScriptedClient(completion("Chat only."))

    result = await run(make_runner(client, tool_use_mode="disabled"), FakeTools(specs=()))

    assert result.ok


# -- tool_failure_policy --------------------------------------------------------------------------


async def test_fatal_tool_failure_ends_the_run() -> None:
    client = ScriptedClient(calls(("delete_task", {"task_id": "x"})), completion("Deleted!"))
    tools = FakeTools(handlers={"delete_task": not_found})

    result = await run(make_runner(client, tool_failure_policy="fatal"), tools)

    assert len(client.bodies) == 1  # the model never gets to claim success
    assert (result.stop_reason, result.ok, result.error_code) == ("tool_error", False, "TOOL_ERROR")
    assert [e.result.code for e in result.executed] == ["NOT_FOUND"]


async def test_fatal_does_not_count_model_fixable_errors() -> None:
    client = ScriptedClient(calls(("add_task", {})), calls(("add_task", {"title": "milk"})), completion("Added."))

    result = await run(make_runner(client, tool_failure_policy="fatal"), FakeTools())

    assert (result.stop_reason, result.ok) == ("final", True)


async def test_tolerated_tool_failure_lets_the_model_answer() -> None:
    client = ScriptedClient(calls(("delete_task", {"task_id": "x"})), completion("I couldn't find x."))
    tools = FakeTools(handlers={"delete_task": not_found})

    result = await run(make_runner(client, tool_failure_policy="tolerated"), tools)

    assert client.tool_messages(1)[0]["content"]["code"] == "NOT_FOUND"
    assert (result.text, result.stop_reason, result.ok) == ("I couldn't find x.", "final", True)


# -- empty final answers --------------------------------------------------------------------------


async def test_empty_final_after_tools_is_retried_once_without_tools() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"})), completion(""), completion("Added milk."))
    tools = FakeTools()

    result = await run(make_runner(client), tools)

    assert len(client.bodies) == 3
    retry = client.bodies[2]
    assert "tools" not in retry and "tool_choice" not in retry
    assert retry["messages"][-2:] == [
        {"role": "assistant", "content": ""},
        {"role": "system", "content": "Reply to the user now, in one or two sentences."},
    ]
    assert step_trace(result, 1).retry == "empty_final"
    assert step_trace(result, 2).request.tools == ()
    assert (result.text, result.ok, tools.ran_names) == ("Added milk.", True, ["add_task"])


async def test_empty_final_retry_restores_tools_afterwards() -> None:
    client = ScriptedClient(
        calls(("list_tasks", {})),
        completion(None),
        calls(("add_task", {"title": "milk"})),  # a call in the no-tools retry still runs (it was parsed)
        completion("Done."),
    )

    await run(make_runner(client), FakeTools())

    assert "tools" not in client.bodies[2]
    assert client.tool_names(3) == ["add_task", "list_tasks", "delete_task"]


async def test_still_empty_after_the_retry_ends_with_no_text() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"})), completion(""), completion("  "))

    result = await run(make_runner(client), FakeTools())

    assert len(client.bodies) == 3
    assert (result.text, result.stop_reason, result.ok) == ("", "final", True)  # the reply comes from results


async def test_fix_empty_final_off_ends_at_once() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"})), completion(""))

    result = await run(make_runner(client, fix_empty_final=False), FakeTools())

    assert len(client.bodies) == 2
    assert (result.text, result.stop_reason) == ("", "final")


async def test_empty_answer_without_tools_is_not_retried() -> None:
    client = ScriptedClient(completion(""))

    result = await run(make_runner(client), FakeTools())

    assert len(client.bodies) == 1
    assert (result.text, result.stop_reason) == ("", "final")


# -- request overrides ----------------------------------------------------------------------------


async def test_reserved_override_keys_are_ignored_and_recorded() -> None:
    preset = Preset(name="p", provider="openai", request_overrides={"temperature": 1.0, "top_k": 20, "model": "evil"})
    overrides = {
        "model": "other",
        "messages": [],
        "tools": [],
        "tool_choice": "none",
        "response_format": {"type": "json_object"},
        "temperature": 0.2,
        "top_p": 0.9,
    }
    client = ScriptedClient(completion("ok"))

    result = await run(make_runner(client, preset=preset, request_overrides=overrides), FakeTools())

    body = client.bodies[0]
    assert body["model"] == "test-model"
    assert body["messages"] == USER
    assert len(body["tools"]) == 3 and body["tool_choice"] == "auto"
    assert "response_format" not in body
    assert (body["temperature"], body["top_p"], body["top_k"]) == (0.2, 0.9, 20)  # run options win over the preset
    assert sorted(step_trace(result, 0).ignored_override_keys) == [
        "messages",
        "model",
        "response_format",
        "tool_choice",
        "tools",
    ]


async def test_max_tokens_none_is_not_sent() -> None:
    client = ScriptedClient(completion("ok"))

    await run(make_runner(client, max_tokens=None), FakeTools())

    assert "max_tokens" not in client.bodies[0]


# -- loop limits ----------------------------------------------------------------------------------


async def test_max_steps_stops_a_model_that_never_answers() -> None:
    counter = iter(range(100))
    client = ScriptedClient(default=lambda _: calls(("list_tasks", {"status": f"s{next(counter)}"})))
    tools = FakeTools()

    result = await run(make_runner(client, max_steps=3), tools)

    assert len(client.bodies) == 3 and len(tools.ran) == 3
    assert (result.stop_reason, result.ok, result.error_code) == ("max_steps", False, "MAX_STEPS")
    assert [e.call.name for e in result.executed] == ["list_tasks"] * 3
    assert (result.stop_detail, result.text) == ("3", "")


# -- budgets --------------------------------------------------------------------------------------


def _endless() -> ScriptedClient:
    counter = iter(range(100))
    return ScriptedClient(default=lambda _: calls(("list_tasks", {"status": f"s{next(counter)}"})))


async def test_llm_call_budget() -> None:
    client = _endless()

    result = await run(make_runner(client, max_steps=10), FakeTools(), use=budget_use(max_llm_calls=2))

    assert len(client.bodies) == 2
    assert result.stop_reason == "budget_exceeded" and result.ok is False
    assert result.findings[0].to_dict() == {"kind": "BudgetExceeded", "budget": "llm_calls", "used": 2, "limit": 2}
    assert result.stop_detail == "llm_calls"


async def test_token_budget_counts_usage() -> None:
    client = _endless()  # each completion reports 100 + 20 tokens

    result = await run(make_runner(client, max_steps=10), FakeTools(), use=budget_use(max_tokens=300))

    assert len(client.bodies) == 3  # 0, 120, 240 tokens before each request; 360 stops the fourth
    assert result.findings[0].to_dict() == {"kind": "BudgetExceeded", "budget": "tokens", "used": 360, "limit": 300}


async def test_cost_budget_uses_preset_prices() -> None:
    preset = select_preset(provider="openrouter", model="deepseek/deepseek-v3.2")
    client = _endless()
    use = BudgetUse(
        Budget(max_llm_calls=50, max_tool_calls=50, max_tokens=10**9, max_cost_usd=0.0001),
        price_in_per_mtok=preset.price_in_per_mtok,
        price_out_per_mtok=preset.price_out_per_mtok,
    )

    result = await run(make_runner(client, preset=preset, max_steps=10), FakeTools(), use=use)

    # One step costs 100 * 0.27 / 1e6 + 20 * 1.1 / 1e6 = 0.000049 USD: the third request would pass 0.0001.
    assert len(client.bodies) == 3
    finding = result.findings[0].to_dict()
    assert (finding["budget"], finding["used"], finding["limit"]) == ("cost_usd", 0.000147, 0.0001)
    assert result.stop_reason == "budget_exceeded"


async def test_latency_budget_with_a_slow_model() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"})), delay_s=0.08)
    tools = FakeTools()
    use = budget_use(max_latency_ms=40)

    result = await run(make_runner(client), tools, use=use)

    assert tools.ran == []  # the deadline passed while the model was thinking: nothing runs after it
    assert client.deadlines[0] == pytest.approx(use.started + 0.04)
    assert result.findings[0].kind == "BudgetExceeded" and result.findings[0].budget == "latency_ms"
    assert result.stop_reason == "budget_exceeded" and result.ok is False


async def test_latency_budget_checked_before_a_request() -> None:
    client = ScriptedClient(completion("never sent"))
    use = budget_use(max_latency_ms=10)
    use.started = time.monotonic() - 1

    result = await run(make_runner(client), FakeTools(), use=use)

    assert client.bodies == []
    assert result.stop_reason == "budget_exceeded" and result.findings[0].budget == "latency_ms"


# -- binding and errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "policy", [ToolPolicy.AUTO, ToolPolicy.GUARDED, ToolPolicy.FORCED_INTENT, ToolPolicy.TWO_PHASE]
)
async def test_a_policy_needing_tools_without_tools_refuses_to_call_the_model(policy: ToolPolicy) -> None:
    client = ScriptedClient(completion("hi"))

    with pytest.raises(ToolBindingError):
        await run(make_runner(client), FakeTools(specs=()), policy=policy, expected=["add_task"])

    assert client.bodies == []


async def test_policy_none_needs_no_tools() -> None:
    client = ScriptedClient(completion("hi"))

    result = await run(make_runner(client), FakeTools(specs=()), policy=ToolPolicy.NONE)

    assert result.text == "hi"


@pytest.mark.parametrize(
    "error", [LLMUnavailable("down"), LLMTimeout("slow"), LLMBadResponse("junk")], ids=["503", "504", "502"]
)
async def test_llm_error_after_a_tool_ran_keeps_the_results(error: Exception) -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"})), error)
    tools = FakeTools()

    result = await run(make_runner(client), tools)

    assert tools.ran == [("add_task", {"title": "milk"})]
    assert result.stop_reason == "llm_error" and result.ok is False
    assert result.error is error and result.error_code == error.code
    assert [e.result.success for e in result.executed] == [True]
    assert result.text == ""


async def test_bad_body_after_a_tool_ran_is_an_llm_error_result() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"})), {"error": {"message": "upstream died"}})

    result = await run(make_runner(client), FakeTools())

    assert result.stop_reason == "llm_error" and result.error_code == "LLM_BAD_RESPONSE"
    assert len(result.executed) == 1


async def test_llm_error_before_any_tool_raises() -> None:
    client = ScriptedClient(LLMUnavailable("down"))

    with pytest.raises(LLMUnavailable):
        await run(make_runner(client), FakeTools())


async def test_llm_error_after_only_refused_calls_raises() -> None:
    # Nothing reached the tools, so nothing is half-done: the error is the answer (a 5xx).
    client = ScriptedClient(calls(("ghost", {})), LLMTimeout("slow"))
    tools = FakeTools()

    with pytest.raises(LLMTimeout):
        await run(make_runner(client), tools)

    assert tools.ran == []


# -- the execution guard --------------------------------------------------------------------------


class ScriptedGuard:
    """A StepGuard answering from queues; `covered` once any call succeeded."""

    def __init__(self, *final: FinalVerdict, calls_verdicts: Sequence[CallsVerdict] = ()) -> None:
        self.final = list(final)
        self.calls_verdicts = list(calls_verdicts)
        self.forced_seen: list[bool] = []
        self.checked: list[dict[str, Any] | None] = []
        self.claimed_seen: list[tuple[str, ...]] = []  # what each check's review was told the lists read
        self.after: list[ForceRetry] = []
        self.decided_seen: list[list[GuardEvent]] = []  # the events each final review was handed

    def review_calls(
        self,
        calls: Sequence[ToolCall],
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        forced: bool,
        decided: Sequence[GuardEvent],
    ) -> CallsVerdict:
        self.forced_seen.append(forced)
        return self.calls_verdicts.pop(0) if self.calls_verdicts else ACCEPT_CALLS

    def review_final(
        self, text: str, executed: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]
    ) -> FinalVerdict:
        self.decided_seen.append(list(decided))
        return self.final.pop(0) if self.final else Accept()

    def review_checked(
        self,
        text: str,
        arguments: dict[str, Any] | None,
        executed: Sequence[ExecutedCall],
        *,
        step: int,
        claimed: tuple[str, ...],
        decided: Sequence[GuardEvent],
    ) -> Accept | ForceRetry:
        self.checked.append(arguments)
        self.claimed_seen.append(claimed)
        return Accept()

    def review_results(
        self, executed: Sequence[ExecutedCall], *, step: int, decided: Sequence[GuardEvent]
    ) -> ForceRetry | None:
        return self.after.pop(0) if self.after else None

    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        return any(e.result.success for e in executed)


async def test_guard_force_retry_forces_the_tool_once() -> None:
    client = ScriptedClient(completion("Added!"), calls(("add_task", {"title": "milk"})), completion("Added milk."))
    guard = ScriptedGuard(ForceRetry(verdict_of("A5"), tool="add_task", instruction="Call add_task now."))
    tools = FakeTools()

    result = await run(make_runner(client), tools, policy=ToolPolicy.GUARDED, guard=guard)

    assert client.tool_choice(0) == "auto"
    assert client.tool_choice(1) == {"type": "function", "function": {"name": "add_task"}}
    assert client.tool_choice(2) == "auto"  # forced once, never twice
    assert client.bodies[1]["messages"][-2:] == [
        {"role": "assistant", "content": "Added!"},
        {"role": "system", "content": "Call add_task now."},
    ]
    (executed,) = result.executed
    assert (executed.retried, executed.retry_reason) == (True, "missing_tool")
    assert (step_trace(result, 0).retry, result.text) == ("missing_tool", "Added milk.")
    assert guard.forced_seen == [True]  # the guard knows the call was made under a forced choice


async def test_the_guards_events_and_words_are_the_runs_record_and_handed_back() -> None:
    client = ScriptedClient(completion("Added!"), calls(("add_task", {"title": "milk"})), completion("Added milk."))
    forced = GuardEvent(0, GuardDecision.FORCED, GuardReason.MISSING_TOOL, "add_task")
    grounded = GuardEvent(1, GuardDecision.GROUNDED, GuardReason.FORCED_CALL, "add_task")
    words = Words("Added milk.", WordsVerdict.SHOWN)
    guard = ScriptedGuard(
        ForceRetry(verdict_of("A5"), tool="add_task", instruction="Add.", events=(forced,)),
        Accept(words=words),
        calls_verdicts=[CallsVerdict(events=(grounded,))],
    )

    result = await run(make_runner(client), FakeTools(), policy=ToolPolicy.GUARDED, guard=guard)

    assert result.guard_events == [forced, grounded] and result.words == words
    assert guard.decided_seen == [[], [forced, grounded]]  # each review hears what was decided before it


async def test_guard_force_retry_without_a_tool_uses_required() -> None:
    client = ScriptedClient(completion("ok"), calls(("list_tasks", {})), completion("Here."))
    guard = ScriptedGuard(ForceRetry(verdict_of("A10"), tool=None, instruction="Use a tool."))

    await run(make_runner(client), FakeTools(), guard=guard)

    assert client.tool_choice(1) == "required"
    assert client.tool_names(1) == ["add_task", "list_tasks", "delete_task"]


async def test_a_retry_with_a_way_out_offers_respond_and_ends_with_its_message() -> None:
    respond = completion(tool_calls=[tool_call("respond", {"message": "Nothing was changed."})])
    client = ScriptedClient(completion("I deleted it."), respond)
    guard = ScriptedGuard(ForceRetry(verdict_of("A10"), tool=None, instruction="Act or say so.", offer_respond=True))
    tools = FakeTools()

    result = await run(make_runner(client), tools, guard=guard)

    assert client.tool_choice(1) == "required"
    assert client.tool_names(1) == ["add_task", "list_tasks", "delete_task", "respond"]
    assert (result.stop_reason, result.text, tools.ran) == ("final", "Nothing was changed.", [])


async def test_guard_give_up_stops_with_tool_not_triggered() -> None:
    client = ScriptedClient(completion("Added!"))
    guard = ScriptedGuard(GiveUp(verdict_of("A3")))

    result = await run(make_runner(client), FakeTools(), guard=guard)

    assert (result.stop_reason, result.text, result.ok) == ("tool_not_triggered", "", False)


async def test_refused_calls_are_recorded_never_run_and_the_model_is_told_why() -> None:
    client = ScriptedClient(calls(("delete_task", {"task_id": "a"}), ("add_task", {"title": "a"})), completion("ok"))
    refusal = ToolResult(
        success=False, code=ResultCode.NOT_REQUESTED, error="Not run: the user's message asks for no change."
    )
    guard = ScriptedGuard(calls_verdicts=[CallsVerdict(refused={0: refusal})])
    tools = FakeTools()

    result = await run(make_runner(client), tools, guard=guard)

    assert tools.ran_names == ["add_task"]
    assert [(e.call.name, e.ran, e.result.code) for e in result.executed] == [
        ("delete_task", False, "NOT_REQUESTED"),
        ("add_task", True, None),
    ]
    assert client.tool_messages(1)[0]["content"]["code"] == "NOT_REQUESTED"  # the model is told why
    assert_every_call_answered(client.bodies[1])


async def test_grounded_calls_carry_the_users_words_to_the_executor() -> None:
    seen: list[Grounding | None] = []

    class Recording(FakeTools):
        async def execute_batch(self, calls: Sequence[ToolCall], *, step: StepInfo | None = None) -> BatchResult:
            seen.extend(c.grounding for c in calls)
            return await super().execute_batch(calls)

    client = ScriptedClient(calls(("delete_task", {"task_id": "a"}), ("list_tasks", {})), completion("ok"))
    held = Grounding(Hold.OWN, names="delete a")
    guard = ScriptedGuard(calls_verdicts=[CallsVerdict(grounding={0: held})])

    await run(make_runner(client), Recording(), guard=guard)

    assert seen == [held, None]


async def test_words_the_guard_wants_checked_are_asked_about_once_with_its_tool_forced() -> None:
    tool = ToolSpec("check_reply", "what the words claim", {"type": "object", "properties": {}})
    check = CheckWords(tool=tool, messages=[{"role": "user", "content": "check: All done!"}], claimed=("done",))
    client = ScriptedClient(completion("All done!"), calls(("check_reply", {"done": []})))
    guard = ScriptedGuard(check)

    result = await run(make_runner(client), FakeTools(), guard=guard)

    assert result.text == "All done!" and result.stop_reason is StopReason.FINAL
    assert guard.checked == [{"done": []}]
    assert guard.claimed_seen == [("done",)]  # what the word lists read goes with the answer to its review
    body = client.bodies[1]
    assert body["messages"] == check.messages and body["tool_choice"]["function"]["name"] == "check_reply"
    checked = result.trace[-1]
    assert result.use.llm_calls == 2 and isinstance(checked, CheckTrace) and checked.check == "check_reply"


async def test_a_check_the_model_fails_to_answer_hands_the_guard_nothing() -> None:
    tool = ToolSpec("check_reply", "what the words claim", {"type": "object", "properties": {}})
    client = ScriptedClient(completion("All done!"), completion("I think it says it is done."))
    guard = ScriptedGuard(CheckWords(tool=tool, messages=[{"role": "user", "content": "check"}]))

    result = await run(make_runner(client), FakeTools(), guard=guard)

    assert guard.checked == [None] and result.text == "All done!"


async def test_a_retry_the_guard_wants_after_the_results_sends_no_tools_when_it_wants_words() -> None:
    client = ScriptedClient(calls(("delete_task", {"task_id": "a"})), completion("It is still there."))
    guard = ScriptedGuard()
    guard.after = [ForceRetry(verdict_of("R1"), tool=None, instruction="answer in words", answer_only=True)]

    result = await run(make_runner(client), FakeTools(), guard=guard)

    assert "tools" not in client.bodies[1] and client.bodies[1]["messages"][-1]["content"] == "answer in words"
    assert result.text == "It is still there."


async def test_stop_when_covered_skips_the_second_request() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"})))

    result = await run(make_runner(client), FakeTools(), guard=ScriptedGuard(), stop_when_covered=True)

    assert len(client.bodies) == 1
    assert (result.stop_reason, result.ok, result.text) == ("composed", True, "")


async def test_stop_when_covered_waits_for_fixable_errors() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"}), ("ghost", {})), completion("Added milk."))

    result = await run(make_runner(client), FakeTools(), guard=ScriptedGuard(), stop_when_covered=True)

    assert len(client.bodies) == 2 and result.stop_reason == "final"


async def test_stop_when_covered_keeps_asking_until_the_guard_is_covered() -> None:
    class TwoAdds(ScriptedGuard):
        def covered(self, executed: Sequence[ExecutedCall]) -> bool:
            return sum(e.result.success for e in executed) >= 2

    client = ScriptedClient(calls(("add_task", {"title": "milk"})), calls(("add_task", {"title": "eggs"})))

    result = await run(make_runner(client), FakeTools(), guard=TwoAdds(), stop_when_covered=True)

    assert len(client.bodies) == 2 and result.stop_reason == "composed"


# -- preset message quirks ------------------------------------------------------------------------


async def test_deepseek_gets_empty_string_content_on_tool_call_turns() -> None:
    preset = select_preset(provider="openrouter", model="deepseek/deepseek-chat-v3-0324")
    client = ScriptedClient(calls(("list_tasks", {})), completion("ok"))

    await run(make_runner(client, preset=preset), FakeTools())

    assert client.bodies[1]["messages"][2]["content"] == ""


async def test_gemini_gets_the_tool_name_on_tool_results() -> None:
    preset = select_preset(provider="openrouter", model="google/gemini-2.5-flash")
    client = ScriptedClient(calls(("list_tasks", {})), completion("ok"))

    await run(make_runner(client, preset=preset), FakeTools())

    assert client.bodies[1]["messages"][3]["name"] == "list_tasks"
