"""Fixtures: a real database per test (Postgres by default, SQLite where asked), the app through
ASGITransport with its lifespan running, a fixed clock, and a scripted model. Only the LLM is fake."""

from __future__ import annotations

import logging
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from support.api import NOW, AppClient, MakeClient, make_settings
from support.db import POSTGRES_URL, clean, migrate_sqlite, reset_postgres
from support.fake_llm import ScriptedLLM
from support.logs import LogSink
from support.pgbouncer import pgbouncer

from backend.app.core.clock import Clock, FixedClock
from backend.app.main import create_app


@pytest.fixture(autouse=True)
def _no_real_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only loopback may be reached: the model is always scripted or offline."""
    real = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> Any:
        host = address[0] if isinstance(address, tuple) else address
        if (
            isinstance(host, str)
            and not (host.startswith("127.") or host in ("localhost", "::1", ""))
            and self.family in (socket.AF_INET, socket.AF_INET6)
        ):
            raise RuntimeError(f"test tried to reach the network: {address}")
        return real(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)


@pytest.fixture(scope="session")
async def _engines(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[dict[str, tuple[str, AsyncEngine]]]:
    await reset_postgres(POSTGRES_URL)
    sqlite_url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('db') / 'taskchat.db'}"
    await migrate_sqlite(sqlite_url)
    engines = {
        "postgres": (POSTGRES_URL, create_async_engine(POSTGRES_URL)),
        "sqlite": (sqlite_url, create_async_engine(sqlite_url)),
    }
    yield engines
    for _url, engine in engines.values():
        await engine.dispose()


@pytest.fixture(scope="session")
def _pgbouncer(_engines: dict[str, tuple[str, AsyncEngine]]) -> Iterator[str]:
    """A real PgBouncer (transaction pooling) in front of the test Postgres, started when first asked for."""
    with pgbouncer(_engines["postgres"][0]) as url:
        yield url


@pytest.fixture
async def database(request: pytest.FixtureRequest, _engines: dict[str, tuple[str, AsyncEngine]]) -> str:
    """The URL of a clean, migrated database: Postgres unless a test parametrizes `database` with 'sqlite'
    or 'pgbouncer' (the same Postgres database, reached through PgBouncer in transaction mode)."""
    kind = getattr(request, "param", "postgres")
    url, engine = _engines["postgres" if kind == "pgbouncer" else kind]
    await clean(engine)
    return request.getfixturevalue("_pgbouncer") if kind == "pgbouncer" else url


# What `make test-fast` (`pytest --fast`) leaves out: the held-out set, the browser and the Node
# clients, the reliability, performance and tooling tests, the CLI and packaging tests (each a
# subprocess), and the second run of every test through PgBouncer. `make test` runs everything.
SLOW = (
    "heldout/",
    "reliability/",
    "perf/",
    "clients/",
    "devtools/",
    "web/test_browser_e2e.py",
    "test_cli.py",
    "test_packaging.py",
)
_TESTS = Path(__file__).resolve().parent


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--fast", action="store_true", help="the fast lane: leave out the slow tests (tests/conftest.py)")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if config.getoption("fast") and collection_path.is_relative_to(_TESTS):
        where = collection_path.relative_to(_TESTS).as_posix() + ("/" if collection_path.is_dir() else "")
        if where.startswith(SLOW):
            return True
    return None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Tests marked `through_pgbouncer` run twice: on Postgres directly and through PgBouncer (unless
    they choose their databases themselves, with a parametrization of `database`)."""
    marked = metafunc.definition.get_closest_marker("through_pgbouncer") is not None
    chosen = any("database" in str(m.args[0]) for m in metafunc.definition.iter_markers("parametrize"))
    if marked and not chosen and "database" in metafunc.fixturenames:
        kinds = ["postgres"] if metafunc.config.getoption("fast") else ["postgres", "pgbouncer"]
        metafunc.parametrize("database", kinds, indirect=True)


@pytest.fixture
async def make_client(database: str) -> AsyncIterator[MakeClient]:
    """`await make_client(llm)`: the app on the test database with `llm` as its model (support.api.MakeClient)."""
    stack = AsyncExitStack()

    async def factory(
        llm: ScriptedLLM | None = None, *, offline: bool = False, clock: Clock | None = None, **settings: Any
    ) -> AppClient:
        if offline:
            settings.setdefault("llm_api_key", None)
        app = create_app(
            make_settings(settings.pop("database_url", database), **settings),
            llm_transport=None if offline or llm is None else llm.transport,
            clock=clock or FixedClock(NOW),
            configure_logs=False,
        )
        await stack.enter_async_context(app.router.lifespan_context(app))
        return await stack.enter_async_context(AppClient(app))

    yield factory
    await stack.aclose()


# -- no secret in any log line -------------------------------------------------------------------
_SINK = LogSink()


def pytest_configure(config: pytest.Config) -> None:
    root = logging.getLogger()
    root.addHandler(_SINK)
    root.setLevel(min(root.level or logging.INFO, logging.INFO))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if any log line of the whole suite printed a secret it used: the JWT secret, the
    LLM key, or a bearer token (every JWT starts with the same encoded header)."""
    from support.api import TEST_SECRET

    secrets = (TEST_SECRET, "Bearer test-key", "eyJhbGciOiJIUzI1NiIs")
    leaks = [line[:200] for line in _SINK.lines if any(secret in line for secret in secrets)]
    if leaks and session.exitstatus == 0:
        print("\nsecrets found in log lines:\n" + "\n".join(leaks[:10]))
        session.exitstatus = 1
