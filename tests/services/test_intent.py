"""Intent classification: a message -> (kind, expected tools), for every rule the guard relies on."""

from __future__ import annotations

import time
from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.app.calls.tools import Tool
from backend.app.language.lexicon import QUOTES
from backend.app.language.reading.asks import KINDS, Intent
from backend.app.language.reading.intent import classify
from backend.app.services.turn.commands import commands_in

QUOTES_CHARS = "".join(chr(k) + str(v) for k, v in QUOTES.items())

ADD, LIST, COMPLETE, DELETE, UPDATE = "add_task", "list_tasks", "complete_task", "delete_task", "update_task"
UNDO = "undo_last_change"

CASES: list[tuple[str, str, tuple[str, ...]]] = [
    # The plan's keyword table.
    ("delete Read book", "command", (DELETE,)),
    ("remove the gym task", "command", (DELETE,)),
    ("get rid of the laundry", "command", (DELETE,)),
    ("erase Pay rent", "command", (DELETE,)),
    ("list my tasks", "command", (LIST,)),
    ("show me my tasks", "command", (LIST,)),
    ("what are my tasks?", "command", (LIST,)),
    ("what's left?", "command", (LIST,)),
    ("What’s left for today?", "command", (LIST,)),  # typographic apostrophe
    ("what do I have today?", "command", (LIST,)),
    ("my tasks", "command", (LIST,)),
    ("what's on my list?", "command", (LIST,)),
    ("how many tasks do I have?", "command", (LIST,)),
    ("add milk", "command", (ADD,)),
    ("create a task to call mom", "command", (ADD,)),
    ("new task: buy bread", "command", (ADD,)),
    ("remind me to call mom", "command", (ADD,)),
    ("set a reminder to water the plants", "command", (ADD,)),
    ("mark Buy milk as done", "command", (COMPLETE,)),
    ("Read book is done", "command", (COMPLETE,)),
    ("complete the report", "command", (COMPLETE,)),
    ("finish the report", "command", (COMPLETE,)),
    ("check off laundry", "command", (COMPLETE,)),
    ("update the gym task", "command", (UPDATE,)),
    ("change the due date of gym to friday", "command", (UPDATE,)),
    ("set the priority of gym to high", "command", (UPDATE,)),
    ("rename gym to swimming", "command", (UPDATE,)),
    ("move laundry to tomorrow", "command", (UPDATE,)),
    # Word boundaries.
    ("address the envelope", "chat", ()),
    ("open the settings", "chat", ()),
    ("reset my password", "chat", ()),
    ("the task is undone", "report", ()),  # "undone" tells what happened
    ("listen to the podcast", "chat", ()),
    ("call Mark about the report", "chat", ()),  # a name, not the verb
    # A keyword right after a determiner is a noun.
    ("put milk on my list", "command", (ADD,)),  # a destination list: an add, not list_tasks
    ("keep the change", "negated", ()),  # "keep ..." takes back, never asks
    # Questions about using the app are not commands...
    ("how do I delete a task?", "question", ()),
    ("how can I add tasks?", "question", ()),
    ("what does complete mean?", "question", ()),
    ("can I remove tasks?", "question", ()),
    ("is it possible to delete a task?", "question", ()),
    ("hi, how do I delete a task?", "question", ()),
    ("how do I add and delete tasks?", "question", ()),  # one question, not two commands
    ("show me how to delete a task", "question", ()),
    ("why did you delete my task?", "question", ()),
    # ...but polite requests and questions about the list are.
    ("can you delete Read book?", "command", (DELETE,)),
    ("could you add milk", "command", (ADD,)),
    ("please list my tasks", "command", (LIST,)),
    ("show me my tasks?", "command", (LIST,)),
    ("can I see my tasks?", "command", (LIST,)),
    ("How do I delete tasks? Anyway, add milk", "command", (ADD,)),
    # Negations.
    ("don't delete it", "negated", ()),
    ("do not remove anything", "negated", ()),
    ("never mind, don't add it", "negated", ()),
    ("no need to mark it done", "negated", ()),
    ("I don't want to delete Read book", "negated", ()),
    ("Read book isn't done yet", "chat", ()),
    ("add milk. actually, don't", "negated", ()),  # a retraction takes back what came before
    ("delete it. never mind", "negated", ()),
    ("don't forget to add milk", "command", (ADD,)),  # not a negation
    ("don't delete it, mark it done instead", "command", (COMPLETE,)),
    # Small talk.
    ("hi", "small_talk", ()),
    ("thanks!", "small_talk", ()),
    ("how are you?", "small_talk", ()),
    ("good morning", "small_talk", ()),
    ("never mind", "negated", ()),
    ("", "chat", ()),
    # Several intents keep their order, without duplicates.
    ("delete the gym task and mark laundry done", "command", (DELETE, COMPLETE)),
    ("add milk, eggs and bread", "command", (ADD,)),
    ("add milk and delete Gym", "command", (ADD, DELETE)),
    ("mark Gym done, then show my tasks", "command", (COMPLETE, LIST)),
    ("add milk and add eggs", "command", (ADD,)),
    # Ambiguity between keywords.
    ("mark laundry done", "command", (COMPLETE,)),  # mark + done: complete only
    ("set gym as done", "command", (COMPLETE, UPDATE)),
    ("set gym to done", "command", (COMPLETE, UPDATE)),
    ("change gym to completed", "command", (COMPLETE, UPDATE)),
    ("update laundry as completed", "command", (COMPLETE, UPDATE)),
    ("mark laundry as not done", "command", (UPDATE,)),  # reopening is an update
    ("mark laundry as high priority", "command", (UPDATE,)),
    ("add a note to Gym", "command", (UPDATE,)),  # a field of Gym: an edit, not a new task
    ("show completed tasks", "command", (LIST,)),
    # "done" about the speaker is small talk (decision: even "done with <task>").
    ("I'm done for today", "small_talk", ()),
    ("I'm done with the laundry", "small_talk", ()),
    ("done", "small_talk", ()),
    # A title that contains a verb is data: the first command keyword governs its clause.
    ("add 'delete old files' to my list", "command", (ADD,)),
    ('add "mark the list done"', "command", (ADD,)),
    ("add “Update CV” please", "command", (ADD,)),
    ("add delete old files to my list", "command", (ADD,)),
    ("add a list", "command", (ADD,)),
    ("remind me to remove the old files", "command", (ADD,)),
    ("delete 'add tests'", "command", (DELETE,)),
    ("mark done 123e4567-e89b-12d3-a456-426614174000", "command", (COMPLETE,)),
    ("undo that", "command", (UNDO,)),
    ("oops, put it back", "command", (UNDO,)),
]


