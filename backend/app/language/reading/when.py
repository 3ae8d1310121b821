"""A time of day and a repeat, as a user says them in any covered language: "at 3pm", "um 15 Uhr",
"à 15h30", "alle 9"; "every Tuesday", "jeden Werktag", "el 1 de cada mes", "toutes les 2 semaines".

Each is read from the language files (`[dates] times`, `[repeats]`) in the folded text (lower case, no
accents: `lexicon.fold`), and answered with its span there, so that the caller can take the words out
of a title. A repeat is answered as an RFC 5545 RRULE (tools/repeats.py stores and steps it).
"""

from __future__ import annotations

import datetime as dt
import re
from itertools import accumulate

from dateutil.rrule import rrule, rrulestr

from backend.app.language.lexicon import Lexicon, fold, lexicons

Span = tuple[int, int]
BYDAY = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
_PLAIN = {
    "daily": "FREQ=DAILY",
    "workdays": "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR",
    "weekly": "FREQ=WEEKLY",
    "monthly": "FREQ=MONTHLY",
    "yearly": "FREQ=YEARLY",
}
_EMPTY = re.compile(r"\(\s*\)|\[\s*\]")  # brackets a time was cut out of: "call bob (5pm)"
_BARE = re.compile(r"\d{1,2}:\d{2}")
_WORD = re.compile(r"[^\W\d_]+(?:\.)?")
_EVERY_N = {"every_days": "DAILY", "every_weeks": "WEEKLY", "every_months": "MONTHLY"}


def _lexicons(language: str | None) -> list[Lexicon]:
    """The language's file, or every file when the language is not known."""
    every = list(lexicons())
    own = [lex for lex in every if lex.code == language]
    return own or every


def time_in(folded: str, language: str | None = None) -> tuple[Span, dt.time] | None:
    """The first time of day the text says (the longest at one position), in `language` (else in
    any). A bare "3:15" is a time only beside a day ("tomorrow 9:30"), not in "John 3:16"."""
    best: tuple[Span, dt.time] | None = None
    for lex in _lexicons(language):
        dated: bool | None = None  # read once, when a bare time asks
        for pattern in lex.dates.times:
            for m in pattern.finditer(folded):
                if best is not None and m.start() > best[0][0]:
                    break  # a later match cannot come first
                if _BARE.fullmatch(m.group()):
                    dated = _dated(lex, folded) if dated is None else dated
                    if not dated:
                        break  # a pattern of bare times gives no other kind: none of its matches is a time
                found = _time(m)
                if found is None:
                    continue
                if best is None or _before(m.span(), best[0]):
                    best = (m.span(), found)
                break
    return best


def _dated(lex: Lexicon, folded: str) -> bool:
    """The text names a day in this language: today, tomorrow, a weekday, a repeat."""
    patterns = [*lex.dates.words.values(), *lex.dates.weekdays, *lex.dates.repeats.values()]
    return any(p is not None and p.search(folded) for p in patterns)


def _time(m: re.Match[str]) -> dt.time | None:
    groups = m.groupdict()
    if groups.get("noon"):
        return dt.time(12)
    hour, minute = int(groups["h"]), int(groups.get("m") or 0)
    if any(groups.get(k) for k in groups if k.startswith("pm")) and hour < 12:
        hour += 12
    elif groups.get("am") and hour == 12:
        hour = 0
    return dt.time(hour, minute) if hour <= 23 and minute <= 59 else None


def repeat_in(folded: str, language: str | None = None) -> tuple[Span, str] | None:
    """The first repeat the text says, as an RRULE (the longest at one position), in `language` (else
    in any)."""
    best: tuple[Span, str] | None = None
    for lex in _lexicons(language):
        for span, rule in _repeats(lex, folded):
            if best is None or _before(span, best[0]):
                best = (span, rule)
    return best


