"""The chat route's plain case past FastAPI's request handling (api/routes/chat.py `PlainTurns`)
answers every request exactly as the FastAPI route alone answers it: the same status, headers and
body, and the same call of the service. Each request below is sent to two apps on the test
database, one with `PlainTurns` and one without it, whose chat service records what it was asked
and answers the same canned turn."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fastapi import APIRouter, Depends, FastAPI, HTTPException
from fastapi.routing import APIRoute
from support.api import auth

from backend.app.api.routes import chat as chat_route
from backend.app.api.routes.chat import PlainTurns
from backend.app.services.turn.pipeline import TurnResponse

_TURN = {"conversation_id": "c0a78295-96fe-4241-8fec-7c3542b1ec6f", "assistant_message": "Added.", "tool_calls": []}
_CHAT = "/api/alice/chat"
_JSON = {"content-type": "application/json"}
_UI = {
    "id": "chat-1",
    "trigger": "submit-message",
    "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "add milk"}]}],
}


class _Recording:
    """A chat service that records each call's arguments and answers the same turn."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    async def chat(self, **kwargs: Any) -> TurnResponse:
        request = kwargs.pop("request")
        kept = {k: v if v is None or isinstance(v, str | bool) else type(v).__name__ for k, v in kwargs.items()}
        self.calls.append({**kept, "request": (type(request).__name__, request.model_dump(mode="json"))})
        return TurnResponse(dict(_TURN))


def _body(value: Any) -> bytes:
    return json.dumps(value).encode()


# (how it is answered, method, path, headers, body): what a client might send to the chat route.
# "turn": PlainTurns calls the service; "checked": PlainTurns refuses it in `_checked`; "routed
# turn": routed on to the FastAPI route, which calls the service; "routed": refused there.
_REQUESTS: list[tuple[str, str, str, dict[str, str], bytes]] = [
    ("turn", "POST", _CHAT, _JSON, _body({"message": "add milk"})),
    ("turn", "POST", _CHAT, _JSON, _body({"message": "add milk", "conversation_id": _TURN["conversation_id"]})),
    ("turn", "POST", _CHAT, _JSON | {"Idempotency-Key": "k-1"}, _body({"message": "delete milk"})),
    ("turn", "POST", _CHAT, _JSON | {"accept": "text/event-stream"}, _body({"message": "what's left?"})),
    ("routed turn", "POST", _CHAT, {"content-type": "application/json; charset=utf-8"}, _body({"message": "add milk"})),
    ("routed turn", "POST", _CHAT, {"content-type": "application/vnd.api+json"}, _body({"message": "add milk"})),
    ("routed", "POST", _CHAT, {"content-type": "text/plain"}, _body({"message": "add milk"})),
    ("routed", "POST", _CHAT, {}, _body({"message": "add milk"})),
    ("routed", "POST", _CHAT, _JSON, b""),
    ("routed", "POST", _CHAT, _JSON, b"{"),
    ("routed", "POST", _CHAT, _JSON, b'{"message": "add milk",}'),
    ("routed", "POST", _CHAT, _JSON, b"\xff\xfe not utf-8"),
    ("routed", "POST", _CHAT, _JSON, b'{"message": NaN}'),
    ("routed", "POST", _CHAT, _JSON, b"[]"),
    ("routed", "POST", _CHAT, _JSON, b'"add milk"'),
    ("routed", "POST", _CHAT, _JSON, b"null"),
    ("routed", "POST", _CHAT, _JSON, _body({"text": "no message"})),
    ("routed", "POST", _CHAT, _JSON, _body({"message": 12})),
    ("routed", "POST", _CHAT, _JSON, _body({"message": ""})),
    ("checked", "POST", _CHAT, _JSON, _body({"message": "x" * 70_000})),
    ("routed", "POST", _CHAT, _JSON, _body({"message": "add milk", "conversation_id": "not-a-uuid"})),
    ("routed", "POST", _CHAT, _JSON, _body({"message": "add milk", "unknown": 1})),
    ("turn", "POST", _CHAT, _JSON, _body({"message": "add milk", "confirm": "yes"})),
    ("turn", "POST", _CHAT, _JSON, _body(_UI)),
    ("routed", "POST", _CHAT, _JSON, _body({**_UI, "messages": []})),
    ("routed", "POST", _CHAT, _JSON, _body({**_UI, "messages": [{"role": "user"}]})),
    ("checked", "POST", _CHAT, _JSON | {"Idempotency-Key": ""}, _body({"message": "add milk"})),
    ("checked", "POST", _CHAT, _JSON | {"Idempotency-Key": "k" * 300}, _body({"message": "add milk"})),
    ("routed", "POST", _CHAT, _JSON | {"Idempotency-Key": "k" * 300}, b"{"),
    ("checked", "POST", f"/api/{'u' * 256}/chat", _JSON, _body({"message": "add milk"})),
    ("checked", "POST", "/api/bob/chat", _JSON, _body({"message": "add milk"})),
    ("routed", "POST", "/api/bob/chat", _JSON, b"{"),
    ("routed", "POST", "/api/alice/chat/", _JSON, _body({"message": "add milk"})),
    ("routed", "GET", _CHAT, {}, b""),
    ("routed", "PUT", _CHAT, _JSON, _body({"message": "add milk"})),
    ("routed", "HEAD", _CHAT, {}, b""),
]


