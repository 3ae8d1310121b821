"""HTTP request latency by route template: pure ASGI, like the other middleware."""

from __future__ import annotations

import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from backend.app.core.metrics import Metrics

_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"})


class HttpMetrics:
    """Observe every HTTP request once, labelled by its route *template* and status.

    The template (`/api/{user_id}/chat`), never the raw path: raw paths carry user ids and would
    give the registry one series per user. Requests no route matched share one label.
    """

    def __init__(self, app: ASGIApp, *, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # what the client sees when the app raises before it answers

        async def send_with_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_with_status)
        finally:
            method = scope.get("method", "GET")
            self.metrics.observe_http(
                method=method if method in _METHODS else "OTHER",
                route=route_template(scope),
                status=status,
                seconds=time.perf_counter() - started,
            )


def route_template(scope: Scope) -> str:
    """The template of the route that served this request, read after the router has run.

    The router writes what it matched into this same scope dict: `route` for API routes, only
    `endpoint` for plain Starlette routes and mounts (/mcp, /static), which are found by it.
    """
    route = scope.get("route")
    endpoint = scope.get("endpoint")
    if route is None and endpoint is not None:
        routes = getattr(scope.get("router"), "routes", ())
        route = next((r for r in routes if endpoint in (getattr(r, "endpoint", None), getattr(r, "app", None))), None)
    return str(getattr(route, "path_format", None) or getattr(route, "path", None) or "unmatched")
