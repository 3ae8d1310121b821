"""Every dependency alias the routes use."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Header, Path, Request, Security
from fastapi.security import HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.core.clock import TIME_ZONE_HEADER, LocalClock, ZoneNames
from backend.app.core.config import Settings
from backend.app.core.security import ensure_owner, identify
from backend.app.db.repositories.preferences import user_clock
from backend.app.db.session import unit_of_work
from backend.app.services.user_data.writes import TaskWrites
from backend.app.tools.factory import ToolsFor


# The dependencies below are `async def` although they never await: FastAPI runs a plain `def`
# dependency in a worker thread, a thread hop per request for microseconds of work.
async def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    async with unit_of_work(request.app.state.sessionmaker) as session:
        yield session


async def get_tools_for(request: Request) -> ToolsFor:
    tools_for: ToolsFor = request.app.state.tools_for
    return tools_for


async def get_task_writes(request: Request) -> TaskWrites:
    writes: TaskWrites = request.app.state.task_writes
    return writes


# A user id in a path, an `Idempotency-Key`: 1 to this many characters (routes that declare them, and
# the chat route, which reads and documents them itself: routes/chat.py).
MAX_ID_CHARS = 255
USER_ID_SAYS = "Must equal the token's `sub`."
BEARER = "HTTPBearer"  # the security scheme's name in the OpenAPI document

SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
SessionDep = Annotated[AsyncSession, Depends(get_session)]
ToolsForDep = Annotated[ToolsFor, Depends(get_tools_for)]
TaskWritesDep = Annotated[TaskWrites, Depends(get_task_writes)]


class BearerUser(HTTPBearer):
    """The authenticated owner of the path's `user_id`: 401 for a bad token, 403 for another user's
    path. A security scheme, so OpenAPI documents it (HS256 or the identity provider's JWT in the
    `Authorization` header; the "Authorize" button of /docs), and one dependency, so a request
    solves no other for it (the scheme, the settings and the header apart cost 0.07-0.09 ms a
    request). The header is the first `Authorization` (OneIdentity refuses a request with two)."""

    async def __call__(  # type: ignore[override]
        self,
        request: Request,
        user_id: Annotated[str, Path(min_length=1, max_length=MAX_ID_CHARS, description=USER_ID_SAYS)],
    ) -> str:
        return await owner(request, user_id)


async def owner(request: Request, user_id: str) -> str:
    """The request's token's user, who must be `user_id`: 401 for a bad token, 403 for another user.
    The token's `zoneinfo` claim is kept on the request for `zone_names`."""
    state = request.app.state
    who = await identify(request.headers.get("authorization"), settings=state.settings, keys=state.keys)
    ensure_owner(who.user_id, user_id)
    request.state.zoneinfo = who.zoneinfo
    return who.user_id


def zone_names(request: Request, header: str | None = None) -> ZoneNames:
    """The zone names the request brings besides its body: the `X-Time-Zone` header (`header` when a
    route read it), then the token's `zoneinfo` claim (read by `owner`)."""
    given = header if header is not None else request.headers.get(TIME_ZONE_HEADER)
    return ZoneNames.of_request(given, getattr(request.state, "zoneinfo", None))


CurrentUser = Annotated[
    str,
    Security(
        BearerUser(
            scheme_name=BEARER,
            bearerFormat="JWT",
            description="HS256 JWT whose `sub` is the user id.",
            auto_error=False,
        )
    ),
]


ZoneHeader = Annotated[
    str | None,
    Header(
        alias=TIME_ZONE_HEADER,
        description="The user's IANA time zone for this request ('America/Los_Angeles'): what today is. "
        "Else the token's `zoneinfo` claim, the zone stored with `PUT /preferences`, DEFAULT_TIME_ZONE.",
    ),
]


async def get_user_clock(
    request: Request,
    user_id: CurrentUser,
    time_zone: ZoneHeader = None,
) -> LocalClock:
    """The user's clock for this request (services/user_data/preferences.py): 422 for a zone name that
    is no zone."""
    state = request.app.state
    names = zone_names(request, time_zone)
    return await user_clock(state.sessionmaker, state.clock, user_id, names, default=state.settings.default_time_zone)


UserClock = Annotated[LocalClock, Depends(get_user_clock)]
