"""The execution guard: no success without a tool result behind it, no action nobody asked for.

Forcing a tool is a way to recover an action the user clearly asked for, nothing more. The decision
table (README, "The execution guard"):

- A clear command whose tool the model calls: it runs; an add's title must share a word with the
  message or the conversation before it (a title the user never said is not their task).
- A clear command (`intent.kind == "command"`) answered without its tool: one forced retry of that
  tool, per action kind. A forced call that changes a task may act only on a task the user's own
  words name (`grounded`); otherwise it is not run and the user is asked which task they mean.
  A forced retry that still runs no tool: "Technical error: Tool not triggered." when nothing at all
  was done; otherwise the reply says which action was not done.
- The model chose a read (list_tasks) or an edit (update_task) instead of the command's tool: its
  choice stands; a destructive tool (delete, complete) is never forced over it.
- The model chose another add, delete or complete than the command's: not run, and the command's
  tool is forced instead (once), unless the same step also did what was asked: then the extra call
  runs only on what the user's words name.
- A question, advice-seeking, a report, a hypothetical, small talk, a negation or a retraction: never
  forced, and no change the model calls anyway is run: a delete or complete is asked about (never
  after a negation: they said no); an add or an edit is reported as not done. Only a message read as
  nothing (`chat`: other wording, another language) may still be a request: there an add or an edit
  acts only on what the user's words name.
- A reply claiming a change when no change succeeded: never shown. When the message was read as
  nothing at all (`chat`: other wording, another language), the model gets one retry with the tools
  required and a `respond` tool as the way out, every change it makes grounded; on a question, a
  report or a negation the claim is simply not shown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from backend.app.agent.dispatch import IGNORED
from backend.app.agent.guard import ACCEPT_CALLS, Accept, CallsVerdict, FinalVerdict, ForceRetry, GiveUp
from backend.app.agent.types import ExecutedCall, GuardDecision, GuardEvent, GuardReason, ToolCall, ToolResult
from backend.app.services.claims import Claim, claims
from backend.app.services.intent import Action, Intent

NOT_REQUESTED = "NOT_REQUESTED"
WRONG_TOOL = "WRONG_TOOL"
READ_TOOLS = frozenset({"list_tasks"})
EDIT_TOOL = "update_task"
ADD_TOOL = "add_task"
DESTRUCTIVE = frozenset({"delete_task", "complete_task", "undo_last_change"})
CHANGING = frozenset({"add_task", "delete_task", "complete_task"})


def _refusal(code: str, message: str) -> ToolResult:
    return ToolResult(success=False, code=code, error=message)


def satisfies(call: ExecutedCall, action: Action) -> bool:
    """Whether a call attempted the action: one of its tools, or an edit standing in for a change."""
    if call.result.code == WRONG_TOOL:
        return False
    return call.call.name in action.tools or (call.call.name == EDIT_TOOL and action.tool in CHANGING)


@dataclass(slots=True)
class ExecutionGuard:
    intent: Intent
    message: str  # the user's words: what grounded calls must name
    mutating_tools: frozenset[str]
    instruction: Callable[[str], str]
    ghost_instruction: str
    enabled: bool = True
    context: str = ""  # the conversation before the message (what an asked add may also take its title from)
    forced: set[str] = field(default_factory=set)  # tools already forced this turn (at most once each)
    ghost_retried: bool = False
    events: list[GuardEvent] = field(default_factory=list)

    # -- the verdicts the loop acts on --------------------------------------------------------------
    def review_calls(
        self, calls: Sequence[ToolCall], executed: Sequence[ExecutedCall], *, step: int, forced: bool
    ) -> CallsVerdict:
        if not self.enabled:
            return ACCEPT_CALLS
        changes = [(i, c) for i, c in enumerate(calls) if c.name in self.mutating_tools]
        if not changes:
            return ACCEPT_CALLS
        if not self.intent.needs_tool:
            if forced:  # the way-out retry after a claimed change: it acts only on what the user named
                return self._grounded(step, [i for i, _ in changes], calls, GuardReason.FORCED_CALL)
            # The message asks for no change (a question, advice, a report, a negation): nothing is
            # changed; a delete or complete waits for the user's yes. Read as nothing at all (`chat`: other
            # wording, another language), it may still be a request: an add or an edit then acts only
            # on what the user's words name, and a delete or complete waits for the yes.
            refused = {
                i: _refusal(NOT_REQUESTED, "Not run: the user's message asks for no change. Answer without changing.")
                for i, c in changes
                if c.name in DESTRUCTIVE or self.intent.kind != "chat"
            }
            for i in refused:
                self._event(step, GuardDecision.REFUSED, GuardReason.NOT_ASKED, calls[i].name)
            others = [i for i, _ in changes if i not in refused]
            verdict = self._grounded(step, others, calls, GuardReason.EXTRA_CALL)
            return CallsVerdict(refused=refused, grounded=verdict.grounded, grounding=verdict.grounding)
        expected = set(self.intent.tools)
        asked = [i for i, c in changes if c.name in expected]
        edits = [i for i, c in changes if c.name == EDIT_TOOL and c.name not in expected]
        others = [i for i, c in changes if c.name not in expected and c.name != EDIT_TOOL]
        for i in edits:
            self._event(step, GuardDecision.TRUSTED, GuardReason.MODEL_CHOSE_EDIT, calls[i].name)
        missing = self._missing(executed)
        if others and not asked and missing is not None:
            # Another change than the one asked for, and nothing asked for in this step: not run.
            refused = {
                i: _refusal(WRONG_TOOL, f"Not run: the user asked for {missing}, not {calls[i].name}.") for i in others
            }
            for i in others:
                self._event(step, GuardDecision.REFUSED, GuardReason.WRONG_TOOL, calls[i].name)
            retry = self._force(step, missing, GuardReason.WRONG_TOOL) if missing not in self.forced else None
            grounded = frozenset(edits)
            return CallsVerdict(refused=refused, grounded=grounded, grounding=self.message, retry=retry)
        # Beside what was asked, or after it: the extra changes act only on what the user named.
        adds = [i for i in asked if calls[i].name == ADD_TOOL]
        forced_changes = [i for i in asked if calls[i].name not in READ_TOOLS and i not in adds] if forced else []
        reason = GuardReason.FORCED_CALL if forced else GuardReason.EXTRA_CALL
        verdict = self._grounded(step, others + edits + forced_changes, calls, reason)
        # The asked add, forced or the model's own choice: its title shares a word with the message or
        # the conversation before it ("add it again"), or it is not the user's task at all.
        if not adds:
            return verdict
        wider = f"{self.message}\n{self.context}"
        return dataclasses.replace(
            verdict,
            grounded=verdict.grounded | frozenset(adds),
            grounding=verdict.grounding or self.message,
            grounding_by_call=dict.fromkeys(adds, wider),
        )

    def review_final(self, text: str, executed: Sequence[ExecutedCall], *, step: int) -> FinalVerdict:
        if not self.enabled:
            return Accept()
        if self.intent.needs_tool:
            missing = self._missing(executed)
            if missing is not None:
                if missing in DESTRUCTIVE and (chosen := self._model_chose_other(executed)) is not None:
                    self._event(step, GuardDecision.TRUSTED, chosen, missing)
                    return Accept()
                if missing not in self.forced:
                    return self._force(step, missing, GuardReason.MISSING_TOOL)
                if not any(e.ran for e in executed):
                    self._event(step, GuardDecision.GAVE_UP, GuardReason.MISSING_TOOL, missing)
                    return GiveUp(reason=GuardReason.MISSING_TOOL)
            return Accept()
        if self.ghost_claims(text, executed):
            if self.intent.kind == "chat" and not self.ghost_retried:
                self.ghost_retried = True
                self._event(step, GuardDecision.FORCED, GuardReason.GHOST_CLAIM)
                return ForceRetry(
                    tool=None, instruction=self.ghost_instruction, reason=GuardReason.GHOST_CLAIM, offer_respond=True
                )
            self._event(step, GuardDecision.CLAIM_CAUGHT, GuardReason.GHOST_CLAIM)
        return Accept()

    def covered(self, executed: Sequence[ExecutedCall]) -> bool:
        """Every action asked for was attempted, and as many calls as the message has items were made
        (a model making one call per step is asked again until then, within the budgets)."""
        # A call ignored over the per-step limit was not attempted: the model gets to send it again.
        attempted = [e for e in executed if e.result.code not in (WRONG_TOOL, IGNORED) and not e.result.model_fixable]
        if not self.enabled or not self.intent.needs_tool:
            return any(e.ran for e in attempted)
        if self._missing(executed) is not None:
            return False
        for tool in {a.tool for a in self.intent.actions}:
            wanted = [a for a in self.intent.actions if a.tool == tool]
            if sum(1 for e in attempted if satisfies(e, wanted[0])) < len(wanted):
                return False
        return True

    # -- facts the reply needs ---------------------------------------------------------------------
    def ghost_claims(self, text: str, executed: Sequence[ExecutedCall]) -> list[Claim]:
        """Claims of a change in `text` when no change succeeded. On a message that asks for none
        (a question, a report), only the assistant's own claims count: "Taxes is completed" there is
        an answer, "I've completed Taxes" is not."""
        if any(e.ran and e.result.success and e.call.name in self.mutating_tools for e in executed):
            return []
        return self.claims_in(text)

    def claims_in(self, text: str) -> list[Claim]:
        """The changes `text` claims, as this message makes them count (see `ghost_claims`)."""
        found = claims(text)
        if self.intent.kind not in ("command", "chat"):
            found = [c for c in found if c.first_person]
        return found

    @property
    def outcome(self) -> str:
        """One word for dashboards: disabled, not_needed, passed, retried or tool_not_triggered."""
        if not self.enabled:
            return "disabled"
        if any(e.decision is GuardDecision.GAVE_UP for e in self.events):
            return "tool_not_triggered"
        if any(e.decision is GuardDecision.FORCED for e in self.events):
            return "retried"
        return "passed" if self.intent.needs_tool else "not_needed"

    @property
    def unasked(self) -> frozenset[tuple[int, str]]:
        """(step, tool) of the changes beside what the message asked for, let run only on what the
        user named: when the user's words name nothing, they are simply not done (never asked about:
        an injected "delete everything" must not become a question to the user)."""
        return frozenset(
            (e.step, e.tool or "")
            for e in self.events
            if e.decision is GuardDecision.GROUNDED and e.reason is GuardReason.EXTRA_CALL
        )

    @property
    def retry_reason(self) -> str | None:
        return next((e.reason.value for e in self.events if e.decision is GuardDecision.FORCED), None)

    # -- helpers -----------------------------------------------------------------------------------
    def _missing(self, executed: Sequence[ExecutedCall]) -> str | None:
        """The tool of the first explicit action no call has attempted yet."""
        for action in self.intent.actions:
            if action.explicit and not any(satisfies(e, action) for e in executed):
                return action.tool
        return None

    def _model_chose_other(self, executed: Sequence[ExecutedCall]) -> GuardReason | None:
        names = {e.call.name for e in executed if e.result.code != WRONG_TOOL}
        if names & READ_TOOLS:
            return GuardReason.MODEL_CHOSE_READ
        if EDIT_TOOL in names:
            return GuardReason.MODEL_CHOSE_EDIT
        return None

    def _force(self, step: int, tool: str, reason: GuardReason) -> ForceRetry:
        self.forced.add(tool)
        self._event(step, GuardDecision.FORCED, reason, tool)
        return ForceRetry(tool=tool, instruction=self.instruction(tool), reason=reason)

    def _grounded(self, step: int, indexes: list[int], calls: Sequence[ToolCall], reason: GuardReason) -> CallsVerdict:
        for i in indexes:
            self._event(step, GuardDecision.GROUNDED, reason, calls[i].name)
        return CallsVerdict(grounded=frozenset(indexes), grounding=self.message) if indexes else ACCEPT_CALLS

    def _event(self, step: int, decision: GuardDecision, reason: GuardReason, tool: str | None = None) -> None:
        self.events.append(GuardEvent(step, decision, reason, tool))
