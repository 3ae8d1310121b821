"""Typed settings, read from the environment and `.env`.

This module imports nothing else from the app so that every layer may depend on it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections import Counter
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from backend.app.calls.tools import Tool
from backend.app.core.clock import is_zone

JwtAlgorithm = Literal["HS256", "RS256", "ES256"]
HS256: JwtAlgorithm = "HS256"
ToolPolicyName = Literal["none", "auto", "guarded", "required", "forced_intent", "two_phase"]

# Used only when ENVIRONMENT=development and no JWT_SECRET is set, so that `make run` and
# `taskchat token` agree with no configuration. Production refuses it (see the validator).
DEVELOPMENT_JWT_SECRET = "taskchat-development-secret-do-not-use-in-production"
_PLACEHOLDER_SECRETS = {
    DEVELOPMENT_JWT_SECRET,
    "changeme",
    "change-me",
    "secret",
    "replace-me",
    "replace-with-a-long-random-secret",
}

# Words that make a secret guessable wherever they stand in it.
_GUESSABLE_WORDS = ("password", "passwd", "secret", "changeme", "qwerty", "letmein", "admin", "taskchat", "default")
_MIN_SECRET_BITS = 128  # estimated from the secret's own character frequencies
_MIN_DISTINCT = 10
# The same character eight times in a row. Six refused about one in 28,000 secrets drawn as
# `openssl rand -hex 32` draws them (64 hex digits, 59 places for a run of six); eight, one in
# five million. A secret that is mostly a run fails the distinct-character and entropy checks too.
_RUN = re.compile(r"(.)\1{7,}")
_SEQUENCES = ("0123456789", "abcdefghijklmnopqrstuvwxyz", "qwertyuiop")

OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
# What the client waits past DB_STATEMENT_TIMEOUT_MS for the server's answer (its own cancellation, a
# slow network) before it takes the database for one that does not answer (`db_command_timeout_s`).
DB_ANSWER_MARGIN_S = 1.0
# The task tools' names (calls/tools.py), for TOOLS_ALLOW / TOOLS_DENY.
KNOWN_TOOLS = frozenset(Tool)


class ConfigurationError(Exception):
    """Settings that cannot run: one clean line per problem, naming the setting and the rule, and
    never any setting's value (pydantic's own message would echo the input, secrets included)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems

    @classmethod
    def from_validation(cls, error: ValidationError) -> ConfigurationError:
        problems = []
        for item in error.errors(include_input=False, include_url=False):
            where = ".".join(str(p) for p in item["loc"]).upper()
            message = str(item["msg"]).removeprefix("Value error, ")
            problems.append(f"{where}: {message}" if where else message)
        return cls(problems)


def secret_problem(secret: str) -> str | None:
    """Why `secret` is too weak for production, or None: length, whitespace, repeats, sequences,
    guessable words, too few distinct characters, too little entropy."""
    if len(secret.encode()) < 32:
        return "must be at least 32 bytes"
    if secret != secret.strip() or not secret.strip() or any(c.isspace() for c in secret):
        return "must not contain whitespace"
    lowered = secret.lower()
    if lowered in _PLACEHOLDER_SECRETS or "change" in lowered or any(w in lowered for w in _GUESSABLE_WORDS):
        return f"is a placeholder or contains a guessable word; {_GENERATE}"
    if _RUN.search(secret) or any(s[i : i + 8] in lowered for s in _SEQUENCES for i in range(len(s) - 7)):
        return "contains a repeated character or a keyboard sequence; use a random secret"
    counts = Counter(secret)
    if len(counts) < _MIN_DISTINCT:
        return f"has fewer than {_MIN_DISTINCT} distinct characters; use a random secret"
    bits = -sum(n * math.log2(n / len(secret)) for n in counts.values())
    if bits < _MIN_SECRET_BITS:
        return f"is too predictable (about {int(bits)} bits, {_MIN_SECRET_BITS} needed); use a longer random secret"
    if os.environ.get(CHECKED_SECRET_ENV) == checked_mark(secret):
        return None  # the supervisor of `taskchat serve --workers N` estimated this very secret already
    return _patterned(secret)


# `taskchat serve --workers N` checks the secret once, in the supervisor, and passes its workers the
# SHA-256 of the secret that passed (not the secret): a worker whose secret has that digest skips the
# strength estimator, whose dictionaries would otherwise be 12.5 MB of every worker.
CHECKED_SECRET_ENV = "TASKCHAT_CHECKED_SECRET_SHA256"


