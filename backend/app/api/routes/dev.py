"""POST /dev/token: mint a token from the browser page. Development only.

The router is only included when ENVIRONMENT=development, and the handler checks again, so a
production app neither serves nor documents it. It signs with the same key and rules as
`taskchat token`.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, field_validator

from backend.app.api.deps import SettingsDep
from backend.app.core.exceptions import InvalidRequest, NotFound
from backend.app.core.security import create_token
from backend.app.schemas.common import error_responses

router = APIRouter(tags=["development"])


class DevTokenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{"user_id": "alice", "minutes": 60}]})
    user_id: str = Field(min_length=1, max_length=255, description="The token's `sub`: the user it acts as.")
    minutes: int = Field(default=60, ge=1, description="Lifetime; at most JWT_MAX_LIFETIME_MINUTES.")

    @field_validator("user_id")
    @classmethod
    def _printable(cls, value: str) -> str:
        if not value.isprintable() or value.strip() != value:
            raise ValueError("user_id must be printable, without surrounding spaces")
        return value


class DevTokenResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"access_token": "eyJhbGciOiJIUzI1NiIs…", "token_type": "bearer", "user_id": "alice"}]
        }
    )
    access_token: str
    token_type: Literal["bearer"] = "bearer"
    user_id: str
    expires_in: int = Field(description="Seconds until the token expires.")


@router.post(
    "/dev/token",
    response_model=DevTokenResponse,
    summary="Mint a development token (ENVIRONMENT=development only)",
    description="Returns a signed HS256 JWT for `user_id`, as `taskchat token USER_ID` prints. "
    "Exists only when ENVIRONMENT=development; other environments answer 404 and do not document it.",
    responses=error_responses(404, 422, 500),
)
async def mint_token(body: DevTokenRequest, settings: SettingsDep) -> DevTokenResponse:
    if settings.environment != "development":
        raise NotFound("Not found")
    if body.minutes > settings.jwt_max_lifetime_minutes:
        raise InvalidRequest(f"minutes may be at most JWT_MAX_LIFETIME_MINUTES ({settings.jwt_max_lifetime_minutes})")
    token = create_token(settings=settings, user_id=body.user_id, minutes=body.minutes)
    return DevTokenResponse(access_token=token, user_id=body.user_id, expires_in=body.minutes * 60)
