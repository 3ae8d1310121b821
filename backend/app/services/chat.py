"""ChatService: one chat turn end to end.

    1. short transaction: rate limit, idempotency claim, conversation, history, the user message
    2. the tool loop (no transaction held; each tool step commits its own short transaction)
    3. short transaction: the assistant message, tool executions, the idempotency response

A turn that fails before any tool ran leaves only the user message and the error behind.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.agent.limits import Budget, BudgetUse
from backend.app.agent.presets import Preset
from backend.app.agent.runner import AgentRunner, CallsObserver, RunOptions, RunResult
from backend.app.agent.types import ChatCompletionsClient, ExecutedCall, StopReason, ToolCall
from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError, ConfirmationNotPending, InvalidRequest, NotFound, RateLimited
from backend.app.core.logging import turn_id_var
from backend.app.core.metrics import Metrics
from backend.app.db.models import as_utc
from backend.app.db.repositories import rate_limit
from backend.app.db.repositories.confirmations import ConfirmationRepository
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.db.repositories.idempotency import IdempotencyRepository, StoredResponse
from backend.app.db.session import unit_of_work
from backend.app.schemas.chat import ChatRequest, ChatResponse, Confirmation, ConfirmationAction
from backend.app.services import idempotency, prompt
from backend.app.services.confirmations import Answer, answer, propose
from backend.app.services.history import fit_history
from backend.app.services.offline_model import said_in
from backend.app.services.plan import declared_plan, plan_deviation
from backend.app.services.records import execution_metadata, reply_findings, tool_call_records
from backend.app.services.reply import action_metadata, apply_report, compose, final_calls
from backend.app.services.turn import DECLINED, MUTATING, READ_ONLY, Step, Turn, no_calls
from backend.app.tools.context import ConversationContext, turn_context
from backend.app.tools.factory import task_tools_factory
from backend.app.tools.resolver import ReferenceResolver
from backend.app.tools.task_tools import TaskTools

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    status: int
    body: dict[str, Any]
    replayed: bool = False


def _uuid(value: str) -> uuid.UUID:
    try:
        return uuid.UUID(value)
    except ValueError:
        raise ConfirmationNotPending("Unknown confirmation id; nothing was run.") from None


class ChatService:
    def __init__(
        self,
        *,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        client: ChatCompletionsClient,
        model: str,
        preset: Preset,
        clock: Clock,
        metrics: Metrics | None = None,
    ) -> None:
        self.settings = settings
        self.metrics = metrics or Metrics()
        self.sessionmaker = sessionmaker
        self.client = client
        self.model = model
        self.preset = preset
        self.clock = clock
        self.resolver = ReferenceResolver(threshold=settings.resolver_threshold)
        self.tools_for = task_tools_factory(
            settings=settings, sessionmaker=sessionmaker, clock=clock, resolver=self.resolver
        )

    async def chat(
        self,
        *,
        user_id: str,
        request: ChatRequest,
        idempotency_key: str | None,
        on_calls: CallsObserver | None = None,
    ) -> TurnOutcome:
        """One turn. `on_calls` (a streamed turn) hears of each step's calls as soon as they ran."""
        # The turn id is on the logging context for the whole turn, so every line it logs carries it.
        if len(request.message) > self.settings.max_message_chars:
            raise InvalidRequest(f"message: at most {self.settings.max_message_chars} characters (MAX_MESSAGE_CHARS)")
        turn_id = uuid.uuid4()
        token = turn_id_var.set(str(turn_id))
        try:
            turn = Turn(user_id, request, turn_id, time.monotonic(), idempotency_key, on_calls=on_calls)
            return await self._chat(turn)
        finally:
            turn_id_var.reset(token)

    async def _chat(self, turn: Turn) -> TurnOutcome:
        user_id, request, idempotency_key, turn_id = turn.user_id, turn.request, turn.idempotency_key, turn.turn_id
        async with unit_of_work(self.sessionmaker) as session:
            if idempotency_key is not None:
                stored = await self._claim(session, user_id, idempotency_key, request, turn_id)
                if stored is not None:  # a replay runs nothing, so it costs nothing of the rate limit
                    return TurnOutcome(status=stored.status, body=stored.body, replayed=True)
            await self._rate_limit(session, user_id)  # refused: the claim above rolls back with it
            await self._open(session, turn)
        try:
            if turn.answer is not None and turn.answer.verdict == "run":
                body = await self._answered(turn)
            elif turn.answer is not None and turn.answer.verdict == "cancel":
                body = await self._finish(turn, no_calls(DECLINED), Step.quiet(turn, self.settings))
            else:
                body = await self._run(turn)
        except Exception as exc:
            # The user's message stays; the error is recorded beside it; nothing else was written
            # (a tool that ran has already reported through a 200 with stop_reason llm_error).
            error = exc if isinstance(exc, AppError) else AppError("An unexpected error occurred")
            self.metrics.observe_failed_turn(error.code)
            await self._record_failure(user_id, turn.conversation_id, turn_id, error, idempotency_key)
            raise
        return TurnOutcome(status=200, body=body)

    async def _open(self, session: AsyncSession, turn: Turn) -> None:
        """The conversation (new, or this user's), its history, the answer to its pending question if
        this message is one, and the user's message."""
        conversations = ConversationRepository(session, turn.user_id)
        request = turn.request
        if request.conversation_id is None:
            if request.confirm is not None:
                raise ConfirmationNotPending("A new conversation has no pending confirmation.")
            turn.conversation_id = await conversations.create(title=request.message)
        else:
            turn.conversation_id = request.conversation_id
            turn.history = await conversations.recent_messages(
                turn.conversation_id, limit=self.settings.history_max_messages
            )
            # Every conversation starts with a stored user message, so history found (it is filtered
            # by owner) proves the conversation is this user's: the existence query runs only if not.
            if not turn.history and not await conversations.exists(turn.conversation_id):
                raise NotFound("Conversation not found")
            await self._pending(session, turn)
        await conversations.add_message(conversation_id=turn.conversation_id, role="user", content=request.message)

    async def _pending(self, session: AsyncSession, turn: Turn) -> None:
        """Read the message as the answer to the question the previous turn asked, if it asked one:
        only then is the table read (the previous turn's context names the question)."""
        asked = next((r.context for r in reversed(turn.history) if r.role == "assistant"), None) or {}
        wanted = turn.request.confirm or asked.get("confirmation")
        if wanted is None:
            return
        confirmations = ConfirmationRepository(session, turn.user_id)
        pending = await confirmations.get(_uuid(wanted), conversation_id=turn.conversation_id)
        now = self.clock.now()
        open_ = pending is not None and pending.state == "pending" and as_utc(pending.expires_at) > now
        if turn.request.confirm is not None and not open_:
            raise ConfirmationNotPending("That confirmation has expired or was already answered; nothing was run.")
        if pending is None or not open_:
            return
        turn.answer = answer(pending, turn.request.message, confirm=turn.request.confirm)
        if turn.answer.verdict != "run" or not await confirmations.take(pending.id, now=now):
            await confirmations.close(turn.conversation_id, state="cancelled")
            if turn.answer.verdict == "run":  # another request answered it first: this one is new
                turn.answer = Answer("new")

    async def _run(self, turn: Turn) -> dict[str, Any]:
        """A turn through the model: the reader, the guard, the loop."""
        settings, request = self.settings, turn.request
        step = Step.guarded(turn, settings, self.preset, self.clock)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": prompt.system_prompt(self.clock.today())},
            *fit_history(turn.history, token_budget=settings.history_token_budget),
            {"role": "user", "content": request.message},
        ]
        use = BudgetUse(
            self._budget(request),
            price_in_per_mtok=self.preset.price_in_per_mtok,
            price_out_per_mtok=self.preset.price_out_per_mtok,
        )
        use.started = turn.started
        runner = AgentRunner(client=self.client, model=self.model, preset=self.preset, options=self._options())
        run = await runner.run(
            messages=messages,
            executor=self._tools(turn, guarded=step.guard.enabled),
            policy=step.policy,
            expected_tools=step.intent.tools,
            use=use,
            guard=step.guard,
            stop_when_covered=settings.response_mode == "direct",
            on_calls=turn.on_calls,
        )
        return await self._finish(turn, run, step, ask=True)

    async def _answered(self, turn: Turn) -> dict[str, Any]:
        """A yes (or a pick) to the pending question: exactly its stored calls run, with no LLM call."""
        assert turn.answer is not None
        calls = [ToolCall(f"confirm-{i}", a["name"], dict(a["arguments"])) for i, a in enumerate(turn.answer.actions)]
        outcome = await self._tools(turn).execute_batch(calls)
        executed = [
            ExecutedCall(call=c, arguments=args, result=result, step=0, duration_ms=0.0)
            for c, result, args in zip(calls, outcome.results, outcome.executed_arguments, strict=True)
        ]
        if turn.on_calls is not None:
            await turn.on_calls(executed)
        run = no_calls("")
        run.executed, run.stop_reason = executed, StopReason.COMPOSED
        return await self._finish(turn, run, Step.quiet(turn, self.settings))

    def _tools(self, turn: Turn, *, guarded: bool = False) -> TaskTools:
        """The turn's tools; `guarded`: with what the message names, to repair the model's arguments."""
        return self.tools_for(
            turn.user_id,
            source="chat",
            conversation_id=turn.conversation_id,
            turn_id=turn.turn_id,
            context=ConversationContext.from_history(turn.history),
            said=said_in(turn.request.message, today=self.clock.today()) if guarded else None,
        )

    async def _finish(self, turn: Turn, run: RunResult, step: Step, *, ask: bool = False) -> dict[str, Any]:
        """The reply, the metadata, the question to ask (if any), the record, the metrics."""
        settings = self.settings
        calls = final_calls(run.executed)
        proposal = propose(calls, ask_unasked=step.intent.kind != "negated", extra=step.guard.unasked) if ask else None
        reply = compose(
            run=run, intent=step.intent, guard=step.guard, response_mode=settings.response_mode, question=proposal
        )
        deviation = plan_deviation(step.intent, run.executed, read_only=READ_ONLY)
        findings = [*run.findings, *([deviation] if deviation else []), *reply_findings(reply)]
        metadata = execution_metadata(
            run=run,
            intent=step.intent,
            guard=step.guard,
            reply=reply,
            plan=declared_plan(step.intent, policy=step.policy.value),
            findings=findings,
            policy=step.policy_info,
            model={
                "name": self.model,
                "client": self.client.label,
                "offline": self.client.label == "offline",
                "preset": self.preset.describe(),
                "options": self._options_summary(),
            },
            apply={**apply_report(run.executed), "apply_mode": settings.apply_mode},
            response_mode=settings.response_mode,
            total_latency_ms=round((time.monotonic() - turn.started) * 1000),
        )
        if turn.answer is not None and turn.answer.verdict != "new":
            metadata["confirmation_answer"] = {"verdict": turn.answer.verdict, "how": turn.answer.how}
        now = self.clock.now()
        confirmation = None
        if proposal is not None:
            confirmation = Confirmation(
                id=str(uuid.uuid4()),
                question=proposal.question,
                actions=[ConfirmationAction(name=a["name"], arguments=a["arguments"]) for a in proposal.actions],
                expires_at=now + timedelta(minutes=settings.confirmation_ttl_minutes),
            )
        response = ChatResponse(
            conversation_id=turn.conversation_id,
            assistant_message=reply.text,
            tool_calls=tool_call_records(run.executed),
            action_metadata=action_metadata(reply, step.intent),
            confirmation=confirmation,
            execution_metadata=metadata,
        )
        body = response.model_dump(mode="json")
        context = turn_context(calls) or {}
        if confirmation is not None:
            context["confirmation"] = confirmation.id
        # Without an idempotency key to complete or a question to keep, the record is one statement (Postgres).
        single = turn.idempotency_key is None and confirmation is None
        async with unit_of_work(self.sessionmaker, single_statement=single) as session:
            if confirmation is not None and proposal is not None:
                await ConfirmationRepository(session, turn.user_id).ask(
                    conversation_id=turn.conversation_id,
                    turn_id=turn.turn_id,
                    kind=proposal.kind,
                    question=proposal.question,
                    actions=proposal.actions,
                    now=now,
                    expires_at=confirmation.expires_at,
                    confirmation_id=uuid.UUID(confirmation.id),
                )
            await ConversationRepository(session, turn.user_id).record_turn(
                conversation_id=turn.conversation_id,
                message_id=turn.turn_id,
                content=reply.text,
                tool_call_metadata=body["tool_calls"],
                action_metadata=body["action_metadata"],
                execution_metadata=metadata,
                context=context or None,
            )
            if turn.idempotency_key is not None:
                await IdempotencyRepository(session, turn.user_id).complete(turn.idempotency_key, status=200, body=body)
        self.metrics.observe_turn(
            stop_reason=run.stop_reason,
            guard_outcome=step.guard.outcome,
            guard_events=[(e.decision.value, e.reason.value) for e in step.guard.events],
            tool_results=[(e.call.name, e.result.success) for e in run.executed if e.ran],
            findings=[(f.kind.value, f.detail.get("budget")) for f in findings],
            replaced=[r["reason"] for r in reply.replaced],
            not_done=[o.reason.value for o in reply.not_done if o.reason is not None],
        )
        log.info(
            "chat_turn",
            extra={
                "turn_id": str(turn.turn_id),
                "stop_reason": run.stop_reason.value,
                "llm_calls": run.use.llm_calls,
                "guard": step.guard.outcome,
            },
        )
        return body

    async def _claim(
        self, session: AsyncSession, user_id: str, key: str, request: ChatRequest, turn_id: uuid.UUID
    ) -> StoredResponse | None:
        """Claim the idempotency key for this turn (services/idempotency.py)."""
        payload = request.model_dump(mode="json")
        return await idempotency.claim(
            session,
            user_id=user_id,
            key=key,
            payload=payload,
            turn_id=turn_id,
            settings=self.settings,
            clock=self.clock,
        )

    async def _rate_limit(self, session: AsyncSession, user_id: str) -> None:
        limit = self.settings.rate_limit_per_minute
        verdict = await rate_limit.take(session, user_id=user_id, limit=limit, now=self.clock.now())
        if not verdict.allowed:
            raise RateLimited(f"More than {limit} chat requests per minute", retry_after_s=verdict.retry_after_s)

    async def _record_failure(
        self, user_id: str, conversation_id: uuid.UUID, turn_id: uuid.UUID, exc: AppError, idempotency_key: str | None
    ) -> None:
        async with unit_of_work(self.sessionmaker) as session:
            conversations = ConversationRepository(session, user_id)
            await conversations.add_message(
                conversation_id=conversation_id,
                role="assistant",
                content=f"Error: {exc.detail}",
                message_id=turn_id,
                execution_metadata={"error": exc.code, "detail": exc.detail, "status": exc.status_code},
                is_error=True,
            )
            if idempotency_key is not None:
                keys = IdempotencyRepository(session, user_id)
                if await conversations.turn_changed_tasks(turn_id, mutating=MUTATING):
                    # A change was committed before the failure: a retry must not run the turn again
                    # (it would add the task twice), so it gets this error back, as Stripe replays a 500.
                    body = {"error": exc.code, "detail": exc.detail}
                    await keys.complete(idempotency_key, status=exc.status_code, body=body)
                else:
                    await keys.release(idempotency_key)
        log.warning("chat_turn_failed", extra={"turn_id": str(turn_id), "error": exc.code})

    def _budget(self, request: ChatRequest) -> Budget:
        s = self.settings
        server = Budget(
            max_llm_calls=s.budget_max_llm_calls,
            max_tool_calls=s.budget_max_tool_calls,
            max_latency_ms=s.budget_max_latency_ms,
            max_tokens=s.budget_max_tokens,
            max_cost_usd=s.budget_max_cost_usd,
        )
        if request.budget is None:
            return server
        wanted = {k: v for k, v in request.budget.model_dump().items() if v is not None}
        return dataclasses.replace(server, **wanted).capped_by(server) if wanted else server

    def _options(self) -> RunOptions:
        s = self.settings
        return RunOptions(
            max_steps=s.max_steps,
            tool_use_mode=self.preset.tool_use_mode,
            max_tool_calls_per_step=s.max_tool_calls_per_step if s.parallel_tool_calls else 1,
            max_tool_args_bytes=s.max_tool_args_bytes,
            max_tool_output_bytes=s.max_tool_output_bytes,
            max_model_fix_retries=s.max_model_fix_retries,
            max_destructive_calls=s.max_destructive_calls_per_turn,
            fix_empty_final=s.fix_empty_final,
            max_tokens=s.llm_max_tokens,
            tool_failure_policy=s.tool_failure_policy,
            request_overrides={} if s.parallel_tool_calls else {"parallel_tool_calls": False},
        )

    def _options_summary(self) -> dict[str, Any]:
        o = self._options()
        return {
            "max_steps": o.max_steps,
            "tool_use_mode": o.tool_use_mode,
            "max_tool_calls_per_step": o.max_tool_calls_per_step,
            "max_tool_args_bytes": o.max_tool_args_bytes,
            "max_tool_output_bytes": o.max_tool_output_bytes,
            "fix_empty_final": o.fix_empty_final,
            "max_tokens": o.max_tokens,
        }
