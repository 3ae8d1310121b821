"""The app as each worker of `taskchat serve` runs it (`create_served_app`): what its start-up built
is kept out of the cyclic garbage collector's way while it serves, young objects are collected less
often, and the collector is given back as it was when it stops."""

from __future__ import annotations

import gc
import importlib
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from support.api import USER, auth, make_settings

from backend.app import cli, main


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


async def test_an_app_from_create_app_freezes_nothing(make_client: Any) -> None:
    """Tests build thousands of apps in one process: none of them is frozen."""
    client = await make_client(offline=True)
    assert (await client.get("/health")).status_code == 200
    assert gc.get_freeze_count() == 0 and gc.get_threshold()[0] != main.YOUNG_THRESHOLD


def test_taskchat_serve_runs_the_served_app_in_its_workers(
    database: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ran: dict[str, Any] = {}
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DATABASE_URL", database)
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: ran.update(app=app, **options))

    assert cli.main(["serve", "--workers", "2"]) == 0

    module, name = ran["app"].split(":")
    assert ran["factory"] is True and ran["workers"] == 2
    assert getattr(importlib.import_module(module), name) is main.create_served_app
