"""Packaging, checked as far as this machine allows (no Docker engine runs here): docker-compose.yml's
structure and `docker-compose config`, the Dockerfile (parsed, and its install + migrate commands run
for real in a temporary directory), .env.example against the contract's settings, the two locks
against each other and pyproject.toml, the Makefile's test sequence and the CI entry point."""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]

# The settings table of the public contract (/work/shared/CONTRACT.md): names that must stay.
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
SERVE_CMD = ["taskchat", "serve", "--host", "0.0.0.0", "--port", "8000"]
STRONG_SECRET = "k" * 48


# --- docker-compose.yml -------------------------------------------------------------------------


def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict)
    return data


def command_of(service: dict[str, Any]) -> list[str]:
    command = service.get("command", [])
    return shlex.split(command) if isinstance(command, str) else list(command)


def environment_of(service: dict[str, Any]) -> dict[str, Any]:
    env = service.get("environment", {})
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, None) for item in env)
    assert isinstance(env, dict)
    return env


def test_compose_uses_the_compose_specification() -> None:
    data = compose()
    assert "version" not in data
    assert set(data["services"]) >= {"db", "migrate", "api"}


def test_compose_db_is_postgres_with_a_healthcheck_and_a_named_volume() -> None:
    data = compose()
    db = data["services"]["db"]
    assert str(db["image"]).startswith("postgres:16")
    assert db["environment"]["POSTGRES_USER"] == "taskchat"
    assert db["environment"]["POSTGRES_DB"] == "taskchat"
    assert "POSTGRES_PASSWORD" in db["environment"]
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    volume = db["volumes"][0].split(":", 1)[0]
    assert volume in data["volumes"]
    assert "ports" not in db  # the database is reachable from the compose network only


def test_compose_migrate_runs_once_the_database_is_healthy() -> None:
    migrate = compose()["services"]["migrate"]
    assert migrate["build"] == "."
    assert command_of(migrate) == ["taskchat", "migrate"]
    assert migrate["depends_on"]["db"]["condition"] == "service_healthy"
    assert environment_of(migrate)["DATABASE_URL"].startswith("postgresql+asyncpg://")
    assert "@db:5432/" in environment_of(migrate)["DATABASE_URL"]


