"""`execution_metadata`: what a chat turn did and why, as the response and the stored message carry it.

Built by `services/turn/record.py` from the run, the guard, the reader and the reply; its fields are
listed in the OpenAPI schema. Everything in it is a fact the backend established (a count, a
decision and its reason, a tool's result code), never the model's words, except the replaced model
replies, quoted so that a reader can see what was not shown.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from backend.app.core.jsontypes import JsonObject


class _Record(BaseModel):
    """A metadata record. Its fields declared `absent` are left out when they have no value (as a
    trace step that made no retry has no `retry` key), the others are always present."""

    model_config = ConfigDict(extra="forbid")


def _none(value: object) -> bool:
    return value is None


def absent(description: str | None = None) -> Any:
    """A field left out of the record when it has no value (None, its default). Declared per field,
    so a dump stays in pydantic's own serializer (a model serializer in Python, wrapped around each of
    a turn's 14 records, cost half of its metadata's dump)."""
    return Field(default=None, description=description, exclude_if=_none)


class GuardEvent(_Record):
    """One decision of the guard (calls/verdicts.py `GuardDecision`, `GuardReason`), with the row of the
    decision table that made it (docs/guard.md)."""

    step: int
    decision: str = Field(
        description=(
            "forced, trusted, refused, grounded, asks, gave_up, asked_again, checked, claim_caught, "
            "unverified, shortened"
        )
    )
    reason: str = Field(description="missing_tool, ghost_claim, not_asked, extra_call, ...")
    tool: str | None
    rule: str | None = absent("the decision table's row (docs/guard.md); none for a review of the words")


class GuardInfo(_Record):
    outcome: str
    retry_reason: str | None
    decisions: list[GuardEvent]


class IntentAction(_Record):
    tools: list[str]
    text: str
    explicit: bool


class IntentInfo(_Record):
    """How the message was read (language/reading/intent.py)."""

    kind: str = Field(description="command, question, state, advice, report, negated, small_talk, chat")
    tools: list[str]
    actions: list[IntentAction]
    reason: str
    languages: list[str]


class ReplacedReply(_Record):
    reason: str = Field(description="ghost_claim, unbacked_claim, denied_success, hides_failure, unverified, altered")
    claims: list[str]
    model_reply: str = Field(description="the model's words that were not shown (first 500 characters)")


class NotDone(_Record):
    action: str
    reason: str | None
    message: str


class ReplyInfo(_Record):
    source: str = Field(description="results, model, contract")
    replaced: list[ReplacedReply]
    not_done: list[NotDone]
    words: str | None = absent(
        "what became of the model's own words: verified (its check matched what ran), shown (read "
        "by the word lists only), withheld, not_shown (the reply is built from the results)",
    )


class LanguageInfo(_Record):
    """The language the turn answered in (language/detect.py)."""

    code: str = Field(description="the language of every text the backend composed for this turn")
    detected: str | None = Field(description="the language found in the message; null: none the backend reads")
    how: str = Field(description="words (found in the message), conversation (the conversation's), default")


class PolicyInfo(_Record):
    requested: str
    applied: str
    downgraded_by: str | None


class PlanInfo(_Record):
    intent: str
    expected_tools: list[str]
    why: str
    policy: str


class FindingRecord(BaseModel):
    """Something worth counting (agent/loop_types.py `FindingKind`); the other keys depend on the kind."""

    model_config = ConfigDict(extra="allow")
    kind: str


class BudgetLimits(_Record):
    """A turn's budgets, after a request's own lower ones (agent/limits.py `Budget`)."""

    max_llm_calls: int
    max_tool_calls: int
    max_latency_ms: int
    max_tokens: int
    max_cost_usd: float


class BudgetInfo(_Record):
    llm_calls: int
    tool_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    latency_ms: int
    limits: BudgetLimits = Field(description="the turn's budgets")


class AppliedCall(_Record):
    index: int
    tool: str
    task_id: Any = None


class RejectedCall(_Record):
    index: int
    tool: str
    code: str | None
    error: str | None


class CallWarning(_Record):
    index: int
    tool: str
    warning: str


class PresetInfo(_Record):
    """The provider preset a turn ran with (agent/presets.py `Preset.describe`)."""

    name: str
    provider: str
    workarounds: list[str]
    request_overrides: JsonObject
    required_choice: str | JsonObject | None
    content_tag_fallback: bool
    tool_use_mode: str
    policy_downgrades: dict[str, str]
    assistant_tool_call_content: str
    schema_max_repeat: int | None


class OptionsInfo(_Record):
    """The loop's options a turn ran with (agent/run_io.py `RunOptions`)."""

    max_steps: int
    tool_use_mode: str
    max_tool_calls_per_step: int | None
    max_tool_args_bytes: int
    max_tool_output_bytes: int
    fix_empty_final: bool
    max_tokens: int | None


