"""In-memory fakes for the agent layer: a ToolExecutor and a scripted ChatCompletionsClient.

Imported by the tests in this folder as `agent.fakes` (the `tests` folder is on the path). The
executor knows three small tools (one mutating, one read-only, one destructive), validates
arguments against their schemas the way real tools do (a model-fixable INVALID_ARGUMENTS) and
records every call it actually ran, so a test can tell "refused before the tools" from "ran".
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from support.fake_llm import Item, Script
from support.payloads import unshaped

from backend.app.agent.limits import Budget, BudgetUse
from backend.app.agent.loop_types import Attempt, StepTrace, TextSink
from backend.app.agent.policy import ToolPolicy
from backend.app.agent.presets import Preset
from backend.app.agent.run_io import RunOptions, RunResult
from backend.app.agent.runner import AgentRunner
from backend.app.calls.codes import ResultCode
from backend.app.calls.facts import Hold
from backend.app.calls.payloads import TaskNamed
from backend.app.calls.types import BatchResult, StepInfo, ToolCall, ToolResult, ToolSpec

ADD_TASK = ToolSpec(
    name="add_task",
    description="Add a task.",
    parameters={
        "type": "object",
        "properties": {"title": {"type": "string"}, "priority": {"type": "string"}},
        "required": ["title"],
    },
)
LIST_TASKS = ToolSpec(
    name="list_tasks",
    description="List tasks.",
    parameters={"type": "object", "properties": {"status": {"type": "string"}}},
    read_only=True,
)
DELETE_TASK = ToolSpec(
    name="delete_task",
    description="Delete a task.",
    parameters={"type": "object", "properties": {"task_id": {"type": "string"}}, "required": ["task_id"]},
    destructive=True,
)
SPECS = (ADD_TASK, LIST_TASKS, DELETE_TASK)

Handler = Callable[[dict[str, Any]], ToolResult]
_TYPES: dict[str, type] = {"string": str, "integer": int, "object": dict, "array": list, "boolean": bool}


class FakeTools:
    """A ToolExecutor over in-memory handlers; `ran` lists (name, arguments) of every executed call.
    A call the table holds to be asked about (`Hold.ASK`) is only looked up, as TaskTools does: not in `ran`."""

    def __init__(self, specs: Iterable[ToolSpec] = SPECS, handlers: dict[str, Handler] | None = None) -> None:
        self._specs = list(specs)
        self.handlers = handlers or {}
        self.ran: list[tuple[str, dict[str, Any]]] = []
        self.batches: list[list[str]] = []

    def specs(self) -> Sequence[ToolSpec]:
        return self._specs

    async def execute_batch(self, calls: Sequence[ToolCall], *, step: StepInfo | None = None) -> BatchResult:
        self.batches.append([c.name for c in calls])
        results: list[ToolResult] = []
        for call in calls:
            arguments = dict(call.arguments or {})
            if call.grounding is not None and call.grounding.hold is Hold.ASK:
                looked_up: TaskNamed = {"id": str(arguments.get("task_id")), "title": str(arguments.get("task_id"))}
                results.append(ToolResult(success=False, code=ResultCode.NEEDS_CONFIRMATION, data=looked_up))
                continue
            self.ran.append((call.name, arguments))
            results.append(self._one(call.name, arguments))
        return BatchResult(results=results, executed_arguments=[dict(c.arguments or {}) for c in calls])

    def _one(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        spec = next((s for s in SPECS if s.name == name), None)
        if spec is not None and (problem := _validate(spec, arguments)) is not None:
            return ToolResult.fixable(ResultCode.INVALID_ARGUMENTS, problem)
        if name in self.handlers:
            return self.handlers[name](arguments)
        return ToolResult(success=True, data=unshaped({"tool": name, **arguments}))  # what ran, as the model sees it

    @property
    def ran_names(self) -> list[str]:
        return [name for name, _ in self.ran]


class MaskedTools:
    """A registry that exposes only `allow` of an inner executor (send and execution surface)."""

    def __init__(self, inner: FakeTools, allow: set[str]) -> None:
        self.inner = inner
        self.allow = allow

    def specs(self) -> Sequence[ToolSpec]:
        return [s for s in self.inner.specs() if s.name in self.allow]

    async def execute_batch(self, calls: Sequence[ToolCall], *, step: StepInfo | None = None) -> BatchResult:
        return await self.inner.execute_batch(calls, step=step)


def _validate(spec: ToolSpec, arguments: dict[str, Any]) -> str | None:
    props: dict[str, Any] = spec.parameters.get("properties", {})
    for key in spec.parameters.get("required", []):
        if key not in arguments:
            return f"'{key}' is required. Call {spec.name} again with it."
    for key, value in arguments.items():
        if key not in props:
            return f"Unknown argument '{key}'."
        wanted = _TYPES.get(props[key].get("type", ""))
        if wanted is not None and not isinstance(value, wanted):
            return f"'{key}' must be a {props[key]['type']}."
    return None


class ScriptedClient(Script):
    """The script as an in-process ChatCompletionsClient (the loop without HTTP); each request body
    is recorded as a deep copy (the loop keeps appending to its messages)."""

    label = "scripted"

    def __init__(
        self, *items: Item, default: Item | None = None, delay_s: float = 0.0, checker: Item | None = None
    ) -> None:
        # The loop's own tests script every request, the reply check's included (no checker aside).
        super().__init__(*items, default=default, delay_s=delay_s, checker=checker)
        self.deadlines: list[float] = []

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return self.requests

    async def create(
        self,
        body: dict[str, Any],
        *,
        deadline: float,
        on_text: TextSink | None = None,
        attempts: list[Attempt] | None = None,
    ) -> dict[str, Any]:
        del on_text  # answers come whole: the loop hands their text on itself
        self.deadlines.append(deadline)
        item = await self.answer(copy.deepcopy(body))
        assert isinstance(item, dict)
        return copy.deepcopy(item)


PRESET = Preset(name="test", provider="openai")
USER = [{"role": "system", "content": "You manage tasks."}, {"role": "user", "content": "add milk"}]


def make_runner(client: ScriptedClient, *, preset: Preset = PRESET, **options: Any) -> AgentRunner:
    return AgentRunner(client=client, model="test-model", preset=preset, options=RunOptions(**options))


def budget_use(**limits: Any) -> BudgetUse:
    defaults: dict[str, Any] = {"max_llm_calls": 50, "max_tool_calls": 50, "max_tokens": 1_000_000}
    return BudgetUse(Budget(**{**defaults, **limits}))


def step_trace(result: RunResult, index: int) -> StepTrace:
    """The run's trace event at `index`, which must be a request's (not a reply check's)."""
    event = result.trace[index]
    assert isinstance(event, StepTrace), event
    return event


async def run(
    runner: AgentRunner,
    tools: Any,
    *,
    use: BudgetUse | None = None,
    expected: Sequence[str] = (),
    **kwargs: Any,
) -> RunResult:
    kwargs.setdefault("policy", ToolPolicy.AUTO)
    return await runner.run(
        messages=list(USER), executor=tools, expected_tools=expected, use=use or budget_use(), **kwargs
    )


def assert_every_call_answered(body: dict[str, Any]) -> None:
    """OpenAI rejects a request where an assistant tool call has no matching tool message."""
    asked = [c["id"] for m in body["messages"] if m.get("tool_calls") for c in m["tool_calls"]]
    answered = [m["tool_call_id"] for m in body["messages"] if m["role"] == "tool"]
    assert sorted(asked) == sorted(answered)
