"""Identity-provider tokens (issue 16): RS256 and ES256 tokens verified against the keys a local JWKS
server publishes, fetched with httpx, cached, refetched for an unknown `kid` at most once per
JWT_JWKS_REFRESH_S; HS256 still verified with JWT_SECRET; no algorithm or key confusion."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import uvicorn
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jose import jwk, jwt
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from support.api import TEST_SECRET, MakeClient, token_for

from backend.app.core.config import Settings

ISSUER = "https://idp.test/"
AUDIENCE = "taskchat"


@dataclass
class Key:
    kid: str
    algorithm: str
    private_pem: bytes
    public_pem: bytes

    @classmethod
    def rsa(cls, kid: str) -> Key:
        private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return cls(kid, "RS256", *_pems(private))

    @classmethod
    def ec(cls, kid: str) -> Key:
        return cls(kid, "ES256", *_pems(ec.generate_private_key(ec.SECP256R1())))

    def public_jwk(self) -> dict[str, Any]:
        return {**jwk.construct(self.public_pem, self.algorithm).to_dict(), "kid": self.kid, "use": "sig"}

    def token(self, user: str = "alice", *, lifetime: int = 600, **claims: Any) -> str:
        now = int(time.time())
        body = {"sub": user, "iat": now, "exp": now + lifetime, "iss": ISSUER, "aud": AUDIENCE, **claims}
        return str(jwt.encode(body, self.private_pem.decode(), algorithm=self.algorithm, headers={"kid": self.kid}))


def _pems(private: Any) -> tuple[bytes, bytes]:
    return (
        private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ),
        private.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo),
    )


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def hmac_token(claims: dict[str, Any], secret: bytes, **header: Any) -> str:
    """HS256 signed with any bytes as the secret (python-jose refuses a PEM; an attacker would not)."""
    head = _b64(json.dumps({"alg": "HS256", "typ": "JWT", **header}).encode())
    body = _b64(json.dumps(claims).encode())
    signature = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(signature)}"


@dataclass
class Provider:
    """A local identity provider's JWKS endpoint: its keys can rotate and it can go down."""

    url: str = ""
    keys: list[Key] = field(default_factory=list)
    requests: int = 0
    down: bool = False
    cache_control: str | None = None  # the provider's Cache-Control on its JWKS document

    async def jwks(self, _request: Request) -> Response:
        self.requests += 1
        if self.down:
            return Response(status_code=503)
        headers = {"Cache-Control": self.cache_control} if self.cache_control else None
        return JSONResponse({"keys": [k.public_jwk() for k in self.keys]}, headers=headers)


@pytest.fixture(scope="module")
def keys() -> dict[str, Key]:
    return {"rsa": Key.rsa("rsa-1"), "ec": Key.ec("ec-1"), "rsa2": Key.rsa("rsa-2")}


@pytest.fixture
async def provider(keys: dict[str, Key]) -> AsyncIterator[Provider]:
    found = Provider(keys=[keys["rsa"], keys["ec"]])
    app = Starlette(routes=[Route("/.well-known/jwks.json", found.jwks)])
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    for _ in range(500):
        if server.started:
            break
        await asyncio.sleep(0.01)
    found.url = f"http://127.0.0.1:{sock.getsockname()[1]}/.well-known/jwks.json"
    yield found
    server.should_exit = True
    await task


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def app_for(make_client: MakeClient, provider: Provider, **settings: Any) -> tuple[httpx.AsyncClient, Clock]:
    settings.setdefault("jwt_algorithms", ["HS256", "RS256", "ES256"])
    client = await make_client(
        offline=True, jwt_jwks_url=provider.url, jwt_issuer=ISSUER, jwt_audience=AUDIENCE, **settings
    )
    clock = Clock()
    client.app.state.keys.clock = clock
    return client, clock


async def status(client: httpx.AsyncClient, token: str, user: str = "alice") -> int:
    response = await client.get(f"/api/{user}/tasks", headers={"Authorization": f"Bearer {token}"})
    return response.status_code


async def test_rs256_and_es256_tokens_are_accepted_with_keys_fetched_once(
    make_client: MakeClient, provider: Provider, keys: dict[str, Key]
) -> None:
    client, _ = await app_for(make_client, provider)

    for _ in range(5):
        assert await status(client, keys["rsa"].token()) == 200
        assert await status(client, keys["ec"].token()) == 200
    assert await status(client, keys["rsa"].token("bob"), user="alice") == 403  # sub is still the path user
    assert provider.requests == 1  # cached: never per request


async def test_hs256_still_works_beside_them(make_client: MakeClient, provider: Provider) -> None:
    client, _ = await app_for(make_client, provider, jwt_secret=TEST_SECRET)
    settings_token = jwt.encode(
        {"sub": "alice", "iat": int(time.time()), "exp": int(time.time()) + 600, "iss": ISSUER, "aud": AUDIENCE},
        TEST_SECRET,
        algorithm="HS256",
    )
    assert await status(client, settings_token) == 200
    assert provider.requests == 0  # HS256 needs no key from the provider


async def test_only_the_listed_algorithms(make_client: MakeClient, provider: Provider, keys: dict[str, Key]) -> None:
    client, _ = await app_for(make_client, provider, jwt_algorithms=["RS256"])

    assert await status(client, keys["rsa"].token()) == 200
    assert await status(client, keys["ec"].token()) == 401
    assert await status(client, token_for("alice")) == 401  # HS256 not allowed here


