"""The processes a benchmark run starts: the fake model, Taskchat itself and PgBouncer, on loopback.

Taskchat runs exactly as in production (`taskchat serve --workers N`), pointed at the fake model
and at a benchmark database that this module creates and empties (never one without "bench" in
its name). PgBouncer (Debian's package) runs in transaction pooling mode; the test suite starts
its PgBouncer with `pgbouncer()` too.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from backend.app.db.session import delete_all_rows
from backend.devtools.bench.http import Connection, HttpError

JWT_SECRET = "bench-only-secret-0123456789abcdefghijklmnopqrstuvwxyz"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_ready(port: int, path: str, process: subprocess.Popen[bytes], *, timeout_s: float) -> None:
    async def probe() -> bool:
        conn = Connection("127.0.0.1", port, timeout_s=2)
        try:
            status, _ = await conn.request("GET", path)
            return status == 200
        except (OSError, HttpError, TimeoutError):
            return False
        finally:
            await conn.close()

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"process on port {port} exited with {process.returncode}")
        if asyncio.run(probe()):
            return
        time.sleep(0.2)
    raise RuntimeError(f"nothing answered 200 on 127.0.0.1:{port}{path} within {timeout_s:.0f} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@contextmanager
def fake_model(*, latency_ms: float, word_ms: float = 0.0) -> Iterator[str]:
    """Start the scripted fake model; yields its base URL (…/v1)."""
    port = free_port()
    command = [sys.executable, "-m", "backend.devtools.bench.fake_server", "--port", str(port)]
    timing = ["--latency-ms", str(latency_ms), "--word-ms", str(word_ms)]
    process = subprocess.Popen([*command, *timing], stdout=subprocess.DEVNULL)
    try:
        _wait_ready(port, "/health", process, timeout_s=30)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        _stop(process)


@dataclass(frozen=True, slots=True)
class AppConfig:
    database_url: str
    workers: int
    llm_base_url: str
    response_mode: str = "direct"
    extra_env: dict[str, str] = field(default_factory=dict)

    def env(self) -> dict[str, str]:
        """The settings a benchmarked Taskchat runs with, as environment variables (the served
        one's, and, as `Settings` fields, the in-process one's of bench/stages.py)."""
        return {
            "ENVIRONMENT": "development",
            "DATABASE_URL": self.database_url,
            "LLM_BASE_URL": self.llm_base_url,
            "LLM_API_KEY": "bench-key",
            "LLM_MODEL": "bench/fake-model",
            "LLM_PROVIDER": "bench",
            "JWT_SECRET": JWT_SECRET,
            "RESPONSE_MODE": self.response_mode,
            # One benchmark user sends far more than a person could; the limiter still runs its query.
            "RATE_LIMIT_PER_MINUTE": "100000000",
            **self.extra_env,
        }


@dataclass(frozen=True, slots=True)
class Server:
    port: int
    pid: int


@contextmanager
def taskchat(config: AppConfig) -> Iterator[Server]:
    """`taskchat serve` as a subprocess; yields its port and pid once /ready answers."""
    port = free_port()
    env = {**os.environ, **config.env()}
    command = [sys.executable, "-m", "backend.app.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(
        [*command, "--workers", str(config.workers)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_ready(port, "/ready", process, timeout_s=60)
        yield Server(port=port, pid=process.pid)
    finally:
        _stop(process)


@contextmanager
def floor(postgres_url: str, llm_base_url: str, *, workers: int) -> Iterator[Server]:
    """The stack's floor (bench/floor.py) under uvicorn, served as `taskchat serve` serves Taskchat
    (N workers, keep-alive 5 s, no access log), its tables made and emptied first; yields its port
    and pid once /ready answers."""
    dsn = make_url(postgres_url).set(drivername="postgresql").render_as_string(hide_password=False)
    asyncio.run(_floor_tables(dsn))
    port = free_port()
    env = {**os.environ, "FLOOR_DATABASE_URL": dsn, "FLOOR_MODEL_URL": llm_base_url, "FLOOR_JWT_SECRET": JWT_SECRET}
    command = [sys.executable, "-m", "uvicorn", "backend.devtools.bench.floor:app", "--host", "127.0.0.1"]
    options = ["--port", str(port), "--workers", str(workers), "--timeout-keep-alive", "5", "--no-access-log"]
    process = subprocess.Popen(
        [*command, *options, "--log-level", "warning"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_ready(port, "/ready", process, timeout_s=60)
        yield Server(port=port, pid=process.pid)
    finally:
        _stop(process)


async def _floor_tables(dsn: str) -> None:
    import asyncpg

    from backend.devtools.bench.floor import SCHEMA, TABLES

    connection = await asyncpg.connect(dsn)
    try:
        await connection.execute(SCHEMA)
        await connection.execute(f"TRUNCATE {', '.join(TABLES)}")
    finally:
        await connection.close()


PGBOUNCER_CONFIG = """\
[databases]
* = host={host} port={port}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {listen}
unix_socket_dir =
auth_type = trust
auth_file = {dir}/users.txt
pool_mode = transaction
max_client_conn = 1000
default_pool_size = {pool_size}
max_db_connections = {max_connections}
; Server connections then show as "taskchat - 127.0.0.1:port", apart from an app's direct ones.
application_name_add_host = 1
logfile = {dir}/pgbouncer.log
"""


def pgbouncer_binary() -> str:
    found = shutil.which("pgbouncer") or ("/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None)
    if not found:
        raise RuntimeError("pgbouncer is not installed: run `bash scripts/ensure-postgres.sh` (it installs it)")
    return found


@contextmanager
def pgbouncer(postgres_url: str, *, pool_size: int = 20, max_connections: int = 40) -> Iterator[Server]:
    """PgBouncer in transaction pooling mode in front of `postgres_url`'s server, trusting the loopback
    as the test cluster does. It refuses to run as root, so as root it drops to `postgres`."""
    target = make_url(postgres_url)
    listen = free_port()
    workdir = Path(tempfile.mkdtemp(prefix="taskchat-pgbouncer-"))
    workdir.chmod(0o755)  # readable by `postgres` when the bouncer drops root
    config = workdir / "pgbouncer.ini"
    config.write_text(
        PGBOUNCER_CONFIG.format(
            host=target.host or "127.0.0.1",
            port=target.port or 5432,
            listen=listen,
            dir=workdir,
            pool_size=pool_size,
            max_connections=max_connections,
        )
    )
    (workdir / "users.txt").write_text(f'"{target.username or "postgres"}" ""\n')
    command = [pgbouncer_binary(), str(config)]
    if os.geteuid() == 0:
        command[1:1] = ["-u", "postgres"]
        shutil.chown(workdir, "postgres")
    # Its log goes to the logfile only (`-q`); stderr goes to a file, never to a pipe: nobody reads
    # a pipe while the bouncer runs, and once its buffer is full every write, and so the bouncer and
    # every connection through it, blocks.
    stderr = (workdir / "stderr.log").open("wb")
    process = subprocess.Popen([*command[:-1], "-q", command[-1]], stdout=subprocess.DEVNULL, stderr=stderr)
    stderr.close()
    try:
        _wait_listening(listen, process, workdir / "pgbouncer.log")
        yield Server(port=listen, pid=process.pid)
    finally:
        _stop(process)
        shutil.rmtree(workdir, ignore_errors=True)


def pooled_url(postgres_url: str, bouncer: Server) -> str:
    """`postgres_url` reached through `bouncer` instead."""
    return make_url(postgres_url).set(host="127.0.0.1", port=bouncer.port).render_as_string(hide_password=False)


def _wait_listening(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stderr = _tail(log.with_name("stderr.log"))
            raise RuntimeError(f"pgbouncer exited with {process.returncode}: {stderr}{_tail(log)}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"pgbouncer did not listen on 127.0.0.1:{port} within 15 s")


def _tail(log: Path) -> str:
    return log.read_text()[-2000:] if log.exists() else ""


# -- CPU accounting (Linux /proc; None elsewhere) ----------------------------------------------
def _tree(root_pid: int) -> dict[int, tuple[int, int]] | None:
    """Every process of `root_pid`'s tree (it and its descendants): pid → (ppid, utime + stime)."""
    try:
        stats = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                stats[int(entry)] = (int(fields[1]), int(fields[11]) + int(fields[12]))  # ppid, utime + stime
    except OSError:
        return None
    tree = {root_pid}
    changed = True
    while changed:
        changed = False
        for pid, (ppid, _) in stats.items():
            if ppid in tree and pid not in tree:
                tree.add(pid)
                changed = True
    return {pid: stats[pid] for pid in tree if pid in stats}


