"""The execution guard's review of a step's changes before they run: which run, which are refused,
which act only on what the user's words name (`Grounding`) and which are asked about.

Apart from the guard (`guard.py`) because this decides from the message as read (`Intent`) and the
step's calls alone: it returns its decisions as a value (the verdict, the events, the tool asked for),
and the guard passes them on in its own verdict and decides whether that tool may still be forced
(once a turn, from the events decided so far).

The calls (README, "The guard and the reply"):

- A clear command whose tool the model calls: a delete, complete or edit acts on the model's target
  when the words asking for it name it, point to it ("it") or the user's own reference resolves to it
  ("the dentist"); another target is asked about. Never one that only content names (a quoted title,
  a task to add: `Grounding.not_names`); an add's title must share a word with what the user asked
  to add or the conversation before.
- Another add, delete or complete than the one asked for: not run (the asked tool is forced once);
  beside what was asked: it acts only on a task the user's own words name, outside content.
- A message that asks for no change (a question, advice, a report, a negation, a retraction, small
  talk): nothing it did not ask for is changed. A delete or complete on a task the user's words name
  is looked up and asked about (never after a negation); anything else is refused (when every change
  was refused, the guard asks the model again for an answer in words).
  Read as nothing at all (`chat`: other wording, another language) it may still be a request: an add
  or an edit acts only on what the user's words name, and an add is never the whole message; a
  delete or complete, a change on a message with a question mark, and a change made after the model
  claimed one it had not made are looked up and asked about.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from backend.app.agent.guard import CallsVerdict
from backend.app.agent.types import GuardDecision, GuardEvent, GuardReason
from backend.app.calls.codes import ResultCode
from backend.app.calls.types import Grounding, ToolCall, ToolResult
from backend.app.services.clauses import names_something
from backend.app.services.intent import Intent
from backend.app.tools.resolver import named_in

READ_TOOLS = frozenset({"list_tasks"})
EDIT_TOOL = "update_task"
ADD_TOOL = "add_task"
ASKABLE = frozenset({"delete_task", "complete_task"})
_NO_CHANGE = "Not run: the user's message asks for no change. Answer without changing anything."
_TOO_LONG = "Not run: the user's message is too long to act on. Ask them to send their requests in shorter messages."


@dataclass(frozen=True, slots=True)
class ChangesReview:
    """The review of one step's changes: the verdict for the loop (no retry in it; the guard's events
    in the order they were decided), and `force`, the tool asked for when another change was refused
    in its place (the guard forces it, unless it already did this turn)."""

    verdict: CallsVerdict
    force: str | None = None


def review_changes(
    intent: Intent,
    calls: Sequence[ToolCall],
    changes: list[int],
    *,
    message: str,
    context: str,
    missing: str | None,
    step: int,
    forced: bool,
) -> ChangesReview:
    """`changes`: the indexes of the calls that would change something; `message`: the user's words;
    `context`: their earlier messages; `missing`: the tool of the first explicit action no call has
    attempted yet; `forced`: the request forced a tool on the model."""
    if not intent.needs_tool:
        return _unrequested(intent, calls, changes, message=message, step=step, forced=forced)
    return _commanded(intent, calls, changes, context=context, missing=missing, step=step, forced=forced)


def _unrequested(
    intent: Intent, calls: Sequence[ToolCall], changes: list[int], *, message: str, step: int, forced: bool
) -> ChangesReview:
    """Changes on a message that asks for none (or was read as nothing)."""
    events: list[GuardEvent] = []
    if intent.kind == "too_long":  # not read: what it asks for is not known, it may take back anything
        for i in changes:
            events.append(GuardEvent(step, GuardDecision.REFUSED, GuardReason.TOO_LONG, calls[i].name))
        refusals = {i: _refusal(ResultCode.TOO_LONG_TO_READ, _TOO_LONG) for i in changes}
        return ChangesReview(CallsVerdict(refused=refusals, events=tuple(events)))
    # The user's words, and the text they quoted: which action a quote belongs to is unknown here,
    # so it may be a title to add, or name the task asked about, never the target of a change.
    free = intent.free
    said = "\n".join([free, *intent.quotes])
    refused: dict[int, ToolResult] = {}
    grounding: dict[int, Grounding] = {}
    if forced:  # the retry after a claimed change: the claim was the model's, so what it names is asked about
        quoted = [q.strip(" \"'") for q in intent.quotes]
        for i in changes:
            if _whole_message(calls[i], message) and len(quoted) == 1 and quoted[0]:
                # The whole message as a title, where it quotes one: the quote is the title the
                # user gave ("mets-moi « vérifier le loyer » pour le 1er"), asked about.
                grounding[i] = Grounding(names=said, ask=True, title=quoted[0])
            elif _whole_message(calls[i], message):
                refused[i] = _refusal(ResultCode.NOT_REQUESTED, _NO_CHANGE)
            else:
                grounding[i] = Grounding(names=said, ask=True)
            decision = GuardDecision.REFUSED if i in refused else GuardDecision.ASKS
            events.append(GuardEvent(step, decision, GuardReason.NOT_ASKED, calls[i].name))
        return ChangesReview(CallsVerdict(refused=refused, grounding=grounding, events=tuple(events)))
    kind = intent.kind
    for i in changes:
        call = calls[i]
        if kind == "chat" and not _whole_message(call, message):
            # Read as nothing (other wording, another language, a verb out of a command's place):
            # it may be a request, or a question the reader missed. An add or an edit acts only on
            # what the user's words name; a delete or complete, or any change on a message asking
            # something ("lohnt es sich, die Versicherung zu wechseln?"), is looked up and asked about.
            ask = call.name in ASKABLE or _asks_something(free)
            # What the user quoted may name the task asked about, never one changed unasked.
            grounding[i] = Grounding(names=said if call.name == ADD_TOOL or ask else free, ask=ask)
            decision = GuardDecision.ASKS if ask else GuardDecision.GROUNDED
            reason = GuardReason.NOT_ASKED if ask else GuardReason.EXTRA_CALL
            events.append(GuardEvent(step, decision, reason, call.name))
        elif call.name in ASKABLE and kind != "negated":
            grounding[i] = Grounding(names=said, ask=True)
            events.append(GuardEvent(step, GuardDecision.ASKS, GuardReason.NOT_ASKED, call.name))
        elif call.name in ASKABLE and (rest := _without(said, intent.declined)).strip():
            # "don't delete yoga, it's the laundry that needs to go": never what the no names; a
            # task the rest of the message names is asked about.
            grounding[i] = Grounding(names=rest, not_names="\n".join(intent.declined), ask=True)
            events.append(GuardEvent(step, GuardDecision.ASKS, GuardReason.NOT_ASKED, call.name))
        else:
            refused[i] = _refusal(ResultCode.NOT_REQUESTED, _NO_CHANGE)
            events.append(GuardEvent(step, GuardDecision.REFUSED, GuardReason.NOT_ASKED, call.name))
    return ChangesReview(CallsVerdict(refused=refused, grounding=grounding, events=tuple(events)))


def _commanded(
    intent: Intent,
    calls: Sequence[ToolCall],
    changes: list[int],
    *,
    context: str,
    missing: str | None,
    step: int,
    forced: bool,
) -> ChangesReview:
    """Changes on a message that asks for some: those asked for, an edit standing in for one, and others."""
    expected = set(intent.tools)
    asked = [i for i in changes if calls[i].name in expected]
    edits = [i for i in changes if calls[i].name == EDIT_TOOL and EDIT_TOOL not in expected]
    others = [i for i in changes if calls[i].name not in expected and calls[i].name != EDIT_TOOL]
    events = [GuardEvent(step, GuardDecision.TRUSTED, GuardReason.MODEL_CHOSE_EDIT, calls[i].name) for i in edits]
    grounding: dict[int, Grounding] = {}
    if others and not asked and missing is not None:
        # Another change than the one asked for, and nothing asked for in this step: not run.
        refused = {
            i: _refusal(ResultCode.WRONG_TOOL, f"Not run: the user asked for {missing}, not {calls[i].name}.")
            for i in others
        }
        for i in others:
            events.append(GuardEvent(step, GuardDecision.REFUSED, GuardReason.WRONG_TOOL, calls[i].name))
        words = "\n".join(intent.words_for(t) for t in intent.tools) or intent.free
        grounding = {i: Grounding(names=words, not_names=intent.content_for(EDIT_TOOL)) for i in edits}
        return ChangesReview(CallsVerdict(refused=refused, grounding=grounding, events=tuple(events)), force=missing)
    reason = GuardReason.FORCED_CALL if forced else GuardReason.EXTRA_CALL
    for i in others:  # beside what was asked: only what the user's own words name
        grounding[i] = _beside(intent, calls[i].name)
        events.append(GuardEvent(step, GuardDecision.GROUNDED, reason, calls[i].name))
    for i in edits:  # an edit standing in for a change asked for: what the words of those changes name
        words = "\n".join(intent.words_for(t) for t in intent.tools) or intent.free
        grounding[i] = Grounding(names=words, not_names=intent.content_for(EDIT_TOOL))
        events.append(GuardEvent(step, GuardDecision.GROUNDED, reason, calls[i].name))
    for i in asked:
        name = calls[i].name
        if name == ADD_TOOL:  # its title shares a word with what the user asked to add, quoted, or said before
            words = "\n".join([intent.words_for(ADD_TOOL), *intent.quotes, context])
            grounding[i] = Grounding(names=words)
        elif forced and name not in READ_TOOLS:
            grounding[i] = Grounding(names=_own(intent, name), not_names=intent.content_for(name))
            events.append(GuardEvent(step, GuardDecision.GROUNDED, GuardReason.FORCED_CALL, name))
        elif name in ASKABLE or name == EDIT_TOOL:
            # The model's own target for a delete, complete or edit: one the words asking for it
            # name, the task they point to ("it") or the one the user's own reference resolves to
            # ("the dentist"); another is asked about, never changed unasked.
            own = _own(intent, name)
            grounding[i] = Grounding(names=own, not_names=intent.content_for(name), ask_unnamed=True)
        elif name not in READ_TOOLS:
            grounding[i] = Grounding(not_names=intent.content_for(name))
    return ChangesReview(CallsVerdict(grounding=grounding, events=tuple(events)))


def _whole_message(call: ToolCall, message: str) -> bool:
    """An add whose title is the whole message: the user's words, but nothing asks for them to be a task."""
    title = (call.arguments or {}).get("title")
    return call.name == ADD_TOOL and isinstance(title, str) and named_in(title, message)


def _own(intent: Intent, tool: str) -> str:
    """The clauses asking for `tool`; when they name no task ("mark it done", "coche-les"), with the
    words no action took, which say what "it" is ("FINALLY filed my taxes!!! mark it done")."""
    clauses = intent.clauses_for(tool)
    return clauses if names_something(intent.about_for(tool)) else f"{clauses}\n{intent.free}"


def _beside(intent: Intent, tool: str) -> Grounding:
    """A change the message was not read to ask for: only on what the words asking for it name,
    or, when none do, the words no action took; never on content."""
    return Grounding(names=intent.words_for(tool) or intent.free, not_names=intent.content_for(tool))


def _without(words: str, parts: Sequence[str]) -> str:
    """`words` without `parts` (the clauses of a no), as far as they are found in it."""
    for part in parts:
        words = words.replace(part, " ")
    return " ".join(words.split())


def _asks_something(words: str) -> bool:
    """A question mark in any script: the message asks, whatever its words."""
    return any(mark in words for mark in "?？¿؟")


def _refusal(code: ResultCode, message: str) -> ToolResult:
    return ToolResult(success=False, code=code, error=message)
