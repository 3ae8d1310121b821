"""The guard's decision table: every verdict on a model's call, made here, by one pure function.

`decide(facts)` takes the typed facts of one decision and walks the rows of its point, in order; the
first row whose condition holds gives the verdict (`Verdict`: what to do, the row's id, and what the
record says of it). The table, with each row in words, is docs/guard.md ("The decision table");
`tests/calls/test_verdicts.py` holds the two to the same rows, and plays each row through the API in
every language that has a word file.

The points, in the order a turn meets them:

- `LOOP` a call, before anything runs: the loop's own limits (malformed, unknown, repeated, over the
  step's or the turn's caps, out of budget), whatever the message says;
- `CALL` a change the model made, before it runs, against what the message asks as read: run on the
  target the words allow (`Hold`), ask, or refuse with a reason;
- `TARGET` the task a change's reference came to, once looked up: run, ask, repair a reference that
  names no task from the user's words, or refuse;
- `VALUE` a value a call would store or filter by (an add's title, a priority, a due date, tags, a
  listing's filter): keep it, take the user's, drop one nobody gave, or refuse;
- `ANSWER` the model answered in words without a call the message asks for: accept the words, check
  what they claim, force the tool once, or give up;
- `RESULTS` a step's changes all refused on a message that asks for none: ask again for words.

Who gathers the facts (the reading of the message, a lookup, the model's words) and who acts on the
verdict (the loop, the tools, the guard) does not decide: the reading of a message is one fact among
others, never the verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, TypeVar

from backend.app.calls.codes import ResultCode
from backend.app.calls.tools import Traits
from backend.app.calls.types import ToolResult


class GuardDecision(StrEnum):
    FORCED = "forced"  # asked the model again with a tool forced (or required, with a way out)
    TRUSTED = "trusted"  # the model's own choice (a read, an edit) stands over the reader's
    REFUSED = "refused"  # a call was not run
    GROUNDED = "grounded"  # calls may act only on what the user's words name
    ASKS = "asks"  # a change the message may not have asked for: its task is looked up, the user asked
    GAVE_UP = "gave_up"  # the forced retry ran no tool either
    ASKED_AGAIN = "asked_again"  # the model's changes were refused: it is asked for an answer in words
    # The review of the model's words (services/guard/execution.py), not of a call:
    CHECKED = "checked"  # the model was asked what its words claim before they are shown
    CLAIM_CAUGHT = "claim_caught"  # a reply claiming a change that did not happen is not shown
    UNVERIFIED = "unverified"  # words whose check could not be read are not shown
    SHORTENED = "shortened"  # words longer than the claim reader reads are shown up to there


WORDS_DECISIONS = frozenset(
    {GuardDecision.CHECKED, GuardDecision.CLAIM_CAUGHT, GuardDecision.UNVERIFIED, GuardDecision.SHORTENED}
)


class GuardReason(StrEnum):
    MISSING_TOOL = "missing_tool"  # a clear command answered without its tool
    GHOST_CLAIM = "ghost_claim"  # a change claimed, none made
    NOT_ASKED = "not_asked"  # the message asks for no change, the model changed anyway
    MODEL_CHOSE_READ = "model_chose_read"
    MODEL_CHOSE_EDIT = "model_chose_edit"  # an edit of the task a delete or complete is about
    FORCED_CALL = "forced_call"  # made under a forced tool choice
    EXTRA_CALL = "extra_call"  # a change beside the ones the message was read to ask for
    UNBACKED_CLAIM = "unbacked_claim"  # words claiming a change no successful call made
    DENIED_SUCCESS = "denied_success"  # words saying a change that succeeded was not made
    REPLY_CHECK = "reply_check"  # the model's words are checked before they are shown
    TOO_LONG = "too_long"  # the model's words, longer than the claim reader reads
    YES_TO_QUESTION = "yes_to_question"  # the user's yes to the assistant's question about this change


@dataclass(frozen=True, slots=True)
class GuardEvent:
    """One decision of the guard, with why and the table's row that made it (metrics count them;
    execution_metadata lists them). Built by `Verdict.event`, or by the review of the words."""

    step: int
    decision: GuardDecision
    reason: GuardReason
    tool: str | None = None
    rule: str = ""

    def to_dict(self) -> dict[str, Any]:
        found = {"step": self.step, "decision": self.decision.value, "reason": self.reason.value, "tool": self.tool}
        return found | ({"rule": self.rule} if self.rule else {})


# -- the facts ------------------------------------------------------------------------------------
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


@dataclass(frozen=True, slots=True)
class ResultsFacts:
    guarded: bool
    reading: Reading
    changes: bool  # the step had changes
    all_refused: bool  # none succeeded or was asked about
    asked_again: bool  # the model was asked again for words already this turn


Facts = LoopFacts | CallFacts | TargetFacts | ValueFacts | AnswerFacts | ResultsFacts


# -- the verdicts ---------------------------------------------------------------------------------
class Do(StrEnum):
    RUN = "run"
    ASK = "ask"  # look the target up; the user is asked
    ASK_NAMED = "ask_named"  # ask about the task the user's words name instead of the model's
    REFUSE = "refuse"
    REPAIR = "repair"  # use the user's words in place of the model's argument
    KEEP = "keep"  # a value: stored as given
    DROP = "drop"  # a value: not stored, or a filter not applied
    FAIL = "fail"  # the lookup's own failure stands (no task of that name)
    ACCEPT = "accept"  # the words end the run (their review decides whether they are shown)
    TRUST = "trust"  # the model's read or edit stands over the reader's delete or complete
    CHECK = "check"  # ask the model what its words claim first
    FORCE = "force"  # one more request with the tool forced
    REQUIRE = "require"  # one more request with the tools required and a `respond` way out
    GIVE_UP = "give_up"
    ANSWER_AGAIN = "answer_again"  # one more request without tools, for words


@dataclass(frozen=True, slots=True)
class Verdict:
    """What to do, the row that said so, and what the record says of it: the guard's event
    (`decision`, `reason`: none for a plain run), the result's code of a refusal, whether the model
    can fix it, what a change may act on (`hold`) and which words name its target (`ground`)."""

    rule: str
    do: Do
    decision: GuardDecision | None = None
    reason: GuardReason | None = None
    code: ResultCode | None = None
    fixable: bool = False
    hold: Hold | None = None
    ground: Ground | None = None
    silent: bool = False  # a change nobody asked for: not a line of the reply
    quoted_title: bool = False  # an add whose title is the one title the message quotes
    strict: bool = False  # every value must be one the user's words give (an edit beside what was read)
    # A destructive change no words name, one of a request over every task (the words for it say "all",
    # or the step's calls of it cover the list), is asked about, once for all, instead of refused.
    whole_list: bool = False
    confirmed: bool = False  # the user's yes to a question about the change: named in it, it runs

    def event(self, step: int, tool: str | None = None) -> GuardEvent | None:
        if self.decision is None or self.reason is None:
            return None
        return GuardEvent(step, self.decision, self.reason, tool, self.rule)

    def refusal(self, error: str, data: Any = None, *, code: ResultCode | None = None) -> ToolResult:
        """The result of a call this verdict does not run, with its text for the model (`code`: the
        normaliser's, for a row that refuses whatever it found wrong)."""
        found = self.code or code
        assert found is not None, self.rule
        return ToolResult(success=False, code=found, error=error, data=data, model_fixable=self.fixable)

    def asked(self, error: str, data: Any) -> ToolResult:
        """The result of a call looked up, not run, so that the user is asked (an ASK verdict)."""
        assert self.do in (Do.ASK, Do.ASK_NAMED), self.rule
        return ToolResult(success=False, code=ResultCode.NEEDS_CONFIRMATION, error=error, data=data)

    def grounding(
        self, *, names: str | None, not_names: str = "", title: str | None = None, forced: bool = False
    ) -> Grounding:
        """What the call may act on, in the user's own words (`names` None: whatever the model named)."""
        return Grounding(
            self.hold or Hold.ANY,
            names,
            not_names,
            title,
            forced,
            self.rule,
            self.strict,
            self.whole_list,
            self.confirmed,
        )


F = TypeVar("F")


@dataclass(frozen=True, slots=True)
class Row(Generic[F]):
    id: str
    when: Callable[[F], bool]
    then: Verdict


def _rows(point: Point, *rows: tuple[str, Callable[[Any], bool], dict[str, Any]]) -> tuple[Row[Any], ...]:
    return tuple(Row(rid, when, Verdict(rule=rid, **then)) for rid, when, then in rows)


_REFUSED = {"do": Do.REFUSE, "decision": GuardDecision.REFUSED}
_ASKS = {"do": Do.ASK, "decision": GuardDecision.ASKS}

LOOP_ROWS = _rows(
    Point.LOOP,
    ("L1", lambda f: f.malformed is not None, {"do": Do.REFUSE, "fixable": True}),
    ("L2", lambda f: not f.offered, {"do": Do.REFUSE, "code": ResultCode.UNKNOWN_TOOL, "fixable": True}),
    ("L3", lambda f: f.repeated, {"do": Do.REFUSE, "code": ResultCode.REPEATED_CALL}),
    ("L4", lambda f: f.over_step_limit, {"do": Do.REFUSE, "code": ResultCode.IGNORED}),
    ("L5", lambda f: f.budget_out, {"do": Do.REFUSE, "code": ResultCode.BUDGET_EXCEEDED}),
    (
        "L6",
        lambda f: f.traits.capped and f.over_cap,
        {"do": Do.ASK, "code": ResultCode.DESTRUCTIVE_LIMIT, "hold": Hold.ASK},
    ),
    ("L7", lambda f: True, {"do": Do.RUN}),
)

CALL_ROWS = _rows(
    Point.CALL,
    ("C1", lambda f: f.traits.reads, {"do": Do.RUN}),
    ("C2", lambda f: not f.guarded, {"do": Do.RUN, "hold": Hold.ANY}),
    (
        "C3",
        lambda f: f.yes_to_question,
        {
            "do": Do.RUN,
            "decision": GuardDecision.GROUNDED,
            "reason": GuardReason.YES_TO_QUESTION,
            "hold": Hold.NAMED,
            "ground": Ground.QUESTION,
            "whole_list": True,
            "confirmed": True,
        },
    ),
    (
        "C4",
        lambda f: f.forcing is Forcing.GHOST and f.add and f.whole_message and f.one_quote,
        {
            **_ASKS,
            "reason": GuardReason.NOT_ASKED,
            "hold": Hold.ASK,
            "ground": Ground.SAID,
            "silent": True,
            "quoted_title": True,
        },
    ),
    (
        "C5",
        lambda f: f.forcing is Forcing.GHOST and f.add and f.whole_message,
        {**_REFUSED, "reason": GuardReason.NOT_ASKED, "code": ResultCode.NOT_REQUESTED, "silent": True},
    ),
    (
        "C6",
        lambda f: f.forcing is Forcing.GHOST,
        {
            **_ASKS,
            "reason": GuardReason.NOT_ASKED,
            "hold": Hold.ASK,
            "ground": Ground.SAID,
            "silent": True,
            "whole_list": True,
        },
    ),
    (
        "C7",
        lambda f: f.reading is Reading.ASKED and f.forcing is Forcing.TOOL and not f.add,
        {
            "do": Do.RUN,
            "decision": GuardDecision.GROUNDED,
            "reason": GuardReason.FORCED_CALL,
            "hold": Hold.NAMED,
            "ground": Ground.OWN,
            "whole_list": True,
        },
    ),
    (
        "C8",
        lambda f: f.reading is Reading.ASKED and f.add,
        {"do": Do.RUN, "hold": Hold.NAMED, "ground": Ground.MESSAGE},
    ),
    (
        "C9",
        lambda f: f.reading is Reading.ASKED,
        {"do": Do.RUN, "hold": Hold.OWN, "ground": Ground.OWN, "whole_list": True},
    ),
    (
        "C10",
        lambda f: f.reading is Reading.OTHER and f.stands_in,
        {
            "do": Do.RUN,
            "decision": GuardDecision.TRUSTED,
            "reason": GuardReason.MODEL_CHOSE_EDIT,
            "hold": Hold.NAMED,
            "ground": Ground.ASKED,
        },
    ),
    (
        "C11",
        lambda f: f.reading is Reading.OTHER and f.edit,
        {
            "do": Do.RUN,
            "decision": GuardDecision.GROUNDED,
            "reason": GuardReason.EXTRA_CALL,
            "hold": Hold.NAMED,
            "ground": Ground.MESSAGE,
            "silent": True,
            "strict": True,
        },
    ),
    (
        "C12",
        lambda f: f.reading is Reading.OTHER,
        {
            "do": Do.RUN,
            "decision": GuardDecision.GROUNDED,
            "reason": GuardReason.EXTRA_CALL,
            "hold": Hold.NAMED,
            "ground": Ground.ACTION,
            "silent": True,
        },
    ),
    (
        "C13",
        lambda f: f.reading is Reading.NOTHING and f.traits.destructive,
        {**_ASKS, "reason": GuardReason.NOT_ASKED, "hold": Hold.ASK, "ground": Ground.SAID, "silent": True},
    ),
    (
        "C14",
        lambda f: f.reading is Reading.DECLINED and f.traits.destructive and f.rest_names,
        {**_ASKS, "reason": GuardReason.NOT_ASKED, "hold": Hold.ASK, "ground": Ground.REST, "silent": True},
    ),
    (
        "C15",
        lambda f: f.reading in (Reading.NOTHING, Reading.DECLINED),
        {**_REFUSED, "reason": GuardReason.NOT_ASKED, "code": ResultCode.NOT_REQUESTED, "silent": True},
    ),
    (
        "C16",
        lambda f: f.add and f.whole_message,
        {**_REFUSED, "reason": GuardReason.NOT_ASKED, "code": ResultCode.NOT_REQUESTED, "silent": True},
    ),
    (
        "C17",
        lambda f: f.traits.destructive or f.asks_something,
        {
            **_ASKS,
            "reason": GuardReason.NOT_ASKED,
            "hold": Hold.ASK,
            "ground": Ground.SAID,
            "silent": True,
            "whole_list": True,
        },
    ),
    (
        "C18",
        lambda f: f.add,
        {
            "do": Do.RUN,
            "decision": GuardDecision.GROUNDED,
            "reason": GuardReason.EXTRA_CALL,
            "hold": Hold.NAMED,
            "ground": Ground.SAID,
            "silent": True,
        },
    ),
    (
        "C19",
        lambda f: True,
        {
            "do": Do.RUN,
            "decision": GuardDecision.GROUNDED,
            "reason": GuardReason.EXTRA_CALL,
            "hold": Hold.NAMED,
            "ground": Ground.FREE,
            "silent": True,
        },
    ),
)

_BACKENDS = (Source.CONTEXT, Source.REPAIRED)
_NAMES = (Naming.EXACT, Naming.WHOLE, Naming.WORDS, Naming.POINTER)

TARGET_ROWS = _rows(
    Point.TARGET,
    ("T1", lambda f: f.source is Source.NONE and f.repairable, {"do": Do.REPAIR}),
    ("T2", lambda f: f.source is Source.NONE, {"do": Do.FAIL}),
    ("T3", lambda f: f.hold is Hold.ANY, {"do": Do.RUN}),
    ("T4", lambda f: f.naming is Naming.CONTENT, {"do": Do.REFUSE, "code": ResultCode.NOT_REQUESTED}),
    ("T5", lambda f: f.hold is Hold.ASK and (f.naming is not Naming.NONE or f.anywhere), {"do": Do.ASK}),
    ("T6", lambda f: f.hold is Hold.ASK and f.another, {"do": Do.ASK_NAMED}),
    ("T15", lambda f: f.whole_list and f.confirmed and f.naming is Naming.NONE, {"do": Do.RUN}),
    ("T16", lambda f: f.traits.destructive and f.whole_list and f.naming is Naming.NONE, {"do": Do.ASK}),
    ("T7", lambda f: f.hold is Hold.ASK, {"do": Do.REFUSE, "code": ResultCode.NOT_GROUNDED}),
    (
        "T8",
        lambda f: f.traits.destructive and (f.source in _BACKENDS or f.forced) and f.naming is Naming.EXACT,
        {"do": Do.RUN},
    ),
    ("T9", lambda f: f.traits.destructive and (f.source in _BACKENDS or f.forced), {"do": Do.ASK}),
    ("T10", lambda f: f.source is Source.REPAIRED and f.naming is Naming.PART, {"do": Do.ASK}),
    ("T11", lambda f: f.naming in _NAMES or f.source is Source.REPAIRED, {"do": Do.RUN}),
    ("T12", lambda f: f.another, {"do": Do.ASK_NAMED}),
    ("T13", lambda f: f.hold is Hold.OWN or f.naming is Naming.PART, {"do": Do.ASK}),
    ("T14", lambda f: True, {"do": Do.REFUSE, "code": ResultCode.NOT_GROUNDED}),
)

VALUE_ROWS = _rows(
    Point.VALUE,
    ("V1", lambda f: not f.guarded or f.given is Given.YES, {"do": Do.KEEP}),
    ("V2", lambda f: f.given is Given.OTHER, {"do": Do.REPAIR}),
    ("V3", lambda f: f.arg is Arg.TITLE and f.next_add and not f.held_to_ask, {"do": Do.REPAIR}),
    ("V4", lambda f: f.arg is Arg.TITLE and (f.elsewhere or f.held_to_ask), {"do": Do.ASK}),
    ("V5", lambda f: f.arg is Arg.TITLE, {"do": Do.REFUSE, "code": ResultCode.NOT_GROUNDED}),
    ("V6", lambda f: True, {"do": Do.DROP}),
)

_FORCE = {"do": Do.FORCE, "decision": GuardDecision.FORCED}

ANSWER_ROWS = _rows(
    Point.ANSWER,
    ("A1", lambda f: not f.guarded, {"do": Do.ACCEPT}),
    (
        "A2",
        lambda f: f.reading is Reading.ASKED and f.missing and f.read_instead,
        {"do": Do.TRUST, "decision": GuardDecision.TRUSTED, "reason": GuardReason.MODEL_CHOSE_READ},
    ),
    (
        "A3",
        lambda f: f.reading is Reading.ASKED and f.missing and f.forced_before and not f.ran,
        {"do": Do.GIVE_UP, "decision": GuardDecision.GAVE_UP, "reason": GuardReason.MISSING_TOOL},
    ),
    ("A4", lambda f: f.reading is Reading.ASKED and f.missing and f.forced_before, {"do": Do.ACCEPT}),
    (
        "A5",
        lambda f: f.reading is Reading.ASKED and f.missing and f.say in (Say.EMPTY, Say.CLAIMS),
        {**_FORCE, "reason": GuardReason.MISSING_TOOL},
    ),
    (
        "A6",
        lambda f: f.reading is Reading.ASKED and f.missing and f.say is Say.UNKNOWN and f.checkable,
        {"do": Do.CHECK, "decision": GuardDecision.CHECKED, "reason": GuardReason.REPLY_CHECK},
    ),
    ("A7", lambda f: f.reading is Reading.ASKED and f.missing, {"do": Do.ACCEPT}),
    (
        "A8",
        lambda f: (
            f.reading is Reading.UNREAD
            and f.say is Say.CLAIMS
            and not f.acted
            and not f.ghost_retried
            and f.claimed_one
            and f.confirmed
        ),
        {**_FORCE, "reason": GuardReason.GHOST_CLAIM},
    ),
    (
        "A9",
        lambda f: (
            f.reading is Reading.UNREAD and f.say is Say.CLAIMS and not f.acted and not f.ghost_retried and f.checkable
        ),
        {"do": Do.CHECK, "decision": GuardDecision.CHECKED, "reason": GuardReason.REPLY_CHECK},
    ),
    (
        "A10",
        lambda f: (
            f.reading is Reading.UNREAD and f.say is Say.CLAIMS and not f.acted and not f.ghost_retried and f.confirmed
        ),
        {"do": Do.REQUIRE, "decision": GuardDecision.FORCED, "reason": GuardReason.GHOST_CLAIM},
    ),
    ("A11", lambda f: True, {"do": Do.ACCEPT}),
)

RESULTS_ROWS = _rows(
    Point.RESULTS,
    (
        "R1",
        lambda f: (
            f.guarded
            and f.reading not in (Reading.ASKED, Reading.OTHER)
            and f.changes
            and f.all_refused
            and not f.asked_again
        ),
        {"do": Do.ANSWER_AGAIN, "decision": GuardDecision.ASKED_AGAIN, "reason": GuardReason.NOT_ASKED},
    ),
    ("R2", lambda f: True, {"do": Do.ACCEPT}),
)

TABLE: dict[Point, tuple[Row[Any], ...]] = {
    Point.LOOP: LOOP_ROWS,
    Point.CALL: CALL_ROWS,
    Point.TARGET: TARGET_ROWS,
    Point.VALUE: VALUE_ROWS,
    Point.ANSWER: ANSWER_ROWS,
    Point.RESULTS: RESULTS_ROWS,
}
_POINT_OF: dict[type, Point] = {
    LoopFacts: Point.LOOP,
    CallFacts: Point.CALL,
    TargetFacts: Point.TARGET,
    ValueFacts: Point.VALUE,
    AnswerFacts: Point.ANSWER,
    ResultsFacts: Point.RESULTS,
}


def decide(facts: Facts) -> Verdict:
    """The verdict of the first row of the facts' point whose condition holds (the last row of each
    point holds always)."""
    for row in TABLE[_POINT_OF[type(facts)]]:
        if row.when(facts):
            return row.then
    raise AssertionError(f"no row of the table holds for {facts}")  # pragma: no cover: each point ends in a catch-all


def rows_of(point: Point) -> Sequence[Row[Any]]:
    return TABLE[point]


def verdict_of(rule: str) -> Verdict:
    """The verdict of the row `rule` (a call held to be asked about carries the row that held it)."""
    return next(row.then for rows in TABLE.values() for row in rows if row.id == rule)
