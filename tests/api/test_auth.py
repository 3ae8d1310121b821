"""401 for a missing or bad token, 403 for another user's path, always the contract's error JSON."""

from __future__ import annotations

import uuid

import pytest
from support.api import MakeClient, auth, token_for
from support.fake_llm import ScriptedLLM


async def test_missing_token_is_401(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM())
    response = await client.post("/api/alice/chat", json={"message": "list"})
    assert response.status_code == 401
    assert response.json()["error"] == "UNAUTHORIZED"
    assert response.json()["detail"]


async def test_garbage_token_is_401(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM())
    response = await client.get("/api/alice/tasks", headers={"Authorization": "Bearer not.a.token"})
    assert response.status_code == 401
    assert response.json()["error"] == "UNAUTHORIZED"


async def test_other_users_token_is_403(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    response = await client.post("/api/alice/chat", json={"message": "list my tasks"}, headers=auth("bob"))
    assert response.status_code == 403
    assert response.json()["error"] == "FORBIDDEN"
    assert llm.requests == []  # refused before the model was asked anything
    assert (await client.get("/api/alice/tasks", headers=auth("bob"))).status_code == 403


async def test_expired_token_is_401(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM())
    from datetime import UTC, datetime

    from support.api import TEST_SECRET

    from backend.app.core.config import Settings
    from backend.app.core.security import create_token

    settings = Settings(_env_file=None, jwt_secret=TEST_SECRET)
    old = create_token(settings=settings, user_id="alice", minutes=5, now=datetime.now(UTC).timestamp() - 3600)
    response = await client.get("/api/alice/tasks", headers={"Authorization": f"Bearer {old}"})
    assert response.status_code == 401


async def test_valid_token_reads_own_tasks(make_client: MakeClient) -> None:
    client = await make_client(ScriptedLLM())
    response = await client.get("/api/alice/tasks", headers={"Authorization": f"Bearer {token_for('alice')}"})
    assert response.status_code == 200
    assert response.json() == []


async def test_empty_audience_and_issuer_variables_mean_unset(
    make_client: MakeClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A .env copied with `JWT_AUDIENCE=` must not start requiring an empty `aud` claim.
    monkeypatch.setenv("JWT_AUDIENCE", "")
    monkeypatch.setenv("JWT_ISSUER", "")
    client = await make_client(ScriptedLLM())
    response = await client.get("/api/alice/tasks", headers=auth("alice"))
    assert response.status_code == 200, response.text
    assert response.json() == []


async def test_two_authorization_headers_are_a_400_on_every_route_and_on_mcp(make_client: MakeClient) -> None:
    # One request, one identity: the same token twice, or two users' tokens, whichever a route would
    # have read. Every route of the schema, every method, and the MCP endpoint.
    client = await make_client(ScriptedLLM())
    ids = {"user_id": "alice", "task_id": str(uuid.uuid4()), "conversation_id": str(uuid.uuid4())}
    schema = (await client.get("/openapi.json")).json()
    routes = [(m.upper(), p.format(**ids)) for p, item in schema["paths"].items() for m in item]
    routes += [("POST", "/mcp"), ("GET", "/mcp")]
    assert len(routes) > 10
    alice, bob = token_for("alice"), token_for("bob")
    for pair in ((alice, bob), (alice, alice)):
        for method, path in routes:
            headers = [("Authorization", f"Bearer {t}") for t in pair] + [("Content-Type", "application/json")]
            response = await client.request(method, path, headers=headers, content=b"{}")
            assert response.status_code == 400, (method, path, response.status_code, response.text)
            assert response.json() == {
                "error": "BAD_REQUEST",
                "detail": "A request carries one Authorization header; this one has 2",
            }
    one = await client.get("/api/alice/tasks", headers=[("Authorization", f"Bearer {alice}")])
    assert one.status_code == 200


async def test_the_chat_routes_own_checks_answer_as_the_other_routes_dependency_does(make_client: MakeClient) -> None:
    """The chat route checks its path's user and the token itself (api/routes/chat.py `_checked`, not
    deps.BearerUser): the same answers as a route that declares them, before the body is read as a
    request, and before any model is asked."""
    llm = ScriptedLLM()
    client = await make_client(llm)
    long_user = "u" * 256
    bad_body = {"text": "no message"}
    for path in (f"/api/{long_user}/chat", f"/api/{long_user}/tasks"):
        response = await client.request(
            "POST" if path.endswith("chat") else "GET", path, json=bad_body, headers=auth(long_user)
        )
        assert response.status_code == 422, (path, response.text)
        assert response.json()["detail"] == "path.user_id: String should have at most 255 characters", path
    for path in ("/api/alice/chat", "/api/alice/tasks"):
        method = "POST" if path.endswith("chat") else "GET"
        missing = await client.request(method, path, json=bad_body)
        other = await client.request(method, path, json=bad_body, headers=auth("bob"))
        assert (missing.status_code, missing.json()["error"]) == (401, "UNAUTHORIZED"), path
        assert missing.headers.get("www-authenticate") == "Bearer", path
        assert (other.status_code, other.json()["error"]) == (403, "FORBIDDEN"), path
    assert llm.requests == []
