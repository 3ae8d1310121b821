"""Several models (LLM_FALLBACKS, issue 26 parts 1-2), end to end through HTTP with scripted models.

`Models` answers each request as the model it names would: the primary "model-a" fails the way a
test says, the fallback "model-b" answers. A fallback re-sends one request, so a tool that already
ran is never run again; a failing model cools down (LLM_COOLDOWN_S) and is tried again after.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from support.api import AppClient, MakeClient, chat, seed_tasks, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion

PRIMARY, FALLBACK = "model-a", "model-b"
FALLBACKS = [{"model": FALLBACK}]
Answer = Callable[[dict[str, Any]], Any]


class Models:
    """The scripted models: `answers[model]` is a list of items (the last repeats), each a
    completion, an httpx.Response or an exception."""

    def __init__(self, **answers: list[Any]) -> None:
        self.answers = {m.replace("_", "-"): list(a) for m, a in answers.items()}
        self.asked: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Any:
        model = body["model"]
        self.asked.append(model)
        queue = self.answers[model]
        return queue.pop(0) if len(queue) > 1 else queue[0]


def _llm(models: Models) -> ScriptedLLM:
    return ScriptedLLM(default=models)


async def _client(make_client: MakeClient, llm: ScriptedLLM, **settings: Any) -> AppClient:
    settings = {"llm_model": PRIMARY, "llm_fallbacks": FALLBACKS, "llm_max_retries": 0, **settings}
    return await make_client(llm, **settings)


FAILURES = [
    pytest.param(httpx.Response(503, json={"error": "overloaded"}), "LLM_UNAVAILABLE", id="5xx"),
    pytest.param(httpx.Response(429, headers={"Retry-After": "0"}), "LLM_UNAVAILABLE", id="429"),
    pytest.param(httpx.ReadTimeout("slow"), "LLM_TIMEOUT", id="timeout"),
    pytest.param(httpx.ConnectError("refused"), "LLM_UNAVAILABLE", id="unreachable"),
    pytest.param(
        httpx.Response(404, json={"error": {"message": "model-a is not a valid model ID"}}),
        "LLM_BAD_RESPONSE",
        id="model-not-found",
    ),
    pytest.param(httpx.Response(200, text="<html>gateway</html>"), "LLM_BAD_RESPONSE", id="not-json"),
    pytest.param({"error": {"message": "upstream failed"}}, "LLM_BAD_RESPONSE", id="error-in-200"),
    pytest.param({"id": "x", "choices": []}, "LLM_BAD_RESPONSE", id="no-choices"),
]


@pytest.mark.parametrize(("failure", "code"), FAILURES)
async def test_each_kind_of_failure_moves_the_request_to_the_next_model(
    make_client: MakeClient, failure: Any, code: str
) -> None:
    models = Models(model_a=[failure], model_b=[calls(("add_task", {"title": "Buy milk"})), completion("Added.")])
    client = await _client(make_client, _llm(models))

    response = await chat(client, "add buy milk")

    assert response.status_code == 200, response.text
    body = response.json()
    assert [t["title"] for t in await tasks_of(client)] == ["Buy milk"]
    first = body["execution_metadata"]["trace"][0]
    assert first["model"] == FALLBACK
    assert [(f["model"], f["code"]) for f in first["fallbacks"]] == [(PRIMARY, code)]
    assert body["execution_metadata"]["model"]["fallbacks"] == [FALLBACK]
    metrics = (await client.get("/metrics")).text
    assert f'taskchat_llm_model_answers_total{{model="{PRIMARY}",outcome="{code}"}} 1.0' in metrics
    assert f'taskchat_llm_model_answers_total{{model="{FALLBACK}",outcome="ok"}}' in metrics


async def test_a_tool_that_ran_is_not_run_again_when_the_next_request_falls_back(make_client: MakeClient) -> None:
    # model-a makes the call, then fails on the request that carries its result; model-b answers that one.
    models = Models(
        model_a=[calls(("add_task", {"title": "Buy milk"})), httpx.Response(502)],
        model_b=[completion("Added Buy milk.")],
    )
    llm = _llm(models)
    client = await _client(make_client, llm, response_mode="model", reply_check="lists")

    body = (await chat(client, "add buy milk")).json()

    assert [t["title"] for t in await tasks_of(client)] == ["Buy milk"]  # once
    assert [c["name"] for c in body["tool_calls"]] == ["add_task"]
    trace = body["execution_metadata"]["trace"]
    assert [s.get("model") for s in trace] == [PRIMARY, FALLBACK]
    assert trace[1]["fallbacks"][0]["model"] == PRIMARY
    # model-b got the whole conversation so far, the tool's result included
    assert any(m["role"] == "tool" for m in llm.requests[-1]["messages"])


async def _firsts(client: httpx.AsyncClient, models: Models, turns: int) -> list[str]:
    """The model each turn asked first."""
    firsts = []
    for _ in range(turns):
        before = len(models.asked)
        assert (await chat(client, "hi there, how are you?")).status_code == 200
        firsts.append(models.asked[before])
    return firsts


async def test_a_failing_model_cools_down_and_is_tried_again_after(make_client: MakeClient) -> None:
    answer = completion("Fine, thanks!")
    models = Models(model_a=[httpx.Response(503), answer], model_b=[answer])
    client = await _client(make_client, _llm(models), llm_cooldown_s=3600)

    assert await _firsts(client, models, 3) == [PRIMARY, FALLBACK, FALLBACK]
    assert Counter(models.asked)[PRIMARY] == 1  # cooling: tried last, and model-b answers first


async def test_with_no_cooldown_the_first_model_is_asked_first_again(make_client: MakeClient) -> None:
    answer = completion("Fine, thanks!")
    models = Models(model_a=[httpx.Response(503), answer], model_b=[answer])
    client = await _client(make_client, _llm(models), llm_cooldown_s=0)

    assert await _firsts(client, models, 2) == [PRIMARY, PRIMARY]
    assert models.asked == [PRIMARY, FALLBACK, PRIMARY]


async def test_when_every_model_fails_the_turn_fails_naming_each_and_changes_nothing(make_client: MakeClient) -> None:
    models = Models(model_a=[httpx.Response(503)], model_b=[httpx.Response(500)])
    client = await _client(make_client, _llm(models))
    await seed_tasks(client, "Gym")

    response = await chat(client, "delete gym")

    assert response.status_code == 503, response.text
    error = response.json()
    assert error["error"] == "LLM_UNAVAILABLE"
    assert PRIMARY in error["detail"] and FALLBACK in error["detail"]
    assert [t["title"] for t in await tasks_of(client)] == ["Gym"]


async def test_a_fallback_may_have_its_own_server_and_key(make_client: MakeClient) -> None:
    models = Models(model_a=[httpx.Response(503)], model_b=[completion("Fine, thanks!")])
    llm = _llm(models)
    own = [{"model": FALLBACK, "base_url": "http://local-model.test/v1", "api_key": "sk-local-key"}]
    client = await _client(
        make_client, llm, llm_base_url="http://primary.test/v1", llm_api_key="sk-a", llm_fallbacks=own
    )

    assert (await chat(client, "hi there, how are you?")).status_code == 200

    sent = list(zip(llm.urls, [h.get("authorization") for h in llm.headers], strict=True))
    assert sent[:2] == [
        ("http://primary.test/v1/chat/completions", "Bearer sk-a"),
        ("http://local-model.test/v1/chat/completions", "Bearer sk-local-key"),
    ]


async def test_one_model_keeps_its_metadata_unchanged(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=completion("You have no tasks."))
    client = await make_client(llm)

    body = (await chat(client, "what's on my list?")).json()

    meta = body["execution_metadata"]
    assert "fallbacks" not in meta["model"]
    assert all("model" not in s and "fallbacks" not in s for s in meta["trace"])


def test_llm_fallbacks_is_read_as_json_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from backend.app.core.config import Settings

    monkeypatch.setenv("LLM_FALLBACKS", '[{"model": "b"}, {"model": "c", "base_url": "http://c.test/v1"}]')
    monkeypatch.setenv("LLM_COOLDOWN_S", "5")
    settings = Settings(_env_file=None)
    assert [(f.model, f.base_url, f.api_key) for f in settings.llm_fallbacks] == [
        ("b", None, None),
        ("c", "http://c.test/v1", None),
    ]
    assert settings.llm_cooldown_s == 5


# -- the choice by measured success (issue 26 part 3) ---------------------------------------------


async def test_every_instance_learns_from_every_turn(make_client: MakeClient) -> None:
    """Instance one sees model-a fail and model-b answer; instance two, on the same database, asks
    model-b first (greedy: the better mean) without having seen a turn itself."""
    learning = {"routing_strategy": "greedy", "routing_refresh_s": 0, "llm_cooldown_s": 0}
    first = Models(model_a=[httpx.Response(503)], model_b=[completion("Fine, thanks!")])
    one = await _client(make_client, _llm(first), **learning)
    for _ in range(3):
        assert (await chat(one, "hi there, how are you?")).status_code == 200

    second = Models(model_a=[completion("Fine, thanks!")], model_b=[completion("Fine, thanks!")])
    two = await _client(make_client, _llm(second), **learning)
    body = (await chat(two, "hi there, how are you?")).json()

    routing = body["execution_metadata"]["routing"]
    assert (routing["strategy"], routing["chosen"], routing["how"]) == ("greedy", FALLBACK, "exploit")
    estimates = {e["model"]: (e["n"], e["mean_reward"]) for e in routing["estimates"]}
    assert estimates[PRIMARY][1] == 0.0 and estimates[FALLBACK][1] == 1.0
    assert estimates[PRIMARY][0] >= 1 and estimates[FALLBACK][0] >= 3
    assert second.asked[0] == FALLBACK


async def test_the_default_strategy_is_the_configured_order_and_says_so(make_client: MakeClient) -> None:
    models = Models(model_a=[completion("Fine, thanks!")], model_b=[completion("Fine, thanks!")])
    client = await _client(make_client, _llm(models))

    body = (await chat(client, "hi there, how are you?")).json()

    routing = body["execution_metadata"]["routing"]
    assert (routing["strategy"], routing["chosen"], routing["how"]) == ("fixed", PRIMARY, "fixed")
    assert models.asked == [PRIMARY]
    metrics = (await client.get("/metrics")).text
    assert f'taskchat_routing_choices_total{{how="fixed",model="{PRIMARY}",policy="guarded"}} 1.0' in metrics


async def test_a_turn_that_fails_on_every_model_counts_against_the_one_chosen(make_client: MakeClient) -> None:
    import sqlalchemy as sa

    models = Models(model_a=[httpx.Response(503)], model_b=[httpx.Response(503)])
    client = await _client(make_client, _llm(models))
    assert (await chat(client, "hi there, how are you?")).status_code == 503

    async with client.app.state.engine.connect() as conn:
        rows = (await conn.execute(sa.text("SELECT model, reward FROM routing_outcomes"))).all()
    assert [(m, r) for m, r in rows] == [(PRIMARY, 0.0)]


@pytest.mark.parametrize("strategy", ["greedy", "epsilon_greedy", "ucb1", "thompson"])
async def test_each_strategy_converges_on_the_model_that_answers(make_client: MakeClient, strategy: str) -> None:
    """model-a fails every request (model-b then answers it); within 30 turns each strategy asks model-b first."""
    models = Models(model_a=[httpx.Response(503)], model_b=[completion("Fine, thanks!")])
    client = await _client(
        make_client,
        _llm(models),
        routing_strategy=strategy,
        routing_refresh_s=0,
        routing_seed=3,
        routing_ucb_c=0.3,
        llm_cooldown_s=0,
    )

    firsts = await _firsts(client, models, 30)

    assert firsts[-10:].count(FALLBACK) >= 8, firsts


async def test_a_fallback_of_another_provider_gets_the_request_in_its_own_shape(make_client: MakeClient) -> None:
    # model-a (OpenRouter) makes the call, then fails; model-b (llama.cpp) gets the tool-call turn with
    # `content: ""` (llama.cpp refuses null) and schemas capped for its grammar compiler.
    models = Models(
        model_a=[calls(("add_task", {"title": "Buy milk"})), httpx.Response(502)],
        model_b=[completion("Added Buy milk.")],
    )
    llm = _llm(models)
    local = [{"model": FALLBACK, "base_url": "http://127.0.0.1:8080/v1", "provider": "llamacpp"}]
    client = await _client(
        make_client, llm, llm_provider="openrouter", llm_fallbacks=local, response_mode="model", reply_check="lists"
    )

    assert (await chat(client, "add buy milk")).status_code == 200

    to_a, to_b = llm.requests[1], llm.requests[2]
    assert (to_a["model"], to_b["model"]) == (PRIMARY, FALLBACK)
    assert [m["content"] for m in to_a["messages"] if m.get("tool_calls")] == [None]
    assert [m["content"] for m in to_b["messages"] if m.get("tool_calls")] == [""]
    lengths = [p.get("maxLength") for t in to_b["tools"] for p in t["function"]["parameters"]["properties"].values()]
    assert max(x for x in lengths if x is not None) <= 200
    assert [t["title"] for t in await tasks_of(client)] == ["Buy milk"]


async def test_outcomes_older_than_the_max_age_are_forgotten(make_client: MakeClient) -> None:
    from datetime import timedelta

    from support.api import NOW

    from backend.app.core.clock import FixedClock

    learning = {"routing_strategy": "greedy", "routing_refresh_s": 0, "llm_cooldown_s": 0, "routing_max_age_s": 3600}
    first = Models(model_a=[httpx.Response(503)], model_b=[completion("Fine, thanks!")])
    one = await _client(make_client, _llm(first), **learning)
    for _ in range(2):
        assert (await chat(one, "hi there, how are you?")).status_code == 200

    later = FixedClock(NOW + timedelta(hours=2))  # model-a's failures are two hours old
    second = Models(model_a=[completion("Fine, thanks!")], model_b=[completion("Fine, thanks!")])
    two = await _client(make_client, _llm(second), clock=later, **learning)
    routing = (await chat(two, "hi there, how are you?")).json()["execution_metadata"]["routing"]

    assert [e["n"] for e in routing["estimates"]] == [0, 0]
    assert (routing["chosen"], routing["how"]) == (PRIMARY, "explore")  # a fresh start
