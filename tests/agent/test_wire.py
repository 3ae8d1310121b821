"""The two wires under HttpLLMClient (agent/wire.py) over real loopback HTTP: the served app's
aiohttp and the httpx one tests script through. The same scripted answers reach the client the same
way through both; the ways a connection fails are named the same by both."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from support.fake_llm import ScriptedLLM, call_delta, chunk, completion, slow_stream, stream, words

from backend.app.agent.llm import HttpLLMClient
from backend.app.agent.normalize import normalize_response
from backend.app.agent.wire import AiohttpWire, HttpxWire, Wire
from backend.app.core.exceptions import LLMBadResponse, LLMTimeout, LLMUnavailable

BODY = {"model": "m", "messages": [{"role": "user", "content": "add milk"}]}
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@asynccontextmanager
async def serving(handler: Handler) -> AsyncIterator[str]:
    """`handler` on a loopback port; yields the base URL (…/v1)."""
    app = web.Application()
    app.router.add_post("/v1/chat/completions", handler)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        await runner.cleanup()


def relay(llm: ScriptedLLM) -> Handler:
    """A real server that answers what `llm` (an httpx transport) answers, its body streamed as the
    transport gives it."""

    async def handle(request: web.Request) -> web.StreamResponse:
        scripted = await llm.transport.handle_async_request(
            httpx.Request("POST", str(request.url), headers=dict(request.headers), content=await request.read())
        )
        answer = web.StreamResponse(status=scripted.status_code, headers=dict(scripted.headers))
        answer.headers.pop("content-length", None)
        await answer.prepare(request)
        try:
            await answer.write(scripted.content)  # an answer the transport already read
        except httpx.ResponseNotRead:
            async for piece in scripted.aiter_raw():  # a stream, as it comes
                await answer.write(piece)
        await answer.write_eof()
        return answer

    return handle


def raw(*pieces: bytes, status: int = 200, content_type: str = "text/event-stream", gap_s: float = 0.0) -> Handler:
    """A server that writes `pieces` one at a time, `gap_s` apart (lines cut where the test says)."""

    async def handle(request: web.Request) -> web.StreamResponse:
        answer = web.StreamResponse(status=status, headers={"content-type": content_type})
        await answer.prepare(request)
        for piece in pieces:
            await answer.write(piece)
            await asyncio.sleep(gap_s)
        await answer.write_eof()
        return answer

    return handle


@asynccontextmanager
async def wired(kind: str) -> AsyncIterator[Wire]:
    if kind == "aiohttp":
        async with AiohttpWire.session() as session:
            yield AiohttpWire(session)
    else:
        async with httpx.AsyncClient() as http:
            yield HttpxWire(http)


@pytest.fixture(params=["aiohttp", "httpx"])
async def wire(request: pytest.FixtureRequest) -> AsyncIterator[Wire]:
    async with wired(request.param) as made:
        yield made


def client(wire: Wire, base_url: str, **kwargs: Any) -> HttpLLMClient:
    kwargs.setdefault("backoff_base_s", 0.001)
    return HttpLLMClient(wire=wire, base_url=base_url, api_key=kwargs.pop("api_key", "sk-wire"), **kwargs)


def soon(seconds: float = 10.0) -> float:
    return time.monotonic() + seconds


async def test_a_completion_and_what_was_sent(wire: Wire) -> None:
    llm = ScriptedLLM(completion("hello"))
    async with serving(relay(llm)) as url:
        raw_answer = await client(wire, url).create(BODY, deadline=soon())

    assert raw_answer["choices"][0]["message"]["content"] == "hello"
    assert llm.requests == [BODY]
    assert llm.headers[0]["authorization"] == "Bearer sk-wire"
    assert llm.headers[0]["content-type"] == "application/json"


async def test_a_429_is_retried_after_its_retry_after(wire: Wire) -> None:
    busy = httpx.Response(429, json={"error": "busy"}, headers={"Retry-After": "0.05"})
    llm = ScriptedLLM(busy, completion("ok"))
    async with serving(relay(llm)) as url:
        started = time.monotonic()
        raw_answer = await client(wire, url).create(BODY, deadline=soon())

    assert raw_answer["choices"][0]["message"]["content"] == "ok"
    assert len(llm.requests) == 2 and time.monotonic() - started >= 0.05


async def test_a_rejection_carries_the_servers_words(wire: Wire) -> None:
    llm = ScriptedLLM(httpx.Response(400, text="model not found: m"))
    async with serving(relay(llm)) as url:
        with pytest.raises(LLMBadResponse, match=r"rejected the request \(400\): model not found: m"):
            await client(wire, url).create(BODY, deadline=soon())
    assert len(llm.requests) == 1


async def test_a_body_that_is_not_json(wire: Wire) -> None:
    llm = ScriptedLLM(httpx.Response(200, text="<html>proxy</html>"))
    async with serving(relay(llm)) as url:
        with pytest.raises(LLMBadResponse, match="invalid JSON"):
            await client(wire, url).create(BODY, deadline=soon())


async def test_a_stream_is_heard_piece_by_piece_as_it_arrives(wire: Wire) -> None:
    llm = ScriptedLLM(slow_stream(*words("Added milk to your list."), gap_s=0.01))
    heard: list[tuple[str, float]] = []
    async with serving(relay(llm)) as url:
        raw_answer = await client(wire, url, stream=True).create(
            BODY, deadline=soon(), on_text=lambda piece: heard.append((piece, time.monotonic()))
        )

    assert "".join(piece for piece, _ in heard) == "Added milk to your list."
    assert heard[-1][1] - heard[0][1] >= 0.03  # handed on as they came, not all at the end
    response = normalize_response(raw_answer, step=0, max_args_bytes=10_000)
    assert response.content == "Added milk to your list."


async def test_tool_call_deltas_through_the_wire(wire: Wire) -> None:
    llm = ScriptedLLM(
        stream(
            chunk({"role": "assistant", "content": None}),
            chunk(call_delta(0, id="call_a", name="add_task", args='{"ti')),
            chunk(call_delta(0, args='tle": "milk"}')),
            chunk({}, finish="tool_calls"),
        )
    )
    async with serving(relay(llm)) as url:
        raw_answer = await client(wire, url, stream=True).create(BODY, deadline=soon())

    call = normalize_response(raw_answer, step=0, max_args_bytes=10_000).tool_calls[0]
    assert (call.name, call.arguments) == ("add_task", {"title": "milk"})


def event(content: str) -> bytes:
    return f"data: {json.dumps(chunk({'content': content}))}".encode()


def split_event(content: str, end: bytes) -> bytes:
    """One event whose JSON spans two `data:` lines (the SSE rule joins them with a line feed)."""
    text = json.dumps(chunk({"content": content}))
    half = text.index(', "choices"') + 1
    return f"data: {text[:half]}".encode() + end + f"data: {text[half:]}".encode()


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
async def test_line_ends_of_every_kind_even_cut_between_pieces(wire: Wire, end: bytes) -> None:
    """SSE lines end with LF, CRLF or CR; a piece may end mid-line or between a CR and its LF (which
    must not read as a blank line: that would end the event in the middle of its JSON)."""
    events = [split_event(word, end) for word in ("one ", "two ", "three")]
    body = end.join([events[0], b"", events[1], b"", events[2], b"", b"data: [DONE]", b"", b""])
    first_end = body.index(end)
    cuts = sorted({3, first_end + 1, len(body) // 2, body.index(end, first_end + len(end)) + 1})
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    heard: list[str] = []
    async with serving(raw(*pieces, gap_s=0.005)) as url:
        await client(wire, url, stream=True).create(BODY, deadline=soon(), on_text=heard.append)

    assert heard == ["one ", "two ", "three"]


async def test_a_line_far_longer_than_a_read_buffer(wire: Wire) -> None:
    long = "x" * 300_000  # aiohttp's own readline stops at 128 KiB
    body = event(long) + b"\n\n" + event("!") + b"\n\ndata: [DONE]\n\n"
    heard: list[str] = []
    async with serving(raw(body)) as url:
        await client(wire, url, stream=True).create(BODY, deadline=soon(), on_text=heard.append)

    assert heard == [long, "!"]


async def test_a_refused_connection_is_unreachable_and_retried(wire: Wire) -> None:
    async with serving(raw(b"")) as url:
        pass  # the port is closed again
    with pytest.raises(LLMUnavailable, match=r"LLM server unreachable \(\w+\)"):
        await client(wire, url, max_retries=1).create(BODY, deadline=soon())


async def test_a_server_that_stops_answering_is_a_read_timeout_not_the_deadline(wire: Wire) -> None:
    async def stall(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(5)
        return web.Response(text="late")

    async with serving(stall) as url:
        started = time.monotonic()
        with pytest.raises(LLMTimeout, match=r"LLM server timed out \(\w+\)"):
            await client(wire, url, read_timeout_s=0.2, max_retries=0).create(BODY, deadline=soon())
        assert time.monotonic() - started < 2


async def test_the_deadline_bounds_a_slow_stream_that_keeps_sending(wire: Wire) -> None:
    """Each piece comes within the read timeout; the turn's deadline still ends the request."""
    pieces = [event(f"{i} ") + b"\n\n" for i in range(100)]
    async with serving(raw(*pieces, gap_s=0.05)) as url:
        started = time.monotonic()
        with pytest.raises(LLMTimeout, match="deadline passed"):
            await client(wire, url, stream=True, read_timeout_s=1).create(BODY, deadline=soon(0.4))
        assert time.monotonic() - started < 2


