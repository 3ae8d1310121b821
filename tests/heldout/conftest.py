"""One app per settings for the held-out sets, each case with its own scripted model.

The held-out sets play about 5,500 cases of one to a few turns each. Starting an app for each
(its settings, its lifespan, FastAPI building every route's parameters on the first request) cost
more than the turns: the 1,040 cases of `test_heldout.py -k fresh` took 113 s with an app each,
29 s with these (2026-12-07, one process). A case gets a client of an app already running with its
settings; the model behind it is the case's (`_Current`), and its database is clean as any test's
(the `database` fixture): what an app keeps in memory (metrics, compiled words) says nothing of a
user. The three sets' reports were byte-identical either way."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from heldout.play import CaseClient
from support.api import NOW, AppClient, make_settings
from support.fake_llm import ScriptedLLM

from backend.app.core.clock import FixedClock
from backend.app.main import create_app


class _Current(httpx.AsyncBaseTransport):
    """The model of the case being played: a shared app's transport hands each request to it."""

    def __init__(self) -> None:
        self.model: httpx.AsyncBaseTransport | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        assert self.model is not None, "a shared app was asked for a model outside a case"
        return await self.model.handle_async_request(request)


@dataclass
class _Apps:
    """The apps started so far in this module, by their settings; stopped when its last test ends
    (their pooled connections then close: other tests count the app's sessions on the database)."""

    stack: AsyncExitStack
    running: dict[tuple[Any, ...], tuple[AppClient, _Current]] = field(default_factory=dict)


@pytest.fixture(scope="module")
async def _shared_apps() -> AsyncIterator[_Apps]:
    async with AsyncExitStack() as stack:
        yield _Apps(stack)


@pytest.fixture
async def case_client(database: str, _shared_apps: _Apps) -> AsyncIterator[CaseClient]:
    """`await case_client(llm, **settings)`: a client of the app with these settings on the (clean)
    test database, `llm` its model until the test ends."""
    played: list[_Current] = []

    async def factory(llm: ScriptedLLM, **settings: Any) -> AppClient:
        key = (database, *sorted(settings.items()))
        if key not in _shared_apps.running:
            current = _Current()
            app = create_app(
                make_settings(database, **settings), llm_transport=current, clock=FixedClock(NOW), configure_logs=False
            )
            await _shared_apps.stack.enter_async_context(app.router.lifespan_context(app))
            client = await _shared_apps.stack.enter_async_context(AppClient(app))
            _shared_apps.running[key] = (client, current)
        client, current = _shared_apps.running[key]
        current.model = llm.transport
        played.append(current)
        return client

    yield factory
    for current in played:
        current.model = None
