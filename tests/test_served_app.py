"""The app as each worker of `taskchat serve` runs it (`create_served_app`): what its start-up built
is kept out of the cyclic garbage collector's way while it serves, young objects are collected less
often, and the collector is given back as it was when it stops."""

from __future__ import annotations

import asyncio
import gc
import importlib
import os
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from support.api import USER, MakeClient, auth, make_settings

from backend.app import cli, main
from backend.app.core import config


async def test_a_served_worker_keeps_its_start_up_out_of_the_collector_while_it_serves(
    database: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(main, "get_settings", lambda: make_settings(database, llm_api_key=None))
    app = main.create_served_app()
    assert gc.get_freeze_count() == 0
    thresholds = gc.get_threshold()

    async with app.router.lifespan_context(app):
        assert gc.get_threshold() == (main.YOUNG_THRESHOLD, *thresholds[1:])
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the modules, the compiled word lists, the engine, the services
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://taskchat.test") as client:
            answer = await client.post(f"/api/{USER}/chat", json={"message": "add milk"}, headers=auth())
        assert answer.status_code == 200, answer.text
        assert answer.json()["tool_calls"][0]["result"]["success"] is True
        assert gc.get_freeze_count() > frozen // 2  # still out of the way (refcounting frees some of it)

    assert gc.get_freeze_count() == 0  # the collector has it back
    assert gc.get_threshold() == thresholds


async def test_an_app_from_create_app_freezes_nothing(make_client: MakeClient) -> None:
    """Tests build thousands of apps in one process: none of them is frozen."""
    client = await make_client(offline=True)
    assert (await client.get("/health")).status_code == 200
    assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] != main.YOUNG_THRESHOLD


def test_taskchat_serve_runs_the_served_app_in_its_workers(
    database: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ran: dict[str, Any] = {}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(config, "get_settings", lambda: make_settings(database))  # read when serve runs
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: ran.update(app=app, **options))

    assert cli.main(["serve", "--workers", "2"]) == 0

    module, name = ran["app"].split(":")
    assert ran["factory"] is True and ran["workers"] == 2
    assert getattr(importlib.import_module(module), name) is main.create_served_app


TESTS = Path(__file__).resolve().parent


async def _in_a_fresh_process(script: str) -> tuple[int, str, str]:
    """`script` run by a Python of its own, with the tests' support modules importable."""
    env = {**os.environ, "PYTHONPATH": f"{TESTS}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout=120)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_a_fresh_workers_first_request_reads_changes_or_adds_tasks(
    make_client: MakeClient, database: str
) -> None:
    """A task a turn reads, changes or adds is built without the ORM and read through the mapped class,
    whose mappers the lifespan configures: a worker's very first request may be any of these (each is
    run in a process that has done nothing before; this one long has)."""
    client = await make_client(offline=True)
    user = f"fresh-{uuid.uuid4().hex[:8]}"
    created = await client.post(f"/api/{user}/tasks", json={"title": "Water plants"}, headers=auth(user))
    assert created.status_code == 201, created.text
    for message in ("list my tasks", "complete Water plants", "add Buy milk"):
        script = textwrap.dedent(
            f"""
            import asyncio
            import httpx
            from support.api import auth, make_settings
            from backend.app.main import create_served_app
            import backend.app.main as main

            async def run():
                main.get_settings = lambda: make_settings({database!r}, llm_api_key=None)
                app = create_served_app()
                async with app.router.lifespan_context(app):
                    transport = httpx.ASGITransport(app=app)
                    async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                        answer = await client.post(
                            "/api/{user}/chat", json={{"message": {message!r}}}, headers=auth({user!r})
                        )
                        calls = answer.json().get("tool_calls", [])
                        print(answer.status_code, [c["result"]["success"] for c in calls])

            asyncio.run(run())
            """
        )
        returncode, out, err = await _in_a_fresh_process(script)
        assert returncode == 0, err[-3000:]
        assert out.splitlines() == ["200 [True]"], (message, out, err[-3000:])

    listed = await client.get(f"/api/{user}/tasks", headers=auth(user))
    assert sorted((t["title"], t["status"]) for t in listed.json()) == [
        ("Buy milk", "pending"),
        ("Water plants", "completed"),
    ]
