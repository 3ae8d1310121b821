"""The page in headless Chromium against a real `taskchat serve` (offline model, temp SQLite).

Mints a development token and chats (streamed: tool events, then the reply; in model mode, words a
`reset` withdraws, against the app in process with a scripted model); ticks, edits, deletes
and undoes tasks in the list (PATCH/DELETE with If-Match, POST /undo), searches, pages with "Load
more", answers a question with its buttons, and shows a 412 when the page's copy of a task is stale.
What the page did is checked through the REST API too. Screenshots go to the test's tmp_path; with
UPDATE_SCREENSHOT=1 they also refresh docs/screenshot.png (the README's) and docs/page-tasks.png.
Chromium comes from Debian's `chromium` package (scripts/ensure-browser.sh installs it); without it
these tests skip and say why.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.api import MakeClient
from support.browser import chromium_page, needs_chromium
from support.fake_llm import ScriptedLLM, call_delta, chunk, slow_stream, words
from support.live import serve

ROOT = Path(__file__).resolve().parents[2]
# The README's picture is refreshed only on request (UPDATE_SCREENSHOT=1): the due date in it
# changes daily, and a test run should not dirty the work tree.
README_SCREENSHOT = ROOT / "docs" / "screenshot.png"
TASKS_SCREENSHOT = ROOT / "docs" / "page-tasks.png"

pytestmark = needs_chromium
playwright_api = pytest.importorskip("playwright.async_api")
expect = playwright_api.expect
# Chromium logs every 4xx response as a console error; a test that provokes one expects exactly these.
PRECONDITION_FAILED_LOG = "Failed to load resource: the server responded with a status of 412 (Precondition Failed)"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[str]:
    """`taskchat serve` in a subprocess: development mode, no LLM key, a fresh SQLite file."""
    port = free_port()
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")}
    env = {
        **keep,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'e2e.db'}",
        "ENVIRONMENT": "development",
        "LLM_API_KEY": "",
        "OPENROUTER_API_KEY": "",
        "LOG_LEVEL": "WARNING",
    }
    taskchat = Path(sys.executable).with_name("taskchat")
    log = (tmp_path / "server.log").open("wb")
    proc = await asyncio.create_subprocess_exec(
        str(taskchat),
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        cwd=tmp_path,
        env=env,
        stdout=log,
        stderr=log,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        async with httpx.AsyncClient() as client:
            for _ in range(300):
                if proc.returncode is not None:
                    break
                try:
                    if (await client.get(f"{url}/ready")).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)
            else:
                pytest.fail("taskchat serve did not become ready")
        assert proc.returncode is None, (tmp_path / "server.log").read_text()
        yield url
    finally:
        if proc.returncode is None:
            proc.terminate()
            try:
                await asyncio.wait_for(proc.wait(), 10)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        log.close()


async def sign_in(page: Any, server: str, user: str) -> str:
    """Opens the page, gets a development token for `user` with the page's button; returns the token."""
    await page.goto(server)
    await page.fill("#user", user)
    await page.click("#mint")
    await expect(page.locator("#who")).to_have_text(f"Signed in as {user}.")
    return str(await page.input_value("#token"))


def rest(server: str, token: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=server, headers={"Authorization": f"Bearer {token}"})


async def dev_token(server: str, user: str) -> str:
    async with httpx.AsyncClient(base_url=server) as client:
        response = await client.post("/dev/token", json={"user_id": user})
        response.raise_for_status()
        return str(response.json()["access_token"])


async def tasks_by_title(client: httpx.AsyncClient, user: str) -> dict[str, dict[str, Any]]:
    response = await client.get(f"/api/{user}/tasks", params={"limit": 200})
    response.raise_for_status()
    return {task["title"]: task for task in response.json()}


def row(page: Any, title: str) -> Any:
    """The task's row in the list, by its exact title."""
    return page.locator("#tasks .task").filter(has=page.locator(".title").get_by_text(title, exact=True))


