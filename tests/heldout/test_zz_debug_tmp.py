import json
import os

import pytest
from heldout.play import CHECKERS, CaseModel, effects, judge, load

IDS = os.environ.get("CASE_IDS", "").split(",")
CASES = [c for c in load() if c["id"] in IDS]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
async def test_debug(make_client, case):
    from support.api import chat, seed_tasks, tasks_of
    from support.fake_llm import ScriptedLLM

    mode = os.environ.get("MODE", "direct")
    llm = ScriptedLLM(default=CaseModel(case), checker=CHECKERS["honest"](case))
    client = await make_client(llm, response_mode=mode)
    await seed_tasks(client, *case["tasks"])
    before = await tasks_of(client)
    body = (await chat(client, case["message"])).json()
    made = effects(before, await tasks_of(client))
    v = judge(case, made, body["assistant_message"], body)
    print("\n=====", case["id"], "|", case["message"])
    print("tasks:", case["tasks"], "expect:", case.get("expect"), "ask_ok:", case.get("ask_ok"))
    print(
        "model:",
        json.dumps(case.get("model"), ensure_ascii=False),
        "after:",
        case.get("after"),
        "forced:",
        case.get("forced"),
    )
    print(
        "intent:",
        body["execution_metadata"]["intent"]["kind"],
        body["execution_metadata"]["intent"]["reason"],
        "lang:",
        body["execution_metadata"]["language"],
    )
    for c in body["tool_calls"]:
        print(
            "  call:",
            c["name"],
            json.dumps(c["arguments"], ensure_ascii=False),
            c["result"].get("code"),
            c["result"].get("success"),
        )
    print("guard:", [(d["decision"], d["reason"], d["tool"]) for d in body["execution_metadata"]["guard"]["decisions"]])
    print("reply:", repr(body["assistant_message"]))
    print("made:", made, "verdict:", v)
