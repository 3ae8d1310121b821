"""The SQL statements and transactions of a simple turn, counted on the app's own engine: a query or
a round trip added to the hot path fails here (lower the bounds when a change removes one)."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import event
from support.api import MakeClient, auth, chat, seed_tasks
from support.fake_llm import ScriptedLLM, calls

# Every turn whose request names no time zone first reads the user's stored one (one statement, sent
# alone: db/repositories/preferences.py; +9% server CPU per turn, docs/performance/2026-12-05-clock.md).
# New conversation: the rate limit (its per-user lock, what makes the limit exact under concurrency, and
# its count: migration 0012), the conversation and the user's message, one statement | the task and its
# tool execution row, one statement (the change is never stored without its record:
# tests/services/test_tool_audit.py) | the record: assistant message and conversation touch in one
# statement. Each runs alone, in autocommit: an add opens no transaction.
ADD_IN_NEW_CONVERSATION = 3
ADD_TRANSACTIONS = 0
# Existing conversation: the rate limit, the history and the user's message, one statement (which counts
# and adds the message only for the user's own conversation) | the title lookup (one statement,
# whichever step finds it), sent alone | the titles the user's words may name, one statement (row T20,
# 2026-12-07: a longer title of the user's that holds the task's names that task, not this one) | the
# delete and its tool execution row, one statement (the lookup read the task whole, migration 0013:
# what it was is known unsent) | the record. On Postgres each runs alone, in autocommit, and the turn
# opens no transaction.
DELETE_BY_TITLE_IN_CONVERSATION = 6  # with the zone
# The same for a change (complete, update).
COMPLETE_BY_TITLE_IN_CONVERSATION = 6  # with the zone
# A listing in a conversation: the start | the page of tasks | its tool execution row | the record. A
# listing only reads: each statement runs alone, in autocommit, and the turn opens no transaction.
LIST_IN_CONVERSATION = 5  # with the zone
LIST_TRANSACTIONS = 0
# Transactions (each a BEGIN and a COMMIT round trip) of a turn whose tool reads before it writes, by
# the task's title: none (each of its statements is atomic alone). A checkout runs no query of its own
# (no pool pre-ping: three round trips).
BY_TITLE_TRANSACTIONS = 0
# On Postgres every statement of these turns goes past the ORM, on the driver's connection
# (db/driver.py), each alone.


def count_statements(client: Any) -> list[str]:
    """Every statement the app's engine runs, and "BEGIN" for every transaction it opens: through
    SQLAlchemy (its events), and sent on the driver's connection (`db/driver.py`: asyncpg's
    query log of the pooled connection; SQLAlchemy's own statements are prepared ones, which asyncpg
    does not log, and its BEGIN and COMMIT are counted by the `begin` event)."""
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement.split("\n")[0][:80])

    def begin(conn: Any) -> None:
        if conn.get_execution_options().get("isolation_level") != "AUTOCOMMIT":  # else no BEGIN is sent
            statements.append("BEGIN")

    def sent_on_the_driver(logged: Any) -> None:
        if not logged.query.lstrip().upper().startswith(TRANSACTION_CONTROL):
            statements.append(DRIVER + logged.query.split("\n")[0][:72])

    def lent(dbapi_connection: Any, *_args: Any) -> None:
        dbapi_connection.driver_connection.add_query_logger(sent_on_the_driver)

    def returned(dbapi_connection: Any, *_args: Any) -> None:
        if dbapi_connection is not None:
            dbapi_connection.driver_connection.remove_query_logger(sent_on_the_driver)

    engine = client.app.state.engine
    assert not engine.pool._pre_ping, "a pre-ping is a query at every checkout"
    event.listen(engine.sync_engine, "before_cursor_execute", record)
    event.listen(engine.sync_engine, "begin", begin)
    if engine.dialect.name == "postgresql":
        event.listen(engine.sync_engine, "checkout", lent)
        event.listen(engine.sync_engine, "checkin", returned)
    return statements


TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE")
DRIVER = "driver: "  # a statement sent on the driver's connection, past the ORM


def all_on_the_driver(client: Any, statements: list[str]) -> bool:
    """On Postgres, every statement (not the BEGINs) was sent on the driver's connection."""
    if client.app.state.engine.dialect.name != "postgresql":
        return True
    return all(s.startswith(DRIVER) for s in statements if s != "BEGIN")


def split(statements: list[str]) -> tuple[int, int]:
    """(statements, transactions)."""
    transactions = statements.count("BEGIN")
    return len(statements) - transactions, transactions


async def test_a_simple_turn_runs_a_bounded_number_of_statements(make_client: MakeClient) -> None:
    llm = ScriptedLLM()
    client = await make_client(llm)
    statements = count_statements(client)

    llm.push(calls(("add_task", {"title": "Read book"})))
    first = await chat(client, "add Read book")
    assert first.status_code == 200, first.text
    queries, transactions = split(statements)
    assert queries <= ADD_IN_NEW_CONVERSATION, statements
    assert transactions <= ADD_TRANSACTIONS, statements
    assert all_on_the_driver(client, statements), statements

    statements.clear()
    llm.push(calls(("list_tasks", {})))
    listed = await chat(client, "what's on my list?", conversation_id=first.json()["conversation_id"])
    assert [t["title"] for t in listed.json()["tool_calls"][0]["result"]["data"]["tasks"]] == ["Read book"]
    queries, transactions = split(statements)
    assert queries <= LIST_IN_CONVERSATION, statements
    assert transactions <= LIST_TRANSACTIONS, statements
    assert all_on_the_driver(client, statements), statements

    statements.clear()
    llm.push(calls(("complete_task", {"task_id": "read book"})))
    done = await chat(client, "complete Read book", conversation_id=first.json()["conversation_id"])
    assert done.json()["tool_calls"][0]["result"]["success"] is True, done.json()
    queries, transactions = split(statements)
    assert queries <= COMPLETE_BY_TITLE_IN_CONVERSATION, statements
    assert transactions <= BY_TITLE_TRANSACTIONS, statements
    assert all_on_the_driver(client, statements), statements

    statements.clear()
    llm.push(calls(("delete_task", {"task_id": "read book"})))
    second = await chat(client, "delete Read book", conversation_id=first.json()["conversation_id"])
    assert second.json()["tool_calls"][0]["result"]["success"] is True
    queries, transactions = split(statements)
    assert queries <= DELETE_BY_TITLE_IN_CONVERSATION, statements
    assert transactions <= BY_TITLE_TRANSACTIONS, statements
    assert all_on_the_driver(client, statements), statements