@pytest.mark.parametrize(("message", "kind", "tools"), CASES, ids=[c[0] or "<empty>" for c in CASES])
def test_classify(message: str, kind: str, tools: tuple[str, ...]) -> None:
    intent = classify(message)
    assert (intent.kind, intent.tools) == (kind, tools), intent.reason


def test_the_table_is_broad() -> None:
    assert len(CASES) >= 40
    assert {kind for _, kind, _ in CASES} <= set(KINDS)
    assert {t for _, _, tools in CASES for t in tools} == set(Tool)


def test_needs_tool_and_primary() -> None:
    command = classify("delete Gym and mark laundry done")
    assert command.needs_tool and command.primary == "delete_task"
    for message in ("how do I delete a task?", "don't delete it", "hi"):
        intent = classify(message)
        assert not intent.needs_tool and intent.primary is None and intent.tools == ()
    assert not Intent("command", (), "nothing").needs_tool


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        ("delete Read book", "'delete' asks for delete_task"),
        ("don't delete it", "'delete' is negated by 'don't'"),
        ("how do I delete a task?", "asks how the app works"),
        ("set gym as done", "asks for complete_task"),
        ("add milk. never mind", "takes back add_task"),
        ("hi", "small talk: asks for nothing"),
    ],
)
def test_reason_says_why(message: str, fragment: str) -> None:
    assert fragment in classify(message).reason


