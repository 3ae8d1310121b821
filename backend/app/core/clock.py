"""An injectable clock, and the user's time zone that "today" is read in.

`now` is an instant (UTC); `today` is a date, and a date is only ever somebody's: the service's clock
reads it in UTC, a user's clock (`LocalClock`) in the user's zone (an IANA name, `zone_named`), which a
request brings or the user stored (CONTRACT.md, "Time zones, times and repeats"; docs/clock.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, tzinfo
from functools import lru_cache
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from backend.app.core.exceptions import InvalidRequest


class Clock(Protocol):
    def now(self) -> datetime: ...

    def today(self) -> date: ...

    @property
    def zone(self) -> tzinfo: ...


class SystemClock:
    zone: tzinfo = UTC

    def now(self) -> datetime:
        return datetime.now(UTC)

    def today(self) -> date:
        return self.now().date()


class FixedClock:
    zone: tzinfo = UTC

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def now(self) -> datetime:
        return self.moment

    def today(self) -> date:
        return self.moment.astimezone(UTC).date()


@dataclass(frozen=True, slots=True)
class LocalClock:
    """`clock` read where the user lives: the same instant, the date of `zone`."""

    clock: Clock
    zone: tzinfo

    def now(self) -> datetime:
        return self.clock.now()

    def today(self) -> date:
        return self.clock.now().astimezone(self.zone).date()

    @property
    def zone_name(self) -> str:
        return zone_key(self.zone)


def zone_key(zone: tzinfo) -> str:
    """A zone's IANA name ("UTC" for datetime's own UTC)."""
    return zone.key if isinstance(zone, ZoneInfo) else "UTC" if zone is UTC else str(zone)


def shown_at(due_at: datetime | None, zone_name: str | None) -> str | None:
    """A due time as RFC 3339 with the offset of the zone it was said in ("2026-12-05T15:00:00-08:00")."""
    if due_at is None:
        return None
    aware = due_at if due_at.tzinfo is not None else due_at.replace(tzinfo=UTC)
    return aware.astimezone(zone_named(zone_name or "UTC")).isoformat()


class UnknownTimeZone(InvalidRequest):
    code = "INVALID_TIME_ZONE"


TIME_ZONE_HEADER = "X-Time-Zone"  # REST and MCP: the user's zone for one request
ZONEINFO_CLAIM = "the token's zoneinfo claim"  # where a zone came from: an identity provider's
MAX_ZONE_CHARS = 64  # the longest IANA name is 32 characters


def zone_named(name: str, *, where: str = "time_zone") -> ZoneInfo:
    """The IANA zone `name` ("America/Los_Angeles", "UTC"); 422 for a name no zone has."""
    found = _zone(name) if 0 < len(name) <= MAX_ZONE_CHARS and "\x00" not in name else None
    if found is None:
        raise UnknownTimeZone(f"{where}: '{name[:MAX_ZONE_CHARS]}' is not an IANA time zone name (e.g. 'Europe/Paris')")
    return found


def is_zone(name: str) -> bool:
    """Whether `name` is an IANA time zone name this machine knows."""
    return _zone(name) is not None


# The system's files beside the zones, which ZoneInfo would also read: its own local time, and the
# POSIX and leap-second copies. (Listing every zone instead, `available_timezones`, scans the disk:
# 17 ms at start-up.)
_NOT_ZONES = frozenset({"localtime", "posixrules", "Factory"})


@lru_cache(maxsize=512)
def _zone(name: str) -> ZoneInfo | None:
    if name in _NOT_ZONES or name.startswith(("posix/", "right/")):
        return None
    try:
        return ZoneInfo(name)  # refuses a path ("../x", "/etc/x") with ValueError, a folder with an OSError
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


@dataclass(frozen=True, slots=True)
class ZoneNames:
    """The zone names a request brings, as (where it came from, the name), most specific first."""

    given: tuple[tuple[str, str | None], ...] = ()

    @classmethod
    def of_request(cls, header: str | None, claim: str | None) -> ZoneNames:
        """What a request brings besides a body: its `X-Time-Zone` header, then its token's claim."""
        return cls(((TIME_ZONE_HEADER, header), (ZONEINFO_CLAIM, claim)))

    def before(self, where: str, name: str | None) -> ZoneNames:
        """These names with one more ahead of them (the chat body's before the header's)."""
        return ZoneNames(((where, name), *self.given))

    def first(self) -> ZoneInfo | None:
        """The zone of the first name given; None when none is. A name given that no zone has is a 422
        that says where it came from (CONTRACT.md: "an unknown name is 422"), a token's claim too: the
        client names the zone ahead of it (the body's `time_zone`, `X-Time-Zone`) to be served anyway."""
        for where, name in self.given:
            if name is not None:
                return zone_named(name, where=where)
        return None


NO_ZONE_NAMES = ZoneNames()
