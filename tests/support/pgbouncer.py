"""A real PgBouncer in transaction pooling mode in front of the test Postgres, for the suite's session.

Debian's `pgbouncer` package is installed by scripts/ensure-postgres.sh, like Postgres itself; the
bouncer is started exactly as the benchmark starts it (`backend.devtools.bench.servers.pgbouncer`), on a
free loopback port, sending every database to the test Postgres.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from backend.devtools.bench.servers import pgbouncer as run_pgbouncer
from backend.devtools.bench.servers import pooled_url

# Pooled URL -> the Postgres URL behind it. make_settings turns DB_POOLER=transaction on for these;
# probes that look at the database from outside use the direct URL.
POOLED: dict[str, str] = {}


def direct(url: str) -> str:
    """The URL of the database itself, whether `url` reaches it directly or through the bouncer."""
    return POOLED.get(url, url)


@contextmanager
def pgbouncer(postgres_url: str) -> Iterator[str]:
    """Run a PgBouncer in front of `postgres_url` until the block ends; yields the pooled URL."""
    with run_pgbouncer(postgres_url) as bouncer:
        url = pooled_url(postgres_url, bouncer)
        POOLED[url] = postgres_url
        try:
            yield url
        finally:
            del POOLED[url]
