"""Shared response models: the error shape and the documented error responses of each route."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field


class ErrorResponse(BaseModel):
    error: str = Field(examples=["UNAUTHORIZED"])
    detail: str = Field(examples=["Missing or invalid bearer token"])


# A route that takes one of several body shapes tags them with names that start with this; a
# validation error's location leaves them out (api/errors.py), so it reads as the shape's own.
BODY_FORM = "@"

_DESCRIPTIONS = {
    401: "Missing, malformed, expired or forged token.",
    403: "The token belongs to another user.",
    404: "Not found (or not yours).",
    409: "A request with this Idempotency-Key is still in flight.",
    413: "Request body over the size limit.",
    422: "Invalid request (message length, fields, reused Idempotency-Key).",
    429: "Rate limit reached; see Retry-After.",
    502: "The LLM server returned an unusable response; nothing half-done.",
    503: "The LLM server is unavailable or rate limiting; see Retry-After when present.",
    504: "The LLM server timed out or the turn's deadline passed.",
    500: "Unexpected server error (logged with the request id); the body never carries internals.",
}
_EXAMPLES = {
    401: ("UNAUTHORIZED", "Invalid or expired token"),
    403: ("FORBIDDEN", "Token does not grant access to this user"),
    404: ("NOT_FOUND", "Conversation not found"),
    409: ("IDEMPOTENCY_KEY_IN_FLIGHT", "A request with this Idempotency-Key is still being processed"),
    413: ("PAYLOAD_TOO_LARGE", "Request body over 16384 bytes"),
    422: ("VALIDATION_ERROR", "message: String should have at least 1 character"),
    429: ("RATE_LIMITED", "More than 20 chat requests per minute"),
    502: ("LLM_BAD_RESPONSE", "The model server returned an unusable response"),
    503: ("LLM_UNAVAILABLE", "The model server is unavailable"),
    504: ("LLM_TIMEOUT", "The model server timed out"),
    500: ("INTERNAL_ERROR", "An unexpected error occurred"),
}


def error_responses(
    *codes: int, own: Mapping[int, tuple[str, str, str]] | None = None
) -> dict[int | str, dict[str, object]]:
    """OpenAPI `responses` for these statuses: the error model, a description and an example body;
    `own` gives a route's own meaning of a status: (description, error code, detail)."""
    described = {code: (_DESCRIPTIONS[code], *_EXAMPLES[code]) for code in codes if code in _DESCRIPTIONS}
    described.update(own or {})
    return {
        code: {
            "model": ErrorResponse,
            "description": described[code][0],
            "content": {"application/json": {"example": {"error": described[code][1], "detail": described[code][2]}}},
        }
        for code in codes
    }
