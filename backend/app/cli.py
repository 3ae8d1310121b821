"""The `taskchat` command: serve, migrate, token, mcp, eval, bench."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


def _alembic_config(database_url: str | None = None):  # type: ignore[no-untyped-def]
    from alembic.config import Config

    for root in (Path(__file__).resolve().parents[2], Path.cwd()):
        ini = root / "alembic.ini"
        if ini.is_file() and (root / "alembic").is_dir():
            config = Config(str(ini))
            config.set_main_option("script_location", str(root / "alembic"))
            if database_url:
                config.attributes["database_url"] = database_url
            return config
    raise SystemExit("alembic.ini not found next to the package or in the current directory")


def migrate(database_url: str | None = None, *, quiet: bool = False) -> None:
    from alembic import command

    config = _alembic_config(database_url)
    if quiet:
        config.attributes["configure_logger"] = False
    command.upgrade(config, "head")


def _cmd_migrate(args: argparse.Namespace) -> int:
    migrate(args.database_url)
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from backend.app.core.config import get_settings

    settings = get_settings()
    if settings.is_sqlite:
        migrate()  # the embedded default migrates itself so `taskchat serve` just works
    uvicorn.run(
        "backend.app.main:create_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        limit_concurrency=args.limit_concurrency,
        backlog=args.backlog,
        timeout_keep_alive=5,
        log_level=settings.log_level.lower(),
        access_log=False,
    )
    return 0


def _cmd_token(args: argparse.Namespace) -> int:
    from backend.app.core.config import get_settings
    from backend.app.core.security import create_token

    settings = get_settings()
    if args.minutes > settings.jwt_max_lifetime_minutes:
        print(
            f"--minutes may be at most JWT_MAX_LIFETIME_MINUTES ({settings.jwt_max_lifetime_minutes})", file=sys.stderr
        )
        return 2
    print(create_token(settings=settings, user_id=args.user_id, minutes=args.minutes))
    return 0


def _cmd_prune(args: argparse.Namespace) -> int:
    """Remove what is past retention and say what was removed."""
    import asyncio

    from backend.app.core.config import get_settings
    from backend.app.services.maintenance import prune

    settings = get_settings()
    if args.database_url:
        settings = settings.model_copy(update={"database_url": args.database_url})
    removed = asyncio.run(prune(settings))
    for what, count in removed.items():
        print(f"{what}: {count} removed")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="taskchat", description="Taskchat: a chat backend for a to-do app.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="serve the API (migrates first on the embedded SQLite default)")
    serve.add_argument("--host", default=os.environ.get("HOST", "127.0.0.1"))
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    serve.add_argument("--workers", type=int, default=int(os.environ.get("WEB_CONCURRENCY", "1")))
    serve.add_argument(
        "--limit-concurrency", type=int, default=200, help="connections beyond this get 503 from uvicorn (default 200)"
    )
    serve.add_argument("--backlog", type=int, default=512)
    serve.set_defaults(func=_cmd_serve)

    mig = sub.add_parser("migrate", help="alembic upgrade head on DATABASE_URL")
    mig.add_argument("--database-url", default=None, help="defaults to DATABASE_URL")
    mig.set_defaults(func=_cmd_migrate)

    token = sub.add_parser("token", help="print a signed development JWT for USER_ID")
    token.add_argument("user_id")
    token.add_argument("--minutes", type=int, default=60)
    token.set_defaults(func=_cmd_token)

    prune = sub.add_parser("prune", help="remove what is past retention (deleted tasks) and print what was removed")
    prune.add_argument("--database-url", default=None, help="defaults to DATABASE_URL")
    prune.set_defaults(func=_cmd_prune)

    for extra in _extra_commands():
        extra(sub)
    return parser


def _extra_commands() -> list[Callable[[Any], None]]:
    """Subcommands that live in their own modules (mcp, eval, bench), registered if present."""
    found: list[Callable[[Any], None]] = []
    for module in ("backend.app.mcp.cli", "backend.app.evals.cli", "backend.app.bench.cli"):
        try:
            found.append(__import__(module, fromlist=["register"]).register)
        except ModuleNotFoundError as exc:
            if not (exc.name and module.startswith(exc.name)):
                raise  # a real import error inside an existing command module
    return found


def main(argv: Sequence[str] | None = None) -> int:
    from backend.app.core.config import ConfigurationError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ConfigurationError as exc:
        for problem in exc.problems:  # one line each, no traceback, no value of any setting
            print(f"taskchat: configuration error: {problem}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
