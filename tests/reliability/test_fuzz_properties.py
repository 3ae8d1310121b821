"""Hypothesis properties of the two places hostile model output enters: the normalizer
(`agent/normalize.py`) and tool-argument validation (`TaskTools.execute_batch` and coercion).

Random, truncated, huge and NUL-containing arguments never crash (only typed results or
LLMBadResponse) and never write: the task rows after a batch are exactly the successful adds.
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reliability.rel_support import Figures
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from support.api import NOW

from backend.app.agent.loop_types import LLMResponse
from backend.app.agent.normalize import normalize_response
from backend.app.calls.types import ToolCall, ToolResult
from backend.app.core.clock import FixedClock
from backend.app.core.exceptions import LLMBadResponse
from backend.app.tools.coercion import coerce_arguments
from backend.app.tools.registry import TOOLS
from backend.app.tools.resolver import ReferenceResolver
from backend.app.tools.task_tools import TaskTools

MAX_ARGS_BYTES = 2_000
TOOL_NAMES = [*TOOLS, "functions.add_task", "drop_database", "", "respond"]

# Text that breaks things: NUL, other control characters, lone surrogates (via JSON escapes), RTL, emoji.
nasty_text = st.one_of(
    st.text(max_size=40),
    st.text(alphabet=st.sampled_from(["\x00", "\x01", "\x7f", "\u202e", "\U0001f600", "a", " ", "'", '"']), max_size=9),
    st.sampled_from(["", " ", "null", "\x00", "a\x00b", "Buy milk", "x" * 600, "2026-13-45", "HIGH"]),
)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**64 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    nasty_text,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(nasty_text, inner, max_size=4)),
    max_leaves=12,
)
FIELDS = ["title", "description", "priority", "due_date", "tags", "status", "task_id", "user_id", "completed"]
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "title": nasty_text,
    "description": st.one_of(st.none(), nasty_text),
    "priority": st.sampled_from(["low", "medium", "high", "HIGH", "urgent", ""]),
    "due_date": st.sampled_from(["2026-12-01", "2026-11-22T10:00:00Z", "2020-01-01", "tomorrow", "2026-02-30"]),
    "tags": st.one_of(nasty_text, st.lists(nasty_text, max_size=3)),
    "status": st.sampled_from(["pending", "completed", "all", "done"]),
    "task_id": st.one_of(nasty_text, st.uuids().map(str)),
    "user_id": st.just("bob"),
}
# Mostly well-shaped (so the write path runs with hostile values), sometimes anything at all.
plausible_args = st.one_of(
    st.fixed_dictionaries({"title": nasty_text}, optional={k: v for k, v in FIELD_VALUES.items() if k != "title"}),
    st.fixed_dictionaries(
        {"task_id": FIELD_VALUES["task_id"]}, optional={k: v for k, v in FIELD_VALUES.items() if k != "task_id"}
    ),
    st.dictionaries(st.one_of(st.sampled_from(FIELDS), nasty_text), json_values, max_size=6),
)
# Valid adds with hostile-but-legal text (RTL, emoji, quotes, control characters other than NUL).
legal_text = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=1, max_size=40
).filter(str.strip)
valid_add = st.fixed_dictionaries(
    {"title": legal_text},
    optional={
        "description": legal_text,
        "priority": st.sampled_from(["low", "medium", "high"]),
        "tags": st.lists(legal_text, max_size=3),
        "user_id": st.just("bob"),
    },
)


def _json_text(value: Any) -> str:
    return orjson.dumps(value).decode()


@st.composite
def raw_arguments(draw: st.DrawFn, args: st.SearchStrategy[Any] = plausible_args) -> Any:
    """What a provider may send as `arguments`: JSON text (whole, truncated, huge, NUL), objects, junk."""
    value = draw(args)
    text = orjson.dumps(value).decode()
    return draw(
        st.sampled_from(
            [
                text,
                text[: draw(st.integers(0, max(0, len(text) - 1)))],  # truncated mid-stream
                orjson.dumps(text).decode(),  # double-encoded
                text.replace("}", ', "pad": "' + "x" * MAX_ARGS_BYTES + '"}', 1),  # over the size cap
                text.replace('"', "'"),  # Python-style quotes
                value,  # an object instead of a string
                None,
                "",
                "\x00",
                '{"title": "a\\u0000b"}',
                '{"title": "\\ud800"}',  # lone surrogate escape
            ]
        )
    )


@st.composite
def raw_tool_call(draw: st.DrawFn) -> Any:
    call: dict[str, Any] = {
        "id": draw(st.one_of(st.none(), st.just(""), st.text(max_size=8))),
        "type": "function",
        "function": {
            "name": draw(st.one_of(st.sampled_from(TOOL_NAMES), json_scalars)),
            "arguments": draw(raw_arguments()),
        },
    }
    return draw(st.one_of(st.just(call), st.just(call["function"]), json_values))


@st.composite
def raw_completion(draw: st.DrawFn) -> Any:
    message: dict[str, Any] = {"role": "assistant", "content": draw(st.one_of(st.none(), nasty_text, json_values))}
    calls = draw(st.one_of(st.none(), st.lists(raw_tool_call(), max_size=4), raw_tool_call()))
    if calls is not None:
        message["tool_calls"] = calls
    if draw(st.booleans()):
        message["function_call"] = {"name": draw(st.sampled_from(TOOL_NAMES)), "arguments": draw(raw_arguments())}
    choice = {
        "index": 0,
        "message": draw(st.one_of(st.just(message), json_values)),
        "finish_reason": draw(st.sampled_from(["stop", "tool_calls", "length", "error", None, "content_filter"])),
    }
    body = {
        "choices": draw(st.one_of(st.just([choice]), st.lists(json_values, max_size=2))),
        "usage": draw(st.one_of(json_values, st.just({"prompt_tokens": 10, "completion_tokens": -5}))),
    }
    if draw(st.integers(0, 9)) == 0:
        body["error"] = draw(json_values)
    return draw(st.one_of(st.just(body), json_values))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=raw_completion(), fallback=st.booleans())
def test_normalizer_returns_typed_calls_or_bad_response(raw: Any, fallback: bool) -> None:
    try:
        response = normalize_response(raw, step=0, max_args_bytes=MAX_ARGS_BYTES, content_tag_fallback=fallback)
    except LLMBadResponse:
        return
    assert isinstance(response, LLMResponse)
    assert isinstance(response.content, str)
    ids = [c.id for c in response.tool_calls]
    assert len(ids) == len(set(ids)) and all(ids)  # ids are unique and present: tool results pair up
    for call in response.tool_calls:
        assert isinstance(call, ToolCall) and call.name and isinstance(call.name, str)
        # Either parsed arguments (a dict) or a typed error the model is told about, never both missing.
        assert isinstance(call.arguments, dict) or call.error is not None
        if call.error is None:
            orjson.dumps(call.arguments)  # what reaches the tools is plain JSON
        if len(call.raw_arguments.encode("utf-8", "surrogatepass")) > MAX_ARGS_BYTES:
            assert call.error is not None and call.error.code == "ARGUMENTS_TOO_LARGE"


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(list(TOOLS)), args=plausible_args)
def test_coercion_is_total_and_drops_owner_keys(name: str, args: dict[str, Any]) -> None:
    coerced, done = coerce_arguments(name, args)
    assert isinstance(coerced, dict)
    assert not {"user_id", "userId", "owner", "owner_id", "ownerId"} & set(coerced)
    assert all(isinstance(c.message, str) for c in done)


async def _rows(sessionmaker: async_sessionmaker[AsyncSession], user: str) -> int:
    async with sessionmaker() as session:
        query = sa.text("SELECT count(*) FROM tasks WHERE user_id = :u")
        return int((await session.execute(query, {"u": user})).scalar_one())


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,  # the same examples every run: the figures in specs/reliability.md reproduce
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    raw_calls=st.lists(
        st.one_of(
            st.tuples(st.just("add_task"), st.one_of(valid_add.map(_json_text), raw_arguments(valid_add))),
            st.tuples(st.sampled_from(TOOL_NAMES), raw_arguments()),
        ),
        min_size=1,
        max_size=4,
    ),
    strict=st.booleans(),
)
async def test_random_tool_arguments_never_crash_and_never_write(
    sessionmaker: async_sessionmaker[AsyncSession],
    figures: Figures,
    raw_calls: list[tuple[str, Any]],
    strict: bool,
) -> None:
    user = f"fuzz-{uuid.uuid4()}"
    tools = TaskTools(
        sessionmaker=sessionmaker,
        user_id=user,
        clock=FixedClock(NOW),
        resolver=ReferenceResolver(),
        apply_mode="strict" if strict else "best_effort",
    )
    # Through the normalizer, as the loop does; calls it already knows are broken never reach the tools.
    body = {
        "choices": [
            {
                "message": {
                    "content": None,
                    "tool_calls": [
                        {"id": f"c{i}", "function": {"name": n, "arguments": a}} for i, (n, a) in enumerate(raw_calls)
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ]
    }
    try:
        response = normalize_response(body, step=0, max_args_bytes=MAX_ARGS_BYTES)
    except LLMBadResponse:
        return
    runnable = [c for c in response.tool_calls if c.error is None]
    figures["fuzz_tools"]["batches"] += 1
    figures["fuzz_tools"]["calls"] += len(runnable)
    if not runnable:
        return
    outcome = await tools.execute_batch(runnable)

    assert len(outcome.results) == len(runnable)
    assert all(isinstance(r, ToolResult) for r in outcome.results)
    assert all(r.success or (r.code and r.error) for r in outcome.results), outcome.results
    added = sum(1 for c, r in zip(runnable, outcome.results, strict=True) if c.name == "add_task" and r.success)
    figures["fuzz_tools"]["rejected"] += sum(not r.success for r in outcome.results)
    rows = await _rows(sessionmaker, user)
    figures["fuzz_tools"]["stray_writes"] += rows != added
    assert rows == added  # a rejected call wrote nothing; the user started with no tasks
    if strict and not all(r.success for r in outcome.results):
        assert rows == 0


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(calls=st.lists(st.tuples(st.sampled_from(list(TOOLS)), json_values), min_size=1, max_size=3))
async def test_arbitrary_argument_objects_never_crash_the_tools(
    sessionmaker: async_sessionmaker[AsyncSession], calls: list[tuple[str, Any]]
) -> None:
    """Straight to the executor (as MCP does): argument objects no JSON parser would produce."""
    user = f"fuzz-{uuid.uuid4()}"
    tools = TaskTools(sessionmaker=sessionmaker, user_id=user, clock=FixedClock(NOW), resolver=ReferenceResolver())
    batch = [
        ToolCall(id=f"c{i}", name=name, arguments=args if isinstance(args, dict) else {"title": args})
        for i, (name, args) in enumerate(calls)
    ]
    outcome = await tools.execute_batch(batch)
    assert len(outcome.results) == len(batch)
    added = sum(1 for c, r in zip(batch, outcome.results, strict=True) if c.name == "add_task" and r.success)
    assert await _rows(sessionmaker, user) == added
