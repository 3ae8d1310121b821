"""HttpLLMClient over a scripted OpenAI-compatible server: retries, Retry-After, deadlines, error mapping."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from support.fake_llm import ScriptedLLM, completion

from backend.app.agent import llm as llm_module
from backend.app.agent.llm import HttpLLMClient
from backend.app.agent.wire import HttpxWire
from backend.app.core.exceptions import LLMBadResponse, LLMTimeout, LLMUnavailable

BODY = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.fixture
async def http() -> AsyncIterator[list[httpx.AsyncClient]]:
    opened: list[httpx.AsyncClient] = []
    yield opened
    for client in opened:
        await client.aclose()


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Backoff delays the client asked for, without waiting them out."""
    asked: list[float] = []

    async def fake_sleep(delay: float) -> None:
        asked.append(delay)

    class AsyncioWithoutSleep:  # everything else (timeouts) stays real
        sleep = staticmethod(fake_sleep)

        def __getattr__(self, name: str) -> Any:
            return getattr(asyncio, name)

    monkeypatch.setattr(llm_module, "asyncio", AsyncioWithoutSleep())
    return asked


def make(
    http: list[httpx.AsyncClient], llm: ScriptedLLM, *, api_key: str | None = "sk-test", **kwargs: Any
) -> HttpLLMClient:
    client = httpx.AsyncClient(transport=llm.transport)
    http.append(client)
    kwargs.setdefault("max_retries", 2)
    kwargs.setdefault("backoff_base_s", 0.001)
    return HttpLLMClient(wire=HttpxWire(client), base_url="http://llm.test/v1/", api_key=api_key, **kwargs)


def soon(seconds: float = 10.0) -> float:
    return time.monotonic() + seconds


def status(code: int, **headers: str) -> httpx.Response:
    return httpx.Response(code, json={"error": {"message": f"status {code}"}}, headers=headers)


