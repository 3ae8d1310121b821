"""JWT encode/decode and the owner check.

HS256 tokens are verified with JWT_SECRET; RS256 and ES256 tokens (an identity provider's) with the
public keys its JWKS document publishes at JWT_JWKS_URL (`KeySet`: fetched with httpx, cached,
refetched for an unknown `kid` at most every JWT_JWKS_REFRESH_S, never per request). An algorithm
is accepted only when JWT_ALGORITHMS lists it, and each kind of key only for its own algorithm: an
HS256 token is never checked against a public key, an RS256 one never against an EC key.

python-jose's defaults are weak (no algorithm allow-list when `algorithms` is None, a substring
test when it is a string, no claim required), so every option is set explicitly here.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
from jose import jwt
from jose.exceptions import JOSEError

from backend.app.core.config import Settings
from backend.app.core.exceptions import AppError, Forbidden, Unauthorized

log = logging.getLogger(__name__)

ALGORITHM = "HS256"
# A real HS256 token with a few claims is ~200-400 bytes; anything far larger is garbage or abuse
# and is refused before any parsing work.
MAX_TOKEN_CHARS = 4_096
# A time claim outside this range is no real time (year 2286 at most): refused before any arithmetic,
# so an `exp` of 1e400 (infinity once parsed) or 10**400 cannot overflow anything.
MAX_TIME = 10**10
_SEGMENT = re.compile(r"[A-Za-z0-9_-]+")
_TIME_CLAIMS = ("exp", "iat", "nbf")


def create_token(
    *, settings: Settings, user_id: str, minutes: int = 60, now: float | None = None, zoneinfo: str | None = None
) -> str:
    """A signed HS256 token for `user_id`; `zoneinfo`: the OpenID Connect claim of the user's time zone."""
    issued = int(now if now is not None else time.time())
    claims: dict[str, Any] = {"sub": user_id, "iat": issued, "exp": issued + minutes * 60}
    if zoneinfo is not None:
        claims["zoneinfo"] = zoneinfo
    if settings.jwt_audience:
        claims["aud"] = settings.jwt_audience
    if settings.jwt_issuer:
        claims["iss"] = settings.jwt_issuer
    return str(jwt.encode(claims, settings.effective_jwt_secret, algorithm=ALGORITHM))


# Tokens whose signature and claims were verified, keyed by everything the verdict depends on
# except the clock: a client sends the same token with every request, and python-jose's full check
# costs more than the rest of authentication. A hit re-checks the time-bound claims (a miss when
# they fail, so the full check produces the error) and is all a known token costs: its structure
# and header were checked when it was verified. Only successes are kept, and at most this many.
_VERIFIED_MAX = 4_096
# (token, algorithm, the key: HS256's secret or the public key's JSON, audience, issuer, leeway, max lifetime)
_Key = tuple[str, str, str, str | None, str | None, int, int]
_verified: dict[_Key, dict[str, Any]] = {}


def decode_token(token: str, *, settings: Settings) -> dict[str, Any]:
    """Return the verified claims or raise Unauthorized; never lets a library error escape."""
    _refuse_malformed(token)
    key = _key(token, ALGORITHM, settings.effective_jwt_secret, settings)
    if (known := _known(key, settings)) is not None:
        return known
    _check_structure(token)
    return _verify(key, lambda: _decode_and_verify(token, settings=settings))


def _refuse_malformed(token: str) -> None:
    if not token or len(token) > MAX_TOKEN_CHARS or token.count(".") != 2:
        raise Unauthorized("Malformed bearer token")


def _key(token: str, algorithm: str, key: str, settings: Settings) -> _Key:
    return (
        token,
        algorithm,
        key,
        settings.jwt_audience,
        settings.jwt_issuer,
        settings.jwt_leeway_s,
        settings.jwt_max_lifetime_minutes,
    )


def _known(key: _Key, settings: Settings) -> dict[str, Any] | None:
    """The claims of a token verified before under `key`, while its times still hold."""
    cached = _verified.get(key)
    if cached is not None and _still_valid(cached, leeway_s=settings.jwt_leeway_s):
        return dict(cached)
    return None