def checked_mark(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


# zxcvbn (Dropbox's strength estimator) on the first 128 characters: it finds the words, names,
# keyboard rows, sequences, repeats and dates in a secret. Refused: a secret it explains mostly so
# (a pangram, a readable sentence, a keyboard row in both cases, the alphabet reversed), or one it
# guesses in fewer than 10^24 tries. Measured on 1,500 random secrets of 32-64 characters (hex and
# base64): at most 47 % explained, at least 10^28 guesses.
_MAX_PATTERNED = 0.55
_MIN_GUESSES_LOG10 = 24
# A phrase: three words of four letters or more making up 30 % of it ("PackMyBoxWithFiveDozen…"). In
# 1,600 random secrets: at most two such words, at most 16 % of the secret.
_PHRASE_WORDS = 3
_PHRASE_SHARE = 0.3
_GENERATE = (
    "generate one with `openssl rand -base64 48` or `python -c 'import secrets; print(secrets.token_urlsafe(48))'`"
)


@lru_cache(maxsize=8)
def _patterned(secret: str) -> str | None:
    # Imported here, where production checks its secret: its dictionaries are 12.5 MB of every
    # process that imports it, and only a production start needs them.
    from zxcvbn import zxcvbn

    head = secret[:128]
    found = zxcvbn(head)
    explained = sum(len(m["token"]) for m in found["sequence"] if m["pattern"] != "bruteforce") / len(head)
    if explained >= _MAX_PATTERNED:
        share = int(explained * 100)
        return f"is predictable: {share} % of it is words, keyboard patterns, sequences, repeats or dates; {_GENERATE}"
    words = [m["token"] for m in found["sequence"] if m["pattern"] == "dictionary" and len(m["token"]) >= 4]
    if len(words) >= _PHRASE_WORDS and sum(map(len, words)) >= _PHRASE_SHARE * len(head):
        return f"reads as a phrase ({len(words)} words); {_GENERATE}"
    if found["guesses_log10"] < _MIN_GUESSES_LOG10:
        tries = int(found["guesses_log10"])
        return f"is predictable: a strength estimator guesses it in about 10^{tries} tries; {_GENERATE}"
    return None


class FallbackModel(BaseModel):
    """One entry of LLM_FALLBACKS: a model tried when the ones before it fail; the base URL and key
    are LLM_BASE_URL's and LLM_API_KEY's unless given."""

    model_config = ConfigDict(extra="forbid")
    model: str = Field(min_length=1)
    base_url: str | None = None
    api_key: str | None = None
    provider: str | None = None  # its preset family (see LLM_PROVIDER); default: LLM_MODEL's
    # US dollars per million tokens, for the cost of its turns (ROUTING_SUCCESS_FLOOR picks the cheapest)
    price_in_per_mtok: float | None = Field(default=None, ge=0)
    price_out_per_mtok: float | None = Field(default=None, ge=0)


class Settings(BaseSettings):
    """Every setting the service reads; names and defaults are part of the public contract."""

    # env_ignore_empty: `JWT_AUDIENCE=` (as a copied .env.example or compose pass-through may leave it) means
    # "not set", not "require an empty audience"; the same for every other setting.
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True, env_ignore_empty=True)

    environment: Literal["development", "production", "test"] = "development"
    database_url: str = "sqlite+aiosqlite:///./taskchat.db"
    # Per worker; at least the concurrent turns a worker serves, or overflow connections are opened and
    # closed again on every burst (a connection costs more than many turns of queries).
    db_pool_size: int = 10
    db_max_overflow: int = 5
    # Postgres's own limit on a statement; the client waits that long and `DB_ANSWER_MARGIN_S` more
    # for an answer (`db_command_timeout_s`), so a server that takes a statement and never answers
    # (a stalled host or network, where the server's limit cannot reach us) is an outage, not a hang.
    db_statement_timeout_ms: int = 5_000
    # How long a new connection may take (TCP, TLS, the server's hello and authentication), and a request
    # may wait for a pooled one; past it the database is out of reach (503), not slow.
    db_connect_timeout_s: float = Field(default=5.0, gt=0)
    db_lock_timeout_ms: int = 2_000
    db_idle_in_transaction_timeout_ms: int = 15_000
    # "transaction": DATABASE_URL is a pooler in transaction mode (PgBouncer's pool_mode=transaction), which
    # refuses session settings at connect and may hand each transaction another server connection: the
    # timeouts are set per transaction (SET LOCAL), every statement runs in a transaction, and asyncpg keeps
    # no prepared-statement cache (see "Behind PgBouncer" in docs/operations.md).
    db_pooler: Literal["none", "transaction"] = "none"

    llm_base_url: str = OPENROUTER_BASE_URL
    llm_api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("LLM_API_KEY", "OPENROUTER_API_KEY", "llm_api_key")
    )
    llm_model: str = "openai/gpt-4o-mini"
    # "auto": named from LLM_BASE_URL and the server's answer at startup (agent/provider_kind.py).
    llm_provider: str = "auto"
    llm_connect_timeout_s: float = 5.0
    llm_read_timeout_s: float = 30.0
    llm_max_retries: int = 2
    llm_max_tokens: int = 1024
    # Ask for `stream: true` and assemble the chunks before the loop reads them (agent/sse.py).
    llm_stream: bool = False
    # JSON list of models tried in order when LLM_MODEL fails (agent/fallback.py):
    # [{"model": "anthropic/claude-3.5-haiku"}, {"model": "qwen", "base_url": "http://127.0.0.1:8080/v1"}]
    llm_fallbacks: list[FallbackModel] = Field(default_factory=list)
    llm_cooldown_s: float = Field(default=60.0, ge=0)  # a model that failed is tried last for this long
    # Which of several models a turn asks first (services/turn/routing.py); "fixed": LLM_MODEL, then the rest.
    routing_strategy: Literal["fixed", "greedy", "epsilon_greedy", "ucb1", "thompson"] = "fixed"
    routing_epsilon: float = Field(default=0.1, ge=0, le=1)
    routing_ucb_c: float = Field(default=1.0, ge=0)
    routing_success_floor: float = Field(default=0.0, ge=0, le=1)  # 0: off; else the cheapest model above it
    routing_min_turns: int = Field(default=20, ge=1)  # turns before a model's mean counts for the floor
    routing_window: int = Field(default=500, ge=1)  # each model's last outcomes read and kept
    # outcomes older than this are not read: a model that was down, or has changed, gets a fresh start
    routing_max_age_s: float = Field(default=3600.0, gt=0)
    routing_refresh_s: float = Field(default=5.0, ge=0)  # how long an instance reuses the outcomes it read
    routing_seed: int | None = None  # the draws of epsilon_greedy and thompson, for a reproducible run

    jwt_secret: str | None = None
    jwt_audience: str | None = None
    jwt_issuer: str | None = None
    jwt_leeway_s: int = 30
    jwt_max_lifetime_minutes: int = 60
    # HS256 is verified with JWT_SECRET; RS256 and ES256 with the identity provider's keys at JWT_JWKS_URL.
    jwt_algorithms: Annotated[list[JwtAlgorithm], NoDecode] = Field(default_factory=lambda: [HS256])
    jwt_jwks_url: str | None = None
    jwt_jwks_refresh_s: float = Field(default=60, ge=1)  # an unknown `kid` refetches the keys at most this often
    jwt_jwks_max_age_s: float = Field(default=3600, ge=1)  # keys older than this are refetched (in the background)

    tool_policy: ToolPolicyName = "guarded"
    response_mode: Literal["direct", "model"] = "direct"
    # Before a model's words reach the user: `model` asks the model what they claim (one short call)
    # and checks that against what ran; `lists` trusts the language files' word lists alone.
    reply_check: Literal["model", "lists"] = "model"
    apply_mode: Literal["best_effort", "strict"] = "best_effort"

    budget_max_llm_calls: int = 5
    # Tool calls per turn and per model answer: bounds the writes one turn can make. A pasted list or a
    # request over the whole list is one decision of many calls (up to 100 tasks at a time).
    budget_max_tool_calls: int = 100
    budget_max_latency_ms: int = 60_000
    budget_max_tokens: int = 20_000
    budget_max_cost_usd: float = 0.05

    max_steps: int = 6
    max_tool_calls_per_step: int = 100
    max_tool_args_bytes: int = 200_000
    max_tool_output_bytes: int = 200_000
    max_destructive_calls_per_turn: int = 5
    max_model_fix_retries: int = 2

    resolver_threshold: float = 0.6
    history_token_budget: int = 1_500
    history_max_messages: int = 40

    max_body_bytes: int = 16_384
    # The chat route's cap for the AI SDK's request, which carries the whole chat as the client holds
    # it on every turn (api/ui_stream.py); a plain chat request has `chat_body_bytes`.
    max_chat_body_bytes: int = Field(default=1_048_576, ge=1)
    # A chat request's byte cap follows it (`chat_body_bytes`): a full message fits however it is escaped.
    max_message_chars: int = Field(default=4_000, ge=1)
    # How the loop treats a tool that failed, and which tools this deployment offers at all.
    tool_failure_policy: Literal["tolerated", "fatal"] = "tolerated"
    parallel_tool_calls: bool = True  # false: the model is asked for one call per step, and held to it
    tools_allow: Annotated[list[str], NoDecode] = Field(default_factory=list)  # empty: every tool
    tools_deny: Annotated[list[str], NoDecode] = Field(default_factory=list)
    rate_limit_per_minute: int = 20
    idempotency_ttl_hours: int = 24
    undo_retention_days: int = Field(default=30, ge=0)  # deleted tasks can be restored this long
    # A REST undo with no Idempotency-Key and no turn_id, this soon after the last undo, answers that
    # one again (a double-click undoes once); 0: every such request undoes one more change set.
    undo_repeat_window_s: float = Field(default=2.0, ge=0)
    # Conversations untouched this long go (messages, tool executions, questions with them), as do tool
    # executions of no conversation made before then; 0: kept until the user erases them.
    conversation_retention_days: int = Field(default=0, ge=0)
    # GET /mcp (an event stream for server-initiated messages, of which the stateless server sends
    # none): closed after this many seconds, and at most this many open per user and worker.
    mcp_stream_idle_s: float = Field(default=60.0, gt=0)
    mcp_streams_per_user: int = Field(default=2, ge=1)
    # The zone "today" is read in for a user whose request, token and preferences name none (an IANA name:
    # a deployment whose users all live in one country sets theirs; core/clock.py).
    default_time_zone: str = "UTC"
    confirmation_ttl_minutes: int = Field(default=5, ge=1)  # a pending "yes?" question expires after
    prune_interval_s: float = Field(default=3600, ge=0)  # the service forgets what is past retention; 0: never

    # NoDecode: pydantic-settings would json.loads the variable and fail on the documented comma form.
    cors_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    log_level: str = "INFO"
    log_json: bool = True

    @field_validator("tools_allow", "tools_deny", mode="before")
    @classmethod
    def _split_tools(cls, value: object) -> object:
        if isinstance(value, str):
            value = [t.strip() for t in value.split(",") if t.strip()]
        if isinstance(value, list) and (unknown := sorted(set(value) - KNOWN_TOOLS)):
            raise ValueError(f"unknown tool {unknown[0]!r}; known: {', '.join(sorted(KNOWN_TOOLS))}")
        return value

    @field_validator("default_time_zone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        if not is_zone(value):
            raise ValueError(f"{value!r} is not an IANA time zone name (e.g. 'Europe/Paris')")
        return value

    @field_validator("jwt_algorithms", mode="before")
    @classmethod
    def _split_algorithms(cls, value: object) -> object:
        if isinstance(value, str):
            return [a.strip().upper() for a in value.split(",") if a.strip()]
        return value

    @model_validator(mode="after")
    def _keys_for_the_algorithms(self) -> Settings:
        if not self.jwt_algorithms:
            raise ValueError("JWT_ALGORITHMS allows no algorithm")
        asymmetric = {"RS256", "ES256"} & set(self.jwt_algorithms)
        if asymmetric and not self.jwt_jwks_url:
            raise ValueError(f"JWT_ALGORITHMS allows {', '.join(sorted(asymmetric))}: JWT_JWKS_URL is required")
        if self.jwt_jwks_url and not asymmetric:
            raise ValueError("JWT_JWKS_URL is set but JWT_ALGORITHMS allows neither RS256 nor ES256")
        return self

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            if value.lstrip().startswith("["):  # the JSON list form works too
                return json.loads(value)
            return [o.strip() for o in value.split(",") if o.strip()]
        return value

    @model_validator(mode="after")
    def _refuse_weak_production_secrets(self) -> Settings:
        if self.environment != "production" or "HS256" not in self.jwt_algorithms:
            return self
        secret = self.jwt_secret
        if not secret:
            raise ValueError("JWT_SECRET is required when ENVIRONMENT=production")
        if (problem := secret_problem(secret)) is not None:
            raise ValueError(f"JWT_SECRET {problem}")
        return self

    @property
    def effective_jwt_secret(self) -> str:
        return self.jwt_secret or DEVELOPMENT_JWT_SECRET

    @property
    def uses_offline_model(self) -> bool:
        """No key means the built-in offline model; a key always means the real server."""
        return not self.llm_api_key

    @property
    def db_command_timeout_s(self) -> float | None:
        """How long the client waits for the database's answer to a statement: the statement timeout
        and `DB_ANSWER_MARGIN_S` (the server's own timeout answers first); None when
        DB_STATEMENT_TIMEOUT_MS is 0 (no limit)."""
        if self.db_statement_timeout_ms <= 0:
            return None
        return self.db_statement_timeout_ms / 1000 + DB_ANSWER_MARGIN_S

    @property
    def chat_body_bytes(self) -> int:
        """A chat request's byte cap, from MAX_MESSAGE_CHARS: a message of that many characters fits
        however its JSON escapes it (at worst 12 bytes a character, a surrogate pair `\\ud83d\\ude00`),
        with MAX_BODY_BYTES beside it for the rest of the body. Its length is then checked in
        characters (a 422); only a body past this is a 413. 64,384 bytes by default."""
        return 12 * self.max_message_chars + self.max_body_bytes

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    """The settings, or ConfigurationError with clean lines (no values) when they cannot run."""
    try:
        return Settings()
    except ValidationError as exc:
        raise ConfigurationError.from_validation(exc) from None
