"""A scripted OpenAI-compatible model for the benchmark: deterministic, on loopback, with a set latency.

It reads the last user message as a tiny script and answers like a well-behaved model would:

    add <title> [and add <title> ...]    add_task, one call per "add" (several = a multi-call turn)
    list ... / show ...                  list_tasks
    delete|remove <title>                delete_task(task_id=<title>)
    complete <title>                     complete_task(task_id=<title>)
    update <title> priority <p>          update_task(task_id=<title>, priority=<p>)
    <any of the above>!                  a ghost: first claims success without a tool ("Done, I've
                                         deleted it."), then obeys when the tool is forced (the execution
                                         guard's retry); the mark is one the message reader ignores, so
                                         the message stays a clear command
    anything else                        a short text answer

After tool results (only in RESPONSE_MODE=model) it answers "Done.". Asked what its words claim (the
reply check, `check_reply` forced) it answers as a careful reader would: a reply opening with "Done"
claims what the user's message asked for, anything else claims nothing. `usage` estimates tokens as
characters / 4 of the request body and of the answer, so prompt sizes can be compared across runs.

With `--word-ms W` it writes like a real model: after tool results it answers a longer reply
(`WRITER`), each word taking W ms after the first-token latency; a request with `stream: true` gets
the answer as server-sent chunks as it is written (text word by word, tool calls in one delta),
otherwise whole once written.

Run: `python -m backend.devtools.bench.fake_server --port 8199 --latency-ms 0` (uvicorn, one process).
"""

from __future__ import annotations

import argparse
import asyncio
import re
from typing import Any

import orjson

from backend.app.calls.tools import Tool

Scope = dict[str, Any]
_VERB = re.compile(r"^(add|list|show|delete|remove|complete|update)\b\s*(.*)$", re.IGNORECASE | re.DOTALL)
_UPDATE = re.compile(r"^(.*?)\s+priority\s+(low|medium|high)\s*$", re.IGNORECASE)
_SPLIT = re.compile(r"\s+and\s+(?=(?:add|delete|remove|complete|update)\b)|\s*;\s*", re.IGNORECASE)
_CHECKED = re.compile(
    r"The user wrote:\n<<<\n(?P<message>.*?)\n>>>.*The assistant replied:\n<<<\n(?P<reply>.*)\n>>>", re.DOTALL
)
_ACTIONS: dict[str, str] = {Tool.ADD: "add", Tool.DELETE: "delete", Tool.COMPLETE: "complete", Tool.UPDATE: "update"}


WRITER = "Done. It is on your list now, beside what was there before. Anything else I can do for you today?"