async def _clients(make_client: Any) -> tuple[httpx.AsyncClient, httpx.AsyncClient]:
    """Two apps on the test database: with PlainTurns, and without it (what FastAPI alone answers)."""
    clients = []
    for keep in (True, False):
        client = await make_client(None, offline=True)
        app: FastAPI = client.app
        if not keep:
            app.router.routes[:] = [r for r in app.router.routes if not isinstance(r, PlainTurns)]
        app.state.chat_service = _Recording()
        clients.append(client)
    return clients[0], clients[1]


def _answer(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    headers = sorted((k, v) for k, v in response.headers.items() if k != "x-request-id")
    return response.status_code, headers, response.content


async def test_every_request_gets_the_answer_the_fastapi_route_alone_gives(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, alone = await _clients(make_client)
    assert isinstance(plain.app.router.routes[0], PlainTurns)  # type: ignore[attr-defined]
    taken: list[int] = []
    turn = chat_route._turn

    async def counted(*args: Any) -> Any:
        taken.append(index)
        return await turn(*args)

    monkeypatch.setattr(chat_route, "_turn", counted)
    for index, (_, method, path, headers, body) in enumerate(_REQUESTS):
        sent = {"headers": headers | auth("alice"), "content": body}
        ours, theirs = await plain.request(method, path, **sent), await alone.request(method, path, **sent)
        assert _answer(ours) == _answer(theirs), (index, ours.text, theirs.text)
    services = [client.app.state.chat_service for client in (plain, alone)]  # type: ignore[attr-defined]
    assert services[0].calls == services[1].calls
    assert len(services[0].calls) == sum(how.endswith("turn") for how, *_ in _REQUESTS)
    assert taken == [i for i, (how, *_) in enumerate(_REQUESTS) if how in ("turn", "checked")]


async def test_without_a_token_the_plain_case_answers_as_fastapi_does(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain, alone = await _clients(make_client)
    taken: list[str] = []
    turn = chat_route._turn

    async def counted(*args: Any) -> Any:
        taken.append("plain")
        return await turn(*args)

    monkeypatch.setattr(chat_route, "_turn", counted)
    for headers in ({}, {"authorization": "Bearer not-a-token"}, auth("bob")):
        sent = {"headers": headers | _JSON, "content": _body({"message": "add milk"})}
        ours, theirs = await plain.post(_CHAT, **sent), await alone.post(_CHAT, **sent)
        assert ours.status_code in (401, 403)
        assert _answer(ours) == _answer(theirs)
    assert plain.app.state.chat_service.calls == []  # type: ignore[attr-defined]
    assert taken == ["plain"] * 3  # the plain case refused them itself, in `_checked`


def _route_of(endpoint: Callable[..., Any], **declared: Any) -> APIRoute:
    router = APIRouter()
    router.add_api_route("/api/{user_id}/chat", endpoint, methods=["POST"], **declared)
    (route,) = router.routes
    assert isinstance(route, APIRoute)
    return route


def test_a_route_that_declares_more_than_it_reads_is_refused() -> None:
    """A parameter or dependency added to the chat route that PlainTurns would not read stops the
    app from starting, instead of being skipped for every plain turn."""

    async def with_query(request: chat_route.ChatRequest, raw: chat_route.Request, page: int = 1) -> None: ...

    async def plain(request: chat_route.ChatRequest, raw: chat_route.Request) -> None: ...

    async def another() -> None: ...

    refused = [
        _route_of(with_query, dependencies=[Depends(chat_route._checked)]),
        _route_of(plain),
        _route_of(plain, dependencies=[Depends(chat_route._checked), Depends(another)]),
    ]
    for route in refused:
        with pytest.raises(RuntimeError, match="PlainTurns"):
            PlainTurns(route)
    PlainTurns(_route_of(plain, dependencies=[Depends(chat_route._checked)]))


async def test_a_request_does_not_look_up_opentelemetry_providers(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """FastAPI's own OpenTelemetry hooks are off (main.create_app): no request, the chat's or another
    route's, asks for the global tracer, meter or logger provider (which Taskchat never configures)."""
    from opentelemetry import _logs, metrics, trace

    asked: list[str] = []
    for module, name in (
        (trace, "get_tracer_provider"),
        (metrics, "get_meter_provider"),
        (_logs, "get_logger_provider"),
    ):
        found = getattr(module, name)
        monkeypatch.setattr(module, name, lambda found=found, name=name: asked.append(name) or found())
    client = await make_client(None, offline=True)
    assert (await client.post(_CHAT, json={"message": "add milk"}, headers=auth("alice"))).status_code == 200
    assert (await client.get("/api/alice/tasks", headers=auth("alice"))).status_code == 200
    assert asked == []


async def test_an_override_of_the_routes_checks_is_honoured(make_client: Any) -> None:
    """With `app.dependency_overrides` set, every request is FastAPI's, so an override of the
    route's own checks applies to the plain case too."""
    client = await make_client(None, offline=True)
    app: FastAPI = client.app

    async def refuse() -> None:
        raise HTTPException(status_code=418, detail="checked by the override")

    app.dependency_overrides[chat_route._checked] = refuse
    answer = await client.post(_CHAT, json={"message": "add milk"}, headers=auth("alice"))
    assert answer.status_code == 418, answer.text
    app.dependency_overrides.clear()
    assert (await client.post(_CHAT, json={"message": "add milk"}, headers=auth("alice"))).status_code == 200
