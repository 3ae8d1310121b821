"""Streamed answers (LLM_STREAM, agent/sse.py): chunks of text and tool-call deltas read back into the
one completion the loop normalizes, through HttpLLMClient over a scripted server."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from support.fake_llm import ScriptedLLM, call_delta, chunk, slow_stream, stream, words

from backend.app.agent.llm import HttpLLMClient
from backend.app.agent.normalize import normalize_response
from backend.app.agent.sse import events
from backend.app.agent.wire import HttpxWire
from backend.app.core.exceptions import LLMBadResponse, LLMUnavailable

BODY = {"model": "m", "messages": [{"role": "user", "content": "add milk and call mom"}]}


@pytest.fixture
async def client() -> AsyncIterator[tuple[HttpLLMClient, ScriptedLLM]]:
    llm = ScriptedLLM()
    http = httpx.AsyncClient(transport=llm.transport)
    yield HttpLLMClient(wire=HttpxWire(http), base_url="http://llm.test/v1", api_key=None, stream=True), llm
    await http.aclose()


def soon() -> float:
    return time.monotonic() + 10


async def test_text_in_pieces_is_one_answer_with_its_usage(client: tuple[HttpLLMClient, ScriptedLLM]) -> None:
    llm_client, llm = client
    usage = {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    llm.push(
        stream(
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Hel"}),
            chunk({"content": "lo."}, finish="stop"),
            {"id": "chatcmpl-s", "object": "chat.completion.chunk", "choices": [], "usage": usage},
        )
    )

    raw = await llm_client.create(BODY, deadline=soon())

    assert llm.requests[0] == {**BODY, "stream": True, "stream_options": {"include_usage": True}}
    response = normalize_response(raw, step=0, max_args_bytes=10_000)
    assert (response.content, response.tool_calls, response.finish_reason) == ("Hello.", [], "stop")
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (12, 3)


async def test_tool_call_deltas_are_merged_by_index(client: tuple[HttpLLMClient, ScriptedLLM]) -> None:
    llm_client, llm = client
    llm.push(
        stream(
            chunk({"role": "assistant", "content": None}),
            chunk(call_delta(0, id="call_a", name="add_task", args='{"ti')),
            chunk(call_delta(1, id="call_b", name="add_task", args='{"title": "Call')),
            chunk(call_delta(0, args='tle": "Milk"}')),
            chunk(call_delta(1, name="add_task", args=' mom"}')),  # a server that repeats the name
            chunk({}, finish="tool_calls"),
        )
    )

    response = normalize_response(await llm_client.create(BODY, deadline=soon()), step=0, max_args_bytes=10_000)

    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_a", "add_task", {"title": "Milk"}),
        ("call_b", "add_task", {"title": "Call mom"}),
    ]
    assert response.finish_reason == "tool_calls"


async def test_a_stream_without_done_or_asked_for_is_read_the_same_way() -> None:
    llm = ScriptedLLM(stream(chunk({"content": "ok"}, finish="stop"), done=False))
    async with httpx.AsyncClient(transport=llm.transport) as http:
        raw = await HttpLLMClient(wire=HttpxWire(http), base_url="http://llm.test/v1", api_key=None).create(
            BODY, deadline=soon()
        )

    assert "stream" not in llm.requests[0]  # LLM_STREAM off: not asked for, still understood
    assert raw["choices"][0]["message"] == {"role": "assistant", "content": "ok"}


@pytest.mark.parametrize(
    "broken",
    [
        httpx.Response(200, text="data: {not json\n\n", headers={"content-type": "text/event-stream"}),
        httpx.Response(200, text="data: [DONE]\n\n", headers={"content-type": "text/event-stream"}),
        httpx.Response(200, text='data: ["a list"]\n\n', headers={"content-type": "text/event-stream"}),
    ],
    ids=["not-json", "empty", "not-an-object"],
)
async def test_a_broken_stream_is_a_bad_response(client: tuple[HttpLLMClient, ScriptedLLM], broken: Any) -> None:
    llm_client, llm = client
    llm.push(broken)

    with pytest.raises(LLMBadResponse):
        await llm_client.create(BODY, deadline=soon())


async def test_text_is_heard_piece_by_piece_as_it_arrives(client: tuple[HttpLLMClient, ScriptedLLM]) -> None:
    llm_client, llm = client
    llm.push(slow_stream(*words("Added it. Anything else?"), gap_s=0.05))
    heard: list[tuple[str, float]] = []
    started = time.monotonic()

    answer = await llm_client.create(BODY, deadline=soon(), on_text=lambda p: heard.append((p, time.monotonic())))

    assert [p for p, _ in heard] == ["Added", " it.", " Anything", " else?"]
    assert heard[0][1] - started < heard[-1][1] - started - 0.1  # the first piece did not wait for the last
    assert answer["choices"][0]["message"]["content"] == "Added it. Anything else?"


def broken_after(*chunks: Any) -> httpx.Response:
    """A stream that sends `chunks`, then the connection breaks."""

    async def body() -> Any:
        for c in chunks:
            yield f"data: {json.dumps(c)}\n\n".encode()
        raise httpx.ReadError("connection reset")

    return httpx.Response(200, content=body(), headers={"content-type": "text/event-stream"})


async def test_a_stream_that_breaks_after_text_was_heard_is_not_asked_again(
    client: tuple[HttpLLMClient, ScriptedLLM],
) -> None:
    llm_client, llm = client
    llm.push(broken_after(chunk({"content": "Added it. "})), stream(chunk({"content": "Again."}, finish="stop")))
    heard: list[str] = []

    with pytest.raises(LLMUnavailable):
        await llm_client.create(BODY, deadline=soon(), on_text=heard.append)

    assert heard == ["Added it. "] and len(llm.requests) == 1  # asking again would repeat the words


async def test_a_stream_that_breaks_before_any_text_is_asked_again(client: tuple[HttpLLMClient, ScriptedLLM]) -> None:
    llm_client, llm = client
    llm.push(broken_after(chunk({"role": "assistant"})), stream(chunk({"content": "Added it."}, finish="stop")))
    heard: list[str] = []

    answer = await llm_client.create(BODY, deadline=soon(), on_text=heard.append)

    assert heard == ["Added it."] and len(llm.requests) == 2
    assert answer["choices"][0]["message"]["content"] == "Added it."


@pytest.mark.parametrize(
    "text",
    [
        # one event's data over two lines (the SSE rule: an event ends at a blank line)
        'data: {"choices": [{"index": 0,\ndata: "delta": {"content": "Hi."}, "finish_reason": "stop"}]}\n\n'
        "data: [DONE]\n\n",
        # one JSON per data line, no blank lines between
        'data: {"choices": [{"index": 0, "delta": {"content": "H"}}]}\n'
        'data: {"choices": [{"index": 0, "delta": {"content": "i."}, "finish_reason": "stop"}]}\n',
        # the stream ends without a blank line or [DONE]
        'data: {"choices": [{"index": 0, "delta": {"content": "Hi."}, "finish_reason": "stop"}]}',
    ],
    ids=["multi-line-data", "no-blank-lines", "no-final-blank-line"],
)
async def test_events_are_read_as_servers_actually_send_them(
    client: tuple[HttpLLMClient, ScriptedLLM], text: str
) -> None:
    llm_client, llm = client
    llm.push(httpx.Response(200, text=text, headers={"content-type": "text/event-stream"}))
    heard: list[str] = []

    answer = await llm_client.create(BODY, deadline=soon(), on_text=heard.append)

    assert answer["choices"][0]["message"]["content"] == "Hi." and "".join(heard) == "Hi."
    assert answer["choices"][0]["finish_reason"] == "stop"


def test_an_event_cut_off_by_done_is_a_bad_response_not_dropped() -> None:
    lines = ['data: {"choices": [{"index": 0, "delta": {"content": "Hi"}}]}', "", 'data: {"choices": [', "data: [DONE]"]
    with pytest.raises(LLMBadResponse):
        events(lines)
