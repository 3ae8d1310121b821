"""The five task tools as an MCP server (the SDK's low-level `Server`).

Nothing here re-implements a tool. `tools/list` is built from `TOOLS` (the same names,
descriptions and pydantic-derived JSON schemas the chat model sees) and `tools/call` turns the
request into a `ToolCall` for `TaskTools.execute_batch`: the same coercion, validation, resolver,
due-date guard and owner scoping as a chat turn. The owner is the authenticated caller (the JWT
over HTTP, `--user` over stdio), never an argument.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import orjson
from mcp.server import Server, ServerRequestContext
from mcp.shared.exceptions import MCPError
from sqlalchemy.exc import SQLAlchemyError

from backend.app.calls.codes import ResultCode
from backend.app.calls.types import ToolCall, ToolResult, ToolSpec
from backend.app.core.clock import Clock
from backend.app.core.logging import request_id_var
from backend.app.core.metrics import Metrics
from backend.app.tools.factory import ToolsFor
from backend.app.tools.registry import TOOLS, find_tool
from backend.app.tools.task_tools import TaskTools

log = logging.getLogger(__name__)

SERVER_NAME = "taskchat"
INSTRUCTIONS = (
    "Taskchat's to-do tools for one user. Refer to a task by its title (matched case-insensitively and "
    "fuzzily) or its UUID; an unknown or ambiguous title is an error result that lists the candidates, "
    "never a guess. Dates are YYYY-MM-DD, today or later, in the user's time zone (X-Time-Zone); a time of day "
    "is due_at (2026-12-05T15:00), a repeat is recurrence (an RFC 5545 RRULE)."
)
Context = ServerRequestContext[Any, Any]


@dataclass(frozen=True, slots=True)
class Caller:
    """Who a tool call runs for; `request_id` ties its log lines to the HTTP request (None on stdio)."""

    user_id: str
    request_id: str | None = None
    clock: Clock | None = None  # the user's (their time zone: mcp/http.py); None: the service's, in UTC


Identify = Callable[[Context], Caller]
ToolsForUser = ToolsFor  # tools/factory.py: MCP calls use its defaults but for the caller's clock


def mcp_tools(specs: Sequence[ToolSpec] | None = None) -> list[types.Tool]:
    """The tools as MCP lists them: those this deployment offers (all by default)."""
    names = {s.name for s in specs} if specs is not None else set(TOOLS)
    return [
        types.Tool(
            name=d.spec.name,
            description=d.spec.description,
            input_schema=d.spec.parameters,
            annotations=types.ToolAnnotations(
                read_only_hint=d.spec.read_only, destructive_hint=d.spec.destructive, open_world_hint=False
            ),
        )
        for d in TOOLS.values()
        if d.spec.name in names
    ]


def build_server(*, identify: Identify, tools_for_user: ToolsForUser, metrics: Metrics | None = None) -> Server[Any]:
    # The deployment's tools (TOOLS_ALLOW / TOOLS_DENY): what any user's TaskTools offers.
    listing = types.ListToolsResult(tools=mcp_tools(tools_for_user("").specs()))

    async def list_tools(_ctx: Context, _params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return listing

    async def call_tool(ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        if find_tool(params.name) is None:
            # The spec wants an unknown tool as a protocol error, not as a tool result.
            raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        caller = identify(ctx)
        # A stateful HTTP session serves every request from the task its first request started, so
        # the request id on the logging context would be that first request's; set this one's.
        token = request_id_var.set(caller.request_id) if caller.request_id else None
        try:
            result = await _execute(
                tools_for_user(caller.user_id, clock=caller.clock), params, request_id=ctx.request_id
            )
        finally:
            if token is not None:
                request_id_var.reset(token)
        if metrics is not None:
            metrics.observe_tool_result(params.name, success=result.success, source="mcp")
        payload = result.to_payload()
        return types.CallToolResult(
            content=[types.TextContent(text=orjson.dumps(payload, default=str).decode())],
            structured_content=payload,
            is_error=not result.success,
        )

    return Server(
        SERVER_NAME,
        version="0.1.0",
        title="Taskchat",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=lambda name: TOOLS[name].spec.parameters if name in TOOLS else None,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def _execute(tools: TaskTools, params: types.CallToolRequestParams, *, request_id: object) -> ToolResult:
    call = ToolCall(id=f"mcp-{request_id}", name=params.name, arguments=dict(params.arguments or {}))
    try:
        outcome = await tools.execute_batch([call])
    except SQLAlchemyError:
        # The unit of work rolled back: nothing was written, and the client is told so.
        log.exception("mcp_tool_storage_error", extra={"tool": params.name})
        return ToolResult(
            success=False, code=ResultCode.STORAGE_ERROR, error="The database refused this change; nothing done."
        )
    result = outcome.results[0]
    log.info("mcp_tool_call", extra={"tool": params.name, "success": result.success, "code": result.code})
    return result
