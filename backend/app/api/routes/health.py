"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter, Request
from sqlalchemy import text

from backend.app.api.responses import FastJSONResponse

router = APIRouter(tags=["health"])


@router.get("/health", summary="The process is up")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/ready", summary="The database is reachable", responses={503: {"description": "Database unreachable"}})
async def ready(request: Request) -> FastJSONResponse:
    try:
        async with request.app.state.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))
    except Exception as exc:  # any driver error means not ready
        return FastJSONResponse(
            {"error": "NOT_READY", "detail": f"Database unreachable ({type(exc).__name__})"}, status_code=503
        )
    return FastJSONResponse({"status": "ready", "llm": request.app.state.chat_service.client.label})
