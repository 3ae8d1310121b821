"""Headless Chromium through Playwright, for the tests that drive a page (tests/web, tests/clients).

Chromium comes from Debian's `chromium` package (scripts/ensure-browser.sh installs it); without it
the tests that use it skip and say why (`needs_chromium`).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
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
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} not found: run scripts/ensure-browser.sh (apt-get install chromium)"
)


@asynccontextmanager
async def chromium_page(errors: list[str]) -> AsyncIterator[Any]:
    """A fresh headless Chromium page; console errors and uncaught exceptions go to `errors`."""
    playwright_api = pytest.importorskip("playwright.async_api")
    async with playwright_api.async_playwright() as playwright:
        try:
            browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        except playwright_api.Error as exc:
            pytest.skip(f"{CHROMIUM} is installed but could not start: {exc.message.splitlines()[0]}")
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 760})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield page
        finally:
            await browser.close()