def _repeats(lex: Lexicon, folded: str) -> list[tuple[Span, str]]:
    found: list[tuple[Span, str]] = []
    words = lex.dates.repeats
    for kind, rule in _PLAIN.items():
        if (pattern := words.get(kind)) is not None and (m := pattern.search(folded)):
            found.append((m.span(), rule))
    if (pattern := words.get("month_day")) is not None and (m := pattern.search(folded)):
        day = _number(m)
        if day is not None and 1 <= day <= 31:
            found.append((m.span(), f"FREQ=MONTHLY;BYMONTHDAY={day}"))
    for kind, freq in _EVERY_N.items():
        if (pattern := words.get(kind)) is not None and (m := pattern.search(folded)):
            number = _number(m)
            interval = 2 if number is None else number  # "every other week", "alle zwei Wochen"
            if 1 <= interval <= 366:
                found.append((m.span(), f"FREQ={freq};INTERVAL={interval}" if interval > 1 else f"FREQ={freq}"))
    every = words.get("every")
    for m in every.finditer(folded) if every is not None else ():
        word = _WORD.match(folded, m.end() + 1) if folded[m.end() : m.end() + 1] == " " else None
        # A short form ("sun", "mon") only ends the phrase: "each sun lounger" is no Sunday.
        short = word is not None and len(word.group()) < 4 and bool(folded[word.end() :].strip(" ,.!?;:"))
        day = _weekday(lex, word.group()) if word is not None and not short else None
        if word is not None and day is not None:
            found.append(((m.start(), word.end()), f"FREQ=WEEKLY;BYDAY={BYDAY[day]}"))
    return found


def _weekday(lex: Lexicon, word: str) -> int | None:
    """Which day `word` names (Monday 0), also in the plural ("todos los domingos", "tous les lundis")."""
    for candidate in (word, word[:-1]) if word.endswith("s") else (word,):
        for day, weekday in enumerate(lex.dates.weekdays):
            if weekday is not None and weekday.fullmatch(candidate):
                return day
    return None


def _number(m: re.Match[str]) -> int | None:
    digits = next((g for g in m.groups() if g and g.isdigit()), None)
    return int(digits) if digits is not None else None


def _before(span: Span, other: Span) -> bool:
    """`span` starts first, or at the same place and is longer."""
    return span[0] < other[0] or (span[0] == other[0] and span[1] > other[1])


def cut_chars(text: str, start: int, end: int) -> str:
    """`text` without the characters of the span [start, end) of its folded form, spaces closed up and
    brackets left empty dropped: "call bob (5pm) tomorrow" without "5pm" is "call bob tomorrow", never a
    word kept twice."""
    ends = list(accumulate(len(fold(c)) for c in text))  # where each character's folded form ends
    first = next((i for i, e in enumerate(ends) if e > start), len(text))
    last = next((i for i, e in enumerate(ends) if e >= end), len(text) - 1)
    while last + 1 < len(text) and ends[last + 1] == ends[last]:  # a combining mark typed after it
        last += 1
    return " ".join(_EMPTY.sub(" ", text[:first] + " " + text[last + 1 :]).split())


def take_when(text: str, language: str | None) -> tuple[str | None, dt.time | None, str]:
    """The repeat (an RRULE) and the time of day `text` says in `language`, and `text` without them."""
    rule = repeat_in(fold(text), language)
    if rule is not None:
        text = cut_chars(text, *rule[0])
    at = time_in(fold(text), language)
    if at is not None:
        text = cut_chars(text, *at[0])
    return (rule[1] if rule else None), (at[1] if at else None), text


def due_fields(due: dt.date | None, at: dt.time | None, rule: str | None, today: dt.date) -> dict[str, str]:
    """A task's due fields as the words say them: a time is due on the day said, else the repeat's
    first day, else today (`due_at`, a wall-clock time in the user's zone); a day said is the
    `due_date`, beside the time on it (so a day the words give is told from one they leave to today)."""
    found: dict[str, str] = {"recurrence": rule} if rule is not None else {}
    if due is not None:
        found["due_date"] = due.isoformat()
    if at is not None:
        day = due or (first_day(rule, today) if rule else today)
        found["due_at"] = dt.datetime.combine(day, at).isoformat(timespec="minutes")
    return found


# How far ahead a repeat is followed: a rule with no occurrence in this many days has none.
HORIZON_DAYS = 3653


def occurrences(rule: str, start: dt.datetime) -> rrule:
    """A stored RRULE's occurrences from the wall-clock time `start`, up to its UNTIL and never past
    the horizon (a rule that never occurs ends instead of being searched for ever). A monthly date past
    the 28th falls on the month's last day where the month is shorter ("the 31st" is 30 April)."""
    parts = rule_parts(rule)
    found = rrulestr(rule, dtstart=start)
    assert isinstance(found, rrule)  # one RRULE, never a set: no RDATE/EXDATE lines are stored
    horizon = start + dt.timedelta(days=HORIZON_DAYS)
    until = dt.datetime.strptime(parts["UNTIL"], "%Y%m%dT%H%M%S") if "UNTIL" in parts else horizon
    found = found.replace(until=min(until, horizon))
    own_day = parts.get("BYMONTHDAY")
    day = int(own_day) if own_day is not None and own_day.isascii() and own_day.isdigit() else start.day
    clamps = parts.get("FREQ") == "MONTHLY" and not {"BYDAY", "BYSETPOS", "BYYEARDAY"} & parts.keys()
    if clamps and day > 28 and (own_day is None or own_day.isdigit()):  # not "-1" (the last) nor "30,31"
        found = found.replace(bymonthday=tuple(range(28, day + 1)), bysetpos=-1)
    return found


