"""The offline model as a chat-completions client: which calls to make for a request, and the wire format."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from backend.app.agent.loop_types import Attempt, TextSink
from backend.app.agent.offline.clause_values import _add_commands, _clean_ref
from backend.app.agent.offline.common import MODEL_NAME, NEGATION_REPLY, Command, Reader, Reading, _text
from backend.app.agent.offline.dates import _today
from backend.app.agent.offline.parsing import (
    _DONE_TAIL,
    _POLITE_HEAD,
    _POLITE_TAIL,
    _VERB_HEAD,
    _status_in,
    parse_message,
)
from backend.app.agent.offline.replies import _summarize, _tool_results, small_talk
from backend.app.calls.codes import ResultCode
from backend.app.calls.tools import Tool, traits
from backend.app.language.catalog import Texts, texts


def english(text: str, today: dt.date, earlier: Sequence[str] = ()) -> Reading:
    """The offline model's own English rules: what it reads without the app's reader."""
    del earlier
    parsed = parse_message(text, today)
    kind = "negated" if parsed.negated else "command" if parsed.commands else "chat"
    return Reading(parsed.commands, kind, "en")


class OfflineModel:
    """`read` reads a message in any language the app reads (services/turn/commands.py, passed in by
    main.py: agent/ does not import services/); without it, English only."""

    label: str = "offline"
    model_name: str = MODEL_NAME

    def __init__(self, *, read: Reader = english) -> None:
        self.read = read

    async def create(
        self,
        body: dict[str, Any],
        *,
        deadline: float,
        on_text: TextSink | None = None,
        attempts: list[Attempt] | None = None,
    ) -> dict[str, Any]:
        del deadline, on_text  # answering takes microseconds: nothing to time out, nothing to stream
        return respond(body, read=self.read)


# --- choosing the calls ---------------------------------------------------------------------
def _tool_choice(raw: Any) -> tuple[str, str | None]:
    """("auto" | "none" | "required" | "forced", forced tool name)."""
    if isinstance(raw, Mapping):  # also the {"type": "any" | "tool", "name": ...} spelling some gateways use
        function = raw.get("function")
        name = function.get("name") if isinstance(function, Mapping) else raw.get("name")
        if name:
            return "forced", str(name)
        raw = raw.get("type")
    if raw in ("none", "required", "any"):
        return ("required" if raw == "any" else str(raw)), None
    return "auto", None


def _offered(tools: Any) -> frozenset[str]:
    names = set()
    for tool in tools if isinstance(tools, list) else []:
        if isinstance(tool, Mapping):
            function = tool.get("function")
            name = function.get("name") if isinstance(function, Mapping) else tool.get("name")
            if isinstance(name, str):
                names.add(name)
    return frozenset(names)


def _forced_call(name: str, text: str, commands: list[Command], today: dt.date) -> Command:
    """The best arguments for a tool the caller insists on, even when the message didn't parse."""
    if same := next((c for c in commands if c.name == name), None):
        return same
    if name == Tool.LIST:
        return Command(name, {"status": _status_in(text)})
    stripped = _DONE_TAIL.sub("", _VERB_HEAD.sub("", _POLITE_TAIL.sub("", _POLITE_HEAD.sub("", text.strip()))))
    if name == Tool.ADD:
        added = _add_commands(stripped, today)
        return added[0] if added else Command(name, {"title": text.strip()})
    if traits(name).targets:
        ref = next((c.args["task_id"] for c in commands if "task_id" in c.args), None)
        return Command(name, {"task_id": ref or _clean_ref(stripped) or stripped or text.strip()})
    return Command(name, {})  # a tool this model has no rules for


def _shorter_retry(results: list[tuple[str, dict[str, Any], Any]], offered: frozenset[str]) -> Command | None:
    """The last call refused as ARGUMENTS_TOO_LARGE, again with its long text cut to fit, as a model
    would; once per tool per turn (a second refusal of the same tool ends the turn honestly)."""
    refused = [r for r in results if isinstance(r[2], dict) and r[2].get("code") == ResultCode.ARGUMENTS_TOO_LARGE]
    if not refused or refused[-1] is not results[-1]:  # only a refusal that nothing answered yet
        return None
    name, args, payload = refused[-1]
    limit = re.search(r"limit of (\d+)", str(payload.get("error") or ""))
    if name not in offered or not args or limit is None or sum(n == name for n, _, _ in refused) > 1:
        return None
    budget = int(limit.group(1)) * 3 // 4
    shortened = dict(args)
    while (excess := len(json.dumps(shortened, ensure_ascii=False).encode()) - budget) > 0:
        longest = max(
            (k for k, v in shortened.items() if isinstance(v, str) and k not in ("title", "task_id")),
            key=lambda k: len(shortened[k]),
            default=None,
        )
        value = shortened.get(longest, "") if longest else ""
        cut = value[: max(len(value) - excess - 1, 0)].rstrip() + "…"
        if len(cut) >= len(value):
            return None  # nothing left to cut (the title alone is over the limit): the guard reports it
        shortened[str(longest)] = cut
    return Command(name, shortened)


