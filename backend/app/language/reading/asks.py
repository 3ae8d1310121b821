"""What a message asks, as the reader (`intent.py`) read it: its `Intent`, made of `Action`s, and
the clauses that say no, with the changes each says no to."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from backend.app.calls.tools import Tool
from backend.app.language.lexicon import fold
from backend.app.language.lexicon import task_nouns as _task_nouns

# "state": a question about how a task stands ("did I already pay the rent?", reading/state.py)
Kind = Literal["command", "question", "state", "advice", "report", "negated", "small_talk", "chat"]
KINDS: tuple[Kind, ...] = ("command", "question", "state", "advice", "report", "negated", "small_talk", "chat")


@dataclass(frozen=True, slots=True)
class Action:
    """One thing the message asks for: the tools that would do it (the first is the one to force),
    the clause that asks, and whether it has a verb of its own (an item of a list has not)."""

    tools: tuple[Tool, ...]
    text: str
    explicit: bool = True
    object: str = ""  # the clause without its verb: what the action is about ("milk" of "add milk")
    verb: str = ""  # the verb's words as matched ("strike gym off": a verb around its object)
    language: str = ""  # the language file that read it
    clause: str = ""  # the whole clause

    @property
    def tool(self) -> Tool:
        return self.tools[0]

    @property
    def about(self) -> str:
        """What the action is about, without its verb. A verb around its object ("hak gym ab", "voeg
        melk toe", "pon huevos en la lista") keeps what it holds: only its first word goes, and its
        last unless that is the list's (which a title's edges then drop, with what says which list)."""
        tokens, verb = self.object.split(), self.verb.split()
        around = self.object == self.clause or any(_task_nouns().fullmatch(w) for w in verb)
        if not around or not verb:
            return self.object
        for k in range(len(tokens) - len(verb) + 1):
            if [fold(t) for t in tokens[k : k + len(verb)]] == verb:
                last = tokens[k + len(verb) - 1]
                inner = tokens[k + 1 : k + len(verb) - 1]
                if len(verb) > 1 and _task_nouns().fullmatch(fold(last)):
                    inner.append(last)
                return " ".join(tokens[:k] + inner + tokens[k + len(verb) :])
        return self.object


@dataclass(frozen=True, slots=True)
class Intent:
    """What a message asks for: `actions` in order, empty unless `kind == "command"`; `free`, the
    words no action took (the whole message when none did), without quoted text; `quotes`, the
    quoted text as typed."""

    kind: Kind
    actions: tuple[Action, ...]
    reason: str
    languages: tuple[str, ...] = ()
    free: str = ""
    quotes: tuple[str, ...] = ()
    # Tools whose verbs the message has, but not where a command's verb stands ("you can tick off X"):
    # on a message read as nothing else, a call of one of these on what the user's words name may run.
    weak_tools: tuple[Tool, ...] = ()
    # The clauses that say no ("don't delete yoga" of "don't delete yoga, it's the laundry that needs
    # to go"): what they name is never the target of a change, nor of a question about one.
    declined: tuple[str, ...] = ()
    # The changes a clause of `declined` says no to, where its verb says ("don't delete gym": delete
    # only); a clause not here says no to every change ("delete gym, wait, no").
    declined_tools: tuple[tuple[str, tuple[Tool, ...]], ...] = ()
    # Beside a command, the sentences that ask how a task stands ("did I pay the rent? add call
    # landlord", reading/state.py): a change no action asks for is never run on what they name; it
    # is asked about (row C12, then T13: the message names it only in part).
    asked_state: tuple[str, ...] = ()
    # The clauses that suppose, plan, advise or ask ("if yoga is done, delete gym", "I might finish
    # yoga"; clauses.py `Reading.supposes`): like `asked_state`, they name no task for a change.
    supposed: tuple[str, ...] = ()
    # A message that is only commands and keeps naming their tasks ("delete gym, keep taxes"): what
    # each keep keeps ("taxes"), and the actions of the commands beside, which the reader leaves to a
    # question (row C14) and the guard runs where a keep's words are all of one other task's title (T19).
    kept: tuple[str, ...] = ()
    kept_beside: tuple[Action, ...] = ()

    def says_no_to(self, tool: str) -> bool:
        """Whether a clause says no to `tool` ("don't delete gym" says none to a completion), or to
        every change ("delete gym, wait, no")."""
        said = dict(self.declined_tools)
        return any(d not in said or tool in said[d] for d in self.declined)

    def words_for(self, tool: str) -> str:
        """The words that ask for `tool`: what its actions are about, quotes included."""
        return "\n".join(a.object for a in self.actions if tool in a.tools)

    def about_for(self, tool: str) -> str:
        """What the actions asking for `tool` are about, without their verbs."""
        return "\n".join(a.about for a in self.actions if tool in a.tools)

    def clauses_for(self, tool: str) -> str:
        """The clauses that ask for `tool`, verb and all."""
        return "\n".join(a.clause for a in self.actions if tool in a.tools)

    def content_for(self, tool: str) -> str:
        """What the user gave as content, for a call of `tool`: quoted text outside the words asking
        for it, and the titles of tasks to add; and the clauses that say no ("delete gym, not the
        yoga"). It names no target for that call, nor one to ask about."""
        own = self.words_for(tool)
        parts = [q for q in self.quotes if q not in own]
        if tool != Tool.ADD:
            parts += [self.words_for(Tool.ADD), *self.declined]
        return "\n".join(p for p in parts if p)

    @property
    def tools(self) -> tuple[Tool, ...]:
        return tuple(dict.fromkeys(t for a in self.actions for t in a.tools))

    @property
    def needs_tool(self) -> bool:
        return self.kind == "command" and bool(self.actions)

    @property
    def primary(self) -> Tool | None:
        return self.actions[0].tool if self.actions else None


def without(words: str, parts: Sequence[str]) -> str:
    """`words` without `parts` (the clauses of a no), as far as they are found in it as whole words
    ("no" is cut from "no, delete the notes", never from "notes")."""
    for part in filter(None, parts):
        words = re.sub(rf"(?<!\w){re.escape(part)}(?!\w)", " ", words)
    return " ".join(words.split())
