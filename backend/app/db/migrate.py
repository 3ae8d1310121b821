"""`alembic upgrade head` from code: `taskchat migrate`, `taskchat serve` on SQLite, the MCP command
and the test suite all migrate through here."""

from __future__ import annotations

from pathlib import Path

from alembic.config import Config

from alembic import command


def alembic_config(database_url: str | None = None) -> Config:
    """Alembic's configuration: alembic.ini beside the package (a source checkout) or in the current
    directory (the image's /app), with `database_url` in place of DATABASE_URL when given."""
    for root in (Path(__file__).resolve().parents[3], Path.cwd()):
        ini = root / "alembic.ini"
        if ini.is_file() and (root / "alembic").is_dir():
            config = Config(str(ini))
            config.set_main_option("script_location", str(root / "alembic"))
            if database_url:
                config.attributes["database_url"] = database_url
            return config
    raise SystemExit("alembic.ini not found next to the package or in the current directory")


def migrate(database_url: str | None = None, *, quiet: bool = False) -> None:
    config = alembic_config(database_url)
    if quiet:
        config.attributes["configure_logger"] = False
    command.upgrade(config, "head")
