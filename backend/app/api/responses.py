"""A JSON response rendered with orjson (fast, and it handles UUIDs and datetimes)."""

from __future__ import annotations

from typing import Any

import orjson
from fastapi.responses import JSONResponse


class FastJSONResponse(JSONResponse):
    def render(self, content: Any) -> bytes:
        return orjson.dumps(content, default=str)
