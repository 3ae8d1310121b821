"""One chat turn's context (`TurnContext`), how its message is read and guarded (`Step`), and the
budgets and loop options it runs under."""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC

from backend.app.agent.limits import Budget
from backend.app.agent.policy import ToolPolicy
from backend.app.agent.presets import Preset
from backend.app.agent.run_io import CallsObserver, RunOptions
from backend.app.calls.decisions import GuardEvent
from backend.app.calls.tools import CHANGING
from backend.app.core.clock import LocalClock, SystemClock
from backend.app.core.config import Settings
from backend.app.db.repositories.conversations import HistoryRow
from backend.app.language.catalog import Texts, texts
from backend.app.language.detect import Language, detect
from backend.app.language.lexicon import fold, words_of
from backend.app.language.reading.asks import Intent, without
from backend.app.language.reading.exceptions import of_every
from backend.app.language.reading.intent import classify
from backend.app.language.reading.naming import names_something
from backend.app.language.reading.offer import offered_change
from backend.app.language.reading.question import Question, points, read_question
from backend.app.schemas.chat import ChatRequest
from backend.app.schemas.metadata import OptionsInfo, PolicyInfo
from backend.app.services.confirmations.questions import Answer
from backend.app.services.guard.call_review import Answered
from backend.app.services.guard.execution import ExecutionGuard
from backend.app.services.guard.reply_check import check_request
from backend.app.services.reply.live import ReplyListener
from backend.app.services.turn import prompt
from backend.app.services.turn.routing import Choice
from backend.app.tools.account import TurnAccount
from backend.app.tools.referents import Referents
from backend.app.tools.titles import exactly_named

GUARDED_POLICIES = {ToolPolicy.GUARDED, ToolPolicy.REQUIRED, ToolPolicy.FORCED_INTENT, ToolPolicy.TWO_PHASE}


NO_CONVERSATION = uuid.UUID(int=0)
RECENT_ROWS = 6  # the conversation an asked add may take its title from ("add it again")


@dataclass(slots=True)
class TurnContext:
    """One chat turn's context, filled as the pipeline goes (services/turn/pipeline.py): who, what, where,
    and what came before."""

    user_id: str
    request: ChatRequest
    turn_id: uuid.UUID
    started: float
    idempotency_key: str | None
    conversation_id: uuid.UUID = NO_CONVERSATION  # set once the conversation is opened
    history: list[HistoryRow] = field(default_factory=list)
    conversation: Referents = field(default_factory=Referents)  # read from the history
    answer: Answer | None = None  # the message read as the answer to the previous turn's question
    on_calls: CallsObserver | None = None  # told of the calls as they run (a streamed turn)
    listener: ReplyListener | None = None  # hears the model's checked words as they come (a streamed turn)
    start_if_new: bool = False  # the request's conversation_id is created when it is new (chat.py)
    routing: Choice | None = None  # with several models: the one asked first, and why (services/turn/routing.py)
    clock: LocalClock = field(default_factory=lambda: LocalClock(SystemClock(), UTC))  # the user's (core/clock.py)


