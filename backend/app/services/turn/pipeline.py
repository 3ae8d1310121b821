"""ChatService: one chat turn end to end.

    1. short transaction: rate limit, idempotency claim, conversation, history, the user message
    2. the tool loop (no transaction held; each tool step commits its own short transaction, or on
       Postgres sends a lone call's write with its record in one statement)
    3. short transaction: the assistant message, the question asked, the idempotency response (the
       tool executions' rows were written with their effects, in each tool step's transaction or
       statement)

A turn that fails before any tool ran leaves only the user message and the error behind.

This module is the pipeline and its run step (the loop, or the answer to a pending question); the
transactions are services/turn/store.py, the reply step services/turn/record.py, and a message that
answers a question services/turn/answers.py.
"""

from __future__ import annotations

import logging
import time
import uuid
from dataclasses import dataclass, replace
from datetime import date, datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.agent.guard_protocol import WordsReason
from backend.app.agent.limits import BudgetUse
from backend.app.agent.loop_types import ANSWERED, ChatCompletionsClient
from backend.app.agent.presets import Preset
from backend.app.agent.run_io import CallsObserver, RunResult
from backend.app.agent.runner import AgentRunner
from backend.app.calls.said import Commands, Said, SaidAction, SaidAdd
from backend.app.calls.tools import READING, Tool
from backend.app.core.clock import NO_ZONE_NAMES, Clock, ZoneNames
from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError, InvalidRequest
from backend.app.core.jsontypes import JsonObject
from backend.app.core.logging import turn_id_var
from backend.app.core.metrics import Metrics
from backend.app.db.repositories.preferences import user_clock
from backend.app.db.repositories.routing import Observed
from backend.app.db.repositories.tasks import TaskRepository
from backend.app.db.session import unit_of_work
from backend.app.language.catalog import texts
from backend.app.language.detect import detect
from backend.app.language.lexicon import fold
from backend.app.language.reading.asks import Intent, without
from backend.app.language.reading.offer import offered_change
from backend.app.language.reading.whole import names_every_task
from backend.app.schemas.chat import ChatRequest, ChatResponse
from backend.app.schemas.metadata import ModelInfo, PresetInfo
from backend.app.services.confirmations.questions import Proposal, restated, which_restated
from backend.app.services.guard.claims import claims
from backend.app.services.guard.execution import ExecutionGuard
from backend.app.services.reply.live import LiveReply, ReplyListener
from backend.app.services.turn import prompt
from backend.app.services.turn.answers import AnswerRun, run_answer
from backend.app.services.turn.commands import asked_in, gives_in
from backend.app.services.turn.context import (
    Step,
    TurnContext,
    options_summary,
    run_options,
    turn_budget,
)
from backend.app.services.turn.history import fit_history
from backend.app.services.turn.record import Finished, finish
from backend.app.services.turn.routing import Router
from backend.app.services.turn.store import TurnStore
from backend.app.tools.factory import task_tools_factory
from backend.app.tools.resolver import ReferenceResolver
from backend.app.tools.task_tools import TaskTools

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Replayed:
    """A replay's answer: the response stored under its Idempotency-Key, served exactly as it was
    stored. It may be an error's body, or a response an earlier version wrote, with fields the model
    now has no more or requires, so it is not read into `ChatResponse` again."""

    status: int
    body: JsonObject


# A turn's answer: the response of a turn that ran, or the stored one of a turn that is replayed.
TurnAnswer = ChatResponse | Replayed


def _commands(message: str, intent: Intent, today: date) -> Commands:
    """The calls `message` asks for (`asked_in`): the tasks to add, with the priority and due date the
    user gave, and the user's own reference for each other call, by tool."""
    asked = asked_in(message, today=today, intent=intent)
    references: dict[str, tuple[str, ...]] = {}
    for a in asked:
        if isinstance(ref := a.args.get("task_id"), str) and ref.strip():
            references[a.name] = (*references.get(a.name, ()), ref)
    adds = tuple(_said_add(a.args, quoted=a.quoted) for a in asked if a.name == Tool.ADD)
    return Commands(adds, references)


