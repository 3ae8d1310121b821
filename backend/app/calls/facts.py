"""The facts of one decision of the guard's table (calls/verdicts.py), by point: what the loop, a
call, its target, a value, the model's answer and a step's results are, as the gatherers found them
(the reading of the message, a lookup, the model's words). Typed values only; nothing here decides."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from backend.app.calls.codes import ResultCode
from backend.app.calls.tools import Traits


class Point(StrEnum):
    LOOP = "loop"
    CALL = "call"
    TARGET = "target"
    VALUE = "value"
    ANSWER = "answer"
    RESULTS = "results"


class Reading(StrEnum):
    """What the message asks of a tool, as the reader read it: a signal, never the verdict."""

    ASKED = "asked"  # a command for this tool
    OTHER = "other"  # a command, for other tools
    NOTHING = "nothing"  # a question, advice, a report, small talk: no change
    DECLINED = "declined"  # a negation or a retraction
    UNREAD = "unread"  # read as none of these (other wording, a language with no file)


class Forcing(StrEnum):
    NONE = "none"
    TOOL = "tool"  # the request forced this tool (the guard's retry, or the policy)
    GHOST = "ghost"  # the retry after the model claimed a change on a message read as nothing


class Hold(StrEnum):
    """What a change may act on, once the call-point verdict let it go on to its target."""

    ANY = "any"  # the model's target (no guard)
    OWN = "own"  # the model's target where the words asking for it name it; else asked about
    NAMED = "named"  # only a target the user's words name; else refused
    ASK = "ask"  # nothing changes: the target is looked up so that the user can be asked
    STATE = "state"  # nothing changes: the target is looked up so that how it stands can be said


class Ground(StrEnum):
    """Which of the user's words a change's target or title must be named by."""

    OWN = "own"  # the clauses asking for the tool
    ACTION = "action"  # the words of the actions asking for the tool, else the words no action took
    ASKED = "asked"  # the words of every action asked for (an edit standing in for one)
    MESSAGE = "message"  # the whole message and the user's earlier ones (an add's title)
    SAID = "said"  # the words no action took, quotes included
    FREE = "free"  # the words no action took
    REST = "rest"  # the message but for what a no names
    QUESTION = "question"  # the assistant's question the user's yes answers


@dataclass(frozen=True, slots=True)
class Grounding:
    """What the table lets one call act on, in the user's own words (built by `Verdict.grounding`).

    `hold`: how its target is held (`Hold`). `names`: the words a target (or an add's title) must be
    named by (None: no words were given: whatever the model named). `not_names`: never a target only
    these words name (text the user gave as content: a quoted title, a task to add; the clauses of a
    no). `title`: for an add, the title the user's words give (the one quote of a message the model
    passed whole). `forced`: the call was made under a forced tool choice."""

    hold: Hold = Hold.ANY
    names: str | None = None
    not_names: str = ""
    title: str | None = None
    forced: bool = False
    rule: str = ""
    strict: bool = False  # every value must be one the user's words give (`Verdict.strict`)
    whole_list: bool = False  # a change over every task may be asked about (`Verdict.whole_list`)
    confirmed: bool = False  # the user said yes to the assistant's question about this change
    # After a yes to a question that points ("…mark it as done?"), the words that say which task "it"
    # is, if they name exactly one of the user's tasks (tools/references.py `_pointed`).
    pointed: str = ""
    # The lines of `names` that are verbless items of a command ("taxes can stay" of "delete gym, taxes
    # can stay"): a task they name with words of their own beside its title is named only in part.
    items: tuple[str, ...] = ()
    # Beside a keep that names its task ("delete gym, keep taxes"), what each keep keeps ("taxes") and
    # the clauses of this change's commands ("delete gym"): where every keep is all of one other
    # task's title, as written, and those clauses name the task, the change asked about runs (row T19).
    kept: tuple[str, ...] = ()
    kept_beside: str = ""


NO_GROUNDING = Grounding()  # a call no guard holds (MCP, REST, the `auto` policy): the model's target


class Source(StrEnum):
    NONE = "none"  # the model's reference named no task
    MODEL = "model"  # the model's reference: an id, its title exactly or fuzzily
    CONTEXT = "context"  # the backend read the model's "it", "the second one" from the conversation
    RECENT = "recent"  # the backend read "the one I just added" from the conversation: the one task added last
    REPAIRED = "repaired"  # the backend took the task the user's words name, the model's named none


class Naming(StrEnum):
    """How the user's words (for this action) name a target."""

    EXACT = "exact"  # its title itself, as written (no typo)
    WHOLE = "whole"  # every word of its title, typos and endings allowed
    WORDS = "words"  # the user's own reference, or the model's taken from their words, resolves to it
    POINTER = "pointer"  # they point to it through the conversation ("it", "the second one")
    PART = "part"  # the message names it in part (a distinctive word)
    CONTENT = "content"  # only text the user gave as content (a quote, a task to add) or a no names it
    NONE = "none"


