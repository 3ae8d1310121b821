"""Every message is read whole and in bounded time (issues 25 and 48), whatever its content, in every
language.

The reader reads a message up to MAX_MESSAGE_CHARS whole (a long field value, "description: ...", is
content like a quote). The claim reader reads at most READABLE characters of the model's words; longer
words are shown only up to the last sentence it read. The shapes are the bench's
(`backend/devtools/bench/reader.py`): each command word, negation, request frame, filler and
conjunction of every language file repeated to the longest allowed message, and shapes of no
language. The bench prints the times (docs/performance); the bound here, twice the slowest shape
measured, only catches a pattern gone superlinear (the reader took 0.1-0.6 s on these once).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from backend.app.language.detect import detect
from backend.app.language.reading.intent import classify
from backend.app.services.guard.claims import READABLE, claims, readable
from backend.devtools.bench.reader import read_message, read_reply, replies, shapes

LONGEST = 4_000  # MAX_MESSAGE_CHARS's default
SLACK_S = 0.12  # twice the slowest shape measured (docs/performance): a regression guard, not the measurement


def _cpu(read: Callable[[str], object], text: str) -> float:
    """CPU seconds of one read; measured again (the least of three) when over the slack, for noise."""
    spent = []
    for _ in range(3):
        started = time.process_time()
        read(text)
        spent.append(time.process_time() - started)
        if spent[-1] <= SLACK_S:
            break
    return min(spent)


def test_every_message_of_the_longest_allowed_length_is_read_whole_in_bounded_time() -> None:
    read_message("warm the compiled lists")
    slow = []
    for shape in shapes(LONGEST):
        if (spent := _cpu(read_message, shape.text)) > SLACK_S:
            slow.append((shape.name, round(spent * 1e3, 1)))
    assert not slow


@pytest.mark.parametrize(
    ("command", "tool"),
    [
        ("delete the gym task", "delete_task"),
        ("lösche die Aufgabe gym", "delete_task"),
        ("borra la tarea gym", "delete_task"),
        ("supprime la tâche gym", "delete_task"),
        ("cancella l'attività gym", "delete_task"),
        ("verwijder de taak gym", "delete_task"),
        ("apaga a tarefa gym", "delete_task"),
        ("gym wali task delete kar do", "delete_task"),
        ("add call the plumber", "add_task"),
        ("mark taxes as done", "complete_task"),
    ],
)
def test_a_command_is_read_at_the_start_and_at_the_end_of_the_longest_message(command: str, tool: str) -> None:
    background = "Some background on the week, which has been a long one for everybody here. "
    padding = background * ((LONGEST - len(command) - 2) // len(background))
    for message in (f"{command}. {padding}", f"{padding}{command}."):
        assert len(message) <= LONGEST
        read = classify(message)
        assert read.kind == "command" and tool in read.tools, read.reason


@pytest.mark.parametrize("size", [10, 30, 120])
def test_a_pasted_list_is_read_item_by_item_however_many(size: int) -> None:
    items = [f"item {i}" for i in range(size)]
    for message in (
        "add " + ", ".join(items),
        "add these:\n" + "\n".join(f"- {item}" for item in items),
        "add these:\n" + "\n".join(f"{i}. {item}" for i, item in enumerate(items, start=1)),
    ):
        read = classify(message)
        assert read.kind == "command", read.reason
        listed = [a for a in read.actions if "item" in a.clause]
        assert len(listed) == size and {a.tool for a in read.actions} == {"add_task"}, read.reason


def test_quoted_text_counts_as_one_word() -> None:
    title = "word " * 400
    read = classify(f'add "{title.strip()}" to my list')
    assert read.kind == "command" and read.tools == ("add_task",)
    assert read.quotes == (f'"{title.strip()}"',)


@pytest.mark.parametrize(
    "ending",
    ["Actually no, never mind, keep it.", "Wait, leave it.", "Nein, vergiss es.", "No, déjalo."],
)
def test_a_retraction_at_the_end_of_a_long_message_takes_the_command_back(ending: str) -> None:
    message = "delete gym. " + "Some background on why. " * 150 + ending
    read = classify(message)
    assert read.kind == "negated" and read.tools == (), read.reason


def test_a_question_at_the_end_of_a_long_message_asks_for_no_change() -> None:
    message = "Some background on the week. " * 120 + "should I delete gym?"
    read = classify(message)
    assert not read.needs_tool, read.reason


def test_the_language_of_a_long_message_is_told_from_its_start() -> None:
    german = "Bitte lösche die Aufgabe gym, ich brauche sie nicht mehr. " * 60
    assert detect(german).code == "de"
    spent = _cpu(detect, german)
    assert spent < SLACK_S


# -- the model's words ----------------------------------------------------------------------------


def test_words_longer_than_the_claim_reader_reads_are_cut_at_a_sentence_it_read() -> None:
    sentence = "Here is one more thing about your list. "
    text = sentence * 100 + "I deleted Gym."
    shown = readable(text)
    assert len(shown) <= READABLE + 2 and shown.endswith(" …")
    assert shown.removesuffix(" …").endswith("list.")
    assert "deleted" not in shown and claims(shown) == []
    assert readable(sentence) == sentence  # short words untouched


def test_words_with_no_sentence_end_are_cut_at_a_word() -> None:
    shown = readable("word " * 1_000)
    assert shown.endswith("word …") and len(shown) <= READABLE + 2


def test_reading_the_longest_replies_is_bounded() -> None:
    read_reply("warm.")
    slow = []
    for shape in replies(4 * LONGEST):
        if (spent := _cpu(read_reply, shape.text)) > SLACK_S:
            slow.append((shape.name, round(spent * 1e3, 1)))
    assert not slow


@pytest.mark.parametrize(
    ("message", "tool"),
    [
        ("add a task Write report with this description: ", "add_task"),
        ("ajoute la tâche Rapport avec la description : ", "add_task"),
        ("füge die Aufgabe Bericht hinzu, Beschreibung: ", "add_task"),
        ("update taxes, set the notes to: ", "update_task"),
    ],
)
def test_a_long_field_value_is_content_like_a_quote(message: str, tool: str) -> None:
    value = "the quarterly numbers and what they mean for next year. " * 40
    read = classify(message + value + "Also delete gym.")
    assert read.kind == "command" and read.tools == (tool,), read.reason
    assert read.quotes[-1].endswith("also delete gym.")  # the value, not words to read
    assert "delete_task" not in read.tools
