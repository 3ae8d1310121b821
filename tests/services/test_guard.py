"""The execution guard's decision table, one row at a time (services/guard/execution.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from support.runs import Reviews

from backend.app.agent.guard_protocol import Accept, CheckWords, ForceRetry, GiveUp, WordsReason, WordsVerdict
from backend.app.calls.codes import ResultCode
from backend.app.calls.facts import Grounding, Hold
from backend.app.calls.payloads import TitleNamed
from backend.app.calls.types import ExecutedCall, ToolCall, ToolResult
from backend.app.calls.verdicts import verdict_of
from backend.app.language.reading.intent import classify
from backend.app.services.guard.events import retry_reason
from backend.app.services.guard.execution import ExecutionGuard
from backend.app.services.guard.reply_check import check_request

MUTATING = frozenset({"add_task", "complete_task", "delete_task", "update_task"})


def guard(
    message: str, *, enabled: bool = True, checks: bool = False, model_mode: bool = False, context: str = ""
) -> Reviews:
    return Reviews(
        ExecutionGuard(
            intent=classify(message),
            message=message,
            mutating_tools=MUTATING,
            instruction=lambda tool: f"call {tool}",
            ghost_instruction="act or respond",
            enabled=enabled,
            context=context,
            words_beside_results=model_mode,
            check=(lambda text: check_request(message, text)) if checks else None,
        )
    )


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=f"c_{name}", name=name, arguments=arguments)


def ran(
    name: str, *, success: bool = True, code: str | None = None, step: int = 0, title: str = "x", **arguments: Any
) -> ExecutedCall:
    data: TitleNamed = {"title": title}
    result = ToolResult(success=success, code=ResultCode(code) if code else None, data=data if success else None)
    return ExecutedCall(call=call(name, **arguments), arguments=arguments, result=result, step=step, duration_ms=0)


def decisions(g: Reviews) -> list[tuple[str, str, str | None]]:
    return [(e.decision.value, e.reason.value, e.tool) for e in g.events]


# -- a clear command answered without its tool ------------------------------------------------------


def test_a_command_without_its_tool_is_forced_once_then_given_up() -> None:
    g = guard("delete Read book")

    first = g.review_final("I've deleted it!", [], step=0)
    second = g.review_final("Done!", [], step=1)

    forced = ForceRetry(verdict_of("A5"), tool="delete_task", instruction="call delete_task")
    assert first == replace(forced, events=first.events)
    assert isinstance(second, GiveUp)
    assert decisions(g) == [("forced", "missing_tool", "delete_task"), ("gave_up", "missing_tool", "delete_task")]
    assert (g.outcome, retry_reason(g.events)) == ("tool_not_triggered", "missing_tool")


def test_a_review_changes_nothing_the_events_it_is_handed_say_what_was_decided() -> None:
    g = guard("delete Read book").guard

    first = g.review_final("I've deleted it!", [], step=0, decided=[])
    again = g.review_final("I've deleted it!", [], step=0, decided=[])  # nothing recorded: forced again

    assert first == again and isinstance(first, ForceRetry) and len(first.events) == 1
    assert isinstance(g.review_final("Done!", [], step=1, decided=first.events), GiveUp)


def test_each_missing_action_kind_is_forced_once() -> None:
    g = guard("delete taxes and mark bread done")
    deleted = [ran("delete_task", task_id="taxes")]

    first = g.review_final("I deleted taxes and marked bread as done.", deleted, step=1)
    second = g.review_final("I deleted taxes and marked bread as done.", deleted, step=2)

    assert isinstance(first, ForceRetry) and first.tool == "complete_task"
    # Something already ran: no "Tool not triggered"; the reply says which action was not done.
    assert isinstance(second, Accept)


def test_a_bare_done_after_a_change_is_about_that_change_and_forces_nothing() -> None:
    deleted = [ran("delete_task", task_id="taxes")]
    assert isinstance(guard("delete taxes and mark bread done").review_final("All done", deleted, step=1), Accept)
    # With nothing done, "Done!" can only claim what was asked: the ghost of seed 003, forced.
    nothing = guard("mark bread done").review_final("Done!", [], step=0)
    assert isinstance(nothing, ForceRetry) and nothing.tool == "complete_task"


def test_a_read_the_model_chose_is_never_overridden_by_a_destructive_tool() -> None:
    g = guard("delete the invoice stuff")

    verdict = g.review_final("Which one do you mean?", [ran("list_tasks")], step=1)

    assert isinstance(verdict, Accept)
    assert decisions(g) == [("trusted", "model_chose_read", "delete_task")]


def test_a_missing_add_is_forced_only_when_the_words_claim_it_or_are_empty() -> None:
    listed = [ran("list_tasks")]

    assert isinstance(guard("add milk").review_final("Here is your list.", listed, step=1), Accept)
    claimed = guard("add milk").review_final("Added milk to your list!", listed, step=1)
    assert isinstance(claimed, ForceRetry) and claimed.tool == "add_task" and claimed.verdict.rule == "A5"
    empty = guard("add milk").review_final("", listed, step=1)
    assert isinstance(empty, ForceRetry) and empty.tool == "add_task"


def test_words_that_claim_nothing_disagree_with_the_reader_and_nothing_is_forced() -> None:
    for message, words in (
        ("delete Read book", "Which book do you mean? You have two."),
        ("the delete-old-photos task is the one I care about", "Got it, I'll keep that in mind."),
        ("mark's birthday is on friday", "Nice! Want me to add a reminder?"),
    ):
        g = guard(message)
        assert isinstance(g.review_final(words, [], step=0), Accept), message
        assert not any(d == "forced" for d, _, _ in decisions(g)), message


# -- the model's calls before they run -------------------------------------------------------------


def test_a_field_edit_reads_as_an_update() -> None:
    assert guard("remove the 'urgent' tag from taxes").intent.tools == ("update_task",)


def test_an_edit_instead_of_a_delete_runs_on_what_the_words_name_with_values_they_give() -> None:
    g = guard("delete the urgent stuff from gym")
    assert g.intent.tools == ("delete_task",)

    verdict = g.review_calls([call("update_task", task_id="gym", tags=[])], [], step=0, forced=False)

    # Never replaced by the reader's delete: it acts on a task the message names, and every value it
    # stores must be one the words give (the reader may have misread "remove the tag" as a delete).
    held = Grounding(Hold.NAMED, names="delete the urgent stuff from gym", rule="C11", strict=True)
    assert verdict.refused == {} and verdict.grounding == {0: held}
    assert decisions(g) == [("grounded", "extra_call", "update_task")]


def test_an_edit_marking_done_stands_in_for_the_completion_asked() -> None:
    g = guard("mark gym as done")
    verdict = g.review_calls([call("update_task", task_id="gym", status="completed")], [], step=0, forced=False)
    assert verdict.grounding[0].rule == "C10"
    assert decisions(g) == [("trusted", "model_chose_edit", "update_task")]


def test_a_different_destructive_tool_is_never_replaced_nor_run_on_words_that_ask_another_change() -> None:
    g = guard("delete Read book")

    verdict = g.review_calls([call("complete_task", task_id="Read book")], [], step=0, forced=False)

    # Never refused and replaced by the reader's tool: it may act only on a task words no other action
    # took name; here the delete's words name Read book, which is theirs (the tools refuse it: T4).
    assert verdict.refused == {}
    assert verdict.grounding[0] == Grounding(Hold.NAMED, names="", not_names="read book", rule="C12")
    assert decisions(g) == [("grounded", "extra_call", "complete_task")]


def test_an_extra_change_beside_the_asked_one_acts_only_on_what_the_user_named() -> None:
    g = guard("add milk")
    calls = [call("add_task", title="milk"), call("delete_task", task_id="Gym")]

    verdict = g.review_calls(calls, [], step=0, forced=False)

    # The extra delete: only on what the words no action took name (nothing here), never the title to add.
    assert verdict.grounding[1] == Grounding(Hold.NAMED, names="", not_names="milk", rule="C12")
    # The asked add: a title the message (or the conversation) makes plausible.
    assert verdict.grounding[0] == Grounding(Hold.NAMED, names="add milk", rule="C8")
    assert decisions(g) == [("grounded", "extra_call", "delete_task")]


def test_content_never_grounds_an_action() -> None:
    """A quoted title, or a task to add, names no target for another call: "add 'delete Yoga'"."""
    g = guard("add a task called 'delete Yoga' and mark gym done")
    calls = [
        call("add_task", title="delete Yoga"),
        call("delete_task", task_id="Yoga"),
        call("complete_task", task_id="Yoga"),
    ]

    verdict = g.review_calls(calls, [], step=0, forced=False)

    assert verdict.grounding[1].names == ""  # no delete was asked for: nothing it may act on
    # The asked complete: on what its own words name; another task is asked about, never changed.
    assert verdict.grounding[2] == Grounding(
        Hold.OWN,
        names="mark gym done",
        not_names="'delete Yoga'\na task called 'delete Yoga'",
        rule="C9",
        whole_list=True,
    )


def test_an_asked_delete_whose_words_name_no_task_takes_what_it_points_to_from_the_rest() -> None:
    g = guard("FINALLY filed my taxes!!! mark it done")
    verdict = g.review_calls([call("complete_task", task_id="Taxes")], [], step=0, forced=False)
    names = verdict.grounding[0].names or ""
    assert "it" in names and "taxes" in names and verdict.grounding[0].hold is Hold.OWN


def test_the_asked_add_may_take_its_title_from_the_conversation_but_not_from_nowhere() -> None:
    g = guard("add it again", context="add Buy milk")
    verdict = g.review_calls([call("add_task", title="Buy milk")], [], step=0, forced=False)
    names = verdict.grounding[0].names or ""
    assert "Buy milk" in names
    # What is checked is the title against that text (tools/titles.shares_words, in TaskTools):
    from backend.app.tools.titles import shares_words

    assert shares_words(names, "Buy milk")
    assert not shares_words("ajoute du lait à ma liste\n", "A list of tasks")  # SmolLM2's title for it
    assert shares_words("ajoute du lait à ma liste\n", "Lait")


def test_calls_made_under_a_forced_choice_are_grounded() -> None:
    g = guard("delete Read book")

    verdict = g.review_calls([call("delete_task", task_id="Read book")], [], step=1, forced=True)

    assert verdict.grounding == {
        0: Grounding(Hold.NAMED, names="delete read book", forced=True, rule="C7", whole_list=True)
    }
    assert decisions(g) == [("grounded", "forced_call", "delete_task")]


def test_a_negation_refuses_destructive_calls() -> None:
    g = guard("don't delete gym")
    calls = [call("delete_task", task_id="gym"), call("list_tasks")]

    verdict = g.review_calls(calls, [], step=0, forced=False)

    assert set(verdict.refused) == {0} and verdict.refused[0].code == ResultCode.NOT_REQUESTED
    assert decisions(g) == [("refused", "not_asked", "delete_task")]


def test_no_change_runs_on_a_question_advice_a_report_or_a_negation_even_one_the_user_named() -> None:
    for message in (
        "what did I add this morning?",  # question (one of how a task stands looks it up: C20)
        "Soll ich die Aufgabe Bread löschen?",  # advice, German
        "I finished the taxes yesterday",  # report
        "don't add milk",  # negation
        "¿debería añadir pan?",  # advice, Spanish
    ):
        g = guard(message)
        calls = [call("add_task", title="milk"), call("update_task", task_id="taxes", priority="high")]
        verdict = g.review_calls(calls, [], step=0, forced=False)
        assert set(verdict.refused) == {0, 1}, message
        assert {r.code for r in verdict.refused.values()} == {ResultCode.NOT_REQUESTED}
        assert verdict.grounding == {}
        # Every change refused: asked again, with no tools, for an answer in words (once).
        refused = [ran("add_task", success=False, code=ResultCode.NOT_REQUESTED)]
        again = g.review_results(refused, step=0)
        assert again is not None and again.answer_only and g.review_results(refused, step=1) is None


def test_a_delete_or_complete_on_a_question_is_looked_up_to_ask_never_after_a_no() -> None:
    asked = guard("should I delete gym?").review_calls([call("delete_task", task_id="gym")], [], step=0, forced=False)
    assert asked.grounding == {0: Grounding(Hold.ASK, names="should i delete gym?", rule="C13")}
    g = guard("don't delete gym")
    verdict = g.review_calls([call("delete_task", task_id="gym")], [], step=0, forced=False)
    assert set(verdict.refused) == {0}
    # Small talk may only be asked about a task its words name ("I'm done with the laundry"): "thanks" names none.
    thanks = guard("thanks a lot").review_calls([call("delete_task", task_id="gym")], [], step=0, forced=False)
    assert thanks.grounding == {0: Grounding(Hold.ASK, names="thanks a lot", rule="C13")}


def test_a_message_read_as_nothing_may_still_add_what_it_names_but_never_the_whole_message() -> None:
    g = guard("gotta pick up the kids at 5")
    verdict = g.review_calls([call("add_task", title="pick up the kids")], [], step=0, forced=False)
    grounding = Grounding(Hold.NAMED, names="gotta pick up the kids at 5", rule="C18")
    assert verdict.refused == {} and verdict.grounding == {0: grounding}
    whole = guard("pick up the kids").review_calls(
        [call("add_task", title="Pick up the kids")], [], step=0, forced=False
    )
    assert set(whole.refused) == {0}  # the user's words, but nothing asks for them to be a task


def test_reads_always_run() -> None:
    for message in ("did I finish the taxes?", "delete gym", "don't delete gym", "hi"):
        verdict = guard(message).review_calls([call("list_tasks")], [], step=0, forced=False)
        assert (verdict.refused, verdict.grounding) == ({}, {})


# -- claims ----------------------------------------------------------------------------------------


def test_a_claim_on_a_message_read_as_nothing_gets_one_retry_once_the_check_confirms_it() -> None:
    g = guard("usuń zadanie taxes", checks=True)  # Polish: no language file reads it

    first = g.review_final("All done, everything is sorted!", [], step=0)  # the lists read a claim
    assert isinstance(first, CheckWords)  # which change it claims, the check says (A9)
    two = {"done": [{"action": "delete", "task": "taxes"}, {"action": "complete", "task": "gym"}], "not_done": []}
    retry = g.review_checked("All done, everything is sorted!", two, [], step=0)
    assert replace(retry, events=()) == ForceRetry(
        verdict_of("A10"), tool=None, instruction="act or respond", offer_respond=True
    )
    assert isinstance(g.review_final("Done!", [], step=1), CheckWords | Accept)  # retried once: no more
    # A claim of one kind of change forces that tool, and what it names is only looked up: the
    # message may be a question no file reads, and a model that complies must not make it a change.
    asked = guard("muss ich heute noch einkaufen gehen", checks=True)
    assert isinstance(asked.review_final("Einkaufen ist erledigt.", [], step=0), CheckWords)
    one = {"done": [{"action": "complete", "task": "Einkaufen"}], "not_done": []}
    forced = asked.review_checked("Einkaufen ist erledigt.", one, [], step=0)
    assert replace(forced, events=()) == ForceRetry(
        verdict_of("A8"), tool="complete_task", instruction="call complete_task"
    )
    verdict = asked.review_calls([call("complete_task", task_id="Einkaufen")], [], step=1, forced=True)
    assert verdict.grounding == {
        0: Grounding(Hold.ASK, names="muss ich heute noch einkaufen gehen", forced=True, rule="C6", whole_list=True)
    }


def test_the_word_lists_alone_never_force_a_tool_on_a_message_read_as_nothing() -> None:
    g = guard("usuń zadanie taxes")  # lists only: a claim they read is withheld, nothing forced
    assert isinstance(g.review_final("Taxes has been deleted.", [], step=0), Accept)
    assert g.words is not None and g.words.reason is WordsReason.GHOST_CLAIM
    assert decisions(g) == [("claim_caught", "ghost_claim", None)]


def test_a_question_is_never_forced_whatever_the_reply_says() -> None:
    g = guard("did I already finish the taxes?")

    assert isinstance(g.review_final("Yes, Taxes has been completed.", [], step=0), Accept)
    assert g.words is not None and g.words.shown  # an answer: only the assistant's own claim counts
    assert isinstance(g.review_final("I've completed Taxes for you.", [], step=0), Accept)
    assert g.words is not None and g.words.reason is WordsReason.GHOST_CLAIM
    assert decisions(g) == [("claim_caught", "ghost_claim", None)]


def test_a_claim_about_another_task_is_caught_even_after_a_success() -> None:
    g = guard("delete rent", model_mode=True)
    rent = [ran("delete_task", task_id="Rent", title="Rent"), ran("list_tasks", title="Yoga")]

    g.review_final("Yoga has been deleted.", rent, step=1)
    assert g.words is not None and g.words.reason is WordsReason.UNBACKED_CLAIM
    g.review_final("Rent has been deleted.", rent, step=1)
    assert g.words is not None and g.words.shown
    g.review_final("Done! It's gone.", rent, step=1)  # names no task of the turn: the one deleted
    assert g.words is not None and g.words.shown


def test_with_checks_the_words_are_shown_only_when_the_check_matches_what_ran() -> None:
    g = guard("thanks!", checks=True)
    verdict = g.review_final("Gotowe, usunięte!", [], step=0)  # no list reads Polish
    assert isinstance(verdict, CheckWords) and verdict.tool.name == "check_reply"
    assert "Gotowe, usunięte!" in verdict.messages[-1]["content"]

    g.review_checked("Gotowe, usunięte!", {"done": [{"action": "delete", "task": ""}], "not_done": []}, [], step=0)
    assert g.words is not None and (g.words.verdict, g.words.reason) == (WordsVerdict.WITHHELD, WordsReason.GHOST_CLAIM)
    g.review_checked("Graag gedaan!", {"done": [], "not_done": []}, [], step=0)
    assert g.words is not None and g.words.verdict is WordsVerdict.VERIFIED
    g.review_checked("Graag gedaan!", {"task_id": "thanks!"}, [], step=0)  # a check that cannot be read
    assert g.words is not None and (g.words.verdict, g.words.reason) == (WordsVerdict.WITHHELD, WordsReason.UNVERIFIED)


def reason_of(g: Reviews) -> WordsReason | None:
    """Why the last review withheld the words, read anew (mypy would carry a narrowing of `g.words`
    from one review to the next)."""
    return g.words.reason if g.words is not None else None


def test_the_check_catches_another_task_and_a_denied_success() -> None:
    g = guard("delete rent", checks=True, model_mode=True)
    rent = [ran("delete_task", task_id="Rent", title="Rent")]

    g.review_checked("Hecho.", {"done": [{"action": "delete", "task": "Yoga"}], "not_done": []}, rent, step=1)
    assert reason_of(g) is WordsReason.UNBACKED_CLAIM
    g.review_checked("Hecho.", {"done": [{"action": "complete", "task": "Rent"}], "not_done": []}, rent, step=1)
    assert reason_of(g) is WordsReason.UNBACKED_CLAIM  # another action
    g.review_checked("No pude.", {"done": [], "not_done": [{"action": "delete", "task": "Rent"}]}, rent, step=1)
    assert reason_of(g) is WordsReason.DENIED_SUCCESS
    g.review_checked("Listo.", {"done": [{"action": "delete", "task": "rent"}], "not_done": []}, rent, step=1)
    assert g.words is not None and g.words.verdict is WordsVerdict.VERIFIED


def test_words_beside_a_change_that_did_not_happen_are_never_shown() -> None:
    g = guard("delete rent", model_mode=True)
    failed = [ran("delete_task", success=False, code="NOT_FOUND", task_id="Rent")]

    assert isinstance(g.review_final("Sorry, no Rent task.", failed, step=1), Accept)
    assert g.words is not None and g.words.reason is WordsReason.HIDES_FAILURE


# -- covered: every action attempted ---------------------------------------------------------------


def test_covered_needs_every_action_and_every_item() -> None:
    g = guard("add milk, eggs and bread")

    assert not g.covered([ran("add_task", title="milk")])
    assert not g.covered([ran("add_task", title="milk"), ran("add_task", code="IGNORED", success=False)])
    three = [ran("add_task", title=t) for t in ("milk", "eggs", "bread")]
    assert g.covered(three)


def test_covered_counts_failures_and_refusals() -> None:
    g = guard("delete taxes and mark bread done")
    failed = ran("delete_task", success=False, code="NOT_FOUND")

    assert not g.covered([failed])
    assert g.covered([failed, ran("complete_task", success=False, code="DESTRUCTIVE_LIMIT")])


def test_a_disabled_guard_decides_nothing() -> None:
    g = guard("delete Read book", enabled=False)

    assert isinstance(g.review_final("Deleted!", [], step=0), Accept)
    verdict = g.review_calls([call("complete_task", task_id="x")], [], step=0, forced=False)
    assert (verdict.refused, verdict.grounding) == ({}, {})
    assert g.outcome == "disabled" and g.events == []
