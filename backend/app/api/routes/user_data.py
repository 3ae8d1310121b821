"""A user's data, to take away or to erase (services/user_data/export.py), and what they keep between
requests: their time zone (services/user_data/preferences.py)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from backend.app.api.deps import CurrentUser, ZoneHeader, zone_names
from backend.app.api.responses import FastJSONResponse
from backend.app.core.clock import UnknownTimeZone
from backend.app.db.repositories import preferences as user_preferences
from backend.app.db.session import unit_of_work
from backend.app.schemas.common import error_responses
from backend.app.services.user_data import export as user_data

router = APIRouter(tags=["your data"])
_OUTAGE = {503: ("The database cannot be reached; see Retry-After", "DATABASE_UNAVAILABLE", "Try again shortly")}


@router.get(
    "/api/{user_id}/export",
    summary="Everything of yours, as JSON",
    description="Tasks, deleted tasks still restorable, conversations and their messages, every tool execution "
    "(the change log, with each change's before and after) and pending confirmations: every row that is yours, "
    "as a JSON attachment.",
    responses={
        200: {
            "content": {
                "application/json": {
                    "example": {
                        "user_id": "alice",
                        "tasks": [{"id": "5f0c8a52-1c1e-4a0e-9a5e-3d1f6e2b7c90", "title": "Gym", "status": "pending"}],
                        "deleted_tasks": [],
                        "conversations": [],
                        "messages": [],
                        "tool_executions": [],
                        "pending_confirmations": [],
                    }
                }
            }
        },
        **error_responses(401, 403, 422, 500, own=_OUTAGE),
    },
)
async def export(user_id: CurrentUser, request: Request) -> FastJSONResponse:
    async with unit_of_work(request.app.state.sessionmaker) as session:
        data = await user_data.export(session, user_id)
    headers = {"Content-Disposition": 'attachment; filename="taskchat-export.json"'}
    return FastJSONResponse(data, headers=headers)


@router.delete(
    "/api/{user_id}/data",
    summary="Erase everything of yours",
    description="Deletes every row that carries your user id, in every table, in one transaction (all or "
    "nothing), and answers how many rows of each table went. Not undoable. Logged by count, never by content.",
    responses={
        200: {
            "content": {"application/json": {"example": {"erased": {"tasks": 12, "messages": 40, "conversations": 3}}}}
        },
        **error_responses(401, 403, 422, 500, own=_OUTAGE),
    },
)
async def erase(user_id: CurrentUser, request: Request) -> FastJSONResponse:
    async with unit_of_work(request.app.state.sessionmaker) as session:
        erased = await user_data.erase(session, user_id)
    return FastJSONResponse({"erased": erased})


class PreferencesIn(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"time_zone": "Europe/Paris"}]})

    time_zone: str | None = Field(
        max_length=64,
        description="An IANA time zone name ('America/Los_Angeles'); null forgets it (DEFAULT_TIME_ZONE).",
    )


class PreferencesOut(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={"examples": [{"time_zone": "Europe/Paris", "effective_time_zone": "Europe/Paris"}]}
    )

    time_zone: str | None = Field(description="The stored zone; null when none is stored.")
    effective_time_zone: str = Field(
        description="The zone this request's dates are read in (X-Time-Zone, the token's zoneinfo, the stored zone, "
        "DEFAULT_TIME_ZONE)."
    )


_PREFERENCES = (
    "The zone a user's dates are read in when a request names none (no chat `time_zone`, no `X-Time-Zone`, no "
    "`zoneinfo` claim in the token). Stored per user, on every instance."
)


@router.get(
    "/api/{user_id}/preferences",
    response_model=PreferencesOut,
    summary="Your stored time zone",
    description=_PREFERENCES,
    responses=error_responses(401, 403, 422, 500, own=_OUTAGE),
)
async def preferences(user_id: CurrentUser, request: Request, time_zone: ZoneHeader = None) -> FastJSONResponse:
    state = request.app.state
    async with unit_of_work(state.sessionmaker, single_statement=True) as session:
        stored = await user_preferences.stored_zone(session, user_id)
    names = zone_names(request, time_zone)
    effective = names.first() or user_preferences.fallback_zone(stored, default=state.settings.default_time_zone)
    return FastJSONResponse({"time_zone": stored, "effective_time_zone": effective.key})


@router.put(
    "/api/{user_id}/preferences",
    response_model=PreferencesOut,
    summary="Store your time zone",
    description=_PREFERENCES + " 422 `INVALID_TIME_ZONE` for a name that is no IANA zone.",
    responses=error_responses(401, 403, 422, 500, own=_OUTAGE),
)
async def store_preferences(user_id: CurrentUser, request: Request, body: PreferencesIn) -> FastJSONResponse:
    state = request.app.state
    async with unit_of_work(state.sessionmaker) as session:
        stored = await user_preferences.store_zone(session, user_id, body.time_zone)
    # What the next request without a zone of its own will read: the token's claim still comes first
    # (when it names no zone, that request is a 422 unless it names its own; the zone is stored anyway).
    fallback = user_preferences.fallback_zone(stored, default=state.settings.default_time_zone)
    try:
        effective = zone_names(request).first() or fallback
    except UnknownTimeZone:
        effective = fallback
    return FastJSONResponse({"time_zone": stored, "effective_time_zone": effective.key})
