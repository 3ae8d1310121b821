"""Tool policies, budgets and the auditable plan, read from what the model actually received."""

from __future__ import annotations

from support.api import MakeClient, auth, chat, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion, tool_call

ALL_TOOLS = ["add_task", "list_tasks", "complete_task", "delete_task", "update_task", "undo_last_change"]


async def test_none_sends_no_tools(make_client: MakeClient) -> None:
    llm = ScriptedLLM(completion("I can only talk right now."))
    client = await make_client(llm, tool_policy="none")

    body = (await chat(client, "add milk")).json()

    assert "tools" not in llm.requests[0] and "tool_choice" not in llm.requests[0]
    assert body["execution_metadata"]["policy"]["applied"] == "none"
    assert await tasks_of(client) == []


async def test_auto_has_no_guard(make_client: MakeClient) -> None:
    llm = ScriptedLLM(completion("Sure."))
    client = await make_client(llm)

    body = (await chat(client, "add milk", tool_policy="auto")).json()

    assert len(llm.requests) == 1
    assert llm.tool_choice(0) == "auto"
    assert body["execution_metadata"]["guard"]["outcome"] == "disabled"
    assert body["execution_metadata"]["findings"][0]["kind"] == "PlanDeviation"


async def test_required_offers_respond_and_terminates(make_client: MakeClient) -> None:
    llm = ScriptedLLM(
        calls(("add_task", {"title": "milk"})),
        completion(tool_calls=[tool_call("respond", {"message": "Added milk to your list."})]),
    )
    client = await make_client(llm, tool_policy="required", response_mode="model")

    body = (await chat(client, "add milk")).json()

    assert llm.tool_names(0) == [*ALL_TOOLS, "respond"]
    assert llm.tool_choice(0) == "required"
    assert llm.tool_choice(1) == "auto"  # reset once the expected tool ran
    assert body["assistant_message"] == "Added milk to your list."
    assert len(llm.requests) == 2
    assert [c["name"] for c in body["tool_calls"]] == ["add_task"]


async def test_required_chat_ends_through_respond(make_client: MakeClient) -> None:
    llm = ScriptedLLM(completion(tool_calls=[tool_call("respond", {"message": "Hello!"})]))
    client = await make_client(llm, tool_policy="required")

    body = (await chat(client, "hello")).json()

    assert body["assistant_message"] == "Hello!"
    assert len(llm.requests) == 1


async def test_forced_intent_forces_step_one(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "milk"})))
    client = await make_client(llm, tool_policy="forced_intent")

    body = (await chat(client, "add milk")).json()

    assert llm.tool_choice(0) == {"type": "function", "function": {"name": "add_task"}}
    assert body["execution_metadata"]["llm_calls"] == 1
    assert [t["title"] for t in await tasks_of(client)] == ["milk"]


async def test_two_phase_reads_then_writes(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Read book"})))
    client = await make_client(llm)
    await chat(client, "add Read book")
    llm.push(calls(("list_tasks", {})), calls(("delete_task", {"task_id": "Read book"})))

    body = (await chat(client, "delete Read book", tool_policy="two_phase")).json()

    assert llm.tool_names(1) == ["list_tasks"]
    assert llm.tool_names(2) == ["add_task", "complete_task", "delete_task", "update_task", "undo_last_change"]
    events = body["execution_metadata"]["policy_events"]
    assert any(e["event"] == "phase_switch" and e["to"] == "write" for e in events)
    assert await tasks_of(client) == []


async def test_preset_downgrade_is_recorded(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "milk"})))
    client = await make_client(llm, llm_model="deepseek/deepseek-chat", tool_policy="required")

    body = (await chat(client, "add milk")).json()

    policy = body["execution_metadata"]["policy"]
    assert policy == {"requested": "required", "applied": "guarded", "downgraded_by": policy["downgraded_by"]}
    assert "deepseek" in policy["downgraded_by"]
    assert llm.tool_choice(0) == "auto"
    assert "respond" not in llm.tool_names(0)


async def test_list_forever_is_stopped_by_repeated_call(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=calls(("list_tasks", {"status": "all"})))
    client = await make_client(llm, response_mode="model")

    body = (await chat(client, "what's on my list?")).json()

    findings = body["execution_metadata"]["findings"]
    assert findings[0]["kind"] == "RepeatedCall"
    assert findings[0]["tool"] == "list_tasks"
    assert body["execution_metadata"]["stop_reason"] == "repeated_call"
    # The listing asked for was done by the first call: the stop leaves nothing undone to say.
    assert body["assistant_message"] == "You have no tasks."
    assert len(llm.requests) == 2


