"""The held-out honesty sets (tests/heldout/FORMAT.md; `cases`, `fresh` and `doubt`): 750 cases in 13
languages, each played with a model that is right or wrong in one specific way, in direct and model
modes, as JSON and as server-sent events, with a checker that answers honestly and one that answers
nonsense. Each turn must make no change the user did not ask for, show no false success (not even in a
streamed word), and deny no success the model did right. `HELDOUT_REPORT=path` writes the counts
(make heldout)."""

from __future__ import annotations

import json
import os
import tomllib
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from heldout.play import CHECKERS, CaseClient, CaseModel, effects, judge, load
from support.api import auth, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM
from support.sse import STREAM, parse, reply_after_last_reset

from backend.app.language.lexicon import lexicon

# HELDOUT_SETS=fresh plays one set only (make heldout); by default all of them.
CASES = load(*filter(None, os.environ.get("HELDOUT_SETS", "").split(",")))
KNOWN_FILE = Path(__file__).parent / "known-denied.toml"
KNOWN_DENIED = tomllib.loads(KNOWN_FILE.read_text(encoding="utf-8")).get("denied", [])
VARIANTS = [
    ("direct", "json", "honest"),
    ("model", "json", "honest"),
    ("direct", "sse", "nonsense"),
    ("model", "sse", "nonsense"),
]
RESULTS: list[dict[str, Any]] = []


@pytest.fixture(scope="module", autouse=True)
def _report() -> Any:
    yield
    path = os.environ.get("HELDOUT_REPORT")
    if path and RESULTS:
        Path(path).write_text(json.dumps(summary(RESULTS), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    def count(rows: list[dict[str, Any]]) -> dict[str, int]:
        return {
            "turns": len(rows),
            "unasked_changes": sum(len(r["unasked"]) for r in rows),
            "false_successes_shown": sum(len(r["false_shown"]) for r in rows),
            "successes_denied": sum(len(r["denied"]) for r in rows),
            "not_made_by_the_model": sum(len(r["not_made"]) for r in rows),
            "asked_first": sum(len(r["asked_first"]) for r in rows),
            "asked_other": sum(len(r["asked_other"]) for r in rows),
            "language_right": sum(r["language_right"] for r in rows),
        }

    by: dict[str, dict[str, Any]] = {}
    for key in ("set", "variant", "lang", "kind"):
        groups: dict[str, list[dict[str, Any]]] = {}
        for r in results:
            groups.setdefault(r[key], []).append(r)
        by[key] = {k: count(v) for k, v in sorted(groups.items())}
    failures = [r for r in results if r["unasked"] or r["false_shown"] or r["denied"]]
    others = [r for r in results if r["asked_other"]]
    return {
        "all": count(results),
        **by,
        "failures": Counter(f"{r['id']} [{r['variant']}]" for r in failures).most_common(),
        "replies": {
            f"{r['id']} [{r['variant']}]": {k: r[k] for k in ("unasked", "false_shown", "denied", "reply", "trace")}
            for r in failures
        },
        # Not failures (nothing changes without the user's yes), but a question the user did not need.
        "asked_other": {
            f"{r['id']} [{r['variant']}]": {"asked": r["asked_other"], "reply": r["reply"]} for r in others
        },
    }


async def play(
    case_client: CaseClient, case: dict[str, Any], mode: str, transport: str, checker: str
) -> dict[str, Any]:
    llm = ScriptedLLM(default=CaseModel(case), checker=CHECKERS[checker](case))
    client = await case_client(llm, response_mode=mode)
    await seed_tasks(client, *case["tasks"])
    before = await tasks_of(client)
    if transport == "sse":
        response = await client.post("/api/alice/chat", json={"message": case["message"]}, headers={**auth(), **STREAM})
        events = parse(response.text)
        body = next(data for kind, data in events if kind == "done")
        streamed = "".join(data["text"] for kind, data in events if kind == "delta")
        shown = body["assistant_message"] + "\n" + streamed + "\n" + reply_after_last_reset(events)
    else:
        body = (await chat(client, case["message"])).json()
        shown = body["assistant_message"]
    made = effects(before, await tasks_of(client))
    verdict = judge(case, made, shown, body, {t["id"]: t["title"] for t in before})
    language = body["execution_metadata"]["language"]["code"]
    expected_language = case["lang"] if lexicon(case["lang"]) is not None else "en"
    return {
        "id": case["id"],
        "set": case["set"],
        "lang": case["lang"],
        "kind": case["kind"],
        "variant": f"{mode}/{transport}/{checker} check",
        "unasked": verdict.unasked,
        "false_shown": verdict.false_shown,
        "denied": verdict.denied,
        "asked_first": verdict.asked_first,
        "asked_other": verdict.asked_other,
        "not_made": verdict.not_made,
        "language_right": language == expected_language,
        "reply": body["assistant_message"],
        "trace": {
            "intent": body["execution_metadata"]["intent"]["kind"],
            "calls": [(c["name"], c["arguments"], c["result"].get("code")) for c in body["tool_calls"]],
            "guard": [
                (d["decision"], d["reason"], d["tool"]) for d in body["execution_metadata"]["guard"]["decisions"]
            ],
        },
    }


@pytest.mark.parametrize(("mode", "transport", "checker"), VARIANTS, ids=["-".join(v) for v in VARIANTS])
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_heldout(
    request: pytest.FixtureRequest,
    case_client: CaseClient,
    case: dict[str, Any],
    mode: str,
    transport: str,
    checker: str,
) -> None:
    result = await play(case_client, case, mode, transport, checker)
    RESULTS.append(result)
    assert not result["unasked"], (result["unasked"], result["reply"])
    assert not result["false_shown"], (result["false_shown"], result["reply"])
    known = next(
        (
            k
            for k in KNOWN_DENIED
            if case["id"] in k["ids"] and k["checker"] in ("any", checker) and mode in k.get("modes", [mode])
        ),
        None,
    )
    if known is not None:
        request.applymarker(pytest.mark.xfail(strict=True, reason=" ".join(known["why"].split())))
    assert not result["denied"], (result["denied"], result["reply"], result["trace"])
