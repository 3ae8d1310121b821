"""The AppError tree: every error a client may see, with its HTTP status and code.

    AppError                      (500 INTERNAL_ERROR)
    ├── Unauthorized              (401 UNAUTHORIZED)
    ├── Forbidden                 (403 FORBIDDEN)
    ├── NotFound                  (404 NOT_FOUND)
    ├── IdempotencyInFlight       (409 IDEMPOTENCY_KEY_IN_FLIGHT)
    ├── NothingToUndo             (409 NOTHING_TO_UNDO)
    ├── UndoConflict              (409 UNDO_CONFLICT: a later change touched the task)
    ├── ConfirmationNotPending    (409 CONFIRMATION_NOT_PENDING: expired, answered or unknown)
    ├── PayloadTooLarge           (413 PAYLOAD_TOO_LARGE)
    ├── InvalidRequest            (422 VALIDATION_ERROR)
    │   └── IdempotencyKeyReused  (422 IDEMPOTENCY_KEY_REUSED)
    ├── RateLimited               (429 RATE_LIMITED, Retry-After)
    ├── ToolBindingError          (500 TOOL_BINDING_ERROR: a policy needs tools and none are bound)
    └── LLMError                  (the model server failed; nothing half-done)
        ├── LLMBadResponse        (502 LLM_BAD_RESPONSE)
        ├── LLMUnavailable        (503 LLM_UNAVAILABLE, Retry-After when known)
        └── LLMTimeout            (504 LLM_TIMEOUT)

Services raise these; `api/errors.py` (and the streamed and MCP transports) answer with `body`:
`{"error": CODE, "detail": text}`, the one error shape of the contract.
Library errors (httpx, jose, IntegrityError) are translated where they are caught.
"""

from __future__ import annotations


class AppError(Exception):
    status_code = 500
    code = "INTERNAL_ERROR"

    def __init__(self, detail: str, *, headers: dict[str, str] | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.headers = headers or {}

    @property
    def body(self) -> dict[str, str]:
        """What the client reads: the contract's error JSON."""
        return error_body(self.code, self.detail)


def error_body(code: str, detail: str) -> dict[str, str]:
    """The contract's error JSON, for an AppError or a failure from outside the tree (a 404 route)."""
    return {"error": code, "detail": detail}


class Unauthorized(AppError):
    status_code = 401
    code = "UNAUTHORIZED"

    def __init__(self, detail: str = "Missing or invalid bearer token") -> None:
        super().__init__(detail, headers={"WWW-Authenticate": "Bearer"})


class Forbidden(AppError):
    status_code = 403
    code = "FORBIDDEN"


class NotFound(AppError):
    status_code = 404
    code = "NOT_FOUND"


class IdempotencyInFlight(AppError):
    status_code = 409
    code = "IDEMPOTENCY_KEY_IN_FLIGHT"


class NothingToUndo(AppError):
    status_code = 409
    code = "NOTHING_TO_UNDO"


class UndoConflict(AppError):
    status_code = 409
    code = "UNDO_CONFLICT"


class ConfirmationNotPending(AppError):
    status_code = 409
    code = "CONFIRMATION_NOT_PENDING"


class Conflict(AppError):
    status_code = 409
    code = "CONFLICT"


class PreconditionFailed(AppError):
    status_code = 412
    code = "PRECONDITION_FAILED"


class PayloadTooLarge(AppError):
    status_code = 413
    code = "PAYLOAD_TOO_LARGE"


class InvalidRequest(AppError):
    status_code = 422
    code = "VALIDATION_ERROR"


class IdempotencyKeyReused(InvalidRequest):
    code = "IDEMPOTENCY_KEY_REUSED"


class DatabaseUnavailable(AppError):
    """The database cannot be reached (refused, dropped, the pool timed out): nothing was written
    that a retry would repeat wrongly (a turn's changes commit or not as one), so the client waits."""

    status_code = 503
    code = "DATABASE_UNAVAILABLE"

    def __init__(
        self, detail: str = "The database cannot be reached; try again shortly", *, retry_after_s: int = 5
    ) -> None:
        super().__init__(detail, headers={"Retry-After": str(retry_after_s)})


class RateLimited(AppError):
    status_code = 429
    code = "RATE_LIMITED"

    def __init__(self, detail: str, *, retry_after_s: int) -> None:
        super().__init__(detail, headers={"Retry-After": str(max(1, retry_after_s))})
        self.retry_after_s = retry_after_s


class ToolBindingError(AppError):
    """The loop was asked to offer tools and has none: a wiring mistake, never the user's."""

    code = "TOOL_BINDING_ERROR"


class LLMError(AppError):
    status_code = 502
    code = "LLM_ERROR"


class LLMBadResponse(LLMError):
    status_code = 502
    code = "LLM_BAD_RESPONSE"


class LLMUnavailable(LLMError):
    status_code = 503
    code = "LLM_UNAVAILABLE"

    def __init__(self, detail: str, *, retry_after_s: float | None = None) -> None:
        # `Retry-After: 0` from the provider still means "retry later": clients get at least 1 s.
        headers = {"Retry-After": str(max(1, round(retry_after_s)))} if retry_after_s is not None else None
        super().__init__(detail, headers=headers)


class LLMTimeout(LLMError):
    status_code = 504
    code = "LLM_TIMEOUT"
