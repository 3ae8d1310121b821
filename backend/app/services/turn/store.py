"""What a chat turn writes, in the short transactions around its tool loop (services/turn/pipeline.py).

Before the loop: the idempotency claim (or the stored response of a replay), the rate limit, the
conversation, the answer to its pending question if the message is one, and the user's message.
After it: the question asked, the assistant's message with its calls and metadata, the routing
outcomes and the idempotency key's response; or, when the turn failed, the error in the reply's
place. No transaction is held while the loop runs (each tool step commits its own), so the turn's
writes are kept apart from the pipeline that decides them.
"""

from __future__ import annotations

import dataclasses
import uuid

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.calls.tools import CHANGING
from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError, ConfirmationNotPending, NotFound, RateLimited
from backend.app.db.repositories import rate_limit
from backend.app.db.repositories import routing as routing_outcomes
from backend.app.db.repositories.confirmations import ConfirmationRepository
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.db.repositories.idempotency import IdempotencyRepository, StoredResponse
from backend.app.db.repositories.routing import Observed
from backend.app.db.session import unit_of_work
from backend.app.services.turn import idempotency
from backend.app.services.turn.answers import asked, pending_answer
from backend.app.services.turn.context import TurnContext
from backend.app.services.turn.record import Finished
from backend.app.tools.account import TurnAccount
from backend.app.tools.referents import Referents


