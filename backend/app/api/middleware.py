"""Pure-ASGI middleware (no BaseHTTPMiddleware: it costs a task per request and mangles errors)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl

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


class OneIdentity:
    """One identity per request: more than one `Authorization` header is a 400 in the contract's JSON
    shape, on every route and on `/mcp`, before anything reads either (frameworks disagree on which
    of two they take: the first on REST, the last in the MCP SDK). The app reads no token from a
    cookie or the query string, so the header is the only place an identity can come from."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            count = sum(1 for name, _ in scope.get("headers") or () if name.lower() == b"authorization")
            if count > 1:
                detail = f"A request carries one Authorization header; this one has {count}"
                await _send_error(send, 400, "BAD_REQUEST", detail)
                return
        await self.app(scope, receive, send)


class StorableText:
    """Text the database cannot store in a query parameter (a NUL character) or a JSON body field (a
    NUL, a lone UTF-16 surrogate) is a 422 naming the field, before any handler runs: Postgres or the
    driver refuses it mid-query, which would otherwise be a 500. A body is parsed here only when it has
    a `\\u` escape (the only way JSON carries either); `/mcp` answers in JSON-RPC and its tools refuse
    NUL themselves."""

    def __init__(self, app: ASGIApp, *, skip: str) -> None:
        self.app = app
        self.skip = skip

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(self.skip):
            await self.app(scope, receive, send)
            return
        query = scope.get("query_string") or b""
        if b"%00" in query:  # (bytes that are not UTF-8 are read as U+FFFD, as the routes read them)
            for name, value in parse_qsl(query.decode("latin-1"), keep_blank_values=True):
                if (problem := _unstorable(name) or _unstorable(value)) is not None:
                    await _send_error(send, 422, "VALIDATION_ERROR", f"query.{_printable(name)}: {problem}")
                    return
        headers = dict(scope.get("headers") or [])
        if not headers.get(b"content-type", b"").startswith(b"application/json"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        while True:
            try:
                message = await receive()
            except HTTPException as over:  # BodyLimit's, raised while this reads: answered here
                await _send_error(send, over.status_code, "PAYLOAD_TOO_LARGE", str(over.detail), over.headers)
                return
            if message["type"] != "http.request":
                await self.app(scope, _replay([message], receive), send)
                return
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if b"\\u" in body and (where := _unstorable_field(body)) is not None:
            await _send_error(send, 422, "VALIDATION_ERROR", where)
            return
        await self.app(scope, _replay([{"type": "http.request", "body": body, "more_body": False}], receive), send)


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """`receive` that first hands back what was already read."""
    pending = list(messages)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed


def _unstorable(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character, which cannot be stored"
    if any("\ud800" <= c <= "\udfff" for c in text):
        return "contains a lone surrogate (not valid Unicode), which cannot be stored"
    return None


def _unstorable_field(body: bytes) -> str | None:
    """'body.<path>: <problem>' for the first string (key or value) the database cannot store."""
    try:
        document = orjson.loads(body)
    except orjson.JSONDecodeError:
        try:  # orjson refuses lone surrogates outright; the standard parser keeps them
            document = json.loads(body)
        except ValueError:
            return None  # not JSON: the route's own parser says so
    stack: list[tuple[str, Any]] = [("body", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if (problem := _unstorable(value)) is not None:
                return f"{path}: {problem}"
        elif isinstance(value, dict):
            for key, item in value.items():
                if (problem := _unstorable(key)) is not None:
                    return f"{path}: a key {problem}"
                stack.append((f"{path}.{key}", item))
        elif isinstance(value, list):
            stack += [(f"{path}.{i}", item) for i, item in enumerate(value)]
    return None


def _printable(name: str) -> str:
    return "".join(c if c.isprintable() else "?" for c in name)[:64]


async def _send_error(send: Send, status: int, code: str, detail: str, extra: Mapping[str, str] | None = None) -> None:
    body = orjson.dumps({"error": code, "detail": detail})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(name.lower().encode(), value.encode()) for name, value in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


# An oversized body is read to its end and thrown away before the 413 is sent, up to this many bytes
# past the cap: a client that writes its whole body before it reads (no `Expect: 100-continue`) then
# reads the answer, where a connection closed on bytes it had not read is reset under the client
# (uvicorn closes it after the answer when the client asked `Connection: close`, as urllib does).
# Past this the answer is sent and the connection closed. Memory stays bounded: what is read is
# counted, not kept.
DRAIN_MAX_BYTES = 16 * 1024 * 1024
_CLOSE = {"Connection": "close"}


class BodyLimit:
    """Request body cap: 413 in the contract's JSON shape, never holding more than the cap in memory.

    A declared Content-Length over the cap is answered without reading the body (a client that sent
    `Expect: 100-continue` waits for that answer and never sends it) or after reading and discarding
    it (one that did not is already sending it: see `DRAIN_MAX_BYTES`); a body without one (chunked)
    is counted while it is read, and past the cap the rest is discarded and the read fails with a 413
    HTTPException that the app's error handler renders. Either way the answer closes the connection.
    (FastAPI's own `max_body_size` answers in plain text, so it is not used.)
    `wider`: paths (patterns matched in full) whose cap is higher, with that cap.
    """

    def __init__(self, app: ASGIApp, *, max_bytes: int, wider: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.wider = [(re.compile(path), cap) for path, cap in (wider or {}).items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = next((cap for path, cap in self.wider if path.fullmatch(scope["path"])), self.max_bytes)
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > cap:
            if headers.get(b"expect", b"").lower() != b"100-continue":
                await _discard(receive)
            await _send_error(send, 413, "PAYLOAD_TOO_LARGE", f"Request body over {cap} bytes", _CLOSE)
            return
        seen = 0

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > cap:
                    if message.get("more_body", False):
                        await _discard(receive)
                    raise HTTPException(status_code=413, detail=f"Request body over {cap} bytes", headers=_CLOSE)
            return message

        await self.app(scope, counting_receive, send)


async def _discard(receive: Receive) -> None:
    """Read the rest of the request body (at most DRAIN_MAX_BYTES), keeping none of it."""
    read = 0
    while read <= DRAIN_MAX_BYTES:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return
        read += len(message.get("body", b""))
