"""The server's edge below the app: every TCP connection, whatever it becomes.

uvicorn gives a new connection all the time it likes to send its request's head, keeps
as many connections from one address as it sends, and asyncio logs a traceback for every
``accept()`` that fails for want of file descriptors. Here:

- :class:`Sockets` counts the open connections of each client, whatever they carry (plain
  HTTP, a seat's, a spectator's or the lobby's WebSocket), and refuses one past the client's
  share with a 429 before it is read. The client is the TCP peer, or, when the peer is a
  trusted proxy (``dominolab serve --forwarded-allow-ips``), the address the proxy gives in
  ``X-Forwarded-For`` (uvicorn's own rule for that header, so the app's limits and these
  count the same client).
- :func:`protocols` builds uvicorn's HTTP and WebSocket protocols over a :class:`Sockets`:
  a connection whose request head is not complete within ``head_timeout`` seconds (from its
  opening, or from the first byte of a later request on it) is closed.
- :class:`Server` keeps uvicorn's long queue of connections waiting to be accepted but
  has asyncio accept at most :data:`ACCEPT_BATCH` of them at a time, so a flood's
  connections are refused (and their files closed) as they come, rather than a thousand
  taken at once, which alone could use every file the process may open.
- :class:`AcceptFailures` lets one line per interval through of asyncio's failed
  ``accept()``, never its traceback.
- :func:`raise_open_files` lets the process open as many files as the system allows it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import resource
import socket
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Final

import h11
import uvicorn
from uvicorn.middleware.proxy_headers import _TrustedHosts
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

#: connections asyncio accepts at one wake-up (it takes the listening queue's length)
ACCEPT_BATCH: Final = 128
#: connections that may wait to be accepted (uvicorn's default) before new ones are dropped
LISTEN_QUEUE: Final = 2048
#: what a connection past its client's share is told before it is closed
TOO_MANY: Final = "too many open connections from your address; close some and try again"


def refusal(status: int, reason: bytes, message: str) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection: the API's JSON error body."""
    body = json.dumps({"error": message, "status": status}).encode()
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\nconnection: close\r\n"
            b"retry-after: 5\r\ncontent-length: %d\r\n\r\n%s"
            % (status, reason, len(body), body))


#: the whole answer to a connection past its client's share, made once: a flood is
#: thousands of these a second
_TOO_MANY_ANSWER: Final = refusal(429, b"Too Many Requests", TOO_MANY)


class Sockets:
    """The open connections of each client: at most ``per_client`` at once.

    ``trusted`` names the proxies whose ``X-Forwarded-For`` is believed (uvicorn's
    ``--forwarded-allow-ips`` syntax: addresses, networks, ``*``; empty: none). A trusted
    proxy's connection is not counted as the proxy's but as the client's of each request it
    carries, from its head on."""

    def __init__(self, per_client: int, trusted: str = "") -> None:
        if not (isinstance(per_client, int) and per_client >= 1):
            raise ValueError(f"per_client must be a whole number of at least 1, "
                             f"not {per_client!r}")
        self.per_client = per_client
        self.trusted = _TrustedHosts(trusted) if trusted.strip() else None
        self.counts: Counter[str] = Counter()
        #: connections refused (429) so far for being past their client's share
        self.refused = 0
        #: the client each open connection is counted for (None: a proxy's, not yet read)
        self._owner: dict[object, str | None] = {}

    def is_proxy(self, peer: str) -> bool:
        return self.trusted is not None and peer in self.trusted

    def client_of(self, peer: str, headers: list[tuple[bytes, bytes]]) -> str:
        """Who a request from ``peer`` with these (lower-case) headers is for the limits."""
        if self.trusted is None or peer not in self.trusted:
            return peer
        forwarded = [value for name, value in headers if name == b"x-forwarded-for"]
        if not forwarded:
            return peer
        host, _port = self.trusted.get_trusted_client_address(
            b", ".join(forwarded).decode("latin1"))
        return host or peer

    def open(self, transport: object, client: str | None) -> bool:
        """Count ``transport`` as ``client``'s (None: not yet anyone's); False if that is
        past the client's share (then it is not counted)."""
        self.release(transport)
        if client is not None:
            if self.counts[client] >= self.per_client:
                return False
            self.counts[client] += 1
        self._owner[transport] = client
        return True

    def release(self, transport: object) -> None:
        """``transport`` closed (or moves to another client): no longer counted. Idempotent."""
        if transport not in self._owner:
            return
        client = self._owner.pop(transport)
        if client is not None:
            self.counts[client] -= 1
            if self.counts[client] <= 0:
                del self.counts[client]

    def open_connections(self) -> int:
        return len(self._owner)


