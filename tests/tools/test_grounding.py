"""Grounding: whether the user's own words name a task (tools/titles.py `named_in`, `shares_words`).

A call the guard does not trust to pick its own target (made under a forced choice, or a change the
message was not read to ask for) may act only on a task these say the user named."""

from __future__ import annotations

import pytest

from backend.app.tools.titles import named_in, partly_named, shares_words

NAMED = [
    ("bin the taxes task", "Taxes"),
    ("elimina la tarea taxes", "Taxes"),
    ("please complete pay the rent", "Pay rent"),
    ("delete the READ BOOKS one", "Read book"),
    ("tick off the laundy", "Laundry"),  # a typo
    ("Lösch die Aufgabe Steuererklärung", "Steuererklärung"),
    ("supprime l'assurance voiture", "Assurance voiture"),  # an elided article
    ("cancella quella dell'auto nuova", "Auto nuova"),
]
NOT_NAMED = [
    ("delete it", "Taxes"),
    ("should I delete the old invoices?", "Gym"),
    ("list my tasks", "Buy milk"),
    ("delete call mom", "Call dad"),
    ("complete errand 4", "Errand 3"),
    ("delete pay rent", "Pay rent and bills"),  # the title says more than the user did
]


@pytest.mark.parametrize(("text", "title"), NAMED)
def test_named(text: str, title: str) -> None:
    assert named_in(text, title)


@pytest.mark.parametrize(("text", "title"), NOT_NAMED)
def test_not_named(text: str, title: str) -> None:
    assert not named_in(text, title)


def test_an_added_title_must_share_a_word_with_the_message() -> None:
    assert shares_words("stick eggs on my list", "eggs")
    assert shares_words("añade huevos a mi lista", "Huevos")
    assert not shares_words("what did I add this morning?", "Buy milk")
    assert not shares_words("hi", "Awesome")


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("добавь к врачу на завтра", "К врачу"),  # an ending: a case
        ("annemi aradım, tamamlandı", "Annemi ara"),  # a suffix
        ("ya llamé al banco", "Llamar al banco"),  # a conjugation
        ("ジムのタスク消して", "ジム"),  # a script without spaces
        ("lägg till ägg", "Ägg"),  # accents folded on both sides
        ("elimina la tarea de la compra", "La compra"),  # the articles of every language
    ],
)
def test_named_in_any_language(text: str, title: str) -> None:
    assert named_in(text, title)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("remove gym", "Remote"),
        ("mark gym as done", "Market"),
        ("borra gym", "Borrador"),
        ("lösche gym", "Löschpapier"),
        ("cancella gym", "Cancelleria"),
        ("complete gym", "Gym comp"),  # a review found these: a verb's start is no title word
        ("mark rent done", "Rent Mar"),
        ("change lunch to high priority", "Lunch with Chan"),
        ("postpone gym to friday", "Gym post"),
        ("finish gym", "Gym with Fin"),
    ],
)
def test_a_change_verb_names_no_title_by_an_ending(text: str, title: str) -> None:
    assert not named_in(text, title)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("delete the remote", "Remote"),
        ("mark marketing done", "Marketing"),
        ("tick off the laundy", "Laundry"),  # a typo of the title, not of a verb
        ("I cancelled the subscription, tick it off", "Cancel subscription"),  # a review found these
        ("I finished marking the exams", "Mark exams"),
        ("I changed the oil, mark it done", "Oil change"),
        ("done updating my CV", "Update CV"),
        ("mark editing video done", "Edit video"),
        ("delete the updated CV", "Update CV"),
    ],
)
def test_a_change_verb_still_names_a_titles_own_verb(text: str, title: str) -> None:
    assert named_in(text, title)


def test_a_short_word_is_no_ending_of_another() -> None:
    assert not named_in("call mom about the cat", "Catalog")
    assert not named_in("delete errand 4", "Errand 40")


@pytest.mark.parametrize(
    ("words", "title"),
    [
        ("setz den reisepass auf hohe prio", "Reisepass verlängern"),
        ("cross off rent, paid it", "Pay rent"),
        ("отметь аренду как сделанную", "Оплатить аренду"),
        ("buzdolabı işini sil", "Buzdolabını temizle"),
        ("歯医者、金曜に変えてくれる？", "歯医者の予約"),
        ("e l'assicurazione mettila per il 5 dicembre", "Assicurazione auto"),
        ("opa is gebeld hoor, mag weg", "Opa bellen"),  # a word of three letters, written exactly so
        ("hang de was nog even op", "Was ophangen"),
        ("the vet said friday", "Vet appointment"),
    ],
)
def test_words_that_name_a_distinctive_part_of_a_title_name_it_in_part(words: str, title: str) -> None:
    assert partly_named(words, title) and not named_in(words, title)


@pytest.mark.parametrize(
    ("words", "title"),
    [
        ("add milk", "Pay rent"),
        ("ジムのタスク消して", "おばあちゃんに電話"),
        ("それを消して", "歯医者の予約"),  # kana alone names nothing
        ("add to my list", "A list of tasks"),  # the words for a list or a task name no task
        ("update errand 4: priority high", "Errand 3"),  # its number tells it from the one named
        ("de opaal ring", "Opa bellen"),  # a word of three letters counts only as written: no ending
        ("the vat is full", "Vet appointment"),  # nor with a typo
        ("add a todo", "Todo app"),  # nor a word for a task
    ],
)
def test_words_sharing_nothing_distinctive_do_not_name_a_title_even_in_part(words: str, title: str) -> None:
    assert not partly_named(words, title)


def test_a_shared_common_word_names_a_title_in_part_which_is_enough_to_ask_never_to_change() -> None:
    # 'call' is a word of both: "call mom" names "Call grandma" in part. Partial naming only ever
    # makes a change the guard would not run a question to the user (tools/references.py).
    assert partly_named("call mom", "Call grandma") and not named_in("call mom", "Call grandma")