@dataclass(frozen=True, slots=True)
class Step:
    """How the message is read and guarded, under which policy, and the language the turn answers in.
    Two kinds: a message the loop works on (`guarded`), and an answer to the pending question
    (`answering`), which asks no model and has no guard."""

    intent: Intent
    guard: ExecutionGuard | None  # None: an answer to the pending question (nothing for a guard to decide)
    policy: ToolPolicy
    policy_info: PolicyInfo
    language: Language

    @property
    def asks(self) -> bool:
        """The turn may end with a question (confirm a change, choose a task): a guarded one, never an
        answer to the pending question."""
        return self.guard is not None

    @property
    def texts(self) -> Texts:
        return texts(self.language.code)

    def guard_outcome(self, events: Sequence[GuardEvent]) -> str:
        """The guard's one word for dashboards, from the run's events ("disabled": no guard)."""
        return self.guard.outcome(events) if self.guard is not None else "disabled"

    @classmethod
    def guarded(cls, turn: TurnContext, settings: Settings, preset: Preset, *, checks: bool) -> Step:
        """`checks`: the model's words are checked by the model before they are shown (REPLY_CHECK)."""
        message = turn.request.message
        intent = classify(message)
        requested = ToolPolicy(turn.request.tool_policy or settings.tool_policy)
        applied = ToolPolicy(preset.policy_downgrades.get(requested.value, requested.value))
        today = turn.clock.today()
        earlier = [row.content for row in turn.history[-RECENT_ROWS:] if row.role == "user"]
        guard = ExecutionGuard(
            intent=intent,
            message=message,
            context="\n".join(earlier),
            mutating_tools=CHANGING,
            enabled=applied in GUARDED_POLICIES,
            instruction=lambda tool: prompt.forced_instruction(tool, today),
            ghost_instruction=prompt.GHOST_INSTRUCTION,
            words_beside_results=settings.response_mode == "model",
            check=(lambda text: check_request(message, text)) if checks else None,
            answered=_answered(turn, intent),
        )
        info = PolicyInfo(
            requested=requested.value,
            applied=applied.value,
            downgraded_by=preset.name if applied is not requested else None,
        )
        language = detect(message, reader=intent.languages, previous=turn.conversation.language)
        return cls(intent, guard, applied, info, language)

    @classmethod
    def answering(cls, turn: TurnContext, settings: Settings) -> Step:
        """An answer to the pending question: no model, no guard (the user already said what to run)."""
        intent = Intent("chat", (), "an answer to the pending question")
        policy = ToolPolicy(turn.request.tool_policy or settings.tool_policy)
        language = detect(turn.request.message, previous=turn.conversation.language)
        info = PolicyInfo(requested=policy.value, applied="none", downgraded_by=None)
        return cls(intent, None, policy, info, language)


def _answered(turn: TurnContext, intent: Intent) -> Answered | None:
    """The assistant's question the user's message answers, if its words asked about a change (the
    backend's own questions are answered as pending confirmations, and expire): a yes ("yes please",
    "ja, mach") or the very change it asked about naming nothing else ("sí, bórralo") grounds each
    change it asked by the clauses that ask it; one of its options, by number or title ("2", "la 2",
    "Q10"), grounds the change the user's request before it asked, on that option only."""
    rows = [row for row in turn.history if row.role in ("user", "assistant")]
    if not rows or rows[-1].role != "assistant" or not any(mark in rows[-1].content for mark in "?？¿؟"):
        return None
    account = TurnAccount.from_json(rows[-1].context)
    if account.confirmation is not None:
        return None
    message = turn.request.message
    said = turn.conversation.answer(message)
    if said is False:
        return None
    question = read_question(rows[-1].content)
    no = "\n".join(question.declined)
    request = rows[-2].content if len(rows) > 1 and rows[-2].role == "user" else ""
    if said is True:
        model = account.words if account.words is not None else rows[-1].content
        pointing = [str(t) for t, w in question.changes.items() if points(w)]
        pointed = dict.fromkeys(pointing, _what_it_is(read_question(model).others, request)) if pointing else {}
        offered = str(plain[0]) if (plain := offered_change(model)) is not None else None
        return (
            Answered({str(t): w for t, w in question.changes.items()}, no, pointed, offered)
            if question.changes
            else None
        )
    if (option := _option(rows[-1].content, question, message)) is not None:
        requested, changes = set(classify(request).tools if request else ()), set(question.changes)
        asked = (requested & changes) or requested or changes  # what the user asked, where it can be read
        option, left = _kept(option)
        return Answered(dict.fromkeys(asked, option), "\n".join(filter(None, [no, left]))) if asked else None
    again = intent.needs_tool and all(
        set(a.tools) & set(question.changes)
        and (not names_something(a.about) or turn.conversation.answer(a.about) is True)
        for a in intent.actions
    )
    repeated = {str(t): w for t, w in question.changes.items() if t in intent.tools}  # only the change said again
    return Answered(repeated, no) if again and repeated else None


def _what_it_is(beside: Sequence[str], request: str) -> str:
    """The words that say which task a question that points means ("Do you want me to mark it as
    done?"): the model's sentences beside it that ask nothing (never the backend's lines: "Not done:
    …" quotes the request) and the user's request before it, each without its nos ("I won't delete
    Gym.", "don't delete gym, taxes is done" → "taxes is done"). "It" is the one task they name
    together, which only the titles can tell (tools/references.py); several are no one "it"."""
    sentences = [" ".join(s.split()) for s in [*beside, request]]
    said = [without(fold(s), classify(s).declined) for s in sentences if s]
    return "\n".join(s for s in said if s.strip())


