"""ChatService: one chat turn end to end.

    1. short transaction: rate limit, idempotency claim, conversation, history, the user message
    2. the tool loop (no transaction held; each tool step commits its own short transaction)
    3. short transaction: the assistant message, tool executions, the idempotency response

A turn that fails before any tool ran leaves only the user message and the error behind.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.agent.limits import Budget, BudgetUse
from backend.app.agent.policy import ToolPolicy
from backend.app.agent.presets import Preset
from backend.app.agent.runner import AgentRunner, Finding, RunOptions, RunResult
from backend.app.agent.types import ChatCompletionsClient
from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError, NotFound, RateLimited
from backend.app.core.logging import turn_id_var
from backend.app.core.metrics import Metrics
from backend.app.db.repositories import rate_limit
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.db.repositories.idempotency import Abandoned, IdempotencyRepository, StoredResponse
from backend.app.db.session import unit_of_work
from backend.app.schemas.chat import ChatRequest, ChatResponse
from backend.app.services import prompt
from backend.app.services.guard import ExecutionGuard, unbacked_claims
from backend.app.services.history import fit_history
from backend.app.services.intent import classify
from backend.app.services.plan import declared_plan, plan_deviation
from backend.app.services.records import execution_metadata, tool_call_records
from backend.app.services.reply import ResultComposer, action_metadata, apply_report
from backend.app.tools.resolver import ReferenceResolver
from backend.app.tools.task_tools import TOOL_SPECS, TaskTools, ToolAudit

log = logging.getLogger(__name__)

READ_ONLY = frozenset(s.name for s in TOOL_SPECS if s.read_only)
MUTATING = frozenset(s.name for s in TOOL_SPECS if not s.read_only)
GUARDED_POLICIES = {ToolPolicy.GUARDED, ToolPolicy.REQUIRED, ToolPolicy.FORCED_INTENT, ToolPolicy.TWO_PHASE}


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    status: int
    body: dict[str, Any]
    replayed: bool = False


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
        self.composer = ResultComposer()

    async def chat(self, *, user_id: str, request: ChatRequest, idempotency_key: str | None) -> TurnOutcome:
        # The turn id is on the logging context for the whole turn, so every line it logs carries it.
        turn_id = uuid.uuid4()
        token = turn_id_var.set(str(turn_id))
        try:
            return await self._chat(user_id=user_id, request=request, idempotency_key=idempotency_key, turn_id=turn_id)
        finally:
            turn_id_var.reset(token)

    async def _chat(
        self, *, user_id: str, request: ChatRequest, idempotency_key: str | None, turn_id: uuid.UUID
    ) -> TurnOutcome:
        started = time.monotonic()
        async with unit_of_work(self.sessionmaker) as session:
            await self._rate_limit(session, user_id)
            if idempotency_key is not None:
                stored = await self._claim(session, user_id, idempotency_key, request, turn_id)
                if stored is not None:
                    return TurnOutcome(status=stored.status, body=stored.body, replayed=True)
            conversations = ConversationRepository(session, user_id)
            if request.conversation_id is None:
                conversation_id = await conversations.create(title=request.message)
                history: list[tuple[str, str]] = []
            else:
                conversation_id = request.conversation_id
                history = await conversations.recent_messages(conversation_id, limit=self.settings.history_max_messages)
                # Every conversation starts with a stored user message, so history found (it is filtered
                # by owner) proves the conversation is this user's: the existence query runs only if not.
                if not history and not await conversations.exists(conversation_id):
                    raise NotFound("Conversation not found")
            await conversations.add_message(conversation_id=conversation_id, role="user", content=request.message)

        try:
            body = await self._run(
                user_id=user_id,
                request=request,
                history=history,
                conversation_id=conversation_id,
                turn_id=turn_id,
                started=started,
                idempotency_key=idempotency_key,
            )
        except Exception as exc:
            # The user's message stays; the error is recorded beside it; nothing else was written
            # (a tool that ran has already reported through a 200 with stop_reason llm_error).
            error = exc if isinstance(exc, AppError) else AppError("An unexpected error occurred")
            self.metrics.observe_failed_turn(error.code)
            await self._record_failure(user_id, conversation_id, turn_id, error, idempotency_key)
            raise
        return TurnOutcome(status=200, body=body)

    async def _run(
        self,
        *,
        user_id: str,
        request: ChatRequest,
        history: list[tuple[str, str]],
        conversation_id: uuid.UUID,
        turn_id: uuid.UUID,
        started: float,
        idempotency_key: str | None,
    ) -> dict[str, Any]:
        settings = self.settings
        intent = classify(request.message)
        requested = ToolPolicy(request.tool_policy or settings.tool_policy)
        applied = ToolPolicy(self.preset.policy_downgrades.get(requested.value, requested.value))
        today = self.clock.today()
        guard = ExecutionGuard(
            intent=intent,
            mutating_tools=MUTATING,
            enabled=applied in GUARDED_POLICIES,
            instruction=lambda tool: prompt.forced_instruction(tool, today),
        )
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": prompt.system_prompt(today)},
            *fit_history(history, token_budget=settings.history_token_budget),
            {"role": "user", "content": request.message},
        ]
        use = BudgetUse(
            self._budget(request),
            price_in_per_mtok=self.preset.price_in_per_mtok,
            price_out_per_mtok=self.preset.price_out_per_mtok,
        )
        use.started = started
        tools = TaskTools(
            sessionmaker=self.sessionmaker,
            user_id=user_id,
            clock=self.clock,
            resolver=self.resolver,
            apply_mode=settings.apply_mode,
            audit=ToolAudit(conversation_id=conversation_id, turn_id=turn_id),
        )
        runner = AgentRunner(client=self.client, model=self.model, preset=self.preset, options=self._options())
        plan = declared_plan(intent, policy=applied.value)
        run = await runner.run(
            messages=messages,
            executor=tools,
            policy=applied,
            expected_tools=intent.tools,
            use=use,
            guard=guard,
            composer=self.composer,
            compose_when_covered=settings.response_mode == "direct",
        )
        reply, unbacked = self._honest_reply(run)
        findings = [*run.findings, *([unbacked] if unbacked else [])]
        if (deviation := plan_deviation(intent, run.executed, read_only=READ_ONLY)) is not None:
            findings.append(deviation)
        actions = action_metadata(run.executed)
        if run.stop_reason == "tool_not_triggered":
            actions = {
                "action": intent.primary or "unknown",
                "success": False,
                "task_id": None,
                "task_title": None,
                "message": "Tool not triggered",
            }
        metadata = execution_metadata(
            run=run,
            intent=intent,
            guard=guard,
            plan=plan,
            findings=findings,
            policy={
                "requested": requested.value,
                "applied": applied.value,
                "downgraded_by": self.preset.name if applied is not requested else None,
            },
            model={
                "name": self.model,
                "client": self.client.label,
                "offline": self.client.label == "offline",
                "preset": self.preset.describe(),
                "options": self._options_summary(),
            },
            apply={**apply_report(run.executed), "apply_mode": settings.apply_mode},
            response_mode=settings.response_mode,
            total_latency_ms=round((time.monotonic() - started) * 1000),
        )
        if run.error is not None:
            metadata["provider_error"] = {"code": run.error.code, "detail": run.error.detail}
        response = ChatResponse(
            conversation_id=conversation_id,
            assistant_message=reply,
            tool_calls=tool_call_records(run.executed),
            action_metadata=actions,
            execution_metadata=metadata,
        )
        body = response.model_dump(mode="json")
        # Without an idempotency key to complete, the record is one statement (on Postgres).
        async with unit_of_work(self.sessionmaker, single_statement=idempotency_key is None) as session:
            await ConversationRepository(session, user_id).record_turn(
                conversation_id=conversation_id,
                message_id=turn_id,
                content=reply,
                tool_call_metadata=body["tool_calls"],
                action_metadata=body["action_metadata"],
                execution_metadata=metadata,
            )
            if idempotency_key is not None:
                await IdempotencyRepository(session, user_id).complete(idempotency_key, status=200, body=body)
        self.metrics.observe_turn(
            stop_reason=run.stop_reason,
            guard_outcome=metadata["guard"]["outcome"],
            guard_events=guard.events,
            tool_results=[(e.call.name, e.result.success) for e in run.executed if e.ran],
            findings=[(f.kind, f.detail.get("budget")) for f in findings],
        )
        log.info(
            "chat_turn",
            extra={
                "turn_id": str(turn_id),
                "stop_reason": run.stop_reason,
                "llm_calls": run.use.llm_calls,
                "guard": metadata["guard"]["outcome"],
            },
        )
        return body

    async def _claim(
        self, session: AsyncSession, user_id: str, key: str, request: ChatRequest, turn_id: uuid.UUID
    ) -> StoredResponse | None:
        """Claim the idempotency key for this turn; a stored response when the request must not run.

        A claim abandoned by a crashed worker is taken over, unless its turn already committed a change
        (a successful mutating call in `tool_executions`): running it again would repeat the change, so
        the key answers with an error that says so, from now on."""
        keys = IdempotencyRepository(session, user_id)
        request_hash = hashlib.sha256(
            orjson.dumps(request.model_dump(mode="json"), option=orjson.OPT_SORT_KEYS)
        ).hexdigest()
        now, ttl = self.clock.now(), timedelta(hours=self.settings.idempotency_ttl_hours)
        claim = await keys.claim(
            key,
            request_hash=request_hash,
            now=now,
            ttl=ttl,
            stale_after=timedelta(milliseconds=2 * self.settings.budget_max_latency_ms),
            turn_id=turn_id,
        )
        if not isinstance(claim, Abandoned):
            return claim
        changed = claim.turn_id is not None and await ConversationRepository(session, user_id).turn_changed_tasks(
            claim.turn_id, mutating=MUTATING
        )
        if not changed:
            await keys.take_over(key, request_hash=request_hash, now=now, ttl=ttl, turn_id=turn_id)
            return None
        body = {
            "error": AppError.code,
            "detail": "An earlier request with this Idempotency-Key changed tasks but did not finish; "
            "it is not run again (the conversation shows what was done).",
        }
        await keys.complete(key, status=AppError.status_code, body=body)
        return StoredResponse(status=AppError.status_code, body=body)

    def _honest_reply(self, run: RunResult) -> tuple[str, Finding | None]:
        """The reply the user sees. The model's final text after tools ran is replaced by the one composed
        from the results when a tool failed (even if the model says 'Done'), or when it claims an action
        no successful call backs ("I've added milk and deleted gym" after one add: an UnbackedClaim)."""
        if run.stop_reason != "final" or not run.executed:
            return run.text, None  # composed already, the guard's message, a stop's explanation, or no tools
        if any(not e.result.success and not e.result.model_fixable for e in run.executed):
            return self.composer.compose(run.executed), None
        if claims := unbacked_claims(run.text, run.executed, mutating=MUTATING):
            finding = Finding("UnbackedClaim", {"claims": claims, "model_reply": run.text[:500]})
            return self.composer.compose(run.executed), finding
        return run.text, None

    async def _rate_limit(self, session: AsyncSession, user_id: str) -> None:
        now = self.clock.now().timestamp()
        window = int(now // 60)
        count = await rate_limit.hit(session, user_id=user_id, window_start=window)
        if count > self.settings.rate_limit_per_minute:
            raise RateLimited(
                f"More than {self.settings.rate_limit_per_minute} chat requests per minute",
                retry_after_s=int((window + 1) * 60 - now) + 1,
            )

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
            max_tool_calls_per_step=s.max_tool_calls_per_step,
            max_tool_args_bytes=s.max_tool_args_bytes,
            max_tool_output_bytes=s.max_tool_output_bytes,
            max_model_fix_retries=s.max_model_fix_retries,
            max_destructive_calls=s.max_destructive_calls_per_turn,
            fix_empty_final=s.fix_empty_final,
            max_tokens=s.llm_max_tokens,
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