def cpu_seconds(root_pid: int) -> float | None:
    """User + system CPU of a process and all its descendants (the server and its workers)."""
    tree = _tree(root_pid)
    if tree is None:
        return None
    return sum(ticks for _, ticks in tree.values()) / os.sysconf("SC_CLK_TCK")


def worker_rss_mb(root_pid: int) -> float | None:
    """The resident memory of the largest worker: of the server's Python children when it has any
    (`--workers N`: a supervisor and N workers), else of the server itself (one worker, in process)."""
    tree = _tree(root_pid)
    if tree is None:
        return None
    children = [pid for pid, (ppid, _) in tree.items() if ppid == root_pid and _is_python(pid)]
    sizes = [rss for pid in (children or [root_pid]) if (rss := _rss_kib(pid)) is not None]
    return round(max(sizes) / 1024, 1) if sizes else None


def _is_python(pid: int) -> bool:
    try:
        return "python" in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return False


def _rss_kib(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def machine_jiffies() -> tuple[int, int] | None:
    """(busy, total) CPU jiffies of the whole machine since boot."""
    try:
        values = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    except (OSError, ValueError, IndexError):
        return None
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    return sum(values) - idle, sum(values)


# -- databases ---------------------------------------------------------------------------------
async def prepare_postgres(url: str) -> None:
    """Create the benchmark database if needed, migrate it, and empty its tables."""
    parsed = make_url(url)
    name = parsed.database or ""
    if "bench" not in name:
        raise SystemExit(f"refusing to use database {name!r}: the benchmark empties it (name it *bench*)")
    await create_database(url)
    await asyncio.to_thread(_migrate, url)
    await empty(url)


async def create_database(url: str) -> None:
    """Create `url`'s database on its server when it does not exist (the tests' workers use it too)."""
    parsed = make_url(url)
    admin = create_async_engine(parsed.set(database="postgres"), isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            name = parsed.database or ""
            exists = await conn.scalar(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
            if not exists:
                await conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    finally:
        await admin.dispose()


def sqlite_url(directory: Path) -> str:
    return f"sqlite+aiosqlite:///{directory / 'taskchat-bench.db'}"


async def prepare_sqlite(url: str) -> None:
    await asyncio.to_thread(_migrate, url)
    await empty(url)


async def empty(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            await delete_all_rows(conn)
    finally:
        await engine.dispose()


def _migrate(url: str) -> None:
    from backend.app.db.migrate import migrate

    migrate(url, quiet=True)
