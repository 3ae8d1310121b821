"""The execution guard's decision table, one row at a time (services/guard.py)."""

from __future__ import annotations

from typing import Any

from backend.app.agent.guard import Accept, ForceRetry, GiveUp
from backend.app.agent.types import ExecutedCall, ToolCall, ToolResult
from backend.app.services.guard import NOT_REQUESTED, WRONG_TOOL, ExecutionGuard
from backend.app.services.intent import classify

MUTATING = frozenset({"add_task", "complete_task", "delete_task", "update_task"})


def guard(message: str, *, enabled: bool = True) -> ExecutionGuard:
    return ExecutionGuard(
        intent=classify(message),
        message=message,
        mutating_tools=MUTATING,
        instruction=lambda tool: f"call {tool}",
        ghost_instruction="act or respond",
        enabled=enabled,
    )


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=f"c_{name}", name=name, arguments=arguments)


def ran(name: str, *, success: bool = True, code: str | None = None, step: int = 0, **arguments: Any) -> ExecutedCall:
    result = ToolResult(success=success, code=code, data={"title": "x"} if success else None)
    return ExecutedCall(call=call(name, **arguments), arguments=arguments, result=result, step=step, duration_ms=0)


def decisions(g: ExecutionGuard) -> list[tuple[str, str, str | None]]:
    return [(e.decision.value, e.reason.value, e.tool) for e in g.events]


# -- a clear command answered without its tool ------------------------------------------------------


def test_a_command_without_its_tool_is_forced_once_then_given_up() -> None:
    g = guard("delete Read book")

    first = g.review_final("I've deleted it!", [], step=0)
    second = g.review_final("Done!", [], step=1)

    assert first == ForceRetry(tool="delete_task", instruction="call delete_task", reason="missing_tool")
    assert isinstance(second, GiveUp)
    assert decisions(g) == [("forced", "missing_tool", "delete_task"), ("gave_up", "missing_tool", "delete_task")]
    assert (g.outcome, g.retry_reason) == ("tool_not_triggered", "missing_tool")


def test_each_missing_action_kind_is_forced_once() -> None:
    g = guard("delete taxes and mark bread done")
    deleted = [ran("delete_task", task_id="taxes")]

    first = g.review_final("All done", deleted, step=1)
    second = g.review_final("All done", deleted, step=2)

    assert isinstance(first, ForceRetry) and first.tool == "complete_task"
    # Something already ran: no "Tool not triggered"; the reply says which action was not done.
    assert isinstance(second, Accept)


def test_a_read_the_model_chose_is_never_overridden_by_a_destructive_tool() -> None:
    g = guard("delete the invoice stuff")

    verdict = g.review_final("Which one do you mean?", [ran("list_tasks")], step=1)

    assert isinstance(verdict, Accept)
    assert decisions(g) == [("trusted", "model_chose_read", "delete_task")]


def test_a_missing_add_is_still_forced_after_a_read() -> None:
    g = guard("add milk")

    verdict = g.review_final("Here is your list.", [ran("list_tasks")], step=1)

    assert isinstance(verdict, ForceRetry) and verdict.tool == "add_task"


# -- the model's calls before they run -------------------------------------------------------------


def test_a_field_edit_reads_as_an_update() -> None:
    assert guard("remove the 'urgent' tag from taxes").intent.tools == ("update_task",)


def test_an_edit_instead_of_a_delete_runs_grounded() -> None:
    g = guard("delete the urgent stuff from gym")
    assert g.intent.tools == ("delete_task",)

    verdict = g.review_calls([call("update_task", task_id="gym", tags=[])], [], step=0, forced=False)

    assert verdict.refused == {} and verdict.retry is None
    assert verdict.grounded == frozenset({0}) and verdict.grounding == "delete the urgent stuff from gym"
    assert decisions(g) == [("trusted", "model_chose_edit", "update_task"), ("grounded", "extra_call", "update_task")]


def test_a_different_destructive_tool_is_refused_and_the_asked_one_forced() -> None:
    g = guard("delete Read book")

    verdict = g.review_calls([call("complete_task", task_id="Read book")], [], step=0, forced=False)

    assert set(verdict.refused) == {0} and verdict.refused[0].code == WRONG_TOOL
    assert verdict.retry is not None and verdict.retry.tool == "delete_task"
    # Forced already: the same wrong tool again is refused without another retry.
    again = g.review_calls([call("complete_task", task_id="Read book")], [], step=1, forced=True)
    assert set(again.refused) == {0} and again.retry is None


def test_an_extra_change_beside_the_asked_one_acts_only_on_what_the_user_named() -> None:
    g = guard("add milk")
    calls = [call("add_task", title="milk"), call("delete_task", task_id="Gym")]

    verdict = g.review_calls(calls, [], step=0, forced=False)

    assert verdict.refused == {} and verdict.grounded == frozenset({0, 1})
    assert verdict.grounding == "add milk"  # the extra delete: the message alone
    assert verdict.grounding_by_call == {0: "add milk\n"}  # the asked add: the message and what came before
    assert decisions(g) == [("grounded", "extra_call", "delete_task")]


