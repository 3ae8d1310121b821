"""Every message is read in bounded time (issue 25), whatever its content, in every language.

The reader reads a message of at most READ_CHARS characters (quoted text counts as one word) and
READ_CLAUSES clauses; a longer one is `too_long` and asks for nothing. The claim reader reads at most
READABLE characters of the model's words; longer words are shown only up to the last sentence it
read. The shapes are the bench's (`backend/devtools/bench/reader.py`): each command word, negation,
request frame, filler and conjunction of every language file repeated to the longest allowed
message, and shapes of no language. The bench prints the times; the time bound here is 5x the goal
and only catches a pattern gone superlinear (the reader took 0.1-0.6 s on these before the bounds).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from backend.app.language.detect import detect
from backend.app.services.claims import READABLE, claims, readable
from backend.app.services.intent import READ_CHARS, READ_CLAUSES, classify
from backend.devtools.bench.reader import read_message, read_reply, readable_prefix, replies, shapes

LONGEST = 4_000  # MAX_MESSAGE_CHARS's default
SLACK_S = 0.05  # 5x the 10 ms goal: a regression guard, not the measurement


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


def test_no_message_of_the_longest_allowed_length_is_read_in_full_or_slowly() -> None:
    read_message("warm the compiled lists")
    slow = []
    for shape in shapes(LONGEST):
        intent = classify(shape.text)
        assert intent.kind == "too_long", shape.name
        assert intent.actions == () and not intent.needs_tool, shape.name
        if (spent := _cpu(read_message, shape.text)) > SLACK_S:
            slow.append((shape.name, round(spent * 1e3, 1)))
    assert not slow


def test_the_longest_start_of_each_shape_that_is_read_is_read_in_bounded_time() -> None:
    read_message("warm the compiled lists")
    slow = []
    for shape in list(shapes(LONGEST))[::3]:  # a third of them: each needs a search for its readable start
        start = readable_prefix(shape.text)
        intent = classify(start)
        assert intent.kind != "too_long", shape.name
        assert len(start) <= READ_CHARS or '"' in start or "'" in start, shape.name
        if (spent := _cpu(read_message, start)) > SLACK_S:
            slow.append((shape.name, len(start), round(spent * 1e3, 1)))
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
def test_a_command_is_read_up_to_the_bound_and_not_past_it(command: str, tool: str) -> None:
    # Padding that is no clause of its own and no verb of any language: the command's object grows.
    pad = " zq"
    fits = command + pad * ((READ_CHARS - len(command)) // len(pad))
    assert len(fits) <= READ_CHARS
    read = classify(fits)
    assert read.kind == "command" and tool in read.tools, read.reason
    over = classify(fits + pad)
    assert over.kind == "too_long" and not over.needs_tool


def test_many_short_clauses_are_too_long_however_few_characters() -> None:
    items = ", ".join(f"x{i}" for i in range(READ_CLAUSES + 1))
    assert len(items) < READ_CHARS
    assert classify(f"add {items}").kind == "too_long"
    fits = ", ".join(f"x{i}" for i in range(READ_CLAUSES - 1))
    read = classify(f"add {fits}")
    assert read.kind == "command" and len(read.actions) == READ_CLAUSES - 1


def test_quoted_text_counts_as_one_word() -> None:
    title = "word " * 400
    read = classify(f'add "{title.strip()}" to my list')
    assert read.kind == "command" and read.tools == ("add_task",)
    assert read.quotes == (f'"{title.strip()}"',)


def test_a_retraction_past_the_bound_is_never_outweighed_by_the_command_before_it() -> None:
    """Nothing of a too long message is read, so no command in it is forced: the part not read may
    take it back."""
    message = "delete gym. " + "Some background on why. " * 30 + "Actually no, never mind, keep it."
    read = classify(message)
    assert read.kind == "too_long" and read.tools == ()


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
