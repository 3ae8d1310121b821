"""JWT encode/decode (HS256 only) and the owner check.

python-jose's defaults are weak (no algorithm allow-list when `algorithms` is None, a substring
test when it is a string, no claim required), so every option is set explicitly here.
"""

from __future__ import annotations

import time
from typing import Any

from jose import jwt
from jose.exceptions import JOSEError

from backend.app.core.config import Settings
from backend.app.core.exceptions import Forbidden, Unauthorized

ALGORITHM = "HS256"
# A real HS256 token with a few claims is ~200-400 bytes; anything far larger is garbage or abuse
# and is refused before any parsing work.
MAX_TOKEN_CHARS = 4_096


def create_token(*, settings: Settings, user_id: str, minutes: int = 60, now: float | None = None) -> str:
    issued = int(now if now is not None else time.time())
    claims: dict[str, Any] = {"sub": user_id, "iat": issued, "exp": issued + minutes * 60}
    if settings.jwt_audience:
        claims["aud"] = settings.jwt_audience
    if settings.jwt_issuer:
        claims["iss"] = settings.jwt_issuer
    return str(jwt.encode(claims, settings.effective_jwt_secret, algorithm=ALGORITHM))


# Tokens whose signature and claims were verified, keyed by everything the verdict depends on
# except the clock: a client sends the same token with every request, and python-jose's full check
# costs more than the rest of authentication. A hit re-checks the time-bound claims (a miss when
# they fail, so the full check produces the error); only successes are kept, and at most this many.
_VERIFIED_MAX = 4_096
_verified: dict[tuple[str, str, str | None, str | None, int, int], dict[str, Any]] = {}


def decode_token(token: str, *, settings: Settings) -> dict[str, Any]:
    """Return the verified claims or raise Unauthorized; never lets a library error escape."""
    if not token or len(token) > MAX_TOKEN_CHARS or token.count(".") != 2:
        raise Unauthorized("Malformed bearer token")
    key = (
        token,
        settings.effective_jwt_secret,
        settings.jwt_audience,
        settings.jwt_issuer,
        settings.jwt_leeway_s,
        settings.jwt_max_lifetime_minutes,
    )
    cached = _verified.get(key)
    if cached is not None and _still_valid(cached, leeway_s=settings.jwt_leeway_s):
        return dict(cached)
    claims = _decode_and_verify(token, settings=settings)
    if len(_verified) >= _VERIFIED_MAX:
        _verified.pop(next(iter(_verified)))  # the oldest entry
    _verified[key] = dict(claims)
    return claims


def _still_valid(claims: dict[str, Any], *, leeway_s: int) -> bool:
    """The clock-dependent checks of a verified token, as python-jose and `_decode_and_verify` make them."""
    now = time.time()
    nbf = claims.get("nbf")
    return (
        claims["exp"] >= now - leeway_s
        and claims["iat"] <= now + leeway_s
        and (nbf is None or (isinstance(nbf, int | float) and nbf <= now + leeway_s))
    )


def _decode_and_verify(token: str, *, settings: Settings) -> dict[str, Any]:
    try:
        header = jwt.get_unverified_header(token)
        if header.get("alg") != ALGORITHM:
            raise Unauthorized("Token algorithm not allowed")
        claims = jwt.decode(
            token,
            settings.effective_jwt_secret,
            algorithms=[ALGORITHM],
            audience=settings.jwt_audience,
            issuer=settings.jwt_issuer,
            options={
                "require_exp": True,
                "require_iat": True,
                "require_sub": True,
                "verify_aud": settings.jwt_audience is not None,
                "require_aud": settings.jwt_audience is not None,
                "require_iss": settings.jwt_issuer is not None,
                "leeway": settings.jwt_leeway_s,
            },
        )
    except Unauthorized:
        raise
    except (JOSEError, ValueError, TypeError, KeyError, UnicodeError) as exc:
        raise Unauthorized("Invalid or expired token") from exc
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise Unauthorized("Token subject missing")
    if "\x00" in sub:  # no user id holds one, and the database could not even look it up
        raise Unauthorized("Token subject invalid")
    iat, exp = claims.get("iat"), claims.get("exp")
    if not isinstance(iat, int | float) or not isinstance(exp, int | float):
        raise Unauthorized("Token times invalid")
    if exp - iat > settings.jwt_max_lifetime_minutes * 60 + settings.jwt_leeway_s:
        raise Unauthorized("Token lifetime exceeds the allowed maximum")
    # Without this, a token "issued" next month with a 60-minute lifetime is valid from now until then.
    if iat > time.time() + settings.jwt_leeway_s:
        raise Unauthorized("Token issued in the future")
    return claims


def authenticate(authorization: str | None, *, settings: Settings) -> str:
    """Turn an Authorization header into the user id it proves."""
    if not authorization:
        raise Unauthorized("Missing Authorization header")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("Authorization must be 'Bearer <token>'")
    return str(decode_token(token.strip(), settings=settings)["sub"])


def ensure_owner(authenticated_user: str, path_user: str) -> None:
    if authenticated_user != path_user:
        raise Forbidden("Token does not grant access to this user")
