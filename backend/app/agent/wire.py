"""The HTTP under the model client: one POST, its answer read whole or line by line.

HttpLLMClient (agent/llm.py) keeps the rules (retries, backoff, the deadline, what a status means);
a wire only carries bytes and says in the project's terms when the connection failed or a phase
timed out (LLMUnavailable, LLMTimeout, with the library's exception named). Two wires:

- `AiohttpWire`, what the served app uses: aiohttp's client parses HTTP in C and costs about a
  quarter of httpx's CPU per call to the model (0.32-0.35 ms against 1.33-1.94 ms through
  HttpLLMClient to the bench's fake model, measured side by side: docs/performance), for the
  same pool, timeouts, proxy and CA settings.
- `HttpxWire`, over an httpx.AsyncClient: what a test's scripted transport (httpx.MockTransport)
  and the eval harness use.

tests/agent/test_wire.py runs the same scripted answers through both over loopback HTTP.
"""

from __future__ import annotations

import codecs
import os
import re
import ssl
import urllib.request
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import urlsplit

import aiohttp
import certifi
import httpx

from backend.app.core.exceptions import LLMTimeout, LLMUnavailable

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class Limits:
    """How long a phase may take: `connect` bounds waiting for a pooled connection and opening one,
    `read` (and, where the library has it, writing) each wait for bytes."""

    connect: float
    read: float


class Answer(Protocol):
    """An answer whose status and headers arrived; its body is read once, whole or by lines."""

    @property
    def status(self) -> int: ...

    def header(self, name: str) -> str | None: ...

    async def read(self) -> bytes: ...

    def lines(self) -> AsyncIterator[str]: ...


class Wire(Protocol):
    def post(
        self, url: str, payload: bytes, headers: Mapping[str, str], limits: Limits
    ) -> AbstractAsyncContextManager[Answer]: ...


# -- aiohttp ------------------------------------------------------------------------------------


@contextmanager
def _aiohttp_failures() -> Iterator[None]:
    try:
        yield
    except (aiohttp.ServerTimeoutError, aiohttp.ConnectionTimeoutError) as exc:
        # Both are also asyncio.TimeoutError: named here, before the client's deadline reads them.
        raise LLMTimeout(f"LLM server timed out ({type(exc).__name__})") from exc
    except aiohttp.ClientError as exc:
        raise LLMUnavailable(f"LLM server unreachable ({type(exc).__name__})") from exc


class _AiohttpAnswer:
    __slots__ = ("_response",)

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    @property
    def status(self) -> int:
        return self._response.status

    def header(self, name: str) -> str | None:
        return self._response.headers.get(name)

    async def read(self) -> bytes:
        with _aiohttp_failures():
            return await self._response.read()

    async def lines(self) -> AsyncIterator[str]:
        """Lines as they arrive, of any length (aiohttp's own readline caps them), ended by CR, LF
        or CRLF (the SSE rule; a CR at a chunk's end waits: an LF may follow)."""
        decoder, pending = codecs.getincrementaldecoder("utf-8")("replace"), ""
        chunks = self._response.content.iter_any()
        while True:
            with _aiohttp_failures():
                chunk = await anext(chunks, None)
            if chunk is None:
                break
            text = pending + decoder.decode(chunk)
            held = text.endswith("\r")  # "…\r" + "\n…" is one line end, not two: wait for the next chunk
            *whole, pending = _LINE_END.split(text[:-1] if held else text)
            pending += "\r" if held else ""
            for line in whole:
                yield line
        rest = (pending + decoder.decode(b"", final=True)).rstrip("\r")
        if rest:
            yield rest


class AiohttpWire:
    """aiohttp's client, configured from the environment as httpx's was: 100 connections, a proxy
    from HTTP(S)_PROXY/ALL_PROXY unless NO_PROXY names the host, the CA bundle of SSL_CERT_FILE /
    SSL_CERT_DIR else certifi's. The proxy is looked up once per URL: aiohttp's own `trust_env`
    looks it (and ~/.netrc) up on every request, in a thread each, which cost more than the request."""

    def __init__(self, session: aiohttp.ClientSession) -> None:
        self._session = session
        self._proxies: dict[str, str | None] = {}

    @staticmethod
    def session() -> aiohttp.ClientSession:
        cafile, capath = os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR")
        if not cafile and not capath:
            cafile = certifi.where()
        tls = ssl.create_default_context(cafile=cafile, capath=capath)
        connector = aiohttp.TCPConnector(limit=100, ssl=tls, keepalive_timeout=5.0)
        return aiohttp.ClientSession(connector=connector, raise_for_status=False)

    def proxy(self, url: str) -> str | None:
        if url not in self._proxies:
            self._proxies[url] = _environment_proxy(url)
        return self._proxies[url]

    @asynccontextmanager
    async def post(self, url: str, payload: bytes, headers: Mapping[str, str], limits: Limits) -> AsyncIterator[Answer]:
        timeout = aiohttp.ClientTimeout(total=None, connect=limits.connect, sock_read=limits.read)
        with _aiohttp_failures():
            response = await self._session.post(
                url, data=payload, headers=headers, timeout=timeout, proxy=self.proxy(url)
            )
        try:
            yield _AiohttpAnswer(response)
        finally:
            response.release()


# Where the proxy for a URL is read from, in order, as httpx (through urllib) read it: the lower-case
# spelling of a variable before the upper-case one. NO_PROXY (no_proxy) names the hosts reached directly.
_PROXY_VARIABLES = {"http": ("HTTP_PROXY", "ALL_PROXY"), "https": ("HTTPS_PROXY", "ALL_PROXY")}


def _environment_proxy(url: str) -> str | None:
    """The proxy the environment names for `url`, or None."""
    parts = urlsplit(url)
    if not parts.hostname or urllib.request.proxy_bypass(parts.hostname):  # urllib reads NO_PROXY
        return None
    for name in _PROXY_VARIABLES.get(parts.scheme, ()):
        if value := os.environ.get(name.lower()) or os.environ.get(name):
            return value
    return None


# -- httpx --------------------------------------------------------------------------------------


@contextmanager
def _httpx_failures() -> Iterator[None]:
    try:
        yield
    except httpx.TimeoutException as exc:
        raise LLMTimeout(f"LLM server timed out ({type(exc).__name__})") from exc
    except httpx.TransportError as exc:
        raise LLMUnavailable(f"LLM server unreachable ({type(exc).__name__})") from exc


class _HttpxAnswer:
    __slots__ = ("_response",)

    def __init__(self, response: httpx.Response) -> None:
        self._response = response

    @property
    def status(self) -> int:
        return self._response.status_code

    def header(self, name: str) -> str | None:
        value: str | None = self._response.headers.get(name)
        return value

    async def read(self) -> bytes:
        with _httpx_failures():
            return await self._response.aread()

    async def lines(self) -> AsyncIterator[str]:
        lines = self._response.aiter_lines()
        while True:
            with _httpx_failures():
                line = await anext(lines, None)
            if line is None:
                return
            yield line


class HttpxWire:
    def __init__(self, http: httpx.AsyncClient) -> None:
        self._http = http

    @asynccontextmanager
    async def post(self, url: str, payload: bytes, headers: Mapping[str, str], limits: Limits) -> AsyncIterator[Answer]:
        timeout = httpx.Timeout(connect=limits.connect, read=limits.read, write=limits.read, pool=limits.connect)
        request = self._http.build_request("POST", url, content=payload, headers=headers, timeout=timeout)
        with _httpx_failures():
            response = await self._http.send(request, stream=True)
        try:
            yield _HttpxAnswer(response)
        finally:
            await response.aclose()
