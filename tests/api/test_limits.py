"""Request limits: body cap (413), message cap (422), a per-user rate limit shared through the database."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import orjson
import pytest
from support.api import MakeClient, auth, chat
from support.fake_llm import ScriptedLLM, completion
from support.live import LiveWith

pytestmark = pytest.mark.through_pgbouncer  # the same tests through PgBouncer in transaction mode


async def test_oversized_body_is_413(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    response = await client.post(
        "/api/alice/chat",
        content=b'{"message": "' + b"x" * 70_000 + b'"}',  # past the chat cap, 64,384 bytes by default
        headers={**auth(), "Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"] == "PAYLOAD_TOO_LARGE"
    assert llm.requests == []


async def test_oversized_chunked_body_is_413(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM())

    async def chunks() -> AsyncIterator[bytes]:
        yield b'{"message": "'
        for _ in range(70):
            yield b"y" * 1000
        yield b'"}'

    response = await client.post(
        "/api/alice/chat", content=chunks(), headers={**auth(), "Content-Type": "application/json"}
    )
    assert response.status_code == 413


async def test_message_length_limits_are_422(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    for message in ("", "x" * 4001):
        response = await chat(client, message)
        assert response.status_code == 422
        assert response.json()["error"] == "VALIDATION_ERROR"
    assert llm.requests == []


async def test_malformed_json_and_unknown_fields_are_422(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM())
    bad = await client.post(
        "/api/alice/chat", content=b"{not json", headers={**auth(), "Content-Type": "application/json"}
    )
    assert bad.status_code == 422
    extra = await client.post("/api/alice/chat", json={"message": "hi", "user_id": "bob"}, headers=auth())
    assert extra.status_code == 422


async def test_rate_limit_is_shared_across_workers(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("hello"))
    worker_a = await make_client(llm, rate_limit_per_minute=3)
    worker_b = await make_client(llm, rate_limit_per_minute=3)

    statuses = [(await chat(c, "hi")).status_code for c in (worker_a, worker_b, worker_a)]
    limited = await chat(worker_b, "hi")

    assert statuses == [200, 200, 200]
    assert limited.status_code == 429
    assert limited.json()["error"] == "RATE_LIMITED"
    assert int(limited.headers["Retry-After"]) >= 1
    assert len(llm.requests) == 3
    other_user = await chat(worker_a, "hi", user="bob")
    assert other_user.status_code == 200


@pytest.mark.parametrize("database", ["postgres", "sqlite"], indirect=True)
async def test_a_refused_turn_in_a_conversation_stores_nothing(make_client: MakeClient) -> None:
    """In a conversation the rate limit, the history and the user's message are one statement on
    Postgres: a refused turn stores no message, and a conversation that is not the user's is a 404
    that neither stores nor counts anything."""
    llm = ScriptedLLM(default=completion("hello"))
    client = await make_client(llm, rate_limit_per_minute=2)
    first = await chat(client, "hi")
    conversation = first.json()["conversation_id"]

    second = await chat(client, "how are you", conversation_id=conversation)
    refused = await chat(client, "still there?", conversation_id=conversation)
    foreign = [await chat(client, "hi", user="bob", conversation_id=conversation) for _ in range(3)]
    bobs_own = await chat(client, "hi", user="bob")

    assert (second.status_code, refused.status_code) == (200, 429)
    assert refused.json()["error"] == "RATE_LIMITED" and int(refused.headers["Retry-After"]) >= 1
    assert [r.status_code for r in foreign] == [404] * 3
    assert bobs_own.status_code == 200, bobs_own.text  # the 404s took nothing of bob's limit
    page = await client.get(f"/api/alice/conversations/{conversation}/messages", headers=auth())
    assert [(m["role"], m["content"]) for m in page.json()] == [
        ("user", "hi"),
        ("assistant", "hello"),
        ("user", "how are you"),
        ("assistant", "hello"),
    ]
    assert len(llm.requests) == 3


async def test_the_window_slides_so_a_minute_boundary_does_not_double_the_limit(make_client: MakeClient) -> None:
    from datetime import timedelta

    from support.api import NOW

    from backend.app.core.clock import FixedClock

    clock = FixedClock(NOW + timedelta(seconds=50))
    client = await make_client(ScriptedLLM(default=completion("hello")), rate_limit_per_minute=3, clock=clock)

    first = [(await chat(client, "hi")).status_code for _ in range(3)]  # at 0:50
    clock.moment = NOW + timedelta(seconds=70)  # a new minute: a fixed window would let 3 more through
    refused = await chat(client, "hi")
    clock.moment = NOW + timedelta(seconds=111)  # the first three are 61 s old
    again = await chat(client, "hi")

    assert first == [200, 200, 200]
    assert refused.status_code == 429 and 40 <= int(refused.headers["Retry-After"]) <= 41
    assert again.status_code == 200


async def test_replays_of_a_stored_response_do_not_count(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("hello"))
    client = await make_client(llm, rate_limit_per_minute=2)
    headers = {**auth(), "Idempotency-Key": "k-1"}

    replays = [await client.post("/api/alice/chat", json={"message": "hi"}, headers=headers) for _ in range(6)]
    second = await chat(client, "hello again")
    third = await chat(client, "and again")

    assert [r.status_code for r in replays] == [200] * 6
    assert [r.headers.get("Idempotency-Replayed") for r in replays[1:]] == ["true"] * 5
    assert (second.status_code, third.status_code) == (200, 429)
    assert len(llm.requests) == 2


async def test_many_concurrent_turns_of_one_user_get_200_or_429_never_5xx(make_client: MakeClient) -> None:
    import asyncio

    client = await make_client(ScriptedLLM(default=completion("hello"), delay_s=0.01), rate_limit_per_minute=10)

    responses = await asyncio.gather(*(chat(client, f"hi {n}") for n in range(32)))

    statuses = [r.status_code for r in responses]
    assert set(statuses) <= {200, 429}, statuses
    assert 10 <= statuses.count(200) < 32  # concurrent requests may overshoot by those in flight, not run away
    assert all(r.json()["error"] == "RATE_LIMITED" for r in responses if r.status_code == 429)


def _escaped_chat(message: str) -> bytes:
    """A chat body as Python's `json.dumps` writes it by default: every non-ASCII character as `\\uXXXX`
    (a character outside the BMP as a surrogate pair, 12 bytes)."""
    return json.dumps({"message": message, "conversation_id": None}).encode()


async def test_a_message_within_max_message_chars_fits_however_it_is_escaped(make_client: MakeClient) -> None:
    """The chat route's byte cap follows MAX_MESSAGE_CHARS: a full message fits even with every character
    written as a 12-byte surrogate-pair escape; its length is then checked in characters (422), and only
    a body past that room is a 413."""
    client = await make_client(ScriptedLLM(default=completion("ok")))
    headers = {**auth(), "Content-Type": "application/json"}
    japanese, urdu, emoji = "日本語の" * 750, "اردو" * 1_000, "\U0001f600" * 4_000

    answers = [
        await client.post("/api/alice/chat", content=_escaped_chat(m), headers=headers) for m in (japanese, urdu, emoji)
    ]
    one_more = await client.post("/api/alice/chat", content=_escaped_chat(emoji + "\U0001f600"), headers=headers)
    far_over = await client.post("/api/alice/chat", content=_escaped_chat(emoji * 3), headers=headers)

    assert len(_escaped_chat(japanese)) > 16_384 and len(_escaped_chat(emoji)) > 48_000  # over the old cap
    assert [a.status_code for a in answers] == [200, 200, 200], [a.text[:200] for a in answers]
    assert one_more.status_code == 422
    assert one_more.json() == {
        "error": "VALIDATION_ERROR",
        "detail": "message: at most 4000 characters (MAX_MESSAGE_CHARS)",
    }
    assert far_over.status_code == 413 and far_over.json()["error"] == "PAYLOAD_TOO_LARGE"


async def _raw_post(url: str, head: bytes, body: bytes, *, chunked: bool) -> tuple[int, dict[str, str], bytes]:
    """Send a whole request as a naive client does (every byte written, no `Expect: 100-continue`),
    then read its answer: status, headers, body. A reset while writing fails the test."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(head)
        for start in range(0, len(body), 65_536):
            piece = body[start : start + 65_536]
            writer.write(b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece)
            await writer.drain()
        if chunked:
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        head_lines = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        status_line, *lines = head_lines.decode().strip().split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in lines)
        content = await asyncio.wait_for(reader.readexactly(int(headers["content-length"])), 10)
    finally:
        writer.close()
    return int(status_line.split()[1]), headers, content


