"""/metrics after scripted turns: the counters that matter move, and only in their own app."""

from __future__ import annotations

import httpx
from prometheus_client.parser import text_string_to_metric_families
from support.api import MakeClient, auth, chat, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion


async def scrape(client: httpx.AsyncClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    response = await client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def seed(client: httpx.AsyncClient, llm: ScriptedLLM, title: str) -> None:
    llm.push(calls(("add_task", {"title": title})))
    assert (await chat(client, f"add {title}")).status_code == 200


async def test_ghost_success_that_the_guard_gave_up_on(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed(client, llm, "Read book")
    llm.push(completion("I've deleted Read book for you!"), completion("Done, it's gone."))

    body = (await chat(client, "delete Read book")).json()
    assert body["execution_metadata"]["guard"]["outcome"] == "tool_not_triggered"

    m = await scrape(client)
    assert value(m, "taskchat_ghost_success_prevented_total", reason="missing_tool", resolution="gave_up") == 1
    assert value(m, "taskchat_guard_retries_total", reason="missing_tool") == 1
    assert value(m, "taskchat_guard_outcomes_total", outcome="tool_not_triggered") == 1
    assert value(m, "taskchat_chat_turns_total", outcome="tool_not_triggered", stop_reason="tool_not_triggered") == 1
    assert value(m, "taskchat_llm_calls_total", client="http", outcome="ok") == 3  # seed + the turn's two
    assert value(m, "taskchat_llm_call_duration_seconds_count", client="http") == 3
    assert value(m, "taskchat_tool_results_total", tool="delete_task", status="success", source="chat") == 0


async def test_ghost_success_recovered_by_the_retry_and_a_delete(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed(client, llm, "Read book")
    llm.push(completion("I've deleted it."), calls(("delete_task", {"task_id": "Read book"})))

    body = (await chat(client, "delete Read book")).json()
    assert body["action_metadata"]["success"] is True
    assert await tasks_of(client) == []

    m = await scrape(client)
    assert value(m, "taskchat_ghost_success_prevented_total", reason="missing_tool", resolution="retried") == 1
    assert value(m, "taskchat_tool_results_total", tool="delete_task", status="success", source="chat") == 1
    assert value(m, "taskchat_tool_results_total", tool="add_task", status="success", source="chat") == 1
    assert value(m, "taskchat_guard_outcomes_total", outcome="retried") == 1
    assert value(m, "taskchat_chat_turns_total", outcome="ok", stop_reason="composed") == 2


async def test_failed_tool_and_budget_findings(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    llm.push(calls(("complete_task", {"task_id": "nothing like it"})))
    assert (await chat(client, "complete nothing like it")).status_code == 200

    llm.push(calls(("list_tasks", {})))
    body = (await chat(client, "show my tasks", budget={"max_tool_calls": 0})).json()
    assert body["execution_metadata"]["stop_reason"] == "budget_exceeded"

    m = await scrape(client)
    assert value(m, "taskchat_tool_results_total", tool="complete_task", status="error", source="chat") == 1
    assert (
        sum(
            v
            for (name, labels), v in m.items()
            if name == "taskchat_chat_turns_total" and ("outcome", "tool_failed") in labels
        )
        == 1
    )
    assert value(m, "taskchat_findings_total", kind="BudgetExceeded") == 1
    assert value(m, "taskchat_budget_exceeded_total", budget="tool_calls") == 1
    assert value(m, "taskchat_chat_turns_total", outcome="stopped", stop_reason="budget_exceeded") == 1


async def test_llm_failure_is_an_error_turn_and_a_failed_call(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=httpx.Response(503, json={"error": "overloaded"}))
    client = await make_client(llm, llm_max_retries=0)

    response = await chat(client, "add buy milk")
    assert response.status_code == 503

    m = await scrape(client)
    assert value(m, "taskchat_chat_turns_total", outcome="error", stop_reason="LLM_UNAVAILABLE") == 1
    assert value(m, "taskchat_llm_calls_total", client="http", outcome="LLM_UNAVAILABLE") == 1
    assert (
        value(
            m, "taskchat_http_request_duration_seconds_count", method="POST", route="/api/{user_id}/chat", status="503"
        )
        == 1
    )


async def test_http_latency_by_route_template_never_by_raw_path(make_client: MakeClient) -> None:
    client = await make_client(offline=True)
    for user in ("alice", "bob"):
        assert (await client.get(f"/api/{user}/tasks", headers=auth(user))).status_code == 200
    assert (await client.get("/api/alice/tasks")).status_code == 401
    assert (await client.get("/no/such/page")).status_code == 404

    m = await scrape(client)
    hist = "taskchat_http_request_duration_seconds_count"
    assert value(m, hist, method="GET", route="/api/{user_id}/tasks", status="200") == 2
    assert value(m, hist, method="GET", route="/api/{user_id}/tasks", status="401") == 1
    assert value(m, hist, method="GET", route="unmatched", status="404") == 1
    assert not any("alice" in str(labels) for _name, labels in m)


async def test_each_app_has_its_own_registry(make_client: MakeClient) -> None:
    first = await make_client(offline=True)
    second = await make_client(offline=True)
    assert (await chat(first, "add buy milk")).status_code == 200

    assert (
        value(await scrape(first), "taskchat_tool_results_total", tool="add_task", status="success", source="chat") == 1
    )
    assert (
        value(await scrape(second), "taskchat_tool_results_total", tool="add_task", status="success", source="chat")
        == 0
    )
    assert value(await scrape(second), "taskchat_llm_calls_total", client="offline", outcome="ok") == 0