def test_compose_api_starts_after_the_migrations_on_loopback_only() -> None:
    api = compose()["services"]["api"]
    assert api["build"] == "."
    assert api["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert api["depends_on"]["db"]["condition"] == "service_healthy"
    assert api["ports"] == ["127.0.0.1:8000:8000"]
    assert command_of(api) in ([], SERVE_CMD)  # the image's CMD


def test_compose_api_environment_is_production_with_a_required_secret() -> None:
    services = compose()["services"]
    env = environment_of(services["api"])
    assert env["DATABASE_URL"].startswith("postgresql+asyncpg://taskchat:")
    assert env["ENVIRONMENT"] == "production"
    assert str(env["JWT_SECRET"]).startswith("${JWT_SECRET:?")  # no default: compose refuses to start
    # Every contract setting reaches the container (passed through from the shell or ./.env).
    assert set(CONTRACT_SETTINGS) <= set(env)
    assert environment_of(services["migrate"]) == env  # migrations see the same database and secrets


def compose_command() -> list[str] | None:
    if shutil.which("docker-compose"):
        return ["docker-compose"]
    if shutil.which("docker"):
        probe = subprocess.run(["docker", "compose", "version"], capture_output=True, timeout=30, check=False)
        if probe.returncode == 0:
            return ["docker", "compose"]
    return None


def compose_config(tmp_path: Path, env_file: str, *options: str, **env: str) -> subprocess.CompletedProcess[str]:
    """`docker-compose [options] config` with only `env` and `env_file` as settings (not this shell's,
    not ./.env)."""
    command = compose_command()
    assert command is not None
    dotenv = tmp_path / "compose.env"
    dotenv.write_text(env_file)
    clean = {k: v for k, v in os.environ.items() if k not in CONTRACT_SETTINGS and not k.startswith("COMPOSE_")}
    return subprocess.run(
        [*command, "--env-file", str(dotenv), "-f", str(ROOT / "docker-compose.yml"), *options, "config"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


requires_compose = pytest.mark.skipif(
    compose_command() is None,
    reason="neither docker-compose nor `docker compose` is installed (scripts/ensure-postgres.sh installs "
    "Debian's docker-compose when apt can); the structure tests above still ran",
)


@requires_compose
def test_docker_compose_config_validates(tmp_path: Path) -> None:
    result = compose_config(tmp_path, "", JWT_SECRET=STRONG_SECRET)
    assert result.returncode == 0, result.stderr
    rendered = yaml.safe_load(result.stdout)
    api = rendered["services"]["api"]
    assert api["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert environment_of(api)["JWT_SECRET"] == STRONG_SECRET


def test_compose_passes_every_setting_of_the_application_through() -> None:
    from backend.app.core.config import Settings

    env = environment_of(compose()["services"]["api"])
    every = {name.upper() for name in Settings.model_fields} | {"OPENROUTER_API_KEY"}
    assert every - set(env) == set()


@requires_compose
def test_the_dev_override_gives_a_development_stack(tmp_path: Path) -> None:
    command = compose_command()
    assert command is not None
    files = ["-f", str(ROOT / "docker-compose.yml"), "-f", str(ROOT / "docker-compose.dev.yml")]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("COMPOSE_")}
    result = subprocess.run(
        [*command, *files, "config"],
        cwd=tmp_path,
        env={**clean, "JWT_SECRET": "dev"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    assert environment_of(services["api"])["ENVIRONMENT"] == "development"
    assert environment_of(services["migrate"])["ENVIRONMENT"] == "development"


@requires_compose
def test_docker_compose_config_refuses_a_missing_jwt_secret(tmp_path: Path) -> None:
    result = compose_config(tmp_path, "")
    assert result.returncode != 0
    assert "JWT_SECRET" in result.stdout + result.stderr


@requires_compose
def test_docker_compose_passes_settings_through_from_the_env_file(tmp_path: Path) -> None:
    result = compose_config(tmp_path, f"JWT_SECRET={STRONG_SECRET}\nRESPONSE_MODE=model\nENVIRONMENT=development\n")
    assert result.returncode == 0, result.stderr
    env = environment_of(yaml.safe_load(result.stdout)["services"]["api"])
    assert env["JWT_SECRET"] == STRONG_SECRET
    assert env["RESPONSE_MODE"] == "model"
    assert env["ENVIRONMENT"] == "production"  # the stack is production whatever .env says
    assert not env.get("JWT_AUDIENCE")  # unset stays unset: the application's default applies


# --- the `scale` profile: replicas behind HAProxy, through PgBouncer -----------------------------
SCALE = ("pgbouncer", "api-replica", "proxy")


def test_the_scale_profile_is_opt_in() -> None:
    services = compose()["services"]
    assert all(services[name]["profiles"] == ["scale"] for name in SCALE)
    assert all("profiles" not in services[name] for name in ("db", "migrate", "api"))  # `up` stays as it was


@requires_compose
def test_the_scale_profile_runs_replicas_behind_haproxy_through_pgbouncer(tmp_path: Path) -> None:
    result = compose_config(tmp_path, "", "--profile", "scale", JWT_SECRET=STRONG_SECRET)
    assert result.returncode == 0, result.stderr
    services = yaml.safe_load(result.stdout)["services"]
    assert set(SCALE) <= set(services)

    replica = services["api-replica"]
    env = environment_of(replica)
    url = make_url(env["DATABASE_URL"])
    assert (url.host, url.port, env["DB_POOLER"], env["ENVIRONMENT"]) == (
        "pgbouncer",
        6432,
        "transaction",
        "production",
    )
    assert env["JWT_SECRET"] == STRONG_SECRET
    assert set(environment_of(services["api"])) <= set(env)  # every setting passes through here too
    assert replica["deploy"]["replicas"] >= 2 and "ports" not in replica  # reached through the proxy only
    assert replica["depends_on"]["migrate"]["condition"] == "service_completed_successfully"

    proxy = services["proxy"]
    assert proxy["image"].startswith("haproxy:")
    [port] = proxy["ports"]
    published = port if isinstance(port, str) else f"{port['host_ip']}:{port['published']}:{port['target']}"
    assert published.removesuffix("/tcp") == "127.0.0.1:8080:8080"  # loopback only, as the api's
    [mount] = proxy["volumes"]
    source = mount["source"] if isinstance(mount, dict) else mount.split(":")[0]
    assert Path(source).resolve() == (ROOT / "deploy/haproxy/haproxy.cfg").resolve()
    proxy_env = environment_of(proxy)
    lines = (ROOT / "deploy/haproxy/haproxy.cfg").read_text().splitlines()
    used = {name for line in lines if not line.lstrip().startswith("#") for name in re.findall(r"\$\{(\w+)\}", line)}
    assert used and used <= set(proxy_env)  # every variable the proxy's configuration reads is given
    assert proxy_env["API_SERVICE"] == "api-replica" and proxy_env["API_PORT"] == "8000"


def test_the_scale_profiles_pgbouncer_pools_transactions_for_the_apps_database() -> None:
    ini = configparser.ConfigParser(comment_prefixes=(";", "#"))
    ini.read(ROOT / "deploy/pgbouncer/pgbouncer.ini")
    assert ini["pgbouncer"]["pool_mode"] == "transaction"  # what DB_POOLER=transaction is for
    url = make_url(environment_of(compose()["services"]["api-replica"])["DATABASE_URL"])
    target = dict(part.split("=") for part in ini["databases"][url.database or ""].split())
    assert (target["host"], target["port"], target["dbname"]) == ("db", "5432", url.database)
    assert int(ini["pgbouncer"]["listen_port"]) == url.port
    users = (ROOT / "deploy/pgbouncer/userlist.txt").read_text().split()
    assert users == [f'"{url.username}"', f'"{url.password}"']
    assert int(ini["pgbouncer"]["default_pool_size"]) <= int(ini["pgbouncer"]["max_db_connections"]) < 100


# --- Dockerfile -----------------------------------------------------------------------------------


def dockerfile() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in (ROOT / "Dockerfile").read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        keyword, _, args = line.partition(" ")
        instructions.append((keyword.upper(), args.strip()))
    return instructions


def test_dockerfile_builds_from_python_311_slim() -> None:
    assert dockerfile()[0] == ("FROM", "python:3.11-slim")


def test_dockerfile_installs_from_the_lock_then_the_package_without_deps() -> None:
    runs = [args for keyword, args in dockerfile() if keyword == "RUN"]
    lock_install = [r for r in runs if "pip install" in r and "-r requirements.lock" in r]
    assert lock_install and "--no-cache-dir" in lock_install[0]
    assert any("pip install" in r and "--no-deps ." in r for r in runs)
    copied = " ".join(args for keyword, args in dockerfile() if keyword == "COPY")
    for name in ("requirements.lock", "pyproject.toml", "alembic.ini", "alembic", "backend"):
        assert name in copied.split(), name


def test_dockerfile_runs_unprivileged_in_production() -> None:
    instructions = dockerfile()
    keywords = [keyword for keyword, _ in instructions]
    users = [args for keyword, args in instructions if keyword == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    last_user = len(keywords) - 1 - keywords[::-1].index("USER")
    assert "RUN" not in keywords[last_user:]  # nothing after the switch needs root
    env = " ".join(args for keyword, args in instructions if keyword == "ENV")
    assert "ENVIRONMENT=production" in env.split()
    assert ("EXPOSE", "8000") in instructions


def test_dockerfile_healthcheck_and_cmd() -> None:
    instructions = dockerfile()
    healthchecks = [args for keyword, args in instructions if keyword == "HEALTHCHECK"]
    # Healthy means ready to serve: the readiness check, which reaches the database (/health only says
    # the process is up). HAProxy's check of the replicas is the same.
    assert healthchecks and "urllib" in healthchecks[0] and "/ready'" in healthchecks[0]
    haproxy = (ROOT / "deploy" / "haproxy" / "haproxy.cfg").read_text(encoding="utf-8")
    assert "option httpchk GET /ready" in haproxy
    keyword, args = instructions[-1]
    assert keyword == "CMD"
    assert json.loads(args) == SERVE_CMD


def test_dockerignore_keeps_local_state_out_of_the_build_context() -> None:
    patterns = {line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()}
    assert {".git", ".env", "reports"} <= patterns
    assert patterns & {".venv", ".venv*"}
    assert patterns & {"*.db", "**/*.db"}


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
    # The installed package only: this interpreter also has the source tree installed in editable
    # mode (its import finder would find backend/devtools), which the image has not.
    image_only = (
        "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in getattr(f, '__module__', '')]; "
        "from backend.app.cli import main; raise SystemExit(main())"
    )

    def taskchat(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-c", image_only, *argv]
        return subprocess.run(command, cwd=app, env=env, capture_output=True, text=True, timeout=120, check=False)

    result = taskchat("migrate")
    assert result.returncode == 0, result.stderr
    assert db.exists() and db.stat().st_size > 0
    # The development tooling stays out of the package: its commands say what to install instead.
    assert not (site / "backend" / "devtools").exists()
    bench = taskchat("bench", "--quick")
    assert bench.returncode == 2, bench.stderr
    assert "taskchat bench needs the development extras" in bench.stderr and "Traceback" not in bench.stderr


# --- .env.example ---------------------------------------------------------------------------------


def env_example_lines() -> list[str]:
    return [line.strip() for line in (ROOT / ".env.example").read_text().splitlines() if line.strip()]


def test_env_example_names_every_contract_setting() -> None:
    names = set()
    for line in env_example_lines():
        candidate = line.lstrip("#").strip()  # optional settings may be shown commented out
        if "=" in candidate and " " not in candidate.split("=", 1)[0]:
            names.add(candidate.split("=", 1)[0])
    missing = set(CONTRACT_SETTINGS) - names
    assert not missing, missing


def test_env_example_explains_every_setting_and_how_to_make_a_secret() -> None:
    lines = env_example_lines()
    for index, line in enumerate(lines):
        if not line.startswith("#") and "=" in line:
            assert index > 0 and lines[index - 1].startswith("#"), f"no comment above {line}"
    text = "\n".join(lines)
    assert "secrets.token_urlsafe(48)" in text


SETTINGS_PROBE = """
import sys
from backend.app.core.config import Settings
from backend.app.core.security import create_token, decode_token
try:
    settings = Settings()
except Exception as error:
    print("REFUSED", error)
    raise SystemExit(3)
token = create_token(settings=settings, user_id="alice")
assert decode_token(token, settings=settings)["sub"] == "alice"
print("OK", settings.environment, settings.database_url, settings.jwt_audience)
"""


def run_with_env_example(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run the settings probe in a directory whose .env is a verbatim copy of .env.example."""
    shutil.copy(ROOT / ".env.example", tmp_path / ".env")
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "SYSTEMROOT")}
    return subprocess.run(
        [sys.executable, "-c", SETTINGS_PROBE],
        cwd=tmp_path,
        env={**base, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_env_example_copied_to_dotenv_is_a_working_development_configuration(tmp_path: Path) -> None:
    result = run_with_env_example(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split() == ["OK", "development", "sqlite+aiosqlite:///./taskchat.db", "None"]


def test_env_example_secret_is_a_placeholder_production_refuses(tmp_path: Path) -> None:
    result = run_with_env_example(tmp_path, ENVIRONMENT="production")
    assert result.returncode == 3, result.stdout + result.stderr
    assert "JWT_SECRET" in result.stdout


# --- locks ----------------------------------------------------------------------------------------


def pins(name: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in (ROOT / name).read_text().splitlines():
        if "==" in line and not line.startswith((" ", "#", "-")):
            package, version = line.split("==", 1)
            found[canonicalize_name(package.strip())] = version.split()[0].split(";")[0]
    return found


def test_locks_agree() -> None:
    runtime, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    assert runtime
    missing = sorted(set(runtime) - set(dev))
    assert not missing, f"in requirements.lock only: {missing}"
    differ = {p: (v, dev[p]) for p, v in runtime.items() if dev[p] != v}
    assert not differ, f"(requirements.lock, requirements-dev.lock) pins differ: {differ}; run `make lock`"


def test_the_runtime_lock_has_no_development_tooling() -> None:
    runtime, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    for tool in ("tqdm", "matplotlib", "pytest", "ruff", "mypy"):
        assert tool not in runtime, f"{tool} is development tooling, not a runtime dependency"
        assert tool in dev


def test_locks_pin_every_pyproject_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime, dev = pins("requirements.lock"), pins("requirements-dev.lock")
    for spec, lock in [(s, runtime) for s in project["dependencies"]] + [
        (s, dev) for s in project["optional-dependencies"]["dev"]
    ]:
        requirement = Requirement(spec)
        name = canonicalize_name(requirement.name)
        assert name in lock, f"{requirement.name} is in pyproject.toml but not locked; run `make lock`"
        assert requirement.specifier.contains(lock[name], prereleases=True), (spec, lock[name])


# --- Makefile and CI ------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_test_runs_postgres_lint_types_then_pytest() -> None:
    result = subprocess.run(
        ["make", "-n", "test", "PYTEST_ARGS=-k smoke"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    steps = [
        "bash scripts/ensure-postgres.sh",
        ".venv/bin/ruff check backend tests",
        ".venv/bin/mypy\n",  # backend and tests (pyproject.toml [tool.mypy] files)
        ".venv/bin/python -m pytest -q -n 2 -k smoke",  # the whole suite on two xdist workers
    ]
    positions = [result.stdout.find(step) for step in steps]
    assert -1 not in positions, result.stdout
    assert positions == sorted(positions), result.stdout


def test_ci_calls_make_test() -> None:
    ci = ROOT / ".ci" / "run"
    text = ci.read_text()
    assert text.startswith("#!/usr/bin/env bash") or text.startswith("#!/bin/bash")
    assert "set -euo pipefail" in text
    assert any(line.strip() == "make test" for line in text.splitlines())
    assert os.access(ci, os.X_OK)
