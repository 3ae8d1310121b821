"""ChatService: one chat turn end to end.

    1. short transaction: rate limit, idempotency claim, conversation, history, the user message
    2. the tool loop (no transaction held; each tool step commits its own short transaction)
    3. short transaction: the assistant message, tool executions, the idempotency response

A turn that fails before any tool ran leaves only the user message and the error behind.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.agent.limits import BudgetUse
from backend.app.agent.presets import Preset
from backend.app.agent.run import CallsObserver, RunResult
from backend.app.agent.runner import AgentRunner
from backend.app.agent.types import ChatCompletionsClient, Finding, StopReason
from backend.app.calls.said import Said, SaidAction, SaidAdd
from backend.app.calls.types import ExecutedCall, ToolCall
from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError, ConfirmationNotPending, InvalidRequest, NotFound, RateLimited
from backend.app.core.logging import turn_id_var
from backend.app.core.metrics import Metrics
from backend.app.db.models import as_utc
from backend.app.db.repositories import rate_limit
from backend.app.db.repositories import routing as routing_outcomes
from backend.app.db.repositories.confirmations import ConfirmationRepository
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.db.repositories.idempotency import IdempotencyRepository, StoredResponse
from backend.app.db.repositories.routing import Observed
from backend.app.db.session import unit_of_work
from backend.app.schemas.chat import ChatRequest, ChatResponse, Confirmation, ConfirmationAction, ConfirmationAnswer
from backend.app.services import idempotency, prompt
from backend.app.services.calls import final_calls
from backend.app.services.commands import asked_in
from backend.app.services.confirmations import Answer, Proposal, answer, propose
from backend.app.services.history import fit_history
from backend.app.services.live_reply import LiveReply, ReplyListener
from backend.app.services.plan import declared_plan, plan_deviation
from backend.app.services.records import (
    action_metadata,
    apply_report,
    execution_metadata,
    reply_findings,
    tool_call_records,
)
from backend.app.services.reply import Reply, compose
from backend.app.services.routing import Router
from backend.app.services.turn import (
    MUTATING,
    READ_ONLY,
    Step,
    TurnContext,
    no_calls,
    options_summary,
    run_options,
    turn_budget,
)
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


@dataclass(frozen=True, slots=True)
class Finished:
    """A turn's reply step: what the user reads (`body`, the response JSON) and what is kept with it."""

    body: dict[str, Any]
    reply: Reply
    findings: list[Finding]
    calls: list[ExecutedCall]
    proposal: Proposal | None
    confirmation: Confirmation | None
    now: datetime
    language: str


