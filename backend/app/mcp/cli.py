"""`taskchat mcp --user USER_ID`: the task tools over MCP stdio, for desktop MCP clients.

stdout carries the protocol, so everything else (logs, migration output) goes to stderr.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from backend.app.core.config import Settings

MAX_USER_ID = 255  # the same bound the REST routes put on `{user_id}`
GRACE_S = 2.0  # for an in-flight tool call to roll back after a signal


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve the task tools over MCP (stdio) as USER_ID",
        description="Serve add_task, list_tasks, complete_task, delete_task and update_task over MCP on "
        "stdin/stdout, acting as USER_ID. Streamable HTTP is served by `taskchat serve` at /mcp.",
    )
    parser.add_argument("--user", required=True, metavar="USER_ID", help="every tool call acts as this user")
    parser.add_argument("--database-url", default=None, help="defaults to DATABASE_URL")
    parser.set_defaults(func=_cmd_mcp)


def valid_user_id(value: str) -> bool:
    return 0 < len(value) <= MAX_USER_ID and value.isprintable() and value.strip() == value


def _cmd_mcp(args: argparse.Namespace) -> int:
    import anyio

    from backend.app.core.config import get_settings
    from backend.app.core.logging import configure_logging
    from backend.app.db.migrate import migrate

    if not valid_user_id(args.user):
        print(f"taskchat mcp: --user must be 1..{MAX_USER_ID} printable characters", file=sys.stderr)
        return 2
    settings = get_settings()
    if args.database_url:
        settings = settings.model_copy(update={"database_url": args.database_url})
    configure_logging(settings.log_level, json=settings.log_json)  # stderr
    logging.getLogger("alembic").setLevel(logging.WARNING)  # a client shows stderr; migration chatter is noise
    if settings.is_sqlite:
        migrate(settings.database_url, quiet=True)  # the embedded default just works, as with `serve`
    signum = anyio.run(_serve, settings, args.user)
    return 128 + signum if signum else 0  # 130 after Ctrl-C, 143 after SIGTERM, as shells report them


async def _serve(settings: Settings, user_id: str) -> int | None:
    """Serve until stdin closes (None) or SIGINT/SIGTERM arrives (its number)."""
    import anyio
    from mcp.server.stdio import stdio_server

    from backend.app.core.clock import NO_ZONE_NAMES, SystemClock
    from backend.app.db.repositories.preferences import user_clock
    from backend.app.db.session import create_engine, create_sessionmaker
    from backend.app.mcp.server import Caller, build_server
    from backend.app.tools.factory import task_tools_factory

    engine = create_engine(settings)
    try:
        sessionmaker = create_sessionmaker(engine)
        tools_for_user = task_tools_factory(settings=settings, sessionmaker=sessionmaker, clock=SystemClock())
        # The user's zone as stored (or DEFAULT_TIME_ZONE), read once: stdio carries no header or token.
        names, default = NO_ZONE_NAMES, settings.default_time_zone
        clock = await user_clock(sessionmaker, SystemClock(), user_id, names, default=default)
        caller = Caller(user_id=user_id, clock=clock)
        server = build_server(identify=lambda _ctx: caller, tools_for_user=tools_for_user)
        stopped_by: int | None = None
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async with anyio.create_task_group() as tg:

                async def stop_on_signal() -> None:
                    nonlocal stopped_by
                    async for signum in signals:
                        stopped_by = int(signum)
                        tg.cancel_scope.cancel()  # an in-flight tool call rolls back
                        # The SDK reads stdin in a worker thread that returns only on input or EOF, so
                        # while the client holds the pipe open the cancelled server cannot finish
                        # unwinding: after a moment for the rollback, leave anyway.
                        watchdog = threading.Timer(GRACE_S, os._exit, args=(128 + stopped_by,))
                        watchdog.daemon = True
                        watchdog.start()
                        return

                tg.start_soon(stop_on_signal)
                async with stdio_server() as (read_stream, write_stream):
                    await server.run(read_stream, write_stream, server.create_initialization_options())
                tg.cancel_scope.cancel()
        return stopped_by
    finally:
        await engine.dispose()
