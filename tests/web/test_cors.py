"""CORS_ORIGINS lets a real frontend on another origin call the API (and MCP); other origins get nothing."""

from __future__ import annotations

import pytest
from support.api import MakeClient, auth

from backend.app.core.config import Settings

FRONTEND = "https://app.example.com"
PREFLIGHT = {
    "Origin": FRONTEND,
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization,content-type,idempotency-key",
}


async def test_allowed_origin_gets_preflight_and_response_headers(make_client: MakeClient) -> None:
    client = await make_client(offline=True, cors_origins=[FRONTEND])

    preflight = await client.options("/api/alice/chat", headers=PREFLIGHT)
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == FRONTEND
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert {"authorization", "content-type", "idempotency-key"} <= {h.strip() for h in allowed.split(",")}

    response = await client.post(
        "/api/alice/chat", json={"message": "add buy milk"}, headers={**auth(), "Origin": FRONTEND}
    )
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == FRONTEND
    assert "x-request-id" in response.headers["access-control-expose-headers"].lower()

    mcp = await client.options("/mcp", headers={**PREFLIGHT, "Access-Control-Request-Headers": "mcp-session-id"})
    assert mcp.status_code == 200 and mcp.headers["access-control-allow-origin"] == FRONTEND


async def test_the_middlewares_own_errors_are_readable_from_the_allowed_origin(make_client: MakeClient) -> None:
    """A 413 (body cap) or a 400 (two identities) is answered before the routes: a browser on the
    frontend's origin must still be allowed to read it, or it sees only a failed fetch."""
    client = await make_client(offline=True, cors_origins=[FRONTEND], max_body_bytes=1_000, max_chat_body_bytes=2_000)
    too_large = await client.post(
        "/api/alice/tasks",
        content=b"x" * 5_000,
        headers={**auth(), "Origin": FRONTEND, "Content-Type": "application/json"},
    )
    assert too_large.status_code == 413 and too_large.json()["error"] == "PAYLOAD_TOO_LARGE"
    assert too_large.headers["access-control-allow-origin"] == FRONTEND
    two = await client.get(
        "/api/alice/tasks", headers=[("Authorization", auth()["Authorization"])] * 2 + [("Origin", FRONTEND)]
    )
    assert two.status_code == 400 and two.headers["access-control-allow-origin"] == FRONTEND


async def test_other_origins_get_no_cors_headers(make_client: MakeClient) -> None:
    client = await make_client(offline=True, cors_origins=[FRONTEND])

    preflight = await client.options("/api/alice/chat", headers={**PREFLIGHT, "Origin": "https://evil.example"})
    assert preflight.status_code == 400
    assert "access-control-allow-origin" not in preflight.headers
    response = await client.get("/api/alice/tasks", headers={**auth(), "Origin": "https://evil.example"})
    assert "access-control-allow-origin" not in response.headers


async def test_no_cors_origins_means_no_cors(make_client: MakeClient) -> None:
    client = await make_client(offline=True)
    response = await client.get("/api/alice/tasks", headers={**auth(), "Origin": FRONTEND})
    assert response.status_code == 200
    assert "access-control-allow-origin" not in response.headers


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ("https://a.test, https://b.test", ["https://a.test", "https://b.test"]),
        ('["https://a.test"]', ["https://a.test"]),
        ("", []),
    ],
)
def test_cors_origins_from_the_environment(monkeypatch: pytest.MonkeyPatch, raw: str, parsed: list[str]) -> None:
    monkeypatch.setenv("CORS_ORIGINS", raw)
    assert Settings(_env_file=None).cors_origins == parsed