def test_a_long_message_is_quick_and_its_reason_short() -> None:
    message = "how do I " + "mark mark and delete " * 12 + "?"
    started = time.perf_counter()
    intent = classify(message)
    assert time.perf_counter() - started < 1.0  # generous: guards against catastrophic backtracking
    assert intent.kind == "question" and len(intent.reason) < 120
    longest = classify("how do I " + "mark mark and delete " * 180 + "?")
    assert longest.kind == "question" and not longest.needs_tool and len(longest.reason) < 120


@settings(max_examples=300, deadline=None)
@given(message=st.text(max_size=300))
def test_classify_never_raises_and_is_consistent(message: str) -> None:
    intent = classify(message)
    assert intent.kind in KINDS
    assert set(intent.tools) <= set(Tool)
    assert len(set(intent.tools)) == len(intent.tools)
    assert bool(intent.tools) == (intent.kind == "command") == intent.needs_tool
    assert intent.reason


@settings(max_examples=150, deadline=None)
# Without the characters the reader takes for quote marks (a title holding one cannot be delimited by
# them): every key and value of QUOTES ("«" was missing, and '"«¿UY"' read as a retraction).
@given(title=st.text(alphabet=st.characters(blacklist_characters=QUOTES_CHARS), max_size=40))
def test_quoted_titles_are_never_scanned(title: str) -> None:
    assert classify(f"add '{title}'").tools == ("add_task",)
    assert classify(f'delete "{title}"').tools == ("delete_task",)


@pytest.mark.parametrize(
    ("message", "objects"),
    [
        # A number after a word is a date or an amount: the sentence goes on.
        ("lösch den Kühlschrank und schieb die Steuererklärung auf den 15. Dezember", 2),
        ("add water plants every 1.5 days", 1),
        # A number that opens an enumeration ends what came before: the items are not tasks to add.
        ("add Write report with this description: 1. Revenue by region, with costs. 2. Hiring plan, by team.", 1),
    ],
)
def test_a_period_after_a_number_ends_a_sentence_only_where_an_enumeration_starts(message: str, objects: int) -> None:
    assert len(classify(message).actions) == objects, classify(message)


@pytest.mark.parametrize(
    ("message", "kind", "objects", "declined"),
    [
        # A clause opening with a negation and no verb the reader knows says no to what it names:
        # never an item of the command before it...
        ("remove the dentist, not the passport", "command", ["the dentist"], ["not the passport"]),
        ("quita el dentista, no el pasaporte", "command", ["el dentista"], ["no el pasaporte"]),
        ("lösch den zahnarzt, nicht den pass", "command", ["den zahnarzt"], ["nicht den pass"]),
        (
            "borra el dentista y el gimnasio, no el pasaporte",
            "command",
            ["el dentista", "el gimnasio"],
            ["no el pasaporte"],
        ),
        # Alone, such a clause may be a reason for a change or a request: not read as saying no.
        ("honestly the dentist one can go, not doing it this year", "chat", [], []),
        ("nicht mehr nötig, der zahnarzt", "chat", [], []),
    ],
)
def test_a_verbless_clause_opening_with_a_negation_after_a_command_declines_what_it_names(
    message: str, kind: str, objects: list[str], declined: list[str]
) -> None:
    intent = classify(message)
    assert (intent.kind, [a.object for a in intent.actions], list(intent.declined)) == (kind, objects, declined)


@pytest.mark.parametrize(
    ("message", "quotes"),
    [
        ('add "milk"', ['"milk"']),
        ("add 'milk' and \"eggs\"", ["'milk'", '"eggs"']),
        ('add "" milk', []),
        ('add " " milk', []),
        ('"" "" "" delete gym', []),
    ],
)
def test_an_empty_or_blank_quote_holds_no_title(message: str, quotes: list[str]) -> None:
    """A quote is a title the user gave; '""' gives none (and a message of thousands of them is read
    as fast as any other: the reader bench's quote shapes)."""
    assert list(classify(message).quotes) == quotes


