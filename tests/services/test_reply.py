"""The one place that writes the reply (services/reply/compose.py), from synthetic runs."""

from __future__ import annotations

from typing import Any

import pytest
from support.runs import done, failed, guard

from backend.app.agent.guard_protocol import Accept, GiveUp
from backend.app.agent.limits import Budget, BudgetUse
from backend.app.agent.loop_types import StopReason
from backend.app.agent.run_io import RunResult
from backend.app.calls.payloads import TaskData, TaskListing
from backend.app.calls.types import ExecutedCall, ToolResult
from backend.app.language.catalog import texts
from backend.app.language.reading.intent import classify
from backend.app.schemas.chat import ActionMetadata
from backend.app.services.guard.final_calls import final_calls
from backend.app.services.reply.compose import TOOL_NOT_TRIGGERED, compose
from backend.app.services.turn.record import action_metadata


def run(
    *executed: ExecutedCall, text: str = "", stop: StopReason = StopReason.COMPOSED, detail: str | None = None
) -> RunResult:
    return RunResult(
        text=text,
        executed=list(executed),
        stop_reason=stop,
        ok=stop in (StopReason.FINAL, StopReason.COMPOSED),
        use=BudgetUse(Budget()),
        trace=[],
        findings=[],
        policy_events=[],
        stop_detail=detail,
    )


def reply_for(message: str, result: RunResult, mode: str = "direct", language: str = "en") -> Any:
    """The reply to `message` after `result`, its final words read by the guard as the loop would
    (its events and its verdict on the words go into the run's record); and that record."""
    g = guard(message, model_mode=mode == "model")
    if result.stop_reason is StopReason.FINAL:
        step = max((e.step for e in result.executed), default=-1) + 1
        verdict = g.review_final(result.text, result.executed, step=step, decided=[])
        result.guard_events = list(verdict.events)
        result.words = verdict.words if isinstance(verdict, Accept | GiveUp) else None
    return compose(run=result, intent=g.intent, message=message, response_mode=mode, t=texts(language)), result


def test_direct_mode_tells_each_result() -> None:
    reply, _ = reply_for(
        "add milk and delete gym",
        run(
            done("add_task", "Milk"),
            failed("delete_task", "Gym", "NOT_FOUND"),
            text="Both done!",
            stop=StopReason.FINAL,
        ),
    )

    assert reply.text == "Added: “Milk”.\nCouldn't delete “Gym”: there is no task by that name on your list."
    assert [o.status.value for o in reply.reports] == ["done", "failed"]


def test_the_contract_message_when_a_command_ran_nothing() -> None:
    g = guard("delete Read book")
    reply = compose(
        run=run(stop=StopReason.TOOL_NOT_TRIGGERED),
        intent=g.intent,
        message="delete Read book",
        response_mode="direct",
        t=texts("en"),
    )

    assert (reply.text, reply.source) == (TOOL_NOT_TRIGGERED, "contract")
    assert action_metadata(reply, g.intent) == ActionMetadata(
        action="delete_task", success=False, task_id=None, task_title=None, message="Tool not triggered"
    )


def test_an_action_no_call_attempted_is_reported_not_done() -> None:
    reply, _ = reply_for("delete taxes and mark bread done", run(done("delete_task", "Taxes"), stop=StopReason.FINAL))

    assert reply.text == "Deleted: “Taxes”.\nNot done: “mark bread done”. Please ask again."
    metadata = action_metadata(reply, classify("delete taxes and mark bread done"))
    assert metadata is not None
    assert (metadata.action, metadata.success, metadata.task_title) == ("delete_task", True, "Taxes")
    assert metadata.actions is not None
    assert [(a.action, a.status, a.success) for a in metadata.actions] == [
        ("delete_task", "done", True),
        ("complete_task", "not_done", False),
    ]


def test_calls_not_run_say_why() -> None:
    reply, _ = reply_for(
        "complete a, b and c",
        run(
            done("complete_task", "a"),
            failed("complete_task", "b", "IGNORED", ran=False),
            failed("complete_task", "c", "BUDGET_EXCEEDED", ran=False),
        ),
    )

    assert reply.text.splitlines()[1:] == [
        "Not done: complete “b” (too many actions in one message; send it again).",
        "Not done: complete “c” (this message ran out of its budget).",
    ]
    assert [o.reason.value for o in reply.not_done if o.reason] == ["ignored", "budget"]


def test_a_stop_is_said_after_the_results() -> None:
    reply, _ = reply_for("add milk", run(done("add_task", "Milk"), stop=StopReason.BUDGET_EXCEEDED, detail="llm_calls"))

    assert reply.text == (
        "Added: “Milk”.\nThat is as far as I got with this message: anything not listed above was not done. "
        "Please ask again."
    )


@pytest.mark.parametrize(
    ("stop", "said"),
    [
        (StopReason.MAX_STEPS, "Nothing was changed: I stopped before I could do it. Please ask again."),
        (StopReason.LLM_ERROR, "Nothing was changed: the assistant stopped answering before it finished."),
    ],
)
def test_a_stop_with_nothing_above_it_says_nothing_was_changed(stop: StopReason, said: str) -> None:
    reply, _ = reply_for("yes", run(stop=stop))

    assert reply.text == said