def _missing_tools_reply(commands: list[Command], t: Texts) -> str:
    names = list(dict.fromkeys(c.name for c in commands))
    return t.n(
        "I'd need the {tools} tool for that, but it isn't available right now.",
        "I'd need the {tools} tools for that, but they aren't available right now.",
        len(names),
        tools=t.join(names),
    )


def _decide(body: Mapping[str, Any], messages: list[Mapping[str, Any]], read: Reader) -> tuple[str, list[Command]]:
    """(text reply, tool calls); the text is dropped from the response when there are calls."""
    mode, forced = _tool_choice(body.get("tool_choice"))
    offered = frozenset() if mode == "none" else _offered(body.get("tools"))
    if mode == "forced" and forced not in offered:
        mode = "auto"  # a real server would reject this request; be lenient instead
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    user_text = _text(messages[last_user].get("content")) if last_user >= 0 else ""
    today = _today(messages)
    earlier = [_text(m.get("content")) for m in messages[:last_user] if m.get("role") == "user"]
    reading = read(user_text, today, earlier)
    t = texts(reading.language)
    if results := _tool_results(messages, last_user):
        reply = " ".join(_summarize(*result, t=t) for result in results)
        if mode != "none" and (retry := _shorter_retry(results, offered)):
            return reply, [retry]
        if mode == "forced" and forced != "respond":
            return reply, [_forced_call(str(forced), user_text, parse_message(user_text, today).commands, today)]
        wants_respond = mode == "forced" or (mode == "required" and "respond" in offered)
        return reply, [Command("respond", {"message": reply})] if wants_respond else []
    parsed = parse_message(user_text, today)
    commands = reading.commands
    usable = [c for c in commands if c.name in offered]
    if commands and not usable:
        reply = _missing_tools_reply(commands, t)
    elif reading.kind == "negated" or parsed.negated:
        reply = t(NEGATION_REPLY)
    else:
        reply = (
            t(parsed.reply) if parsed.reply and not reading.commands else small_talk(user_text, t, kind=reading.kind)
        )
    if mode == "forced":
        if forced == "respond":
            return reply, [Command("respond", {"message": reply})]
        return reply, [_forced_call(str(forced), user_text, commands, today)]
    if usable:
        return reply, usable
    if reading.kind == "state" and Tool.LIST in offered and mode != "none":  # "did I pay the rent?": the list says
        return reply, [Command(Tool.LIST, {"status": "all"})]
    if mode == "required":
        for fallback in (Command("respond", {"message": reply}), Command(Tool.LIST, {"status": "all"})):
            if fallback.name in offered:
                return reply, [fallback]
    return reply, []


# --- wire format ----------------------------------------------------------------------------
def _tokens(chars: int) -> int:
    return math.ceil(chars / 4)


def respond(body: Mapping[str, Any], *, read: Reader = english) -> dict[str, Any]:
    """One chat.completion for an OpenAI chat-completions request body (see the module docstring)."""
    raw_messages = body.get("messages")
    messages = [m for m in raw_messages if isinstance(m, Mapping)] if isinstance(raw_messages, list) else []
    content, commands = _decide(body, messages, read)
    if body.get("parallel_tool_calls") is False:
        commands = commands[:1]
    digest = hashlib.blake2b(json.dumps(body, sort_keys=True, default=str).encode(), digest_size=12).hexdigest()
    tool_calls: list[dict[str, Any]] = []
    for n, command in enumerate(commands, start=1):
        arguments = json.dumps(command.args, ensure_ascii=False)
        short = hashlib.blake2b(f"{digest}:{n}:{command.name}:{arguments}".encode(), digest_size=4).hexdigest()
        tool_calls.append(
            {"id": f"call_{n}_{short}", "type": "function", "function": {"name": command.name, "arguments": arguments}}
        )
    message: dict[str, Any] = {"role": "assistant", "content": None if tool_calls else content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    prompt_chars = sum(len(_text(m.get("content"))) for m in messages)
    if body.get("tools"):
        prompt_chars += len(json.dumps(body["tools"], default=str))
    completion_chars = len(message["content"] or "") + sum(
        len(c["function"]["name"]) + len(c["function"]["arguments"]) for c in tool_calls
    )
    prompt_tokens, completion_tokens = _tokens(prompt_chars), _tokens(completion_chars)
    return {
        "id": f"offline-{digest}",
        "object": "chat.completion",
        "created": 0,
        "model": MODEL_NAME,
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
