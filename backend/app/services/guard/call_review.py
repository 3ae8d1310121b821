"""The facts of a step's changes before they run, for the decision table (calls/verdicts.py, rows
C1-C19, docs/guard.md), and what its verdicts let each one act on.

For each change the model made this gathers what the message asks of its tool as the reader read it
(`Reading`: asked for, a command for other tools, nothing, a no, not read), whether the message is
a yes to the assistant's question about it, whether the request forced it, and what the message
looks like (its whole text as an add's title, one quoted title, a question mark). The table says
whether the call runs, is asked about or is refused; this turns the verdict into the call's
`Grounding`: which of the user's words its target (or an add's title) must be named by, and which
only give content (a quoted title, a task to add, what a no names).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from backend.app.agent.guard_protocol import CallsVerdict
from backend.app.calls.decisions import Do, GuardEvent, GuardReason, Verdict
from backend.app.calls.facts import CallFacts, Forcing, Ground, Grounding, Hold, Reading
from backend.app.calls.tools import Tool, traits
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.calls.verdicts import decide
from backend.app.language.lexicon import fold, lexicons
from backend.app.language.reading.asks import Action, Intent, without
from backend.app.language.reading.naming import names_something
from backend.app.tools.titles import named_in

_NO_CHANGE = "Not run: the user's message asks for no change. Answer without changing anything."
_WHY = {GuardReason.NOT_ASKED: _NO_CHANGE}


@dataclass(frozen=True, slots=True)
class Answered:
    """The assistant's question the user's message answers: each change it asked about, with the
    words that name what the answer grounds (a yes: the clauses asking that change; a choice: the
    option picked, "Q10" of "1) Q1, 2) Q10", for the change the user's request before it asked), and
    what the question said no to or left out ("…, but not Taxes?", "… everything except Taxes?"):
    content, never a target, so a yes to a question about the whole list leaves it alone. `pointed`:
    for a change whose clauses point ("Do you want me to mark it as done?"), the words that say which
    task "it" is (the model's sentences beside the question and the user's request before it, both
    without their nos). `offered`: the one change the question plainly offers ("Should I delete
    “Gym”?", language/reading/offer.py), which a yes answered with a claim alone has forced (A12)."""

    changes: dict[str, str]
    declined: str = ""
    pointed: dict[str, str] = dataclasses.field(default_factory=dict)
    offered: str | None = None


def reading_of(intent: Intent, tool: str | None = None) -> Reading:
    """What the message asks of `tool` (None: of any tool), as the reader read it."""
    if intent.needs_tool:
        return Reading.ASKED if tool is None or tool in intent.tools else Reading.OTHER
    if intent.kind == "negated":
        return Reading.DECLINED
    if intent.kind == "chat":
        return Reading.UNREAD
    return Reading.NOTHING


def review_changes(
    intent: Intent,
    calls: Sequence[ToolCall],
    *,
    message: str,
    context: str,
    step: int,
    forced: bool,
    guarded: bool,
    answered: Answered | None = None,
) -> CallsVerdict:
    """`message`: the user's words; `context`: their earlier messages; `forced`: the request forced a
    tool on the model; `guarded`: the policy guards (else every call runs as the model made it);
    `answered`: the assistant's question before, when `message` answers it (a yes, or a choice)."""
    refused: dict[int, ToolResult] = {}
    grounding: dict[int, Grounding] = {}
    events: list[GuardEvent] = []
    quotes = [q.strip(" \"'") for q in intent.quotes]
    added = _titles_given(calls, message)
    for i, call in enumerate(calls):
        facts = _facts(intent, call, message=message, forced=forced, quotes=quotes, guarded=guarded)
        if answered is not None and call.name in answered.changes:
            facts = dataclasses.replace(facts, yes_to_question=True)
        verdict = decide(facts)
        if (event := verdict.event(step, call.name)) is not None:
            events.append(event)
        if verdict.do is Do.REFUSE:
            assert verdict.reason is not None
            refused[i] = verdict.refusal(_WHY[verdict.reason])
            continue
        if verdict.hold is None or verdict.hold is Hold.ANY:
            continue  # a read, or no guard: the call acts as the model made it
        names, not_names = _words(
            intent, verdict, call, message=message, context=context, answered=answered, added=added
        )
        title = quotes[0] if verdict.quoted_title else None
        question = answered if verdict.ground is Ground.QUESTION else None  # the yes's: what "it" is
        pointed = question.pointed.get(call.name, "") if question is not None else ""
        items = _items_of(intent, call.name)
        beside = [a for a in intent.kept_beside if call.name in a.tools and not _two_readings(a, call.name)]
        beside = beside if verdict.ground is Ground.REST else []
        items += tuple(a.clause for a in beside if not a.explicit)  # a verbless one names in part (T13, T19)
        grounding[i] = verdict.grounding(
            names=names,
            not_names=not_names,
            title=title,
            forced=forced,
            pointed=pointed,
            items=items,
            kept=intent.kept if beside else (),
            kept_beside="\n".join(a.clause for a in beside),
        )
    return CallsVerdict(refused=refused, grounding=grounding, events=tuple(events))


def _facts(
    intent: Intent, call: ToolCall, *, message: str, forced: bool, quotes: list[str], guarded: bool
) -> CallFacts:
    reading = reading_of(intent, call.name)
    # On a message that asks for no change, only the retry after a claimed change forces a tool.
    forcing = Forcing.NONE if not forced else Forcing.TOOL if intent.needs_tool else Forcing.GHOST
    # Facts only the rows for unread messages, a retry after a claim, or a no read are gathered only
    # there (the others' rows never read them).
    unread = reading is Reading.UNREAD or forcing is Forcing.GHOST
    return CallFacts(
        traits=traits(call.name),
        guarded=guarded,
        reading=reading,
        forcing=forcing,
        add=call.name == Tool.ADD,
        edit=call.name == Tool.UPDATE,
        whole_message=unread and _whole_message(call, message),
        one_quote=len(quotes) == 1 and bool(quotes[0]),
        asks_something=unread and any(mark in intent.free for mark in "?？¿؟"),
        rest_names=reading is Reading.DECLINED and names_something(" ".join(_said_but_no(intent))),
        states=intent.kind == "state",
        either=_either(intent, call.name),
        stands_in=call.name == Tool.UPDATE
        and (call.arguments or {}).get("status") == "completed"
        and Tool.COMPLETE in intent.tools,
    )


def _either(intent: Intent, tool: str) -> bool:
    """Whether every command asking for this change asks as much for a gentler one (`_two_readings`)."""
    asking = [a for a in intent.actions if tool in a.tools]
    return bool(asking) and all(_two_readings(a, tool) for a in asking)


def _two_readings(action: Action, tool: str) -> bool:
    """Whether `tool` takes the task away (a delete: `capped`) and the command asks as much for a
    change that keeps it, by a verb of two tools ("tacha gym", "raye gym", "strike off gym": done, or
    gone): a delete there is asked about, never run beside a keep either (T19)."""
    return traits(tool).capped and any(not traits(t).capped for t in action.tools)


def _words(
    intent: Intent,
    verdict: Verdict,
    call: ToolCall,
    *,
    message: str,
    context: str,
    answered: Answered | None,
    added: Sequence[str] = (),
) -> tuple[str | None, str]:
    """The words the call's target (or title) must be named by, and those that only give content.
    `added`: the titles this step adds that the message holds (`_titles_given`). Words no action
    took never hold the message's no ("add milk, don't delete gym" deletes nothing): those give
    content only (`content_for`; row T4 refuses a call they alone name)."""
    tool = call.name
    free, *quotes = _said_but_no(intent)
    said, no = "\n".join([free, *quotes]), "\n".join(intent.declined)  # what it says no to: content
    match verdict.ground:
        case None:
            return None, ""
        case Ground.OWN:
            return _own(intent, tool), intent.content_for(tool)
        case Ground.ACTION:
            # What other actions' words name is theirs: "delete Read book" names no task to complete.
            # But an add whose title is another action's whole clause takes it as an item of a list
            # ("lista de la compra: leche, borrar el grupo de whatsapp, ..."): that clause was content.
            items = _items_added(intent, call)
            others = [w for t in intent.tools if t != tool for w in intent.words_for(t).splitlines() if w not in items]
            content = dict.fromkeys(filter(None, [*intent.content_for(tool).splitlines(), *others]))
            # What only supposes names no task to change; an add changes none ("if it rains add umbrella").
            unasked = without(free, (*intent.asked_state, *(intent.supposed if traits(tool).targets else ())))
            own = "\n".join(filter(None, [intent.words_for(tool) or unasked, *items]))
            return own, "\n".join(c for c in content if c not in items)
        case Ground.ASKED:
            words = "\n".join(intent.words_for(t) for t in intent.tools) or intent.free
            return words, intent.content_for(tool)
        case Ground.SAID:
            if not traits(tool).targets or not added:
                return said, no
            # Words inside the title of a task the step adds were made a title: they name no task
            # to change ("add: cancel Netflix and delete the account" deletes nothing).
            return without(fold(said), added), "\n".join([*added, *intent.declined])
        case Ground.FREE:
            return free, no
        case Ground.REST:
            return said, "\n".join(intent.declined)
        case Ground.MESSAGE:  # where the message says no, what it says apart from its no
            typed = "\n".join([*(intent.words_for(t) for t in intent.tools), said]) if intent.declined else message
            return "\n".join(filter(None, [typed, context])), intent.content_for(tool) if intent.declined else ""
        case Ground.QUESTION:
            assert answered is not None  # the table grounds on the question only after a yes to it
            return answered.changes.get(tool, ""), answered.declined


def _items_of(intent: Intent, tool: str) -> tuple[str, ...]:
    """The verbless items of a command of `tool` that are its items only by where they stand: after its
    verb ("taxes can stay" of "delete gym, taxes can stay"), or before a verb that comes last whose
    own clause names a task ("Gym bleibt, Taxes löschen"); not before one whose clause names none,
    which they say what it is about ("wäsche ist durch, kannst du abhaken")."""
    actions = [a for a in intent.actions if tool in a.tools]
    items: list[str] = []
    for k, action in enumerate(actions):
        if action.explicit:
            continue
        after = next((a for a in actions[k + 1 :] if a.explicit), None)
        if any(a.explicit for a in actions[:k]) or (after is not None and names_something(after.about)):
            items.append(action.object)
    return tuple(items)


def _items_added(intent: Intent, call: ToolCall) -> list[str]:
    """The words of the other actions whose whole clause is this add's title (an item of a pasted list
    that begins with a verb: "borrar el grupo de whatsapp del cumple" added as a task)."""
    title = (call.arguments or {}).get("title") if call.name == Tool.ADD else None
    if not isinstance(title, str) or not title.strip():
        return []
    return [
        a.object
        for a in intent.actions
        if a.tool != Tool.ADD and named_in(title, a.clause) and named_in(a.clause, title)
    ]


def _whole_message(call: ToolCall, message: str) -> bool:
    """An add whose title is the whole message: the user's words, but nothing asks for them to be a task."""
    title = (call.arguments or {}).get("title")
    return call.name == Tool.ADD and isinstance(title, str) and named_in(title, message)


def _own(intent: Intent, tool: str) -> str:
    """The clauses asking for `tool`; when they name no task ("mark it done", "coche-les"), with the
    words no action took, which say what "it" is ("FINALLY filed my taxes!!! mark it done"), but
    never what the message says no to ("borra todo excepto gym"). Only where those words name none
    and no clause says no to `tool`, a no to another change says it ("don't delete gym, complete
    it"; not "don't delete gym, I only finished taxes, mark it done", "never delete or complete gym,
    complete it", nor a place in a list, "don't delete gym, complete #2"). Beside a command of this
    tool alone, one by a verb of two tools (`_two_readings`) is not its own: "delete gym, strike off
    taxes" runs the delete of Gym and asks about Taxes (T13)."""
    clauses, about = intent.clauses_for(tool), intent.about_for(tool)
    if plain := [a.clause for a in intent.actions if tool in a.tools and not _two_readings(a, tool)]:
        clauses = "\n".join(dict.fromkeys(plain))
    if names_something(about):
        return clauses
    said = _said_but_no(intent)[0]
    if not (names_something(said) or intent.says_no_to(tool) or _placed(about)):
        said = intent.free  # the nos are all of other changes: they say what "it" is
    return f"{clauses}\n{said}"


def _placed(about: str) -> bool:
    """Whether words that name no task point at a place in a list ("#2", "task 2", "the first one",
    "the last one"), not at what the message names ("it", "it first", "lo"): a no's words never say
    which that is."""
    folded = " ".join(re.sub(r"[^\w\s']", " ", fold(about)).split())
    return any(c.isdigit() for c in folded) or any(p.fullmatch(folded) for p in _places())


@cache
def _places() -> list[re.Pattern[str]]:
    """Every language's words for a place in a list shown: ordinals, "the last one", "the previous one"."""
    found = [p for lex in lexicons() for p in (*lex.ordinals, lex.reference("last"), lex.reference("previous"))]
    return [p for p in found if p is not None]


def _titles_given(calls: Sequence[ToolCall], message: str) -> list[str]:
    """The titles of the step's adds that are a part of the message holding more than one word: text
    the model made a title, which the user gave as content. Not a title that is the whole message
    (the model's copy of it), nor one word (a task's own name, which names that task). Folded as the
    reader folds the message (`Intent.free`)."""
    folded = " ".join(fold(message).split())
    titles = [str((c.arguments or {}).get("title") or "") for c in calls if c.name == Tool.ADD]
    given = [" ".join(fold(t).split()) for t in titles]
    return [t for t in given if len(t.split()) > 1 and t in folded and t != folded]


def _said_but_no(intent: Intent) -> list[str]:
    """The words no action took, then the quotes, without what the message says no to (row C14 asks
    about what rests; the other rows' words never hold it)."""
    if not intent.declined:
        return [intent.free, *intent.quotes]
    no = {fold(d) for d in intent.declined}
    return [without(intent.free, intent.declined), *(q for q in intent.quotes if fold(q) not in no)]