async def send(page: Any, message: str) -> Any:
    """Sends a chat message and returns the (streamed) /chat response."""
    await page.fill("#message", message)
    async with page.expect_response(lambda r: r.url.endswith("/chat")) as chat:
        await page.click("#send")
    return await chat.value


async def above_the_list_end(page: Any) -> dict[str, float]:
    """The tasks panel down to its last task (not the empty rest of the column)."""
    panel = await page.locator("#tasks-panel").bounding_box()
    tasks = await page.locator("#tasks").bounding_box()
    bottom = tasks["y"] + tasks["height"] + 12
    return {"x": panel["x"], "y": panel["y"], "width": panel["width"], "height": bottom - panel["y"]}


def keep(shot: Path, docs_copy: Path) -> None:
    assert shot.stat().st_size > 10_000
    if os.environ.get("UPDATE_SCREENSHOT") == "1":
        docs_copy.parent.mkdir(exist_ok=True)
        docs_copy.write_bytes(shot.read_bytes())


async def test_page_adds_and_lists_a_task_in_chromium(server: str, tmp_path: Path) -> None:
    shot = tmp_path / "screenshot.png"
    errors: list[str] = []

    async with chromium_page(errors) as page:
        await sign_in(page, server, "alice")

        await page.fill("#message", "add buy milk tomorrow")
        await page.click("#send")
        reply = page.locator(".message.assistant:not(.pending)").last
        await expect(reply.locator(".bubble")).to_contain_text(re.compile("buy milk", re.I), timeout=15_000)
        await expect(reply.locator(".tool-call.ok .name")).to_have_text("add_task")
        task = page.locator("#tasks .task")
        await expect(task).to_have_count(1)
        await expect(task.locator(".title")).to_have_text(re.compile("^buy milk$", re.I))
        await expect(task.locator(".meta")).to_contain_text("due ")

        await page.fill("#message", "list")
        await page.click("#send")
        listed = page.locator(".message.assistant:not(.pending)").nth(1)
        await expect(listed.locator(".tool-call.ok .name")).to_have_text("list_tasks", timeout=15_000)
        await expect(listed.locator(".bubble")).to_contain_text(re.compile("buy milk", re.I))

        await page.locator("#token").evaluate("el => { el.style.filter = 'blur(3px)'; }")  # not README material
        await page.screenshot(path=str(shot), full_page=False)

    assert errors == []
    keep(shot, README_SCREENSHOT)


