"""The React example of docs/api.md (examples/react-usechat/TaskChat.jsx: `useChat` with its default transport)
runs in Chromium against a served Taskchat, so it cannot rot: the page shows the file byte for byte,
esbuild bundles it with the pinned React and AI SDK (tests/node), and the page it renders adds a task,
shows a failed tool, answers a question with its buttons and shows an error.

The page is served from another origin (a second loopback server) than the API, as a
frontend usually is: the chat goes through CORS (CORS_ORIGINS).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from support.api import USER, MakeClient, seed_tasks, tasks_of, token_for
from support.browser import chromium_page, needs_chromium
from support.fake_llm import ScriptedLLM
from support.live import bound_socket, serve
from support.node import NODE_DIR, SEEDED, require_node, run, scripted

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "react-usechat" / "TaskChat.jsx"


def test_the_docs_show_the_example_file_as_it_is() -> None:
    page = (ROOT / "docs" / "api.md").read_text()
    blocks = re.findall(r"```jsx\n(.*?)```", page, re.S)
    assert EXAMPLE.read_text() in blocks, "docs/api.md's ```jsx block differs from examples/react-usechat/TaskChat.jsx"


@needs_chromium
async def test_the_example_chats_in_a_browser(make_client: MakeClient, tmp_path: Path) -> None:
    require_node()
    bundle = tmp_path / "bundle.js"
    await run(
        NODE_DIR / "node_modules" / ".bin" / "esbuild",
        "browser/main.jsx",
        "--bundle",
        "--minify",
        "--format=iife",
        "--jsx=automatic",
        "--define:process.env.NODE_ENV='production'",
        f"--outfile={bundle}",
        "--log-level=warning",
    )
    page_socket = bound_socket()  # the page's own origin, which the API allows (CORS_ORIGINS)
    origin = "http://{}:{}".format(*page_socket.getsockname()[:2])
    client = await make_client(ScriptedLLM(default=scripted), max_destructive_calls_per_turn=2, cors_origins=[origin])
    await seed_tasks(client, *SEEDED)
    errors: list[str] = []
    async with serve(client) as live, chromium_page(errors) as page:
        settings = {"baseUrl": live.url, "userId": USER, "token": token_for(USER)}
        html = (
            "<!doctype html><html><head><link rel=icon href=data:,></head><body><div id=root></div>"
            f"<script>window.TASKCHAT = {json.dumps(settings)};"
            "</script><script src=/bundle.js></script></body></html>"
        )
        frontend = Starlette(
            routes=[
                Route("/", lambda _: HTMLResponse(html)),
                Route("/bundle.js", lambda _: Response(bundle.read_bytes(), media_type="text/javascript")),
            ]
        )
        async with serve(client, app=frontend, sock=page_socket) as app:
            await page.goto(f"{app.url}/")
            await converse(page, client)
    # The one error the browser logs is the failed request the page shows as an alert.
    assert errors == ["Failed to load resource: the server responded with a status of 503 (Service Unavailable)"]


async def converse(page: Any, client: Any) -> None:
    expect = pytest.importorskip("playwright.async_api").expect
    box, assistant = page.locator("input"), page.locator(".assistant")

    async def send(text: str) -> None:
        # Enter submits only when Send is enabled: the stream of the turn before may still be closing
        # after its parts are shown (useChat's status is "streaming" until then).
        await box.fill(text)
        await expect(page.get_by_role("button", name="Send")).to_be_enabled()
        await box.press("Enter")

    await send("add buy milk")
    await expect(assistant.last).to_contain_text("Added: “Buy milk”.")
    await expect(assistant.last.locator(".tool")).to_have_text("add_task done")

    await send("complete walk the dog")
    await expect(assistant.last.locator(".tool")).to_have_text("complete_task failed")

    await send("delete taxes, bread, gym and laundry")
    await expect(assistant.last.get_by_role("button", name="Yes")).to_be_visible()
    await assistant.last.get_by_role("button", name="Yes").click()
    await expect(assistant.last.locator(".tool")).to_have_text(["delete_task done", "delete_task done"])

    await send("what is on my list, model that fails")
    alert = page.get_by_role("alert")
    await expect(alert).not_to_be_empty()
    assert not (await alert.inner_text()).startswith("{")  # the error JSON's detail, not the JSON

    # After an error the page still sends (useChat's status is "error", not "ready").
    await send("hello")
    await expect(assistant.last).to_contain_text("I can add, list, complete, update and delete tasks.")

    assert sorted(t["title"] for t in await tasks_of(client)) == ["Buy milk"]
