"""A chat turn whose message answers the question the previous turn asked (services/confirmations/questions.py).

The answer is read inside the turn's opening transaction and the pending question taken there, at
most once, so that two requests answering it cannot both run it; a yes (or a pick) then runs exactly
the stored calls, with no LLM call. services/confirmations/questions.py decides what to ask and how a message
answers it; this module is where that meets the turn: its transaction, its tools and its run.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.agent.loop_types import Finding, StopReason
from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import GuardEvent
from backend.app.calls.payloads import AskedAction
from backend.app.calls.types import ExecutedCall, ToolCall, ToolResult
from backend.app.core.clock import Clock
from backend.app.core.exceptions import ConfirmationNotPending
from backend.app.db.models import as_utc
from backend.app.db.repositories.confirmations import ConfirmationRepository
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.db.session import unit_of_work
from backend.app.language.lexicon import fold
from backend.app.services.confirmations.questions import Answer, answer, asked_title
from backend.app.services.turn.context import TurnContext
from backend.app.tools.account import TurnAccount
from backend.app.tools.task_tools import TaskTools


def asked(turn: TurnContext) -> str | None:
    """The question this message may answer: the one it confirms, else the one the previous turn
    asked (its context names it), if any."""
    previous = next((r.context for r in reversed(turn.history) if r.role == "assistant"), None)
    return turn.request.confirm or TurnAccount.from_json(previous).confirmation


async def pending_answer(session: AsyncSession, turn: TurnContext, *, clock: Clock) -> Answer | None:
    """The message read as the answer to the question it may answer (`asked`), if there is one:
    only then is the table read."""
    wanted = asked(turn)
    if wanted is None:
        return None
    confirmations = ConfirmationRepository(session, turn.user_id)
    pending = await confirmations.get(_uuid(wanted), conversation_id=turn.conversation_id)
    now = clock.now()
    open_ = pending is not None and pending.state == "pending" and as_utc(pending.expires_at) > now
    if turn.request.confirm is not None and not open_:
        raise ConfirmationNotPending("That confirmation has expired or was already answered; nothing was run.")
    if pending is None or not open_:
        return None
    said = answer(pending, turn.request.message, confirm=turn.request.confirm, today=clock.today())
    if said.verdict != "run" or not await confirmations.take(pending.id, now=now):
        await confirmations.close(turn.conversation_id, state="cancelled")
        if said.verdict == "run":  # another request answered it first: this one is new
            return Answer("new")
    return said


@dataclass(frozen=True, slots=True)
class AnswerRun:
    """The work of an answer to the pending question (`run_answer`): the stored calls a yes (or a pick)
    ran, none after a no, and how it ended (`COMPOSED`: the reply is composed from their results;
    `FINAL`: nothing was run). What the reply reads of a run (agent/run_io.py `RunRecord`) holds for
    it as plain facts: no model was asked, so there are no words and nothing stopped it early; no
    guard decided, so there are no guard events and no findings of its."""

    executed: tuple[ExecutedCall, ...]
    stop_reason: StopReason

    @property
    def stop_detail(self) -> None:
        return None

    @property
    def guard_events(self) -> tuple[GuardEvent, ...]:
        return ()

    @property
    def words(self) -> None:
        return None

    @property
    def findings(self) -> tuple[Finding, ...]:
        return ()


async def run_answer(turn: TurnContext, tools: TaskTools) -> AnswerRun:
    """The answer to the pending question: a yes (or a pick) runs exactly its stored calls; a no runs
    nothing. No model is asked and no guard decides."""
    assert turn.answer is not None
    if turn.answer.verdict != "run":
        return AnswerRun((), StopReason.FINAL)
    actions = turn.answer.actions
    calls = [ToolCall(f"confirm-{i}", a["name"], dict(a["arguments"])) for i, a in enumerate(actions)]
    renamed = await _renamed(tools, actions)  # their results say so; the others run
    runs = [c for i, c in enumerate(calls) if i not in renamed]
    outcome = await tools.execute_batch(runs) if runs else None
    ran = iter(zip(outcome.results, outcome.executed_arguments, strict=True) if outcome is not None else ())
    executed: list[ExecutedCall] = []
    for i, call in enumerate(calls):
        result, arguments = (_changed_since(actions[i]), dict(actions[i]["arguments"])) if i in renamed else next(ran)
        executed.append(ExecutedCall(call=call, arguments=arguments, result=result, step=0, duration_ms=0.0))
    if turn.on_calls is not None:
        await turn.on_calls(tuple(executed))
    return AnswerRun(tuple(executed), StopReason.COMPOSED)


async def _renamed(tools: TaskTools, actions: Sequence[AskedAction]) -> set[int]:
    """The stored calls whose task no longer has the title it was asked about with (renamed since, in
    this conversation or elsewhere): the yes was given to that title, so they do not run."""
    ids = {i: task_id for i, a in enumerate(actions) if (task_id := _task_uuid(a)) is not None}
    if not ids:
        return set()
    async with unit_of_work(tools.sessionmaker) as session:
        found = await TaskRepository(session, tools.user_id).by_ids(list(ids.values()))
    return {
        i
        for i, task_id in ids.items()
        if task_id in found and _same(found[task_id].title) != _same(asked_title(actions[i]))
    }


def _same(title: str) -> str:
    """A title as compared with the one asked about: folded, its spaces collapsed."""
    return " ".join(fold(title).split())


def _task_uuid(action: AskedAction) -> uuid.UUID | None:
    """The task an asked call was resolved to, where it was asked with that task's title."""
    task_id = str(action["arguments"].get("task_id") or "")
    try:
        found = uuid.UUID(task_id)
    except ValueError:
        return None
    return found if asked_title(action) not in ("", task_id) else None


def _changed_since(action: AskedAction) -> ToolResult:
    title = asked_title(action)
    return ToolResult(
        success=False,
        data={"id": str(action["arguments"]["task_id"]), "title": title},
        code=ResultCode.RENAMED,
        error=f"'{title}' was renamed after the question was asked; nothing was done.",
    )


def _uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ConfirmationNotPending("Unknown confirmation id; nothing was run.") from None