async def test_chat_streams_and_the_list_ticks_edits_deletes_undoes_sorts_and_searches(
    server: str, tmp_path: Path
) -> None:
    errors: list[str] = []
    async with chromium_page(errors) as page:
        token = await sign_in(page, server, "carol")
        async with rest(server, token) as api:
            created = await api.post("/api/carol/tasks", json={"title": "water the plants", "tags": ["home"]})
            assert created.status_code == 201 and created.headers["ETag"] == '"1"'

            # Chat, streamed: two tool events, then the reply; the list is read again after `done`.
            chat = await send(page, "add buy milk tomorrow and add call mom high priority")
            assert chat.request.headers["accept"] == "text/event-stream"
            assert chat.headers["content-type"].startswith("text/event-stream")
            reply = page.locator(".message.assistant:not(.pending)").last
            await expect(reply.locator(".bubble")).to_have_text(
                re.compile(r"^Added: “buy milk” \(due \d{4}-\d{2}-\d{2}\)\.\nAdded: “call mom” \(high priority\)\.$")
            )
            await expect(reply.locator(".tool-call.ok .name")).to_have_text(["add_task", "add_task"])
            await expect(reply.locator(".tool-call .result")).to_have_text(["buy milk — pending", "call mom — pending"])
            await expect(page.locator("#tasks .task .title")).to_have_text(["call mom", "buy milk", "water the plants"])

            # Tick: PATCH status with If-Match; the row and the server agree.
            await row(page, "buy milk").locator(".done").click()
            await expect(row(page, "buy milk")).to_have_class(re.compile(r"\bcompleted\b"))
            await expect(row(page, "buy milk").locator(".done")).to_be_checked()
            await expect(page.locator("#notice-text")).to_have_text("Completed “buy milk”.")
            milk = (await tasks_by_title(api, "carol"))["buy milk"]
            assert milk["status"] == "completed" and milk["version"] == 2
            panel = tmp_path / "page-tasks.png"
            await page.screenshot(path=str(panel), clip=await above_the_list_end(page))

            # Inline edit: Escape cancels, Enter saves.
            await row(page, "call mom").locator(".edit").click()
            await page.locator("#tasks .title-input").fill("never saved")
            await page.locator("#tasks .title-input").press("Escape")
            await expect(row(page, "call mom")).to_have_count(1)
            await row(page, "call mom").locator(".title").dblclick()
            await page.locator("#tasks .title-input").fill("call mom tonight")
            await page.locator("#tasks .title-input").press("Enter")
            await expect(row(page, "call mom tonight")).to_have_count(1)
            await expect(page.locator("#notice-text")).to_have_text("Renamed “call mom” to “call mom tonight”.")
            assert set(await tasks_by_title(api, "carol")) == {"buy milk", "call mom tonight", "water the plants"}

            # Delete, then Undo brings it back (with its id).
            renamed = (await tasks_by_title(api, "carol"))["call mom tonight"]
            await row(page, "call mom tonight").locator(".delete").click()
            await expect(row(page, "call mom tonight")).to_have_count(0)
            await expect(page.locator("#notice-text")).to_have_text("Deleted “call mom tonight”.")
            assert "call mom tonight" not in await tasks_by_title(api, "carol")
            await page.click("#undo")
            await expect(row(page, "call mom tonight")).to_have_count(1)
            await expect(page.locator("#notice-text")).to_have_text("Undone: restored “call mom tonight”.")
            await expect(page.locator("#undo")).to_be_hidden()
            assert (await tasks_by_title(api, "carol"))["call mom tonight"]["id"] == renamed["id"]

            # Sort and status filter.
            await page.select_option("#sort", "priority")
            await expect(page.locator("#tasks .task .title").first).to_have_text("call mom tonight")
            await page.select_option("#status", "completed")
            await expect(page.locator("#tasks .task .title")).to_have_text(["buy milk"])
            await page.select_option("#status", "all")
            await expect(page.locator("#tasks .task")).to_have_count(3)

            # Search (debounced): only the match; nothing matching says so.
            await page.fill("#search", "plants")
            await expect(page.locator("#tasks .task .title")).to_have_text(["water the plants"])
            await page.fill("#search", "zebra")
            await expect(page.locator("#tasks .task")).to_have_count(0)
            await expect(page.locator("#tasks-empty")).to_have_text("No matching tasks.")
            await page.fill("#search", "")
            await expect(page.locator("#tasks .task")).to_have_count(3)

    assert errors == []
    keep(panel, TASKS_SCREENSHOT)


async def test_load_more_appends_the_next_page(server: str) -> None:
    errors: list[str] = []
    token = await dev_token(server, "dave")
    async with rest(server, token) as api:
        for n in range(1, 56):
            assert (await api.post("/api/dave/tasks", json={"title": f"task {n:02}"})).status_code == 201

    async with chromium_page(errors) as page:
        await sign_in(page, server, "dave")
        titles = page.locator("#tasks .task .title")
        await expect(titles).to_have_count(50)
        await expect(titles.first).to_have_text("task 55")  # newest first
        await expect(titles.last).to_have_text("task 06")
        await page.click("#load-more")
        await expect(titles).to_have_count(55)
        await expect(titles.last).to_have_text("task 01")
        await expect(page.locator("#load-more")).to_be_hidden()

        # A change and its undo read the list again: the page loaded with "Load more" stays loaded.
        await row(page, "task 02").locator(".delete").click()
        await expect(titles).to_have_count(54)
        await page.click("#undo")
        await expect(page.locator("#notice-text")).to_have_text("Undone: restored “task 02”.")
        await expect(titles).to_have_count(55)
        await expect(page.locator("#load-more")).to_be_hidden()

    assert errors == []


