"""One error shape for every failure: `{"error": CODE, "detail": text}`."""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from backend.app.api.responses import FastJSONResponse
from backend.app.core.exceptions import AppError, DatabaseUnavailable, error_body
from backend.app.db.outage import DATABASE_ERRORS, unreachable
from backend.app.schemas.common import BODY_FORM

log = logging.getLogger(__name__)

_HTTP_CODES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    422: "VALIDATION_ERROR",
    429: "RATE_LIMITED",
}


def install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def _app_error(_request: Request, exc: AppError) -> FastJSONResponse:
        return FastJSONResponse(exc.body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation(_request: Request, exc: RequestValidationError) -> FastJSONResponse:
        parts = []
        for err in exc.errors()[:10]:
            where = ".".join(str(p) for p in err.get("loc", ()) if p != "body" and not str(p).startswith(BODY_FORM))
            parts.append(f"{where}: {err.get('msg')}" if where else str(err.get("msg")))
        return FastJSONResponse(error_body("VALIDATION_ERROR", "; ".join(parts) or "Invalid request"), status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> FastJSONResponse:
        if exc.status_code == 400:
            # FastAPI's "error parsing the body" (e.g. bytes that are not UTF-8): the same 422 as broken JSON.
            return FastJSONResponse(error_body("VALIDATION_ERROR", str(exc.detail)), status_code=422)
        code = _HTTP_CODES.get(exc.status_code, "HTTP_ERROR")
        return FastJSONResponse(
            error_body(code, str(exc.detail)), status_code=exc.status_code, headers=getattr(exc, "headers", None)
        )

    async def _database(_request: Request, exc: Exception) -> FastJSONResponse:
        """A database error: 503 with `Retry-After` when the database is out of reach, else a 500."""
        if unreachable(exc):
            log.warning("database_unreachable", extra={"error": type(exc).__name__})
            outage = DatabaseUnavailable()
            return FastJSONResponse(outage.body, status_code=outage.status_code, headers=outage.headers)
        log.exception("unhandled_error", exc_info=exc)
        return FastJSONResponse(error_body("INTERNAL_ERROR", "An unexpected error occurred"), status_code=500)

    for kind in DATABASE_ERRORS:
        app.add_exception_handler(kind, _database)

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> FastJSONResponse:
        log.exception("unhandled_error", exc_info=exc)
        return FastJSONResponse(error_body("INTERNAL_ERROR", "An unexpected error occurred"), status_code=500)
