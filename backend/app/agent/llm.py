"""OpenAI-compatible chat-completions client over ONE shared wire (agent/wire.py: aiohttp when
served, httpx under a test's scripted transport).

Retries: connection errors, 408, 409, 429 and 5xx, with jittered exponential backoff
(0.5 s doubling to 8 s), honouring `Retry-After` only when it fits before the turn's deadline.
No retry on other 4xx. Every failure leaves as an LLMError (502/503/504) with a clear detail.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from dataclasses import dataclass
from typing import Any

import orjson

from backend.app.agent.loop_types import Attempt, Heard, TextSink
from backend.app.agent.sse import ChunkReader, assemble, events, is_event_stream, text_delta
from backend.app.agent.wire import Limits, Wire
from backend.app.core.exceptions import LLMBadResponse, LLMTimeout, LLMUnavailable

log = logging.getLogger(__name__)

RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


class HttpLLMClient:
    label = "http"

    def __init__(
        self,
        *,
        wire: Wire,
        base_url: str,
        api_key: str | None,
        connect_timeout_s: float = 5.0,
        read_timeout_s: float = 30.0,
        max_retries: int = 2,
        backoff_base_s: float = 0.5,
        backoff_max_s: float = 8.0,
        stream: bool = False,
    ) -> None:
        self._wire = wire
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._headers = {"Content-Type": "application/json"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._connect_timeout_s = connect_timeout_s
        self._read_timeout_s = read_timeout_s
        self._max_retries = max_retries
        self._backoff_base_s = backoff_base_s
        self._backoff_max_s = backoff_max_s
        # LLM_STREAM: ask for server-sent chunks, read as they arrive (agent/sse.py): the text goes to
        # `on_text` piece by piece, the whole answer to the loop. A slow server then sends bytes all
        # along, so a long answer is bounded by the turn's deadline, not by the read timeout.
        self._stream = stream

    async def create(
        self,
        body: dict[str, Any],
        *,
        deadline: float,
        on_text: TextSink | None = None,
        attempts: list[Attempt] | None = None,
    ) -> dict[str, Any]:
        """One completion. With LLM_STREAM the chunks are read as they arrive and `on_text` hears each
        piece of text; once a piece was handed on, a failure is not retried (the text would repeat)."""
        heard = Heard(on_text)
        if self._stream:
            body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        payload = orjson.dumps(body)
        attempt = 0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise LLMTimeout("The turn's deadline passed while waiting for the LLM server")
            limits = Limits(connect=min(self._connect_timeout_s, remaining), read=min(self._read_timeout_s, remaining))
            try:
                # The wire's timeouts bound each phase; this bounds the whole request by the deadline.
                async with asyncio.timeout(remaining):
                    answer = await self._send(payload, limits, heard)
            except TimeoutError:
                raise LLMTimeout("The turn's deadline passed while waiting for the LLM server") from None
            except (LLMTimeout, LLMUnavailable) as exc:  # the wire's: the connection, or a phase's timeout
                failure: Exception = exc
                retry_after = None
            else:
                if isinstance(answer, dict):
                    return answer
                if answer.status == 200:
                    return _json_body(answer)
                failure, retry_after = _status_failure(answer)
                if answer.status not in RETRYABLE_STATUS:
                    raise failure
            if heard.pieces:
                raise failure  # part of the answer was already passed on: asking again would repeat it
            attempt += 1
            if attempt > self._max_retries:
                raise failure
            delay = self._backoff(attempt, retry_after)
            if time.monotonic() + delay >= deadline:
                raise failure  # waiting would pass the deadline: fail now, honestly
            log.warning("llm_retry", extra={"attempt": attempt, "delay_s": round(delay, 3), "reason": str(failure)})
            await asyncio.sleep(delay)

    async def _send(self, payload: bytes, limits: Limits, heard: Heard) -> Whole | dict[str, Any]:
        """The answer read whole, or (a stream read as it came) the assembled completion."""
        async with self._wire.post(self._url, payload, self._headers, limits) as answer:
            content_type = answer.header("content-type")
            if not self._stream or answer.status != 200 or not is_event_stream(content_type):
                return Whole(answer.status, content_type, answer.header("retry-after"), await answer.read())
            reader, chunks = ChunkReader(), []

            def keep(found: list[Any]) -> None:
                for chunk in found:
                    chunks.append(chunk)
                    heard(text_delta(chunk))

            async for line in answer.lines():
                keep(reader.line(line))
                if reader.done:
                    break
            keep(reader.finish())
            return assemble(chunks)

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return retry_after
        ceiling = min(self._backoff_max_s, self._backoff_base_s * 2 ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)


@dataclass(frozen=True, slots=True)
class Whole:
    """An answer read to its end."""

    status: int
    content_type: str | None
    retry_after: str | None
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


def _json_body(answer: Whole) -> dict[str, Any]:
    if is_event_stream(answer.content_type):
        return assemble(events(answer.text.splitlines()))
    try:
        body = orjson.loads(answer.body)
    except orjson.JSONDecodeError as exc:
        raise LLMBadResponse("LLM server returned invalid JSON") from exc
    if not isinstance(body, dict):
        raise LLMBadResponse("LLM server returned a JSON body that is not an object")
    return body


def _status_failure(answer: Whole) -> tuple[Exception, float | None]:
    status = answer.status
    snippet = answer.text[:200].replace("\n", " ")
    if status == 429 or status == 503:
        retry_after = _retry_after(answer.retry_after)
        return LLMUnavailable(
            f"LLM server is rate limiting or overloaded ({status})", retry_after_s=retry_after
        ), retry_after
    if status in (408, 504):
        return LLMTimeout(f"LLM server timed out ({status})"), None
    if status >= 500 or status == 409:
        return LLMUnavailable(f"LLM server error ({status})"), None
    return LLMBadResponse(f"LLM server rejected the request ({status}): {snippet}"), None


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
