"""The page in headless Chromium against a real `taskchat serve` (offline model, temp SQLite).

Mints a development token, adds a task by chat, sees the reply, the tool call and the task list,
lists, and saves docs/screenshot.png for the README. Chromium comes from Debian's `chromium` package
(scripts/ensure-browser.sh installs it); without it this test skips and says why.
"""

from __future__ import annotations

import asyncio
import os
import re
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
# The README's picture is refreshed only on request (UPDATE_SCREENSHOT=1): the due date in it
# changes daily, and a test run should not dirty the work tree.
README_SCREENSHOT = ROOT / "docs" / "screenshot.png"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} not found: run scripts/ensure-browser.sh (apt-get install chromium)"
)


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


async def test_page_adds_and_lists_a_task_in_chromium(server: str, tmp_path: Path) -> None:
    shot = tmp_path / "screenshot.png"
    playwright_api = pytest.importorskip("playwright.async_api")
    expect = playwright_api.expect
    errors: list[str] = []

    async with playwright_api.async_playwright() as playwright:
        try:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        except playwright_api.Error as exc:
            pytest.skip(f"{CHROMIUM} is installed but could not start: {exc.message.splitlines()[0]}")
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 760})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            await page.goto(server)

            await page.fill("#user", "alice")
            await page.click("#mint")
            await expect(page.locator("#who")).to_have_text("Signed in as alice.")

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
        finally:
            await browser.close()

    assert errors == []
    assert shot.stat().st_size > 10_000
    if os.environ.get("UPDATE_SCREENSHOT") == "1":
        README_SCREENSHOT.parent.mkdir(exist_ok=True)
        README_SCREENSHOT.write_bytes(shot.read_bytes())
