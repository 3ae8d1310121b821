"""Tool policies: the tools and tool_choice each request carries, read from what the model received."""

from __future__ import annotations

import pytest
from agent.fakes import LIST_TASKS, SPECS, FakeTools, MaskedTools, ScriptedClient, make_runner, run, step_trace
from support.fake_llm import calls, completion, tool_call

from backend.app.agent.decide import Answered, SoFar, StepDecider
from backend.app.agent.loop_types import LLMResponse, LoopRetry, NextStepRetry, PolicyChange, Usage
from backend.app.agent.policy import RESPOND_TOOL, PolicyDriver, ToolPolicy
from backend.app.agent.presets import Preset, select_preset
from backend.app.agent.run_io import RunOptions

ALL = ["add_task", "list_tasks", "delete_task"]
FORCE_ADD = {"type": "function", "function": {"name": "add_task"}}


def respond(message: str) -> dict[str, object]:
    return completion(tool_calls=[tool_call("respond", {"message": message}, call_id="r")])


async def test_none_sends_no_tools_key() -> None:
    client = ScriptedClient(completion("Just chatting."))

    result = await run(make_runner(client), FakeTools(), policy=ToolPolicy.NONE)

    assert "tools" not in client.bodies[0] and "tool_choice" not in client.bodies[0]
    assert result.text == "Just chatting."


@pytest.mark.parametrize("policy", [ToolPolicy.AUTO, ToolPolicy.GUARDED])
async def test_auto_and_guarded_send_all_tools_with_auto(policy: ToolPolicy) -> None:
    client = ScriptedClient(calls(("list_tasks", {})), completion("Here."))

    await run(make_runner(client), FakeTools(), policy=policy)

    assert client.tool_names(0) == ALL and client.tool_names(1) == ALL
    assert client.tool_choice(0) == client.tool_choice(1) == "auto"
    assert client.bodies[0]["tools"][0] == {
        "type": "function",
        "function": {"name": "add_task", "description": "Add a task.", "parameters": SPECS[0].parameters},
    }


# -- required -------------------------------------------------------------------------------------


async def test_required_until_the_expected_tool_ran_then_respond_ends() -> None:
    client = ScriptedClient(
        calls(("list_tasks", {})),
        calls(("add_task", {"title": "milk"})),
        respond("Added milk."),
    )
    tools = FakeTools()

    result = await run(make_runner(client), tools, policy=ToolPolicy.REQUIRED, expected=["add_task"])

    assert client.tool_names(0) == [*ALL, "respond"]
    assert [client.tool_choice(i) for i in range(3)] == ["required", "required", "auto"]
    assert result.policy_events == [PolicyChange(step=1, event="required_satisfied", tool_choice="auto")]
    assert (result.text, result.stop_reason, result.ok) == ("Added milk.", "final", True)
    assert tools.ran_names == ["list_tasks", "add_task"]  # `respond` never reaches the executor
    assert step_trace(result, 2).respond is True
    assert len(client.bodies) == 3


async def test_required_respond_at_once_ends_the_run() -> None:
    client = ScriptedClient(respond("Hello!"))
    tools = FakeTools()

    result = await run(make_runner(client), tools, policy=ToolPolicy.REQUIRED)

    assert (result.text, result.ok, tools.ran, len(client.bodies)) == ("Hello!", True, [], 1)


async def test_required_without_expected_tools_is_satisfied_by_any_tool() -> None:
    client = ScriptedClient(calls(("list_tasks", {})), completion("Here."))

    await run(make_runner(client), FakeTools(), policy=ToolPolicy.REQUIRED)

    assert [client.tool_choice(0), client.tool_choice(1)] == ["required", "auto"]


async def test_required_is_not_satisfied_by_a_rejected_call() -> None:
    client = ScriptedClient(calls(("add_task", {})), calls(("add_task", {"title": "milk"})), respond("ok"))

    await run(make_runner(client), FakeTools(), policy=ToolPolicy.REQUIRED, expected=["add_task"])

    assert [client.tool_choice(i) for i in range(3)] == ["required", "required", "auto"]


async def test_required_uses_the_presets_name_for_required() -> None:
    client = ScriptedClient(respond("ok"))

    await run(
        make_runner(client, preset=Preset(name="p", provider="x", required_choice="any")),
        FakeTools(),
        policy=ToolPolicy.REQUIRED,
    )

    assert client.tool_choice(0) == "any"


async def test_respond_call_beside_work_runs_the_work_then_ends() -> None:
    client = ScriptedClient(
        completion(
            tool_calls=[
                tool_call("add_task", {"title": "milk"}, call_id="a"),
                tool_call("respond", {"message": "Added."}, call_id="r"),
            ]
        )
    )
    tools = FakeTools()

    result = await run(make_runner(client), tools, policy=ToolPolicy.REQUIRED, expected=["add_task"])

    assert tools.ran_names == ["add_task"]
    assert result.text == "Added."


# -- forced_intent --------------------------------------------------------------------------------


async def test_forced_intent_forces_step_one_only() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "milk"})), completion("Added."))

    await run(make_runner(client), FakeTools(), policy=ToolPolicy.FORCED_INTENT, expected=["add_task"])

    assert client.tool_choice(0) == FORCE_ADD
    assert client.tool_choice(1) == "auto"
    assert client.tool_names(0) == ALL


async def test_forced_intent_without_an_intent_is_auto() -> None:
    client = ScriptedClient(completion("Hi."))

    await run(make_runner(client), FakeTools(), policy=ToolPolicy.FORCED_INTENT)

    assert client.tool_choice(0) == "auto"


