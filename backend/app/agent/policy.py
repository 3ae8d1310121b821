"""Tool policies -> the tools and `tool_choice` of each step.

    none          no tools are sent
    auto          all tools, tool_choice "auto"
    guarded       like auto; the service's execution guard adds one forced retry
    required      all tools plus `respond`, a tool call every step until satisfied, then "auto"
    forced_intent step one forces the tool the intent needs, later steps "auto"
    two_phase     read-only tools first; mutating tools once the read phase is over

Every policy ends: `required` is reset once an expected tool (or `respond`) ran, and the loop's
step and budget limits bound everything else.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from backend.app.agent.loop_types import PolicyChange, ToolChoice
from backend.app.agent.presets import Preset
from backend.app.calls.types import ExecutedCall, ToolSpec


class ToolPolicy(StrEnum):
    NONE = "none"
    AUTO = "auto"
    GUARDED = "guarded"
    REQUIRED = "required"
    FORCED_INTENT = "forced_intent"
    TWO_PHASE = "two_phase"


RESPOND_TOOL = ToolSpec(
    name="respond",
    description="Give your final answer to the user. Call this when no other tool is needed.",
    parameters={
        "type": "object",
        "properties": {"message": {"type": "string", "description": "The reply shown to the user."}},
        "required": ["message"],
    },
    read_only=True,
)


@dataclass(frozen=True, slots=True)
class StepPlan:
    tools: list[ToolSpec]
    tool_choice: ToolChoice
    phase: str | None = None


@dataclass(slots=True)
class PolicyDriver:
    policy: ToolPolicy
    specs: Sequence[ToolSpec]
    expected_tools: Sequence[str]
    preset: Preset
    phase: str | None = None
    satisfied: bool = False
    events: list[PolicyChange] = field(default_factory=list)  # the changes it made to its plan, in order

    def __post_init__(self) -> None:
        if self.policy is ToolPolicy.TWO_PHASE:
            self.phase = "read"

    @property
    def sends_tools(self) -> bool:
        return self.policy is not ToolPolicy.NONE and self.preset.tool_use_mode != "disabled"

    def plan(self, *, step: int, forcing: bool = False) -> StepPlan:
        """The step's tools and tool_choice; a step that forces a tool (the guard's retry) offers
        every tool whatever the phase, and its tool_choice comes from `forced_choice`."""
        if not self.sends_tools:
            return StepPlan(tools=[], tool_choice=None)
        offered = {s.name for s in self.specs}
        if forcing:
            tools = list(self.specs) + ([RESPOND_TOOL] if self.policy is ToolPolicy.REQUIRED else [])
            return StepPlan(tools=tools, tool_choice=self.preset.required_choice, phase=self.phase)
        match self.policy:
            case ToolPolicy.AUTO | ToolPolicy.GUARDED:
                return StepPlan(tools=list(self.specs), tool_choice="auto")
            case ToolPolicy.REQUIRED:
                choice = "auto" if self.satisfied else self.preset.required_choice
                return StepPlan(tools=[*self.specs, RESPOND_TOOL], tool_choice=choice)
            case ToolPolicy.FORCED_INTENT:
                target = next((t for t in self.expected_tools if t in offered), None)
                if step == 0 and target is not None:
                    return StepPlan(tools=list(self.specs), tool_choice=self.preset.forced_choice(target))
                return StepPlan(tools=list(self.specs), tool_choice="auto")
            case ToolPolicy.TWO_PHASE:
                read_only = self.phase == "read"
                tools = [s for s in self.specs if s.read_only == read_only]
                return StepPlan(tools=tools, tool_choice="auto", phase=self.phase)
            case ToolPolicy.NONE:
                return StepPlan(tools=[], tool_choice=None)

    def observe_tools(self, *, step: int, executed: Sequence[ExecutedCall]) -> None:
        names = {e.call.name for e in executed if not e.result.model_fixable}
        if self.policy is ToolPolicy.REQUIRED and not self.satisfied:
            wanted = set(self.expected_tools)
            if (wanted and wanted & names) or (not wanted and names):
                self.satisfied = True
                self.events.append(PolicyChange(step=step, event="required_satisfied", tool_choice="auto"))
        if self.policy is ToolPolicy.TWO_PHASE and self.phase == "read" and names:
            self._switch(step, "read tools ran")

    def wants_phase_switch(self) -> bool:
        """The model answered without calls: whether the policy wants another step, in its write phase
        (two_phase, still reading, for an intent that changes something). A question: it changes nothing."""
        return self.policy is ToolPolicy.TWO_PHASE and self.phase == "read" and self._needs_mutation()

    def switch_phase(self, *, step: int) -> None:
        """The read phase answered and the loop asks again (`wants_phase_switch`): the write phase begins."""
        self._switch(step, "read phase answered")

    def forced_choice(self, tool: str) -> ToolChoice:
        """The tool_choice forcing `tool`; providers reject a forced function that is not in `tools`
        (one masked by the policy), so then any tool is required instead."""
        offered = {s.name for s in self.specs}
        return self.preset.forced_choice(tool) if tool in offered else self.preset.required_choice

    def _needs_mutation(self) -> bool:
        read_only = {s.name for s in self.specs if s.read_only}
        return any(name not in read_only for name in self.expected_tools)

    def _switch(self, step: int, why: str) -> None:
        if not self._needs_mutation():
            return
        self.phase = "write"
        self.events.append(PolicyChange(step=step, event="phase_switch", to="write", why=why))
