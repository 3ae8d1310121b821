"""Fixtures of the API tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from typing import Any

import pytest
from support.api import MakeClient
from support.fake_llm import ScriptedLLM
from support.live import Live, LiveWith, serve


@pytest.fixture
async def live_with(make_client: MakeClient) -> AsyncIterator[LiveWith]:
    """`await live_with(llm, **settings)`: the app served by uvicorn on loopback (None: offline model)."""
    async with AsyncExitStack() as stack:

        async def start(llm: ScriptedLLM | None, **settings: Any) -> Live:
            client = await make_client(llm, offline=llm is None, **settings)
            return await stack.enter_async_context(serve(client))

        yield start
