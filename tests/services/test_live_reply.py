"""What of a model's words reaches a streamed turn's user before the reply is composed
(services/reply/live.py): only complete sentences the results back, only from an answer that can be
the reply, and a `reset` when heard words turn out not to be it."""

from __future__ import annotations

import re
from collections.abc import Sequence

import pytest
from support.runs import done, failed, guard

from backend.app.calls.types import ExecutedCall
from backend.app.services.guard.claims import READABLE
from backend.app.services.guard.execution import ExecutionGuard
from backend.app.services.reply import live as live_reply
from backend.app.services.reply.live import LiveReply, contradicts


class Heard:
    def __init__(self) -> None:
        self.events: list[str] = []

    def text(self, piece: str) -> None:
        self.events.append(piece)

    def reset(self) -> None:
        self.events.append("<reset>")


def hear(message: str, executed: Sequence[ExecutedCall], *pieces: str) -> tuple[list[str], bool]:
    """What the listener got of `pieces` (streamed in that order), and whether the step was heard."""
    heard = Heard()
    live = LiveReply(guard(message), heard)
    sink = live.step(executed)
    for piece in pieces:
        if sink is not None:
            sink(piece)
    return heard.events, sink is not None


def test_complete_sentences_go_out_as_they_end_and_the_last_one_waits() -> None:
    pieces = ("I added ", "“buy milk”. It is ", "on your list. Anything", " else?")
    events, _ = hear("add buy milk", [done("add_task", "buy milk")], *pieces)
    assert events == ["I added “buy milk”.", " It is on your list."]  # "Anything else?" waits for the reply


def test_a_list_goes_out_line_by_line_and_decimals_do_not_end_a_sentence() -> None:
    events, _ = hear(
        "what's on my list?",
        [done("list_tasks", "x")],
        "You have 2 tasks:\n- Gym for 1.5",
        " hours\n- Taxes\nThat's all",
    )
    assert events == ["You have 2 tasks:", "\n- Gym for 1.5 hours\n- Taxes"]  # what one piece completed


@pytest.mark.parametrize(
    ("message", "executed", "text"),
    [
        # a claimed change no call made (English, Spanish, German)
        ("add buy milk", [done("add_task", "buy milk")], "Added buy milk. I also deleted “Read book”. "),
        ("añade comprar leche", [done("add_task", "comprar leche")], "Listo. He eliminado «Leer libro». "),
        ("füge Milch kaufen hinzu", [done("add_task", "Milch kaufen")], "Erledigt. Ich habe „Buch lesen“ gelöscht. "),
        ("ajoute acheter du lait", [done("add_task", "acheter du lait")], "C'est fait. J'ai supprimé « Lire ». "),
        ("aggiungi comprare latte", [done("add_task", "comprare latte")], "Fatto! Ho eliminato «Leggere». "),
        ("adiciona comprar leite", [done("add_task", "comprar leite")], "Pronto. Apaguei a tarefa «Ler». "),
        ("add buy milk", [done("add_task", "buy milk")], "Sure thing! Read book has been taken off your list. "),
        # a change that succeeded, said not to have happened
        ("delete read book", [done("delete_task", "Read book")], "Done. Sorry, I couldn't delete it. "),
        ("supprime lire un livre", [done("delete_task", "Lire un livre")], "Voilà. Je n'ai pas pu le supprimer. "),
        ("delete read book", [done("delete_task", "Read book")], "Okay. Unfortunately that did not work. "),
    ],
)
def test_the_first_sentence_the_results_contradict_stops_the_stream(
    message: str, executed: list[ExecutedCall], text: str
) -> None:
    events, heard = hear(message, executed, *re.findall(r"\S+\s*", text))
    assert heard
    joined = "".join(events)
    assert len(events) == 1 and joined.endswith((".", "!")), events  # the first sentence only
    assert text.startswith(joined)  # the first sentence, and not the one that says otherwise


@pytest.mark.parametrize(
    ("message", "executed"),
    [
        ("delete read book", [failed("delete_task", "Read book", "NOT_FOUND")]),  # a failure: the reply says it
        ("add milk and delete read book", [done("add_task", "milk")]),  # the delete is still missing
        ("add buy milk", []),  # a command, and no tool ran yet
        ("borra leer libro", []),
        ("add milk", [failed("add_task", "milk", "NOT_REQUESTED", ran=False)]),  # refused by the guard
    ],
)
def test_an_answer_that_cannot_be_the_reply_is_not_heard(message: str, executed: list[ExecutedCall]) -> None:
    events, heard = hear(message, executed, "All done. ", "Anything else? ")
    assert not heard and events == []


def test_small_talk_is_heard_but_a_claim_with_nothing_done_is_not() -> None:
    events, heard = hear("hi, how are you?", [], "Hi! ", "I'm fine. ", "I've deleted all your tasks. ")
    assert heard and events == ["Hi!", " I'm fine."]


def test_text_that_may_be_a_call_written_as_text_stops_the_stream() -> None:
    events, _ = hear("what's on my list?", [done("list_tasks", "x")], "Sure. ", '<tool_call>{"name": ', "x}. ")
    assert events == ["Sure."]


def test_void_withdraws_what_was_heard_once() -> None:
    heard = Heard()
    live = LiveReply(guard("hello there"), heard)
    sink = live.step([])
    assert sink is not None
    sink("Let me look. ")
    live.void()
    live.void()  # nothing more to withdraw
    sink = live.step([done("list_tasks", "x")])
    assert sink is not None
    sink("You have one task. ")
    assert heard.events == ["Let me look.", "<reset>", "You have one task."]
    assert live.sent == "You have one task."


def test_a_quotation_still_open_is_read_with_what_came_before() -> None:
    """Sentences are checked as they come, but a quotation opened in an earlier one is read whole:
    alone, `Done” I deleted “Read book”.` would look like a quote around “ I deleted ”."""
    pieces = ("I added “buy milk”. ", "She wrote “call mom. ", "Done” I deleted “Read book”. ", "Bye. ")
    events, _ = hear("add buy milk", [done("add_task", "buy milk")], *pieces)
    assert events == ["I added “buy milk”.", " She wrote “call mom."]


def test_each_sentence_is_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking the whole text again at every sentence made a 200-line answer cost ~2 s of CPU: the
    text checked in all is the text heard, once."""
    checked: list[str] = []

    def counting(text: str, succeeded: set[str], g: ExecutionGuard) -> bool:
        checked.append(text)
        return contradicts(text, succeeded, g)

    monkeypatch.setattr(live_reply, "contradicts", counting)
    line = "This is one more line of the answer. "
    lines = READABLE // len(line)
    events, _ = hear("what's on my list?", [done("list_tasks", "x")], *[line] * lines)

    assert len(events) == lines
    assert sum(len(text) for text in checked) <= len(line) * lines


def test_words_past_what_the_claim_reader_reads_are_not_streamed() -> None:
    """The claim reader reads READABLE characters in bounded time; what lies past them is not heard
    early (the composed reply decides what of it is shown)."""
    line = "This is one more line of the answer. "
    events, _ = hear("what's on my list?", [done("list_tasks", "x")], *[line] * 200)

    assert 0 < len(events) < 200
    assert sum(len(e) for e in events) <= READABLE
