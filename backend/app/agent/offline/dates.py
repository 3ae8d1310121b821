"""The offline model's dates: "tomorrow", "next friday", "in 3 days", "Dec 5" -> ISO dates."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from backend.app.agent.offline.common import _I, _text
from backend.app.language.reading.when import next_month

# --- dates ----------------------------------------------------------------------------------
_WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_COUNTS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_DATE_CORE = (
    r"(?P<iso>\d{4}-\d{2}-\d{2})|(?P<after>(?:the\s+)?day\s+after\s+tomorrow)"
    r"|(?P<today>today|tonight|this\s+(?:morning|afternoon|evening))|(?P<tomorrow>tomorrow|tmrw|tmr)"
    r"|in\s+(?P<count>\d{1,3}|an?|one|two|three|four|five|six|seven)\s+(?P<unit>days?|weeks?)"
    r"|(?P<nextweek>next\s+week)|(?P<nextmonth>next\s+month)"
    r"|(?:(?P<rel>next|this|coming)\s+)?(?P<wd>weekend|mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?"
    r"|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)"
    r"|(?P<mon>jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(?P<day>\d{1,2})(?:st|nd|rd|th)?"
    r"(?:,?\s+(?P<year>\d{4}))?"
)
_DATE_LEAD = r"(?P<lead>(?:(?:due|by|on|for|before|until|till)\s+)*)"
_DATE_FIND = re.compile(rf"(?<![\w-]){_DATE_LEAD}(?:{_DATE_CORE})(?![\w-])", _I)
_DATE_FULL = re.compile(rf"^\s*(?:to\s+)?{_DATE_LEAD}(?:{_DATE_CORE})\s*$", _I)
_TODAY_LINE = re.compile(r"Today's date:\s*(\d{4}-\d{2}-\d{2})")


def _resolve_date(m: re.Match[str], today: dt.date) -> dt.date | None:
    g = m.groupdict()
    try:
        if g["iso"]:
            return dt.date.fromisoformat(g["iso"])
        if g["mon"]:
            month = _MONTHS.index(g["mon"].lower()) + 1
            found = dt.date(int(g["year"] or today.year), month, int(g["day"]))
            # "dec 1" with no year means the next Dec 1, never one in the past.
            return found if g["year"] or found >= today else found.replace(year=today.year + 1)
    except ValueError:
        return None
    if g["after"]:
        return today + dt.timedelta(days=2)
    if g["today"] or g["tomorrow"]:
        return today + dt.timedelta(days=0 if g["today"] else 1)
    if g["count"]:
        n = _COUNTS.get(g["count"].lower()) or int(g["count"])
        return today + dt.timedelta(days=n * (7 if g["unit"].lower().startswith("w") else 1))
    if g["nextweek"]:
        return today + dt.timedelta(days=7)
    if g["nextmonth"]:
        return next_month(today)
    target = 5 if g["wd"].lower() == "weekend" else _WEEKDAYS.index(g["wd"].lower()[:3])
    # "friday", "on friday" and "next friday" all mean the first Friday after today.
    return today + dt.timedelta(days=(target - today.weekday()) % 7 or 7)


def _parse_date(text: str, today: dt.date) -> str | None:
    m = _DATE_FULL.match(text)
    found = _resolve_date(m, today) if m else None
    return found.isoformat() if found else None


def _take_date(text: str, today: dt.date) -> tuple[str | None, str]:
    """The first date phrase in an add command, and the text without it."""
    for m in _DATE_FIND.finditer(text):
        wd = m["wd"]
        at_edge = not text[: m.start()].strip(" ,") or not text[m.end() :].strip(" ,.!?")
        # A bare weekday ("watch friday night lights") is only a date at an edge or after a
        # preposition; abbreviations ("sat exam") need the preposition.
        if wd and not (m["lead"] or m["rel"]) and (len(wd) < 6 or not at_edge):
            continue
        found = _resolve_date(m, today)
        if found is not None:
            return found.isoformat(), text[: m.start()] + " " + text[m.end() :]
    return None, text


def _today(messages: list[Mapping[str, Any]]) -> dt.date:
    for message in messages:
        if message.get("role") == "system" and (m := _TODAY_LINE.search(_text(message.get("content")))):
            try:
                return dt.date.fromisoformat(m[1])
            except ValueError:
                break
    return dt.date.today()
