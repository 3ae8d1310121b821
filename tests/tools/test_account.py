"""A turn's account (`TurnAccount`): the JSON stored in `messages.context`, and read back, of any version."""

from __future__ import annotations

from typing import Any

from support.payloads import unshaped

from backend.app.calls.codes import ResultCode
from backend.app.calls.types import ExecutedCall, ToolCall, ToolResult
from backend.app.db.repositories.conversations import HistoryRow
from backend.app.tools.account import TaskRef, TurnAccount
from backend.app.tools.referents import Referents


def ran(name: str, result: ToolResult) -> ExecutedCall:
    return ExecutedCall(call=ToolCall("c", name, {}), arguments={}, result=result, step=0, duration_ms=0.0)


LISTED = {"id": "t2", "title": "Gym", "status": "pending", "priority": "high", "position": 3}


def test_the_stored_json_of_a_turn_that_acted_and_showed() -> None:
    executed = [
        ran("add_task", ToolResult(success=True, data={"id": "t1", "title": "Milk"})),
        ran("list_tasks", ToolResult(success=True, data=unshaped({"tasks": [LISTED]}))),
    ]
    account = TurnAccount.of(executed, language="en")

    assert account.to_json() == {
        "acted": [{"id": "t1", "title": "Milk", "action": "add_task"}],
        "shown": [{"id": "t2", "title": "Gym", "status": "pending", "priority": "high"}],
        "line": "[tool results: added “Milk” (id t1); showed: 1. “Gym” (id t2)]",
        "language": "en",
    }
    assert list(account.to_json() or {}) == ["acted", "shown", "line", "language"]
    assert TurnAccount.from_json(account.to_json()) == account


def test_a_turn_with_nothing_to_account_for_keeps_its_language_and_question() -> None:
    failed = ran("delete_task", ToolResult(success=False, code=ResultCode.NOT_FOUND, error="no"))

    assert TurnAccount.of([failed]).to_json() is None
    assert TurnAccount.of([failed], language="de").to_json() == {"language": "de"}
    asked = TurnAccount(confirmation="q1")
    assert asked.to_json() == {"confirmation": "q1"}
    assert TurnAccount.from_json({"confirmation": "q1"}).confirmation == "q1"


def test_the_models_own_words_are_kept_where_other_lines_stand_beside_them() -> None:
    beside = TurnAccount.of([], language="en", words="Should I delete it?")
    assert beside.to_json() == {"language": "en", "words": "Should I delete it?"}
    assert TurnAccount.from_json(beside.to_json()).words == "Should I delete it?"
    none_shown = TurnAccount.of([], words="")  # a reply of the backend's lines only
    assert TurnAccount.from_json(none_shown.to_json()).words == ""
    assert TurnAccount.from_json({"language": "en"}).words is None  # older, or the words alone


def test_older_shapes_are_read() -> None:
    older: dict[str, Any] = {
        "acted": [{"id": "t1", "title": "Milk", "action": "complete_task"}],
        "shown": [{"id": "t2", "title": "Gym", "detail": "due Friday"}],
        "line": "[tool results: ...]",
    }
    account = TurnAccount.from_json(older)

    assert account.shown == (TaskRef("t2", "Gym"),) and account.language is None and account.confirmation is None
    assert TurnAccount.from_json(None) == TurnAccount()
    referents = Referents.from_history([HistoryRow("user", "done milk"), HistoryRow("assistant", "Done.", older)])
    assert referents.acted == (TaskRef("t1", "Milk"),)
    assert referents.acted_how == "the task completed in the previous turn"
    assert referents.shown == (TaskRef("t2", "Gym"),)