def protocols(sockets: Sockets, head_timeout: float
              ) -> tuple[type[H11Protocol], type[WebSocketsSansIOProtocol]]:
    """uvicorn's HTTP (h11) and WebSocket protocols, bounded by ``sockets`` and with a
    deadline of ``head_timeout`` seconds for each request's head (pass them as
    ``uvicorn.Config(http=..., ws=...)``)."""
    if not (head_timeout > 0):
        raise ValueError(f"head_timeout must be a positive number, not {head_timeout!r}")

    class GuardedWebSocket(WebSocketsSansIOProtocol):
        def connection_lost(self, exc: Exception | None) -> None:
            sockets.release(self.transport)
            super().connection_lost(exc)

    class GuardedHTTP(H11Protocol):
        head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            peer = self.client[0] if self.client is not None else "unknown"
            if not sockets.open(transport, None if sockets.is_proxy(peer) else peer):
                self._refuse()
                return
            self._arm_head_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_head_timer()
            sockets.release(self.transport)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE:  # a new request's first bytes, or more
                self._arm_head_timer()
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE or self.transport.is_closing():
                self._disarm_head_timer()

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            self._disarm_head_timer()  # the WebSocket's hello has a deadline of its own
            super().handle_websocket_upgrade(event)

        def handle_events(self) -> None:
            # a trusted proxy's request is counted for the client it is from, before it runs
            if (self.conn.their_state is h11.IDLE and self.client is not None
                    and sockets.is_proxy(self.client[0])):
                self._count_forwarded()
                if self.transport.is_closing():
                    return
            super().handle_events()

        def _count_forwarded(self) -> None:
            """Peek at the head h11 has buffered: once it is whole, count the connection
            as its forwarded client's (a 429 and closed past that client's share)."""
            buffered = bytes(self.conn.trailing_data[0])
            end = buffered.find(b"\r\n\r\n")
            if end < 0:
                return
            headers = [(name.strip().lower(), value.strip()) for name, _, value in
                       (line.partition(b":") for line in buffered[:end].split(b"\r\n")[1:])]
            assert self.client is not None
            if not sockets.open(self.transport, sockets.client_of(self.client[0], headers)):
                self._refuse()

        def _refuse(self) -> None:
            sockets.refused += 1
            self._disarm_head_timer()
            self.transport.write(_TOO_MANY_ANSWER)
            self.transport.close()

        def _arm_head_timer(self) -> None:
            if self.head_timer is None and not self.transport.is_closing():
                self.head_timer = self.loop.call_later(head_timeout, self._head_too_slow)

        def _disarm_head_timer(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None

        def _head_too_slow(self) -> None:
            self.head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                if self.conn.trailing_data[0] and self.conn.our_state is h11.IDLE:
                    self.transport.write(refusal(
                        408, b"Request Timeout",
                        f"the request's head did not arrive within {head_timeout:g} s"))
                self.transport.close()

    return GuardedHTTP, GuardedWebSocket


class Server(uvicorn.Server):
    """uvicorn's server; give its config ``backlog=ACCEPT_BATCH``: asyncio both listens
    with the config's backlog and accepts that many connections per wake-up, so once it
    listens, the queue is made :data:`LISTEN_QUEUE` long again."""

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        for server in getattr(self, "servers", []):
            for listening in server.sockets:
                # a duplicate of the listening socket, which shares its queue
                with socket.socket(listening.family, listening.type,
                                   fileno=socket.dup(listening.fileno())) as same:
                    same.listen(LISTEN_QUEUE)


class AcceptFailures(logging.Filter):
    """On asyncio's logger: one line per ``interval`` seconds for ``accept()`` failing for
    want of file descriptors (or memory), saying how many failed since, without the
    traceback asyncio attaches to each (thousands a second while it lasts)."""

    MESSAGE: Final = "socket.accept() out of system resource"

    def __init__(self, interval: float = 10.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.interval = interval
        self.clock = clock
        self._quiet_until = -float("inf")
        self._dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(self.MESSAGE):
            return True
        now = self.clock()
        if now < self._quiet_until:
            self._dropped += 1
            return False
        exc: Any = record.exc_info[1] if record.exc_info else None
        why = getattr(exc, "strerror", None) or "out of resources"
        record.msg = ("cannot accept new connections: %s (%d more failures since the last "
                      "such line; new connections wait until others close; said at most "
                      "once every %g s)")
        record.args = (why, self._dropped, self.interval)
        record.exc_info = None
        record.exc_text = None
        self._dropped = 0
        self._quiet_until = now + self.interval
        return True


def raise_open_files() -> None:
    """The soft limit of open files up to the hard one: every connection is a file, and
    1,024 (the usual soft limit) is a few hundred visitors."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        with contextlib.suppress(ValueError, OSError):  # an unlimited hard limit may not fit
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
