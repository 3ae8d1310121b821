"""Alembic environment: async engine on DATABASE_URL (or the URL passed by `taskchat migrate`)."""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from alembic import context
from backend.app.core.config import get_settings
from backend.app.db import models  # noqa: F401  (registers the tables on the metadata)
from backend.app.db.session import create_engine

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = SQLModel.metadata


def _url() -> str:
    return str(config.attributes.get("database_url") or get_settings().database_url)


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _run_sync(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_online() -> None:
    # The app's engine configuration, so DB_POOLER applies to migrations too, but without the session
    # limits (0 = none): building an index on a large table may take longer than any request should.
    unlimited = {"db_statement_timeout_ms": 0, "db_lock_timeout_ms": 0, "db_idle_in_transaction_timeout_ms": 0}
    engine = create_engine(get_settings().model_copy(update=unlimited), url=_url())
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run_sync)
            await connection.commit()
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(_run_online())
