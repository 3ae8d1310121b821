"""What the guard's table decides (calls/verdicts.py): a verdict (`Verdict`: what to do, the row that
said so, what a change may act on) and the event it leaves in the run's record (`GuardEvent`: the
decision and its reason), which the reply, the metadata and the metrics read."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from backend.app.calls.codes import ResultCode
from backend.app.calls.facts import Ground, Grounding, Hold
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
    TWO_READINGS = "two_readings"  # the words ask for this delete or for a completion ("tacha gym")


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


class Do(StrEnum):
    RUN = "run"
    ASK = "ask"  # look the target up; the user is asked
    ASK_NAMED = "ask_named"  # ask about the task the user's words name instead of the model's
    STATE = "state"  # look the target up; how it stands is said, nothing changes
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
        self,
        *,
        names: str | None,
        not_names: str = "",
        title: str | None = None,
        forced: bool = False,
        pointed: str = "",
        items: tuple[str, ...] = (),
        kept: tuple[str, ...] = (),
        kept_beside: str = "",
    ) -> Grounding:
        """What the call may act on, in the user's own words (`names` None: whatever the model named;
        `pointed`: after a yes to a question that points, the words that say what "it" is; `items`:
        the lines of `names` that are verbless items of a command; `kept`: what the keeps beside the
        change keep; `kept_beside`: the clauses of this change's commands beside them)."""
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
            pointed,
            items,
            kept,
            kept_beside,
        )
