"""Search, filters and paging on GET /api/{user_id}/tasks and in the list_tasks tool (issue 16), on
Postgres (the trigram index of migration 0008) and SQLite (the same functions in Python)."""

from __future__ import annotations

import asyncio
import base64
from datetime import timedelta
from typing import Any

import httpx
import pytest
from support.api import NOW, AppClient, MakeClient, auth, seed_tasks
from support.fake_llm import ScriptedLLM, calls, completion

BOTH = pytest.mark.parametrize("database", ["postgres", "sqlite"], indirect=True)
TODAY = NOW.date()


async def listed(client: httpx.AsyncClient, user: str = "alice", **params: Any) -> httpx.Response:
    return await client.get(f"/api/{user}/tasks", params=params, headers=auth(user))


async def titles(client: httpx.AsyncClient, **params: Any) -> list[str]:
    response = await listed(client, **params)
    assert response.status_code == 200, response.text
    return [t["title"] for t in response.json()]


async def every_page(client: httpx.AsyncClient, **params: Any) -> list[list[str]]:
    pages, cursor = [], None
    while True:
        response = await listed(client, **params, **({"cursor": cursor} if cursor else {}))
        assert response.status_code == 200, response.text
        pages.append([t["title"] for t in response.json()])
        cursor = response.headers.get("X-Next-Cursor")
        if cursor is None:
            return pages


async def add(client: httpx.AsyncClient, title: str, **fields: Any) -> dict[str, Any]:
    response = await client.post("/api/alice/tasks", json={"title": title, **fields}, headers=auth())
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.fixture
async def client(make_client: MakeClient) -> AppClient:
    return await make_client(offline=True)


@BOTH
async def test_q_finds_words_in_title_or_description_any_case_any_accents_and_a_typo(client: AppClient) -> None:
    await add(client, "Buy groceries", description="milk, eggs")
    await add(client, "Crème brûlée for Sunday")
    await add(client, "Call the dentist")
    await add(client, "File taxes", description="Form 1040 and 100% of receipts")
    await add(client, "Walk the dog")

    assert await titles(client, q="EGGS") == ["Buy groceries"]  # in the description
    assert await titles(client, q="creme brulee") == ["Crème brûlée for Sunday"]  # accents
    assert await titles(client, q="groceris") == ["Buy groceries"]  # a typo
    assert await titles(client, q="dentst") == ["Call the dentist"]
    assert await titles(client, q="100%") == ["File taxes"]  # LIKE wildcards are literal
    assert await titles(client, q="_") == []
    assert await titles(client, q="the") == ["Walk the dog", "Call the dentist"]
    assert await titles(client, q="spaceship") == []


@BOTH
async def test_filters_narrow_and_combine(client: AppClient) -> None:
    soon, later = (TODAY + timedelta(days=2)).isoformat(), (TODAY + timedelta(days=20)).isoformat()
    await add(client, "Pay rent", due_date=soon, priority="high", tags=["money"])
    await add(client, "Book flights", due_date=later, priority="low", tags=["travel", "money"])
    await add(client, "Read a book", tags=["fun"])
    done = await add(client, "Old errand", priority="high")
    await client.patch(f"/api/alice/tasks/{done['id']}", json={"status": "completed"}, headers=auth())

    assert await titles(client, priority="high") == ["Old errand", "Pay rent"]
    assert await titles(client, priority="high", status="pending") == ["Pay rent"]
    assert await titles(client, tag="money") == ["Book flights", "Pay rent"]
    assert await titles(client, tag="mon") == []  # a tag is matched whole
    assert await titles(client, due_before=soon) == ["Pay rent"]  # inclusive
    assert await titles(client, due_after=soon) == ["Book flights", "Pay rent"]
    assert await titles(client, due_after=later, due_before=later) == ["Book flights"]
    assert await titles(client, q="book", tag="travel") == ["Book flights"]


