"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import text

from backend.app.api.responses import FastJSONResponse
from backend.app.schemas.common import ErrorResponse, error_responses

router = APIRouter(tags=["health"])

_NOT_READY = {"error": "NOT_READY", "detail": "Database unreachable (ConnectionRefusedError)"}


@router.get(
    "/health",
    summary="The process is up",
    description="Liveness: answers without touching the database or the LLM server.",
    responses={200: {"content": {"application/json": {"example": {"status": "ok"}}}}, **error_responses(500)},
)
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get(
    "/ready",
    summary="The database is reachable",
    description="Readiness: runs `SELECT 1` on the database; `llm` says which model client serves chat turns "
    "(`http` for an OpenAI-compatible server, `offline` for the built-in rule-based model).",
    responses={
        200: {"content": {"application/json": {"example": {"status": "ready", "llm": "offline"}}}},
        503: {
            "model": ErrorResponse,
            "description": "Database unreachable.",
            "content": {"application/json": {"example": _NOT_READY}},
        },
        **error_responses(500),
    },
)
async def ready(request: Request) -> FastJSONResponse:
    try:
        async with request.app.state.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except Exception as exc:  # any driver error means not ready
        return FastJSONResponse(
            {"error": "NOT_READY", "detail": f"Database unreachable ({type(exc).__name__})"}, status_code=503
        )
    return FastJSONResponse({"status": "ready", "llm": request.app.state.chat_service.client.label})
