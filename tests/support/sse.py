"""Streamed chat turns over real HTTP: asking for one, reading its events (and when they came)."""

from __future__ import annotations

import json
import time
from typing import Any

import httpx

from support.api import auth
from support.live import Live

STREAM = {"Accept": "text/event-stream"}


def parse(text: str) -> list[tuple[str, Any]]:
    events = []
    for block in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


async def streamed(live: Live, message: str, *, key: str | None = None, **body: Any) -> httpx.Response:
    headers = {**auth(), **STREAM, **({"Idempotency-Key": key} if key else {})}
    async with httpx.AsyncClient(base_url=live.url, timeout=30) as http:
        return await http.post("/api/alice/chat", json={"message": message, **body}, headers=headers)


async def timed(live: Live, message: str) -> list[tuple[str, Any, float]]:
    """Each event of a streamed turn with the seconds since the request when it arrived."""
    found: list[tuple[str, Any, float]] = []
    started = time.monotonic()
    async with (
        httpx.AsyncClient(base_url=live.url, timeout=30) as http,
        http.stream("POST", "/api/alice/chat", json={"message": message}, headers={**auth(), **STREAM}) as response,
    ):
        buffer = ""
        async for text in response.aiter_text():
            buffer += text
            while "\n\n" in buffer:
                block, buffer = buffer.split("\n\n", 1)
                [(kind, data)] = parse(block)
                found.append((kind, data, time.monotonic() - started))
    return found


def reply_after_last_reset(events: list[tuple[str, Any]] | list[tuple[str, Any, float]]) -> str:
    """What a client shows: the `delta` text since the last `reset`."""
    shown = ""
    for kind, data, *_ in events:
        if kind == "reset":
            shown = ""
        elif kind == "delta":
            shown += data["text"]
    return shown
