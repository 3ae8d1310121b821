"""Idempotency keys, claimed atomically per user in the database (holds across workers).

Semantics follow Stripe's: the first request claims `(user_id, key)` with
`INSERT ... ON CONFLICT DO NOTHING`; a retry with the same body gets the stored response; the
same key while the first is still running is 409; with another body, 422. Keys expire after
the TTL. A claim left `in_flight` longer than `stale_after` (a crashed worker) is `Abandoned`: the
caller takes it over (`take_over`) unless the turn that held it had already changed something.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from pydantic import JsonValue
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.core.exceptions import IdempotencyInFlight, IdempotencyKeyReused
from backend.app.core.jsontypes import JsonObject
from backend.app.db.models import IdempotencyRecord, as_utc

_I = IdempotencyRecord.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class StoredResponse:
    """The response kept under a key: its status and its JSON body, exactly as it was stored (a chat
    response, a task, or an error's body; the caller knows which)."""

    status: int
    body: JsonObject


@dataclass(frozen=True, slots=True)
class Abandoned:
    """A claim left in flight past `stale_after` by `turn_id` (None: claimed before turns were noted)."""

    turn_id: uuid.UUID | None


class IdempotencyRepository:
    def __init__(self, session: AsyncSession, user_id: str) -> None:
        self.session = session
        self.user_id = user_id

    async def claim(
        self, key: str, *, request_hash: str, now: datetime, ttl: timedelta, stale_after: timedelta, turn_id: uuid.UUID
    ) -> StoredResponse | Abandoned | None:
        """Claim the key for `turn_id`: None when claimed, a stored response when this is a replay, and
        `Abandoned` when a crashed worker's claim is found (the row stays locked until the transaction ends)."""
        values = {
            "user_id": self.user_id,
            "key": key,
            "request_hash": request_hash,
            "state": "in_flight",
            "turn_id": turn_id,
            "created_at": now,
            "expires_at": now + ttl,
        }
        insert = postgresql.insert(_I) if _dialect(self.session) == "postgresql" else sqlite.insert(_I)
        claimed = await self.session.execute(
            insert.values(**values).on_conflict_do_nothing(index_elements=["user_id", "key"]).returning(_I.c.key)
        )
        if claimed.first() is not None:
            return None
        row = (
            await self.session.execute(
                sa.select(_I).where(_I.c.user_id == self.user_id, _I.c.key == key).with_for_update()
            )
        ).first()
        if row is None:  # deleted between the two statements: the claim is free again
            return await self.claim(
                key, request_hash=request_hash, now=now, ttl=ttl, stale_after=stale_after, turn_id=turn_id
            )
        if as_utc(row.expires_at) <= now:
            await self.take_over(key, request_hash=request_hash, now=now, ttl=ttl, turn_id=turn_id)
            return None
        if row.state == "in_flight" and as_utc(row.created_at) + stale_after <= now:
            return Abandoned(row.turn_id)
        if row.request_hash != request_hash:
            raise IdempotencyKeyReused("This Idempotency-Key was already used with a different request body")
        if row.state == "in_flight":
            raise IdempotencyInFlight("A request with this Idempotency-Key is still being processed")
        return StoredResponse(status=row.response_status or 200, body=row.response_body or {})

    async def take_over(
        self, key: str, *, request_hash: str, now: datetime, ttl: timedelta, turn_id: uuid.UUID
    ) -> None:
        """Make an expired or abandoned claim this turn's, as if it were new."""
        await self.session.execute(
            sa.update(_I)
            .where(_I.c.user_id == self.user_id, _I.c.key == key)
            .values(
                request_hash=request_hash,
                state="in_flight",
                turn_id=turn_id,
                response_status=None,
                response_body=None,
                created_at=now,
                expires_at=now + ttl,
            )
        )

    async def complete(self, key: str, *, status: int, body: Mapping[str, JsonValue]) -> None:
        await self.session.execute(
            sa.update(_I)
            .where(_I.c.user_id == self.user_id, _I.c.key == key)
            .values(state="done", response_status=status, response_body=body)
        )

    async def release(self, key: str) -> None:
        """Forget a claim whose request failed before changing anything, so a retry runs again."""
        await self.session.execute(sa.delete(_I).where(_I.c.user_id == self.user_id, _I.c.key == key))


def _dialect(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


async def purge_expired(session: AsyncSession, *, now: datetime) -> int:
    """Forget keys past their time to live (every user's: maintenance)."""
    result = await session.execute(sa.delete(_I).where(_I.c.expires_at <= now))
    return int(result.rowcount)  # type: ignore[attr-defined]
