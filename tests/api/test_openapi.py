"""/openapi.json documents every operation: what it does, its errors (with examples) and example bodies."""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest
from support.api import make_settings

from backend.app.api import streaming
from backend.app.main import create_app

AUTH_ERRORS = {"401", "403", "422"}


def openapi(environment: str) -> dict[str, Any]:
    settings = make_settings("sqlite+aiosqlite:///:memory:", environment=environment)
    return create_app(settings, configure_logs=False).openapi()


def operations(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(method.upper(), path, op) for path, ops in doc["paths"].items() for method, op in ops.items()]


def resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        return dict(doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]])
    if schema.get("type") == "array":
        return resolve(doc, schema["items"])
    return schema


def has_example(doc: dict[str, Any], content: dict[str, Any]) -> bool:
    return any(
        "example" in media or "examples" in media or "examples" in resolve(doc, media.get("schema", {}))
        for media in content.values()
    )


@pytest.mark.parametrize("environment", ["development", "production"])
def test_every_operation_has_a_summary_a_description_and_documented_errors(environment: str) -> None:
    doc = openapi(environment)
    ops = operations(doc)
    assert len(ops) >= 7
    for method, path, op in ops:
        where = f"{method} {path}"
        assert op.get("summary"), where
        assert op.get("description"), where
        errors = {code for code in op["responses"] if code[0] in "45"}
        assert errors, f"{where} documents no error response"
        if "{user_id}" in path:
            assert errors >= AUTH_ERRORS, where
            assert op.get("security") == [{"HTTPBearer": []}], where
        for code in errors:
            response = op["responses"][code]
            assert response["description"], (where, code)
            [media] = response["content"].values()
            assert media["example"].keys() == {"error", "detail"}, (where, code)
            assert resolve(doc, media["schema"])["required"] == ["error", "detail"], (where, code)
        success = min(code for code in op["responses"] if code[0] == "2")
        ok = op["responses"][success]
        if success != "204":  # no content
            assert has_example(doc, ok["content"]), f"{where}: no example of the {success} body"
        if "requestBody" in op:
            assert has_example(doc, op["requestBody"]["content"]), f"{where}: no example of the request body"


def test_dev_token_is_documented_only_in_development() -> None:
    assert "/dev/token" in openapi("development")["paths"]
    assert "/dev/token" not in openapi("test")["paths"]
    assert "/dev/token" not in openapi("production")["paths"]


def test_the_page_and_mcp_are_not_api_operations() -> None:
    paths = openapi("development")["paths"]
    assert "/" not in paths and "/mcp" not in paths and "/metrics" in paths
    assert {"/health", "/ready", "/api/{user_id}/chat", "/api/{user_id}/tasks"} <= paths.keys()


def test_every_action_of_a_turn_is_typed_with_its_status() -> None:
    schemas = openapi("production")["components"]["schemas"]
    record = schemas["ActionRecord"]
    assert record["properties"]["status"]["enum"] == ["done", "failed", "not_done", "asked"]
    actions = schemas["ActionMetadata"]["properties"]["actions"]
    assert {"$ref": "#/components/schemas/ActionRecord"} in [a.get("items") for a in actions["anyOf"]]


def test_the_execution_metadata_is_typed_down_to_the_trace() -> None:
    schemas = openapi("production")["components"]["schemas"]
    chat = schemas["ChatResponse"]["properties"]
    assert chat["execution_metadata"]["$ref"] == "#/components/schemas/ExecutionMetadata"
    metadata = schemas["ExecutionMetadata"]
    contract = {"tool_calls_executed", "tool_calls_retried", "llm_calls", "total_latency_ms"}
    assert contract <= set(metadata["required"])
    assert metadata["properties"]["trace"]["items"] == {
        "anyOf": [{"$ref": "#/components/schemas/TraceStep"}, {"$ref": "#/components/schemas/TraceCheck"}]
    }
    assert metadata["properties"]["language"] == {"$ref": "#/components/schemas/LanguageInfo"}
    assert metadata["properties"]["findings"]["items"] == {"$ref": "#/components/schemas/FindingRecord"}
    assert metadata["properties"]["guard"] == {"$ref": "#/components/schemas/GuardInfo"}
    assert {"step", "request", "usage", "calls"} <= set(schemas["TraceStep"]["required"])


def test_the_stored_history_documents_its_records_typed() -> None:
    schemas = openapi("production")["components"]["schemas"]
    message = schemas["MessageOut"]["properties"]

    def refs(prop: dict[str, Any]) -> list[str]:
        return [a.get("$ref", a.get("type")) for a in prop["anyOf"]]

    assert refs(message["execution_metadata"]) == [
        "#/components/schemas/StoredExecutionMetadata",
        "#/components/schemas/StoredTurnError",
        "object",
        "null",
    ]
    assert refs(message["action_metadata"]) == ["#/components/schemas/StoredActionMetadata", "object", "null"]
    assert refs(message["tool_calls"]["anyOf"][0]["items"]) == ["#/components/schemas/StoredToolCall", "object"]
    contract = {"tool_calls_executed", "tool_calls_retried", "llm_calls", "total_latency_ms"}
    assert set(schemas["StoredExecutionMetadata"]["required"]) == contract
    assert schemas["StoredExecutionMetadata"]["additionalProperties"] is True


def test_the_streamed_chat_documents_every_event_it_sends() -> None:
    chat = openapi("production")["paths"]["/api/{user_id}/chat"]["post"]
    assert "text/event-stream" in chat["responses"]["200"]["content"]
    sent = set(re.findall(r'event\("(\w+)"', inspect.getsource(streaming)))
    assert sent == {"tool", "delta", "reset", "confirmation", "done", "error"}
    assert all(f"`{name}`" in chat["description"] for name in sent)


def test_the_chat_headers_are_documented_as_the_routes_checks_read_them() -> None:
    """The chat route reads its headers from the request (api/routes/chat.py) and documents them in
    `openapi_extra`: the document says what `_checked` checks (the key's 1-255 characters)."""
    chat = openapi("production")["paths"]["/api/{user_id}/chat"]["post"]
    parameters = {(p["in"], p["name"]): p for p in chat["parameters"]}
    assert list(parameters) == [
        ("path", "user_id"),
        ("header", "Idempotency-Key"),
        ("header", "X-Time-Zone"),
        ("header", "accept"),
    ]
    assert "IANA time zone" in parameters["header", "X-Time-Zone"]["description"]
    key = parameters["header", "Idempotency-Key"]
    assert key["required"] is False
    assert {"type": "string", "minLength": 1, "maxLength": 255} in key["schema"]["anyOf"]
    assert "text/event-stream" in parameters["header", "accept"]["description"]


def test_the_chat_route_documents_its_user_and_token_as_a_route_that_declares_them() -> None:
    """The chat route reads its user and token itself (api/routes/chat.py): its document says the
    same as FastAPI says for a route that declares them (deps.CurrentUser)."""
    paths = openapi("production")["paths"]
    chat, listing = paths["/api/{user_id}/chat"]["post"], paths["/api/{user_id}/tasks"]["get"]
    assert chat["security"] == listing["security"]
    [chat_user] = [p for p in chat["parameters"] if p["in"] == "path"]
    [listing_user] = [p for p in listing["parameters"] if p["in"] == "path"]
    assert chat_user == listing_user
