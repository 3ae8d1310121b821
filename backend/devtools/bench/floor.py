"""The stack's floor: what a turn costs with nothing of Taskchat's in it, served the same way.

A chat route on the same parts (uvicorn with uvloop and httptools, FastAPI, a bearer token checked by
python-jose, asyncpg, aiohttp to the model, orjson) that does the least a turn of the load phase can
do: check the token, validate the body, ONE statement that stores the user's message and reads the
history, ONE request to the same scripted model with the same system prompt and tool schemas, ONE
statement for the tool (the task and its audit row together; a complete or a delete by its exact
title), ONE statement that stores the reply, and the JSON answer. No guard, no reader, no resolver,
no rate limit, no metadata, no middleware, no metrics and no logs.

Its server CPU per turn, measured by the same load driver at the same point, is the part of
Taskchat's figure that no change inside Taskchat can take away without changing these parts: the
bench's `floor` phase reports both, and their ratio.

Run alone: `FLOOR_DATABASE_URL=postgresql://… FLOOR_MODEL_URL=http://…/v1 uvicorn
backend.devtools.bench.floor:app` (the bench starts it itself, `servers.floor`).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from typing import Annotated, Any

import aiohttp
import asyncpg
import orjson
from fastapi import FastAPI, HTTPException, Request, Security
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from jose import JWTError, jwt
from pydantic import BaseModel, Field

from backend.app.calls.tools import Tool
from backend.app.services.turn.prompt import system_prompt
from backend.app.tools.registry import TOOL_SPECS

SCHEMA = """
CREATE TABLE IF NOT EXISTS floor_messages (
    id bigserial PRIMARY KEY, conversation_id uuid NOT NULL, user_id text NOT NULL, role text NOT NULL,
    content text NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS floor_messages_conversation ON floor_messages (conversation_id, id);
CREATE TABLE IF NOT EXISTS floor_tasks (
    id uuid PRIMARY KEY, user_id text NOT NULL, title text NOT NULL, completed boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now());
CREATE INDEX IF NOT EXISTS floor_tasks_title ON floor_tasks (user_id, lower(title));
CREATE TABLE IF NOT EXISTS floor_calls (
    id bigserial PRIMARY KEY, user_id text NOT NULL, tool text NOT NULL, arguments jsonb NOT NULL,
    result jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
"""

TABLES = ("floor_messages", "floor_tasks", "floor_calls")
START = """
WITH stored AS (
    INSERT INTO floor_messages (conversation_id, user_id, role, content) VALUES ($1, $2, 'user', $3)
)
SELECT role, content FROM (
    SELECT id, role, content FROM floor_messages WHERE conversation_id = $1 ORDER BY id DESC LIMIT 20
) recent ORDER BY id
"""
ADD = """
WITH task AS (INSERT INTO floor_tasks (id, user_id, title) VALUES ($1, $2, $3) RETURNING id, title)
INSERT INTO floor_calls (user_id, tool, arguments, result)
SELECT $2, 'add_task', $4, jsonb_build_object('id', id, 'title', title) FROM task RETURNING result
"""
LIST = "SELECT id, title, completed FROM floor_tasks WHERE user_id = $1 ORDER BY created_at LIMIT 50"
COMPLETE = """
WITH task AS (
    UPDATE floor_tasks SET completed = true WHERE user_id = $1 AND lower(title) = lower($2) RETURNING id, title
)
INSERT INTO floor_calls (user_id, tool, arguments, result)
SELECT $1, 'complete_task', $3, jsonb_build_object('id', id, 'title', title) FROM task RETURNING result
"""
DELETE = """
WITH task AS (DELETE FROM floor_tasks WHERE user_id = $1 AND lower(title) = lower($2) RETURNING id, title)
INSERT INTO floor_calls (user_id, tool, arguments, result)
SELECT $1, 'delete_task', $3, jsonb_build_object('id', id, 'title', title) FROM task RETURNING result
"""
REPLY = "INSERT INTO floor_messages (conversation_id, user_id, role, content) VALUES ($1, $2, 'assistant', $3)"

_bearer = HTTPBearer()


class ChatIn(BaseModel):
    message: str = Field(min_length=1, max_length=4000)
    conversation_id: uuid.UUID | None = None


async def _jsonb(connection: asyncpg.Connection) -> None:
    await connection.set_type_codec(
        "jsonb", encoder=lambda v: orjson.dumps(v).decode(), decoder=orjson.loads, schema="pg_catalog"
    )


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    app.state.secret = os.environ["FLOOR_JWT_SECRET"]
    app.state.model_url = os.environ["FLOOR_MODEL_URL"].rstrip("/") + "/chat/completions"
    app.state.tools = [spec.to_openai() for spec in TOOL_SPECS]
    app.state.pool = await asyncpg.create_pool(os.environ["FLOOR_DATABASE_URL"], min_size=2, max_size=10, init=_jsonb)
    app.state.http = aiohttp.ClientSession(headers={"Authorization": "Bearer bench-key"})
    try:
        yield
    finally:
        await app.state.http.close()
        await app.state.pool.close()


app = FastAPI(lifespan=lifespan)


def _user(request: Request, credentials: HTTPAuthorizationCredentials) -> str:
    try:
        claims = jwt.decode(credentials.credentials, request.app.state.secret, algorithms=["HS256"])
    except JWTError as exc:
        raise HTTPException(status_code=401, detail="invalid token") from exc
    return str(claims["sub"])


@app.get("/ready")
async def ready() -> dict[str, str]:
    return {"status": "ready"}


@app.post("/api/{user_id}/chat")
async def chat(
    user_id: str,
    body: ChatIn,
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials, Security(_bearer)],
) -> Response:
    if _user(request, credentials) != user_id:
        raise HTTPException(status_code=403, detail="not yours")
    state = request.app.state
    conversation = body.conversation_id or uuid.uuid4()
    async with state.pool.acquire() as db:
        history = await db.fetch(START, conversation, user_id, body.message)
    messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt(date.today())}]
    messages += [{"role": row["role"], "content": row["content"]} for row in history]
    messages.append({"role": "user", "content": body.message})
    request_body = {"model": "bench/fake-model", "messages": messages, "tools": state.tools, "tool_choice": "auto"}
    async with state.http.post(
        state.model_url, data=orjson.dumps(request_body), headers={"Content-Type": "application/json"}
    ) as answer:
        choice = orjson.loads(await answer.read())["choices"][0]["message"]
    reply = await _act(state.pool, user_id, choice)
    async with state.pool.acquire() as db:
        await db.execute(REPLY, conversation, user_id, reply)
    out = {"conversation_id": str(conversation), "response": reply, "execution_metadata": {"llm_calls": 1}}
    return Response(orjson.dumps(out), media_type="application/json")


async def _act(pool: asyncpg.Pool, user_id: str, message: dict[str, Any]) -> str:
    calls = message.get("tool_calls") or []
    if not calls:
        return str(message.get("content") or "")
    call = calls[0]["function"]
    name, arguments = call["name"], orjson.loads(call["arguments"] or "{}")
    async with pool.acquire() as db:
        if name == Tool.ADD:
            await db.fetchval(ADD, uuid.uuid4(), user_id, arguments["title"], arguments)
            return f"Added \u201c{arguments['title']}\u201d."
        if name == Tool.LIST:
            rows = await db.fetch(LIST, user_id)
            return "\n".join(f"- {row['title']}" for row in rows) or "Your list is empty."
        statement = COMPLETE if name == Tool.COMPLETE else DELETE
        done = await db.fetchval(statement, user_id, arguments["task_id"], arguments)
        return f"{name}: {'done' if done else 'no such task'}."
