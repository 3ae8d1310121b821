"""`taskchat mcp --user alice` over stdio, spawned the way a desktop MCP client spawns it."""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client
from support.db import migrate_sqlite

from backend.app.tools.registry import TOOLS

ROOT = Path(__file__).resolve().parents[2]
TASKCHAT = ROOT / ".venv" / "bin" / "taskchat"


async def test_stdio_lists_tools_and_adds_a_task_for_its_user(tmp_path: Path) -> None:
    db = tmp_path / "stdio.db"
    await migrate_sqlite(f"sqlite+aiosqlite:///{db}")
    params = StdioServerParameters(
        command=str(TASKCHAT if TASKCHAT.exists() else Path(sys.executable).with_name("taskchat")),
        args=["mcp", "--user", "alice"],
        env={"DATABASE_URL": f"sqlite+aiosqlite:///{db}", "LLM_API_KEY": "", "LOG_LEVEL": "WARNING"},
        cwd=tmp_path,  # no stray .env from the working directory
    )
    errlog = (tmp_path / "stderr.log").open("w")
    try:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            info = await session.initialize()
            assert info.server_info.name == "taskchat"
            assert [t.name for t in (await session.list_tools()).tools] == list(TOOLS)

            added = await session.call_tool("add_task", {"title": "Buy milk", "tags": "shopping", "user_id": "bob"})
            assert not added.is_error, added
            assert added.structured_content["data"]["tags"] == ["shopping"]
            listed = await session.call_tool("list_tasks", {})
            assert [t["title"] for t in listed.structured_content["data"]["tasks"]] == ["Buy milk"]
    finally:
        errlog.close()

    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT user_id, title, tags FROM tasks").fetchall()
    assert rows == [("alice", "Buy milk", '["shopping"]')]  # the owner is --user, never an argument


async def test_stdio_refuses_a_bad_user_with_usage_exit_code(tmp_path: Path) -> None:
    proc = await asyncio.create_subprocess_exec(
        str(TASKCHAT), "mcp", "--user", "bad\nuser", cwd=tmp_path, stderr=asyncio.subprocess.PIPE
    )
    _, stderr = await proc.communicate()
    assert proc.returncode == 2
    assert b"--user" in stderr


async def test_stdio_reads_dates_in_the_users_stored_time_zone(tmp_path: Path) -> None:
    """stdio carries no header or token: the zone the user stored is read when the server starts. A zone
    is picked whose date differs from UTC's right now (UTC+14 from 10:00 UTC, else UTC-11), so the
    refusal of a past date naming "today" shows which clock was read."""
    from datetime import UTC, datetime, timedelta
    from zoneinfo import ZoneInfo

    db = tmp_path / "stdio.db"
    await migrate_sqlite(f"sqlite+aiosqlite:///{db}")
    zone = "Pacific/Kiritimati" if datetime.now(UTC).hour >= 10 else "Pacific/Pago_Pago"
    with sqlite3.connect(db) as conn:
        conn.execute(
            "INSERT INTO user_preferences (user_id, time_zone, updated_at) VALUES ('alice', ?, ?)",
            (zone, datetime.now(UTC).isoformat()),
        )
    params = StdioServerParameters(
        command=str(TASKCHAT if TASKCHAT.exists() else Path(sys.executable).with_name("taskchat")),
        args=["mcp", "--user", "alice"],
        env={"DATABASE_URL": f"sqlite+aiosqlite:///{db}", "LLM_API_KEY": "", "LOG_LEVEL": "WARNING"},
        cwd=tmp_path,
    )
    errlog = (tmp_path / "stderr.log").open("w")
    try:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            refused = await session.call_tool("add_task", {"title": "Old", "due_date": "2000-01-01"})
    finally:
        errlog.close()

    local = datetime.now(ZoneInfo(zone)).date()
    error = str(refused.structured_content["error"])
    assert refused.is_error and any(f"today is {d.isoformat()}" in error for d in (local, local - timedelta(days=1)))
    assert f"today is {datetime.now(UTC).date().isoformat()}" not in error
