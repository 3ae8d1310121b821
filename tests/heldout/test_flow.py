"""The fourth held-out set (FLOW.md): conversations of a few turns (pasted lists, requests over the whole
list, short and emoji titles, twins told apart by their date, the task just added, a yes to the model's
own question, greetings, thanks and how-to questions), each played with a competent model and with one
that cannot answer the reply check. Each conversation must do what the user asked and nothing else,
ask at most once over a whole list, answer every greeting, thanks and question, and never show a
sentence written for the model. `HELDOUT_REPORT=path` writes the counts (as `flow.json` beside it)."""

from __future__ import annotations

import datetime as dt
import json
import os
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from heldout.flow import FlowModel, all_tasks, checker, expected_kinds, judge_end, judge_turn, load_flow
from heldout.play import CaseClient
from support.api import chat, tasks_of
from support.fake_llm import ScriptedLLM

CASES = load_flow()
# Conversations expected to fail, each with why (flow-known.toml): strict xfails.
KNOWN = {
    (k["id"], c): k["why"]
    for k in tomllib.loads((Path(__file__).parent / "flow-known.toml").read_text(encoding="utf-8"))["known"]
    for c in k["checkers"]
}
CHECKERS = ("honest", "nonsense")
RESULTS: list[dict[str, Any]] = []
FAILS = ("unasked", "missing", "for_the_model", "no_answer", "long_reply", "asked_twice")


@pytest.fixture(scope="module", autouse=True)
def _report() -> Any:
    yield
    path = os.environ.get("HELDOUT_REPORT")
    if path and RESULTS:
        Path(path).with_name("flow.json").write_text(
            json.dumps(summary(RESULTS), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    def count(rows: list[dict[str, Any]]) -> dict[str, Any]:
        turns = sum(r["turns"] for r in rows)
        counted: dict[str, Any] = {"conversations": len(rows), "turns": turns}
        counted |= {k: sum(len(r[k]) for r in rows) for k in (*FAILS, "asked_other")}
        counted["asked_other_pct"] = round(100 * counted["asked_other"] / turns, 2) if turns else 0.0
        return counted

    by: dict[str, dict[str, Any]] = {}
    for key in ("checker", "lang", "kind"):
        groups: dict[str, list[dict[str, Any]]] = {}
        for r in results:
            groups.setdefault(r[key], []).append(r)
        by[key] = {k: count(v) for k, v in sorted(groups.items())}
    failures = [r for r in results if any(r[k] for k in FAILS)]
    return {
        "all": count(results),
        **by,
        "failures": Counter(f"{r['id']} [{r['checker']}]" for r in failures).most_common(),
        "replies": {f"{r['id']} [{r['checker']}]": {k: r[k] for k in (*FAILS, "replies")} for r in failures},
        "asked_other": {f"{r['id']} [{r['checker']}]": r["asked_other"] for r in results if r["asked_other"]},
    }


async def _seed(client: Any, case: dict[str, Any]) -> None:
    from backend.app.db.repositories.tasks import TaskRepository
    from backend.app.db.session import unit_of_work

    app: Any = client.app
    async with unit_of_work(app.state.sessionmaker) as session:
        repo = TaskRepository(session, "alice")
        for task in all_tasks(case):
            due = task.get("due_date")
            added = await repo.add(
                title=task["title"],
                description=None,
                priority=task.get("priority", "medium"),
                due_date=dt.date.fromisoformat(due) if due else None,
                tags=list(task.get("tags", [])),
            )
            if task.get("status") == "completed":
                row = await repo.get_row(added.id)
                assert row is not None
                await repo.change(row, {"status": "completed"})


async def play(case_client: CaseClient, case: dict[str, Any], check: str) -> dict[str, Any]:
    flow = FlowModel(case)
    llm = ScriptedLLM(default=flow, checker=checker(check, flow))
    client = await case_client(llm)
    await _seed(client, case)
    before = await tasks_of(client)
    conversation: str | None = None
    per_turn: dict[str, list[str]] = {k: [] for k in ("for_the_model", "no_answer", "long_reply", "asked_other")}
    replies: list[str] = []
    questions = 0
    added: list[dict[str, Any]] = []  # what the turns added, as added
    expected = expected_kinds(case)
    for turn, spoken in enumerate(case["turns"]):
        flow.turn = turn
        response = await chat(client, spoken["user"], conversation_id=conversation)
        assert response.status_code == 200, response.text
        body = response.json()
        conversation = body["conversation_id"]
        replies.append(body["assistant_message"])
        questions += body.get("confirmation") is not None
        added += [c["result"]["data"] for c in body["tool_calls"] if c["name"] == "add_task" and c["result"]["success"]]
        for key, found in judge_turn(case, turn, body, expected).items():
            per_turn[key] += found
    end = judge_end(case, before, await tasks_of(client), added)
    return {
        "id": case["id"],
        "lang": case["lang"],
        "kind": case["kind"],
        "checker": check,
        "turns": len(case["turns"]),
        **end,
        **per_turn,
        "asked_twice": [f"{questions} questions"] if case["kind"] == "whole_list" and questions > 1 else [],
        "replies": replies,
    }


@pytest.mark.parametrize("check", CHECKERS)
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_flow(request: pytest.FixtureRequest, case_client: CaseClient, case: dict[str, Any], check: str) -> None:
    result = await play(case_client, case, check)
    RESULTS.append(result)
    if (why := KNOWN.get((case["id"], check))) is not None:
        request.applymarker(pytest.mark.xfail(strict=True, reason=why))
    assert {k: result[k] for k in FAILS if result[k]} == {}, result["replies"]