MODEL_NOWHERE = "http://127.0.0.2:9/v1"  # loopback, a port nothing listens on


PROXY_VARIABLES = ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "HTTPS_PROXY", "https_proxy", "all_proxy")


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "http_proxy", "ALL_PROXY"])
@pytest.mark.parametrize("kind", ["aiohttp", "httpx"])
async def test_the_environments_proxy_is_used_unless_no_proxy_names_the_host(
    kind: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HTTP_PROXY (either spelling), ALL_PROXY and NO_PROXY are honoured (the loopback server plays
    the proxy: nothing listens at the model's address, so an answer can only have come through it)."""
    for name in (*PROXY_VARIABLES, "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    llm = ScriptedLLM(completion("via the proxy"))
    async with serving(relay(llm)) as proxy_url:
        monkeypatch.setenv(variable, proxy_url.removesuffix("/v1"))
        async with wired(kind) as wire:
            raw_answer = await client(wire, MODEL_NOWHERE).create(BODY, deadline=soon())
        assert raw_answer["choices"][0]["message"]["content"] == "via the proxy"

        monkeypatch.setenv("NO_PROXY", "127.0.0.2")
        async with wired(kind) as wire:
            with pytest.raises(LLMUnavailable, match="unreachable"):
                await client(wire, MODEL_NOWHERE, max_retries=0).create(BODY, deadline=soon())
    assert len(llm.requests) == 1


async def test_an_https_model_is_reached_through_https_proxy_and_an_http_one_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Which variable names the proxy of which scheme (a TLS tunnel through a proxy is aiohttp's own)."""
    for name in (*PROXY_VARIABLES, "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:3128")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:3129")
    async with AiohttpWire.session() as session:
        wire = AiohttpWire(session)
        assert wire.proxy("https://model.test/v1/chat/completions") == "http://127.0.0.1:3128"
        assert wire.proxy("http://model.test/v1/chat/completions") == "http://127.0.0.1:3129"  # ALL_PROXY
    monkeypatch.setenv("https_proxy", "http://127.0.0.1:3130")  # the lower-case spelling first, as urllib
    monkeypatch.setenv("NO_PROXY", "direct.test")
    async with AiohttpWire.session() as session:  # a new wire: the environment is read once per URL
        wire = AiohttpWire(session)
        assert wire.proxy("https://model.test/v1/chat/completions") == "http://127.0.0.1:3130"
        assert wire.proxy("https://direct.test/v1/chat/completions") is None


def _self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 that no bundle trusts, and its key."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "taskchat test model")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "model.pem", directory / "model.key"
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@pytest.mark.parametrize("kind", ["aiohttp", "httpx"])
async def test_ssl_cert_file_names_the_bundle_a_model_server_is_trusted_by(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cert, key = _self_signed(tmp_path)
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(cert, key)
    llm = ScriptedLLM(completion("over TLS"))
    app = web.Application()
    app.router.add_post("/v1/chat/completions", relay(llm))
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=tls)
    await site.start()
    url = f"https://127.0.0.1:{runner.addresses[0][1]}/v1"
    try:
        monkeypatch.delenv("SSL_CERT_FILE", raising=False)
        monkeypatch.delenv("SSL_CERT_DIR", raising=False)
        async with wired(kind) as wire:
            with pytest.raises(LLMUnavailable, match="unreachable"):  # certifi's bundle does not know it
                await client(wire, url, max_retries=0).create(BODY, deadline=soon())
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        async with wired(kind) as wire:
            raw_answer = await client(wire, url).create(BODY, deadline=soon())
        assert raw_answer["choices"][0]["message"]["content"] == "over TLS"
    finally:
        await runner.cleanup()