def _said_add(args: dict[str, Any], *, quoted: bool) -> SaidAdd:
    """A task the message asks to add, with the priority and due date the user gave."""
    fields: dict[str, Any] = {k: args[k] for k in ("priority",) if args.get(k)}
    if args.get("due_date"):
        fields["due_date"] = date.fromisoformat(str(args["due_date"]))
    return SaidAdd(str(args.get("title", "")), quoted=quoted, fields=fields)


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
        router: Router | None = None,
    ) -> None:
        self.settings = settings
        self.router = router  # several models: which one a turn asks first (services/routing.py)
        self.metrics = metrics or Metrics()
        self.sessionmaker = sessionmaker
        self.client = client
        self.model = model
        self.preset = preset
        self.clock = clock
        self.resolver = ReferenceResolver(threshold=settings.resolver_threshold)
        self.options = run_options(settings, preset)
        # The built-in offline model writes its words from the tool results: there is nothing to check.
        self.checks_words = settings.reply_check == "model" and client.label != "offline"
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
        listener: ReplyListener | None = None,
        start_if_new: bool = False,
    ) -> TurnOutcome:
        """One turn. A streamed turn's `on_calls` hears of each step's calls as soon as they ran; its
        `listener`, in model mode, the model's words as they come, once checked (live_reply.py).
        `start_if_new`: the request's `conversation_id` is created when this user has none by that id
        (an AI SDK chat's conversation, api/ui_stream.py), where it would otherwise be 404."""
        # The turn id is on the logging context for the whole turn, so every line it logs carries it.
        if len(request.message) > self.settings.max_message_chars:
            raise InvalidRequest(f"message: at most {self.settings.max_message_chars} characters (MAX_MESSAGE_CHARS)")
        turn_id = uuid.uuid4()
        token = turn_id_var.set(str(turn_id))
        try:
            turn = TurnContext(
                user_id,
                request,
                turn_id,
                time.monotonic(),
                idempotency_key,
                on_calls=on_calls,
                listener=listener,
                start_if_new=start_if_new,
            )
            return await self._chat(turn)
        finally:
            turn_id_var.reset(token)

    async def _chat(self, turn: TurnContext) -> TurnOutcome:
        """The pipeline: prepare, run, reply, persist (then count)."""
        stored = await self._prepare(turn)
        if stored is not None:  # a replay runs nothing
            return TurnOutcome(status=stored.status, body=stored.body, replayed=True)
        try:
            run, step = await self._run(turn)
            finished = self._reply(turn, run, step)
            await self._persist(turn, finished, self._learned(turn, run, step, finished))
            self._observe(turn, run, step, finished)
        except Exception as exc:
            # The user's message stays; the error is recorded beside it; nothing else was written
            # (a tool that ran has already reported through a 200 with stop_reason llm_error).
            error = exc if isinstance(exc, AppError) else AppError("An unexpected error occurred")
            self.metrics.observe_failed_turn(error.code)
            await self._record_failure(turn, error)
            raise
        return TurnOutcome(status=200, body=finished.body)

    async def _prepare(self, turn: TurnContext) -> StoredResponse | None:
        """One short transaction: the idempotency claim (or the stored response of a replay), the
        rate limit, the conversation and the user's message."""
        async with unit_of_work(self.sessionmaker) as session:
            if turn.idempotency_key is not None:
                stored = await self._claim(session, turn, turn.idempotency_key)
                if stored is not None:  # a replay costs nothing of the rate limit
                    return stored
            await self._rate_limit(session, turn.user_id)  # refused: the claim above rolls back with it
            await self._open(session, turn)
        return None

    async def _open(self, session: AsyncSession, turn: TurnContext) -> None:
        """The conversation (new, or this user's), its history, the answer to its pending question if
        this message is one, and the user's message."""
        conversations = ConversationRepository(session, turn.user_id)
        request = turn.request
        if request.conversation_id is None:
            if request.confirm is not None:
                raise ConfirmationNotPending("A new conversation has no pending confirmation.")
            turn.conversation_id = await conversations.create(title=request.message)
        elif turn.start_if_new and await conversations.open(request.conversation_id, title=request.message):
            if request.confirm is not None:
                raise ConfirmationNotPending("A new conversation has no pending confirmation.")
            turn.conversation_id = request.conversation_id
        else:
            turn.conversation_id = request.conversation_id
            turn.history = await conversations.recent_messages(
                turn.conversation_id, limit=self.settings.history_max_messages
            )
            turn.conversation = ConversationContext.from_history(turn.history)
            # Every conversation starts with a stored user message, so history found (it is filtered
            # by owner) proves the conversation is this user's: the existence query runs only if not.
            if not turn.history and not await conversations.exists(turn.conversation_id):
                raise NotFound("Conversation not found")
            await self._pending(session, turn)
        await conversations.add_message(conversation_id=turn.conversation_id, role="user", content=request.message)

    async def _pending(self, session: AsyncSession, turn: TurnContext) -> None:
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

    async def _run(self, turn: TurnContext) -> tuple[RunResult, Step]:
        """The turn's work: the calls a yes to the pending question stands for, nothing after a no,
        else the tool loop."""
        if turn.answer is not None and turn.answer.verdict == "run":
            return await self._answered(turn), Step.quiet(turn, self.settings)
        if turn.answer is not None and turn.answer.verdict == "cancel":
            return no_calls(), Step.quiet(turn, self.settings)
        step = Step.guarded(turn, self.settings, self.preset, self.clock, checks=self.checks_words)
        return await self._loop(turn, step), step

    async def _loop(self, turn: TurnContext, step: Step) -> RunResult:
        """A turn through the model: the reader's step, the guard, the loop."""
        settings, request = self.settings, turn.request
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": prompt.system_prompt(self.clock.today())},
            *fit_history(turn.history, token_budget=settings.history_token_budget),
            {"role": "user", "content": request.message},
        ]
        use = BudgetUse(
            turn_budget(settings, request),
            price_in_per_mtok=self.preset.price_in_per_mtok,
            price_out_per_mtok=self.preset.price_out_per_mtok,
        )
        use.started = turn.started
        if self.router is not None:
            turn.routing = await self.router.choose(step.policy.value)
            self.metrics.observe_routing(model=turn.routing.model, policy=turn.routing.policy, how=turn.routing.how)
        model = turn.routing.model if turn.routing is not None else self.model
        runner = AgentRunner(client=self.client, model=model, preset=self.preset, options=self.options)
        return await runner.run(
            messages=messages,
            executor=self._tools(turn, step if step.guard.enabled else None),
            policy=step.policy,
            expected_tools=step.intent.tools,
            use=use,
            guard=step.guard,
            stop_when_covered=settings.response_mode == "direct",
            on_calls=turn.on_calls,
            # Words are streamed as they come only where no check of them is awaited.
            on_reply=LiveReply(step.guard, turn.listener)
            if turn.listener is not None and settings.response_mode == "model" and not self.checks_words
            else None,
        )

    async def _answered(self, turn: TurnContext) -> RunResult:
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
        return run

    def _tools(self, turn: TurnContext, step: Step | None = None) -> TaskTools:
        """The turn's tools; with a guarded `step`, with what the message names for each action, to
        repair the model's arguments that name nothing."""
        said = None
        if step is not None:
            asked = asked_in(turn.request.message, today=self.clock.today(), intent=step.intent)
            adds = tuple(_said_add(a.args, quoted=a.quoted) for a in asked if a.name == "add_task")
            actions = tuple(SaidAction(a.tools, a.object) for a in step.intent.actions)
            references: dict[str, tuple[str, ...]] = {}
            for a in asked:
                if isinstance(ref := a.args.get("task_id"), str) and ref.strip():
                    references[a.name] = (*references.get(a.name, ()), ref)
            said = Said(message=turn.request.message, actions=actions, adds=adds, references=references)
        return self.tools_for(
            turn.user_id,
            source="chat",
            conversation_id=turn.conversation_id,
            turn_id=turn.turn_id,
            context=turn.conversation,
            said=said,
        )

    def _reply(self, turn: TurnContext, run: RunResult, step: Step) -> Finished:
        """What the user reads and what explains it: the reply (composed in services/reply.py), the
        question to ask if any, the findings, the execution metadata and the response body."""
        calls = final_calls(run.executed)
        t = step.texts
        proposal = propose(calls, t=t, silent=step.guard.silent) if step.asks else None
        reply = compose(
            run=run,
            intent=step.intent,
            guard=step.guard,
            response_mode=self.settings.response_mode,
            t=t,
            question=proposal,
        )
        if turn.answer is not None and turn.answer.verdict == "cancel":
            reply = Reply(t("Okay, I won't: nothing was changed."), [], "results")
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
            model=self._model_info(),
            apply={**apply_report(run.executed), "apply_mode": self.settings.apply_mode},
            response_mode=self.settings.response_mode,
            total_latency_ms=round((time.monotonic() - turn.started) * 1000),
            language=step.language,
            confirmation_answer=(
                {"verdict": turn.answer.verdict, "how": turn.answer.how}
                if turn.answer is not None and turn.answer.verdict != "new"
                else None
            ),
            routing=turn.routing.describe() if turn.routing is not None else None,
        )
        now = self.clock.now()
        confirmation = None
        if proposal is not None:
            confirmation_id = str(uuid.uuid4())
            confirmation = Confirmation(
                id=confirmation_id,
                question=proposal.question,
                actions=[ConfirmationAction(name=a["name"], arguments=a["arguments"]) for a in proposal.actions],
                expires_at=now + timedelta(minutes=self.settings.confirmation_ttl_minutes),
                kind=proposal.kind,
                answers=[
                    ConfirmationAnswer(
                        label=label,
                        message=message,
                        confirm=confirmation_id if proposal.kind == "confirm" and i == 0 else None,
                    )
                    for i, (label, message) in enumerate(proposal.answers)
                ],
            )
        response = ChatResponse(
            conversation_id=turn.conversation_id,
            assistant_message=reply.text,
            tool_calls=tool_call_records(run.executed),
            action_metadata=action_metadata(reply, step.intent),
            confirmation=confirmation,
            execution_metadata=metadata,
        )
        return Finished(
            body=response.model_dump(mode="json"),
            reply=reply,
            findings=findings,
            calls=calls,
            proposal=proposal,
            confirmation=confirmation,
            now=now,
            language=step.language.code,
        )

    def _model_info(self) -> dict[str, Any]:
        return {
            "name": self.model,
            "client": self.client.label,
            "offline": self.client.label == "offline",
            "preset": self.preset.describe(),
            "options": options_summary(self.options),
            "fallbacks": self.router.models[1:] if self.router is not None else None,
        }

    def _learned(self, turn: TurnContext, run: RunResult, step: Step, finished: Finished) -> list[Observed]:
        """With several models: how each model asked did on this turn (services/routing.py)."""
        if turn.routing is None or self.router is None:
            return []
        latency_ms = float(finished.body["execution_metadata"]["total_latency_ms"])
        return self.router.observed(turn.routing, run, guard_outcome=step.guard.outcome, latency_ms=latency_ms)

    async def _persist(self, turn: TurnContext, finished: Finished, learned: list[Observed]) -> None:
        """One short transaction: the question asked (if any), the assistant's message with its
        calls and metadata, and the idempotency key's response. Without a key to complete or a
        question to keep, it is one statement (Postgres)."""
        context = turn_context(finished.calls, language=finished.language) or {}
        confirmation, proposal = finished.confirmation, finished.proposal
        if confirmation is not None:
            context["confirmation"] = confirmation.id
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
                tool_call_metadata=finished.body["tool_calls"],
                action_metadata=finished.body["action_metadata"],
                execution_metadata=finished.body["execution_metadata"],
                context=context or None,
            )
            if turn.idempotency_key is not None:
                keys = IdempotencyRepository(session, turn.user_id)
                await keys.complete(turn.idempotency_key, status=200, body=finished.body)

    def _observe(self, turn: TurnContext, run: RunResult, step: Step, finished: Finished) -> None:
        reply = finished.reply
        self.metrics.observe_turn(
            stop_reason=run.stop_reason,
            guard_outcome=step.guard.outcome,
            guard_events=[(e.decision.value, e.reason.value) for e in step.guard.events],
            tool_results=[(e.call.name, e.result.success) for e in run.executed if e.ran],
            findings=[(f.kind.value, f.detail.get("budget")) for f in finished.findings],
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

    async def _claim(self, session: AsyncSession, turn: TurnContext, key: str) -> StoredResponse | None:
        """Claim the idempotency key for this turn (services/idempotency.py)."""
        return await idempotency.claim(
            session,
            user_id=turn.user_id,
            key=key,
            payload=turn.request.model_dump(mode="json"),
            turn_id=turn.turn_id,
            settings=self.settings,
            clock=self.clock,
        )

    async def _rate_limit(self, session: AsyncSession, user_id: str) -> None:
        limit = self.settings.rate_limit_per_minute
        verdict = await rate_limit.take(session, user_id=user_id, limit=limit, now=self.clock.now())
        if not verdict.allowed:
            raise RateLimited(f"More than {limit} chat requests per minute", retry_after_s=verdict.retry_after_s)

    async def _record_failure(self, turn: TurnContext, exc: AppError) -> None:
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
            if turn.routing is not None and self.router is not None:
                latency_ms = (time.monotonic() - turn.started) * 1000
                await routing_outcomes.record(
                    session, self.router.failed(turn.routing, latency_ms=latency_ms), at=self.clock.now()
                )
            if key is not None:
                keys = IdempotencyRepository(session, user_id)
                if await conversations.turn_changed_tasks(turn_id, mutating=MUTATING):
                    # A change was committed before the failure: a retry must not run the turn again
                    # (it would add the task twice), so it gets this error back, as Stripe replays a 500.
                    await keys.complete(key, status=exc.status_code, body=exc.body)
                else:
                    await keys.release(key)
        log.warning("chat_turn_failed", extra={"turn_id": str(turn_id), "error": exc.code})
