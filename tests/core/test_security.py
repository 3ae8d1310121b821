"""The verified-token cache of decode_token never accepts what a full check would refuse."""

from __future__ import annotations

import time
from typing import Any

import pytest

from backend.app.core import security
from backend.app.core.config import Settings
from backend.app.core.exceptions import Unauthorized
from backend.app.core.security import create_token, decode_token

SECRET = "unit-secret-0123456789-abcdefghijklmnopqrstuvwxyz"


def _settings(**overrides: Any) -> Settings:
    return Settings(_env_file=None, jwt_secret=SECRET, **overrides)


def test_a_cached_token_past_its_expiry_goes_back_to_the_full_check(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _settings()
    now = time.time()
    token = create_token(settings=settings, user_id="alice", minutes=1, now=now)
    assert decode_token(token, settings=settings)["sub"] == "alice"

    def full_check(token: str, *, settings: Settings) -> dict[str, object]:
        raise Unauthorized("Invalid or expired token")

    monkeypatch.setattr(security, "_decode_and_verify", full_check)
    assert decode_token(token, settings=settings)["sub"] == "alice"  # still valid: served from the cache
    monkeypatch.setattr(time, "time", lambda: now + 60 + settings.jwt_leeway_s + 5)
    with pytest.raises(Unauthorized):
        decode_token(token, settings=settings)


def test_a_token_verified_under_one_secret_is_not_accepted_under_another() -> None:
    token = create_token(settings=_settings(), user_id="alice")
    assert decode_token(token, settings=_settings())["sub"] == "alice"
    other = Settings(_env_file=None, jwt_secret="another-secret-0123456789-abcdefghijklmnop")
    with pytest.raises(Unauthorized):
        decode_token(token, settings=other)


def test_a_token_verified_without_an_audience_is_refused_when_one_is_required() -> None:
    token = create_token(settings=_settings(), user_id="alice")
    assert decode_token(token, settings=_settings())["sub"] == "alice"
    with pytest.raises(Unauthorized):
        decode_token(token, settings=_settings(jwt_audience="taskchat"))


def test_callers_cannot_change_the_cached_claims() -> None:
    settings = _settings()
    token = create_token(settings=settings, user_id="alice")
    decode_token(token, settings=settings)["sub"] = "mallory"
    assert decode_token(token, settings=settings)["sub"] == "alice"


async def test_a_known_token_is_only_looked_up_and_stays_refused_where_its_algorithm_is_not_allowed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """decode_any_token (every request's): a token verified before costs a lookup (no structure check,
    no header parsed); once HS256 is not among JWT_ALGORITHMS, the same token is refused, cache or not."""
    settings = _settings()
    token = create_token(settings=settings, user_id="alice")
    assert (await security.decode_any_token(token, settings=settings, keys=None))["sub"] == "alice"

    def not_again(token: str) -> None:
        raise AssertionError("a known token's structure was checked again")

    monkeypatch.setattr(security, "_check_structure", not_again)
    assert (await security.decode_any_token(token, settings=settings, keys=None))["sub"] == "alice"
    monkeypatch.undo()
    elsewhere = _settings(jwt_algorithms=["RS256"], jwt_jwks_url="https://idp.example/jwks.json")
    with pytest.raises(Unauthorized, match="algorithm"):
        await security.decode_any_token(token, settings=elsewhere, keys=None)
