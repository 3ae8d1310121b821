"""Raw provider JSON -> LLMResponse, in one place.

Models and gateways drift: `tool_calls` as an array or a single object, the legacy
`function_call`, arguments as a JSON string, an object, "", null or broken JSON, missing or
duplicate call ids, and (for presets that enable it) calls written as text inside `content`.
Everything the loop sees past this module is typed; each repair is named in `normalizations`.
"""

from __future__ import annotations

import json
import re
from typing import Any

import orjson

from backend.app.agent.loop_types import LLMResponse, Usage
from backend.app.calls.codes import ResultCode
from backend.app.calls.types import ToolCall, ToolError
from backend.app.core.exceptions import LLMBadResponse
from backend.app.core.text import has_nul

_CONTENT_TAG_PATTERNS = (
    re.compile(r"<tool_call>\s*(?P<body>.*?)\s*</tool_call>", re.DOTALL),
    re.compile(r"<function_call>\s*(?P<body>.*?)\s*</function_call>", re.DOTALL),
    re.compile(r"<function=(?P<name>[\w.\-]+)>\s*(?P<body>.*?)\s*</function>", re.DOTALL),
    re.compile(r"```(?:tool_call|json)\s*(?P<body>\{.*?\"name\".*?\})\s*```", re.DOTALL),
)


def normalize_response(
    raw: Any,
    *,
    step: int,
    max_args_bytes: int,
    content_tag_fallback: bool = False,
) -> LLMResponse:
    if not isinstance(raw, dict):
        raise LLMBadResponse("LLM server returned a body that is not a JSON object")
    notes: list[str] = []
    raw = _without_nul(raw, notes)
    if raw.get("error"):
        # OpenRouter reports provider failures inside an HTTP 200 body.
        raise LLMBadResponse(f"LLM server returned an error: {_error_text(raw['error'])}")
    choices = raw.get("choices")
    if not isinstance(choices, list) or not choices:
        raise LLMBadResponse("LLM server returned no choices")
    choice = choices[0] if isinstance(choices[0], dict) else {}
    finish_reason = choice.get("finish_reason")
    if finish_reason == "error":
        raise LLMBadResponse("LLM server stopped with finish_reason 'error'")
    message = choice.get("message")
    if not isinstance(message, dict):
        # No message object at all is a broken body, not an empty answer to retry.
        raise LLMBadResponse("LLM server returned a choice without a message")
    text = _text_of(message, notes)
    calls: list[ToolCall] = []
    for i, (c, source) in enumerate(_raw_calls(message, notes)):
        call = _to_call(c, source, step=step, index=i, max_args_bytes=max_args_bytes, notes=notes)
        if call is not None:
            calls.append(call)
    if not calls and content_tag_fallback and text:
        text, tagged = _calls_from_content(text, step=step, max_args_bytes=max_args_bytes, notes=notes)
        calls.extend(tagged)
    _dedupe_ids(calls, step=step, notes=notes)

    if finish_reason == "length" and not calls and not text.strip():
        raise LLMBadResponse("LLM output was cut off (finish_reason 'length') before any answer")
    if finish_reason == "length":
        notes.append("finish_reason_length")

    usage: dict[str, Any] = raw["usage"] if isinstance(raw.get("usage"), dict) else {}
    return LLMResponse(
        content=text,
        tool_calls=calls,
        finish_reason=finish_reason if isinstance(finish_reason, str) else None,
        usage=Usage(
            prompt_tokens=_int(usage.get("prompt_tokens")),
            completion_tokens=_int(usage.get("completion_tokens")),
        ),
        normalizations=notes,
        model=raw.get("model") if isinstance(raw.get("model"), str) else None,
    )


def _text_of(message: dict[str, Any], notes: list[str]) -> str:
    """The answer's words: content parts joined, a chat template's tokens that leaked into them
    ("<|im_end|>", "<end_of_turn>") dropped."""
    content = message.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        notes.append("content_parts_joined")
    text = content if isinstance(content, str) else ""
    if _CONTROL.search(text):
        text = _CONTROL.sub("", text).strip()
        notes.append("control_tokens_removed")
    return text


def _raw_calls(message: dict[str, Any], notes: list[str]) -> list[tuple[Any, str]]:
    """The answer's calls as sent, with where each came from: `tool_calls` (a list, or one object
    wrapped), else the legacy `function_call`."""
    found: list[tuple[Any, str]] = []
    tool_calls = message.get("tool_calls")
    if isinstance(tool_calls, dict):
        notes.append("tool_calls_object_wrapped")
        tool_calls = [tool_calls]
    if isinstance(tool_calls, list):
        found.extend((c, "tool_calls") for c in tool_calls)
    function_call = message.get("function_call")
    if isinstance(function_call, dict) and not found:
        notes.append("legacy_function_call")
        found.append(({"id": None, "function": function_call}, "function_call"))
    return found


def _to_call(raw: Any, source: str, *, step: int, index: int, max_args_bytes: int, notes: list[str]) -> ToolCall | None:
    if not isinstance(raw, dict):
        notes.append("tool_call_not_object_dropped")
        return None
    function: dict[str, Any] = raw["function"] if isinstance(raw.get("function"), dict) else raw
    name = function.get("name")
    if not isinstance(name, str) or not name.strip():
        notes.append("tool_call_without_name_dropped")
        return None
    cleaned = _clean_name(name, notes)
    if not cleaned:  # e.g. "functions." alone
        notes.append("tool_call_without_name_dropped")
        return None
    call_id = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else ""
    if not call_id:
        notes.append("missing_call_id")
        call_id = f"call_{step}_{index}"
    return _with_arguments(
        ToolCall(id=call_id, name=cleaned, arguments=None, source=source),  # type: ignore[arg-type]
        function.get("arguments", function.get("parameters")),
        max_args_bytes=max_args_bytes,
        notes=notes,
    )