class ModelInfo(_Record):
    name: str
    client: str
    offline: bool
    preset: PresetInfo
    options: OptionsInfo
    fallbacks: list[str] | None = absent("LLM_FALLBACKS: the models tried after `name`")


class PolicyEvent(_Record):
    step: int
    event: str
    tool_choice: str | None = absent()
    to: str | None = absent()
    why: str | None = absent()


class TraceRequest(_Record):
    tools: list[str]
    tool_choice: str | None
    messages: int
    phase: str | None = absent()


class TraceUsage(_Record):
    prompt: int
    completion: int


class FallbackRecord(_Record):
    """A model that failed a request before another answered it (LLM_FALLBACKS)."""

    model: str
    code: str | None
    detail: str | None


class TraceStep(_Record):
    """One request to the model and what came of it (agent/runner.py). `model` and `fallbacks`
    only with several models: the one that answered, and those that failed before it."""

    step: int
    request: TraceRequest
    latency_ms: float
    usage: TraceUsage
    finish_reason: str | None
    calls: list[str]
    ignored_override_keys: list[str] | None = absent()
    normalizations: list[str] | None = absent()
    retry: str | None = absent()
    ignored_tool_calls: int | None = absent()
    errors: list[str | None] | None = absent()
    respond: bool | None = absent()
    model: str | None = absent()
    fallbacks: list[FallbackRecord] | None = absent()


class TraceCheck(_Record):
    """The reply check: one request asking the model what its words claim (services/guard/reply_check.py)."""

    step: int
    check: str
    answered: bool
    latency_ms: float | None = absent()
    usage: TraceUsage | None = absent()
    error: str | None = absent()


class ProviderError(_Record):
    code: str
    detail: str


class ConfirmationAnswer(_Record):
    verdict: str
    how: str | None


class RoutingEstimate(_Record):
    model: str
    n: int = Field(description="the model's outcomes read (its last ROUTING_WINDOW)")
    mean_reward: float | None
    mean_cost_usd: float | None
    mean_latency_ms: float | None
    score: float | None = Field(description="what the strategy compared: the mean, the upper bound or the draw")


class RoutingInfo(_Record):
    """With several models (LLM_FALLBACKS): the one this turn asked first and why (services/turn/routing.py)."""

    strategy: Literal["fixed", "greedy", "epsilon_greedy", "ucb1", "thompson"]
    policy: str
    chosen: str
    how: Literal["fixed", "exploit", "explore", "floor"]
    estimates: list[RoutingEstimate]


class ExecutionMetadata(_Record):
    """Always has tool_calls_executed, tool_calls_retried, llm_calls and total_latency_ms (the
    contract); the rest explains the turn: the guard's decisions, the reading of the message, where
    the reply came from, the policy, the plan, findings, budget use, best-effort accounting, the
    model, and a compact trace of each request."""

    tool_calls_executed: int
    tool_calls_retried: int
    llm_calls: int
    total_latency_ms: int
    tool_calls_succeeded: int
    tool_calls_ignored: int
    prompt_tokens: int
    completion_tokens: int
    estimated_cost_usd: float
    guard: GuardInfo
    intent: IntentInfo
    reply: ReplyInfo
    policy: PolicyInfo
    response_mode: Literal["direct", "model"]
    stop_reason: str
    plan: PlanInfo
    findings: list[FindingRecord]
    budget: BudgetInfo
    apply_status: Literal["applied", "partial", "rejected"] | None
    applied: list[AppliedCall]
    rejected: list[RejectedCall]
    warnings: list[CallWarning]
    apply_mode: str
    model: ModelInfo
    policy_events: list[PolicyEvent]
    trace: list[TraceStep | TraceCheck]
    routing: RoutingInfo | None = absent()
    language: LanguageInfo
    time_zone: str | None = absent("the IANA zone the turn's dates were read in (docs/clock.md)")
    provider_error: ProviderError | None = absent()
    confirmation_answer: ConfirmationAnswer | None = absent()
