"""A yes to a pending question runs it now, so a yes with a word of when or instead is none ("sí,
luego", "ja, danach", "yes, instead": the files' `[words] order`, read as fillers by the clause
reader and never beside a yes); polite words beside a yes still make one ("sí porfa", "ja, mach",
"ok then")."""

from __future__ import annotations

import pytest

from backend.app.tools.referents import Referents

LATER = [
    "sí, luego", "sí, después", "sim, depois", "ja, danach", "ja, zum Schluss", "ja, gleich", "ja, sen",
    "ja, daarna", "ja, maar", "oui, ensuite", "oui, par contre", "sì, poi", "sì, invece", "haan, pehle",
    "yes, instead", "ok, next", "yes, first", "ja tack, sedan",
    # a few words, each of them a filler alone: never stripped word by word
    "ja, zo direct", "ja zo meteen", "ja, nog even", "ja, zo direct graag", "oké, in plaats daarvan",
]  # fmt: skip
YES = [
    "yes",
    "yes please",
    "sí porfa",
    "ja bitte",
    "ja, mach",
    "jo, gerne",
    "yup go ahead",
    "ok then",
    "ja dann",
    "sí, claro",
    "ja, prima",  # Italian "prima" (first) is an order word; beside "ja" it is German and Dutch "great"
    "oké, prima hoor",
    "haan phir",  # "phir" as "ok then": a filler, as "then" and "dann" are
    "ja, meteen",  # "right away"
    "ja, zo",
    "sim, já",  # "yes, now"
    "ja ja",  # German and Dutch "yes yes" (a Portuguese "já já", in a moment, pooled would break it)
    "ja ja graag",
]


@pytest.mark.parametrize("message", LATER)
def test_a_yes_with_a_word_of_when_or_instead_is_no_yes(message: str) -> None:
    assert Referents().answer(message) is None


@pytest.mark.parametrize("message", YES)
def test_a_yes_with_polite_words_is_a_yes(message: str) -> None:
    assert Referents().answer(message) is True