def _verify(key: _Key, verify: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    claims = verify()
    if len(_verified) >= _VERIFIED_MAX:
        _verified.pop(next(iter(_verified)))  # the oldest entry
    _verified[key] = dict(claims)
    return claims


async def decode_any_token(token: str, *, settings: Settings, keys: KeySet | None) -> dict[str, Any]:
    """Verified claims of an HS256 token or, with `keys`, an RS256/ES256 one; else Unauthorized."""
    _refuse_malformed(token)
    hs256 = _key(token, ALGORITHM, settings.effective_jwt_secret, settings)
    if ALGORITHM in settings.jwt_algorithms and (known := _known(hs256, settings)) is not None:
        return known
    _check_structure(token)
    header = orjson.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=" * (-len(token.split(".")[0]) % 4)))
    algorithm = header.get("alg")
    if algorithm not in settings.jwt_algorithms:
        raise Unauthorized("Token algorithm not allowed")
    if algorithm == ALGORITHM:
        return _verify(hs256, lambda: _decode_and_verify(token, settings=settings))
    if keys is None:  # settings refuse RS256/ES256 without JWT_JWKS_URL; this is only a safeguard
        raise Unauthorized("Token algorithm not allowed")
    kid = header.get("kid")
    jwk = await keys.key(kid if isinstance(kid, str) else None, algorithm)
    key = _key(token, algorithm, orjson.dumps(jwk, option=orjson.OPT_SORT_KEYS).decode(), settings)
    if (known := _known(key, settings)) is not None:
        return known
    return _verify(key, lambda: _decode_and_verify(token, settings=settings, key=jwk, algorithm=algorithm))


def _check_structure(token: str) -> None:
    """What python-jose lets through: padding or stray bits in base64url (one token, several
    spellings), a header naming critical extensions we do not implement (RFC 7515 §4.1.11: refuse),
    and time claims that are not finite numbers of a sane size."""
    header_b64, payload_b64, signature_b64 = token.split(".")
    parts = []
    for segment in (header_b64, payload_b64, signature_b64):
        if not _SEGMENT.fullmatch(segment):
            raise Unauthorized("Malformed bearer token")
        try:
            raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
        except (binascii.Error, ValueError):
            raise Unauthorized("Malformed bearer token") from None
        if base64.urlsafe_b64encode(raw).rstrip(b"=").decode() != segment:
            raise Unauthorized("Token is not canonically encoded")
        parts.append(raw)
    try:
        header, payload = orjson.loads(parts[0]), orjson.loads(parts[1])
    except orjson.JSONDecodeError:
        raise Unauthorized("Malformed bearer token") from None
    if not isinstance(header, dict) or not isinstance(payload, dict):
        raise Unauthorized("Malformed bearer token")
    if "crit" in header:
        raise Unauthorized("Token names critical extensions this server does not understand")
    for name in _TIME_CLAIMS:
        value = payload.get(name)
        if value is None and name == "nbf":
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise Unauthorized("Token times invalid")
        if not 0 <= value <= MAX_TIME:
            raise Unauthorized("Token times out of range")


def _still_valid(claims: dict[str, Any], *, leeway_s: int) -> bool:
    """The clock-dependent checks of a verified token, as python-jose and `_decode_and_verify` make them."""
    now = time.time()
    nbf = claims.get("nbf")
    return (
        claims["exp"] >= now - leeway_s
        and claims["iat"] <= now + leeway_s
        and (nbf is None or (isinstance(nbf, int | float) and nbf <= now + leeway_s))
    )


def _decode_and_verify(
    token: str, *, settings: Settings, key: str | dict[str, Any] | None = None, algorithm: str = ALGORITHM
) -> dict[str, Any]:
    try:
        header = jwt.get_unverified_header(token)
        if header.get("alg") != algorithm:
            raise Unauthorized("Token algorithm not allowed")
        claims = jwt.decode(
            token,
            settings.effective_jwt_secret if key is None else key,
            algorithms=[algorithm],
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
    except (JOSEError, ValueError, TypeError, KeyError, UnicodeError, ArithmeticError) as exc:
        raise Unauthorized("Invalid or expired token") from exc
    if settings.jwt_audience is None and "aud" in claims:
        # RFC 7519 §4.1.3: a service that does not identify itself with the token's audience must
        # reject it. A token minted for another service is not one for this one.
        raise Unauthorized("Token is for an audience; this service has none configured (JWT_AUDIENCE)")
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


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a token proves, and the time zone its identity provider says they live in (the OpenID
    Connect `zoneinfo` claim; a claim that is not a string is no zone)."""

    user_id: str
    zoneinfo: str | None = None


async def identify(authorization: str | None, *, settings: Settings, keys: KeySet | None = None) -> Identity:
    """Turn an Authorization header into the identity it proves."""
    if not authorization:
        raise Unauthorized("Missing Authorization header")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("Authorization must be 'Bearer <token>'")
    claims = await decode_any_token(token.strip(), settings=settings, keys=keys)
    zone = claims.get("zoneinfo")
    return Identity(str(claims["sub"]), zone if isinstance(zone, str) and zone else None)


async def authenticate(authorization: str | None, *, settings: Settings, keys: KeySet | None = None) -> str:
    """Turn an Authorization header into the user id it proves."""
    return (await identify(authorization, settings=settings, keys=keys)).user_id


class KeysUnavailable(AppError):
    status_code = 503
    code = "AUTH_KEYS_UNAVAILABLE"


_KTY = {"RS256": "RSA", "ES256": "EC"}


class KeySet:
    """An identity provider's public keys (its JWKS document), fetched when first needed and kept.

    Refetched when older than the provider's `Cache-Control: max-age` (or `s-maxage`; `no-cache` and
    `no-store` mean as soon as `refresh_s` allows), never kept longer than `max_age_s`; and when a
    token names a `kid` it does not hold, but then at most once every `refresh_s`: a flood of tokens
    with made-up key ids costs one fetch a minute, not one per request. When a refetch fails, the keys
    already held stay in use; with none held, a token cannot be checked (503, not a 401: the client did
    nothing wrong).
    """

    def __init__(
        self,
        url: str,
        http: httpx.AsyncClient,
        *,
        refresh_s: float = 60,
        max_age_s: float = 3600,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.url, self.http = url, http
        self.refresh_s, self.max_age_s, self.clock = refresh_s, max_age_s, clock
        self.keys: dict[str | None, dict[str, Any]] = {}
        self.fetched_at: float | None = None
        self.lifetime_s = max_age_s  # how long the keys fetched last may be kept (their cache headers)
        self.fetches = 0
        self._lock = asyncio.Lock()

    async def key(self, kid: str | None, algorithm: str) -> dict[str, Any]:
        """The public key (a JWK) that verifies a token of `algorithm` with this `kid`."""
        seen = self.fetched_at
        may_refetch = seen is None or self.clock() - seen >= self.refresh_s
        stale = seen is None or self.clock() - seen > self.lifetime_s
        if stale or (not self.keys and may_refetch):
            await self._refresh(seen)
        found = self._find(kid, algorithm)
        if found is None and may_refetch and self.fetched_at == seen:  # not refetched just now
            await self._refresh(seen)
            found = self._find(kid, algorithm)
        if not self.keys:
            raise KeysUnavailable("The identity provider's keys could not be fetched")
        if found is None:
            raise Unauthorized("Token signed with an unknown key")
        return found

    def _find(self, kid: str | None, algorithm: str) -> dict[str, Any] | None:
        if kid is not None:
            jwk = self.keys.get(kid)
        else:  # no kid: only when exactly one key could verify this algorithm
            fitting = [k for k in self.keys.values() if _fits(k, algorithm)]
            jwk = fitting[0] if len(fitting) == 1 else None
        return jwk if jwk is not None and _fits(jwk, algorithm) else None

    async def _refresh(self, seen: float | None) -> None:
        """Fetch the document, unless another request did since `seen` (then its keys are used)."""
        async with self._lock:
            if self.fetched_at != seen:
                return
            try:
                response = await self.http.get(self.url, timeout=5.0)
                response.raise_for_status()
                document = response.json()
                keys = {k.get("kid"): k for k in document["keys"] if isinstance(k, dict) and k.get("kty")}
            except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
                # The keys held stay in use; the next try waits for the refresh interval.
                log.warning("jwks_fetch_failed", extra={"url": self.url, "error": type(error).__name__})
                self.fetched_at = self.clock()
                return
            self.keys, self.fetched_at = keys, self.clock()
            self.lifetime_s = _lifetime(response.headers.get("cache-control", ""), self.refresh_s, self.max_age_s)
            self.fetches += 1


def _lifetime(cache_control: str, floor: float, ceiling: float) -> float:
    """How long a response may be kept by its `Cache-Control`, within [floor, ceiling]: `no-store`
    and `no-cache` say as briefly as may be; `s-maxage` wins over `max-age`; none says the ceiling."""
    directives: dict[str, str] = {}
    for part in cache_control.lower().split(","):
        name, _, value = part.strip().partition("=")
        directives[name] = value.strip().strip('"')
    if "no-store" in directives or "no-cache" in directives:
        return floor
    for name in ("s-maxage", "max-age"):
        if directives.get(name, "").isdigit():
            return min(ceiling, max(floor, float(directives[name])))
    return ceiling


def _fits(jwk: dict[str, Any], algorithm: str) -> bool:
    """A key verifies only its own kind of signature, and only signatures."""
    return (
        jwk.get("kty") == _KTY.get(algorithm)
        and jwk.get("alg", algorithm) == algorithm
        and jwk.get("use", "sig") == "sig"
        and (algorithm != "ES256" or jwk.get("crv") == "P-256")
    )


def ensure_owner(authenticated_user: str, path_user: str) -> None:
    if authenticated_user != path_user:
        raise Forbidden("Token does not grant access to this user")
