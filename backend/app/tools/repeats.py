"""A task's due time and its repeat: where a due time's date falls, and when a repeating task comes next.

A due time is an instant (`due_at`, stored in UTC) with the zone it was said in (`time_zone`); the task's
`due_date` is the instant's date there, so a client that reads only `due_date` sees the user's day. A
repeat is an RFC 5545 RRULE (`FREQ=WEEKLY;BYDAY=TU`), read and stepped by python-dateutil in the
task's own local time, so "every Tuesday at 09:30" stays 09:30 across a change of daylight saving.

Completing an occurrence moves the task to its next one (the same task: its title, id and history stay
what the user knows; the change is one update, undone like any other); when the rule has no next
occurrence (its UNTIL passed) the task is completed. The next occurrence is the first after the one
completed that is not before the user's today: a weekly chore done three weeks late comes back next
week, not three times overdue.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, tzinfo
from typing import Any

from backend.app.core.clock import Clock, zone_key, zone_named
from backend.app.language.reading.when import HORIZON_DAYS, first_day, first_on_or_after, occurrences, rule_parts

# How often a to-do may repeat: not by the hour, minute or second.
FREQUENCIES = frozenset({"DAILY", "WEEKLY", "MONTHLY", "YEARLY"})
MAX_RULE_CHARS = 255
MAX_INTERVAL = 1000
_NUMBER = re.compile(r"[0-9]{1,4}")  # ASCII digits only: "²" and "٣" are no hour


def normalized_rule(text: str) -> str:
    """The RRULE as stored (upper case, no `RRULE:` prefix, UNTIL a wall-clock time: a date alone is the
    end of that day, a UTC one is read in the task's zone); ValueError saying why it is not one."""
    rule = text.strip().upper().removeprefix("RRULE:").strip(";")
    if not rule or len(rule) > MAX_RULE_CHARS:
        raise ValueError(f"an RFC 5545 RRULE of at most {MAX_RULE_CHARS} characters, e.g. FREQ=WEEKLY;BYDAY=TU")
    parts = rule_parts(rule)
    if parts.get("FREQ") not in FREQUENCIES:
        raise ValueError(f"FREQ must be one of {', '.join(sorted(FREQUENCIES))}, e.g. FREQ=WEEKLY;BYDAY=TU")
    if kept := sorted({"COUNT", "DTSTART", "BYSECOND"} & parts.keys()):
        raise ValueError(f"{kept[0]} is not kept: the due date and due_at say when it starts and at what time")
    for key, top in (("BYHOUR", 23), ("BYMINUTE", 59)):  # the time of day of a task due at a time (`timed`)
        if key in parts and not (_NUMBER.fullmatch(parts[key]) and int(parts[key]) <= top):
            raise ValueError(f"{key} must be one number from 0 to {top}: a task is due at one time of day")
    if not _NUMBER.fullmatch(parts.get("INTERVAL", "1")) or not 1 <= int(parts.get("INTERVAL", "1")) <= MAX_INTERVAL:
        raise ValueError(f"INTERVAL must be a whole number from 1 to {MAX_INTERVAL}")
    if until := parts.get("UNTIL"):
        parts["UNTIL"] = until[:-1] if until.endswith("Z") else f"{until}T235959" if len(until) == 8 else until
        rule = ";".join(f"{k}={v}" for k, v in parts.items())
    now = datetime.now(UTC).replace(tzinfo=None, microsecond=0)
    try:
        first = first_on_or_after(rule, now)
    except (ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"not an RRULE python-dateutil reads: {exc}") from exc
    if first is None and parts.get("UNTIL", "99999999") > now.strftime("%Y%m%dT%H%M%S"):
        raise ValueError(f"it has no occurrence in the next {HORIZON_DAYS // 365} years")
    return rule


def local_due(due_at: datetime, zone: tzinfo) -> datetime:
    """A due time in its zone, as a wall-clock time (no zone attached): what a repeat steps."""
    aware = due_at if due_at.tzinfo is not None else due_at.replace(tzinfo=UTC)
    return aware.astimezone(zone).replace(tzinfo=None)


def instant(local: datetime, zone: tzinfo) -> datetime:
    """The UTC instant of a wall-clock time in `zone` (in a gap of daylight saving, the time after it)."""
    return local.replace(tzinfo=zone).astimezone(UTC)


def _instant_or_none(local: datetime, zone: tzinfo) -> datetime | None:
    """`instant`, or None for a day so far ahead (9999-12-31) that its time has no UTC instant: the day stays."""
    try:
        return instant(local, zone)
    except OverflowError:
        return None


def said_at(due_at: datetime, zone: tzinfo) -> datetime:
    """A due time as given: one without an offset is the user's wall-clock time."""
    return instant(due_at, zone) if due_at.tzinfo is None else due_at.astimezone(UTC)


def past_due(args: Any, clock: Clock) -> str | None:
    """Why a call's due date (or its due time's date, in the user's zone) is before the user's today."""
    today = clock.today()
    due, at = getattr(args, "due_date", None), getattr(args, "due_at", None)
    if due is not None and due < today:
        return f"due_date {due.isoformat()} is in the past (today is {today.isoformat()})."
    if at is not None and local_due(said_at(at, clock.zone), clock.zone).date() < today:
        return f"due_at {at.isoformat()} is in the past (today is {today.isoformat()})."
    return None


def anchored(rule: str, due: date | None) -> str:
    """A monthly rule with no day of its own, on a task due past the 28th, keeps that day: "every month"
    from 31 March falls on 30 April, then 31 May (the day of the month is not lost in a short month)."""
    parts = rule_parts(rule)
    free = parts.get("FREQ") == "MONTHLY" and not {"BYMONTHDAY", "BYDAY", "BYSETPOS", "BYYEARDAY"} & parts.keys()
    return f"{rule};BYMONTHDAY={due.day}" if free and due is not None and due.day > 28 else rule


def timed(rule: str, at: time | None) -> str:
    """A repeat of a task due at a time holds that wall-clock time (BYHOUR, BYMINUTE), so every
    occurrence comes at it, also after a day it did not exist on (02:30 on the day clocks skip that
    hour is 03:30 that day, and 02:30 again the next); a task due on a day alone holds none."""
    parts = [part for part in rule.split(";") if not part.startswith(("BYHOUR=", "BYMINUTE="))]
    return ";".join([*parts, f"BYHOUR={at.hour}", f"BYMINUTE={at.minute}"] if at is not None else parts)


def held_time(rule: str | None) -> time | None:
    """The wall-clock time a repeat holds (`timed`), if it holds one."""
    parts = rule_parts(rule)
    if _NUMBER.fullmatch(parts.get("BYHOUR", "")) and _NUMBER.fullmatch(parts.get("BYMINUTE", "0")):
        return time(int(parts["BYHOUR"]), int(parts.get("BYMINUTE", "0")))
    return None


def wall_time(given: datetime, zone: tzinfo) -> time:
    """The time of day a due time was given as: one without an offset as written (even in the hour a
    spring change skips), one with an offset as the user's clock shows it."""
    return given.time() if given.tzinfo is None else local_due(given, zone).time()


def new_timing(
    *, due_date: date | None, due_at: datetime | None, recurrence: str | None, zone: tzinfo, today: date
) -> dict[str, Any]:
    """A new task's due fields: a due time's date is its date in the user's zone; a repeat with no due
    date starts at its first occurrence from the user's today."""
    fields: dict[str, Any] = {"due_date": due_date, "due_at": None, "time_zone": None, "recurrence": recurrence}
    if due_at is not None:
        at = said_at(due_at, zone)
        fields |= {"due_at": at, "time_zone": zone_key(zone), "due_date": local_due(at, zone).date()}
    if recurrence is not None:
        fields["time_zone"] = zone_key(zone)
        if fields["due_date"] is None:
            fields["due_date"] = first_day(recurrence, today)
        wall = wall_time(due_at, zone) if due_at is not None else None
        fields["recurrence"] = timed(anchored(recurrence, fields["due_date"]), wall)
    return fields


def edited_timing(changes: dict[str, Any], task: Any, *, zone: tzinfo, today: date) -> dict[str, Any]:
    """An edit's changes with what they mean for the due fields: a new due time sets its date; a new
    date keeps the task's time of day (in the task's zone); clearing the date clears the time; a new
    repeat on an undated task starts at its first occurrence; and a completion of a repeating task
    moves it to its next occurrence instead (`next_due` says when), or completes it when there is none."""
    out = dict(changes)
    own = zone_named(task.time_zone or "UTC")
    wall: time | None = None  # the time of day the task is due at after the edit, as the user gave it
    if changes.get("due_at") is not None:
        at, wall = said_at(changes["due_at"], zone), wall_time(changes["due_at"], zone)
        out |= {"due_at": at, "time_zone": zone_key(zone), "due_date": local_due(at, zone).date()}
    elif task.due_at is not None and "due_at" not in changes:  # the task keeps its time of day
        wall = held_time(task.recurrence) or local_due(task.due_at, own).time()
        if "due_date" in changes:
            day = changes["due_date"]
            out["due_at"] = _instant_or_none(datetime.combine(day, wall), own) if day is not None else None
            wall = wall if out["due_at"] is not None else None
    rule = out.get("recurrence", task.recurrence)
    if changes.get("recurrence") is not None:
        out.setdefault("time_zone", task.time_zone or zone_key(zone))
        if out.get("due_date", task.due_date) is None:
            out["due_date"] = first_day(rule, today)
        out["recurrence"] = rule = anchored(rule, out.get("due_date", task.due_date))
    if rule and ("recurrence" in changes or "due_at" in changes or ("due_at" in out and out["due_at"] is None)):
        out["recurrence"] = rule = timed(rule, wall)  # the repeat holds the task's time (or none)
    if out.get("status") == "completed" and rule and task.status != "completed":
        merged = _Merged(out, task)
        found = next_occurrence(merged, today)
        if found is not None:
            del out["status"]
            out["due_date"], next_at = found
            if merged.due_at is not None:
                out["due_at"] = next_at
    return out


class _Merged:
    """A task with an edit's changes over it (what the next occurrence is computed from)."""

    def __init__(self, changes: dict[str, Any], task: Any) -> None:
        self._changes, self._task = changes, task

    def __getattr__(self, name: str) -> Any:
        return self._changes[name] if name in self._changes else getattr(self._task, name)


def next_occurrence(task: Any, today: date) -> tuple[date, datetime | None] | None:
    """The due date and time (UTC) of a repeating `task`'s next occurrence after its current one,
    not before `today` (the user's); None when the rule has no more."""
    zone = zone_named(task.time_zone or "UTC")
    if task.due_at is not None:
        start = local_due(task.due_at, zone)
    elif task.due_date is not None:
        start = datetime.combine(task.due_date, time())
    else:
        return None
    try:
        rule = occurrences(task.recurrence, start)
        # A task due on a day alone comes next on a later day (whatever its rule's time of day).
        found: datetime | None = rule.after(start if task.due_at is not None else datetime.combine(start, time.max))
        if found is not None and found.date() < today:
            found = occurrences(task.recurrence, datetime.combine(today, time())).after(
                datetime.combine(today, time()), inc=True
            )
    except (ValueError, OverflowError):  # a rule stored before it was checked, or past year 9999
        return None
    if found is None:
        return None
    return found.date(), instant(found, zone) if task.due_at is not None else None
