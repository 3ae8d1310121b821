"""POST /dev/token: a development helper for the page, absent everywhere else."""

from __future__ import annotations

from support.api import TEST_SECRET, MakeClient

from backend.app.core.config import Settings
from backend.app.core.security import decode_token


async def test_mints_a_token_that_the_api_accepts(make_client: MakeClient) -> None:
    client = await make_client(offline=True, environment="development")

    response = await client.post("/dev/token", json={"user_id": "alice", "minutes": 5})

    assert response.status_code == 200
    body = response.json()
    assert (body["token_type"], body["user_id"], body["expires_in"]) == ("bearer", "alice", 300)
    claims = decode_token(body["access_token"], settings=Settings(_env_file=None, jwt_secret=TEST_SECRET))
    assert claims["sub"] == "alice" and claims["exp"] - claims["iat"] == 300
    tasks = await client.get("/api/alice/tasks", headers={"Authorization": f"Bearer {body['access_token']}"})
    assert tasks.status_code == 200


async def test_refuses_bad_requests(make_client: MakeClient) -> None:
    client = await make_client(offline=True, environment="development", jwt_max_lifetime_minutes=60)
    for body in ({"user_id": "alice", "minutes": 61}, {"user_id": ""}, {"user_id": "a\nb"}, {"user_id": "a", "x": 1}):
        response = await client.post("/dev/token", json=body)
        assert response.status_code == 422, body
        assert response.json()["error"] == "VALIDATION_ERROR"


async def test_absent_outside_development(make_client: MakeClient) -> None:
    client = await make_client(offline=True)  # ENVIRONMENT=test
    response = await client.post("/dev/token", json={"user_id": "alice"})
    assert response.status_code == 404
    assert response.json()["error"] == "NOT_FOUND"
