"""A competent, compliant scripted model: what the outside checks use against the guard.

It answers each message correctly (the `answer` it is given: a text, or tool calls, one list per
step), and when a tool is forced on it, it complies, passing a reference taken from the user's own
words (the title of a task the message mentions, as a real model would), however wrong the forcing
is. So a test with it fails exactly when the product forces an action nobody asked for.

With `ghost` its first reply is that text (a claim, no tool call); asked again it does its `answer`.
After tool results it answers `after_tools` (default "Done!"). Under `tool_choice: "required"` with
a `respond` tool offered (the guard's way out) it takes the way out when `takes_way_out` is true,
else does its `answer`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import TypeIs

from support.fake_llm import ScriptedLLM, completion, tool_call

Call = tuple[str, dict[str, Any]]
Answer = str | list[Call] | list[list[Call]]


def _several_steps(answer: list[Call] | list[list[Call]]) -> TypeIs[list[list[Call]]]:
    return bool(answer) and isinstance(answer[0], list)


def _user_text(body: dict[str, Any]) -> str:
    text: str = next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")
    return text


def _acted_on(body: dict[str, Any]) -> str:
    """The arguments of this turn's earlier tool calls, casefolded."""
    last_user = max(i for i, m in enumerate(body["messages"]) if m["role"] == "user")
    return " ".join(
        c["function"]["arguments"].casefold() for m in body["messages"][last_user:] for c in m.get("tool_calls") or []
    )


def _forced(body: dict[str, Any]) -> str | None:
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        return str(choice["function"]["name"])
    return None


@dataclass
class CompliantModel:
    """`answer` for the message: text, one step of calls, or several steps (one list per step)."""

    answer: Answer
    titles: Sequence[str] = ()  # the user's tasks, so forced references come from the message's words
    after_tools: str = "Done!"
    takes_way_out: bool = True
    ghost: str | None = None
    forced_calls: list[str] = field(default_factory=list)  # every tool forced on it, in order
    _steps: list[list[Call]] = field(default_factory=list)
    _started: bool = False

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        if not self._started:
            self._started = True
            if isinstance(self.answer, list):
                steps = self.answer if _several_steps(self.answer) else [self.answer]
                self._steps = [list(s) for s in steps]
        forced = _forced(body)
        if forced is not None:
            self.forced_calls.append(forced)
            arguments = self._arguments(forced, _user_text(body), _acted_on(body))
            return completion(tool_calls=[tool_call(forced, arguments)])
        offered = {t["function"]["name"] for t in body.get("tools", [])}
        if body.get("tool_choice") == "required" and "respond" in offered:
            if self.takes_way_out or not self._steps:
                return completion(tool_calls=[tool_call("respond", {"message": "Nothing was changed."})])
            return self._next_step()
        if self.ghost is not None:
            ghost, self.ghost = self.ghost, None
            return completion(ghost)
        if self._steps:
            return self._next_step()
        if body["messages"][-1]["role"] == "tool" or any(m["role"] == "tool" for m in body["messages"][-3:]):
            return completion(self.after_tools)
        return completion(self.answer if isinstance(self.answer, str) else self.after_tools)

    def _next_step(self) -> dict[str, Any]:
        step = self._steps.pop(0)
        return completion(tool_calls=[tool_call(n, a, call_id=f"c{i}_{n}") for i, (n, a) in enumerate(step)])

    def _arguments(self, tool: str, text: str, acted_on: str) -> dict[str, Any]:
        """What a real model passes when forced: a task the message mentions (one this turn has not
        acted on yet), else the message's words."""
        mentioned = [t for t in self.titles if re.search(rf"\b{re.escape(t.casefold())}\b", text.casefold())]
        mentioned = [t for t in mentioned if t.casefold() not in acted_on] or mentioned
        if tool == "list_tasks":
            return {"status": "all"}
        if tool == "add_task":
            return {"title": text.strip(" ?!.")[:120]}
        reference = mentioned[0] if mentioned else text.strip(" ?!.")
        if tool == "update_task":
            return {"task_id": reference, "priority": "high"}
        return {"task_id": reference}


def calls_on(tool: str, *titles: str) -> list[Call]:
    """One call of `tool` on each title: a step of the model's."""
    return [(tool, {"task_id": t}) for t in titles]


def compliant(answer: Answer, titles: Sequence[str] = (), **kwargs: Any) -> tuple[ScriptedLLM, CompliantModel]:
    model = CompliantModel(answer, titles, **kwargs)
    return ScriptedLLM(default=model), model
