"""The `scale` profile's proxy configuration, deploy/haproxy/haproxy.cfg, run for real (Debian's HAProxy,
installed by scripts/ensure-postgres.sh) in front of three instances on one database.

As in compose, HAProxy finds the replicas by DNS: a small resolver here answers the service name with
the three instances' addresses (127.0.0.1-3, one port), as Docker's resolver answers with every
replica's. Nothing in the configuration is changed for the test; only its environment differs.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import struct
from asyncio.subprocess import PIPE, STDOUT
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.api import MakeClient, auth, tasks_of
from support.fake_llm import ScriptedLLM, calls, completion
from support.live import bound_socket, serve

CONFIG = Path(__file__).resolve().parents[2] / "deploy" / "haproxy" / "haproxy.cfg"
SERVICE = "api-replica.test"
ADDRESSES = ("127.0.0.1", "127.0.0.2", "127.0.0.3")


class Resolver(asyncio.DatagramProtocol):
    """Answers A queries for one name with several addresses (and no other name): Docker's DNS in small."""

    def __init__(self, name: str, addresses: tuple[str, ...]) -> None:
        self.name, self.addresses = name, addresses
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # The loop hands a datagram protocol its datagram transport, but typeshed types the parameter as
        # any transport, and CPython's is no DatagramTransport at run time (isinstance would fail).
        self.transport = transport  # type: ignore[assignment]

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        ident, flags = struct.unpack(">HH", data[:4])
        end, labels = 12, []
        while data[end]:
            labels.append(data[end + 1 : end + 1 + data[end]].decode())
            end += 1 + data[end]
        qtype = struct.unpack(">H", data[end + 1 : end + 3])[0]
        question = data[12 : end + 5]
        known = ".".join(labels).casefold() == self.name
        answers = self.addresses if known and qtype == 1 else ()
        reply_flags = 0x8000 | 0x0400 | (flags & 0x0100) | 0x0080 | (0 if known else 3)  # QR AA RD RA, NXDOMAIN
        header = struct.pack(">HHHHHH", ident, reply_flags, 1, len(answers), 0, 0)
        records = b"".join(b"\xc0\x0c" + struct.pack(">HHIH", 1, 1, 1, 4) + socket.inet_aton(a) for a in answers)
        assert self.transport is not None
        self.transport.sendto(header + question + records, addr)


def _same_port_on_each(addresses: tuple[str, ...]) -> list[socket.socket]:
    for _ in range(20):
        first = bound_socket(addresses[0])
        port = first.getsockname()[1]
        socks = [first]
        try:
            socks += [bound_socket(address, port) for address in addresses[1:]]
            return socks
        except OSError:
            for sock in socks:
                sock.close()
    raise RuntimeError("no port free on every loopback address")


class Counted:
    """The app, counting the API requests it serves (health checks excluded)."""

    def __init__(self, app: Any) -> None:
        self.app, self.served = app, 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            self.served += 1
        await self.app(scope, receive, send)


def adding_model(body: dict[str, Any]) -> Any:
    last = body["messages"][-1]
    if last["role"] == "tool":
        return completion("Added.")
    return calls(("add_task", {"title": last["content"].removeprefix("add ")}))


def _haproxy() -> str:
    found = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
    if not found:
        pytest.fail("haproxy is not installed: run `bash scripts/ensure-postgres.sh` (it installs it)")
    return found


@dataclass
class Proxied:
    url: str
    instances: list[Counted]
    clients: list[httpx.AsyncClient]  # each instance in-process, for reading the database back
    servers: list[AsyncExitStack]  # closing one stops that instance's server
    log: Path  # HAProxy's own log: its servers going DOWN and UP

    async def stop(self, index: int) -> None:
        await self.servers[index].aclose()


