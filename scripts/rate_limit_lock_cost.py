"""What the rate limit's per-user lock costs: `rate_limit.take` (lock + count-and-insert) against the
count-and-insert alone, sequentially, on TEST_DATABASE_URL (default the local test database). Prints the
median and p95 per call and the client CPU per call, twice each, interleaved."""

import asyncio
import os
import statistics
import time
import uuid
from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import async_sessionmaker, create_async_engine

from backend.app.db.repositories import rate_limit

URL = os.environ.get("TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test")


async def run(lock: bool, n=400):
    eng = create_async_engine(URL)
    sm = async_sessionmaker(eng)
    ts = []
    cpu0 = time.process_time()
    for i in range(n):
        async with sm() as s, s.begin():
            t = time.perf_counter()
            if lock:
                await rate_limit.take(s, user_id=f"bench{i % 4}", limit=10**6, now=datetime.now(UTC))
            else:
                params = {
                    "id": uuid.uuid4(),
                    "user_id": f"bench{i % 4}",
                    "since": datetime.now(UTC) - rate_limit.WINDOW,
                    "now": datetime.now(UTC),
                    "limit": 10**6,
                }
                (await s.execute(rate_limit._TAKE, params)).one()
            ts.append((time.perf_counter() - t) * 1000)
    cpu = (time.process_time() - cpu0) / n * 1000
    async with eng.begin() as c:
        await c.execute(sa.text("DELETE FROM rate_limit_events WHERE user_id LIKE 'bench%'"))
    await eng.dispose()
    return statistics.median(ts), sorted(ts)[int(n * 0.95)], cpu


async def main():
    for _ in range(2):
        for lock in (False, True):
            m, p95, cpu = await run(lock)
            print(f"lock={lock}: median {m:.3f} ms p95 {p95:.3f} ms, client CPU/op {cpu:.3f} ms")


asyncio.run(main())