async def test_a_stale_edit_is_refused_with_412_and_the_list_reloads(server: str) -> None:
    errors: list[str] = []
    async with chromium_page(errors) as page:
        token = await sign_in(page, server, "erin")
        async with rest(server, token) as api:
            created = (await api.post("/api/erin/tasks", json={"title": "pay rent"})).json()
            await page.reload()  # the token stays in sessionStorage
            await expect(row(page, "pay rent")).to_have_count(1)

            # Changed behind the page's back: the page still holds version 1.
            changed = await api.patch(f"/api/erin/tasks/{created['id']}", json={"title": "pay rent today"})
            assert changed.status_code == 200 and changed.headers["ETag"] == '"2"'

            await row(page, "pay rent").locator(".edit").click()
            await page.locator("#tasks .title-input").fill("pay the rent")
            await page.locator("#tasks .title-input").press("Enter")
            await expect(page.locator("#notice-text")).to_have_text("“pay rent” changed elsewhere; reloaded.")
            await expect(page.locator("#notice")).to_have_class(re.compile(r"\berror\b"))
            await expect(page.locator("#tasks .task .title")).to_have_text(["pay rent today"])
            assert list(await tasks_by_title(api, "erin")) == ["pay rent today"]

            # A stale tick and a stale delete are refused the same way; nothing changes on the server.
            await api.patch(f"/api/erin/tasks/{created['id']}", json={"priority": "high"})
            await row(page, "pay rent today").locator(".done").click()
            await expect(page.locator("#notice-text")).to_have_text("“pay rent today” changed elsewhere; reloaded.")
            await expect(row(page, "pay rent today").locator(".done")).not_to_be_checked()
            await api.patch(f"/api/erin/tasks/{created['id']}", json={"tags": ["home"]})
            await row(page, "pay rent today").locator(".delete").click()
            await expect(row(page, "pay rent today").locator(".meta")).to_have_text("high · #home")
            task = (await tasks_by_title(api, "erin"))["pay rent today"]
            assert (task["status"], task["version"]) == ("pending", 4)

    assert errors == [PRECONDITION_FAILED_LOG] * 3


async def ask_which(page: Any, server: str, user: str) -> Any:
    """Two tasks called "buy milk", then "delete buy milk": the turn asks which one. Returns that message."""
    token = await sign_in(page, server, user)
    async with rest(server, token) as api:
        for due in (None, "2099-01-31"):
            assert (await api.post(f"/api/{user}/tasks", json={"title": "buy milk", "due_date": due})).is_success
    await send(page, "delete buy milk")
    await expect(page.locator(".message.assistant:not(.pending)").last.locator(".bubble")).to_contain_text(
        "Which one should I delete? 1. buy milk"
    )
    # Pinned by position: `.last` would follow the next reply once there is one.
    return page.locator(".message.assistant:not(.pending)").nth(await page.locator(".message.assistant").count() - 1)


async def test_a_question_is_shown_with_its_answer_buttons(server: str) -> None:
    errors: list[str] = []
    async with chromium_page(errors) as page:
        asked = await ask_which(page, server, "frank")
        await expect(asked.locator(".tool-call.failed .name")).to_have_text("delete_task")
        await expect(asked.locator(".tool-call.failed .result")).to_contain_text("Multiple tasks match 'buy milk'")
        await expect(asked.locator(".confirmation .answer")).to_have_text(["1", "2", "None of them"])
        await expect(asked.locator(".confirmation .question")).to_have_count(0)  # the reply already asks it
        await expect(page.locator("#tasks .task")).to_have_count(2)

    assert errors == []


