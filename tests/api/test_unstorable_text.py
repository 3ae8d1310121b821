"""Text the database cannot store, and titles that show nothing (issue 25): a 422 in the contract's
error shape naming the field, never a 500, and nothing written."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.api import MakeClient, auth, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion


async def _post(client: Any, path: str, raw: str) -> Any:
    headers = {**auth(), "Content-Type": "application/json"}
    return await client.post(path, content=raw.encode(), headers=headers)


@pytest.mark.parametrize(
    ("query", "field"),
    [("q=a%00b", "q"), ("tag=%00", "tag"), ("status=all&q=x%00", "q"), ("sort=due&cursor=%00", "cursor")],
)
async def test_a_nul_in_a_query_parameter_is_a_422_naming_it(make_client: MakeClient, query: str, field: str) -> None:
    client = await make_client(ScriptedLLM())
    response = await client.get(f"/api/alice/tasks?{query}", headers=auth())
    assert response.status_code == 422, response.text
    assert response.json() == {
        "error": "VALIDATION_ERROR",
        "detail": f"query.{field}: contains a NUL character, which cannot be stored",
    }


@pytest.mark.parametrize(
    ("path", "raw", "where"),
    [
        ("/api/alice/tasks", '{"title": "Pay\\u0000rent"}', "body.title"),
        ("/api/alice/tasks", '{"title": "Pay rent", "tags": ["ok", "x\\u0000"]}', "body.tags.1"),
        ("/api/alice/tasks", '{"title": "Pay rent", "description": "\\ud800 alone"}', "body.description"),
        ("/api/alice/chat", '{"message": "add milk\\u0000"}', "body.message"),
        ("/api/alice/chat", '{"message": "add \\udfff milk"}', "body.message"),
    ],
)
async def test_unstorable_text_in_a_body_field_is_a_422_naming_it_and_nothing_is_written(
    make_client: MakeClient, path: str, raw: str, where: str
) -> None:
    llm = ScriptedLLM(default=calls(("add_task", {"title": "milk"})))
    client = await make_client(llm)
    response = await _post(client, path, raw)
    assert response.status_code == 422, response.text
    body = response.json()
    assert body["error"] == "VALIDATION_ERROR" and body["detail"].startswith(f"{where}: "), body
    assert await tasks_of(client) == []
    assert llm.requests == []


@pytest.mark.parametrize(
    "title",
    ["\u200b", "\u200b\u200c\u200d", "\ufeff", "\u202e\u202d", "\u2066\u2069", " \u00ad ", "\u3164", "\u2800\u2800"],
)
async def test_a_title_that_shows_nothing_is_refused_like_a_blank_one(make_client: MakeClient, title: str) -> None:
    client = await make_client(ScriptedLLM())
    await seed_tasks(client, "Taxes")
    created = await _post(client, "/api/alice/tasks", json.dumps({"title": title}))
    assert created.status_code == 422, created.text
    assert created.json()["error"] == "VALIDATION_ERROR" and "title" in created.json()["detail"]
    [task] = await tasks_of(client)
    patched = await client.patch(f"/api/alice/tasks/{task['id']}", json={"title": title}, headers=auth())
    assert patched.status_code == 422, patched.text
    assert [t["title"] for t in await tasks_of(client)] == ["Taxes"]


async def test_a_model_adding_an_invisible_title_adds_nothing_and_says_so(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "\u200b\u2060"})), completion("Added!"))
    client = await make_client(llm)
    body = (await chat(client, "add a task")).json()
    assert await tasks_of(client) == []
    assert body["tool_calls"][0]["result"]["success"] is False
    assert "Added!" not in body["assistant_message"]


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("Pay \u202erent\u202c", "Pay rent"),  # an override would show "Pay tner"
        ("\u2067Call mom\u2069", "Call mom"),
        ("\u200bBuy milk\ufeff", "Buy milk"),  # invisible at either end
        ("👩\u200d💻 review PR", "👩\u200d💻 review PR"),  # a joiner inside an emoji sequence stays
        ("שלם \u200fחשבון", "שלם \u200fחשבון"),  # a right-to-left mark inside stays
    ],
)
async def test_bidi_controls_go_from_titles_and_visible_text_stays(
    make_client: MakeClient, given: str, stored: str
) -> None:
    client = await make_client(ScriptedLLM())
    created = await _post(client, "/api/alice/tasks", json.dumps({"title": given}))
    assert created.status_code == 201, created.text
    assert created.json()["title"] == stored
    assert [t["title"] for t in await tasks_of(client)] == [stored]
