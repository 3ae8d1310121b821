"""`/mcp`: the task tools over MCP streamable HTTP, behind the same JWT as the REST API.

    client ──Bearer JWT──> McpHttpEndpoint ──scope["user"]──> SDK session manager ──> build_server handlers
                               │ 401 {"error": "UNAUTHORIZED", ...}                    │ owner = token's `sub`
                               ▼                                                       ▼
                         (never reaches the SDK)                            TaskTools.execute_batch

Authentication happens here, before the SDK parses anything, on every request. The user then rides
into the SDK as an `AuthenticatedUser` in `scope["user"]`, where the tool handlers read the owner
from it. The transport is stateless: no MCP session lives in a process, so no sticky sessions.

The SDK is imported, and its session manager started, by the first request to /mcp a worker serves
(`mcp/session.py`): its protocol's models are about 26 MB of a worker's memory, which a worker that
serves only the chat and the REST API never holds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio
import orjson
from starlette.datastructures import Headers
from starlette.types import Message, Receive, Scope, Send

from backend.app.core.clock import TIME_ZONE_HEADER, LocalClock, ZoneNames
from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError, DatabaseUnavailable
from backend.app.core.logging import request_id_var
from backend.app.core.metrics import Metrics
from backend.app.core.security import identify
from backend.app.db.outage import unreachable
from backend.app.db.repositories.preferences import user_clock

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

    from backend.app.mcp.server import ToolsForUser

PATH = "/mcp"
REQUEST_ID_KEY = "taskchat.request_id"  # the scope's key for the request id (read by mcp/session.py)
CLOCK_KEY = "taskchat.clock"  # the scope's key for the user's clock (read by mcp/session.py)


class McpHttpEndpoint:
    """The ASGI app mounted at `/mcp`. `run()` belongs in the app's lifespan: while it runs, the first
    request starts the SDK's session manager, whose task group must outlive every request; `run()`
    stops it when the lifespan ends."""

    def __init__(self, *, settings: Settings) -> None:
        self.settings = settings
        self._serving: tuple[ToolsForUser, Metrics | None] | None = None  # while the lifespan runs
        self._manager: StreamableHTTPSessionManager | None = None
        self._starting = asyncio.Lock()
        self._stop = asyncio.Event()
        self._holder: asyncio.Task[None] | None = None
        self._streams: dict[str, int] = {}  # open GET event streams per user, in this worker

    @asynccontextmanager
    async def run(self, *, tools_for_user: ToolsForUser, metrics: Metrics | None = None) -> AsyncIterator[None]:
        self._serving, self._stop = (tools_for_user, metrics), asyncio.Event()
        try:
            yield
        finally:
            self._serving, self._manager = None, None
            self._stop.set()
            if self._holder is not None:
                holder, self._holder = self._holder, None
                await holder

    async def _started(self) -> StreamableHTTPSessionManager | None:
        """The session manager, started by the first request that needs it; None outside the lifespan."""
        if self._manager is not None:
            return self._manager
        async with self._starting:
            if self._manager is None and self._serving is not None:
                from backend.app.mcp.session import session_manager  # the SDK, imported here

                tools_for_user, metrics = self._serving
                manager = session_manager(tools_for_user, metrics)
                # The manager's anyio task group must be exited by the task that entered it: one task
                # of its own holds the manager open until the lifespan ends (not this request's task).
                ready, stop = asyncio.Event(), self._stop

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
                if self._serving is None:  # the lifespan ended while it started: `stop` is set
                    await holder
                    return None
                self._holder, self._manager = holder, manager
        return self._manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if self._serving is None:
            await _send_json(
                send, 503, {"error": "NOT_READY", "detail": "MCP is not running (app lifespan not started)"}
            )
            return
        try:
            user_id, scope[CLOCK_KEY] = await self._caller(scope)
        except AppError as exc:
            await _send_json(send, exc.status_code, exc.body, exc.headers)
            return
        manager = await self._started()
        if manager is None:  # the lifespan ended meanwhile
            await _send_json(send, 503, {"error": "NOT_READY", "detail": "MCP is not running (app stopping)"})
            return
        from backend.app.mcp.session import authenticated  # imported by _started

        scope["user"] = authenticated(user_id)
        scope[REQUEST_ID_KEY] = request_id_var.get()
        if scope.get("method") == "GET":
            await self._stream(manager, user_id, scope, receive, send)
            return
        await manager.handle_request(scope, receive, send)

    async def _caller(self, scope: Scope) -> tuple[str, LocalClock | None]:
        """The token's user (401, 403) and their clock: the X-Time-Zone header, the token's `zoneinfo`
        claim, the zone they stored, DEFAULT_TIME_ZONE (422 for a name that is no zone; 503 when the
        stored zone cannot be read)."""
        state = scope["app"].state if "app" in scope else None
        headers = Headers(scope=scope)
        who = await identify(headers.get("authorization"), settings=self.settings, keys=getattr(state, "keys", None))
        if state is None:
            return who.user_id, None
        names = ZoneNames.of_request(headers.get(TIME_ZONE_HEADER), who.zoneinfo)
        try:
            clock = await user_clock(
                state.sessionmaker, state.clock, who.user_id, names, default=self.settings.default_time_zone
            )
        except Exception as exc:
            if unreachable(exc):
                raise DatabaseUnavailable() from exc
            raise
        return who.user_id, clock

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
