"""JSON as it is read or written whole: a stored body, an example for the API's schema."""

from __future__ import annotations

from typing import TypeAlias

from pydantic import JsonValue

JsonObject: TypeAlias = dict[str, JsonValue]
