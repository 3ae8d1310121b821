"""Schemathesis against the app's own `/openapi.json`, in process, on Postgres, with the offline
model (no key), so chat turns really run. Every generated request carries a valid token for the
generated path user, so the fuzzing reaches the handlers instead of stopping at 401.

Checks per response: no 5xx, the status code is documented, the content type and the body
conform to the schema. Positive and negative (schema-violating) inputs are both generated.
Also: hand-picked hostile inputs the generator is unlikely to draw (NUL, huge, odd encodings).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase
from hypothesis import strategies as st
from reliability.rel_support import Figures, assert_error_shape
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.core.failures import FailureGroup
from schemathesis.core.result import Ok
from schemathesis.python import asgi as schemathesis_asgi
from support.api import TEST_SECRET, MakeClient, auth, chat, make_settings, tasks_of
from support.fake_llm import ScriptedLLM, calls

from backend.app.core.config import Settings
from backend.app.core.security import create_token
from backend.app.main import create_app

EXAMPLES = 250  # per generation mode; the whole test stays well under a minute
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
_TOKENS = Settings(_env_file=None, jwt_secret=TEST_SECRET)


def _authorization(case: schemathesis.Case[Any]) -> dict[str, str]:
    user = (case.path_parameters or {}).get("user_id")
    if not isinstance(user, str) or not user:
        return {}
    return {"Authorization": f"Bearer {create_token(settings=_TOKENS, user_id=user, minutes=30)}"}


def test_schemathesis_finds_no_server_error_and_no_schema_drift(database: str, figures: Figures) -> None:
    app = create_app(make_settings(database, llm_api_key=None), configure_logs=False)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = []
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result
        operations.append(result.ok())
    assert {op.path for op in operations} >= {
        "/api/{user_id}/chat",
        "/api/{user_id}/tasks",
        "/api/{user_id}/conversations",
        "/api/{user_id}/conversations/{conversation_id}/messages",
        "/health",
        "/ready",
    }
    statuses: Counter[int] = Counter()
    failures: list[str] = []

    def run(mode: GenerationMode) -> None:
        strategy = st.one_of([op.as_strategy(generation_mode=mode) for op in operations])

        @hypothesis.settings(
            max_examples=EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,  # the same cases every run: the figures in specs/reliability.md reproduce
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @hypothesis.given(case=strategy)
        def fuzz(case: schemathesis.Case[Any]) -> None:
            response = case.call(headers=_authorization(case))
            statuses[response.status_code] += 1
            figures["schemathesis"][f"cases_{mode.value}"] += 1
            try:
                case.validate_response(response, checks=CHECKS)
            except (AssertionError, FailureGroup) as exc:
                figures["schemathesis"]["failures"] += 1
                failures.append(f"{case.method} {case.formatted_path} -> {response.status_code}: {str(exc)[:300]}")

        fuzz()

    try:
        run(GenerationMode.POSITIVE)
        run(GenerationMode.NEGATIVE)
    finally:
        schemathesis_asgi.shutdown_lifespans()  # disposes the app's engine (started by schemathesis)
    figures["schemathesis"]["server_errors"] += sum(n for s, n in statuses.items() if s >= 500)
    assert failures == [], "\n".join(failures[:10])
    assert statuses[200] > 0 and sum(statuses.values()) >= EXAMPLES  # it did reach the handlers


# -- hostile inputs by hand ------------------------------------------------------------------------


async def test_nul_in_the_message_is_422_not_500(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    response = await chat(client, "add milk\x00and eggs")
    assert_error_shape(response, 422, "VALIDATION_ERROR")
    assert "NUL" in response.json()["detail"]
    assert llm.requests == []


async def test_nul_from_the_model_is_removed_before_it_reaches_the_database(make_client: MakeClient) -> None:
    from support.fake_llm import completion

    llm = ScriptedLLM(
        calls(("add_task", {"title": "Buy\x00 milk", "tags": ["shop\x00"], "description": "x\x00y"})),
        completion("Added \x00it."),
    )
    client = await make_client(llm, response_mode="model")

    response = await chat(client, "add Buy milk, tag it shop")

    assert response.status_code == 200, response.text
    [task] = await tasks_of(client)
    assert (task["title"], task["tags"], task["description"]) == ("Buy milk", ["shop"], "xy")
    body = response.json()
    assert "\x00" not in response.text.replace("\\u0000", "\x00")
    assert any("nul_removed" in step.get("normalizations", []) for step in body["execution_metadata"]["trace"])


@pytest.mark.parametrize(
    "path_user",
    ["a%00b", "%00", "a%2Fb", "%E2%80%AE", "x" * 256, "%F0%9F%98%80", "..", "%20"],
)
async def test_odd_path_users_with_their_own_token_never_500(make_client: MakeClient, path_user: str) -> None:
    from urllib.parse import unquote

    client = await make_client(offline=True)
    user = unquote(path_user)
    headers = {"Authorization": f"Bearer {create_token(settings=_TOKENS, user_id=user, minutes=30)}"}
    routes = (("GET", "tasks", None), ("GET", "conversations", None), ("POST", "chat", {"message": "list my tasks"}))
    for method, suffix, body in routes:
        response = await client.request(method, f"/api/{path_user}/{suffix}", headers=headers, json=body)
        assert response.status_code < 500, (path_user, suffix, response.text)
        if response.status_code != 200:
            assert_error_shape(response, response.status_code)


async def test_odd_bodies_are_4xx(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    bodies: list[tuple[bytes, str]] = [
        (b"", "application/json"),
        (b"null", "application/json"),
        (b"[]", "application/json"),
        (b'"message"', "application/json"),
        (b'{"message": 5}', "application/json"),
        (b'{"message": ["a"]}', "application/json"),
        (b'{"message": "hi", "conversation_id": "not-a-uuid"}', "application/json"),
        (b'{"message": "hi", "budget": {"max_llm_calls": 0}}', "application/json"),
        (b'{"message": "hi", "budget": {"max_llm_calls": 1e400}}', "application/json"),
        (b'{"message": "hi", "budget": {"max_tool_calls": 838327113907096792875114769598644224}}', "application/json"),
        (b'{"message": "hi", "budget": {"max_cost_usd": NaN}}', "application/json"),
        (b'{"message": "hi", "budget": {"max_cost_usd": Infinity}}', "application/json"),
        (b'{"message": "hi", "tool_policy": "yolo"}', "application/json"),
        (b'{"message": "\\ud800"}', "application/json"),
        (b'{"message": "hi"' + b" " * 100 + b"}", "text/plain"),
        (b"\xff\xfe\x00\x00", "application/json"),
        (b'{"message": "' + b"[" * 5000 + b'"}', "application/json"),
        (b"[" * 5000, "application/json"),
        (b"message=hi", "application/x-www-form-urlencoded"),
    ]
    for content, content_type in bodies:
        response = await client.post(
            "/api/alice/chat", content=content, headers={**auth(), "Content-Type": content_type}
        )
        # One status for every unusable body: 422, like malformed JSON (a 400 is not in the contract).
        assert_error_shape(response, 422, "VALIDATION_ERROR")
    assert llm.requests == []


async def test_hostile_idempotency_keys_never_500(make_client: MakeClient) -> None:
    llm = ScriptedLLM(default=calls(("list_tasks", {})))
    client = await make_client(llm)
    keys: list[Any] = ["a", "x" * 255, "x" * 256, "ключ-🔑".encode(), b"\xff\xfe", "a b", "'; DROP TABLE tasks; --"]
    for key in keys:
        response = await client.post(
            "/api/alice/chat", json={"message": "list my tasks"}, headers={**auth(), "Idempotency-Key": key}
        )
        assert response.status_code in (200, 422), (key, response.status_code, response.text)
