"""Request limits: body cap (413), message cap (422), a per-user rate limit shared through the database."""

from __future__ import annotations

from support.api import auth, chat
from support.fake_llm import ScriptedLLM, completion


async def test_oversized_body_is_413(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM()
    client = await make_client(llm)
    response = await client.post(
        "/api/alice/chat",
        content=b'{"message": "' + b"x" * 20_000 + b'"}',
        headers={**auth(), "Content-Type": "application/json"},
    )
    assert response.status_code == 413
    assert response.json()["error"] == "PAYLOAD_TOO_LARGE"
    assert llm.requests == []


async def test_oversized_chunked_body_is_413(make_client) -> None:  # type: ignore[no-untyped-def]
    client = await make_client(ScriptedLLM())

    async def chunks():  # type: ignore[no-untyped-def]
        yield b'{"message": "'
        for _ in range(40):
            yield b"y" * 1000
        yield b'"}'

    response = await client.post(
        "/api/alice/chat", content=chunks(), headers={**auth(), "Content-Type": "application/json"}
    )
    assert response.status_code == 413


async def test_message_length_limits_are_422(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM()
    client = await make_client(llm)
    for message in ("", "x" * 4001):
        response = await chat(client, message)
        assert response.status_code == 422
        assert response.json()["error"] == "VALIDATION_ERROR"
    assert llm.requests == []


async def test_malformed_json_and_unknown_fields_are_422(make_client) -> None:  # type: ignore[no-untyped-def]
    client = await make_client(ScriptedLLM())
    bad = await client.post(
        "/api/alice/chat", content=b"{not json", headers={**auth(), "Content-Type": "application/json"}
    )
    assert bad.status_code == 422
    extra = await client.post("/api/alice/chat", json={"message": "hi", "user_id": "bob"}, headers=auth())
    assert extra.status_code == 422


async def test_rate_limit_is_shared_across_workers(make_client) -> None:  # type: ignore[no-untyped-def]
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
