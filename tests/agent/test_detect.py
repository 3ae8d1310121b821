"""Naming the server behind LLM_BASE_URL (agent/provider_kind.py): host, the server's model list, port."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from backend.app.agent.presets import LOCAL_PROVIDERS, SAFE_SCHEMA_REPEAT, select_preset
from backend.app.agent.provider_kind import Detected, detect
from backend.app.tools.registry import TOOL_SPECS

# What each server answers on GET /v1/models, trimmed to the fields detection reads and a few beside.
MODEL_LISTS: dict[str, dict[str, Any]] = {
    "llamacpp": {
        "object": "list",
        "data": [{"id": "smollm2", "object": "model", "created": 1, "owned_by": "llamacpp", "meta": {"n_ctx": 2048}}],
    },
    "vllm": {"object": "list", "data": [{"id": "Qwen/Qwen2.5-7B", "object": "model", "owned_by": "vllm", "root": "x"}]},
    "ollama": {"object": "list", "data": [{"id": "llama3.2:latest", "object": "model", "owned_by": "library"}]},
    "lmstudio": {"object": "list", "data": [{"id": "qwen2.5-7b", "object": "model", "owned_by": "organization_owner"}]},
}


def http(handler: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


@pytest.mark.parametrize("kind", sorted(MODEL_LISTS))
async def test_a_local_server_is_named_by_its_model_list_whatever_its_port(kind: str) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=MODEL_LISTS[kind])

    async with http(handler) as client:
        found = await detect(client, "http://10.0.0.7:9999/v1", api_key="k")

    assert found == Detected(kind, "models endpoint")
    assert [(r.method, r.url.path, r.headers["Authorization"]) for r in seen] == [("GET", "/v1/models", "Bearer k")]


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("https://openrouter.ai/api/v1", "openrouter"),
        ("https://api.openai.com/v1", "openai"),
    ],
)
async def test_a_hosted_provider_is_named_by_its_host_without_a_request(url: str, kind: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request for a known host")

    async with http(handler) as client:
        assert await detect(client, url, api_key="k") == Detected(kind, "host")


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("http://127.0.0.1:8080/v1", "llamacpp"),
        ("http://localhost:11434/v1", "ollama"),
        ("http://gpu-box:8000/v1", "vllm"),
        ("http://127.0.0.1:1234/v1", "lmstudio"),
    ],
)
async def test_a_server_that_does_not_say_is_named_by_its_default_port(url: str, kind: str) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(404, json={"error": "not found"})

    async with http(handler) as client:
        assert await detect(client, url, api_key=None) == Detected(kind, "port")


@pytest.mark.parametrize(
    "answer",
    [
        httpx.ConnectError("refused"),
        httpx.ReadTimeout("slow"),
        httpx.Response(200, text="<html>not json</html>"),
        httpx.Response(200, json={"data": [{"id": "m", "owned_by": "someone-else"}]}),
        httpx.Response(200, json=["not", "a", "list", "object"]),
    ],
    ids=["refused", "timeout", "html", "unknown owner", "odd json"],
)
async def test_a_server_nothing_names_gets_the_safe_local_preset(answer: Exception | httpx.Response) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if isinstance(answer, Exception):
            raise answer
        return answer

    async with http(handler) as client:
        assert await detect(client, "http://models.internal:7000/v1", api_key=None) == Detected("local", "none")


def _repeat_counts(node: Any) -> list[int]:
    if isinstance(node, dict):
        own = [v for k, v in node.items() if k in ("maxLength", "maxItems") and isinstance(v, int)]
        return own + [n for v in node.values() for n in _repeat_counts(v)]
    if isinstance(node, list):
        return [n for v in node for n in _repeat_counts(v)]
    return []


@pytest.mark.parametrize("provider", sorted(LOCAL_PROVIDERS))
def test_no_schema_sent_to_a_local_engine_exceeds_the_safe_bounds(provider: str) -> None:
    preset = select_preset(provider=provider, model="any-local-model")
    schemas = [preset.tool_schema(spec.parameters) for spec in TOOL_SPECS]

    counts = [n for schema in schemas for n in _repeat_counts(schema)]
    assert counts and max(counts) <= SAFE_SCHEMA_REPEAT
    # The real limits are larger and still enforced server-side: the cap changes only what is sent.
    assert max(n for spec in TOOL_SPECS for n in _repeat_counts(spec.parameters)) > SAFE_SCHEMA_REPEAT
