"""The language files: every one loads and covers every tool; a bad one fails loudly; a new one is
only data (language/lexicon.py)."""

from __future__ import annotations

import tomllib
from importlib import resources

import pytest

from backend.app.language.lexicon import TOOL_NAMES, covered_languages, fold, lexicons, parse

DATA = resources.files("backend.app.language").joinpath("data")


def test_every_file_is_a_covered_language_and_english_comes_first() -> None:
    files = sorted(f.name.removesuffix(".toml") for f in DATA.iterdir() if f.name.endswith(".toml"))
    assert sorted(code for code, _ in covered_languages()) == files
    assert {"en", "es", "fr", "de", "pt", "it", "ur"} <= set(files)
    assert lexicons()[0].code == "en"


@pytest.mark.parametrize("code", [code for code, _ in covered_languages()])
def test_each_language_names_every_tool_and_the_words_the_guard_needs(code: str) -> None:
    lex = next(lex for lex in lexicons() if lex.code == code)
    commands = {t for v in lex.verbs if v.form in ("imperative", "infinitive", "declarative") for t in v.tools}
    claimed = {t for v in lex.verbs if v.form == "past" for t in v.tools}
    assert commands == TOOL_NAMES, code
    assert claimed >= TOOL_NAMES - {"list_tasks"}, code
    for kind in ("question", "advice", "report", "negation", "retraction", "fillers", "request"):
        assert lex.word(kind) is not None, (code, kind)
    for kind in ("first_person", "done", "offer", "denial"):
        assert lex.claim(kind) is not None, (code, kind)


def test_a_new_language_is_only_data() -> None:
    data = tomllib.loads(
        """
name = "Test"
[verbs.delete_task]
imperative = ["zap"]
past = ["zapped"]
[words]
negation = ["nope"]
"""
    )
    lex = parse("xx", data)
    assert lex.name == "Test" and [v.form for v in lex.verbs] == ["imperative", "past"]
    assert lex.verbs[0].pattern.search("zap the gym task") and not lex.verbs[0].pattern.search("zapped it")


@pytest.mark.parametrize(
    ("data", "error"),
    [
        ({"verbs": {"remove_task": {"imperative": ["x"]}}}, "unknown tool 'remove_task'"),
        ({"verbs": {"add_task": {"imperative": "add"}}}, "must be a list of strings"),
        ({"verbs": {"add_task": {"shout": ["x"]}}}, "unknown form 'shout'"),
        ({"words": {"fillers": ["x"], "filers": ["y"]}}, "unknown key 'filers'"),
        ({"mood": True}, "unknown key 'mood'"),
    ],
)
def test_a_bad_file_fails_loudly(data: dict[str, object], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        parse("xx", data)


def test_fold_makes_accents_and_quotes_plain() -> None:
    assert fold("Añade “Leche” ’ya’ ÉLIMINER Straße") == "anade \"leche\" 'ya' eliminer strasse"