async def test_a_repeated_turn_compiles_no_sql(make_client: MakeClient) -> None:
    """SQLAlchemy compiles a statement once and reuses it; a statement it cannot cache (a multi-row
    VALUES, say) is compiled again on every turn, which costs more CPU than running it."""
    llm = ScriptedLLM()
    client = await make_client(llm)
    misses: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, _params: Any, context: Any, _many: bool) -> None:
        # A query not taken from the cache (SAVEPOINT and RELEASE are never cached, and cost nothing to build).
        compiled = context.compiled if context is not None else None
        query = compiled is not None and (compiled.statement.is_dml or compiled.statement.is_select)
        if query and context.cache_hit is not context.dialect.CACHE_HIT:
            misses.append(f"{context.cache_hit}: {statement.split(chr(10))[0][:80]}")

    event.listen(client.app.state.engine.sync_engine, "before_cursor_execute", record)
    for title in ("Read book", "Call mom"):  # the first pass compiles, the second must not
        misses.clear()
        turns = [
            (
                f"add {title} and {title} again",
                calls(("add_task", {"title": title}), ("add_task", {"title": f"{title} 2"})),
            ),
            ("list my tasks", calls(("list_tasks", {}))),
            (f"complete {title}", calls(("complete_task", {"task_id": title.lower()}))),
            (
                f"change {title} 2 to high priority",
                calls(("update_task", {"task_id": f"{title} 2", "priority": "high"})),
            ),
            (f"delete {title}", calls(("delete_task", {"task_id": title}))),
        ]
        for message, script in turns:
            llm.push(script)
            response = await chat(client, message)
            assert response.status_code == 200, response.text
            assert all(c["result"]["success"] for c in response.json()["tool_calls"]), response.json()
    assert misses == [], misses


async def test_a_lone_listing_past_its_limit_counts_and_records_without_a_transaction(make_client: MakeClient) -> None:
    """A listing cut at its limit reads the count as well (a second read), and its tool execution row
    is still stored, with no transaction opened."""
    llm = ScriptedLLM()
    client = await make_client(llm)
    await seed_tasks(client, "Gym", "Taxes", "Laundry")
    statements = count_statements(client)

    llm.push(calls(("list_tasks", {"limit": 2})))
    listed = await chat(client, "what's on my list?")

    data = listed.json()["tool_calls"][0]["result"]["data"]
    assert (data["count"], len(data["tasks"]), data["truncated"]) == (3, 2, True)
    assert split(statements)[1] == LIST_TRANSACTIONS, statements
    async with client.app.state.engine.connect() as conn:
        recorded = await conn.execute(
            sa.select(sa.func.count())
            .select_from(sa.table("tool_executions"))
            .where(sa.text("tool_name = 'list_tasks'"))
        )
    assert recorded.scalar_one() == 1


@pytest.mark.parametrize("database", ["postgres"], indirect=True)
async def test_a_listing_by_words_keeps_its_transaction(make_client: MakeClient) -> None:
    """A text search sets its plan for its transaction's queries (task_filter.py): a listing with a
    query is not sent alone, and reads a misspelt word as it would in any step."""
    llm = ScriptedLLM()
    client = await make_client(llm)
    created = await client.post("/api/alice/tasks", json={"title": "Build the zeppelin model"}, headers=auth())
    assert created.status_code == 201, created.text
    statements = count_statements(client)

    llm.push(calls(("list_tasks", {"query": "zeppelin modle"})))
    listed = await chat(client, "show me the zeppelin modle task")

    assert [t["title"] for t in listed.json()["tool_calls"][0]["result"]["data"]["tasks"]] == [
        "Build the zeppelin model"
    ]
    _, transactions = split(statements)
    assert transactions == 1, statements


@pytest.mark.parametrize("database", ["postgres"], indirect=True)
async def test_a_misspelt_search_matches_each_pattern_once(make_client: MakeClient) -> None:
    """Read as misspelt, a query searches each word as written and, only for a word the owner never
    wrote, its closest words: a word the owner has is not searched a second time as its own
    'closest word' (an OR of two equal trigram scans)."""
    client = await make_client(offline=True)
    created = await client.post("/api/alice/tasks", json={"title": "Build the zeppelin model"}, headers=auth())
    assert created.status_code == 201, created.text
    sent: list[tuple[str, Any]] = []
    event.listen(
        client.app.state.engine.sync_engine,
        "before_cursor_execute",
        lambda _conn, _cursor, statement, params, *_: sent.append((statement, params)),
    )

    found = await client.get("/api/alice/tasks", params={"q": "zeppelin modle"}, headers=auth())

    assert [t["title"] for t in found.json()] == ["Build the zeppelin model"]
    statement, params = sent[-1]  # the page read as misspelt
    assert "%model%" in params and "%zeppelin%" not in params, params
    assert statement.count(" LIKE ") == 3  # zeppelin as written; modle as written, or model