async def test_claims_are_checked_as_for_hs256(
    make_client: MakeClient, provider: Provider, keys: dict[str, Key]
) -> None:
    client, _ = await app_for(make_client, provider)
    rsa_key = keys["rsa"]

    assert await status(client, rsa_key.token(lifetime=-120)) == 401  # expired
    assert await status(client, rsa_key.token(aud="someone-else")) == 401
    assert await status(client, rsa_key.token(iss="https://evil.test/")) == 401
    assert await status(client, rsa_key.token(lifetime=24 * 3600)) == 401  # over JWT_MAX_LIFETIME_MINUTES
    forged = rsa_key.token()[:-4] + ("AAAA" if not rsa_key.token().endswith("AAAA") else "BBBB")
    assert await status(client, forged) == 401


async def test_no_key_confusion(make_client: MakeClient, provider: Provider, keys: dict[str, Key]) -> None:
    client, _ = await app_for(make_client, provider, jwt_secret=TEST_SECRET)
    rsa_key, ec_key = keys["rsa"], keys["ec"]
    now = int(time.time())
    claims = {"sub": "alice", "iat": now, "exp": now + 600, "iss": ISSUER, "aud": AUDIENCE}

    # HS256 signed with the RSA public key as the HMAC secret: verified with JWT_SECRET only.
    confused = hmac_token(claims, rsa_key.public_pem, kid=rsa_key.kid)
    assert await status(client, confused) == 401
    # An RS256 token naming the EC key's kid (and the reverse): a key verifies only its own algorithm.
    mislabelled = jwt.encode(claims, rsa_key.private_pem.decode(), algorithm="RS256", headers={"kid": ec_key.kid})
    assert await status(client, mislabelled) == 401
    mislabelled = jwt.encode(claims, ec_key.private_pem.decode(), algorithm="ES256", headers={"kid": rsa_key.kid})
    assert await status(client, mislabelled) == 401
    # Signed by a key the provider does not publish, under a kid it does.
    stranger = Key.rsa(rsa_key.kid)
    assert await status(client, stranger.token()) == 401


async def test_an_unknown_kid_refetches_at_most_once_per_interval(
    make_client: MakeClient, provider: Provider, keys: dict[str, Key]
) -> None:
    client, clock = await app_for(make_client, provider, jwt_jwks_refresh_s=60)
    assert await status(client, keys["rsa"].token()) == 200
    assert provider.requests == 1

    unknown = [Key.rsa(f"made-up-{i}") for i in range(3)]
    clock.now += 61
    for key in unknown * 3:  # a flood of made-up key ids
        assert await status(client, key.token()) == 401
    assert provider.requests == 2  # one refetch, not one per request
    clock.now += 30
    assert await status(client, unknown[0].token()) == 401
    assert provider.requests == 2  # still inside the interval


async def test_rotation(make_client: MakeClient, provider: Provider, keys: dict[str, Key]) -> None:
    client, clock = await app_for(make_client, provider)
    old, new = keys["rsa"], keys["rsa2"]
    assert await status(client, old.token()) == 200

    provider.keys = [new, keys["ec"]]  # the provider rotates its RSA key
    clock.now += 61
    assert await status(client, new.token()) == 200  # unknown kid: refetched, found
    assert await status(client, old.token()) == 401  # retired
    assert provider.requests == 2


async def test_keys_unavailable_is_503_then_recovers(
    make_client: MakeClient, provider: Provider, keys: dict[str, Key]
) -> None:
    provider.down = True
    client, clock = await app_for(make_client, provider)

    response = await client.get("/api/alice/tasks", headers={"Authorization": f"Bearer {keys['rsa'].token()}"})
    assert response.status_code == 503 and response.json()["error"] == "AUTH_KEYS_UNAVAILABLE"

    provider.down = False
    clock.now += 61
    assert await status(client, keys["rsa"].token()) == 200
    provider.down = True  # later outages: the keys held stay in use
    clock.now += 4000
    assert await status(client, keys["rsa"].token()) == 200


def test_settings_need_a_jwks_url_for_rs256_and_es256() -> None:
    with pytest.raises(ValidationError, match="JWT_JWKS_URL is required"):
        Settings(_env_file=None, jwt_algorithms="HS256,RS256")
    with pytest.raises(ValidationError, match="neither RS256 nor ES256"):
        Settings(_env_file=None, jwt_jwks_url="http://idp.test/jwks")
    assert Settings(_env_file=None, jwt_algorithms="rs256, es256", jwt_jwks_url="http://x/jwks").jwt_algorithms == [
        "RS256",
        "ES256",
    ]
    # Production without JWT_SECRET is fine when HS256 is not accepted at all.
    production = Settings(_env_file=None, environment="production", jwt_algorithms="RS256", jwt_jwks_url="http://x/j")
    assert production.jwt_secret is None


@pytest.mark.parametrize(
    ("cache_control", "kept_s"),
    [
        ("public, max-age=300", 300),  # the provider's word, within the bounds
        ("max-age=120, s-maxage=600", 600),  # a shared cache's lifetime wins
        ("no-cache", 60),  # as soon as the refresh interval allows
        ("max-age=86400", 3600),  # never past JWT_JWKS_MAX_AGE_S
        (None, 3600),  # no word: the ceiling
    ],
)
async def test_the_providers_cache_headers_bound_how_long_keys_are_kept(
    make_client: MakeClient, provider: Provider, keys: dict[str, Key], cache_control: str | None, kept_s: float
) -> None:
    provider.cache_control = cache_control
    client, clock = await app_for(make_client, provider)
    token = keys["rsa"].token()
    assert await status(client, token) == 200 and provider.requests == 1

    clock.now += kept_s - 1  # still fresh: no fetch
    assert await status(client, token) == 200 and provider.requests == 1
    clock.now += 2  # past its lifetime: fetched again
    assert await status(client, token) == 200 and provider.requests == 2
