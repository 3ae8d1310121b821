"""The message catalogs (backend/app/language/catalogs): the template holds every text the code
writes to users, and each language's catalog translates every one of them, keeping its placeholders.
A text added to the code without `make messages` and a translation in every catalog fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from backend.app.language.lexicon import lexicons

CATALOGS = Path(__file__).parents[2] / "backend" / "app" / "language" / "catalogs"
BACKEND = Path(__file__).parents[2] / "backend" / "app"
KEYWORDS = {"t": None, "n": (1, 2), "N_": None}  # as `make messages` extracts them
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


# A message's id or string: a plural's are several (babel gives a tuple or a list).
Text = str | tuple[str, ...] | list[str]


def _ids(path: Path) -> dict[str | tuple[str, ...], Text | None]:
    with path.open("rb") as po:
        catalog = read_po(po)
    return {m.id if isinstance(m.id, str) else tuple(m.id): m.string for m in catalog if m.id}


def test_the_template_holds_every_text_the_code_writes() -> None:
    found = {
        message if isinstance(message, str) else tuple(message)
        for _file, _line, message, _comments, _context in extract_from_dir(
            BACKEND, method_map=[("**.py", "python")], keywords=KEYWORDS
        )
    }
    assert found == set(_ids(CATALOGS / "messages.pot")), "run `make messages`"


@pytest.mark.parametrize("code", [lex.code for lex in lexicons() if lex.code != "en"])
def test_every_language_translates_every_text_with_its_placeholders(code: str) -> None:
    template = _ids(CATALOGS / "messages.pot")
    catalog = _ids(CATALOGS / f"{code}.po")
    assert set(catalog) == set(template)
    for message_id, translation in catalog.items():
        ids = [message_id] if isinstance(message_id, str) else list(message_id)
        assert translation is not None, (code, message_id)
        strings = [translation] if isinstance(translation, str) else list(translation)
        assert all(strings), (code, message_id)
        wanted = set(_PLACEHOLDER.findall(ids[-1])) - {"count"}
        for string in strings:
            assert set(_PLACEHOLDER.findall(string)) - {"count"} == wanted, (code, message_id, string)
