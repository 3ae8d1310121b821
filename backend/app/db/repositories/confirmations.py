"""Pending confirmations: at most one question per conversation waiting for the user's answer."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncSession

from backend.app.calls.payloads import AskedAction
from backend.app.db.models import PendingConfirmation

_P = PendingConfirmation.__table__  # type: ignore[attr-defined]


class ConfirmationRepository:
    def __init__(self, session: AsyncSession, user_id: str) -> None:
        self.session = session
        self.user_id = user_id

    async def get(self, confirmation_id: uuid.UUID, *, conversation_id: uuid.UUID) -> PendingConfirmation | None:
        """The confirmation, if it is this user's in this conversation (whatever its state)."""
        query = sa.select(PendingConfirmation).where(
            _P.c.id == confirmation_id, _P.c.user_id == self.user_id, _P.c.conversation_id == conversation_id
        )
        return (await self.session.scalars(query)).first()

    async def ask(
        self,
        *,
        conversation_id: uuid.UUID,
        turn_id: uuid.UUID,
        kind: str,
        question: str,
        actions: Sequence[AskedAction],
        now: datetime,
        expires_at: datetime,
        confirmation_id: uuid.UUID | None = None,
    ) -> PendingConfirmation:
        """A new question for the conversation; any older one still pending is cancelled."""
        await self.close(conversation_id, state="cancelled")
        pending = PendingConfirmation(
            id=confirmation_id or uuid.uuid4(),
            user_id=self.user_id,
            conversation_id=conversation_id,
            kind=kind,
            question=question,
            actions=[dict(a) for a in actions],
            turn_id=turn_id,
            created_at=now,
            expires_at=expires_at,
        )
        self.session.add(pending)
        await self.session.flush()
        return pending

    async def take(self, confirmation_id: uuid.UUID, *, now: datetime) -> bool:
        """Answer it: True for exactly one request, and only while it is pending and not expired (a
        retried or racing "yes" finds it taken)."""
        statement = (
            sa.update(_P)
            .where(
                _P.c.id == confirmation_id,
                _P.c.user_id == self.user_id,
                _P.c.state == "pending",
                _P.c.expires_at > now,
            )
            .values(state="done")
            .returning(_P.c.id)
        )
        return (await self.session.execute(statement)).first() is not None

    async def close(self, conversation_id: uuid.UUID, *, state: str) -> None:
        """Cancel whatever is pending in the conversation."""
        await self.session.execute(
            sa.update(_P)
            .where(_P.c.conversation_id == conversation_id, _P.c.user_id == self.user_id, _P.c.state == "pending")
            .values(state=state)
        )