def _said_add(args: dict[str, str], *, quoted: bool) -> SaidAdd:
    """A task the message asks to add, with the priority, due date and due time the user gave (a due
    time as a wall-clock time in the user's zone, as the tools take one without an offset)."""
    fields: dict[str, str | date] = {k: args[k] for k in ("priority",) if args.get(k)}
    if args.get("due_date"):
        fields["due_date"] = date.fromisoformat(args["due_date"])
    if args.get("due_at"):
        fields["due_at"] = datetime.fromisoformat(args["due_at"])
    return SaidAdd(str(args.get("title", "")), quoted=quoted, fields=fields)


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
        self.router = router  # several models: which one a turn asks first (services/turn/routing.py)
        self.metrics = metrics or Metrics()
        self.store = TurnStore(settings=settings, sessionmaker=sessionmaker, clock=clock)
        self.client = client
        self.model = model
        self.preset = preset
        self.clock = clock
        self.sessionmaker = sessionmaker
        self.resolver = ReferenceResolver(threshold=settings.resolver_threshold)
        self.options = run_options(settings, preset)
        # The model, preset and options every turn runs with, as its execution metadata shows them.
        self.model_info = ModelInfo(
            name=model,
            client=client.label,
            offline=client.label == "offline",
            preset=PresetInfo.model_validate(preset.describe()),
            options=options_summary(self.options),
            fallbacks=router.models[1:] if router is not None else None,
        )
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
        zones: ZoneNames = NO_ZONE_NAMES,
    ) -> TurnAnswer:
        """One turn. A streamed turn's `on_calls` hears of each step's calls as soon as they ran; its
        `listener`, in model mode, the model's words as they come, once checked (live_reply.py).
        `start_if_new`: the request's `conversation_id` is created when this user has none by that id
        (an AI SDK chat's conversation, api/ui_stream.py), where it would otherwise be 404. `zones`: the
        zone names the request brings besides its body's `time_zone` (the header's, the token's)."""
        # The turn id is on the logging context for the whole turn, so every line it logs carries it.
        if len(request.message) > self.settings.max_message_chars:
            raise InvalidRequest(f"message: at most {self.settings.max_message_chars} characters (MAX_MESSAGE_CHARS)")
        names, default = zones.before("time_zone", request.time_zone), self.settings.default_time_zone
        clock = await user_clock(self.sessionmaker, self.clock, user_id, names, default=default)
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
                clock=clock,
            )
            return await self._chat(turn)
        finally:
            turn_id_var.reset(token)

    async def _chat(self, turn: TurnContext) -> TurnAnswer:
        """The pipeline: prepare, run, reply, persist (then count)."""
        stored = await self.store.prepare(turn)
        if stored is not None:  # a replay runs nothing
            return Replayed(stored.status, stored.body)
        try:
            await self.store.read_answer(turn)
            run, step = await self._run(turn)
            if isinstance(run, RunResult) and step.guard is not None:
                run = await self._claims_checked(turn, run, step.guard)
            asked = await self._restated(turn, run, step) if isinstance(run, RunResult) else None
            finished = finish(
                turn, run, step, settings=self.settings, clock=self.clock, model=self.model_info, asked=asked
            )
            learned = self._learned(turn, run, finished) if isinstance(run, RunResult) else []
            await self.store.persist(turn, finished, learned)
            self._observe(turn, run, finished)
        except Exception as exc:
            # The user's message stays; the error is recorded beside it; nothing else was written
            # (a tool that ran has already reported through a 200 with stop_reason llm_error).
            error = exc if isinstance(exc, AppError) else AppError("An unexpected error occurred")
            self.metrics.observe_failed_turn(error.code)
            await self.store.record_failure(turn, error, self._failed(turn))
            log.warning("chat_turn_failed", extra={"turn_id": str(turn.turn_id), "error": error.code})
            raise
        return finished.response

    async def _run(self, turn: TurnContext) -> tuple[RunResult | AnswerRun, Step]:
        """The turn's work: an answer to the pending question (the calls a yes stands for, nothing
        after a no: its own kind of step, no model, no guard), else the tool loop."""
        if turn.answer is not None and turn.answer.verdict in ("run", "cancel"):
            return await run_answer(turn, self._tools(turn)), Step.answering(turn, self.settings)
        step = Step.guarded(turn, self.settings, self.preset, checks=self.checks_words)
        assert step.guard is not None  # a message the loop works on is always read by a guard
        return await self._loop(turn, step, step.guard), step

    async def _loop(self, turn: TurnContext, step: Step, guard: ExecutionGuard) -> RunResult:
        """A turn through the model: the reader's step, the guard, the loop."""
        settings, request = self.settings, turn.request
        messages: list[dict[str, str]] = [
            {"role": "system", "content": prompt.system_prompt(turn.clock.today(), turn.clock.zone_name)},
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
            executor=self._tools(turn, step if guard.enabled else None),
            policy=step.policy,
            expected_tools=step.intent.tools,
            use=use,
            guard=guard,
            stop_when_covered=settings.response_mode == "direct",
            on_calls=turn.on_calls,
            # Words are streamed as they come only where no check of them is awaited.
            on_reply=LiveReply(guard, turn.listener)
            if turn.listener is not None and settings.response_mode == "model" and not self.checks_words
            else None,
        )

    async def _claims_checked(self, turn: TurnContext, run: RunResult, guard: ExecutionGuard) -> RunResult:
        """The run with its shown words withheld when they name a task of the user's that no successful
        change touched, beside a change (one read of the titles, only when shown words may claim one)."""
        words = run.words
        text = guard.claiming_text(words, run.executed) if words is not None else ""
        if words is None or not text:
            return run
        named = await self._tools(turn).titles_named_in(text)
        step = max((e.step for e in run.executed), default=0)
        checked, events = guard.review_titles(words, named, run.executed, step=step)
        return replace(run, words=checked, guard_events=[*run.guard_events, *events]) if events else run

    async def _restated(self, turn: TurnContext, run: RunResult, step: Step) -> Proposal | None:
        """The model's question asked in the catalog's words (confirmations/questions.py), where
        nothing was changed and its words cannot be shown because the check that would verify them
        could not be read: what the user can answer, where only help or "not done" was said. Beside a
        command for one change of a task, only its question of which task (`which_restated`; the
        command's own actions are what the turn says); never beside a message that says no."""
        words = run.words
        if (
            not step.asks
            or step.intent.kind == "negated"
            or step.intent.declined
            or words is None
            or words.reason is not WordsReason.UNVERIFIED
            or run.stop_reason not in ANSWERED
            or any(e.call.name not in READING for e in run.executed)
            or claims(words.text)
        ):
            return None
        which = _one_change(step.intent) if step.intent.kind == "command" else None
        asked = offered_change(words.text) if step.intent.kind != "command" else None
        if which is None and asked is None:
            return None
        async with unit_of_work(self.sessionmaker) as session:
            tasks = await TaskRepository(session, turn.user_id).list_tasks()
        # In the model's language where the message's own could not be told ("yoga fällt aus").
        language = step.language if step.language.how != "default" else detect(words.text)
        t = texts(language.code)
        if which is not None:
            return which_restated(which, words.text, tasks, said=step.intent.about_for(which), t=t)
        return restated(asked, tasks, t=t) if asked is not None else None

    def _tools(self, turn: TurnContext, step: Step | None = None) -> TaskTools:
        """The turn's tools; with a guarded `step`, with what the message names for each action, to
        repair the model's arguments that name nothing."""
        said = None
        if step is not None and step.guard is not None:
            message, intent, today = turn.request.message, step.intent, turn.clock.today()
            context = step.guard.context
            besides_no = without(fold(message), intent.declined)  # a no's words give no value
            actions = tuple(SaidAction(a.tools, a.object, a.about) for a in intent.actions)
            said = Said(
                message,
                actions,
                lambda: _commands(message, intent, today),
                context,
                lambda: gives_in(f"{besides_no}\n{context}", today=today),
                lambda: gives_in(message, today=today) - gives_in(besides_no, today=today),
            )
        return self.tools_for(
            turn.user_id,
            source="chat",
            conversation_id=turn.conversation_id,
            turn_id=turn.turn_id,
            context=turn.conversation,
            said=said,
            clock=turn.clock,
        )

    def _learned(self, turn: TurnContext, run: RunResult, finished: Finished) -> list[Observed]:
        """With several models: how each model asked did on this turn (services/turn/routing.py). Only a run of
        the loop has any: an answer to the pending question asks no model."""
        if turn.routing is None or self.router is None:
            return []
        metadata = finished.response.execution_metadata
        latency_ms = float(metadata.total_latency_ms)
        return self.router.observed(turn.routing, run, guard_outcome=metadata.guard.outcome, latency_ms=latency_ms)

    def _failed(self, turn: TurnContext) -> list[Observed]:
        """With several models: the outcome of a turn that ended in an error (services/turn/routing.py)."""
        if turn.routing is None or self.router is None:
            return []
        latency_ms = (time.monotonic() - turn.started) * 1000
        return self.router.failed(turn.routing, latency_ms=latency_ms)

    def _observe(self, turn: TurnContext, run: RunResult | AnswerRun, finished: Finished) -> None:
        reply, guard_outcome = finished.reply, finished.response.execution_metadata.guard.outcome
        self.metrics.observe_turn(
            stop_reason=run.stop_reason,
            guard_outcome=guard_outcome,
            guard_events=[(e.decision.value, e.reason.value) for e in run.guard_events],
            tool_results=[(e.call.name, e.result.success) for e in run.executed if e.ran],
            findings=[(f.kind.value, f.budget) for f in finished.findings],
            replaced=[r.why for r in reply.replaced],
            not_done=[o.reason.value for o in reply.not_done if o.reason is not None],
        )
        log.info(
            "chat_turn",
            extra={
                "turn_id": str(turn.turn_id),
                "stop_reason": run.stop_reason.value,
                "llm_calls": run.use.llm_calls if isinstance(run, RunResult) else 0,
                "guard": guard_outcome,
            },
        )


def _one_change(intent: Intent) -> Tool | None:
    """The one delete or completion every action of a command asks ("delete the Q one"), none of them
    over every task ("delete everything except gym" asks no choice of one). Not an edit: its values
    are the model's to give ("move the Q one to friday")."""
    tools = {a.tool for a in intent.actions}
    if len(tools) != 1 or any(names_every_task(a.about) for a in intent.actions):
        return None
    tool = tools.pop()
    return tool if tool in (Tool.DELETE, Tool.COMPLETE) else None
