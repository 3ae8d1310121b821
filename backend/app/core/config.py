"""Typed settings, read from the environment and `.env`.

This module imports nothing else from the app so that every layer may depend on it.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Annotated, Literal

from pydantic import AliasChoices, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

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

OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"


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
    db_statement_timeout_ms: int = 5_000
    db_lock_timeout_ms: int = 2_000
    db_idle_in_transaction_timeout_ms: int = 15_000

    llm_base_url: str = OPENROUTER_BASE_URL
    llm_api_key: str | None = Field(
        default=None, validation_alias=AliasChoices("LLM_API_KEY", "OPENROUTER_API_KEY", "llm_api_key")
    )
    llm_model: str = "openai/gpt-4o-mini"
    llm_provider: str = "openrouter"
    llm_connect_timeout_s: float = 5.0
    llm_read_timeout_s: float = 30.0
    llm_max_retries: int = 2
    llm_max_tokens: int = 1024

    jwt_secret: str | None = None
    jwt_audience: str | None = None
    jwt_issuer: str | None = None
    jwt_leeway_s: int = 30
    jwt_max_lifetime_minutes: int = 60

    tool_policy: ToolPolicyName = "guarded"
    response_mode: Literal["direct", "model"] = "direct"
    apply_mode: Literal["best_effort", "strict"] = "best_effort"

    budget_max_llm_calls: int = 5
    budget_max_tool_calls: int = 8
    budget_max_latency_ms: int = 60_000
    budget_max_tokens: int = 20_000
    budget_max_cost_usd: float = 0.05

    max_steps: int = 6
    max_tool_calls_per_step: int = 8
    max_tool_args_bytes: int = 200_000
    max_tool_output_bytes: int = 200_000
    max_destructive_calls_per_turn: int = 5
    max_model_fix_retries: int = 2
    fix_empty_final: bool = True

    resolver_threshold: float = 0.6
    history_token_budget: int = 1_500
    history_max_messages: int = 40

    max_body_bytes: int = 16_384
    max_message_chars: int = 4_000
    rate_limit_per_minute: int = 20
    idempotency_ttl_hours: int = 24

    # NoDecode: pydantic-settings would json.loads the variable and fail on the documented comma form.
    cors_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    log_level: str = "INFO"
    log_json: bool = True

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
        if self.environment != "production":
            return self
        secret = self.jwt_secret
        if not secret:
            raise ValueError("JWT_SECRET is required when ENVIRONMENT=production")
        if secret.lower() in _PLACEHOLDER_SECRETS or "change" in secret.lower():
            raise ValueError("JWT_SECRET is a placeholder; set a random secret of at least 32 bytes")
        if len(secret.encode()) < 32:
            raise ValueError("JWT_SECRET must be at least 32 bytes")
        return self

    @property
    def effective_jwt_secret(self) -> str:
        return self.jwt_secret or DEVELOPMENT_JWT_SECRET

    @property
    def uses_offline_model(self) -> bool:
        """No key means the built-in offline model; a key always means the real server."""
        return not self.llm_api_key

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")


@lru_cache
def get_settings() -> Settings:
    return Settings()
