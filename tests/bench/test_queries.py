"""The SQL statements of a simple turn, counted on the app's own engine: a query added to the hot
path fails here (lower the bounds when a change removes one)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event
from support.api import chat
from support.fake_llm import ScriptedLLM, calls

# New conversation: rate limit, conversation, user message | add | assistant message, tool execution,
# conversation touch.
ADD_IN_NEW_CONVERSATION = 7
# Existing conversation: rate limit, history (which proves the conversation is the user's), user message |
# exact title and task count (one statement), delete | assistant message, tool execution, conversation touch.
DELETE_BY_TITLE_IN_CONVERSATION = 8


def count_statements(client: Any) -> list[str]:
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement.split("\n")[0][:80])

    event.listen(client.app.state.engine.sync_engine, "before_cursor_execute", record)
    return statements


async def test_a_simple_turn_runs_a_bounded_number_of_statements(make_client) -> None:  # type: ignore[no-untyped-def]
    llm = ScriptedLLM()
    client = await make_client(llm)
    statements = count_statements(client)

    llm.push(calls(("add_task", {"title": "Read book"})))
    first = await chat(client, "add Read book")
    assert first.status_code == 200, first.text
    assert len(statements) <= ADD_IN_NEW_CONVERSATION, statements

    statements.clear()
    llm.push(calls(("delete_task", {"task_id": "read book"})))
    second = await chat(client, "delete Read book", conversation_id=first.json()["conversation_id"])
    assert second.json()["tool_calls"][0]["result"]["success"] is True
    assert len(statements) <= DELETE_BY_TITLE_IN_CONVERSATION, statements
