"""Whether an exception means the database cannot be reached (as opposed to a bug or a bad query):
the API answers those with 503 and `Retry-After`, never 500 (`api/errors.py`)."""

from __future__ import annotations

import asyncpg
from sqlalchemy import exc as sa_exc


class NotAnswering(Exception):
    """The database took a connection or a statement and gave no answer in time (DB_CONNECT_TIMEOUT_S;
    the statement timeout and a margin): a stalled server or network, as out of reach as a refused
    one. Raised from the driver's own timeout where the engine meets it (`db/session.py`,
    `db/driver.py`); a bare TimeoutError says nothing of where it came from."""


# Refused or reset connections, an unknown host (OSError, but not a timeout: other waits time out
# too), a server shutting down or starting (class 57P, 08), a connection that died mid-statement,
# a server that does not answer, and the pool giving up waiting for a connection.
_UNREACHABLE: tuple[type[BaseException], ...] = (
    NotAnswering,
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CrashShutdownError,
    asyncpg.exceptions.ConnectionDoesNotExistError,
    asyncpg.exceptions.TooManyConnectionsError,
    sa_exc.TimeoutError,
)


# What a database failure is raised as (the API's handler for these decides 503 or 500).
DATABASE_ERRORS: tuple[type[Exception], ...] = (
    sa_exc.DBAPIError,
    sa_exc.TimeoutError,
    asyncpg.PostgresError,
    OSError,
    NotAnswering,
)


def unreachable(error: BaseException) -> bool:
    """Whether `error`, or what caused it, says the database is out of reach."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, _UNREACHABLE) or (
            isinstance(current, OSError) and not isinstance(current, TimeoutError)
        ):
            return True
        if isinstance(current, sa_exc.DBAPIError) and current.connection_invalidated:
            return True
        current = current.__cause__ or current.__context__
    return False
