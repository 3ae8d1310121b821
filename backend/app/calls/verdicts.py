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
from typing import Any, Generic, TypeVar

from backend.app.calls.codes import ResultCode
from backend.app.calls.decisions import Do, GuardDecision, GuardReason, Verdict
from backend.app.calls.facts import (
    AnswerFacts,
    Arg,
    CallFacts,
    Facts,
    Forcing,
    Given,
    Ground,
    Hold,
    LoopFacts,
    Naming,
    Point,
    Reading,
    ResultsFacts,
    Say,
    Source,
    TargetFacts,
    ValueFacts,
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
# A change the message did not ask for: never a line of the reply; refused, or looked up to be asked about.
_UNASKED = {"reason": GuardReason.NOT_ASKED, "silent": True}
_NOT_REQUESTED = {**_REFUSED, **_UNASKED, "code": ResultCode.NOT_REQUESTED}
_ASKED_ON_SAID = {**_ASKS, **_UNASKED, "hold": Hold.ASK, "ground": Ground.SAID}
# A change beside the ones the message asks for: only on what the user's words name, never a line.
_EXTRA = {"do": Do.RUN, "decision": GuardDecision.GROUNDED, "reason": GuardReason.EXTRA_CALL, "hold": Hold.NAMED}

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
        {**_ASKED_ON_SAID, "quoted_title": True},
    ),
    (
        "C5",
        lambda f: f.forcing is Forcing.GHOST and f.add and f.whole_message,
        _NOT_REQUESTED,
    ),
    (
        "C6",
        lambda f: f.forcing is Forcing.GHOST,
        {**_ASKED_ON_SAID, "whole_list": True},
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
        "C21",
        lambda f: f.reading is Reading.ASKED and f.either,
        {**_ASKS, "reason": GuardReason.TWO_READINGS, "hold": Hold.ASK, "ground": Ground.OWN},
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
        {**_EXTRA, "ground": Ground.MESSAGE, "silent": True, "strict": True},
    ),
    (
        "C12",
        lambda f: f.reading is Reading.OTHER,
        {**_EXTRA, "ground": Ground.ACTION, "silent": True},
    ),
    (
        "C20",
        lambda f: f.reading is Reading.NOTHING and f.states and (f.traits.destructive or f.edit),
        {"do": Do.STATE, "decision": GuardDecision.REFUSED, **_UNASKED, "hold": Hold.STATE, "ground": Ground.SAID},
    ),
    (
        "C13",
        lambda f: f.reading is Reading.NOTHING and f.traits.destructive,
        _ASKED_ON_SAID,
    ),
    (
        "C14",
        lambda f: f.reading is Reading.DECLINED and f.traits.destructive and f.rest_names,
        {**_ASKS, **_UNASKED, "hold": Hold.ASK, "ground": Ground.REST},
    ),
    (
        "C15",
        lambda f: f.reading in (Reading.NOTHING, Reading.DECLINED),
        _NOT_REQUESTED,
    ),
    (
        "C16",
        lambda f: f.add and f.whole_message,
        _NOT_REQUESTED,
    ),
    (
        "C17",
        lambda f: f.traits.destructive or f.asks_something,
        {**_ASKED_ON_SAID, "whole_list": True},
    ),
    (
        "C18",
        lambda f: f.add,
        {**_EXTRA, "ground": Ground.SAID, "silent": True},
    ),
    (
        "C19",
        lambda f: True,
        {**_EXTRA, "ground": Ground.FREE, "silent": True},
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
    (
        "T17",
        lambda f: f.hold is Hold.STATE and (f.naming in _NAMES or (f.naming is Naming.PART and not f.another)),
        {"do": Do.STATE, "code": ResultCode.STATED},
    ),
    ("T18", lambda f: f.hold is Hold.STATE, {"do": Do.REFUSE, "code": ResultCode.NOT_REQUESTED}),
    (
        "T19",
        lambda f: f.hold is Hold.ASK and f.kept_apart and f.source is Source.MODEL,
        {"do": Do.RUN},
    ),
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
    ("T20", lambda f: f.inside, {"do": Do.REFUSE, "code": ResultCode.NOT_GROUNDED}),
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
        "A12",
        lambda f: f.yes_to_one and f.say is Say.CLAIMS and not f.acted and not f.ghost_retried,
        {**_FORCE, "reason": GuardReason.YES_TO_QUESTION},
    ),
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