def test_direct_mode_builds_the_reply_from_results_once_a_tool_ran() -> None:
    invoices: TaskData = {
        "id": "t1",
        "title": "Old invoices",
        "description": None,
        "status": "pending",
        "priority": "medium",
        "due_date": None,
        "tags": [],
    }
    listed = done("list_tasks", "x")
    listed.result = ToolResult(True, data=TaskListing(tasks=[invoices], count=1, status="all", truncated=False))
    reply, r = reply_for("delete the invoices", run(listed, text="I looked them up.", stop=StopReason.FINAL))

    assert "looked" not in reply.text and reply.text.startswith("You have 1 task:")
    assert "Not done: “delete the invoices”. I did something else instead" in reply.text
    assert r.words is not None and r.words.verdict.value == "not_shown"
    # A question the model asks back goes beside the results, once read (and, in production, checked).
    asked, r = reply_for("delete the invoices", run(listed, text="Which ones do you mean?", stop=StopReason.FINAL))
    assert asked.text.endswith("\nWhich ones do you mean?") and r.words is not None and r.words.verdict.value == "shown"


def test_a_ghost_claim_without_any_call_is_replaced() -> None:
    reply, _ = reply_for("hello there", run(text="I've deleted Gym.", stop=StopReason.FINAL))

    assert reply.text.startswith("Nothing was changed. Glad to help.")  # the claim was not shown: said so, and answered
    assert reply.replaced[0].why == "ghost_claim" and reply.replaced[0].model_reply == "I've deleted Gym."


def test_every_line_is_in_the_language_of_the_message() -> None:
    reply, _ = reply_for(
        "borra gym y añade leche",
        run(failed("delete_task", "Gym", "NOT_FOUND"), done("add_task", "Leche")),
        language="es",
    )

    assert reply.text == "No pude eliminar “Gym”: no hay ninguna tarea con ese nombre en tu lista.\nAñadida: “Leche”."


def test_model_mode_keeps_a_consistent_reply_and_completes_it() -> None:
    result = run(done("add_task", "Milk"), done("add_task", "Eggs"), text="I've added Milk.", stop=StopReason.FINAL)

    reply, _ = reply_for("add milk and eggs", result, mode="model")

    assert (reply.text, reply.source) == ("I've added Milk.\nAdded: “Eggs”.", "model")


def test_model_mode_says_every_change_the_words_do_not_state() -> None:
    """Words that only mention a change that ran ("shall I delete “Gym”?" after deleting it), or state
    it in a way the word lists do not read, get its line from the catalog (docs/guard.md)."""
    for text in ("Shall I delete Gym?", "Gym is off your list.", "Done!"):
        result = run(done("delete_task", "Gym"), text=text, stop=StopReason.FINAL)
        reply, _ = reply_for("delete gym", result, mode="model")
        assert reply.text == f"{text}\nDeleted: “Gym”.", text


def test_model_mode_replaces_a_reply_that_claims_denies_or_hides() -> None:
    cases = [
        (
            run(done("add_task", "Milk"), text="I've added milk and deleted gym.", stop=StopReason.FINAL),
            "unbacked_claim",
        ),
        (run(done("add_task", "Milk"), text="Sorry, I couldn't add Milk.", stop=StopReason.FINAL), "denied_success"),
        (
            run(
                done("add_task", "Milk"),
                failed("add_task", "Eggs", "INVALID_ARGUMENTS"),
                text="Done! All good.",
                stop=StopReason.FINAL,
            ),
            "hides_failure",
        ),
    ]
    for result, reason in cases:
        message = "add milk and eggs" if len(result.executed) == 2 else "add milk"
        reply, _ = reply_for(message, result, mode="model")
        assert reply.source == "results" and reply.replaced[0].why == reason
        assert reply.text.startswith("Added: “Milk”.")


def test_final_calls_drop_what_the_model_fixed_and_keep_what_it_did_not() -> None:
    executed = [
        failed("add_task", "Milk", "INVALID_ARGUMENTS", fixable=True),
        failed("add_task", "Eggs", "INVALID_ARGUMENTS", fixable=True),
        done("add_task", "Milk", step=1),
        failed("add_task", "Jam", "REPEATED_CALL", step=1, ran=False),
        failed("delete_task", "x", "IGNORED", ran=False),
        failed("delete_task", "x", "NOT_FOUND", step=1),
    ]
    executed[-1].call.arguments = executed[4].call.arguments  # the ignored call, sent again

    shown = final_calls(executed)

    assert [(e.call.name, e.result.code, e.step) for e in shown] == [
        ("add_task", "INVALID_ARGUMENTS", 0),  # Eggs was never fixed: still reported
        ("add_task", None, 1),
        ("delete_task", "NOT_FOUND", 1),
    ]


def test_a_reference_the_user_never_gave_is_not_quoted_back() -> None:
    """A model's own argument that found no task ("./2026-12-04.txt", an id) is no name the user knows."""
    reply, _ = reply_for("tick off the report", run(failed("complete_task", "./2026-12-04.txt", "NOT_FOUND")))

    assert reply.text == "Couldn't complete the task you meant: there is no task by that name on your list."
    said, _ = reply_for("tick off the report", run(failed("complete_task", "the report", "NOT_FOUND")))
    assert said.text == "Couldn't complete “the report”: there is no task by that name on your list."


@pytest.mark.parametrize(
    ("message", "start"),
    [
        ("hi!", "Glad to help."),
        ("thanks so much", "Glad to help."),
        ("how do I add a due date?", "I keep your to-do list:"),
        ("can I undo things?", "I keep your to-do list:"),
    ],
)
def test_a_message_that_asks_for_no_change_is_answered_when_the_words_cannot_be_shown(message: str, start: str) -> None:
    reply, _ = reply_for(message, run(text="", stop=StopReason.FINAL))

    assert reply.text.startswith(start) and "Nothing was changed." not in reply.text