class TurnStore:
    """A chat turn's transactions: `prepare` before the loop, `persist` after it, `record_failure`
    in its place when the turn failed."""

    def __init__(self, *, settings: Settings, sessionmaker: async_sessionmaker[AsyncSession], clock: Clock) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.clock = clock

    async def prepare(self, turn: TurnContext) -> StoredResponse | None:
        """The turn's start: the idempotency claim (or the stored response of a replay), the rate
        limit, the conversation and the user's message, in one short transaction. Without a key to
        claim or a confirmation to check, that is one statement on Postgres, sent alone without a
        transaction (`unit_of_work(single_statement=True)`, `db/driver.py`); the answer to a question
        the previous turn asked is then read after it (`read_answer`), in a transaction of its own."""
        alone = _starts_alone(turn)
        async with unit_of_work(self.sessionmaker, single_statement=alone) as session:
            if turn.idempotency_key is not None:
                stored = await self._claim(session, turn, turn.idempotency_key)
                if stored is not None:  # a replay costs nothing of the rate limit
                    return stored
            continued = await self._open(session, turn)  # refused: the claim above rolls back with it
            if continued and not alone:
                turn.answer = await pending_answer(session, turn, clock=turn.clock)
        return None

    async def read_answer(self, turn: TurnContext) -> None:
        """The message read as the answer to the question the previous turn asked, when the turn's
        start went alone and so could not read it (`prepare`): in a transaction of its own, after the
        user's message was stored, so the caller records a failure here beside that message."""
        if _starts_alone(turn) and asked(turn) is not None:
            async with unit_of_work(self.sessionmaker) as session:
                turn.answer = await pending_answer(session, turn, clock=turn.clock)

    async def _open(self, session: AsyncSession, turn: TurnContext) -> bool:
        """The conversation (new, or this user's) and its history, the rate limit, and the user's
        message. True when the conversation was there before this turn."""
        conversations = ConversationRepository(session, turn.user_id)
        request, take = turn.request, rate_limit.Take(self.settings.rate_limit_per_minute, self.clock.now())
        if request.conversation_id is None:
            if request.confirm is not None:
                raise ConfirmationNotPending("A new conversation has no pending confirmation.")
            opened = await conversations.start(title=request.message, content=request.message, take=take)
        elif turn.start_if_new and await conversations.open(request.conversation_id, title=request.message):
            # Created here, in this transaction: a refusal below rolls it back.
            if request.confirm is not None:
                raise ConfirmationNotPending("A new conversation has no pending confirmation.")
            self._allowed(await rate_limit.take(session, user_id=turn.user_id, take=take))
            turn.conversation_id = request.conversation_id
            await conversations.add_message(conversation_id=turn.conversation_id, role="user", content=request.message)
            return False
        else:
            opened = await conversations.continue_with(
                request.conversation_id, content=request.message, limit=self.settings.history_max_messages, take=take
            )
        if not opened.found:
            raise NotFound("Conversation not found")
        self._allowed(opened.verdict)
        turn.conversation_id, turn.history = opened.conversation_id, opened.history
        turn.conversation = Referents.from_history(turn.history)
        return request.conversation_id is not None

    async def _claim(self, session: AsyncSession, turn: TurnContext, key: str) -> StoredResponse | None:
        """Claim the idempotency key for this turn (services/turn/idempotency.py)."""
        return await idempotency.claim(
            session,
            user_id=turn.user_id,
            key=key,
            payload=turn.request.model_dump(mode="json"),
            turn_id=turn.turn_id,
            settings=self.settings,
            clock=self.clock,
        )

    def _allowed(self, verdict: rate_limit.Verdict) -> None:
        if not verdict.allowed:
            limit = self.settings.rate_limit_per_minute
            raise RateLimited(f"More than {limit} chat requests per minute", retry_after_s=verdict.retry_after_s)

    async def persist(self, turn: TurnContext, finished: Finished, learned: list[Observed]) -> None:
        """One short transaction: the question asked (if any), the assistant's message with its
        calls and metadata, and the idempotency key's response. Without a key to complete or a
        question to keep, it is one statement (Postgres)."""
        body = finished.response.model_dump(mode="json")  # the rows' JSON, as the wire's
        confirmation, proposal = finished.confirmation, finished.proposal
        reply = finished.reply
        account = TurnAccount.of(
            finished.calls, language=finished.language, words=reply.words if reply.words != reply.text else None
        )
        if confirmation is not None:
            account = dataclasses.replace(account, confirmation=confirmation.id)
        single = turn.idempotency_key is None and confirmation is None and not learned
        async with unit_of_work(self.sessionmaker, single_statement=single) as session:
            await routing_outcomes.record(session, learned, at=finished.now)
            if confirmation is not None and proposal is not None:
                await ConfirmationRepository(session, turn.user_id).ask(
                    conversation_id=turn.conversation_id,
                    turn_id=turn.turn_id,
                    kind=proposal.kind,
                    question=proposal.question,
                    actions=proposal.actions,
                    now=finished.now,
                    expires_at=confirmation.expires_at,
                    confirmation_id=uuid.UUID(confirmation.id),
                )
            await ConversationRepository(session, turn.user_id).record_turn(
                conversation_id=turn.conversation_id,
                message_id=turn.turn_id,
                content=finished.reply.text,
                tool_call_metadata=body["tool_calls"],
                action_metadata=body["action_metadata"],
                execution_metadata=body["execution_metadata"],
                context=account.to_json(),
            )
            if turn.idempotency_key is not None:
                keys = IdempotencyRepository(session, turn.user_id)
                await keys.complete(turn.idempotency_key, status=200, body=body)

    async def record_failure(self, turn: TurnContext, exc: AppError, failed: list[Observed]) -> None:
        """The error in the reply's place, with `failed`, the routing outcomes of a turn that ended
        in an error; the idempotency key released, or completed with the error if a change was made."""
        user_id, turn_id, key = turn.user_id, turn.turn_id, turn.idempotency_key
        async with unit_of_work(self.sessionmaker) as session:
            conversations = ConversationRepository(session, user_id)
            await conversations.add_message(
                conversation_id=turn.conversation_id,
                role="assistant",
                content=f"Error: {exc.detail}",
                message_id=turn_id,
                execution_metadata={"error": exc.code, "detail": exc.detail, "status": exc.status_code},
                is_error=True,
            )
            if failed:
                await routing_outcomes.record(session, failed, at=self.clock.now())
            if key is not None:
                keys = IdempotencyRepository(session, user_id)
                if await conversations.turn_changed_tasks(turn_id, mutating=CHANGING):
                    # A change was committed before the failure: a retry must not run the turn again
                    # (it would add the task twice), so it gets this error back, as Stripe replays a 500.
                    await keys.complete(key, status=exc.status_code, body=exc.body)
                else:
                    await keys.release(key)


def _starts_alone(turn: TurnContext) -> bool:
    """Whether the turn's start is one statement with nothing beside it in its transaction: no key to
    claim, no confirmation to check, no conversation to create (`prepare`)."""
    return turn.idempotency_key is None and turn.request.confirm is None and not turn.start_if_new
