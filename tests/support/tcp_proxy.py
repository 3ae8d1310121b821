"""A TCP forwarder on loopback that can be stopped and started again: the database going away and
coming back, as a server restart or a network cut looks to the app (every connection dropped,
new ones refused until it is back)."""

from __future__ import annotations

import asyncio
import contextlib

from support.live import bound_socket


class TcpProxy:
    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self._socket = bound_socket()
        self.port: int = self._socket.getsockname()[1]
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()
        self._writers: set[asyncio.StreamWriter] = set()

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
                sink.write(data)
                await sink.drain()
        except (OSError, asyncio.IncompleteReadError):
            pass
        finally:
            self._writers.discard(sink)
            with contextlib.suppress(Exception):
                sink.transport.abort()
