"""The chat request of the Vercel AI SDK's default chat transport (`useChat`, `DefaultChatTransport`).

The SDK sends the whole conversation as it holds it (`messages`, UI messages made of parts) with the
chat's `id` and a `trigger`; fields added with the transport's `body` option ride beside them. Only
the last user message is read: the conversation's history is the one stored here, so nothing the
client says the assistant said, or which tools it says ran, is taken as fact.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from backend.app.core.config import ToolPolicyName
from backend.app.core.exceptions import InvalidRequest
from backend.app.core.jsontypes import JsonObject
from backend.app.schemas.chat import TIME_ZONE_FIELD, BudgetOverride, ChatRequest

# An AI SDK chat id names a conversation of the user's: the same id, the same conversation.
_CHATS = uuid.UUID("5d6f1c9e-0b3a-4f47-9c1e-7a2b8d4e6f10")


EXAMPLE: JsonObject = {
    "id": "k3V9xQ2mLr8TzP1a",
    "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "add buy milk"}]}],
    "trigger": "submit-message",
}


class UIPart(BaseModel):
    """A part of a UI message. Only `text` parts of the last user message are read; every other kind
    (files, tool parts, data parts, reasoning, step starts) is carried by the client and ignored."""

    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class UIMessage(BaseModel):
    """A message of the chat as the client holds it. Checked loosely: only the last user message is
    read, and an unusual message earlier in a chat must not make every later turn of it a 422."""

    model_config = ConfigDict(extra="allow")
    id: str
    role: str = Field(description="`user`, `assistant` or `system`; only the last `user` message is read.")
    parts: list[UIPart]


class UIChatRequest(BaseModel):
    """`POST /api/{user_id}/chat` as `useChat` sends it: answered with the UI message stream."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [EXAMPLE]})
    id: str = Field(min_length=1, max_length=255, description="The chat's id: one conversation per user and id.")
    messages: list[UIMessage] = Field(
        min_length=1, description="The chat as the client holds it; only the last user message is read."
    )
    trigger: Literal["submit-message", "regenerate-message"] = Field(
        description="Both run the last user message; a regenerate of a turn that ran answers what it did "
        "(the turn is not run twice)."
    )
    messageId: str | None = Field(default=None, max_length=255, description="Sent by the SDK; not used.")
    conversation_id: uuid.UUID | None = Field(
        default=None, description="Continue this stored conversation instead of the chat id's own."
    )
    tool_policy: ToolPolicyName | None = None
    budget: BudgetOverride | None = None
    confirm: str | None = Field(default=None, max_length=64)
    time_zone: str | None = TIME_ZONE_FIELD

    def asked(self) -> UIMessage:
        """The last user message: what this turn answers."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message
        raise InvalidRequest("messages: no user message to answer")

    def chat_request(self, user_id: str) -> ChatRequest:
        """The turn as the plain chat request: the last user message's text in the chat's conversation.
        Its errors read as the plain request's, under `messages`."""
        asked = self.asked()
        text = "\n".join(part.text for part in asked.parts if part.type == "text" and part.text)
        if not text.strip():
            raise InvalidRequest("messages: the last user message has no text")
        try:
            return ChatRequest(
                message=text,
                conversation_id=self.conversation_id or self.conversation(user_id),
                tool_policy=self.tool_policy,
                budget=self.budget,
                confirm=self.confirm,
                time_zone=self.time_zone,
            )
        except ValidationError as error:  # the text: too long, or a character the store cannot keep
            problems = "; ".join(str(e["msg"]) for e in error.errors())
            raise InvalidRequest(f"messages: the last user message's text: {problems}") from None

    def conversation(self, user_id: str) -> uuid.UUID:
        return uuid.uuid5(_CHATS, f"{user_id}\x00{self.id}")

    def idempotency_key(self, turn: ChatRequest) -> str:
        """The key a turn gets when the client sends none: the chat's id, the user message's id and
        the request it makes (`turn`: the text and the fields beside it), so a retry or a regenerate
        of the same message replays what it did instead of acting twice, and an edited message
        (useChat keeps its id), or the same one sent with other fields, is a turn of its own."""
        said = f"{self.id}\x00{self.asked().id}\x00{turn.model_dump_json()}"
        return f"ai-sdk:{hashlib.sha256(said.encode()).hexdigest()}"
