"""The try-it page: `/` serves static/index.html; `/static/*` its CSS and JavaScript. No build step."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).resolve().parents[2] / "static"

# Not API operations: kept out of the OpenAPI document.
router = APIRouter(include_in_schema=False)


# The page loads only its own script and styles and renders every server string as text; the policy
# keeps it that way should a future change slip in markup from a reply.
_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)


@router.get("/")
async def index() -> FileResponse:
    headers = {"Cache-Control": "no-cache", "Content-Security-Policy": _CSP, "X-Content-Type-Options": "nosniff"}
    return FileResponse(STATIC_DIR / "index.html", headers=headers)


def install(app: FastAPI) -> None:
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")