class Arg(StrEnum):
    TITLE = "title"
    PRIORITY = "priority"
    DUE_DATE = "due_date"
    TAGS = "tags"
    STATUS = "status"  # an edit's status of done: a completion
    FILTER = "filter"  # a listing's filter: query, tag, priority, status, due bounds


class Given(StrEnum):
    YES = "yes"  # the message or the conversation gives it
    OTHER = "other"  # the user gave another value
    NO = "no"


class Say(StrEnum):
    """What the model's words say of the change the message asks for."""

    EMPTY = "empty"
    CLAIMS = "claims"  # that it was made (or a bare "Done!")
    NOTHING = "nothing"  # nothing of it: an answer, a question back, another change
    UNKNOWN = "unknown"  # the word lists cannot tell; a check of the words could


@dataclass(frozen=True, slots=True)
class LoopFacts:
    traits: Traits
    malformed: ResultCode | None = None  # normalisation already knows it cannot run
    offered: bool = True
    repeated: bool = False
    over_step_limit: bool = False
    budget_out: bool = False
    over_cap: bool = False


@dataclass(frozen=True, slots=True)
class CallFacts:
    traits: Traits
    guarded: bool
    reading: Reading
    forcing: Forcing = Forcing.NONE
    add: bool = False  # the call adds a task
    edit: bool = False  # the call edits a task's fields
    whole_message: bool = False  # an add whose title is the whole message
    one_quote: bool = False  # the message quotes exactly one title
    asks_something: bool = False  # the message has a question mark
    rest_names: bool = False  # after a no, the rest of the message has words
    stands_in: bool = False  # an edit that marks a task done, where the message asks to complete one
    yes_to_question: bool = False  # the message is a yes; the assistant's message before asked this change
    states: bool = False  # the message asks how a task stands ("did I already pay the rent?")
    either: bool = False  # every command for this delete asks as much for a completion ("tacha gym")


@dataclass(frozen=True, slots=True)
class TargetFacts:
    traits: Traits
    hold: Hold
    source: Source
    naming: Naming = Naming.NONE
    forced: bool = False
    anywhere: bool = False  # no words were given to name it by (a delete over the cap: asked whatever it is)
    repairable: bool = False  # the user's words for this action name one task (for a reference naming none)
    another: bool = False  # the user's words for this action name one other task
    whole_list: bool = False  # one of a change over every task the grounding lets be asked about
    confirmed: bool = False  # the user's yes to the assistant's question about this change
    kept_apart: bool = False  # each keep beside the change keeps all of one other task's title (`Grounding.kept`)
    inside: bool = False  # the words name it only inside another task's longer title ("gym class": *Gym*)


@dataclass(frozen=True, slots=True)
class ValueFacts:
    arg: Arg
    guarded: bool
    given: Given
    held_to_ask: bool = False  # the call only asks
    next_add: bool = False  # a title: an add the message asks for is not added yet
    elsewhere: bool = False  # a title: in the user's words, not where they ask for an add


@dataclass(frozen=True, slots=True)
class AnswerFacts:
    guarded: bool
    reading: Reading  # of the message
    say: Say
    missing: bool = False  # a change the message asks for that no call of the turn attempted
    forced_before: bool = False  # this tool was forced already this turn
    ran: bool = False  # a call of the turn reached the tools
    acted: bool = False  # the model made a change call this turn (run, refused or asked about)
    read_instead: bool = False  # a delete or complete asked; the model read the list instead
    checkable: bool = False  # the model can be asked what its words claim
    ghost_retried: bool = False  # the retry after a claimed change was made already
    claimed_one: bool = False  # the words claim one kind of change that may be forced
    confirmed: bool = False  # the check declared the claim (the word lists alone never force on an unread message)
    yes_to_one: bool = False  # a yes to the assistant's plain offer of one change, which the words claim (or no kind)


@dataclass(frozen=True, slots=True)
class ResultsFacts:
    guarded: bool
    reading: Reading
    changes: bool  # the step had changes
    all_refused: bool  # none succeeded or was asked about
    asked_again: bool  # the model was asked again for words already this turn


Facts = LoopFacts | CallFacts | TargetFacts | ValueFacts | AnswerFacts | ResultsFacts