async def test_forced_intent_translates_for_presets_without_forced_functions() -> None:
    preset = Preset(name="p", provider="x", required_choice="any", supports_forced_function=False)
    client = ScriptedClient(calls(("add_task", {"title": "milk"})), completion("Added."))

    await run(make_runner(client, preset=preset), FakeTools(), policy=ToolPolicy.FORCED_INTENT, expected=["add_task"])

    assert client.tool_choice(0) == "any"
    assert client.tool_choice(1) == "auto"


async def test_forced_intent_never_names_a_masked_tool() -> None:
    # Forcing a function that is not in `tools` is rejected by providers (HTTP 400).
    client = ScriptedClient(calls(("list_tasks", {})), completion("Here."))
    masked = MaskedTools(FakeTools(), allow={"list_tasks"})

    await run(make_runner(client), masked, policy=ToolPolicy.FORCED_INTENT, expected=["delete_task", "list_tasks"])

    assert client.tool_names(0) == ["list_tasks"]
    assert client.tool_choice(0) == {"type": "function", "function": {"name": "list_tasks"}}


async def test_forced_intent_falls_back_to_auto_when_every_expected_tool_is_masked() -> None:
    client = ScriptedClient(completion("I can't delete here."))
    masked = MaskedTools(FakeTools(), allow={"list_tasks"})

    await run(make_runner(client), masked, policy=ToolPolicy.FORCED_INTENT, expected=["delete_task"])

    assert client.tool_choice(0) == "auto"


def test_a_forced_tool_that_is_not_offered_becomes_required() -> None:
    driver = PolicyDriver(policy=ToolPolicy.GUARDED, specs=[LIST_TASKS], expected_tools=(), preset=Preset("p", "x"))

    plan = driver.plan(step=1, forcing=True)

    assert [t.name for t in plan.tools] == ["list_tasks"]
    assert driver.forced_choice("add_task") == "required"
    assert driver.forced_choice("list_tasks") == {"type": "function", "function": {"name": "list_tasks"}}


# -- two_phase ------------------------------------------------------------------------------------


async def test_two_phase_reads_then_writes() -> None:
    client = ScriptedClient(
        calls(("list_tasks", {})),
        calls(("delete_task", {"task_id": "milk"})),
        completion("Deleted milk."),
    )
    tools = FakeTools()

    result = await run(make_runner(client), tools, policy=ToolPolicy.TWO_PHASE, expected=["delete_task"])

    assert client.tool_names(0) == ["list_tasks"]
    assert client.tool_names(1) == ["add_task", "delete_task"]
    assert client.tool_names(2) == ["add_task", "delete_task"]
    assert [step_trace(result, i).request.phase for i in range(3)] == ["read", "write", "write"]
    assert result.policy_events == [PolicyChange(step=0, event="phase_switch", to="write", why="read tools ran")]
    assert tools.ran_names == ["list_tasks", "delete_task"]


async def test_two_phase_switches_when_the_read_phase_answers() -> None:
    client = ScriptedClient(
        completion("Let me add that."), calls(("add_task", {"title": "milk"})), completion("Added.")
    )
    tools = FakeTools()

    result = await run(make_runner(client), tools, policy=ToolPolicy.TWO_PHASE, expected=["add_task"])

    assert client.tool_names(0) == ["list_tasks"] and client.tool_names(1) == ["add_task", "delete_task"]
    assert result.policy_events == [PolicyChange(step=0, event="phase_switch", to="write", why="read phase answered")]
    assert step_trace(result, 0).retry == "phase_switch"
    assert (result.text, tools.ran_names) == ("Added.", ["add_task"])


def test_deciding_a_phase_switch_leaves_the_phase_to_the_runner() -> None:
    driver = PolicyDriver(
        policy=ToolPolicy.TWO_PHASE, specs=SPECS, expected_tools=["add_task"], preset=Preset("p", "x")
    )
    decider = StepDecider(options=RunOptions(), preset=Preset("p", "x"), driver=driver, guard=None)
    answer = LLMResponse(content="Let me add that.", tool_calls=[], finish_reason="stop", usage=Usage())

    decision = decider.decide(Answered(answer), SoFar(executed=[], events=[], step=0))

    assert isinstance(decision.next, NextStepRetry) and decision.next.reason is LoopRetry.PHASE_SWITCH
    assert (driver.phase, driver.events) == ("read", [])
    driver.switch_phase(step=0)
    assert driver.phase == "write" and not driver.wants_phase_switch()


async def test_two_phase_for_a_read_intent_stays_in_read() -> None:
    client = ScriptedClient(calls(("list_tasks", {})), completion("Here."))

    result = await run(make_runner(client), FakeTools(), policy=ToolPolicy.TWO_PHASE, expected=["list_tasks"])

    assert client.tool_names(1) == ["list_tasks"]
    assert result.policy_events == []


# -- presets that change the policy ---------------------------------------------------------------


async def test_preset_with_tools_disabled_sends_none() -> None:
    preset = select_preset(provider="openrouter", model="minimax/minimax-m2-her")
    client = ScriptedClient(completion("Chat."))

    await run(make_runner(client, preset=preset), FakeTools(), policy=ToolPolicy.REQUIRED)

    assert "tools" not in client.bodies[0]


def test_respond_tool_schema_requires_a_message() -> None:
    assert RESPOND_TOOL.to_openai()["function"]["parameters"]["required"] == ["message"]
    assert RESPOND_TOOL.read_only