async def test_success_posts_the_body_with_bearer_auth(http: list[httpx.AsyncClient]) -> None:
    seen: list[httpx.Request] = []
    llm = ScriptedLLM(completion("hello"))
    inner = llm.transport

    async def spy(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return await inner.handle_async_request(request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(spy))
    http.append(client)
    llm_client = HttpLLMClient(wire=HttpxWire(client), base_url="http://llm.test/v1/", api_key="sk-test")

    raw = await llm_client.create(BODY, deadline=soon())

    assert raw["choices"][0]["message"]["content"] == "hello"
    assert str(seen[0].url) == "http://llm.test/v1/chat/completions"
    assert llm.requests == [BODY]
    assert llm.headers[0]["authorization"] == "Bearer sk-test"
    assert llm.headers[0]["content-type"] == "application/json"


async def test_no_authorization_header_without_a_key(http: list[httpx.AsyncClient]) -> None:
    llm = ScriptedLLM(completion("hello"))

    await make(http, llm, api_key=None).create(BODY, deadline=soon())

    assert "authorization" not in llm.headers[0]


async def test_timeouts_are_capped_by_the_deadline(http: list[httpx.AsyncClient]) -> None:
    seen: list[dict[str, float]] = []
    llm = ScriptedLLM(completion("hello"))
    inner = llm.transport

    async def spy(request: httpx.Request) -> httpx.Response:
        seen.append(request.extensions["timeout"])
        return await inner.handle_async_request(request)

    client = httpx.AsyncClient(transport=httpx.MockTransport(spy))
    http.append(client)

    await HttpLLMClient(wire=HttpxWire(client), base_url="http://x", api_key=None, read_timeout_s=30).create(
        BODY, deadline=soon(2)
    )

    assert 0 < seen[0]["read"] <= 2 and seen[0]["connect"] <= 2


# -- retries --------------------------------------------------------------------------------------


async def test_429_is_retried_honouring_retry_after(http: list[httpx.AsyncClient], sleeps: list[float]) -> None:
    llm = ScriptedLLM(status(429, **{"Retry-After": "0.01"}), status(429, **{"Retry-After": "0.02"}), completion("ok"))

    raw = await make(http, llm).create(BODY, deadline=soon())

    assert raw["choices"][0]["message"]["content"] == "ok"
    assert len(llm.requests) == 3
    assert sleeps == [0.01, 0.02]


async def test_429_past_max_retries_is_unavailable_with_retry_after(
    http: list[httpx.AsyncClient], sleeps: list[float]
) -> None:
    llm = ScriptedLLM(default=status(429, **{"Retry-After": "0.01"}))

    with pytest.raises(LLMUnavailable) as caught:
        await make(http, llm, max_retries=2).create(BODY, deadline=soon())

    assert len(llm.requests) == 3
    assert caught.value.status_code == 503 and caught.value.code == "LLM_UNAVAILABLE"
    assert caught.value.headers == {"Retry-After": "1"}
    assert "429" in caught.value.detail


async def test_429_really_waits_a_tiny_retry_after(http: list[httpx.AsyncClient]) -> None:
    llm = ScriptedLLM(status(429, **{"Retry-After": "0.01"}), completion("ok"))
    started = time.monotonic()

    await make(http, llm).create(BODY, deadline=soon())

    assert time.monotonic() - started >= 0.01
    assert len(llm.requests) == 2


@pytest.mark.parametrize(
    ("code", "error"),
    [(500, LLMUnavailable), (502, LLMUnavailable), (503, LLMUnavailable), (504, LLMTimeout), (409, LLMUnavailable)],
)
async def test_server_errors_are_retried_then_raised(
    http: list[httpx.AsyncClient], sleeps: list[float], code: int, error: type[Exception]
) -> None:
    llm = ScriptedLLM(default=status(code))

    with pytest.raises(error):
        await make(http, llm, max_retries=2).create(BODY, deadline=soon())

    assert len(llm.requests) == 3
    assert len(sleeps) == 2


async def test_server_error_then_success(http: list[httpx.AsyncClient], sleeps: list[float]) -> None:
    llm = ScriptedLLM(status(500), status(502), completion("ok"))

    raw = await make(http, llm).create(BODY, deadline=soon())

    assert raw["choices"][0]["message"]["content"] == "ok" and len(llm.requests) == 3


async def test_backoff_is_jittered_exponential_and_capped(http: list[httpx.AsyncClient], sleeps: list[float]) -> None:
    llm = ScriptedLLM(default=status(500))

    with pytest.raises(LLMUnavailable):
        await make(http, llm, max_retries=4, backoff_base_s=1.0, backoff_max_s=3.0).create(BODY, deadline=soon(60))

    ceilings = [1.0, 2.0, 3.0, 3.0]
    assert len(sleeps) == 4
    assert all(c / 2 <= s <= c for s, c in zip(sleeps, ceilings, strict=True))


async def test_408_is_retried(http: list[httpx.AsyncClient], sleeps: list[float]) -> None:
    llm = ScriptedLLM(status(408), completion("ok"))

    await make(http, llm).create(BODY, deadline=soon())

    assert len(llm.requests) == 2


async def test_transport_errors_are_retried_then_unavailable(
    http: list[httpx.AsyncClient], sleeps: list[float]
) -> None:
    llm = ScriptedLLM(default=httpx.ConnectError("connection refused"))

    with pytest.raises(LLMUnavailable) as caught:
        await make(http, llm, max_retries=2).create(BODY, deadline=soon())

    assert len(llm.requests) == 3
    assert caught.value.status_code == 503 and "ConnectError" in caught.value.detail
    assert caught.value.headers == {}


async def test_transport_error_then_success(http: list[httpx.AsyncClient], sleeps: list[float]) -> None:
    llm = ScriptedLLM(httpx.RemoteProtocolError("reset"), completion("ok"))

    raw = await make(http, llm).create(BODY, deadline=soon())

    assert raw["choices"][0]["message"]["content"] == "ok"


async def test_read_timeout_is_llm_timeout(http: list[httpx.AsyncClient], sleeps: list[float]) -> None:
    llm = ScriptedLLM(default=httpx.ReadTimeout("slow"))

    with pytest.raises(LLMTimeout) as caught:
        await make(http, llm, max_retries=1).create(BODY, deadline=soon())

    assert len(llm.requests) == 2
    assert caught.value.status_code == 504 and "ReadTimeout" in caught.value.detail


# -- no retry -------------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [400, 401, 403, 404, 422])
async def test_client_errors_are_not_retried(http: list[httpx.AsyncClient], sleeps: list[float], code: int) -> None:
    llm = ScriptedLLM(default=status(code))

    with pytest.raises(LLMBadResponse) as caught:
        await make(http, llm).create(BODY, deadline=soon())

    assert len(llm.requests) == 1 and sleeps == []
    assert caught.value.status_code == 502
    assert f"({code})" in caught.value.detail and f"status {code}" in caught.value.detail


@pytest.mark.parametrize("content", [b"not json", b"", b"[1, 2]", b'"text"'])
async def test_a_200_that_is_not_a_json_object_is_a_bad_response(
    http: list[httpx.AsyncClient], sleeps: list[float], content: bytes
) -> None:
    llm = ScriptedLLM(httpx.Response(200, content=content))

    with pytest.raises(LLMBadResponse):
        await make(http, llm).create(BODY, deadline=soon())

    assert len(llm.requests) == 1


# -- deadlines ------------------------------------------------------------------------------------


async def test_passed_deadline_fails_without_a_request(http: list[httpx.AsyncClient]) -> None:
    llm = ScriptedLLM(completion("never"))

    with pytest.raises(LLMTimeout) as caught:
        await make(http, llm).create(BODY, deadline=time.monotonic() - 0.001)

    assert llm.requests == []
    assert caught.value.status_code == 504


async def test_retry_after_past_the_deadline_fails_now(http: list[httpx.AsyncClient], sleeps: list[float]) -> None:
    llm = ScriptedLLM(status(429, **{"Retry-After": "30"}), completion("too late"))

    with pytest.raises(LLMUnavailable) as caught:
        await make(http, llm).create(BODY, deadline=soon(1))

    assert len(llm.requests) == 1 and sleeps == []
    assert caught.value.headers == {"Retry-After": "30"}


async def test_retry_after_past_the_deadline_does_not_sleep_for_real(http: list[httpx.AsyncClient]) -> None:
    llm = ScriptedLLM(status(503, **{"Retry-After": "30"}))
    started = time.monotonic()

    with pytest.raises(LLMUnavailable):
        await make(http, llm).create(BODY, deadline=soon(1))

    assert time.monotonic() - started < 0.5


async def test_unparseable_retry_after_falls_back_to_backoff(
    http: list[httpx.AsyncClient], sleeps: list[float]
) -> None:
    llm = ScriptedLLM(status(429, **{"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}), completion("ok"))

    await make(http, llm, backoff_base_s=0.5).create(BODY, deadline=soon())

    assert len(sleeps) == 1 and 0.25 <= sleeps[0] <= 0.5


async def test_a_slow_server_is_cut_at_the_deadline(http: list[httpx.AsyncClient]) -> None:
    # The read timeout is capped by what is left of the turn; MockTransport does not enforce it, so the
    # deadline check before the next attempt is what ends this.
    llm = ScriptedLLM(default=status(500), delay_s=0.05)

    with pytest.raises((LLMTimeout, LLMUnavailable)):
        await make(http, llm, max_retries=100, backoff_base_s=0.001).create(BODY, deadline=soon(0.2))

    assert len(llm.requests) <= 5


async def test_a_server_slower_than_the_deadline_times_out_at_the_deadline(http: list[httpx.AsyncClient]) -> None:
    llm = ScriptedLLM(completion("late"), delay_s=2.0)
    started = time.monotonic()

    with pytest.raises(LLMTimeout) as caught:
        await make(http, llm).create(BODY, deadline=soon(0.1))

    assert time.monotonic() - started < 1.0
    assert len(llm.requests) == 1 and caught.value.status_code == 504
