"""A chat turn whose message answers the question the previous turn asked (services/confirmations/questions.py).

The answer is read inside the turn's opening transaction and the pending question taken there, at
most once, so that two requests answering it cannot both run it; a yes (or a pick) then runs exactly
the stored calls, with no LLM call. services/confirmations/questions.py decides what to ask and how a message
answers it; this module is where that meets the turn: its transaction, its tools and its run.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.agent.loop_types import Finding, StopReason
from backend.app.calls.decisions import GuardEvent
from backend.app.calls.types import ExecutedCall, ToolCall
from backend.app.core.clock import Clock
from backend.app.core.exceptions import ConfirmationNotPending
from backend.app.db.models import as_utc
from backend.app.db.repositories.confirmations import ConfirmationRepository
from backend.app.services.confirmations.questions import Answer, answer
from backend.app.services.turn.context import TurnContext
from backend.app.tools.referents import TurnAccount
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
    calls = [ToolCall(f"confirm-{i}", a["name"], dict(a["arguments"])) for i, a in enumerate(turn.answer.actions)]
    outcome = await tools.execute_batch(calls)
    executed = tuple(
        ExecutedCall(call=c, arguments=args, result=result, step=0, duration_ms=0.0)
        for c, result, args in zip(calls, outcome.results, outcome.executed_arguments, strict=True)
    )
    if turn.on_calls is not None:
        await turn.on_calls(executed)
    return AnswerRun(executed, StopReason.COMPOSED)


def _uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ConfirmationNotPending("Unknown confirmation id; nothing was run.") from None