@BOTH
async def test_sorts(client: AppClient) -> None:
    await add(client, "No date", priority="low")
    await add(client, "Far", due_date=(TODAY + timedelta(days=30)).isoformat(), priority="medium")
    await add(client, "Near", due_date=(TODAY + timedelta(days=1)).isoformat(), priority="high")

    assert await titles(client) == ["Near", "Far", "No date"]  # created: newest first
    assert await titles(client, sort="due") == ["Near", "Far", "No date"]  # undated last
    assert await titles(client, sort="priority") == ["Near", "Far", "No date"]
    await add(client, "Urgent, undated", priority="high")
    assert await titles(client, sort="due") == ["Near", "Far", "Urgent, undated", "No date"]
    assert await titles(client, sort="priority") == ["Urgent, undated", "Near", "Far", "No date"]


@BOTH
@pytest.mark.parametrize("sort", ["created", "due", "priority"])
async def test_pages_cover_every_task_once_and_the_last_has_no_cursor(client: AppClient, sort: str) -> None:
    await seed_tasks(client, *[f"Task {i:02}" for i in range(23)])
    for i, task in enumerate((await listed(client, limit=200)).json()):  # varied keys, with ties in each
        fields = {"priority": ("low", "medium", "high")[i % 3]}
        if i % 4:
            fields["due_date"] = (TODAY + timedelta(days=i % 5)).isoformat()
        await client.patch(f"/api/alice/tasks/{task['id']}", json=fields, headers=auth())

    pages = await every_page(client, sort=sort, limit=5)

    assert [len(p) for p in pages] == [5, 5, 5, 5, 3]
    flat = [t for p in pages for t in p]
    assert sorted(flat) == [f"Task {i:02}" for i in range(23)]  # each once
    assert flat == await titles(client, sort=sort, limit=200)  # the same order as one long page
    exact = await every_page(client, sort=sort, limit=23)
    assert exact == [flat]  # a last page that is exactly full has no cursor


@BOTH
async def test_a_cursor_is_stable_while_tasks_are_added_and_deleted(client: AppClient) -> None:
    await seed_tasks(client, *[f"Old {i}" for i in range(6)])
    first = await listed(client, limit=3)
    cursor = first.headers["X-Next-Cursor"]
    shown = [t["title"] for t in first.json()]

    await add(client, "Brand new")  # newest: before the first page, never pushed into the next one
    await client.delete(f"/api/alice/tasks/{first.json()[0]['id']}", headers=auth())

    rest = await listed(client, limit=3, cursor=cursor)
    assert [t["title"] for t in rest.json()] == ["Old 2", "Old 1", "Old 0"]
    assert shown == ["Old 5", "Old 4", "Old 3"]
    assert "X-Next-Cursor" not in rest.headers


async def test_empty_and_bad_requests(client: AppClient) -> None:
    empty = await listed(client)
    assert empty.status_code == 200 and empty.json() == [] and "X-Next-Cursor" not in empty.headers
    await seed_tasks(client, "A", "B", "C")
    cursor = (await listed(client, limit=1)).headers["X-Next-Cursor"]
    for params in (
        {"limit": 0},
        {"limit": 201},
        {"sort": "title"},
        {"cursor": "not-a-cursor"},
        {"cursor": cursor, "sort": "due"},  # another sort's cursor
        {"cursor": base64.urlsafe_b64encode(b'{"s": "created", "k": ["x", 1]}').decode()},
        {"due_before": "tomorrow"},
        {"priority": "urgent"},
    ):
        response = await listed(client, **params)
        assert response.status_code == 422, params
        assert response.json()["error"] == "VALIDATION_ERROR", params


async def test_concurrent_inserts_while_paging_never_repeat_or_skip_an_older_task(client: AppClient) -> None:
    await seed_tasks(client, *[f"Before {i:02}" for i in range(20)])

    async def insert() -> None:
        for i in range(10):
            await add(client, f"During {i}")

    pages, _ = await asyncio.gather(every_page(client, limit=4), insert())

    seen = [t for p in pages for t in p]
    before = [t for t in seen if t.startswith("Before")]
    assert sorted(before) == [f"Before {i:02}" for i in range(20)] and len(set(seen)) == len(seen)


