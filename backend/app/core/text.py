"""Facts about text every layer needs."""

from __future__ import annotations

import unicodedata
from typing import Any

# Bidi embeddings, overrides and isolates reorder how the text around them is shown ("Trojan
# Source", CVE-2021-42574): a title holding one can read otherwise than what it holds. They go,
# wherever they are. The marks (LRM, RLM, ALM) only nudge neutral characters and stay inside.
_BIDI_CONTROLS = dict.fromkeys(map(ord, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"))
# Letters by category that show nothing: Hangul fillers, the blank braille pattern.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def has_nul(value: Any) -> bool:
    """Whether a JSON-like value holds a NUL character anywhere (keys included): Postgres text cannot.
    (A loop over a stack, not a recursion: a model's whole answer is read with it every turn.)"""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            for key, inner in item.items():
                if isinstance(key, str) and "\x00" in key:
                    return True
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _invisible(char: str) -> bool:
    """Whitespace, a format or control character (zero-width space, joiners, BOM, bidi marks, soft
    hyphen), or a letter that shows nothing."""
    return char.isspace() or unicodedata.category(char) in ("Cf", "Cc", "Zs", "Zl", "Zp") or char in _BLANK_LETTERS


def visible_text(value: str) -> str:
    """A title or tag as stored: no bidi controls, nothing invisible at either end (a joiner inside,
    as in an emoji sequence, stays). A ValueError when nothing visible is left: such a title is refused
    like a blank one."""
    text = value.translate(_BIDI_CONTROLS)
    start, end = 0, len(text)
    while start < end and _invisible(text[start]):
        start += 1
    while end > start and _invisible(text[end - 1]):
        end -= 1
    if start == end:
        raise ValueError("has no visible character (only spaces, zero-width, format or control characters)")
    return text[start:end]
