"""normalize_response: provider shape and argument drift -> typed calls, every repair named."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.fake_llm import completion, tool_call

from backend.app.agent.loop_types import LLMResponse
from backend.app.agent.normalize import normalize_response
from backend.app.calls.codes import ResultCode
from backend.app.core.exceptions import LLMBadResponse


def norm(raw: Any, *, step: int = 0, max_args_bytes: int = 10_000, tags: bool = False) -> LLMResponse:
    return normalize_response(raw, step=step, max_args_bytes=max_args_bytes, content_tag_fallback=tags)


def with_message(message: Any, *, finish_reason: str | None = "stop", **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": message, "finish_reason": finish_reason}], **extra}


def one_call(arguments: Any, *, name: str = "add_task") -> LLMResponse:
    return norm(completion(tool_calls=[tool_call(name, arguments, call_id="c1", raw=True)]))


# -- call shapes ----------------------------------------------------------------------------------


def test_tool_calls_array() -> None:
    raw = completion(
        tool_calls=[
            tool_call("add_task", {"title": "milk"}, call_id="a"),
            tool_call("list_tasks", {"status": "pending"}, call_id="b"),
        ]
    )

    response = norm(raw)

    assert [(c.id, c.name, c.arguments, c.source) for c in response.tool_calls] == [
        ("a", "add_task", {"title": "milk"}, "tool_calls"),
        ("b", "list_tasks", {"status": "pending"}, "tool_calls"),
    ]
    assert response.tool_calls[0].raw_arguments == '{"title": "milk"}'
    assert response.finish_reason == "tool_calls"
    assert response.normalizations == []


def test_tool_calls_as_a_single_object_is_wrapped() -> None:
    raw = completion(tool_calls=tool_call("add_task", {"title": "milk"}, call_id="a"))

    response = norm(raw)

    assert [(c.id, c.arguments) for c in response.tool_calls] == [("a", {"title": "milk"})]
    assert "tool_calls_object_wrapped" in response.normalizations


def test_legacy_function_call() -> None:
    raw = with_message(
        {"role": "assistant", "content": None, "function_call": {"name": "add_task", "arguments": '{"title": "x"}'}},
        finish_reason="function_call",
    )

    response = norm(raw, step=2)

    (call,) = response.tool_calls
    assert (call.name, call.arguments, call.source) == ("add_task", {"title": "x"}, "function_call")
    assert call.id == "call_2_0"
    assert response.normalizations == ["legacy_function_call", "missing_call_id"]


def test_function_call_ignored_when_tool_calls_present() -> None:
    message = {
        "role": "assistant",
        "content": None,
        "tool_calls": [tool_call("list_tasks", {}, call_id="t")],
        "function_call": {"name": "add_task", "arguments": "{}"},
    }

    response = norm(with_message(message))

    assert [c.name for c in response.tool_calls] == ["list_tasks"]
    assert "legacy_function_call" not in response.normalizations


# -- argument drift -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "expected", "note"),
    [
        ('{"title": "milk"}', {"title": "milk"}, None),
        ({"title": "milk"}, {"title": "milk"}, "object_arguments"),
        ("", {}, "empty_arguments"),
        ("   ", {}, "empty_arguments"),
        (None, {}, "empty_arguments"),
        (json.dumps(json.dumps({"title": "milk"})), {"title": "milk"}, "double_encoded_arguments"),
        ('{"task_id": "Read\nbook"}', {"task_id": "Read\nbook"}, "control_characters_in_arguments"),
    ],
    ids=["json-string", "object", "empty-string", "blank-string", "null", "double-encoded", "raw-newline"],
)
def test_arguments_drift_is_repaired(arguments: Any, expected: dict[str, Any], note: str | None) -> None:
    response = one_call(arguments)

    (call,) = response.tool_calls
    assert call.arguments == expected
    assert call.error is None
    if note:
        assert note in response.normalizations
    else:
        assert response.normalizations == []


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        ('{"title": "milk"', "not valid JSON"),
        ('{"title": "\\ud800"}', "not valid JSON"),  # a lone surrogate: no lenient reading lets it through
        ("title=milk", "not valid JSON"),
        ("[1, 2]", "got list"),
        ("42", "got int"),
        ('"just text"', "got str"),
        (json.dumps(json.dumps([1])), "got list"),
        ([1, 2], "got list"),
    ],
    ids=[
        "truncated",
        "lone-surrogate",
        "not-json",
        "array",
        "number",
        "string",
        "double-encoded-array",
        "array-object",
    ],
)
def test_unusable_arguments_become_a_parse_error(arguments: Any, fragment: str) -> None:
    (call,) = one_call(arguments).tool_calls

    assert call.arguments is None
    assert call.error is not None and call.error.code == ResultCode.ARGUMENTS_JSON_PARSE_ERROR
    assert fragment in call.error.message
    assert "Call the tool again" in call.error.message  # tells the model what to do


def test_broken_arguments_are_kept_raw_for_the_echo() -> None:
    (call,) = one_call('{"title": "mi').tool_calls

    assert call.raw_arguments == '{"title": "mi'


def test_arguments_too_large_are_refused_before_parsing() -> None:
    huge_and_broken = '{"title": "' + "x" * 500  # would be a parse error if it were parsed

    (call,) = norm(
        completion(tool_calls=[tool_call("add_task", huge_and_broken, raw=True)]), max_args_bytes=100
    ).tool_calls

    assert call.error is not None and call.error.code == ResultCode.ARGUMENTS_TOO_LARGE
    assert call.arguments is None
    assert "over the limit of 100" in call.error.message


def test_object_arguments_too_large_are_refused() -> None:
    (call,) = norm(
        completion(tool_calls=[tool_call("add_task", {"title": "y" * 300}, raw=True)]), max_args_bytes=100
    ).tool_calls

    assert call.error is not None and call.error.code == ResultCode.ARGUMENTS_TOO_LARGE


def test_size_limit_counts_utf8_bytes() -> None:
    arguments = json.dumps({"title": "é" * 60}, ensure_ascii=False)  # 73 characters, 133 bytes
    assert len(arguments) < 100 < len(arguments.encode())

    (call,) = norm(completion(tool_calls=[tool_call("add_task", arguments, raw=True)]), max_args_bytes=100).tool_calls

    assert call.error is not None and call.error.code == ResultCode.ARGUMENTS_TOO_LARGE


def test_arguments_unrepresentable_as_json_are_a_parse_error() -> None:
    # A client that hands Python objects over (not through orjson) may carry a 100-bit integer.
    (call,) = one_call({"title": "x", "n": 2**100}).tool_calls

    assert call.error is not None and call.error.code == ResultCode.ARGUMENTS_JSON_PARSE_ERROR


# -- ids and names --------------------------------------------------------------------------------


def test_missing_ids_are_generated_per_step() -> None:
    raw = completion(tool_calls=[{"type": "function", "function": {"name": "list_tasks", "arguments": "{}"}}] * 2)

    response = norm(raw, step=4)

    assert [c.id for c in response.tool_calls] == ["call_4_0", "call_4_1"]
    assert response.normalizations.count("missing_call_id") == 2


def test_duplicate_ids_are_made_unique() -> None:
    raw = completion(
        tool_calls=[
            tool_call("list_tasks", {}, call_id="dup"),
            tool_call("add_task", {"title": "a"}, call_id="dup"),
            tool_call("add_task", {"title": "b"}, call_id="dup"),
        ]
    )

    response = norm(raw)

    ids = [c.id for c in response.tool_calls]
    assert len(set(ids)) == 3 and ids[0] == "dup"
    assert "duplicate_call_id" in response.normalizations


def test_renamed_duplicate_never_collides_with_a_later_id() -> None:
    # The rename scheme is f"{id}_{step}_{index}"; a provider id may already look like that.
    raw = completion(
        tool_calls=[
            tool_call("list_tasks", {}, call_id="a"),
            tool_call("add_task", {"title": "x"}, call_id="a_0_2"),
            tool_call("add_task", {"title": "y"}, call_id="a"),
        ]
    )

    ids = [c.id for c in norm(raw).tool_calls]

    assert len(set(ids)) == 3


@pytest.mark.parametrize("name", ["functions.add_task", "function.add_task", "tools.add_task", "  add_task "])
def test_name_prefixes_and_spaces_are_stripped(name: str) -> None:
    response = one_call('{"title": "x"}', name=name)

    assert response.tool_calls[0].name == "add_task"
    if "." in name:
        assert "tool_name_prefix_stripped" in response.normalizations


@pytest.mark.parametrize("name", ["functions.", "tools.", "   "])
def test_a_name_that_is_only_a_prefix_is_dropped(name: str) -> None:
    response = one_call("{}", name=name)

    assert response.tool_calls == []
    assert "tool_call_without_name_dropped" in response.normalizations


def test_calls_without_a_name_or_not_objects_are_dropped() -> None:
    raw = completion(tool_calls=[{"id": "x", "function": {"arguments": "{}"}}, "add_task", tool_call("list_tasks", {})])

    response = norm(raw)

    assert [c.name for c in response.tool_calls] == ["list_tasks"]
    assert "tool_call_without_name_dropped" in response.normalizations
    assert "tool_call_not_object_dropped" in response.normalizations


# -- calls written inside content -----------------------------------------------------------------


TAGGED = 'Sure. <tool_call>{"name": "add_task", "arguments": {"title": "milk"}}</tool_call>'
FUNCTION_TAG = '<function=functions.add_task>{"title": "milk"}</function>'


@pytest.mark.parametrize("content", [TAGGED, FUNCTION_TAG], ids=["tool_call-tag", "function-tag"])
def test_content_tags_become_calls_when_fallback_is_on(content: str) -> None:
    response = norm(completion(content), step=1, tags=True)

    (call,) = response.tool_calls
    assert (call.name, call.arguments, call.source) == ("add_task", {"title": "milk"}, "content_tag")
    assert call.id == "call_1_tag0"
    assert "content_tag_tool_calls" in response.normalizations
    assert "<" not in response.content  # the tag is taken out of the visible text


def test_text_around_a_tag_is_kept() -> None:
    assert norm(completion(TAGGED), tags=True).content == "Sure."


@pytest.mark.parametrize("content", [TAGGED, FUNCTION_TAG])
def test_content_tags_stay_text_when_fallback_is_off(content: str) -> None:
    response = norm(completion(content))

    assert response.tool_calls == []
    assert response.content == content
    assert response.normalizations == []


def test_content_tags_ignored_when_real_tool_calls_exist() -> None:
    raw = completion(TAGGED, tool_calls=[tool_call("list_tasks", {}, call_id="r")])

    response = norm(raw, tags=True)

    assert [(c.name, c.source) for c in response.tool_calls] == [("list_tasks", "tool_calls")]


def test_content_tag_arguments_obey_the_size_limit() -> None:
    content = '<tool_call>{"name": "add_task", "arguments": {"title": "' + "z" * 400 + '"}}</tool_call>'

    (call,) = norm(completion(content), tags=True, max_args_bytes=100).tool_calls

    assert call.error is not None and call.error.code == ResultCode.ARGUMENTS_TOO_LARGE


def test_tag_without_a_name_is_not_a_call() -> None:
    content = '<tool_call>{"arguments": {"title": "milk"}}</tool_call>'

    response = norm(completion(content), tags=True)

    assert response.tool_calls == [] and response.content == content


# -- content shapes, usage, model -----------------------------------------------------------------


def test_content_parts_are_joined() -> None:
    parts = [{"type": "text", "text": "Hello "}, {"type": "text", "text": "there"}, {"type": "image"}, "junk"]

    response = norm(with_message({"role": "assistant", "content": parts}))

    assert response.content == "Hello there"
    assert "content_parts_joined" in response.normalizations


def test_content_parts_with_non_text_values_do_not_crash() -> None:
    parts = [{"type": "text", "text": 5}, {"type": "text", "text": None}, {"type": "text", "text": "ok"}]

    assert norm(with_message({"role": "assistant", "content": parts})).content == "ok"


def test_usage_and_model_are_parsed() -> None:
    response = norm(completion("hi", prompt_tokens=321, completion_tokens=45))

    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (321, 45)
    assert response.model == "scripted"
    assert response.content == "hi" and response.finish_reason == "stop"


@pytest.mark.parametrize(
    "usage", [None, "lots", {"prompt_tokens": -3, "completion_tokens": "7"}, {"prompt_tokens": True}]
)
def test_bad_usage_counts_as_zero(usage: Any) -> None:
    raw = completion("hi")
    raw["usage"] = usage

    response = norm(raw)

    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (0, 0)


# -- provider errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "fragment"),
    [
        ({"error": {"message": "Provider returned error", "code": 502}}, "Provider returned error"),
        ({**completion("hi"), "error": {"code": 429}}, "429"),
        ({"choices": []}, "no choices"),
        ({"id": "x"}, "no choices"),
        ({"choices": "nope"}, "no choices"),
        (with_message(None), "without a message"),
        ({"choices": [{"index": 0, "finish_reason": "stop"}]}, "without a message"),
        (with_message({"role": "assistant", "content": ""}, finish_reason="length"), "cut off"),
        (with_message({"role": "assistant", "content": None}, finish_reason="length"), "cut off"),
        (with_message({"role": "assistant", "content": "partial"}, finish_reason="error"), "'error'"),
        ([completion("hi")], "not a JSON object"),
        ("oops", "not a JSON object"),
    ],
    ids=[
        "error-in-200",
        "error-beside-choices",
        "empty-choices",
        "missing-choices",
        "choices-not-list",
        "null-message",
        "missing-message",
        "length-empty",
        "length-null",
        "finish-error",
        "list-body",
        "string-body",
    ],
)
def test_provider_failures_raise_bad_response(raw: Any, fragment: str) -> None:
    with pytest.raises(LLMBadResponse) as caught:
        norm(raw)

    assert fragment in caught.value.detail
    assert caught.value.status_code == 502


def test_length_with_text_is_kept_and_noted() -> None:
    response = norm(with_message({"role": "assistant", "content": "partial answer"}, finish_reason="length"))

    assert response.content == "partial answer"
    assert "finish_reason_length" in response.normalizations


def test_length_with_a_call_is_kept() -> None:
    raw = completion(tool_calls=[tool_call("list_tasks", {})], finish_reason="length")

    assert [c.name for c in norm(raw).tool_calls] == ["list_tasks"]


# -- property: anything in, LLMResponse or LLMBadResponse out --------------------------------------

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.text(alphabet=st.sampled_from('\x00{}[]":,<>=/ antml_fuciolsdk'), max_size=60),
    st.just("x" * 300_000),
    st.just("\x00" * 10),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


@st.composite
def _truncated_json(draw: st.DrawFn) -> str:
    text = json.dumps(draw(_json))
    return text[: draw(st.integers(min_value=0, max_value=len(text)))]


_arguments = st.one_of(_json, _truncated_json(), st.builds(json.dumps, _json))
_names = st.one_of(st.sampled_from(["add_task", "functions.list_tasks", "", " ", "tools."]), _scalars)
_call = st.one_of(
    st.fixed_dictionaries(
        {"function": st.fixed_dictionaries({"name": _names, "arguments": _arguments})},
        optional={"id": st.one_of(st.sampled_from(["c", "c_0_1"]), _scalars), "type": _scalars},
    ),
    st.fixed_dictionaries({"name": _names, "parameters": _arguments}),
    _json,
)
_content = st.one_of(
    st.builds(lambda n, a: f'<tool_call>{{"name": {json.dumps(n)}, "arguments": {a}}}</tool_call>', _names, _arguments),
    st.builds(lambda n, a: f"<function={n}>{a}</function>", st.text(max_size=10), _truncated_json()),
    st.builds(lambda a: f"```json\n{a}\n```", _truncated_json()),
    st.lists(st.one_of(st.fixed_dictionaries({"type": st.just("text"), "text": _json}), _json), max_size=3),
    _json,
)
_message = st.one_of(
    st.fixed_dictionaries(
        {},
        optional={
            "content": _content,
            "tool_calls": st.one_of(st.lists(_call, max_size=4), _call),
            "function_call": _call,
            "role": _scalars,
        },
    ),
    _json,
)
# Weighted towards well-formed envelopes so the drawn messages reach the call and argument code.
_choice = st.one_of(
    *[
        st.fixed_dictionaries(
            {"message": _message},
            optional={"finish_reason": st.one_of(st.sampled_from(["stop", "length", "error", "tool_calls"]), _json)},
        )
    ]
    * 3,
    _json,
)
_payload = st.one_of(
    *[
        st.fixed_dictionaries(
            {"choices": st.lists(_choice, min_size=1, max_size=3)},
            optional={"usage": _json, "model": _json, "error": st.sampled_from([None, "", 0, {}, "boom", {"code": 1}])},
        )
    ]
    * 3,
    _json,
)


@settings(
    max_examples=500,
    deadline=None,
    derandomize=True,  # deterministic in CI; the strategies above are what explore
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(raw=_payload, max_args_bytes=st.sampled_from([0, 50, 200_000]), tags=st.booleans(), step=st.integers(0, 9))
def test_any_payload_gives_a_response_or_bad_response(raw: Any, max_args_bytes: int, tags: bool, step: int) -> None:
    try:
        response = normalize_response(raw, step=step, max_args_bytes=max_args_bytes, content_tag_fallback=tags)
    except LLMBadResponse:
        return
    assert isinstance(response, LLMResponse)
    assert isinstance(response.content, str)
    ids = [c.id for c in response.tool_calls]
    assert len(ids) == len(set(ids)), "tool call ids must be unique"
    for call in response.tool_calls:
        assert call.name and isinstance(call.name, str)
        # A call is either runnable (object arguments) or carries the error the model gets back.
        assert (call.arguments is None) == (call.error is not None)
        assert call.arguments is None or isinstance(call.arguments, dict)
    assert response.usage.prompt_tokens >= 0 and response.usage.completion_tokens >= 0


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("<|im_end|>", ""),
        ("Sure, done.<|im_end|>", "Sure, done."),
        ("<start_of_turn>model\nHello!<end_of_turn>", "model\nHello!"),
        ("<|eot_id|>", ""),
        ("[INST] hi [/INST] Hello", "hi  Hello"),
        ("</s>", ""),
        ("Use <b>bold</b> and a|b", "Use <b>bold</b> and a|b"),  # not a template's token: kept
    ],
)
def test_a_chat_templates_control_tokens_never_reach_the_words(content: str, words: str) -> None:
    response = norm(with_message({"role": "assistant", "content": content}))

    assert response.content == words
    assert ("control_tokens_removed" in response.normalizations) == (words != content)
