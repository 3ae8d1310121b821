"""What a user's message itself names, read before the model runs (the offline model's parser reads
it, the tools use it to repair a model's arguments that name nothing)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any


@dataclass(frozen=True, slots=True)
class SaidAdd:
    """A task the user's message asks to add, as the message gives it."""

    title: str
    quoted: bool = False  # the user put the title in quotes: exactly this title
    fields: Mapping[str, Any] = field(default_factory=dict)  # priority, due_date, as the user gave them


@dataclass(frozen=True, slots=True)
class SaidAction:
    """One action the message asks for: the tools that would do it, and the words it is about."""

    tools: tuple[str, ...]
    words: str
    about: str = ""  # the words without the verb ("het" of "verwijder het")


@dataclass(frozen=True, slots=True)
class Commands:
    """What the message asks for, read as calls (services/turn/commands.py): the tasks it asks to add, and
    the user's own reference for each call it asks for, by tool ("dentist" in "push the dentist to
    friday")."""

    adds: tuple[SaidAdd, ...] = ()
    references: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Said:
    """What the user's message itself names, read before the model runs: the message, the actions it
    asks for with the words each is about ("taxes" for the delete of "delete taxes and add milk"),
    and the calls it asks for (`read`). A model's argument that names nothing (a reference no task
    answers to, a title sharing no word with the message), a title other than the one the user quoted, or a
    priority or due date other than the one the user gave, is repaired with these, said so in the
    result. A reference that resolves is never replaced, and nothing the message does not name for
    that very action is ever used.

    `read` reads the calls from the message when a tool first asks for them, and only once: a step
    whose calls name what the user named (a listing, a complete or a delete by the user's own title)
    never needs them."""

    message: str = ""
    actions: tuple[SaidAction, ...] = ()
    read: Callable[[], Commands] = Commands
    context: str = ""  # the user's earlier messages in the conversation
    # The kinds of value the message (or the user's earlier messages) gives, whatever their value: a
    # "priority", a "due_date", a "status" of done. A value of a kind they do not give is nobody's.
    # Read when a value first asks, and only once.
    read_values: Callable[[], frozenset[str]] = frozenset
    # The kinds of value only the clauses that say no give ("don't complete gym": a "status").
    read_refused: Callable[[], frozenset[str]] = frozenset

    def __post_init__(self) -> None:
        object.__setattr__(self, "read", cache(self.read))
        object.__setattr__(self, "read_values", cache(self.read_values))
        object.__setattr__(self, "read_refused", cache(self.read_refused))

    @property
    def adds(self) -> tuple[SaidAdd, ...]:
        return self.read().adds

    @property
    def everything(self) -> str:
        """The message and the user's earlier messages: what gives a title, a tag or a search word."""
        return f"{self.message}\n{self.context}" if self.context else self.message

    def gives(self, kind: str) -> bool:
        """Whether the message (or the conversation) gives a value of this kind ("priority", "due_date",
        "status")."""
        return kind in self.read_values()

    def refuses(self, kind: str) -> bool:
        """Whether only a clause that says no gives a value of this kind ("don't complete gym, …")."""
        return kind in self.read_refused()

    def references_for(self, tool: str) -> tuple[str, ...]:
        """The user's own references for the calls of `tool` the message asks for."""
        return tuple(self.read().references.get(tool, ()))

    def words_for(self, tool: str) -> list[str]:
        """The words of each action that asks for `tool`."""
        return [a.words for a in self.actions if tool in a.tools and a.words.strip()]

    def about_for(self, tool: str) -> list[str]:
        """What each action that asks for `tool` is about, without its verb."""
        return [a.about for a in self.actions if tool in a.tools]

    def words_besides(self, tool: str) -> str:
        """The words of the actions that ask for something else."""
        return "\n".join(a.words for a in self.actions if tool not in a.tools)