async def test_the_list_tool_filters_and_says_when_there_are_more(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("list_tasks", {"query": "invoice", "status": "pending", "limit": 2})),
        completion("Here they are."),
    )
    client = await make_client(llm, response_mode="model")
    await seed_tasks(client, "Invoice ACME", "Invoice Globex", "Invoice Initech", "Gym")

    body = (await client.post("/api/alice/chat", json={"message": "show my pending invoices"}, headers=auth())).json()

    data = body["tool_calls"][0]["result"]["data"]
    assert data["count"] == 3 and len(data["tasks"]) == 2 and data["truncated"] is True
    assert data["query"] == "invoice" and "1 more" in data["more"]
    assert all("Invoice" in t["title"] for t in data["tasks"])


async def test_conversations_and_messages_page_the_same_way(client: AppClient) -> None:
    conversation = None
    for i in range(5):
        body = {"message": f"add errand {i}", "conversation_id": conversation}
        conversation = (await client.post("/api/alice/chat", json=body, headers=auth())).json()["conversation_id"]
    for i in range(3):
        await client.post("/api/alice/chat", json={"message": f"add chore {i}"}, headers=auth())

    conversations: list[str] = []
    cursor = None
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        response = await client.get("/api/alice/conversations", params=params, headers=auth())
        conversations += [c["id"] for c in response.json()]
        cursor = response.headers.get("X-Next-Cursor")
        if cursor is None:
            break
    assert len(conversations) == len(set(conversations)) == 4

    messages: list[str] = []
    cursor = None
    while True:
        params = {"limit": 3, **({"cursor": cursor} if cursor else {})}
        response = await client.get(f"/api/alice/conversations/{conversation}/messages", params=params, headers=auth())
        messages += [m["content"] for m in response.json()]
        cursor = response.headers.get("X-Next-Cursor")
        if cursor is None:
            break
    assert messages[0::2] == [f"add errand {i}" for i in range(5)] and len(messages) == 10


@BOTH
async def test_a_misspelt_query_pages_on_in_its_tolerant_reading(client: AppClient) -> None:
    """Words matched as written come first; only a query that matches nothing is read as misspelt,
    and its next pages keep that reading."""
    await seed_tasks(client, *[f"Buy groceries {i}" for i in range(7)], "Grocery store hours", "Walk the dog")

    pages = await every_page(client, q="groceris", limit=3)

    assert [len(p) for p in pages] == [3, 3, 2]  # "groceris" is close to "groceries" and to "grocery"
    assert sorted(t for p in pages for t in p) == sorted(
        [f"Buy groceries {i}" for i in range(7)] + ["Grocery store hours"]
    )
    # Spelt right, only what holds the word as written.
    assert await titles(client, q="groceries") == [f"Buy groceries {i}" for i in reversed(range(7))]


@pytest.mark.parametrize("database", ["postgres"], indirect=True)
async def test_a_misspelt_word_is_read_against_the_owners_own_words_kept_as_tasks_change(
    client: AppClient,
) -> None:
    """Postgres reads a misspelt word against the owner's vocabulary (migration 0009), which follows
    new titles, edited titles and descriptions, and never another user's words."""
    # Bob's words are all closer to "zepelin" than Alice's "zeppelin": read against everyone's words,
    # Alice's search would be taken to mean Bob's and find nothing.
    for word in ("zepelinn", "zepelina", "zepelins", "zepelino", "zepelinx", "zepelinz"):
        created = await client.post("/api/bob/tasks", json={"title": f"Fly {word}"}, headers=auth("bob"))
        assert created.status_code == 201, created.text
    model = await add(client, "Build a model")
    await add(client, "Pack bags", description="sunscreen and the hiking boots")

    renamed = await client.patch(
        f"/api/alice/tasks/{model['id']}", json={"title": "Build the zeppelin model"}, headers=auth()
    )
    assert renamed.status_code == 200, renamed.text

    assert await titles(client, q="zepelin") == ["Build the zeppelin model"]  # the edited title's word
    assert await titles(client, q="sunscren") == ["Pack bags"]  # a description's word
    assert await titles(client, q="zepelin modle") == ["Build the zeppelin model"]  # two words, each misspelt
    assert await titles(client, q="zepelin sunscren") == []  # each word must be in the same task
    assert await titles(client, q="xylophone") == []
