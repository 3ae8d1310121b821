"""One way to build `TaskTools` for a user: chat turns, MCP calls and REST requests get the same
tools, configured the same way, each recording its calls in `tool_executions` under its source."""

from __future__ import annotations

import uuid
from typing import Protocol

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from backend.app.calls.said import Said
from backend.app.core.clock import Clock
from backend.app.core.config import Settings
from backend.app.tools.referents import Referents
from backend.app.tools.registry import TOOLS
from backend.app.tools.resolver import ReferenceResolver
from backend.app.tools.task_tools import TaskTools, ToolAudit


class ToolsFor(Protocol):
    def __call__(
        self,
        user_id: str,
        *,
        source: str = ...,
        conversation_id: uuid.UUID | None = ...,
        turn_id: uuid.UUID | None = ...,
        context: Referents | None = ...,
        said: Said | None = ...,
        clock: Clock | None = ...,
    ) -> TaskTools: ...


def offered_tools(settings: Settings) -> frozenset[str] | None:
    """TOOLS_ALLOW (empty: every tool) minus TOOLS_DENY; None when nothing is masked."""
    if not settings.tools_allow and not settings.tools_deny:
        return None
    allowed = set(settings.tools_allow or TOOLS)
    return frozenset(allowed - set(settings.tools_deny))


def task_tools_factory(
    *,
    settings: Settings,
    sessionmaker: async_sessionmaker[AsyncSession],
    clock: Clock,
    resolver: ReferenceResolver | None = None,
) -> ToolsFor:
    """`TaskTools` for one user and one change set (a chat turn, an MCP call, a REST request): its
    calls are recorded with `source`, under `turn_id` (a new one when not given); "today" is `clock`'s,
    the user's clock of the request, when given (else the service's, in UTC)."""
    shared = resolver or ReferenceResolver(threshold=settings.resolver_threshold)
    offered = offered_tools(settings)
    service_clock = clock

    def tools_for(
        user_id: str,
        *,
        source: str = "mcp",
        conversation_id: uuid.UUID | None = None,
        turn_id: uuid.UUID | None = None,
        context: Referents | None = None,
        said: Said | None = None,
        clock: Clock | None = None,
    ) -> TaskTools:
        return TaskTools(
            context=context,
            said=said,
            offered=offered,
            sessionmaker=sessionmaker,
            user_id=user_id,
            clock=clock or service_clock,
            resolver=shared,
            apply_mode=settings.apply_mode,
            audit=ToolAudit(conversation_id=conversation_id, turn_id=turn_id or uuid.uuid4(), source=source),
        )

    return tools_for
