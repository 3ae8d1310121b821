"""Shared pieces of the reliability suite: the figures it produces and a few database probes.

Every test here adds what it tried and what went wrong to `figures` (e.g. tokens tried / wrongly
accepted, races run / lost updates). With `REL_REPORT=path` set, the totals are written to that
JSON file when the session ends; `scripts/reliability_report.py` runs the suite that way and
renders the table of `specs/reliability.md` from it.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from reliability.rel_support import Figures
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from support.api import make_settings
from support.pgbouncer import direct

from backend.app.db.session import create_engine, create_sessionmaker

_FIGURES: Figures = defaultdict(Counter)


@pytest.fixture(scope="session")
def figures() -> Iterator[Figures]:
    yield _FIGURES
    target = os.environ.get("REL_REPORT")
    if target:
        Path(target).write_text(json.dumps({k: dict(v) for k, v in sorted(_FIGURES.items())}, indent=2) + "\n")


@pytest.fixture
async def probe(database: str) -> AsyncIterator[AsyncEngine]:
    """A separate engine on the test database (not the app's pool), for looking at the app from outside."""
    engine = create_async_engine(direct(database))
    yield engine
    await engine.dispose()


@pytest.fixture
async def sessionmaker(database: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """The app's own engine configuration (timeouts included), for driving TaskTools directly."""
    engine = create_engine(make_settings(database))
    yield create_sessionmaker(engine)
    await engine.dispose()
