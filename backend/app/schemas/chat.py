"""Request and response models of the chat endpoint (the public contract)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from backend.app.core.config import ToolPolicyName
from backend.app.core.jsontypes import JsonObject
from backend.app.schemas.metadata import ExecutionMetadata, absent

# Any larger value is capped by the server's limit anyway; the bound keeps integers JSON-encodable
# (the request is hashed with orjson, which stops at 64 bits).
_MAX_BUDGET = 2**31 - 1


class BudgetOverride(BaseModel):
    """Per-request budgets; each may only lower the server's limit."""

    model_config = ConfigDict(extra="forbid")
    max_llm_calls: int | None = Field(default=None, ge=1, le=_MAX_BUDGET)
    max_tool_calls: int | None = Field(default=None, ge=0, le=_MAX_BUDGET)
    max_latency_ms: int | None = Field(default=None, ge=1, le=_MAX_BUDGET)
    max_tokens: int | None = Field(default=None, ge=1, le=_MAX_BUDGET)
    max_cost_usd: float | None = Field(default=None, ge=0, allow_inf_nan=False)


# The user's IANA zone, for the turn's "today" (ahead of `X-Time-Zone`, the token's `zoneinfo`, the stored zone).
TIME_ZONE_FIELD: Any = Field(
    default=None,
    max_length=64,
    description="The user's IANA time zone ('America/Los_Angeles') for this turn: what today, tomorrow and "
    "weekdays are. Else `X-Time-Zone`, the token's `zoneinfo` claim, the stored zone, DEFAULT_TIME_ZONE. "
    "An unknown name is 422 `INVALID_TIME_ZONE`.",
)


class ChatRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"message": "delete Read book", "conversation_id": None}]},
    )
    # The limit is MAX_MESSAGE_CHARS (4,000 by default), checked by the service; this bound only keeps
    # the schema honest about the most any deployment can accept within MAX_BODY_BYTES.
    message: str = Field(min_length=1, max_length=100_000, description="What the user typed (MAX_MESSAGE_CHARS).")
    conversation_id: uuid.UUID | None = Field(default=None, description="Continue this conversation; null starts one.")
    tool_policy: ToolPolicyName | None = Field(default=None, description="Overrides TOOL_POLICY for this turn.")
    budget: BudgetOverride | None = Field(default=None, description="Lower the per-turn budgets for this turn.")
    confirm: str | None = Field(
        default=None,
        max_length=64,
        description="Answer yes to the conversation's pending confirmation with this id (its `confirmation.id`).",
    )
    time_zone: str | None = TIME_ZONE_FIELD

    @field_validator("message")
    @classmethod
    def _storable(cls, value: str) -> str:
        # Postgres text cannot hold NUL; refusing it here keeps it from failing the turn's first write.
        if "\x00" in value:
            raise ValueError("message must not contain NUL characters")
        return value


class DroppedValue(BaseModel):
    """A value the call was not let store, or a filter not applied: the user's words do not give it
    (docs/guard.md, row V6)."""

    argument: str
    value: Any


class ToolResultOut(BaseModel):
    success: bool
    data: Any = None
    error: str | None = None
    code: str | None = None
    warnings: list[str] | None = None
    dropped: list[DroppedValue] | None = absent("values not stored or filters not applied: nobody gave them")


class ToolCallRecord(BaseModel):
    name: str
    arguments: JsonObject
    result: ToolResultOut
    retried: bool = False
    retry_reason: str | None = None


class ActionRecord(BaseModel):
    """One action of the turn with its real outcome."""

    action: str
    success: bool
    task_id: str | None = None
    task_title: str | None = None
    message: str
    status: Literal["done", "failed", "not_done", "asked"] = Field(
        description="done; failed (the tool said why); not_done (ignored, over a cap, out of budget, refused, "
        "never called); asked (the user is asked which task they meant)"
    )


class ActionMetadata(BaseModel):
    """The turn's first action (the contract's single-action fields) and, when there are several,
    every action in `actions`. Built from tool results only, never from the model's words."""

    action: str
    success: bool
    task_id: str | None = None
    task_title: str | None = None
    message: str
    actions: list[ActionRecord] | None = None


class ConfirmationAction(BaseModel):
    name: str
    arguments: JsonObject


class ConfirmationAnswer(BaseModel):
    """One answer a client can offer as a button: its `label`, and the `message` it sends (in the
    user's language); `confirm` is the body field to send with it, when it has one."""

    label: str
    message: str
    confirm: str | None = None


class Confirmation(BaseModel):
    """A question the turn asks before acting: the next message answers it (a yes in any covered
    language, or `"confirm": id`, runs exactly `actions`; a no cancels; anything else cancels it).
    `kind`: `confirm` (yes or no) or `choose` (which of `actions`, by number); `answers`: the
    answers to offer, written in the user's language, so a client needs no language of its own."""

    id: str
    question: str
    actions: list[ConfirmationAction]
    expires_at: datetime
    kind: Literal["confirm", "choose"] = "confirm"
    answers: list[ConfirmationAnswer] = Field(default_factory=list)


class ChatReply(BaseModel):
    """What a turn shows the user: the reply, its calls, its actions and the question it asks; the
    streams read these (api/streaming.py, api/ui_stream.py), of a fresh response or a replayed one."""

    conversation_id: uuid.UUID
    assistant_message: str
    tool_calls: list[ToolCallRecord]
    action_metadata: ActionMetadata | None
    confirmation: Confirmation | None = None


# A chat turn's response: the reply (`ChatReply`) and what explains it (`execution_metadata`). No
# docstring: it would become the OpenAPI schema's description.
class ChatResponse(ChatReply):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "conversation_id": "0b7f3c1e-2f1a-4a57-9a53-6f1f2d0c9a11",
                    "assistant_message": 'Deleted "Read book".',
                    "tool_calls": [
                        {
                            "name": "delete_task",
                            "arguments": {"task_id": "Read book"},
                            "result": {
                                "success": True,
                                "data": {"id": "…", "title": "Read book", "status": "deleted"},
                                "error": None,
                            },
                            "retried": False,
                            "retry_reason": None,
                        }
                    ],
                    "action_metadata": {
                        "action": "delete_task",
                        "success": True,
                        "task_id": "…",
                        "task_title": "Read book",
                        "message": "Deleted: Read book",
                    },
                    "execution_metadata": {
                        "tool_calls_executed": 1,
                        "tool_calls_retried": 0,
                        "llm_calls": 1,
                        "total_latency_ms": 12,
                    },
                }
            ]
        }
    )
    execution_metadata: ExecutionMetadata = Field(
        description="Always has tool_calls_executed, tool_calls_retried, llm_calls, total_latency_ms; "
        "also the guard's decisions, the reading of the message, the reply's source, policy, plan, findings, "
        "budget use, tokens, cost, best-effort accounting and a compact trace."
    )
