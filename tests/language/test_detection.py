"""Which language a message is answered in (language/detect.py), over every message of every
language's tests: each is read in its own file's language, English messages stay English, and a
message in a language no file reads is answered in English, never taken for a language it is not."""

from __future__ import annotations

import importlib

import pytest

from backend.app.language.detect import detect
from backend.app.language.lexicon import lexicons
from backend.app.language.reading.intent import classify

CODES = [lex.code for lex in lexicons()]
GROUPS = ("COMMANDS", "NOT_COMMANDS", "DETECTS", "SMALL_TALK", "UNDOS")


def messages(code: str) -> list[str]:
    module = importlib.import_module(f"language.test_{code}")
    found = []
    for group in GROUPS:
        found += [item[0] if isinstance(item, tuple) else item for item in getattr(module, group, [])]
    return found


@pytest.mark.parametrize("code", CODES)
def test_the_messages_of_each_language_are_answered_in_it(code: str) -> None:
    found = messages(code)
    wrong = [(m, d.code) for m in found if (d := detect(m, reader=classify(m).languages)).code != code]
    # Some messages carry no word of their own language ("ok cool", "top", "thanks bhai"): 97% at least.
    assert len(wrong) <= len(found) * 0.03, wrong


UNREAD = [
    "hapus belanjaan dari daftar",  # Indonesian
    "tambahkan roti ke daftar",
    "tandai cucian sebagai selesai",
    "apa yang tersisa hari ini",
    "usuń zakupy z listy proszę",  # Polish
    "dodaj mleko na jutro",
    "sil şu görevi lütfen",  # Turkish
    "görevlerimi göster",
    "hvad mangler jeg i dag",  # Danish
    "kan du fjerne melk fra listen",  # Norwegian
    "slett oppgaven min",
    "poista maito listalta",  # Finnish
    "töröld a tejet",  # Hungarian
    "smazat mléko ze seznamu",  # Czech
    "удали задачу спортзал",  # Russian
    "ジムのタスク消して",  # Japanese
]


@pytest.mark.parametrize("message", UNREAD)
def test_a_message_in_a_language_no_file_reads_is_answered_in_english(message: str) -> None:
    found = detect(message, reader=classify(message).languages)
    assert (found.code, found.detected) == ("en", None), found


def test_a_short_answer_keeps_the_conversations_language() -> None:
    assert detect("2", previous="es").code == "es"
    assert detect("no", previous="it").code == "it"
    assert detect("ja", previous="nl").code == "nl"


@pytest.mark.parametrize(
    ("message", "code"),
    [
        # Spanish and Portuguese score alike on these words; Portuguese's lists know more of them.
        ("tira a academia da lista, cancelei o plano", "pt"),
        ("apaga academia pfv, cancelei o plano", "pt"),
    ],
)
def test_a_tie_goes_to_the_language_whose_lists_know_more_of_the_message(message: str, code: str) -> None:
    assert detect(message, reader=classify(message).languages, previous="es").code == code


@pytest.mark.parametrize(
    ("message", "previous"),
    [("sí, dale", "es"), ("dale", "es"), ("ja, mach", "de"), ("oui vas-y", "fr"), ("sim, pode", "pt"), ("oké", "nl")],
)
def test_a_yes_or_no_in_the_conversations_language_is_answered_in_it(message: str, previous: str) -> None:
    # "dale" is also an Urdu verb ("daal dale"): the conversation's yes wins over another file's verb.
    assert detect(message, previous=previous).code == previous


def test_a_yes_in_another_language_is_still_heard_as_that_language() -> None:
    assert detect("nein", previous="en").code == "de"
    assert detect("nahi", previous="en").code == "ur"