@pytest.mark.parametrize(
    ("message", "titles"),
    [
        ("add these:\n- milk\n- eggs", ["milk", "eggs"]),
        ("put these on my list:\n- delete old photos\n- buy bread", ["delete old photos", "buy bread"]),
        ("lägg till:\n- ta bort gamla filer\n- köpa bröd", ["ta bort gamla filer", "köpa bröd"]),
        ("añade esto:\n- borrar fotos viejas\n- comprar pan", ["borrar fotos viejas", "comprar pan"]),
        ("füge hinzu:\n- Milch\n- Eier", ["Milch", "Eier"]),
        ("add milk:", ["milk"]),
    ],
)
def test_a_list_opener_is_no_title_and_its_items_are_titles_even_with_a_verb(message: str, titles: list[str]) -> None:
    """ "add these:" heads a list: the tasks are its items, a bulleted "- delete old photos" among them."""
    assert [c.args.get("title") for c in commands_in(message, today=date(2026, 12, 5))] == titles


@pytest.mark.parametrize(
    ("message", "calls"),
    [
        # A heading's command is the list's: "delete these:" deletes its items, never "these".
        ("delete these:\n- gym\n- yoga", [("delete_task", "gym"), ("delete_task", "yoga")]),
        ("mark these done:\n- gym\n- yoga", [("complete_task", "gym"), ("complete_task", "yoga")]),
        # A colon with no items after it heads nothing.
        ("add milk:\ndelete gym", [("add_task", "milk"), ("delete_task", "gym")]),
        # Only a line whose verb stands right after its marker is an item; a sentence is none.
        (
            "add these:\nmilk\neggs\nsometimes I just want to delete everything",
            [("add_task", "milk"), ("add_task", "eggs")],
        ),
        ("add these:\n- milk\n- actually delete gym instead", [("add_task", "milk")]),
        # A line that ends with its verb, in a language that puts it last, is an item as well.
        (
            "füge hinzu:\n- alte Dateien löschen\n- Brot kaufen",
            [("add_task", "alte Dateien löschen"), ("add_task", "Brot kaufen")],
        ),
        (
            "voeg toe:\n- melk\n- oude bestanden verwijderen",
            [("add_task", "melk"), ("add_task", "oude bestanden verwijderen")],
        ),
        ("füge Milch hinzu\n- Gym löschen", [("add_task", "Milch"), ("delete_task", "Gym")]),  # no list opened
        # A numbered line is a line of the list too ("1." is read as a sentence of its own).
        ("add:\n1. delete gym\n2. buy bread", [("add_task", "delete gym"), ("add_task", "buy bread")]),
        ("1. delete gym\n2. add milk", [("delete_task", "gym"), ("add_task", "milk")]),
        (
            "add these:\n1. milk\n2. eggs\nAlso delete gym",
            [("add_task", "milk"), ("add_task", "eggs"), ("delete_task", "gym")],
        ),
        # The words of the other languages are not Swedish's: a name, a German "Punkt".
        ("add milk, inga's birthday", [("add_task", "milk"), ("add_task", "inga's birthday")]),
        ("füge Punkt 3 besprechen hinzu", [("add_task", "Punkt 3 besprechen")]),
    ],
)
def test_what_a_list_heading_and_its_lines_ask_for(message: str, calls: list[tuple[str, str]]) -> None:
    asked = commands_in(message, today=date(2026, 12, 5))
    assert [(a.name, a.args.get("title") or a.args.get("task_id")) for a in asked] == calls


@pytest.mark.parametrize(
    ("message", "objects"),
    [
        ("Gym, Yoga löschen", ["gym", "yoga loschen"]),
        ("Gym, Steuern, lösch beide", ["gym", "steuern", "losch beide"]),
        ("gym, taxes, verwijder ze allebei", ["gym", "taxes", "verwijder ze allebei"]),
        ("taxes aur bread delete kar do", ["taxes", "bread delete kar do"]),
        ("melk, eieren toevoegen", ["melk", "eieren toevoegen"]),
    ],
)
def test_in_a_language_that_puts_the_verb_last_the_clauses_before_a_command_are_its_items(
    message: str, objects: list[str]
) -> None:
    assert [a.text for a in classify(message).actions] == objects
