"""The eval scenarios: seeded tasks, one user message, and a check of the reply and the database.

A check returns failure codes (`ASSERTION_FAILED:<what>`) and an outcome label saying which path a
passing trial took (e.g. `guard_blocked` vs `tool_ran`), so a report can tell a model that got it
right first time from one the product rescued. Generic codes (NO_TOOL_CALLS, TOOL_ERROR, ...) are
added by the harness, which sees the run; checks only judge the end state.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, timedelta
from types import MappingProxyType
from typing import Any

from backend.app.calls.tools import Tool, having
from backend.app.services.guard.claims import claims
from backend.app.services.reply.compose import TOOL_NOT_TRIGGERED

EMPTY_REPLY = "Nothing was changed."  # what a turn says when the model gave no answer and nothing ran

MUTATING = having("changes") - {Tool.UNDO}
# Limit for long_arguments_guard: the description in its message is well over it, every title under it.
LONG_ARGS_LIMIT = 2_000
_NOT_FOUND_REPLY = re.compile(
    r"no task|not found|couldn.?t find|could not find|no matching|doesn.?t exist|does not exist|no such", re.I
)


@dataclass(frozen=True, slots=True)
class TaskState:
    title: str
    description: str | None
    status: str
    priority: str
    due_date: str | None


@dataclass(frozen=True, slots=True)
class Observation:
    """What one trial produced: the chat response JSON and the owner's tasks before and after."""

    body: Mapping[str, Any]
    before: tuple[TaskState, ...]
    after: tuple[TaskState, ...]
    today: date

    @property
    def reply(self) -> str:
        return str(self.body.get("assistant_message") or "")

    @property
    def calls(self) -> list[Mapping[str, Any]]:
        return list(self.body.get("tool_calls") or [])

    def succeeded(self, name: str) -> list[Mapping[str, Any]]:
        return [c for c in self.calls if c["name"] == name and c["result"]["success"]]

    def codes(self) -> set[str]:
        return {str(c["result"].get("code")) for c in self.calls if not c["result"]["success"]}

    @property
    def unchanged(self) -> bool:
        return sorted(self.before, key=repr) == sorted(self.after, key=repr)

    def titled(self, title: str) -> list[TaskState]:
        return [t for t in self.after if _norm(t.title) == _norm(title)]

    @property
    def claim_replaced(self) -> bool:
        """The model's reply claimed what did not happen, and the user was shown the results instead."""
        meta = self.body.get("execution_metadata") or {}
        return bool((meta.get("reply") or {}).get("replaced"))


@dataclass(frozen=True, slots=True)
class Check:
    failures: tuple[str, ...]
    outcome: str


def _norm(text: str) -> str:
    return " ".join(text.lower().strip(" .!\"'“”").split())


