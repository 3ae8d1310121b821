"""The installed `taskchat` command: help, exit codes (0 ok, 1 failure, 2 usage, 130 interrupt)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from backend.app.core.config import Settings
from backend.app.core.security import decode_token

TASKCHAT = Path(sys.executable).with_name("taskchat")
SECRET = "cli-test-secret-0123456789-abcdefghijklmnop"


def run(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    return subprocess.run(
        [str(TASKCHAT), *args], cwd=cwd, env={**keep, **env}, capture_output=True, text=True, timeout=60
    )


def test_help_lists_every_command(tmp_path: Path) -> None:
    result = run("--help", cwd=tmp_path)
    assert result.returncode == 0
    for command in ("serve", "migrate", "token", "mcp"):
        assert command in result.stdout
    for command in ("serve", "migrate", "token", "mcp"):
        sub = run(command, "--help", cwd=tmp_path)
        assert sub.returncode == 0 and "usage: taskchat " + command in sub.stdout, command


def test_token_prints_a_jwt_that_validates(tmp_path: Path) -> None:
    result = run("token", "alice", "--minutes", "5", cwd=tmp_path, JWT_SECRET=SECRET)
    assert result.returncode == 0, result.stderr
    token = result.stdout.strip()
    claims = decode_token(token, settings=Settings(_env_file=None, jwt_secret=SECRET))
    assert claims["sub"] == "alice" and claims["exp"] - claims["iat"] == 300
    assert "zoneinfo" not in claims
    zoned = run("token", "alice", "--zoneinfo", "Europe/Paris", cwd=tmp_path, JWT_SECRET=SECRET).stdout.strip()
    assert decode_token(zoned, settings=Settings(_env_file=None, jwt_secret=SECRET))["zoneinfo"] == "Europe/Paris"


@pytest.mark.parametrize(
    "args",
    [("token",), ("token", "alice", "--minutes", "many"), ("frobnicate",), (), ("mcp",), ("mcp", "--user", "")],
)
def test_usage_errors_exit_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2, (args, result.stdout, result.stderr)
    assert "usage" in result.stderr or "--user" in result.stderr
    assert result.stdout == ""


def test_migrate_creates_the_tables(tmp_path: Path) -> None:
    db = tmp_path / "x.db"
    result = run("migrate", "--database-url", f"sqlite+aiosqlite:///{db}", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"tasks", "conversations", "messages", "tool_executions", "alembic_version"} <= tables
    again = run("migrate", "--database-url", f"sqlite+aiosqlite:///{db}", cwd=tmp_path)
    assert again.returncode == 0  # idempotent


def test_a_failure_exits_1(tmp_path: Path) -> None:
    result = run("migrate", "--database-url", f"sqlite+aiosqlite:///{tmp_path}/no/such/dir/x.db", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (None, 0)])
def test_mcp_exit_codes_interrupt_terminate_and_eof(tmp_path: Path, signum: signal.Signals | None, code: int) -> None:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}
    proc = subprocess.Popen(
        [str(TASKCHAT), "mcp", "--user", "alice", "--database-url", f"sqlite+aiosqlite:///{tmp_path}/i.db"],
        cwd=tmp_path,
        env=keep,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}) + "\n")
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 1  # it is serving
        if signum is None:
            proc.stdin.close()  # the client went away: a normal end
        else:
            proc.send_signal(signum)
        assert proc.wait(timeout=20) == code
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdin, proc.stdout, proc.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()


def test_prune_removes_deleted_tasks_past_retention_and_says_how_many(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'prune.db'}"
    assert run("migrate", "--database-url", url, cwd=tmp_path).returncode == 0
    with sqlite3.connect(tmp_path / "prune.db") as db:
        columns = "(id, user_id, title, description, status, priority, due_date, tags, version, created_at, updated_at"
        row = f"{columns}, deleted_at) VALUES (?, 'alice', 'Gym', NULL, 'pending', 'medium', NULL, '[]', 1, ?, ?, ?)"
        old, recent = "2020-01-01 00:00:00.000000+00:00", "2999-01-01 00:00:00.000000+00:00"
        db.execute(f"INSERT INTO deleted_tasks {row}", ("a" * 32, old, old, old))
        db.execute(f"INSERT INTO deleted_tasks {row}", ("b" * 32, old, old, recent))

    result = run("prune", "--database-url", url, cwd=tmp_path, UNDO_RETENTION_DAYS="30")

    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "deleted tasks past UNDO_RETENTION_DAYS: 1 removed",
        "idempotency keys past IDEMPOTENCY_TTL_HOURS: 0 removed",
        "rate-limit events out of the window: 0 removed",
        "model outcomes past ROUTING_WINDOW: 0 removed",
    ]
    with sqlite3.connect(tmp_path / "prune.db") as db:
        assert db.execute("SELECT count(*) FROM deleted_tasks").fetchone() == (1,)


@pytest.mark.parametrize("secret", ["a" * 32, " " * 32, "my-super-long-password-for-prod-2026"])
def test_a_refused_configuration_is_one_clean_line_and_exit_2(tmp_path: Path, secret: str) -> None:
    key = "sk-or-v1-" + "9f8e7d6c5b4a" * 4
    result = run(
        "serve",
        cwd=tmp_path,
        ENVIRONMENT="production",
        JWT_SECRET=secret,
        LLM_API_KEY=key,
        DATABASE_URL="sqlite+aiosqlite:///x.db",
    )

    assert result.returncode == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith("taskchat: configuration error: JWT_SECRET ")
    assert "Traceback" not in result.stderr and key not in result.stderr
    assert not secret.strip() or secret not in result.stderr  # the value is never echoed


@pytest.mark.parametrize("missing", ["tqdm", "backend.devtools"])
def test_bench_and_eval_without_the_development_extras_say_what_to_install(
    missing: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A runtime install (the image) has no backend/devtools and no tqdm: the commands are listed and
    say how to get them, exit code 2, no traceback."""
    from backend.app import cli

    for name in [m for m in sys.modules if m.startswith("backend.devtools")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, missing, None)  # importing it raises ModuleNotFoundError

    for command in ("bench", "eval"):
        assert cli.main([command, "--quick"]) == 2
        err = capsys.readouterr().err
        assert f"taskchat {command} needs the development extras ({missing} is not installed)" in err
        assert "pip install -e '.[dev]'" in err


def test_an_import_error_inside_the_app_is_not_taken_for_missing_extras(monkeypatch: pytest.MonkeyPatch) -> None:
    from backend.app import cli

    for name in [m for m in sys.modules if m.startswith("backend.devtools")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "backend.app.services.turn.history", None)  # the bench imports it

    with pytest.raises(ModuleNotFoundError):
        cli.build_parser()


def test_serve_parses_its_command_without_loading_the_app() -> None:
    """`taskchat serve`'s supervisor only starts and watches its workers (uvicorn imports the app in
    each worker): parsing its command line loads neither the development commands nor the app's
    turn, and `--help` still lists every command."""
    probe = (
        "import json, sys; from backend.app import cli; cli.build_parser('serve').parse_known_args(['serve']); "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('backend.', 'fastapi')))))"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    loaded = set(json.loads(result.stdout))
    assert loaded and loaded <= {"backend.app", "backend.app.cli", "backend.app.mcp", "backend.app.mcp.cli"}
    help_text = subprocess.run(
        [sys.executable, "-c", "from backend.app import cli; cli.main(['--help'])"], capture_output=True, text=True
    ).stdout
    assert "bench" in help_text and "eval" in help_text
