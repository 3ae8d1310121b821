"""Shared response models: the error shape and the documented error responses of each route."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class ErrorResponse(BaseModel):
    error: str = Field(examples=["UNAUTHORIZED"])
    detail: str = Field(examples=["Missing or invalid bearer token"])


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
}


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    return {code: {"model": ErrorResponse, "description": _DESCRIPTIONS[code]} for code in codes}