def rule_parts(rule: str | None) -> dict[str, str]:
    """An RRULE's parts by name ("FREQ=WEEKLY;BYDAY=TU" -> {"FREQ": "WEEKLY", "BYDAY": "TU"})."""
    return dict(part.partition("=")[::2] for part in (rule or "").split(";") if part)


def first_day(rule: str, today: dt.date) -> dt.date:
    """The day a repeat with no due date starts: its first occurrence from `today`, else today."""
    first = first_on_or_after(rule, dt.datetime.combine(today, dt.time()))
    return first.date() if first is not None else today


def first_on_or_after(rule: str, start: dt.datetime) -> dt.datetime | None:
    """An RRULE's first occurrence at or after the wall-clock time `start`."""
    found: dt.datetime | None = occurrences(rule, start).after(start, inc=True)
    return found


def next_month(today: dt.date) -> dt.date:
    """The same day of the next month, or its last day when it has none (31 January -> 28 February)."""
    year, month = (today.year + 1, 1) if today.month == 12 else (today.year, today.month + 1)
    day = today.day
    while True:
        try:
            return dt.date(year, month, day)
        except ValueError:
            day -= 1


def day_in(folded: str, today: dt.date) -> tuple[Span, dt.date] | None:
    """The first day the text names relative to the user's `today`, in any covered language: "today",
    "tomorrow", "the day after tomorrow", "in 3 days", "next week", "next month", a weekday (the next
    one after today). The first wins, but a longer word for a day relative to today wins wherever it
    stands ("record the tonight show tomorrow" is due tomorrow)."""
    best: tuple[Span, dt.date] | None = None

    def consider(m: re.Match[str] | Span | None, day: dt.date | None, *, longer_wins: bool = False) -> None:
        nonlocal best
        if m is None or day is None:
            return
        start, end = m if isinstance(m, tuple) else m.span()
        longer = best is not None and longer_wins and end - start > best[0][1] - best[0][0]
        if best is None or start < best[0][0] or longer:
            best = ((start, end), day)

    for lex in lexicons():
        for kind, days in (("after_tomorrow", 2), ("today", 0), ("tomorrow", 1), ("next_week", 7), ("in_days", None)):
            if (pattern := lex.dates.word(kind)) is None or (m := pattern.search(folded)) is None:
                continue
            count = days if days is not None else _number(m)
            offset = count if count is not None and count <= 3650 else None
            consider(m, today + dt.timedelta(days=offset) if offset is not None else None, longer_wins=True)
        if (pattern := lex.dates.word("next_month")) is not None:
            consider(pattern.search(folded), next_month(today))
        for weekday, pattern in enumerate(lex.dates.weekdays):
            if pattern is not None and (m := pattern.search(folded)) is not None:
                consider(_around(lex, folded, m), today + dt.timedelta(days=(weekday - today.weekday()) % 7 or 7))
    return best


def _around(lex: Lexicon, folded: str, weekday: re.Match[str]) -> Span:
    """A weekday's span with the words said with it that name the same day ("next monday", "el lunes
    que viene"): the next one after today, as the weekday alone."""
    start, end = weekday.span()
    before, after = lex.dates.around_weekday
    if before is not None and (m := before.search(folded, 0, start)) is not None:
        start = m.start()
    if after is not None and (m := after.match(folded, end)) is not None and _closes(lex, folded[m.end() :]):
        end = m.end()
    return start, end


_NEXT_WORD = re.compile(r"[^\w]*?(\w+)")


def _closes(lex: Lexicon, rest: str) -> bool:
    """Whether a word after a weekday goes with it: nothing follows, or punctuation, or a word that
    starts another part of the words ("lundi prochain avec Paul"), not one it would qualify ("el
    lunes próxima reunión", "que viene Ana")."""
    word = _NEXT_WORD.match(rest)
    if word is None or rest[: word.start(1)].strip():  # nothing follows, or punctuation ends the part
        return True
    fillers = lex.word("title_fillers")
    return fillers is not None and fillers.fullmatch(word.group(1)) is not None
