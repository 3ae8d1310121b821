"""Pure-ASGI middleware (no BaseHTTPMiddleware: it costs a task per request and mangles errors)."""

from __future__ import annotations

import uuid

import orjson
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from backend.app.core.logging import request_id_var


class RequestId:
    """Take `X-Request-ID` or make one; put it on the logging context and the response."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers") or []).get(b"x-request-id", b"").decode("latin-1")[:64]
        rid = given if given.isprintable() and given else uuid.uuid4().hex
        token = request_id_var.set(rid)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-request-id", rid.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            request_id_var.reset(token)


class BodyLimit:
    """Request body cap: 413 in the contract's JSON shape, before the body is read into memory.

    A declared Content-Length over the cap is answered at once; a body without one (chunked) is
    counted while it is read, and the read fails with a 413 HTTPException that the app's error
    handler renders. (FastAPI's own `max_body_size` answers in plain text, so it is not used.)
    """

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            body = orjson.dumps({"error": "PAYLOAD_TOO_LARGE", "detail": f"Request body over {self.max_bytes} bytes"})
            await send(
                {
                    "type": "http.response.start",
                    "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise HTTPException(status_code=413, detail=f"Request body over {self.max_bytes} bytes")
            return message

        await self.app(scope, counting_receive, send)
