"""The MCP SDK's side of `/mcp` (mcp/http.py imports this module on a worker's first MCP request):
the session manager that serves the task tools, and the authenticated user as the SDK carries it."""

from __future__ import annotations

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_REQUEST

from backend.app.core.clock import LocalClock
from backend.app.core.metrics import Metrics
from backend.app.mcp.http import CLOCK_KEY, REQUEST_ID_KEY
from backend.app.mcp.server import Caller, Context, ToolsForUser, build_server


def session_manager(tools_for_user: ToolsForUser, metrics: Metrics | None) -> StreamableHTTPSessionManager:
    """The tools' server behind a stateless session manager: every request stands alone (no session
    kept in this process), so any worker of any instance behind a load balancer serves any request,
    with no sticky sessions. The tools need no session: each call is authenticated by its own token
    and runs in its own transaction."""
    server = build_server(identify=http_caller, tools_for_user=tools_for_user, metrics=metrics)
    return StreamableHTTPSessionManager(app=server, stateless=True)


def authenticated(user_id: str) -> AuthenticatedUser:
    """The user McpHttpEndpoint authenticated, as the SDK carries it in `scope["user"]`."""
    return AuthenticatedUser(AccessToken(token="jwt", client_id=user_id, subject=user_id, scopes=[]))


def http_caller(ctx: Context) -> Caller:
    """The caller of an HTTP tool call: the user McpHttpEndpoint authenticated for this request."""
    scope = getattr(ctx.request, "scope", None)
    user = scope.get("user") if isinstance(scope, dict) else None
    if not isinstance(user, AuthenticatedUser) or not user.access_token.subject:
        raise MCPError(code=INVALID_REQUEST, message="Not authenticated")  # unreachable behind McpHttpEndpoint
    request_id = scope.get(REQUEST_ID_KEY) if isinstance(scope, dict) else None
    clock = scope.get(CLOCK_KEY) if isinstance(scope, dict) else None
    return Caller(
        user_id=user.access_token.subject,
        request_id=request_id if isinstance(request_id, str) else None,
        clock=clock if isinstance(clock, LocalClock) else None,
    )
