"""A scripted OpenAI-compatible /chat/completions server behind httpx.MockTransport.

Each queued item answers one request: a completion dict, a callable(body) -> dict, an
httpx.Response, or an exception to raise (a transport fault). Every request body is recorded so
tests can read exactly what the model received (tools, tool_choice, messages).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import httpx

Item = dict[str, Any] | Callable[[dict[str, Any]], Any] | httpx.Response | Exception


def tool_call(name: str, arguments: Any, *, call_id: str | None = None, raw: bool = False) -> dict[str, Any]:
    """An OpenAI tool call; `arguments` is JSON-encoded unless `raw` (to test argument drift)."""
    args = arguments if raw else json.dumps(arguments)
    return {
        "id": call_id or f"call_{name}_{abs(hash(str(arguments))) % 10_000}",
        "type": "function",
        "function": {"name": name, "arguments": args},
    }


def completion(
    content: str | None = None,
    tool_calls: list[Any] | dict[str, Any] | None = None,  # as the model sends them: a test may send junk
    *,
    finish_reason: str | None = None,
    prompt_tokens: int = 100,
    completion_tokens: int = 20,
    message: dict[str, Any] | None = None,
) -> dict[str, Any]:
    msg: dict[str, Any] = message if message is not None else {"role": "assistant", "content": content}
    if tool_calls is not None and message is None:
        msg["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "scripted",
        "choices": [
            {"index": 0, "message": msg, "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop")}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def calls(*items: tuple[str, Any]) -> dict[str, Any]:
    """A completion with one tool call per (name, arguments) pair."""
    return completion(tool_calls=[tool_call(n, a, call_id=f"call_{i}") for i, (n, a) in enumerate(items)])


# -- streamed answers (LLM_STREAM, agent/sse.py) ----------------------------------------------
def stream(*chunks: Any, done: bool = True) -> httpx.Response:
    """A `text/event-stream` answer: one `data:` event per chunk, a comment line, then [DONE]."""
    lines = [": keep-alive"] + [f"data: {json.dumps(c)}" for c in chunks] + (["data: [DONE]"] if done else [])
    return httpx.Response(200, text="\n\n".join(lines) + "\n\n", headers={"content-type": "text/event-stream"})


def slow_stream(*chunks: Any, gap_s: float) -> httpx.Response:
    """A `text/event-stream` answer whose events arrive `gap_s` apart (a model still writing)."""

    async def body() -> Any:
        for c in chunks:
            yield f"data: {json.dumps(c)}\n\n".encode()
            await asyncio.sleep(gap_s)
        yield b"data: [DONE]\n\n"

    return httpx.Response(200, content=body(), headers={"content-type": "text/event-stream"})


def words(text: str) -> list[dict[str, Any]]:
    """`text` as streamed content chunks, a word (with the space before it) at a time, then the end."""
    pieces = text.replace(" ", "\x00 ").split("\x00")
    return (
        [chunk({"role": "assistant", "content": ""})]
        + [chunk({"content": p}) for p in pieces]
        + [chunk({}, finish="stop")]
    )


def chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-s",
        "object": "chat.completion.chunk",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }


def call_delta(index: int, *, id: str | None = None, name: str | None = None, args: str = "") -> dict[str, Any]:
    piece: dict[str, Any] = {"index": index, "function": {"arguments": args}}
    if id:
        piece |= {"id": id, "type": "function"}
    if name:
        piece["function"]["name"] = name
    return {"tool_calls": [piece]}


CHECK_TOOL = "check_reply"  # the reply check's forced tool (services/guard/reply_check.py)


def declares(*done: tuple[str, str], not_done: tuple[tuple[str, str], ...] = ()) -> Callable[[dict[str, Any]], Any]:
    """A checker that says the words claim these changes done (action, task) and these not done."""
    arguments = {
        "done": [{"action": a, "task": t} for a, t in done],
        "not_done": [{"action": a, "task": t} for a, t in not_done],
    }
    return lambda body: completion(tool_calls=[tool_call(CHECK_TOOL, arguments, call_id="check")])


NO_CLAIMS = declares()  # a competent checker reading words that claim no change


def NONSENSE_CHECK(body: dict[str, Any]) -> dict[str, Any]:
    """A model that complies with whatever tool is forced on it, passing the message's words: a check
    that cannot be read."""
    return completion(
        tool_calls=[tool_call(CHECK_TOOL, {"task_id": body["messages"][-1]["content"][:80]}, call_id="check")]
    )


def is_check(body: dict[str, Any]) -> bool:
    choice = body.get("tool_choice")
    forced = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
    return forced == CHECK_TOOL or [t["function"]["name"] for t in body.get("tools", [])] == [CHECK_TOOL]


class Script:
    """The scripted model's answers, for both fakes: each request takes the next item (then
    `default`); an item is a completion dict, an exception to raise, an httpx.Response (HTTP only),
    or a function of the request body (it may return a coroutine). Every request body is recorded so
    a test can read exactly what the model received. The reply check (a forced `check_reply` call
    about the model's own words) is answered by `checker` instead, and recorded in `checks`."""

    def __init__(
        self, *items: Item, default: Item | None = None, delay_s: float = 0.0, checker: Item | None = NO_CLAIMS
    ) -> None:
        self.queue: list[Item] = list(items)
        self.default = default
        self.delay_s = delay_s
        self.checker = checker
        self.requests: list[dict[str, Any]] = []
        self.checks: list[dict[str, Any]] = []

    def push(self, *items: Item) -> None:
        self.queue.extend(items)

    async def answer(self, body: dict[str, Any]) -> Any:
        """Record `body` and give the next answer (raising it when it is an exception)."""
        if self.checker is not None and is_check(body):
            self.checks.append(body)
            return await self._give(self.checker, body)
        self.requests.append(body)
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if self.queue:
            item = self.queue.pop(0)
        elif self.default is not None:
            item = self.default
        else:
            raise AssertionError(f"{type(self).__name__}: unexpected request #{len(self.requests)}")
        return await self._give(item, body)

    async def _give(self, item: Item, body: dict[str, Any]) -> Any:
        if callable(item) and not isinstance(item, httpx.Response | Exception):
            item = item(body)
        if asyncio.iscoroutine(item):
            item = await item
        if isinstance(item, Exception):
            raise item
        return item

    # -- reading what the model received ---------------------------------------------------------
    def tool_names(self, index: int) -> list[str]:
        return [t["function"]["name"] for t in self.requests[index].get("tools", [])]

    def tool_choice(self, index: int) -> Any:
        return self.requests[index].get("tool_choice")

    def tool_messages(self, index: int) -> list[dict[str, Any]]:
        """The tool results sent in request `index`, each with its content parsed."""
        return [
            {**m, "content": json.loads(m["content"])} for m in self.requests[index]["messages"] if m["role"] == "tool"
        ]


class ScriptedLLM(Script):
    """The script behind httpx.MockTransport: the app's real HTTP client talks to it."""

    def __init__(
        self, *items: Item, default: Item | None = None, delay_s: float = 0.0, checker: Item | None = NO_CLAIMS
    ) -> None:
        super().__init__(*items, default=default, delay_s=delay_s, checker=checker)
        self.headers: list[httpx.Headers] = []
        self.urls: list[str] = []

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self._handle)

    async def _handle(self, request: httpx.Request) -> httpx.Response:
        self.headers.append(request.headers)
        self.urls.append(str(request.url))
        item = await self.answer(json.loads(request.content))
        return item if isinstance(item, httpx.Response) else httpx.Response(200, json=item)
