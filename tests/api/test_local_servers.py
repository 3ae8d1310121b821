"""A local server with no LLM_PROVIDER (issue 17): the app names it at startup and what each turn
sends fits it: bounded schemas, the assistant's tool-call turns with "" instead of null."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from support.api import MakeClient, auth
from support.fake_llm import ScriptedLLM, calls, completion


class LocalServer(ScriptedLLM):
    """A scripted model that also answers GET /models as the named server does (or not at all)."""

    def __init__(self, *items: Any, owned_by: str | None) -> None:
        super().__init__(*items)
        self.owned_by = owned_by
        self.model_lists = 0

    @property
    def transport(self) -> httpx.MockTransport:
        async def handle(request: httpx.Request) -> httpx.Response:
            if request.method == "GET" and request.url.path.endswith("/models"):
                self.model_lists += 1
                if self.owned_by is None:
                    return httpx.Response(404)
                return httpx.Response(200, json={"object": "list", "data": [{"id": "m", "owned_by": self.owned_by}]})
            return await self._handle(request)

        return httpx.MockTransport(handle)


def max_repeat(node: Any) -> int:
    if isinstance(node, dict):
        own = [v for k, v in node.items() if k in ("maxLength", "maxItems") and isinstance(v, int)]
        return max([*own, *(max_repeat(v) for v in node.values())], default=0)
    if isinstance(node, list):
        return max((max_repeat(v) for v in node), default=0)
    return 0


async def add_turn(make_client: MakeClient, llm: LocalServer, **settings: Any) -> dict[str, Any]:
    llm.push(calls(("add_task", {"title": "Water plants"})), completion("Added Water plants."))
    client = await make_client(llm, response_mode="model", **settings)
    response = await client.post("/api/alice/chat", json={"message": "add water plants"}, headers=auth())
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


@pytest.mark.parametrize(("owned_by", "port"), [("llamacpp", 9999), (None, 8080), (None, 7777)])
async def test_an_unnamed_local_server_gets_bounded_schemas_and_no_null_content(
    make_client: MakeClient, owned_by: str | None, port: int
) -> None:
    """llama.cpp named by its model list, by its port, or a server nothing names: the same safe wire."""
    llm = LocalServer(owned_by=owned_by)

    body = await add_turn(make_client, llm, llm_provider="auto", llm_base_url=f"http://127.0.0.1:{port}/v1")

    assert llm.model_lists == 1  # asked once, at startup
    assert "Water plants" in body["assistant_message"]
    first, second = llm.requests
    assert max_repeat(first["tools"]) <= 200  # the real title limit (500) is not what a grammar sees
    assistant = next(m for m in second["messages"] if m["role"] == "assistant" and m.get("tool_calls"))
    assert assistant["content"] == ""  # llama.cpp answers 500 to `content: null` here


async def test_a_hosted_provider_keeps_its_schemas_and_is_not_probed(make_client: MakeClient) -> None:
    llm = LocalServer(owned_by="llamacpp")

    await add_turn(make_client, llm, llm_provider="auto", llm_base_url="https://openrouter.ai/api/v1")

    assert llm.model_lists == 0
    assert max_repeat(llm.requests[0]["tools"]) > 200


async def test_llm_provider_still_overrides_detection(make_client: MakeClient) -> None:
    llm = LocalServer(owned_by="llamacpp")

    await add_turn(make_client, llm, llm_provider="openai", llm_base_url="http://127.0.0.1:8080/v1")

    assert llm.model_lists == 0
    assert max_repeat(llm.requests[0]["tools"]) > 200
