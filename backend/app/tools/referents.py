"""What the conversation has shown and done: "it", "the second one", "#2", "the one I just added",
and the answer to a question.

Each assistant turn stores a compact account of itself (`TurnAccount`, tools/account.py, in
`messages.context`). The next turn reads those accounts back (`Referents`) and resolves
references to them before any title matching: deterministic, owner-scoped (the ids are the user's
own, and TaskTools looks each up under the owner), and saying how it resolved ("'it' → Water plants
(the task added in the previous turn)"). The words ("it", "that one", "the second", "número 2", "the
previous one", yes, no) come from the language files' `[references]`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, cast

from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import Verdict
from backend.app.calls.payloads import Choice, Choices
from backend.app.calls.tools import Tool
from backend.app.calls.types import ToolResult
from backend.app.db.models import Task
from backend.app.db.repositories.conversations import HistoryRow
from backend.app.db.repositories.tasks import TaskRow
from backend.app.language.lexicon import Lexicon, fold, lexicons, words_of
from backend.app.language.reading.intent import classify
from backend.app.language.reading.naming import names_something
from backend.app.tools.account import DONE, FACTS, TaskRef, TurnAccount, facts_of

_EDGES = re.compile(r"^[\s\"'.,!?¿¡:;()-]+|[\s\"'.,!?¿¡:;()-]+$")
_POLITE_TAIL = re.compile(
    r"\s+(?:please|pls|thanks|thank you|por favor|s'il te plait|stp|bitte|danke|per favore|grazie|obrigad[oa]"
    r"|gracias|merci|shukriya|plz|alsjeblieft|aub|dank je)$"
)
_NUMBER = re.compile(r"\d{1,2}")
_REPEATED = re.compile(r"([^\W\d_])\1+")  # a letter typed over and over


@dataclass(frozen=True, slots=True)
class Pick:
    """A reference resolved into the conversation: the task, and how ("the task added ...")."""

    task: TaskRef
    how: str
    recent: bool = False  # "the one I just added": the one task the conversation added last, by name of it


@dataclass(frozen=True, slots=True)
class Unclear:
    """A reference into the conversation that names no single task: the user is asked."""

    reference: str
    candidates: tuple[TaskRef, ...]

    @property
    def message(self) -> str:
        numbered = "; ".join(f"{i}. {c.title}" for i, c in enumerate(self.candidates, start=1))
        if not numbered:
            return f"'{self.reference}' names no task I showed or changed in this conversation; name the task."
        return f"'{self.reference}' could be several tasks: {numbered}. Say which one."


def ambiguous(reference: str, tasks: Sequence[Task], *, offered: bool = False) -> ToolResult:
    """The answer to a title that fits several tasks: each numbered with its facts, twins (tasks of
    one title) in the order they were added, so the user can answer "2" or "the one due Friday"; the
    contract's opening words are kept. `offered`: the reference named none of `tasks` (a pointer
    into a conversation that showed no task): they are offered to choose from."""
    ranked = sorted(
        tasks, key=lambda t: (_first(tasks, t), t.created_at.isoformat() if t.created_at else "", str(t.id))
    )
    choices: list[Choice] = []
    listed: list[str] = []
    for number, task in enumerate(ranked, start=1):
        twins = [t for t in tasks if t.title.casefold() == task.title.casefold()]
        facts = facts_of(task)
        apart = [k for k in FACTS if len({str(facts_of(t).get(k)) for t in twins}) > 1] if len(twins) > 1 else []
        made = choice(str(task.id), task.title, facts, apart=apart, number=number)
        choices.append(made)
        listed.append(f"{number}. {task.title}" + (f" ({_english(made)})" if apart else ""))
    data = Choices(reference=reference, candidates=[c["title"] for c in choices], choices=choices)
    if offered:
        data["offered"] = True
        error = f"'{reference}' names no task shown: the user is asked which one: {'; '.join(listed)}"
    else:
        error = f"Multiple tasks match '{reference}'. Please be more specific: {'; '.join(listed)}"
    return ToolResult(success=False, code=ResultCode.AMBIGUOUS, error=error, data=data)


def choice(
    task_id: str, title: str, facts: Mapping[str, Any], *, apart: list[str] | None = None, number: int | None = None
) -> Choice:
    """One candidate of an AMBIGUOUS answer: its number (when the list is the tools'), its task, the
    facts (`facts_of`: keys of FACTS only) and which of them tell it from its twins."""
    made: dict[str, Any] = {"number": number} if number is not None else {}
    made |= {"id": task_id, "title": title, **facts, "apart": apart or []}
    return cast(Choice, made)  # the keys are Choice's: FACTS are its optional ones


def _first(tasks: Sequence[Task], task: Task) -> int:
    """Where the first task of this one's title stands among the candidates (best match first)."""
    return next(i for i, t in enumerate(tasks) if t.title.casefold() == task.title.casefold())


def _english(choice: Mapping[str, Any]) -> str:
    """The facts that tell a twin apart, for the model (the user reads them in their language)."""
    parts = []
    for key in choice["apart"]:
        value = choice.get(key)
        if key == "due_date":
            parts.append(f"due {value}" if value else "no due date")
        elif key == "priority":
            parts.append(f"{value} priority")
        elif key == "created" and value:
            parts.append(f"added {str(value)[:10]}")
        elif key == "tags":
            parts.append(" ".join(f"#{t}" for t in value or []) or "no tags")
        elif value:
            parts.append(str(value))
    return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Referents:
    """The tasks the conversation acted on last and showed last, which came later, the task acted on
    before those, the task added last, and the language the conversation was answered in."""

    acted: tuple[TaskRef, ...] = ()
    acted_how: str = ""
    shown: tuple[TaskRef, ...] = ()
    shown_last: bool = False  # the list was shown after the last action
    before: tuple[TaskRef, ...] = ()  # what the turn acting before the last one acted on
    added: TaskRef | None = None  # the task added most recently
    added_how: str = ""
    language: str | None = None

    @classmethod
    def from_history(cls, rows: Sequence[HistoryRow]) -> Referents:
        acted: tuple[TaskRef, ...] = ()
        shown: tuple[TaskRef, ...] = ()
        before: tuple[TaskRef, ...] = ()
        added: TaskRef | None = None
        how = added_how = ""
        shown_last = False
        language: str | None = None
        turns_ago = 0
        for row in reversed(rows):
            if row.role != "assistant":
                continue
            turns_ago += 1
            account = TurnAccount.from_json(row.context)
            language = language or account.language
            items = account.acted
            when = "in the previous turn" if turns_ago == 1 else f"{turns_ago} turns ago"
            if items and acted and not before:
                before = tuple(a.ref for a in items)
            if items and not acted:
                acted = tuple(a.ref for a in items)
                how = f"the task {DONE.get(items[-1].action, 'changed')} {when}"
            adds = [a for a in items if a.action == Tool.ADD]
            if adds and added is None:
                added, added_how = adds[-1].ref, f"the task added {when}"
            if not shown and account.shown:
                shown = account.shown
                shown_last = not acted
            if acted and shown and before and added is not None and language:
                break
        return cls(acted, how, shown, shown_last, before, added, added_how, language)

    def resolve(self, reference: str) -> Pick | Unclear | None:
        """The task `reference` points to in this conversation, Unclear when it points to several or
        none, None when it is no reference into the conversation (then it is a title)."""
        for text in _forms(reference):
            for lex in lexicons():
                found = self._resolve_in(lex, text, reference)
                if found is not None:
                    return found
        return None

    def _resolve_in(self, lex: Lexicon, text: str, reference: str) -> Pick | Unclear | None:
        position = _position(lex, text)
        if position is not None:
            if 1 <= position <= len(self.shown):
                return Pick(self.shown[position - 1], f"number {position} of the tasks shown last")
            return Unclear(reference, self.shown)
        if _whole(lex.reference("just_added"), text):
            return Pick(self.added, self.added_how, recent=True) if self.added is not None else Unclear(reference, ())
        if _whole(lex.reference("previous"), text):
            if len(self.before) == 1:
                return Pick(self.before[0], "the task acted on before the last one")
            return Unclear(reference, self.before)
        if _whole(lex.reference("last"), text):
            if self.shown and (self.shown_last or not self.acted):
                return Pick(self.shown[-1], "the last of the tasks shown last")
            return self._this(reference)
        if _whole(lex.reference("this"), text):
            return self._this(reference)
        return None

    def _this(self, reference: str) -> Pick | Unclear:
        if self.shown_last and len(self.shown) == 1:
            return Pick(self.shown[0], "the task shown last")
        if len(self.acted) == 1:
            return Pick(self.acted[0], self.acted_how)
        return Unclear(reference, self.acted or self.shown)

    def answer(self, message: str) -> bool | None:
        """True for a yes, False for a no, None for anything else (a whole answer, any language; a
        yes said twice, "ja, mach", is a yes)."""
        found = self._answer(message)
        if found is None and any(_yes_run().fullmatch(text) for text in _forms(message)):
            return True  # yes words and polite words only: "yup go ahead", "ja, mach", "jo, gerne"
        return found

    def _answer(self, message: str) -> bool | None:
        for text in _forms(message):
            for lex in lexicons():
                if _whole(lex.reference("yes"), text):
                    return True
                if _whole(lex.reference("no"), text):
                    return False
        return None


def _forms(text: str) -> list[str]:
    """The answer as typed, without the polite words around it ("sí porfa", "ja bitte"), and both with
    a letter typed over and over said once ("siii", "yesss", "jaaa")."""
    folded = _EDGES.sub("", " ".join(fold(text).split()))
    polite = _EDGES.sub("", _POLITE_TAIL.sub("", folded))
    words = polite.split()
    while len(words) > 1 and _filler(_EDGES.sub("", words[-1])) and not _said_when(words):
        words.pop()  # "sí porfa"; never "sí, luego": a yes to do it later is no yes to do it now
    bare = _EDGES.sub("", " ".join(words))
    forms = (folded, polite, bare)
    return list(dict.fromkeys(f for t in forms for f in (t, _REPEATED.sub(r"\1", t)) if f))


@cache
def _yes_run() -> re.Pattern[str]:
    """A run of yes words and polite words, at least one a yes, no no and no word of when or instead
    ("sí, luego", "ja, danach", "yes, instead") among them (any language)."""
    yes = "|".join(p.pattern for lex in lexicons() if (p := lex.reference("yes")) is not None)
    no = "|".join(p.pattern for lex in lexicons() if (p := lex.reference("no")) is not None)
    fill = "|".join(p.pattern for lex in lexicons() if (p := lex.word("fillers")) is not None)
    later = "|".join(p.pattern for lex in lexicons() if (p := lex.word("order")) is not None)
    word = rf"(?:(?!(?:{no})\b)(?!(?:{later})\b)(?:{yes}|{fill}))"
    return re.compile(rf"(?=.*?\b(?:{yes})\b){word}(?:[\s,.!]+{word})*")


def _filler(word: str) -> bool:
    return any((p := lex.word("fillers")) is not None and p.fullmatch(word) for lex in lexicons())


def yes_with_change(message: str, tool: str) -> bool:
    """A yes said with the one change a question asked, on a pointer ("yes, delete it", "sí, bórralo", "ja,
    ta bort den"): what no command took is a yes, every command is of `tool` and names no task of its own,
    and nothing says no, keeps, supposes, asks (a question mark of any script) or when ("sí, bórralo luego")."""
    if _asks(message) or words_of("order").search(fold(message)):
        return False
    intent = classify(message)
    if not intent.needs_tool or intent.declined or intent.kept or intent.supposed:
        return False
    bare = all(set(a.tools) <= {tool} and not names_something(a.about.replace(a.verb, "")) for a in intent.actions)
    return bare and Referents().answer(intent.free) is True


def _asks(message: str) -> bool:
    """A question mark of any script: "?", "？", "¿", "؟", "⁇", "﹖", the Greek ";" (U+037E), "‽"."""
    return "?" in message or (
        not message.isascii()
        and any("QUESTION" in (name := unicodedata.name(c, "")) or "INTERROBANG" in name for c in message)
    )


def _said_when(words: list[str]) -> bool:
    """Whether the words end in a word of when or instead, or a few ("luego", "zo direct": fillers alone)."""
    tails = (_EDGES.sub("", " ".join(words[i:])) for i in range(max(0, len(words) - 4), len(words)))
    return any((p := lex.word("order")) is not None and p.fullmatch(tail) for tail in tails for lex in lexicons())


def _whole(pattern: re.Pattern[str] | None, text: str) -> bool:
    return pattern is not None and pattern.fullmatch(text) is not None


def _position(lex: Lexicon, text: str) -> int | None:
    for index, ordinal in enumerate(lex.ordinals, start=1):
        if ordinal.fullmatch(text):
            return index
    number = lex.reference("number")
    rest = text
    if number is not None and (m := number.match(text)) and m.end() < len(text):
        rest = text[m.end() :].strip()
    return int(rest) if _NUMBER.fullmatch(rest) else None


def needs_confirmation(verdict: Verdict, tool: str, row: TaskRow) -> ToolResult:
    """Nothing done: the task was looked up so that the user can be asked about exactly it."""
    error = f"Not done: the user is asked first whether to run {tool} on '{row.title}'. Do not say it was done."
    return verdict.asked(error, {"id": str(row.id), "title": row.title})


def needs_confirmation_to_add(verdict: Verdict, title: str) -> ToolResult:
    """Nothing added: the user is asked first whether to add this title."""
    error = f"Not done: the user is asked first whether to add '{title}'. Do not say it was done."
    return verdict.asked(error, {"title": title})
