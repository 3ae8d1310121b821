"""Structured JSON logs: every line a chat request logs carries its request id and its turn id."""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import Iterator

import pytest
from support.api import MakeClient, auth
from support.fake_llm import ScriptedLLM, calls, completion
from support.logs import LogSink

from backend.app.core.logging import JsonFormatter, configure_logging

NOISY = ("httpx", "httpcore", "sqlalchemy.engine", "aiosqlite", "asyncio")


@pytest.fixture
def json_lines(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The app's real logging configuration (JSON, INFO, noisy libraries quieted), into a buffer."""
    buffer = io.StringIO()
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, {n: logging.getLogger(n).level for n in NOISY})
    monkeypatch.setattr("sys.stderr", buffer)
    configure_logging("INFO", json=True)
    try:
        yield buffer
    finally:
        root.handlers[:], root.level = saved[0], saved[1]
        for name, level in saved[2].items():
            logging.getLogger(name).setLevel(level)


async def test_every_line_of_a_turn_has_request_and_turn_ids(make_client: MakeClient, json_lines: io.StringIO) -> None:
    # A turn that logs from several layers: the LLM request lines, the guard's retry, the turn summary.
    llm = ScriptedLLM(completion("I've added it."), calls(("add_task", {"title": "Buy milk"})))
    client = await make_client(llm)
    start = json_lines.tell()

    response = await client.post(
        "/api/alice/chat", json={"message": "add buy milk"}, headers={**auth(), "X-Request-ID": "req-abc-123"}
    )
    assert response.status_code == 200
    assert response.headers["x-request-id"] == "req-abc-123"

    lines = [json.loads(line) for line in json_lines.getvalue()[start:].splitlines()]
    events = {line["event"] for line in lines}
    assert {"chat_turn", "execution_guard_retry"} <= events
    assert all(line["request_id"] == "req-abc-123" for line in lines), lines
    turn_ids = {line.get("turn_id") for line in lines}
    assert len(turn_ids) == 1 and None not in turn_ids, lines

    # The turn id is the id of the stored assistant message, so a log line leads to the row.
    conversation = response.json()["conversation_id"]
    messages = (await client.get(f"/api/alice/conversations/{conversation}/messages", headers=auth())).json()
    assert turn_ids == {messages[-1]["id"]}


async def test_lines_outside_a_request_have_no_ids(json_lines: io.StringIO) -> None:
    logging.getLogger("backend.test").info("outside")
    [line] = [json.loads(x) for x in json_lines.getvalue().splitlines() if '"outside"' in x]
    assert "request_id" not in line and "turn_id" not in line


def test_the_suite_watches_every_log_line_for_secrets() -> None:
    # tests/conftest.py keeps every record of the run and fails the run if one holds a secret it used.
    [sink] = [h for h in logging.getLogger().handlers if isinstance(h, LogSink)]
    logging.getLogger("backend.app.test").info("probe", extra={"turn_id": "t-1"})
    assert any(line.startswith("probe ") and "turn_id=t-1" in line for line in sink.lines)


def test_a_lines_time_is_its_own_second_formatted_once_a_second() -> None:
    """The JSON formatter keeps the last second's text: lines of one second share it, a line of the
    next second has its own (a record's time decides, not the clock when it is formatted)."""
    formatter = JsonFormatter()

    def stamp(created: float) -> str:
        record = logging.LogRecord("backend.test", logging.INFO, __file__, 1, "event", (), None)
        record.created = created
        return str(json.loads(formatter.format(record))["ts"])

    first, same, next_second = stamp(1_800_000_000.1), stamp(1_800_000_000.9), stamp(1_800_000_001.0)
    assert first == same == time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(1_800_000_000))
    assert next_second == time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(1_800_000_001))
    assert stamp(1_800_000_000.5) == first  # back to an earlier second (another thread's record): its own text


async def test_a_line_holds_what_it_says_and_nothing_looked_up_for_it(json_lines: io.StringIO) -> None:
    """configure_logging turns off what no line shows (the writer's thread, process and source line):
    a line is the event, its level and logger, its time and its extra fields."""
    logging.getLogger("backend.test").info("looked", extra={"turn_id": "t-9", "guard": "ok"})
    [line] = [json.loads(x) for x in json_lines.getvalue().splitlines() if '"looked"' in x]
    assert set(line) == {"ts", "level", "logger", "event", "turn_id", "guard"}
    record = logging.getLogger("backend.test").makeRecord("backend.test", logging.INFO, "(file)", 1, "m", (), None)
    assert (record.thread, record.process) == (None, None)
