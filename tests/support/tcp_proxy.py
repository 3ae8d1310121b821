"""A TCP forwarder on loopback that can be stopped and started again: the database going away and
coming back, as a server restart or a network cut looks to the app (every connection dropped,
new ones refused until it is back); or frozen and thawed: a database that takes connections and
statements and does not answer (a stalled host or network), then answers again. And a server that
never answers at all."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from support.live import bound_socket


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self._socket = bound_socket()
        self.port: int = self._socket.getsockname()[1]
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()

    async def start(self) -> None:
        if self._server is None:
            sock = self._socket if self._socket.fileno() != -1 else bound_socket(port=self.port)
            self._server = await asyncio.start_server(self._accept, sock=sock)

    async def stop(self) -> None:
        """Refuse new connections and drop every open one."""
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        for task in list(self._pipes):
            task.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)

    def freeze(self) -> None:
        """Forward nothing more, either way, keeping every connection open and taking new ones."""
        self._flowing.clear()

    def thaw(self) -> None:
        """Forward again, what was held first."""
        self._flowing.set()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, upstream_writer}
        for source, sink in ((reader, upstream_writer), (upstream_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink))
            self._pipes.add(task)
            task.add_done_callback(self._pipes.discard)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        try:
            while data := await source.read(65536):
                await self._flowing.wait()
                sink.write(data)
                await sink.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(sink)
            with contextlib.suppress(Exception):
                sink.transport.abort()


@contextlib.asynccontextmanager
async def silent_server() -> AsyncIterator[int]:
    """A server on loopback (its port is yielded) that takes every connection, reads what it is sent
    and never answers, until the block ends: a database whose host is up and whose server is stuck."""
    held: set[asyncio.StreamWriter] = set()

    async def take(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.add(writer)
        with contextlib.suppress(OSError):
            while await reader.read(65536):
                pass

    server = await asyncio.start_server(take, sock=bound_socket())
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for writer in held:
            writer.transport.abort()