# A question's numbered options: "1. Q1  2) Q10, 3) Q2" (up to a comma, a period, a new line or the next).
_END = r"(?=\s*(?:[,;\n]|\.\s|\s\d{1,2}[.)]\s|[?？]|$))"
_OPTION = re.compile(rf"(?<![\w.])(\d{{1,2}})[.)]\s*(.+?){_END}")
_NUMBER = re.compile(r"(?<!\d)\d{1,2}(?!\d)")
_AFTER_COMMA = re.compile(rf",.*?{_END}")  # what an option says after its comma, to its end


def _numbered(text: str) -> dict[int, str]:
    """A question's numbered options by number, each with what an exception after its comma leaves
    out of it ("1. todo, menos Gym": "todo, menos Gym"; never "1. Q1, 2. Q10")."""
    found: dict[int, str] = {}
    for m in _OPTION.finditer(text):
        rest = text[m.end() :]
        after = _AFTER_COMMA.match(rest) if rest.startswith(",") else None
        said = after.group() if after is not None else ""
        excepted = words_of("exception", "exception_after_all").match(fold(said[1:].lstrip())) is not None
        found[int(m[1])] = (m[2] + (said if excepted else "")).strip()
    return found


def _kept(option: str) -> tuple[str, str]:
    """An option's words without what it leaves out ("1) everything except Gym"), and those words."""
    folded = fold(option)
    if (span := of_every(folded)) is None:
        return option, ""
    start, end = span
    return f"{folded[:start]} {folded[end:]}".strip(), folded[start:end]


def _option(text: str, question: Question, message: str) -> str | None:
    """The option of the question the message picks: by its number ("2", "la 2", "#2") in a short
    answer, or by its title written whole, as one of the question's numbered options or one of its
    clauses that ask no change ("Q10" of "A1, A2 ya A10?")."""
    numbered = _numbered(text)
    said = message.strip()
    numbers: list[str] = _NUMBER.findall(said)
    if numbered and len(said.split()) <= 3 and len(numbers) == 1 and int(numbers[0]) in numbered:
        return numbered[int(numbers[0])]
    if any(exactly_named(said, o) and exactly_named(o, said) for o in numbered.values()):
        return said
    holding = [o for o in [*numbered.values(), *question.options] if exactly_named(o, said)]
    return said if len(set(holding)) == 1 else None  # the user's words, held by one option only


def turn_budget(settings: Settings, request: ChatRequest) -> Budget:
    """The server's per-turn budgets, each lowered by the request's own if it asks."""
    server = Budget(
        max_llm_calls=settings.budget_max_llm_calls,
        max_tool_calls=settings.budget_max_tool_calls,
        max_latency_ms=settings.budget_max_latency_ms,
        max_tokens=settings.budget_max_tokens,
        max_cost_usd=settings.budget_max_cost_usd,
    )
    if request.budget is None:
        return server
    wanted = {k: v for k, v in request.budget.model_dump().items() if v is not None}
    return dataclasses.replace(server, **wanted).capped_by(server) if wanted else server


def run_options(settings: Settings, preset: Preset) -> RunOptions:
    s = settings
    return RunOptions(
        max_steps=s.max_steps,
        tool_use_mode=preset.tool_use_mode,
        max_tool_calls_per_step=s.max_tool_calls_per_step if s.parallel_tool_calls else 1,
        max_tool_args_bytes=s.max_tool_args_bytes,
        max_tool_output_bytes=s.max_tool_output_bytes,
        max_model_fix_retries=s.max_model_fix_retries,
        max_destructive_calls=s.max_destructive_calls_per_turn,
        max_tokens=s.llm_max_tokens,
        tool_failure_policy=s.tool_failure_policy,
        request_overrides={} if s.parallel_tool_calls else {"parallel_tool_calls": False},
    )


def options_summary(options: RunOptions) -> OptionsInfo:
    """The options a turn ran under, as its execution metadata shows them."""
    o = options
    return OptionsInfo(
        max_steps=o.max_steps,
        tool_use_mode=o.tool_use_mode,
        max_tool_calls_per_step=o.max_tool_calls_per_step,
        max_tool_args_bytes=o.max_tool_args_bytes,
        max_tool_output_bytes=o.max_tool_output_bytes,
        fix_empty_final=o.fix_empty_final,
        max_tokens=o.max_tokens,
    )
