"""The production secret's strength estimate runs once per `taskchat serve`: the supervisor checks
the secret and hands its workers the digest of the secret that passed, so a worker skips the
estimator (12.5 MB of dictionaries) for that secret and for no other."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from typing import Any

import pytest
import uvicorn

from backend.app import cli
from backend.app.core import config
from backend.app.core.config import CHECKED_SECRET_ENV, checked_mark, secret_problem

PATTERNED = "ThequickbrownfoxjumpsoverthelazydogPackMyBox7"  # only the estimator finds it weak
STRONG = "Qx7-kR2vT9wLm4ZpYc8NbHs3Jd6FgUe1Aa5Xo0Wi"


def test_the_estimator_refuses_what_only_it_sees() -> None:
    assert secret_problem(PATTERNED) is not None and "predictable" in str(secret_problem(PATTERNED))
    assert secret_problem(STRONG) is None


def test_a_worker_trusts_the_digest_of_its_own_secret_only(monkeypatch: pytest.MonkeyPatch) -> None:
    config._patterned.cache_clear()
    monkeypatch.setenv(CHECKED_SECRET_ENV, checked_mark("some other secret the supervisor checked"))
    assert secret_problem(PATTERNED) is not None  # another secret's digest: estimated here
    monkeypatch.setenv(CHECKED_SECRET_ENV, checked_mark(PATTERNED))
    assert secret_problem(PATTERNED) is None  # the supervisor's check stands for it
    assert secret_problem("a" * 40) is not None  # the cheap checks still run: the digest is not a pass


def _loads_the_estimator(**env: str) -> bool:
    """Whether production settings built in a fresh process import zxcvbn."""
    code = (
        "import sys; from backend.app.core.config import Settings; "
        f"Settings(_env_file=None, environment='production', jwt_secret={STRONG!r}); "
        "print('zxcvbn' in sys.modules)"
    )
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "PYTHONPATH")}
    done = subprocess.run([sys.executable, "-c", code], env={**keep, **env}, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip() == "True"


def test_a_worker_given_the_digest_never_loads_the_estimator() -> None:
    assert _loads_the_estimator()
    assert not _loads_the_estimator(**{CHECKED_SECRET_ENV: checked_mark(STRONG)})


def test_serve_checks_the_secret_once_and_hands_the_workers_its_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: dict[str, Any] = {}

    def run(*_args: Any, **kwargs: Any) -> None:
        seen["workers"] = kwargs["workers"]
        seen["mark"] = os.environ.get(CHECKED_SECRET_ENV)

    monkeypatch.setattr(uvicorn, "run", run)
    monkeypatch.setenv(CHECKED_SECRET_ENV, "")  # no digest yet (and serve's is undone after the test)
    for name, value in {
        "ENVIRONMENT": "production",
        "JWT_SECRET": STRONG,
        "DATABASE_URL": "postgresql+asyncpg://nobody@127.0.0.1:1/none",  # not reached: serving is faked
        "LLM_API_KEY": "sk-or-v1-" + "9f8e7d6c5b4a" * 4,
    }.items():
        monkeypatch.setenv(name, value)
    config.get_settings.cache_clear()
    try:
        args = argparse.Namespace(host="127.0.0.1", port=1, workers=2, limit_concurrency=None, backlog=64)
        assert cli._cmd_serve(args) == 0
    finally:
        config.get_settings.cache_clear()
    assert seen == {"workers": 2, "mark": checked_mark(STRONG)}