async def test_slow_model_is_stopped_by_the_deadline(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("late"), delay_s=0.4)
    client = await make_client(llm, budget_max_latency_ms=250, llm_max_retries=0)

    response = await chat(client, "hello")

    assert response.status_code == 504
    assert response.json()["error"] == "LLM_TIMEOUT"


async def test_token_hungry_model_is_stopped_by_the_token_budget(make_client: MakeClient) -> None:
    hungry = completion(
        tool_calls=[tool_call("list_tasks", {"status": "pending"})], prompt_tokens=3000, completion_tokens=2000
    )
    llm = ScriptedLLM(hungry, default=calls(("list_tasks", {"status": "completed"})))
    client = await make_client(llm, budget_max_tokens=4000, response_mode="model")

    body = (await chat(client, "list my tasks")).json()

    finding = body["execution_metadata"]["findings"][0]
    assert finding == {"kind": "BudgetExceeded", "budget": "tokens", "used": 5000, "limit": 4000}
    assert (
        "That is as far as I got with this message: anything not listed above was not done."
        in body["assistant_message"]
    )
    assert len(llm.requests) == 1


async def test_request_can_lower_but_not_raise_budgets(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("hi"))
    client = await make_client(llm, budget_max_llm_calls=3)

    body = (await chat(client, "hello", budget={"max_llm_calls": 50, "max_tokens": 10})).json()

    limits = body["execution_metadata"]["budget"]["limits"]
    assert limits["max_llm_calls"] == 3
    assert limits["max_tokens"] == 10


async def test_plan_deviation_when_model_calls_another_tool(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Gym"})))
    client = await make_client(llm)
    await chat(client, "add Gym")
    llm.push(calls(("complete_task", {"task_id": "Gym"})))

    body = (await chat(client, "delete Gym", tool_policy="auto")).json()

    meta = body["execution_metadata"]
    assert meta["plan"]["expected_tools"] == ["delete_task"]
    deviation = next(f for f in meta["findings"] if f["kind"] == "PlanDeviation")
    assert deviation["unexpected"] == ["complete_task"] and deviation["missing"] == ["delete_task"]
    messages = (await client.get(f"/api/alice/conversations/{body['conversation_id']}/messages", headers=auth())).json()
    assert messages[-1]["execution_metadata"]["findings"] == meta["findings"]


async def test_accounting_is_reported_for_every_policy(make_client: MakeClient) -> None:
    for policy in ("none", "auto", "guarded", "required", "forced_intent", "two_phase"):
        llm = ScriptedLLM(
            default=completion(
                tool_calls=[tool_call("respond", {"message": "ok"})], prompt_tokens=50, completion_tokens=5
            ),
            checker=completion(
                tool_calls=[tool_call("check_reply", {"done": [], "not_done": []})],
                prompt_tokens=50,
                completion_tokens=5,
            ),
        )
        client = await make_client(llm, llm_model="openai/gpt-4o-mini")
        meta = (await chat(client, "hello", tool_policy=policy)).json()["execution_metadata"]
        assert meta["llm_calls"] >= 1
        assert meta["prompt_tokens"] == 50 * meta["llm_calls"]
        assert meta["completion_tokens"] == 5 * meta["llm_calls"]
        assert meta["estimated_cost_usd"] > 0
        assert meta["total_latency_ms"] >= 0
        assert "tool_calls_executed" in meta


async def test_two_phase_never_runs_a_mutation_in_the_read_phase(make_client: MakeClient) -> None:
    llm = ScriptedLLM(calls(("add_task", {"title": "Read book"})))
    client = await make_client(llm)
    await chat(client, "add Read book")
    # Offered only list_tasks, the model reaches for delete_task anyway: what is sent is what may run.
    llm.push(
        calls(("delete_task", {"task_id": "Read book"})),
        completion("Let me switch."),
        calls(("delete_task", {"task_id": "Read book"})),
    )

    body = (await chat(client, "delete Read book", tool_policy="two_phase")).json()

    first, second = body["tool_calls"]
    assert (first["name"], first["result"]["code"]) == ("delete_task", "UNKNOWN_TOOL")
    assert "list_tasks" in first["result"]["error"]
    assert llm.tool_names(1) == ["list_tasks"]
    # Only once the write phase offered it did delete_task run.
    assert "delete_task" in llm.tool_names(3)
    assert second["result"]["success"] is True
    assert await tasks_of(client) == []
