"""A minimal HTTP/1.1 keep-alive client for the load driver.

httpx costs a few hundred microseconds of CPU per request; on a 2-core machine shared with the
server, the fake model and Postgres, that would be measured as server overhead. This client does
only what the benchmark needs: one connection, Content-Length bodies, a timeout on every request.
"""

from __future__ import annotations

import asyncio
import contextlib


class HttpError(Exception):
    pass


class Connection:
    def __init__(self, host: str, port: int, *, timeout_s: float = 30.0) -> None:
        self.host, self.port, self.timeout_s = host, port, timeout_s
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._reader is None or self._writer is None or self._writer.is_closing():
            self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
        return self._reader, self._writer

    async def request(
        self, method: str, path: str, *, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[int, bytes]:
        async with asyncio.timeout(self.timeout_s):
            reader, writer = await self._open()
            head = [f"{method} {path} HTTP/1.1", f"Host: {self.host}:{self.port}", f"Content-Length: {len(body)}"]
            head += [f"{k}: {v}" for k, v in (headers or {}).items()]
            writer.write(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body)
            try:
                raw = await reader.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError) as exc:
                await self.close()
                raise HttpError(f"connection closed: {exc}") from exc
            lines = raw.decode("latin-1").split("\r\n")
            status = int(lines[0].split(" ", 2)[1])
            fields = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
            if "content-length" not in fields:
                await self.close()
                raise HttpError("response without Content-Length")
            payload = await reader.readexactly(int(fields["content-length"]))
            if fields.get("connection", "").lower() == "close":
                await self.close()
            return status, payload

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(ConnectionError):
                await self._writer.wait_closed()
        self._reader = self._writer = None
