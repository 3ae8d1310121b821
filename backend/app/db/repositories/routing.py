"""What each model did under each tool policy (routing_outcomes): written with every turn's record,
read by every instance, the last `window` rows of each model kept (services/turn/routing.py)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.db.models import RoutingOutcome

_O = RoutingOutcome.__table__  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class Observed:
    """One model's outcome on one turn."""

    model: str
    policy: str
    reward: float
    latency_ms: float
    cost_usd: float


@dataclass(frozen=True, slots=True)
class Totals:
    """A model's last outcomes under one policy, summed."""

    n: int
    reward: float
    latency_ms: float
    cost_usd: float


def _ranked(since: datetime | None = None) -> sa.Subquery:
    rank = sa.func.row_number().over(partition_by=(_O.c.policy, _O.c.model), order_by=(_O.c.at.desc(), _O.c.id))
    query = sa.select(_O, rank.label("k"))
    return (query.where(_O.c.at >= since) if since is not None else query).subquery()


async def totals(session: AsyncSession, *, policy: str, window: int, since: datetime) -> dict[str, Totals]:
    """Each model's last `window` outcomes under `policy`, none older than `since` (one statement)."""
    ranked = _ranked(since)
    query = (
        sa.select(
            ranked.c.model,
            sa.func.count(),
            sa.func.sum(ranked.c.reward),
            sa.func.sum(ranked.c.latency_ms),
            sa.func.sum(ranked.c.cost_usd),
        )
        .where(ranked.c.policy == policy, ranked.c.k <= window)
        .group_by(ranked.c.model)
    )
    rows = (await session.execute(query)).all()
    return {model: Totals(int(n), float(r), float(lat), float(cost)) for model, n, r, lat, cost in rows}


async def record(session: AsyncSession, observed: Sequence[Observed], *, at: datetime) -> None:
    if observed:
        await session.execute(
            sa.insert(_O),
            [
                {
                    "id": uuid.uuid4(),
                    "model": o.model,
                    "policy": o.policy,
                    "reward": o.reward,
                    "latency_ms": o.latency_ms,
                    "cost_usd": o.cost_usd,
                    "at": at,
                }
                for o in observed
            ],
        )


async def prune(session: AsyncSession, *, window: int) -> int:
    """Remove all but each model's last `window` outcomes per policy."""
    ranked = _ranked()
    old = sa.select(ranked.c.id).where(ranked.c.k > window)
    result = await session.execute(sa.delete(_O).where(_O.c.id.in_(old)))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