def _tokens(size: int) -> int:
    return max(1, -(-size // 4))


def _command(text: str) -> tuple[str, dict[str, Any]] | None:
    match = _VERB.match(text.strip())
    if match is None:
        return None
    verb, rest = match.group(1).lower(), match.group(2).strip()
    if verb == "add":
        return Tool.ADD, {"title": rest or "Untitled"}
    if verb in ("list", "show"):
        status = "pending" if "pending" in rest.lower() else "completed" if "completed" in rest.lower() else "all"
        return Tool.LIST, {"status": status}
    if verb in ("delete", "remove"):
        return Tool.DELETE, {"task_id": rest}
    if verb == "complete":
        return Tool.COMPLETE, {"task_id": rest}
    update = _UPDATE.match(rest)
    if update is None:
        return Tool.UPDATE, {"task_id": rest}
    return Tool.UPDATE, {"task_id": update.group(1), "priority": update.group(2).lower()}


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user" and isinstance(message.get("content"), str):
            return str(message["content"])
    return ""


def respond(body: dict[str, Any], *, request_size: int, writer: str = "Done.") -> dict[str, Any]:
    """The scripted answer to one chat-completions request body (`writer`: its words after tool results)."""
    messages: list[dict[str, Any]] = body.get("messages") or []
    offered = {t["function"]["name"] for t in body.get("tools") or [] if isinstance(t, dict) and "function" in t}
    choice = body.get("tool_choice")
    forced = choice["function"]["name"] if isinstance(choice, dict) else None
    must_call = forced is not None or choice == "required"

    text = _last_user_text(messages)
    ghost = text.rstrip().endswith("!")
    text = text.rstrip().rstrip("!")
    commands = [c for c in (_command(part) for part in _SPLIT.split(text)) if c is not None]
    if forced is not None:
        commands = [c for c in commands if c[0] == forced] or [(forced, commands[0][1] if commands else {})]

    message: dict[str, Any]
    if forced == "check_reply":
        message = _declaration(messages)
    elif messages and messages[-1].get("role") == "tool" and not must_call:
        message = {"role": "assistant", "content": writer}
    elif commands and offered and (must_call or not ghost):
        calls = [
            {
                "id": f"call_{len(messages)}_{i}",
                "type": "function",
                "function": {"name": n, "arguments": orjson.dumps(a).decode()},
            }
            for i, (n, a) in enumerate(commands)
            if n in offered
        ]
        message = (
            {"role": "assistant", "content": None, "tool_calls": calls}
            if calls
            else {"role": "assistant", "content": "OK."}
        )
    elif ghost:
        message = {"role": "assistant", "content": "Done, I've deleted it."}
    else:
        message = {"role": "assistant", "content": "Hello! Tell me what to add, list, complete or delete."}
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    completion = _tokens(len(orjson.dumps(message)))
    prompt = _tokens(request_size)
    return {
        "id": f"chatcmpl-bench-{len(messages)}",
        "object": "chat.completion",
        "created": 0,
        "model": str(body.get("model", "bench/fake")),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def _declaration(messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The reply check's answer: "Done..." claims what the user's message asked for; nothing else does."""
    found = _CHECKED.search(_last_user_text(messages))
    done: list[dict[str, str]] = []
    if found is not None and found.group("reply").startswith("Done"):
        asked = [_command(part) for part in _SPLIT.split(found.group("message").rstrip().rstrip("!"))]
        done = [
            {"action": _ACTIONS[c[0]], "task": str(c[1].get("title") or c[1].get("task_id") or "")}
            for c in asked
            if c is not None and c[0] in _ACTIONS
        ]
    arguments = orjson.dumps({"done": done, "not_done": []}).decode()
    call = {"id": "call_check", "type": "function", "function": {"name": "check_reply", "arguments": arguments}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


class FakeModelApp:
    """The ASGI app: POST .../chat/completions answers by `respond`; GET /health says ok."""

    def __init__(self, *, latency_s: float = 0.0, word_s: float = 0.0) -> None:
        self.latency_s = latency_s
        self.word_s = word_s

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await receive()  # startup
            await send({"type": "lifespan.startup.complete"})
            await receive()  # shutdown
            await send({"type": "lifespan.shutdown.complete"})
            return
        chunks = []
        while True:
            event = await receive()
            chunks.append(event.get("body", b""))
            if not event.get("more_body"):
                break
        raw = b"".join(chunks)
        if scope["method"] == "POST" and scope["path"].endswith("/chat/completions"):
            try:
                body = orjson.loads(raw)
            except orjson.JSONDecodeError:
                await _send(send, 400, {"error": {"message": "invalid JSON"}})
                return
            answer = respond(body, request_size=len(raw), writer=WRITER if self.word_s else "Done.")
            if self.latency_s > 0:
                await asyncio.sleep(self.latency_s)
            if body.get("stream"):
                await self._stream(send, answer)
                return
            if self.word_s:
                await asyncio.sleep(self.word_s * len(_words(answer)))
            await _send(send, 200, answer)
        elif scope["path"] == "/health":
            await _send(send, 200, {"status": "ok"})
        else:
            await _send(send, 404, {"error": {"message": "not found"}})

    async def _stream(self, send: Any, answer: dict[str, Any]) -> None:
        """The answer as `chat.completion.chunk` events, its words `word_s` apart."""
        headers = [(b"content-type", b"text/event-stream"), (b"cache-control", b"no-cache")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        message = answer["choices"][0]["message"]
        await _event(send, _chunk(answer, {"role": "assistant", "content": "" if message.get("content") else None}))
        if message.get("tool_calls"):
            calls = [{"index": i, **call} for i, call in enumerate(message["tool_calls"])]
            await _event(send, _chunk(answer, {"tool_calls": calls}))
        for i, word in enumerate(_words(answer)):
            if i and self.word_s:
                await asyncio.sleep(self.word_s)
            await _event(send, _chunk(answer, {"content": word}))
        finish = answer["choices"][0]["finish_reason"]
        await _event(send, {**_chunk(answer, {}), "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
        await _event(send, {**_chunk(answer, {}), "choices": [], "usage": answer["usage"]})
        await send({"type": "http.response.body", "body": b"data: [DONE]\n\n"})


def _words(answer: dict[str, Any]) -> list[str]:
    """The answer's text in words, each with the space before it."""
    text = answer["choices"][0]["message"].get("content") or ""
    return re.findall(r"\s*\S+", text)


def _chunk(answer: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": answer["id"],
        "object": "chat.completion.chunk",
        "model": answer["model"],
        "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
    }


async def _event(send: Any, payload: dict[str, Any]) -> None:
    await send({"type": "http.response.body", "body": b"data: " + orjson.dumps(payload) + b"\n\n", "more_body": True})


async def _send(send: Any, status: int, payload: dict[str, Any]) -> None:
    data = orjson.dumps(payload)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def main(argv: list[str] | None = None) -> None:
    import uvicorn

    parser = argparse.ArgumentParser(description="Taskchat's scripted fake model (loopback only)")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--latency-ms", type=float, default=0.0)
    parser.add_argument("--word-ms", type=float, default=0.0, help="time per written word (and a longer reply)")
    args = parser.parse_args(argv)
    uvicorn.run(
        FakeModelApp(latency_s=args.latency_ms / 1000, word_s=args.word_ms / 1000),
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        backlog=1024,
    )


if __name__ == "__main__":
    main()
