"""The `taskchat` command: serve, migrate, token, mcp, eval, bench."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any


def _cmd_migrate(args: argparse.Namespace) -> int:
    from backend.app.db.migrate import migrate

    migrate(args.database_url)
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from backend.app.core.config import CHECKED_SECRET_ENV, checked_mark, get_settings
    from backend.app.db.migrate import migrate

    settings = get_settings()
    if settings.environment == "production" and settings.jwt_secret:
        os.environ[CHECKED_SECRET_ENV] = checked_mark(settings.jwt_secret)  # checked: the workers need not
    if settings.is_sqlite:
        migrate()  # the embedded default migrates itself so `taskchat serve` just works
    uvicorn.run(
        "backend.app.main:create_served_app",
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
    print(create_token(settings=settings, user_id=args.user_id, minutes=args.minutes, zoneinfo=args.zoneinfo))
    return 0


def _cmd_prune(args: argparse.Namespace) -> int:
    """Remove what is past retention and say what was removed."""
    import asyncio

    from backend.app.core.config import get_settings
    from backend.app.services.user_data.maintenance import prune

    settings = get_settings()
    if args.database_url:
        settings = settings.model_copy(update={"database_url": args.database_url})
    removed = asyncio.run(prune(settings))
    for what, count in removed.items():
        print(f"{what}: {count} removed")
    return 0


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser. A development command's module (it imports much of the app) is
    loaded only when `command` is that command, or None (help): `taskchat serve`'s supervisor, which
    only starts and watches its workers, imports no more than it needs."""
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
    token.add_argument("--zoneinfo", help="the user's IANA time zone as the token's OpenID Connect `zoneinfo` claim")
    token.set_defaults(func=_cmd_token)

    prune = sub.add_parser("prune", help="remove what is past retention (deleted tasks) and print what was removed")
    prune.add_argument("--database-url", default=None, help="defaults to DATABASE_URL")
    prune.set_defaults(func=_cmd_prune)

    _register_mcp(sub)
    for name, (module, purpose) in DEV_COMMANDS.items():
        if command in (None, name):
            _register_dev_command(sub, name, module, purpose)
        else:
            sub.add_parser(name, help=purpose)  # named in the help; another command is running
    return parser


# Development tooling (backend/devtools, the `dev` extras): registered when importable.
DEV_COMMANDS = {
    "eval": ("backend.devtools.evals.cli", "live eval of a model driving the tools (docs/eval.md)"),
    "bench": ("backend.devtools.bench.cli", "the performance benchmark (fake model on loopback)"),
}


def _register_mcp(sub: Any) -> None:
    from backend.app.mcp.cli import register

    register(sub)


def _register_dev_command(sub: Any, name: str, module: str, purpose: str) -> None:
    """The command from its module; without the development extras, a command that says what to
    install. A module of the app that fails to import is a bug, and raises."""
    try:
        register: Callable[[Any], None] = importlib.import_module(module).register
    except ModuleNotFoundError as exc:
        missing = exc.name or ""
        if missing.startswith("backend.devtools"):
            missing = "backend.devtools"  # a runtime install: the package left out of the wheel
        elif missing.startswith("backend."):
            raise
        stub = sub.add_parser(name, help=f"{purpose} (needs the development extras)", add_help=False)
        stub.set_defaults(func=lambda _args: _needs_dev_extras(name, missing), any_arguments=True)
        return
    register(sub)


def _needs_dev_extras(name: str, missing: str) -> int:
    print(
        f"taskchat {name} needs the development extras ({missing} is not installed): "
        "pip install -e '.[dev]' (or make install)",
        file=sys.stderr,
    )
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    from backend.app.core.config import ConfigurationError

    given = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(next((a for a in given if not a.startswith("-")), None))
    args, unknown = parser.parse_known_args(given)
    if unknown and not getattr(args, "any_arguments", False):
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
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