def _with_arguments(call: ToolCall, raw_args: Any, *, max_args_bytes: int, notes: list[str]) -> ToolCall:
    if raw_args is None or (isinstance(raw_args, str) and not raw_args.strip()):
        notes.append("empty_arguments")
        call.arguments, call.raw_arguments = {}, ""
        return call
    if isinstance(raw_args, str):
        call.raw_arguments = raw_args
    else:
        notes.append("object_arguments")
        try:
            call.raw_arguments = orjson.dumps(raw_args).decode()
        except TypeError as exc:  # orjson.JSONEncodeError: e.g. an integer over 64 bits, non-string keys
            call.raw_arguments = repr(raw_args)[:200]
            call.error = ToolError(
                ResultCode.ARGUMENTS_JSON_PARSE_ERROR,
                f"Arguments are not representable as JSON ({exc}). Call the tool again.",
            )
            return call
    size = len(call.raw_arguments.encode("utf-8", "surrogatepass"))
    if size > max_args_bytes:
        # Checked before parsing: a 10 MB argument is refused without being read.
        call.error = ToolError(
            ResultCode.ARGUMENTS_TOO_LARGE,
            f"Arguments are {size} bytes, over the limit of {max_args_bytes}. "
            "Send a much shorter value and call the tool again.",
        )
        return call
    parsed: Any = raw_args
    if isinstance(raw_args, str):
        try:
            parsed = orjson.loads(raw_args)
        except orjson.JSONDecodeError as exc:
            try:  # a raw newline or tab inside a string (small models write them): JSON, but not strict
                parsed = json.loads(raw_args, strict=False)
                orjson.dumps(parsed)  # and nothing orjson refuses ("\ud800", a lone surrogate): plain JSON only
                notes.append("control_characters_in_arguments")
            except (ValueError, TypeError):
                call.error = ToolError(
                    ResultCode.ARGUMENTS_JSON_PARSE_ERROR,
                    f"Arguments are not valid JSON ({exc}). Call the tool again with a JSON object.",
                )
                return call
        if isinstance(parsed, str):  # double-encoded JSON, a common drift
            try:
                parsed = orjson.loads(parsed)
                notes.append("double_encoded_arguments")
            except orjson.JSONDecodeError:
                pass
    if not isinstance(parsed, dict):
        call.error = ToolError(
            ResultCode.ARGUMENTS_JSON_PARSE_ERROR,
            f"Arguments must be a JSON object, got {type(parsed).__name__}. Call the tool again.",
        )
        return call
    call.arguments = _without_nul(parsed, notes)  # "\u0000" escapes inside the JSON text decode to NUL
    return call


def _calls_from_content(text: str, *, step: int, max_args_bytes: int, notes: list[str]) -> tuple[str, list[ToolCall]]:
    calls: list[ToolCall] = []
    remaining = text
    for pattern in _CONTENT_TAG_PATTERNS:
        for match in pattern.finditer(text):
            body = match.group("body")
            name = match.groupdict().get("name")
            payload: Any
            try:
                payload = orjson.loads(body)
            except orjson.JSONDecodeError:
                payload = None
            if name is None:
                if not isinstance(payload, dict) or not isinstance(payload.get("name"), str):
                    continue
                name = payload["name"]
                raw_args = payload.get("arguments", payload.get("parameters"))
            else:
                raw_args = body
            cleaned = _clean_name(str(name), notes)
            if not cleaned:
                continue
            call = ToolCall(id=f"call_{step}_tag{len(calls)}", name=cleaned, arguments=None, source="content_tag")
            calls.append(_with_arguments(call, raw_args, max_args_bytes=max_args_bytes, notes=notes))
            remaining = remaining.replace(match.group(0), "")
        if calls:
            break
    if calls:
        notes.append("content_tag_tool_calls")
    return remaining.strip(), calls


def _clean_name(name: str, notes: list[str]) -> str:
    cleaned = name.strip()
    for prefix in ("functions.", "function.", "tools."):
        if cleaned.startswith(prefix):
            notes.append("tool_name_prefix_stripped")
            cleaned = cleaned[len(prefix) :]
    return cleaned


def _dedupe_ids(calls: list[ToolCall], *, step: int, notes: list[str]) -> None:
    seen: set[str] = set()
    for i, call in enumerate(calls):
        if call.id in seen:
            notes.append("duplicate_call_id")
            base, n = f"{call.id}_{step}_{i}", 0
            # The new id must not collide with one the provider sent (or another rename) either.
            taken = seen | {c.id for c in calls[i + 1 :]}
            call.id = base
            while call.id in taken:
                n += 1
                call.id = f"{base}_{n}"
        seen.add(call.id)


# The special tokens of the chat templates in use (ChatML and Llama 3 `<|...|>`, Gemma's turns, the
# sentence marks of SentencePiece models, Mistral's instruction brackets): never words for a user.
_CONTROL = re.compile(r"<\|[A-Za-z0-9_]{1,40}\|>|</?(?:s|eos|bos|pad|start_of_turn|end_of_turn)>|\[/?INST\]|<</?SYS>>")


def _without_nul(value: Any, notes: list[str]) -> Any:
    """Drop NUL characters anywhere in the model's output: no database text column can store one,
    so a stray NUL would otherwise fail the turn when its reply or tool records are saved."""
    if not has_nul(value):
        return value
    if "nul_removed" not in notes:
        notes.append("nul_removed")
    return _strip_nul(value)


def _strip_nul(value: Any) -> Any:
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {_strip_nul(k): _strip_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_strip_nul(v) for v in value]
    return value


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("code") or error)[:300]
    return str(error)[:300]


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
