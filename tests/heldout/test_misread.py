"""The third held-out set (MISREAD.md): messages a reader can get wrong, each played with the model that
is right and the one that is wrong in one specific way, in both response modes, as JSON and as
server-sent events, with a checker that answers honestly, one that answers nonsense, and under
`REPLY_CHECK=lists`. Each turn must make no change the user did not ask for (fields included), show no
false success, leave no change that ran unsaid, force no tool the model's last words did not claim,
and, for a listing, show what a right answer shows. `HELDOUT_REPORT=path` writes the counts beside the
other sets' (make heldout writes `specs/heldout/misread.json`)."""

from __future__ import annotations

import datetime as dt
import json
import os
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from heldout.misread import (
    TrackedModel,
    as_played,
    effects,
    false_declared,
    field_changes,
    judge,
    load_misread,
    not_shown,
    seeds,
    unsaid,
)
from heldout.play import CHECKERS, CaseClient
from support.api import auth, chat, tasks_of
from support.fake_llm import ScriptedLLM
from support.sse import STREAM, parse, reply_after_last_reset

CASES = load_misread()
# Turns under REPLY_CHECK=lists that show a claim the word lists do not read: expected to fail.
KNOWN = {
    (k["id"], v)
    for k in tomllib.loads((Path(__file__).parent / "misread-lists-known.toml").read_text(encoding="utf-8"))["known"]
    for v in k["variants"]
}
# (model, response mode, transport, checker): "lists" is REPLY_CHECK=lists, no checker asked.
VARIANTS = [
    ("right", "direct", "json", "honest"),
    ("right", "model", "sse", "honest"),
    ("right", "direct", "sse", "nonsense"),
    ("right", "model", "json", "lists"),
    ("wrong", "direct", "json", "honest"),
    ("wrong", "model", "sse", "honest"),
    ("wrong", "direct", "sse", "nonsense"),
    ("wrong", "model", "json", "nonsense"),
    ("wrong", "direct", "json", "lists"),
    ("wrong", "model", "json", "lists"),
]
RESULTS: list[dict[str, Any]] = []
FAILS = ("unasked", "false_shown", "unsaid", "unmeant_forced", "not_shown")


@pytest.fixture(scope="module", autouse=True)
def _report() -> Any:
    yield
    path = os.environ.get("HELDOUT_REPORT")
    if path and RESULTS:
        target = Path(path).with_name("misread.json")
        target.write_text(json.dumps(summary(RESULTS), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    def count(rows: list[dict[str, Any]]) -> dict[str, int]:
        counted = {"turns": len(rows)} | {k: sum(len(r[k]) for r in rows) for k in FAILS}
        counted |= {k: sum(len(r[k]) for r in rows) for k in ("not_made", "asked_first", "asked_other")}
        return counted

    by: dict[str, dict[str, Any]] = {}
    for key in ("variant", "lang", "kind"):
        groups: dict[str, list[dict[str, Any]]] = {}
        for r in results:
            groups.setdefault(r[key], []).append(r)
        by[key] = {k: count(v) for k, v in sorted(groups.items())}
    failures = [r for r in results if any(r[k] for k in FAILS)]
    return {
        "all": count(results),
        **by,
        "failures": Counter(f"{r['id']} [{r['variant']}]" for r in failures).most_common(),
        "replies": {f"{r['id']} [{r['variant']}]": {k: r[k] for k in (*FAILS, "reply", "trace")} for r in failures},
        "asked_other": {
            f"{r['id']} [{r['variant']}]": {"asked": r["asked_other"], "reply": r["reply"]}
            for r in results
            if r["asked_other"]
        },
    }


async def _seed(client: Any, case: dict[str, Any]) -> None:
    from backend.app.db.repositories.tasks import TaskRepository
    from backend.app.db.session import unit_of_work

    app: Any = client.app
    async with unit_of_work(app.state.sessionmaker) as session:
        repo = TaskRepository(session, "alice")
        for task in seeds(case):
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


def renamed(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> dict[str, str]:
    new = {t["id"]: t["title"] for t in after}
    return {t["title"]: new[t["id"]] for t in before if t["id"] in new}


async def play(
    case_client: CaseClient, case: dict[str, Any], model: str, mode: str, transport: str, checker: str
) -> dict[str, Any]:
    played = as_played(case, model)
    scripted = TrackedModel(played)
    check = CHECKERS["nonsense" if checker == "nonsense" else "honest"](played)
    llm = ScriptedLLM(default=scripted, checker=check)
    client = await case_client(llm, response_mode=mode, reply_check="lists" if checker == "lists" else "model")
    await _seed(client, case)
    before = await tasks_of(client)
    if transport == "sse":
        response = await client.post("/api/alice/chat", json={"message": case["message"]}, headers={**auth(), **STREAM})
        events = parse(response.text)
        body = next((data for kind, data in events if kind == "done"), None)
        assert body is not None, events
        streamed = "".join(data["text"] for kind, data in events if kind == "delta")
        shown = body["assistant_message"] + "\n" + streamed + "\n" + reply_after_last_reset(events)
    else:
        body = (await chat(client, case["message"])).json()
        shown = body["assistant_message"]
    after = await tasks_of(client)
    made = effects(before, after)
    verdict = judge(played, made, shown, body, {t["id"]: t["title"] for t in before})
    metadata = body["execution_metadata"]
    return {
        "id": case["id"],
        "lang": case["lang"],
        "kind": case["kind"],
        "variant": f"{model}/{mode}/{transport}/{checker}",
        "unasked": [f"{k} {t}" for k, t in verdict.unasked] + field_changes(case, before, after),
        "false_shown": sorted(set(verdict.false_shown) | set(false_declared(played, shown, made))),
        "unsaid": [f"{k} {t}" for k, t in unsaid(made, body["assistant_message"], renamed(before, after))],
        "unmeant_forced": list(scripted.unmeant),
        "not_shown": not_shown(case, body["assistant_message"], body),
        "not_made": verdict.not_made,
        "asked_first": verdict.asked_first,
        "asked_other": verdict.asked_other,
        "reply": body["assistant_message"],
        "trace": {
            "intent": metadata["intent"]["kind"],
            "calls": [(c["name"], c["arguments"], c["result"].get("code")) for c in body["tool_calls"]],
            "guard": [(d["decision"], d["reason"], d["tool"]) for d in metadata["guard"]["decisions"]],
        },
    }


@pytest.mark.parametrize(("model", "mode", "transport", "checker"), VARIANTS, ids=["-".join(v) for v in VARIANTS])
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_misread(
    request: pytest.FixtureRequest,
    case_client: CaseClient,
    case: dict[str, Any],
    model: str,
    mode: str,
    transport: str,
    checker: str,
) -> None:
    result = await play(case_client, case, model, mode, transport, checker)
    RESULTS.append(result)
    if (case["id"], result["variant"]) in KNOWN:
        why = "REPLY_CHECK=lists: a claim the word lists do not read is shown (misread-lists-known.toml)"
        request.applymarker(pytest.mark.xfail(strict=True, reason=why))
    assert {k: result[k] for k in FAILS if result[k]} == {}, (result["reply"], result["trace"])