def test_the_asked_add_may_take_its_title_from_the_conversation_but_not_from_nowhere() -> None:
    g = guard("add it again")
    g.context = "add Buy milk\nAdded: “Buy milk”."
    verdict = g.review_calls([call("add_task", title="Buy milk")], [], step=0, forced=False)
    assert verdict.grounded == frozenset({0}) and "Buy milk" in verdict.grounding_by_call[0]
    # What is checked is the title against that text (tools/resolver.shares_words, in TaskTools):
    from backend.app.tools.resolver import shares_words

    assert shares_words(verdict.grounding_by_call[0], "Buy milk")
    assert not shares_words("ajoute du lait à ma liste\n", "A list of tasks")  # SmolLM2's title for it
    assert shares_words("ajoute du lait à ma liste\n", "Lait")


def test_calls_made_under_a_forced_choice_are_grounded() -> None:
    g = guard("delete Read book")

    verdict = g.review_calls([call("delete_task", task_id="Read book")], [], step=1, forced=True)

    assert verdict.grounded == frozenset({0})
    assert decisions(g) == [("grounded", "forced_call", "delete_task")]


def test_a_negation_refuses_destructive_calls() -> None:
    g = guard("don't delete gym")
    calls = [call("delete_task", task_id="gym"), call("list_tasks")]

    verdict = g.review_calls(calls, [], step=0, forced=False)

    assert set(verdict.refused) == {0} and verdict.refused[0].code == NOT_REQUESTED
    assert decisions(g) == [("refused", "not_asked", "delete_task")]


def test_no_change_runs_on_a_question_advice_a_report_or_a_negation_even_one_the_user_named() -> None:
    for message in (
        "did I add the milk already?",  # question
        "Soll ich die Aufgabe Bread löschen?",  # advice, German
        "I finished the taxes yesterday",  # report
        "don't add milk",  # negation
        "¿debería añadir pan?",  # advice, Spanish
    ):
        g = guard(message)
        calls = [call("add_task", title="milk"), call("update_task", task_id="taxes", priority="high")]
        verdict = g.review_calls(calls, [], step=0, forced=False)
        assert set(verdict.refused) == {0, 1}, message
        assert {r.code for r in verdict.refused.values()} == {NOT_REQUESTED}
        assert verdict.grounded == frozenset()


def test_a_message_read_as_nothing_may_still_add_what_it_names() -> None:
    g = guard("gotta pick up the kids at 5")
    verdict = g.review_calls([call("add_task", title="pick up the kids")], [], step=0, forced=False)
    assert verdict.refused == {} and verdict.grounded == frozenset({0})


def test_reads_always_run() -> None:
    for message in ("did I finish the taxes?", "delete gym", "don't delete gym", "hi"):
        verdict = guard(message).review_calls([call("list_tasks")], [], step=0, forced=False)
        assert (verdict.refused, verdict.grounded, verdict.retry) == ({}, frozenset(), None)


# -- claims ----------------------------------------------------------------------------------------


def test_a_claim_on_a_message_read_as_nothing_gets_one_retry_with_a_way_out() -> None:
    g = guard("verwijder de taak taxes")

    first = g.review_final("Taxes has been removed.", [], step=0)
    second = g.review_final("Taxes has been removed.", [], step=1)

    assert first == ForceRetry(tool=None, instruction="act or respond", reason="ghost_claim", offer_respond=True)
    assert isinstance(second, Accept)
    assert decisions(g) == [("forced", "ghost_claim", None), ("claim_caught", "ghost_claim", None)]


def test_a_question_is_never_forced_whatever_the_reply_says() -> None:
    g = guard("did I already finish the taxes?")

    assert isinstance(g.review_final("Yes, Taxes has been completed.", [], step=0), Accept)
    assert isinstance(g.review_final("I've completed Taxes for you.", [], step=0), Accept)
    assert decisions(g) == [("claim_caught", "ghost_claim", None)]  # only the assistant's own claim counts
    assert g.ghost_claims("Yes, Taxes has been completed.", []) == []


def test_no_ghost_once_a_change_succeeded() -> None:
    g = guard("verwijder de taak taxes")

    assert g.ghost_claims("Taxes has been removed.", [ran("delete_task", task_id="taxes")]) == []


# -- covered: every action attempted ---------------------------------------------------------------


def test_covered_needs_every_action_and_every_item() -> None:
    g = guard("add milk, eggs and bread")

    assert not g.covered([ran("add_task", title="milk")])
    assert not g.covered([ran("add_task", title="milk"), ran("add_task", code="IGNORED", success=False)])
    three = [ran("add_task", title=t) for t in ("milk", "eggs", "bread")]
    assert g.covered(three)


def test_covered_counts_failures_and_refusals_but_not_wrong_tools() -> None:
    g = guard("delete taxes and mark bread done")
    failed = ran("delete_task", success=False, code="NOT_FOUND")

    assert not g.covered([failed])
    assert not g.covered([failed, ran("complete_task", success=False, code=WRONG_TOOL)])
    assert g.covered([failed, ran("complete_task", success=False, code="DESTRUCTIVE_LIMIT")])


def test_a_disabled_guard_decides_nothing() -> None:
    g = guard("delete Read book", enabled=False)

    assert isinstance(g.review_final("Deleted!", [], step=0), Accept)
    verdict = g.review_calls([call("complete_task", task_id="x")], [], step=0, forced=False)
    assert (verdict.refused, verdict.retry) == ({}, None)
    assert g.outcome == "disabled" and g.events == []
