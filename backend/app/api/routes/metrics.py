"""GET /metrics: Prometheus text exposition of this app's registry."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from backend.app.core.metrics import CONTENT_TYPE, Metrics
from backend.app.schemas.common import error_responses

router = APIRouter(tags=["operations"])

_EXAMPLE = (
    "# HELP taskchat_chat_turns_total Chat turns by outcome and stop reason.\n"
    "# TYPE taskchat_chat_turns_total counter\n"
    'taskchat_chat_turns_total{outcome="ok",stop_reason="composed"} 3.0\n'
)


@router.get(
    "/metrics",
    summary="Prometheus metrics",
    description="Chat turns, LLM calls and latency, guard retries and prevented ghost successes, tool results, "
    "findings, budget stops and HTTP latency by route template, in the Prometheus text format. "
    "Unauthenticated, like most scrape targets: keep it off the public internet (proxy or firewall).",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE: {"example": _EXAMPLE}}}, **error_responses(500)},
)
async def metrics(request: Request) -> Response:
    registry: Metrics = request.app.state.metrics
    return Response(registry.render(), media_type=CONTENT_TYPE)
