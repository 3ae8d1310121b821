"""Keyset paging: a page ends with the sort key of its last row, and the next page starts after it.

Stable under inserts and deletes (no offset to shift), and each page is one indexed range read. The
cursor a client gets is opaque (base64url of the sort's name and the last row's key); one from
another sort, or a mangled one, is a 422.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.sql.elements import ColumnElement

from backend.app.core.exceptions import InvalidRequest

MAX_LIMIT = 200
DEFAULT_LIMIT = 50


@dataclass(frozen=True, slots=True)
class Order:
    """One sort column: its expression, direction, and how its value comes back from JSON."""

    expression: ColumnElement[Any]
    descending: bool
    load: Callable[[Any], Any]

    def sort(self) -> ColumnElement[Any]:
        return self.expression.desc() if self.descending else self.expression.asc()


def after(orders: Sequence[Order], key: Sequence[Any]) -> ColumnElement[bool]:
    """Rows strictly after `key` in this order: (a, b, c) after (x, y, z) is a ⋗ x, or a = x and b ⋗ y, …"""
    branches = []
    for i, order in enumerate(orders):
        beyond = order.expression < key[i] if order.descending else order.expression > key[i]
        branches.append(sa.and_(*[orders[j].expression == key[j] for j in range(i)], beyond))
    return sa.or_(*branches)


def encode(kind: str, key: Sequence[Any]) -> str:
    payload = orjson.dumps({"s": kind, "k": [_plain(v) for v in key]})
    return base64.urlsafe_b64encode(payload).decode().rstrip("=")


def cursor_kind(cursor: str) -> str | None:
    """The listing a cursor belongs to (None when it is not a cursor: `decode` then says why)."""
    try:
        payload = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (ValueError, binascii.Error, orjson.JSONDecodeError):
        return None
    kind = payload.get("s") if isinstance(payload, dict) else None
    return kind if isinstance(kind, str) else None


def decode(kind: str, cursor: str, orders: Sequence[Order]) -> list[Any]:
    try:
        payload = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(payload, dict) or payload.get("s") != kind or len(payload.get("k", ())) != len(orders):
            raise ValueError("another listing's cursor")
        return [order.load(value) for order, value in zip(orders, payload["k"], strict=True)]
    except (ValueError, TypeError, binascii.Error, orjson.JSONDecodeError) as error:
        raise InvalidRequest(f"cursor: not a cursor of this listing ({error})") from None


def _plain(value: Any) -> Any:
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def load_datetime(value: Any) -> datetime:
    if not isinstance(value, str):
        raise TypeError("a timestamp")
    return datetime.fromisoformat(value)


def load_date(value: Any) -> date:
    if not isinstance(value, str):
        raise TypeError("a date")
    return date.fromisoformat(value)


def load_uuid(value: Any) -> uuid.UUID:
    return uuid.UUID(str(value))


def load_int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("an integer")
    return value
