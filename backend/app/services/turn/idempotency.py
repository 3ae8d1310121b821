"""Claiming an `Idempotency-Key` for a request that may change tasks (a chat turn, a REST create).

The key is claimed in the database before the work starts (see `db/repositories/idempotency.py`):
a retry gets the stored response, the same key in flight is 409, another body 422. A claim left
behind by a crashed worker is taken over, unless the work it held already committed a change (a
successful mutating call in `tool_executions` under its turn id): running it again would repeat
the change, so the key answers with an error that says so, from then on.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import timedelta

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.calls.tools import CHANGING
from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError
from backend.app.core.jsontypes import JsonObject
from backend.app.db.repositories.conversations import ConversationRepository
from backend.app.db.repositories.idempotency import Abandoned, IdempotencyRepository, StoredResponse


def request_hash(payload: JsonObject) -> str:
    return hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


async def claim(
    session: AsyncSession,
    *,
    user_id: str,
    key: str,
    payload: JsonObject,
    turn_id: uuid.UUID,
    settings: Settings,
    clock: Clock,
) -> StoredResponse | None:
    """Claim `key` for the work of `turn_id`; a stored response when the request must not run."""
    keys = IdempotencyRepository(session, user_id)
    hashed = request_hash(payload)
    now, ttl = clock.now(), timedelta(hours=settings.idempotency_ttl_hours)
    found = await keys.claim(
        key,
        request_hash=hashed,
        now=now,
        ttl=ttl,
        stale_after=timedelta(milliseconds=2 * settings.budget_max_latency_ms),
        turn_id=turn_id,
    )
    if not isinstance(found, Abandoned):
        return found
    changed = found.turn_id is not None and await ConversationRepository(session, user_id).turn_changed_tasks(
        found.turn_id, mutating=CHANGING
    )
    if not changed:
        await keys.take_over(key, request_hash=hashed, now=now, ttl=ttl, turn_id=turn_id)
        return None
    body: JsonObject = {
        "error": AppError.code,
        "detail": "An earlier request with this Idempotency-Key changed tasks but did not finish; "
        "it is not run again (the conversation shows what was done).",
    }
    await keys.complete(key, status=AppError.status_code, body=body)
    return StoredResponse(status=AppError.status_code, body=body)
