"""The execution metadata's records leave out the keys that have no value (a step that made no retry
has no `retry`) and keep every other key, null included, in the response and in the stored message."""

from __future__ import annotations

from support.api import MakeClient, auth, chat
from support.fake_llm import ScriptedLLM, calls, completion

ABSENT_FROM_A_STEP = {"ignored_override_keys", "normalizations", "ignored_tool_calls", "errors", "respond", "model"}


async def test_keys_without_a_value_are_left_out_and_the_others_kept(make_client: MakeClient) -> None:
    # A ghost answer first: the guard forces the tool, so the first step has a retry and the second none.
    llm = ScriptedLLM(completion("Done, added it!"), calls(("add_task", {"title": "Buy milk"})))
    client = await make_client(llm)
    body = (await chat(client, "add Buy milk")).json()
    meta = body["execution_metadata"]

    assert not {"provider_error", "confirmation_answer", "routing"} & set(meta)
    assert meta["guard"]["retry_reason"] == "missing_tool"
    assert "downgraded_by" in meta["policy"] and meta["policy"]["downgraded_by"] is None  # required: kept as null
    assert "words" not in meta["reply"]
    assert "fallbacks" not in meta["model"]
    assert meta["model"]["preset"]["schema_max_repeat"] is None  # a plain object keeps its nulls
    first, second = meta["trace"]
    assert first["retry"] == "missing_tool" and "retry" not in second  # kept where it has a value
    for step in (first, second):
        assert not (ABSENT_FROM_A_STEP | {"fallbacks"}) & set(step), step
        assert "phase" not in step["request"] and "tool_choice" in step["request"]
        assert "finish_reason" in step

    messages = await client.get(f"/api/alice/conversations/{body['conversation_id']}/messages", headers=auth())
    stored = messages.json()[-1]
    assert stored["role"] == "assistant"
    assert stored["execution_metadata"] == meta  # stored as answered