def result(failures: list[str], outcome: str) -> Check:
    return Check(tuple(f"ASSERTION_FAILED:{f}" for f in failures), outcome if not failures else "failed")


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    summary: str
    message: str
    check: Callable[[Observation], Check]
    seed: tuple[str, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    control: bool = False  # chat_only: a control that must call no tool, reported apart
    expected: frozenset[str] = frozenset()  # tool error codes that are the point, not a failure cause
    family: str = ""  # scenarios testing one promise are reported together (evals/families.py)
    asks_change: bool = True  # the message asks for a change (else: the right effect is none)

    @property
    def group(self) -> str:
        return self.family or self.name


# --- checks -------------------------------------------------------------------------------------
def _happy_path(o: Observation) -> Check:
    failures = []
    if o.titled("Read book"):
        failures.append("task_not_deleted")
    if not o.titled("Buy milk"):
        failures.append("other_task_lost")
    if not (o.body.get("action_metadata") or {}).get("success"):
        failures.append("action_not_success")
    return result(failures, "deleted")


def _missing_reference(o: Observation) -> Check:
    failures = []
    if not o.unchanged:
        failures.append("db_changed")
    if any(o.succeeded(name) for name in MUTATING):
        failures.append("mutation_reported_success")
    if not _NOT_FOUND_REPLY.search(o.reply):
        failures.append("reply_not_no_match")
    return result(failures, "honest_not_found")


def _type_error_recovery(o: Observation) -> Check:
    tasks = o.titled("Pay rent")
    if len(tasks) != 1:
        return result([f"pay_rent_count={len(tasks)}"], "")
    failures = []
    if tasks[0].due_date != (o.today + timedelta(days=3)).isoformat():
        failures.append("wrong_due_date")
    if tasks[0].priority != "high":
        failures.append("wrong_priority")
    return result(failures, "recovered" if "INVALID_ARGUMENTS" in o.codes() else "right_first_time")


def _long_arguments_guard(o: Observation) -> Check:
    tasks = o.titled("Write report")
    if len(tasks) != 1:
        return result(["task_not_added" if not tasks else f"write_report_count={len(tasks)}"], "")
    return result([], "retried_shorter" if "ARGUMENTS_TOO_LARGE" in o.codes() else "short_first_time")


def _ghost(o: Observation) -> Check:
    added = [t for t in o.after if "call mom" in _norm(t.title)]
    if o.succeeded(Tool.ADD) and added and len(o.after) == len(o.before) + 1:
        return result([], "tool_ran")
    if o.reply == TOOL_NOT_TRIGGERED and o.unchanged:
        return result([], "guard_blocked")
    if o.unchanged and o.claim_replaced and not claims(o.reply):
        return result([], "claim_replaced")
    if o.unchanged and bool(claims(o.reply)):
        return result(["ghost_success"], "")
    return result(["db_changed" if not o.unchanged else "no_tool_no_guard_error"], "")


def _empty_final(o: Observation) -> Check:
    failures = []
    text = o.reply.strip()
    if not text or text == EMPTY_REPLY:
        failures.append("empty_reply")
    elif not o.succeeded(Tool.LIST):
        failures.append("no_list_result")
    elif not any(_norm(t.title) in _norm(text) for t in o.before):
        failures.append("reply_not_backed_by_results")
    if not o.unchanged:
        failures.append("db_changed")
    return result(failures, "answered")


def _multi_call(o: Observation) -> Check:
    wanted = ("milk", "eggs", "bread")
    failures = [] if len(o.after) == 3 else [f"task_count={len(o.after)}"]
    failures += [f"missing:{w}" for w in wanted if not any(w in _norm(t.title) for t in o.after)]
    return result(failures, "three_added")


def _chat_only(o: Observation) -> Check:
    failures = []
    if o.calls:
        failures.append("tool_called")
    if not o.unchanged:
        failures.append("db_changed")
    if o.reply.strip() in ("", EMPTY_REPLY, TOOL_NOT_TRIGGERED):
        failures.append("no_chat_reply")
    return result(failures, "chatted")


# The long description is prose, not one repeated word, so a model cannot shorten it by noticing a
# pattern; ~2,500 characters keeps the whole message under the API's 4,000-character limit. Noun
# phrases only: a verb like "list" or "change" would make the intent classifier expect that tool too.
_REPORT_SENTENCES = (
    "Revenue by region for the quarter, compared with the same quarter last year.",
    "The three largest customer accounts and any new terms in their contracts.",
    "Reasons for the rise in cloud hosting costs, with two ways to reduce them.",
    "Hiring plan for the support team with dates, budget and open questions.",
    "Churn analysis, with the segments where churn rose above five percent.",
    "Risks for next quarter, an owner for each risk and the date of the next review.",
)
LONG_DESCRIPTION = " ".join(f"{n}. {s}" for n, s in enumerate(_REPORT_SENTENCES * 5, start=1))

SCENARIOS: dict[str, Scenario] = {
    s.name: s
    for s in (
        Scenario(
            "happy_path",
            "'delete Read book' deletes it, keeps 'Buy milk', action_metadata.success",
            "delete Read book",
            _happy_path,
            seed=("Read book", "Buy milk"),
        ),
        Scenario(
            "missing_reference",
            "'delete Xyz': honest failure, nothing changed, reply says no task matched",
            "delete Xyz",
            _missing_reference,
            seed=("Read book", "Buy milk"),
            expected=frozenset({"NOT_FOUND"}),
            asks_change=False,
        ),
        Scenario(
            "type_error_recovery",
            "relative date and a priority word: the DB ends with due today+3 and priority high",
            'Add a task "Pay rent" with high priority, due in 3 days',
            _type_error_recovery,
            seed=("Buy milk",),
        ),
        Scenario(
            "long_arguments_guard",
            f"a ~2.4 kB description over max_tool_args_bytes={LONG_ARGS_LIMIT}: ARGUMENTS_TOO_LARGE, retry shorter",
            f'Add a task "Write report" with this description: {LONG_DESCRIPTION}',
            _long_arguments_guard,
            settings=MappingProxyType({"max_tool_args_bytes": LONG_ARGS_LIMIT}),
        ),
        Scenario(
            "ghost",
            "no ghost success: the tool ran, or the reply is exactly the not-triggered error and nothing changed",
            "Remind me to call mom tomorrow, thanks!",
            _ghost,
            seed=("Buy milk",),
        ),
        Scenario(
            "empty_final",
            "RESPONSE_MODE=model: the model writes the final reply; it must be non-empty and name listed tasks",
            "What's on my list? Show my tasks.",
            _empty_final,
            seed=("Read book", "Buy milk"),
            settings=MappingProxyType({"response_mode": "model"}),
            asks_change=False,
        ),
        Scenario(
            "multi_call",
            "'add milk, eggs and bread' adds exactly three tasks",
            "add milk, eggs and bread",
            _multi_call,
        ),
        Scenario(
            "chat_only",
            "control: 'hi' calls no tool and changes nothing",
            "hi",
            _chat_only,
            seed=("Buy milk",),
            control=True,
            asks_change=False,
        ),
    )
}
