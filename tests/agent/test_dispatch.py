"""Per-call checks before the tools run (dispatch.py), through the runner and on the Dispatcher itself.

Each test reads three things: what the executor ran, what the model was sent back, and the RunResult.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from agent.fakes import (
    FakeTools,
    MaskedTools,
    ScriptedClient,
    assert_every_call_answered,
    budget_use,
    make_runner,
    run,
    step_trace,
)
from support.fake_llm import calls, completion, tool_call
from support.payloads import output_size, unshaped

from backend.app.agent.dispatch import Dispatcher
from backend.app.agent.presets import Preset
from backend.app.agent.run_io import RunResult
from backend.app.calls.codes import ResultCode
from backend.app.calls.types import BatchResult, StepInfo, ToolCall, ToolError, ToolResult

# -- unknown tools and masking --------------------------------------------------------------------


async def test_unknown_tool_lists_valid_names_and_the_model_fixes_it() -> None:
    client = ScriptedClient(
        calls(("add_tasks", {"title": "milk"})),
        calls(("add_task", {"title": "milk"})),
        completion("Added milk."),
    )
    tools = FakeTools()

    result = await run(make_runner(client), tools)

    assert tools.ran == [("add_task", {"title": "milk"})]
    (sent,) = client.tool_messages(1)
    assert sent["content"]["code"] == ResultCode.UNKNOWN_TOOL
    assert "Valid tools: add_task, delete_task, list_tasks" in sent["content"]["error"]
    assert sent["content"]["data"] == {"valid_tools": ["add_task", "delete_task", "list_tasks"]}
    first, second = result.executed
    assert (first.ran, first.result.model_fixable, second.ran, second.result.success) == (False, True, True, True)
    assert (result.stop_reason, result.ok, result.text) == ("final", True, "Added milk.")
    assert step_trace(result, 0).errors == (ResultCode.UNKNOWN_TOOL,)


async def test_masked_tool_is_neither_offered_nor_run() -> None:
    inner = FakeTools()
    client = ScriptedClient(calls(("delete_task", {"task_id": "milk"})), completion("I can't delete here."))

    result = await run(make_runner(client), MaskedTools(inner, allow={"list_tasks", "add_task"}))

    assert client.tool_names(0) == ["add_task", "list_tasks"]
    assert inner.ran == []
    (sent,) = client.tool_messages(1)
    assert sent["content"]["code"] == ResultCode.UNKNOWN_TOOL
    assert "delete_task" not in sent["content"]["data"]["valid_tools"]
    assert result.executed[0].ran is False


# -- invalid arguments and the fix-retry counter --------------------------------------------------


async def test_invalid_arguments_go_back_and_the_model_retries() -> None:
    client = ScriptedClient(
        calls(("add_task", {"priority": "high"})),
        calls(("add_task", {"title": "milk", "priority": "high"})),
        completion("Added."),
    )
    tools = FakeTools()

    result = await run(make_runner(client), tools)

    (sent,) = client.tool_messages(1)
    assert sent["content"]["code"] == ResultCode.INVALID_ARGUMENTS
    assert "'title' is required" in sent["content"]["error"]
    assert [e.result.success for e in result.executed] == [False, True]
    assert (result.stop_reason, result.ok) == ("final", True)


async def test_model_that_keeps_sending_broken_json_is_stopped() -> None:
    broken = [completion(tool_calls=[tool_call("add_task", '{"title": "mi' + "l" * i, raw=True)]) for i in range(5)]
    client = ScriptedClient(*broken)
    tools = FakeTools()

    result = await run(make_runner(client, max_model_fix_retries=2), tools)

    assert tools.ran == []
    assert len(client.bodies) == 3  # the first failure plus two retries
    assert all(e.result.code == ResultCode.ARGUMENTS_JSON_PARSE_ERROR for e in result.executed)
    assert client.tool_messages(1)[0]["content"]["code"] == ResultCode.ARGUMENTS_JSON_PARSE_ERROR
    assert (result.stop_reason, result.ok, result.error_code) == (
        "model_fix_retries_exhausted",
        False,
        "MODEL_FIX_RETRIES_EXHAUSTED",
    )
    assert result.text == ""  # the reply (tests/services) is written from the results


async def test_arguments_too_large_are_not_run_and_the_model_shortens_them() -> None:
    client = ScriptedClient(
        calls(("add_task", {"title": "x" * 500})),
        calls(("add_task", {"title": "short"})),
        completion("Added."),
    )
    tools = FakeTools()

    result = await run(make_runner(client, max_tool_args_bytes=100), tools)

    assert tools.ran == [("add_task", {"title": "short"})]
    assert client.tool_messages(1)[0]["content"]["code"] == ResultCode.ARGUMENTS_TOO_LARGE
    assert result.stop_reason == "final"


# -- how many calls run per step ------------------------------------------------------------------


def ignored(result: RunResult) -> int:
    return sum(1 for e in result.executed if e.result.code == "IGNORED")


async def test_calls_over_the_per_step_limit_are_ignored_and_answered() -> None:
    client = ScriptedClient(
        calls(("add_task", {"title": "a"}), ("add_task", {"title": "b"}), ("list_tasks", {})),
        completion("Added a."),
    )
    tools = FakeTools()

    result = await run(make_runner(client, max_tool_calls_per_step=1), tools)

    assert tools.ran == [("add_task", {"title": "a"})]
    assert ignored(result) == 2
    assert step_trace(result, 0).ignored_tool_calls == 2
    # Ignored calls are recorded (never run), so the reply can say they were not done.
    assert [(e.call.name, e.ran) for e in result.executed] == [
        ("add_task", True),
        ("add_task", False),
        ("list_tasks", False),
    ]
    sent = client.tool_messages(1)
    assert [m["content"].get("code") for m in sent] == [None, "IGNORED", "IGNORED"]
    assert "at most 1 tool calls" in sent[1]["content"]["error"]
    assert_every_call_answered(client.bodies[1])


async def test_parallel_tool_calls_false_defaults_to_one_call_per_step() -> None:
    client = ScriptedClient(calls(("add_task", {"title": "a"}), ("add_task", {"title": "b"})), completion("ok"))
    tools = FakeTools()

    result = await run(make_runner(client, request_overrides={"parallel_tool_calls": False}), tools)

    assert client.bodies[0]["parallel_tool_calls"] is False
    assert tools.ran_names == ["add_task"]
    assert ignored(result) == 1


async def test_preset_parallel_tool_calls_false_also_limits() -> None:
    preset = Preset(name="p", provider="openai", request_overrides={"parallel_tool_calls": False})
    client = ScriptedClient(calls(("list_tasks", {}), ("list_tasks", {"status": "done"})), completion("ok"))
    tools = FakeTools()

    result = await run(make_runner(client, preset=preset), tools)

    assert tools.ran == [("list_tasks", {})]
    assert ignored(result) == 1


async def test_explicit_limit_wins_over_parallel_tool_calls_false() -> None:
    client = ScriptedClient(calls(*[("add_task", {"title": t}) for t in "abc"]), completion("ok"))
    tools = FakeTools()

    result = await run(
        make_runner(client, max_tool_calls_per_step=2, request_overrides={"parallel_tool_calls": False}), tools
    )

    assert tools.ran_names == ["add_task", "add_task"]
    assert ignored(result) == 1


async def test_without_a_limit_all_calls_run_in_one_batch() -> None:
    client = ScriptedClient(calls(*[("add_task", {"title": t}) for t in "abc"]), completion("ok"))
    tools = FakeTools()

    result = await run(make_runner(client), tools)

    assert tools.batches == [["add_task", "add_task", "add_task"]]
    assert ignored(result) == 0


# -- output size ----------------------------------------------------------------------------------


async def test_oversized_tool_output_is_replaced() -> None:
    tools = FakeTools(handlers={"list_tasks": lambda _: ToolResult(success=True, data=unshaped({"blob": "x" * 5_000}))})
    client = ScriptedClient(calls(("list_tasks", {})), completion("Too many tasks to show."))

    result = await run(make_runner(client, max_tool_output_bytes=500), tools)

    assert tools.ran_names == ["list_tasks"]  # it ran; only its output was dropped
    (executed,) = result.executed
    assert executed.result.code == ResultCode.TOOL_OUTPUT_TOO_LARGE
    size = output_size(executed.result)
    assert size["limit"] == 500 and size["bytes"] > 5_000
    (sent,) = client.tool_messages(1)
    assert sent["content"]["code"] == ResultCode.TOOL_OUTPUT_TOO_LARGE
    assert "xxxx" not in str(sent["content"])


async def test_tool_data_that_is_not_json_native_is_sent_as_text() -> None:
    tools = FakeTools(
        handlers={"list_tasks": lambda _: ToolResult(success=True, data=unshaped({"cost": Decimal("1.50")}))}
    )
    client = ScriptedClient(calls(("list_tasks", {})), completion("ok"))

    result = await run(make_runner(client), tools)

    assert result.executed[0].result.success
    assert client.tool_messages(1)[0]["content"]["data"] == {"cost": "1.50"}


# -- repeats, destructive cap, tool-call budget ---------------------------------------------------


async def test_a_model_calling_list_tasks_forever_is_stopped() -> None:
    client = ScriptedClient(default=calls(("list_tasks", {"status": "all"})))
    tools = FakeTools()

    result = await run(make_runner(client, max_steps=10), tools)

    assert tools.ran == [("list_tasks", {"status": "all"})]
    assert len(client.bodies) == 2
    assert result.stop_reason == "repeated_call" and result.ok is False
    (finding,) = result.findings
    assert finding.to_dict() == {
        "kind": "RepeatedCall",
        "tool": "list_tasks",
        "arguments": {"status": "all"},
        "step": 1,
    }
    assert result.executed[1].result.code == ResultCode.REPEATED_CALL and result.executed[1].ran is False


async def test_repeat_ignores_argument_key_order() -> None:
    client = ScriptedClient(
        completion(tool_calls=[tool_call("add_task", '{"title": "a", "priority": "low"}', raw=True)]),
        completion(tool_calls=[tool_call("add_task", '{"priority": "low", "title": "a"}', raw=True)]),
    )
    tools = FakeTools()

    result = await run(make_runner(client), tools)

    assert len(tools.ran) == 1
    assert result.stop_reason == "repeated_call"


async def test_destructive_cap_refuses_the_rest() -> None:
    client = ScriptedClient(
        calls(("delete_task", {"task_id": "a"}), ("delete_task", {"task_id": "b"}), ("add_task", {"title": "c"})),
        completion("Deleted a; confirm b."),
    )
    tools = FakeTools()

    result = await run(make_runner(client, max_destructive_calls=1), tools)

    assert tools.ran == [("delete_task", {"task_id": "a"}), ("add_task", {"title": "c"})]
    codes = [e.result.code for e in result.executed]
    assert codes == [None, ResultCode.DESTRUCTIVE_LIMIT, None]
    assert result.executed[1].ran is False
    assert "more than 1 destructive" in client.tool_messages(1)[1]["content"]["error"]
    assert result.stop_reason == "final"


async def test_destructive_cap_counts_across_steps() -> None:
    client = ScriptedClient(
        calls(("delete_task", {"task_id": "a"})),
        calls(("delete_task", {"task_id": "b"})),
        completion("Deleted a."),
    )
    tools = FakeTools()

    result = await run(make_runner(client, max_destructive_calls=1), tools)

    assert tools.ran == [("delete_task", {"task_id": "a"})]
    assert result.executed[1].result.code == ResultCode.DESTRUCTIVE_LIMIT


async def test_tool_call_budget_stops_the_step() -> None:
    client = ScriptedClient(calls(*[("add_task", {"title": t}) for t in "abcd"]))
    tools = FakeTools()

    result = await run(make_runner(client), tools, use=budget_use(max_tool_calls=2))

    assert tools.ran_names == ["add_task", "add_task"]
    assert [e.result.code for e in result.executed] == [
        None,
        None,
        ResultCode.BUDGET_EXCEEDED,
        ResultCode.BUDGET_EXCEEDED,
    ]
    assert result.use.tool_calls == 2
    assert result.stop_reason == "budget_exceeded" and result.ok is False
    assert result.findings[0].to_dict() == {"kind": "BudgetExceeded", "budget": "tool_calls", "used": 2, "limit": 2}
    assert len(client.bodies) == 1


# -- the Dispatcher on its own --------------------------------------------------------------------


def _dispatcher(tools: FakeTools, **kwargs: Any) -> Dispatcher:
    defaults: dict[str, Any] = {"max_output_bytes": 10_000, "max_destructive_calls": 5}
    return Dispatcher(
        executor=tools,
        executable={s.name: s for s in tools.specs()},
        use=budget_use(),
        **{**defaults, **kwargs},
    )


async def test_dispatcher_keeps_call_order_with_refusals_in_between() -> None:
    tools = FakeTools()
    dispatcher = _dispatcher(tools)
    batch = [
        ToolCall(id="1", name="list_tasks", arguments={}),
        ToolCall(id="2", name="nope", arguments={}),
        ToolCall(id="3", name="add_task", arguments=None, error=ToolError(ResultCode.ARGUMENTS_TOO_LARGE, "too big")),
        ToolCall(id="4", name="add_task", arguments={"title": "t"}),
    ]

    outcome = await dispatcher.run_step(batch, step=3, retried=True, retry_reason="guard")

    assert tools.batches == [["list_tasks", "add_task"]]  # one batch, refusals never reach it
    assert [e.call.id for e in outcome.executed] == ["1", "2", "3", "4"]
    assert [e.ran for e in outcome.executed] == [True, False, False, True]
    assert [e.result.code for e in outcome.executed] == [
        None,
        ResultCode.UNKNOWN_TOOL,
        ResultCode.ARGUMENTS_TOO_LARGE,
        None,
    ]
    assert all(e.step == 3 and e.retried and e.retry_reason == "guard" for e in outcome.executed)
    assert dispatcher.use.tool_calls == 2


async def test_dispatcher_without_runnable_calls_does_not_call_the_executor() -> None:
    tools = FakeTools()

    outcome = await _dispatcher(tools).run_step(
        [ToolCall(id="1", name="ghost", arguments={})], step=0, retried=False, retry_reason=None
    )

    assert tools.batches == []
    assert outcome.executed[0].result.code == ResultCode.UNKNOWN_TOOL


async def test_dispatcher_records_the_executors_arguments() -> None:
    class Coercing(FakeTools):
        async def execute_batch(self, calls: Sequence[ToolCall], *, step: StepInfo | None = None) -> BatchResult:
            outcome = await super().execute_batch(calls, step=step)
            return BatchResult(outcome.results, [{**a, "priority": "medium"} for a in outcome.executed_arguments])

    outcome = await _dispatcher(Coercing()).run_step(
        [ToolCall(id="1", name="add_task", arguments={"title": "t"})], step=0, retried=False, retry_reason=None
    )

    assert outcome.executed[0].arguments == {"title": "t", "priority": "medium"}
