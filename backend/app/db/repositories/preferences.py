"""The user's stored preferences, and the user's clock: which time zone "today" is read in for one request.

In order (CONTRACT.md, "Time zones, times and repeats"): the name the request gives (the chat body's
`time_zone`, else the `X-Time-Zone` header), the token's OpenID Connect `zoneinfo` claim, the zone
the user stored (`PUT /api/{user_id}/preferences`), then DEFAULT_TIME_ZONE. A name given and not an
IANA zone is a 422 that says where it came from; the stored zone is read only when nothing before it
names one.
"""

from __future__ import annotations

from zoneinfo import ZoneInfo

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.core.clock import Clock, LocalClock, ZoneNames, zone_named
from backend.app.db.driver import fetch, reads_alone_next
from backend.app.db.models import UserPreference, utcnow
from backend.app.db.session import unit_of_work

_PREFERENCES = UserPreference.__table__  # type: ignore[attr-defined]
_STORED = sa.select(_PREFERENCES.c.time_zone).where(_PREFERENCES.c.user_id == sa.bindparam("owner", type_=sa.String))


async def user_clock(
    sessionmaker: async_sessionmaker[AsyncSession], clock: Clock, user_id: str, names: ZoneNames, *, default: str
) -> LocalClock:
    """`clock` read in the user's zone for this request (the stored zone read only when it is needed)."""
    zone = names.first()
    if zone is None:
        async with unit_of_work(sessionmaker, single_statement=True) as session:
            zone = fallback_zone(await stored_zone(session, user_id), default=default)
    return LocalClock(clock, zone)


def fallback_zone(stored: str | None, *, default: str) -> ZoneInfo:
    """The zone of a request that names none: the user's stored zone, else DEFAULT_TIME_ZONE."""
    return zone_named(stored or default, where="the stored time zone" if stored else "DEFAULT_TIME_ZONE")


async def stored_zone(session: AsyncSession, user_id: str) -> str | None:
    """The user's stored zone: one read, sent alone where the session has begun nothing (db/driver.py)."""
    reads_alone_next(session)
    rows = await fetch(session, _STORED, {"owner": user_id})
    return rows[0].time_zone if rows else None


async def store_zone(session: AsyncSession, user_id: str, name: str | None) -> str | None:
    """Keep `name` (checked: 422 when it is no zone) as the user's zone; None forgets it."""
    if name is not None:
        name = zone_named(name).key
    table = _PREFERENCES
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)
    now = utcnow()
    # One statement, so two requests setting a first zone at once do not race to insert the row.
    await session.execute(
        insert.values(user_id=user_id, time_zone=name, updated_at=now).on_conflict_do_update(
            index_elements=["user_id"], set_={"time_zone": name, "updated_at": now}
        )
    )
    return name