def _head(path: str, *lines: bytes) -> bytes:
    start = b"POST %b HTTP/1.1\r\nHost: taskchat.test\r\nAuthorization: %b\r\nContent-Type: application/json\r\n"
    return (
        start % (path.encode(), auth()["Authorization"].encode()) + b"".join(line + b"\r\n" for line in lines) + b"\r\n"
    )


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
async def test_a_client_that_writes_a_5_mb_body_whole_reads_the_413(live_with: LiveWith, chunked: bool) -> None:
    """Without `Expect: 100-continue` a client writes its whole body before it reads. Asking
    `Connection: close` (as Python's urllib does), it used to be reset while writing: the server
    answered at once and closed on unread bytes. Now the rest of an oversized body is read and
    discarded first, so the client reads the 413 in the contract's JSON, and the connection closes."""
    live = await live_with(ScriptedLLM())
    body = b'{"message": "' + b"x" * 5_000_000 + b'"}'
    length = b"Transfer-Encoding: chunked" if chunked else b"Content-Length: %d" % len(body)
    for path in ("/api/alice/chat", "/api/alice/tasks"):
        status, headers, content = await _raw_post(
            live.url, _head(path, length, b"Connection: close"), body, chunked=chunked
        )

        assert status == 413, (path, content[:200])
        assert orjson.loads(content)["error"] == "PAYLOAD_TOO_LARGE", path
        assert headers["connection"] == "close", path


async def test_a_client_that_waits_for_100_continue_gets_the_413_without_sending_its_body(live_with: LiveWith) -> None:
    live = await live_with(ScriptedLLM())
    reader, writer = await asyncio.open_connection(*live.url.removeprefix("http://").split(":"))
    try:
        writer.write(_head("/api/alice/chat", b"Content-Length: 5000000", b"Expect: 100-continue"))
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 10)  # read to the end: the server closes
    finally:
        writer.close()

    assert answer.startswith(b"HTTP/1.1 413 "), answer[:100]
    assert answer.endswith(b'"error":"PAYLOAD_TOO_LARGE","detail":"Request body over 1048576 bytes"}')