@pytest.fixture
async def proxied(make_client: MakeClient, tmp_path: Path) -> AsyncIterator[Proxied]:
    haproxy = _haproxy()
    loop = asyncio.get_running_loop()
    transport, _ = await loop.create_datagram_endpoint(
        lambda: Resolver(SERVICE, ADDRESSES), local_addr=("127.0.0.1", 0)
    )
    dns_port = transport.get_extra_info("sockname")[1]
    llm = ScriptedLLM(default=adding_model)
    socks = _same_port_on_each(ADDRESSES)
    proxied = Proxied(url="", instances=[], clients=[], servers=[], log=tmp_path / "haproxy.log")
    for sock in socks:
        client = await make_client(llm)
        proxied.clients.append(client)
        proxied.instances.append(Counted(client.app))
        server = AsyncExitStack()
        await server.enter_async_context(serve(client, sock=sock, app=proxied.instances[-1]))
        proxied.servers.append(server)
    probe = bound_socket()
    proxy_port = probe.getsockname()[1]
    probe.close()  # free again: HAProxy binds it
    env = {
        **os.environ,
        "PROXY_BIND": f"127.0.0.1:{proxy_port}",
        "DNS_RESOLVER": f"127.0.0.1:{dns_port}",
        "API_SERVICE": SERVICE,
        "API_PORT": str(socks[0].getsockname()[1]),
        "API_MAX_REPLICAS": "5",
    }
    check = await asyncio.create_subprocess_exec(haproxy, "-c", "-f", str(CONFIG), env=env, stdout=PIPE, stderr=STDOUT)
    output, _ = await check.communicate()
    assert check.returncode == 0, output.decode()  # the configuration is valid as it is
    log = proxied.log.open("wb")
    process = await asyncio.create_subprocess_exec(
        haproxy, "-db", "-f", str(CONFIG), env=env, stdout=log, stderr=STDOUT
    )
    try:
        proxied.url = f"http://127.0.0.1:{proxy_port}"
        await _until_every_instance_serves(proxied)
        yield proxied
    finally:
        process.terminate()
        await asyncio.wait_for(process.wait(), 10)
        log.close()
        transport.close()
        for server in proxied.servers:
            await server.aclose()


async def _until_every_instance_serves(proxied: Proxied) -> None:
    """HAProxy resolves the replicas and health-checks them before it sends them requests."""
    async with httpx.AsyncClient(base_url=proxied.url, timeout=5) as http:
        for _ in range(150):
            with suppress(httpx.HTTPError):
                await http.get("/api/warmup/tasks", headers=auth("warmup"))
            if all(instance.served for instance in proxied.instances):
                return
            await asyncio.sleep(0.1)
    raise AssertionError(f"not every instance was reached: {[i.served for i in proxied.instances]}")


async def _logged(proxied: Proxied, since: int, line: bytes) -> bool:
    """Whether HAProxy's log holds `line` past offset `since`, waiting up to 2 s for it."""
    for _ in range(20):
        with proxied.log.open("rb") as log:
            log.seek(since)
            if line in log.read():
                return True
        await asyncio.sleep(0.1)
    return False


async def test_the_proxy_spreads_turns_over_every_replica_and_routes_around_a_dead_one(proxied: Proxied) -> None:
    async with httpx.AsyncClient(base_url=proxied.url, timeout=30) as http:

        async def add(title: str) -> httpx.Response:
            return await http.post("/api/alice/chat", json={"message": f"add {title}"}, headers=auth())

        # Round robin: any replica serves any request, no stickiness. The three replicas share this
        # test's one event loop: on a loaded host it can stall past HAProxy's 1 s health check, which
        # then takes a replica out for a moment. Such a round is done again (at most twice more); a
        # round that is uneven with no replica marked down fails at once.
        # The DOWN line may predate the round (a replica out since the one before, served 0) or reach
        # the log a moment after it: it is looked for since the first round, for up to 2 s.
        seen = proxied.log.stat().st_size
        for attempt in range(3):
            before = [instance.served for instance in proxied.instances]
            spread = [await add(f"spread {attempt} {n}") for n in range(12)]
            assert [r.status_code for r in spread] == [200] * 12
            served = [i.served - b for i, b in zip(proxied.instances, before, strict=True)]
            if served == [4, 4, 4]:
                break
            assert await _logged(proxied, seen, b" is DOWN, reason: Layer7 timeout"), served
            await asyncio.sleep(2.5)  # back UP after one passed check (rise 1, inter 1s)
        assert served == [4, 4, 4]

        # A replica goes away (a deploy, a crash). Its connections are refused, so HAProxy sends each
        # request to another replica (the request was never sent: a turn cannot run twice) and soon
        # marks it down. No request fails.
        await proxied.stop(2)
        stopped_at = proxied.instances[2].served
        after = await asyncio.gather(*(add(f"after {n}") for n in range(9)))
        assert Counter(r.status_code for r in after) == Counter({200: 9}), [r.text for r in after][:2]
        assert proxied.instances[2].served == stopped_at

    titles = sorted(t["title"] for t in await tasks_of(proxied.clients[0]))
    spreads = [f"spread {a} {n}" for a in range(attempt + 1) for n in range(12)]
    assert titles == sorted(spreads + [f"after {n}" for n in range(9)])
