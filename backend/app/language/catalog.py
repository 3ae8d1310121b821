"""What Taskchat writes to users, in their language: gettext catalogs read with Babel.

Every sentence the backend composes is an English message id in the code (`t("Deleted: “{title}”.",
title=...)`); `catalogs/<code>.po` holds its translation for each language, with the language's
plural rules in its header. A language without a catalog, or a message its catalog lacks, is
written in English. Adding a language is a data change: a word file (`data/<code>.toml`) and a
catalog. `catalogs/messages.pot` is the template (`make messages` extracts it from the code).
"""

from __future__ import annotations

import gettext
from functools import cache
from importlib import resources
from io import BytesIO

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po


@cache
def _translations(code: str) -> gettext.NullTranslations:
    path = resources.files(__package__).joinpath("catalogs", f"{code}.po")
    if not path.is_file():
        return gettext.NullTranslations()
    with path.open("rb") as po:
        catalog = read_po(po, domain="taskchat")
    compiled = BytesIO()
    write_mo(compiled, catalog)  # fuzzy entries are left out, so an unchecked translation falls back to English
    compiled.seek(0)
    return gettext.GNUTranslations(compiled)


class Texts:
    """One language's texts: `t(message_id, **values)` and `t.n(singular, plural, count, **values)`."""

    __slots__ = ("_gettext", "code")

    def __init__(self, code: str) -> None:
        self.code = code
        self._gettext = _translations(code)

    def __call__(self, message: str, /, **values: object) -> str:
        return self._gettext.gettext(message).format(**values)

    def n(self, singular: str, plural: str, count: int, /, **values: object) -> str:
        return self._gettext.ngettext(singular, plural, count).format(count=count, **values)

    def join(self, items: list[str]) -> str:
        """ "a, b and c" in this language."""
        if len(items) <= 1:
            return "".join(items)
        t = self
        return t("{items} and {last}", items=t(", ").join(items[:-1]), last=items[-1])


@cache
def texts(code: str) -> Texts:
    return Texts(code)
