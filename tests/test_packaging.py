"""docker-compose.yml, the Dockerfile, .env.example and the locks, checked as far as this machine allows
(no Docker engine runs here): structure, `docker-compose config`, and the image's own install and
migrate commands run for real in a temporary directory."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CONTRACT_SETTINGS = [
    "DATABASE_URL",
    "LLM_BASE_URL",
    "LLM_API_KEY",
    "LLM_MODEL",
    "JWT_SECRET",
    "JWT_AUDIENCE",
    "JWT_ISSUER",
    "TOOL_POLICY",
    "ENVIRONMENT",
    "BUDGET_MAX_LLM_CALLS",
    "BUDGET_MAX_TOOL_CALLS",
    "BUDGET_MAX_LATENCY_MS",
    "BUDGET_MAX_TOKENS",
    "BUDGET_MAX_COST_USD",
    "RESPONSE_MODE",
    "APPLY_MODE",
    "RATE_LIMIT_PER_MINUTE",
]


def compose() -> dict:  # type: ignore[type-arg]
    return dict(yaml.safe_load((ROOT / "docker-compose.yml").read_text()))


def test_compose_structure() -> None:
    services = compose()["services"]
    assert services["db"]["healthcheck"]["test"]
    assert services["migrate"]["command"] == ["taskchat", "migrate"]
    assert services["migrate"]["depends_on"]["db"]["condition"] == "service_healthy"
    assert services["api"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert services["api"]["ports"] == ["127.0.0.1:8000:8000"]
    assert services["api"]["environment"]["DATABASE_URL"].startswith("postgresql+asyncpg://")
    assert "${JWT_SECRET:?" in services["api"]["environment"]["JWT_SECRET"]


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="Debian's docker-compose is not installed")
def test_docker_compose_config_validates() -> None:
    env = {**os.environ, "JWT_SECRET": "x" * 40}
    result = subprocess.run(
        ["docker-compose", "-f", "docker-compose.yml", "config"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "service_completed_successfully" in result.stdout
    missing = subprocess.run(
        ["docker-compose", "-f", "docker-compose.yml", "config"],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k != "JWT_SECRET"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode != 0  # production secrets are required, not defaulted


def test_dockerfile_installs_from_the_lock_and_runs_unprivileged() -> None:
    lines = [line.strip() for line in (ROOT / "Dockerfile").read_text().splitlines()]
    assert "RUN pip install -r requirements.lock" in lines
    assert any(line.startswith("USER ") and "root" not in line for line in lines)
    assert lines[-1] == 'CMD ["taskchat", "serve", "--host", "0.0.0.0", "--port", "8000"]'


def test_image_install_and_migrate_commands_work(tmp_path: Path) -> None:
    """What the Dockerfile does: copy the sources, `pip install --no-deps .`, `taskchat migrate`."""
    app = tmp_path / "app"
    app.mkdir()
    for name in ("pyproject.toml", "alembic.ini"):
        shutil.copy(ROOT / name, app / name)
    for name in ("alembic", "backend"):
        shutil.copytree(ROOT / name, app / name, ignore=shutil.ignore_patterns("__pycache__"))
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(site), "."],
        cwd=app,
        check=True,
        timeout=300,
    )
    shutil.rmtree(app / "backend")  # the image runs the installed package, not the source tree
    db = tmp_path / "image.db"
    env = {**os.environ, "PYTHONPATH": str(site), "DATABASE_URL": f"sqlite+aiosqlite:///{db}"}
    result = subprocess.run(
        [sys.executable, "-c", "from backend.app.cli import main; raise SystemExit(main())", "migrate"],
        cwd=app,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert db.exists() and db.stat().st_size > 0


def test_env_example_names_every_contract_setting() -> None:
    names = {
        line.split("=", 1)[0]
        for line in (ROOT / ".env.example").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    }
    assert set(CONTRACT_SETTINGS) <= names


def test_locks_agree() -> None:
    def pins(name: str) -> dict[str, str]:
        found = {}
        for line in (ROOT / name).read_text().splitlines():
            if "==" in line and not line.startswith((" ", "#")):
                package, version = line.split("==", 1)
                found[package.strip().lower()] = version.split()[0]
        return found

    runtime, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    assert runtime
    assert {p: v for p, v in dev.items() if p in runtime} == runtime


def test_ci_calls_make_test() -> None:
    assert "make test" in (ROOT / ".ci" / "run").read_text()
