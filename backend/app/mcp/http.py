"""`/mcp`: the task tools over MCP streamable HTTP, behind the same JWT as the REST API.

    client ──Bearer JWT──> McpHttpEndpoint ──scope["user"]──> SDK session manager ──> build_server handlers
                               │ 401 {"error": "UNAUTHORIZED", ...}                    │ owner = token's `sub`
                               ▼                                                       ▼
                         (never reaches the SDK)                            TaskTools.execute_batch

Authentication happens here, before the SDK parses anything, on every request. The user then rides
into the SDK as an `AuthenticatedUser` in `scope["user"]`, where the tool handlers read the owner
from it. The transport is stateless: no MCP session lives in a process, so no sticky sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import orjson
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError
from backend.app.core.logging import request_id_var
from backend.app.core.metrics import Metrics
from backend.app.core.security import authenticate
from backend.app.mcp.server import Caller, Context, ToolsForUser, build_server

PATH = "/mcp"
_REQUEST_ID_KEY = "taskchat.request_id"


def http_caller(ctx: Context) -> Caller:
    """The caller of an HTTP tool call: the user McpHttpEndpoint authenticated for this request."""
    scope = getattr(ctx.request, "scope", None)
    user = scope.get("user") if isinstance(scope, dict) else None
    if not isinstance(user, AuthenticatedUser) or not user.access_token.subject:
        raise MCPError(code=INVALID_REQUEST, message="Not authenticated")  # unreachable behind McpHttpEndpoint
    request_id = scope.get(_REQUEST_ID_KEY) if isinstance(scope, dict) else None
    return Caller(user_id=user.access_token.subject, request_id=request_id if isinstance(request_id, str) else None)


class McpHttpEndpoint:
    """The ASGI app mounted at `/mcp`. `run()` belongs in the app's lifespan: the SDK's session
    manager owns a task group that must outlive every request."""

    def __init__(self, *, settings: Settings) -> None:
        self.settings = settings
        self._manager: StreamableHTTPSessionManager | None = None
        self._streams: dict[str, int] = {}  # open GET event streams per user, in this worker

    @asynccontextmanager
    async def run(self, *, tools_for_user: ToolsForUser, metrics: Metrics | None = None) -> AsyncIterator[None]:
        server = build_server(identify=http_caller, tools_for_user=tools_for_user, metrics=metrics)
        # Stateless: every request stands alone (no session kept in this process), so any worker of
        # any instance behind a load balancer serves any request, with no sticky sessions. The tools
        # need no session: each call is authenticated by its own token and runs in its own transaction.
        manager = StreamableHTTPSessionManager(app=server, stateless=True)
        # The manager's anyio task group must be exited by the task that entered it, but an app's
        # lifespan may start and end in different tasks (pytest fixtures do), so one task of its
        # own holds the manager open for the lifespan's duration.
        ready, stop = asyncio.Event(), asyncio.Event()

        async def hold() -> None:
            async with manager.run():
                ready.set()
                await stop.wait()

        holder = asyncio.create_task(hold(), name="mcp-session-manager")
        started = asyncio.create_task(ready.wait())
        await asyncio.wait({holder, started}, return_when=asyncio.FIRST_COMPLETED)
        if not ready.is_set():
            started.cancel()
            await holder  # raises the reason it could not start
        self._manager = manager
        try:
            yield
        finally:
            self._manager = None
            stop.set()
            await holder

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if self._manager is None:
            await _send_json(
                send, 503, {"error": "NOT_READY", "detail": "MCP is not running (app lifespan not started)"}
            )
            return
        try:
            keys = scope["app"].state.keys if "app" in scope else None
            user_id = await authenticate(Headers(scope=scope).get("authorization"), settings=self.settings, keys=keys)
        except AppError as exc:
            await _send_json(send, exc.status_code, exc.body, exc.headers)
            return
        scope["user"] = AuthenticatedUser(AccessToken(token="jwt", client_id=user_id, subject=user_id, scopes=[]))
        scope[_REQUEST_ID_KEY] = request_id_var.get()
        if scope.get("method") == "GET":
            await self._stream(self._manager, user_id, scope, receive, send)
            return
        await self._manager.handle_request(scope, receive, send)

    async def _stream(
        self, manager: StreamableHTTPSessionManager, user_id: str, scope: Scope, receive: Receive, send: Send
    ) -> None:
        """A GET's event stream, bounded: the stateless server sends nothing on it, so it is closed
        after MCP_STREAM_IDLE_S, and a user holds at most MCP_STREAMS_PER_USER of them in this worker
        (429 beyond, with Retry-After)."""
        if self._streams.get(user_id, 0) >= self.settings.mcp_streams_per_user:
            detail = f"At most {self.settings.mcp_streams_per_user} open MCP event streams per user"
            retry = str(max(1, int(self.settings.mcp_stream_idle_s)))
            await _send_json(send, 429, {"error": "RATE_LIMITED", "detail": detail}, {"Retry-After": retry})
            return
        self._streams[user_id] = self._streams.get(user_id, 0) + 1
        state = {"started": False, "ended": False}

        async def tracked(message: Message) -> None:
            state["started"] |= message["type"] == "http.response.start"
            state["ended"] |= message["type"] == "http.response.body" and not message.get("more_body", False)
            await send(message)

        try:
            with anyio.move_on_after(self.settings.mcp_stream_idle_s):
                await manager.handle_request(scope, receive, tracked)
            if state["started"] and not state["ended"]:  # closed here: end the body cleanly
                with contextlib.suppress(OSError, RuntimeError):
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            self._streams[user_id] -= 1
            if not self._streams[user_id]:
                del self._streams[user_id]


async def _send_json(send: Send, status: int, content: dict[str, str], extra: dict[str, str] | None = None) -> None:
    body = orjson.dumps(content)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