async def test_a_question_in_spanish_has_spanish_answers_and_the_button_answers_it(server: str) -> None:
    """The offline model reads Spanish; the question and its buttons are written in Spanish, and the
    page offers exactly the answers the server gives (it knows no language of its own)."""
    errors: list[str] = []
    async with chromium_page(errors) as page:
        token = await sign_in(page, server, "hugo")
        async with rest(server, token) as api:
            for due in (None, "2099-01-31"):
                assert (await api.post("/api/hugo/tasks", json={"title": "leche", "due_date": due})).is_success
        await send(page, "borra leche")
        asked = page.locator(".message.assistant:not(.pending)").last
        await expect(asked.locator(".bubble")).to_contain_text("Hay varias tareas que coinciden con 'leche'.")
        await expect(asked.locator(".confirmation .answer")).to_have_text(["1", "2", "Ninguna"])
        await asked.locator(".confirmation .answer", has_text="2").click()
        answered = page.locator(".message.assistant:not(.pending)").last
        await expect(answered.locator(".bubble")).to_contain_text("Eliminada: “leche”", timeout=3_000)
        await expect(page.locator("#tasks .task")).to_have_count(1)

    assert errors == []


async def test_a_question_is_answered_with_its_button(server: str) -> None:
    errors: list[str] = []
    async with chromium_page(errors) as page:
        asked = await ask_which(page, server, "grace")
        await asked.locator(".confirmation .answer", has_text="1").click()
        answered = page.locator(".message.assistant:not(.pending)").last
        await expect(answered.locator(".tool-call.ok .name")).to_have_text("delete_task", timeout=3_000)
        await expect(answered.locator(".bubble")).to_contain_text("Deleted: “buy milk”")
        await expect(asked.locator(".confirmation .answer").first).to_be_disabled()
        await expect(page.locator("#tasks .task")).to_have_count(1)

    assert errors == []


async def test_words_withdrawn_mid_turn_leave_the_reply_bubble(make_client: MakeClient) -> None:
    """Model mode with LLM_STREAM: the model greets, then calls a tool. Its greeting shows while it
    writes; the `reset` that withdraws it empties the bubble while the tool's answer is written
    (slowly); then the reply. The app runs in process with a scripted model, served on loopback."""
    greeting = [
        chunk({"role": "assistant", "content": "Hello! "}),
        chunk({"content": "Let me check your list first. "}),
        chunk(call_delta(0, id="c1", name="list_tasks", args="{}")),
        chunk({}, finish="tool_calls"),
    ]

    async def writer(body: dict[str, Any]) -> httpx.Response:
        await asyncio.sleep(1.5)  # the model thinks before it writes the reply
        return slow_stream(*words("You have one task: “Gym”. Have a good evening!"), gap_s=0.02)

    llm = ScriptedLLM(slow_stream(*greeting, gap_s=0.6), writer)
    client = await make_client(
        llm, response_mode="model", llm_stream=True, reply_check="lists", environment="development"
    )
    errors: list[str] = []
    async with serve(client) as live, chromium_page(errors) as page:
        token = await sign_in(page, live.url, "henry")
        async with rest(live.url, token) as api:
            assert (await api.post("/api/henry/tasks", json={"title": "Gym"})).status_code == 201
        await page.fill("#message", "hi there, good evening")
        await page.click("#send")
        bubble = page.locator(".message.assistant").last.locator(".bubble")

        await expect(bubble).to_have_text("Hello! Let me check your list first.", timeout=3_000)
        await expect(bubble).to_have_text("…", timeout=3_000)  # withdrawn: the tool runs, the model writes
        await expect(page.locator(".message.assistant").last.locator(".tool-call .name")).to_have_text("list_tasks")
        await expect(bubble).to_have_text("You have one task: “Gym”. Have a good evening!", timeout=5_000)

    assert errors == []
