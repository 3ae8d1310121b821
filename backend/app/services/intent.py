"""Intent classification: which task tools a chat message needs (the plan's Decision 2 table).

The execution guard forces a retry when the intent needs a tool and none ran, so a false "command"
can push the model into a mutation the user never asked for, while a false "chat" only loses the
forced retry (and the guard's ghost-claim check still applies). Every rule here therefore leans
towards "not a command" when unsure.

How a message is read:
1. Quoted text ('...' or "...") is a title, never scanned for verbs.
2. Sentences (split on . ! ? ; and newlines) that ask how the app works are questions, not commands.
3. Each sentence is split into clauses on commas and "and/then/also/plus/but". In a clause the
   first command keyword governs and the rest is its object: "add delete old files" adds a task.
4. A negation before the governing keyword ("don't delete it") cancels that clause; a bare
   retraction ("never mind", "actually, don't") cancels the clauses before it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ToolName = Literal["add_task", "list_tasks", "complete_task", "delete_task", "update_task"]
Kind = Literal["command", "question", "negated", "chat"]


@dataclass(frozen=True, slots=True)
class Intent:
    """What a message asks for: `tools` in order of appearance, empty unless `kind == "command"`."""

    kind: Kind
    tools: tuple[ToolName, ...]
    reason: str

    @property
    def needs_tool(self) -> bool:
        return self.kind == "command" and bool(self.tools)

    @property
    def primary(self) -> ToolName | None:
        return self.tools[0] if self.tools else None


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b")


# Right after a determiner a keyword is a noun, not a command: "put milk on my list", "keep the
# change", "a set of keys". Without this, "my list" would expect list_tasks and the guard would
# refuse the add_task the user wanted.
_DETERMINERS = ("a", "an", "the", "my", "your", "our", "this", "that", "shopping", "grocery", "to-do", "todo")
_NOT_A_NOUN = "".join(rf"(?<!\b{d} )" for d in _DETERMINERS)


def _verbs(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b" + _NOT_A_NOUN + r"(?:" + "|".join(alternatives) + r")\b")


# Only words that are sure signs of the tool; "cancel" and "drop" are left out on purpose ("cancel
# that" means never mind, "drop off the parcel" is an errand). Matching is on lowercased text.
_KEYWORDS: tuple[tuple[ToolName, re.Pattern[str]], ...] = (
    ("delete_task", _verbs("delete", "remove", "erase", r"get rid of")),
    (
        "list_tasks",
        _verbs(
            "list",
            "show",
            "display",
            r"what are(?! you\b)",
            r"what(?:'s|s| is) (?:left|due|remaining|pending|on (?:my|the))",
            r"what do i (?:have|need to do|still need)",
            r"(?:do i have|are there) any (?:tasks|to-?dos)",
            r"how many tasks",
            r"(?:see|view) (?:my|all|the) (?:tasks|to-?dos|list)",
            r"^(?:all (?:of )?)?my (?:tasks|to-?dos|list)",  # only as the whole request: "my tasks?"
        ),
    ),
    (
        "add_task",
        _verbs(
            "add",
            "create",
            r"new (?:task|to-?do|reminder)",
            r"remind me",
            r"set (?:up )?an? (?:new )?(?:reminder|task|to-?do)",
        ),
    ),
    (
        "complete_task",
        _verbs(
            # "mark" is also a name ("call Mark"): a command only to open a request or with a state.
            r"(?:^|(?<=please )|(?<=you )|(?<=to ))mark",
            r"mark(?=.{0,80}?\b(?:as|done|complete|completed|finished|off)\b)",
            "done",
            "complete",
            "completed",
            "finish",
            "finished",
            r"(?:check|tick|cross) off",
        ),
    ),
    (
        "update_task",
        _verbs("update", "change", r"set(?! up\b)", "rename", "move", "edit", "reschedule", "postpone", "reopen"),
    ),
)
_UPDATE_VERBS = _words("update", "change", "set", "edit")
_DONE_STATE = _words(r"(?:as|to|into) (?:done|complete|completed|finished)")
_OPEN_STATE = _words(
    r"not (?:yet )?(?:done|complete|completed|finished)", "undone", "incomplete", "unfinished", "pending", "uncompleted"
)
_MARK_AS_OTHER = re.compile(r"\bas (?!(?:done|complete|completed|finished)\b)\w")
# "done" about the speaker, not a task ("I'm done for today"). Decision: never a command, even
# "I'm done with the laundry": forcing complete_task on a maybe is worse than letting the model ask.
_DONE_ABOUT_SPEAKER = re.compile(
    r"\b(?:i'?m|i am|we'?re|we are|you'?re|you are)(?: \w+)? done\b|^(?:all|ok|okay)? ?done$"
)

_NEGATION = _words(
    r"don'?t(?! forget)",
    r"do not(?! forget)",
    r"never(?! forget)",
    "no need to",
    r"not(?! only)",
    "won'?t",
    "can'?t",
    "cannot",
    "shouldn'?t",
    "didn'?t",
    "doesn'?t",
    "isn'?t",
    "haven'?t",
)
_RETRACTION = re.compile(
    r"^(?:(?:no|nope|wait|actually|oh|hmm)\W+)*(?:never ?mind|forget (?:it|that|about it)|scratch that|cancel that"
    r"|don'?t|do not)\W*$"
)
_INTERJECTIONS = r"^(?:(?:hi|hey|hello|ok|okay|so|um|uh|well|btw|quick question|question)\b\W*)*"
# Asking how the app works or whether something is possible. Polite requests ("can you delete X",
# "could you add milk") are commands, so "can/could you" is not here; "can I <verb>" is.
_USAGE_QUESTION = re.compile(
    _INTERJECTIONS + r"(?:how (?:do|can|could|should|would|does|did) (?:i|we|you|one|it)\b|how to\b|what does\b|why\b"
    r"|what (?:is|'s) (?:a|an)\b|what happens (?:if|when)\b|(?:can|could|may) (?:i|we)\b(?! (?:see|view|get|have)\b)"
    r"|is (?:it|there (?:a|any) way)\b|are (?:we|you) able\b|am i able\b|do(?:es)? (?:you|it|this|the app) "
    r"(?:support|allow|let)\b|(?:(?:can|could|would|will) you |please )*(?:explain|tell me how|show me how|teach me)\b)"
)
_TASK_WORD = _words("tasks?", "to-?dos?")
_QUOTED = re.compile(r"\"[^\"]*\"|(?<!\w)'[^']*'(?!\w)")
_SENTENCES = re.compile(r"[.!?;\n]+")
_CLAUSES = re.compile(r",|&|\b(?:and|then|also|plus|but)\b")


def _short(text: str) -> str:
    return text if len(text) <= 60 else text[:57] + "..."


def _governing(clause: str) -> tuple[ToolName, re.Match[str]] | None:
    """The first keyword of the clause (longest on a tie: "set a reminder" over "set")."""
    found = [(tool, m) for tool, pattern in _KEYWORDS if (m := pattern.search(clause))]
    return min(found, key=lambda f: (f[1].start(), -f[1].end()), default=None)


def _refine(tool: ToolName, word: str, rest: str) -> tuple[tuple[ToolName, ...], str]:
    """Tools (and why) for a clause governed by keyword `word` with object `rest`."""
    if word == "mark":  # "mark X done" completes; "mark X as pending/important" is an update
        if _OPEN_STATE.search(rest) or _MARK_AS_OTHER.search(rest):
            return ("update_task",), "'mark ... as <not done>' matched update_task"
        return ("complete_task",), "'mark' matched complete_task"
    if _UPDATE_VERBS.fullmatch(word) and _DONE_STATE.search(rest) and not _OPEN_STATE.search(rest):
        # "set X as done", "change X to completed": completing is what is asked (first), and
        # update_task with status=completed does the same, so the guard must not refuse it as a
        # wrong tool (tests/api/test_best_effort.py sends "update laundry as completed" that way).
        return ("complete_task", "update_task"), f"'{word} ... to done' matched complete_task (or update_task)"
    return (tool,), f"'{word}' matched {tool}"


def classify(message: str) -> Intent:
    """Classify one chat message; never raises."""
    text = _QUOTED.sub(" ", message.lower().replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"'))
    tools: list[ToolName] = []
    reasons: list[str] = []
    other: tuple[Kind, str] | None = None  # the first question or negation, if nothing else is asked
    for sentence in filter(None, (s.strip() for s in _SENTENCES.split(text))):
        if _USAGE_QUESTION.match(sentence):
            if other is None and (_governing(sentence) or _TASK_WORD.search(sentence)):
                other = ("question", f"'{_short(sentence)}' asks about the app rather than for an action")
            continue
        for clause in filter(None, (c.strip() for c in _CLAUSES.split(sentence))):
            if _RETRACTION.match(clause):
                if tools:
                    other = ("negated", f"'{_short(clause)}' takes back {', '.join(tools)}")
                    tools.clear()
                    reasons.clear()
                continue
            governing = _governing(clause)
            if governing is None:
                continue
            tool, match = governing
            if negation := _NEGATION.search(clause, 0, match.start()):
                other = other or ("negated", f"'{match.group()}' is negated by '{negation.group()}'")
                continue
            if match.group() == "done" and _DONE_ABOUT_SPEAKER.search(clause):
                continue
            found, why = _refine(tool, match.group(), clause[match.end() :])
            if new := [t for t in found if t not in tools]:
                tools.extend(new)
                reasons.append(why)
    if tools:
        return Intent("command", tuple(tools), "; ".join(reasons))
    if other is not None:
        return Intent(other[0], (), other[1])
    return Intent("chat", (), "no command keyword")
