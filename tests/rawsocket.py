"""A WebSocket client over a bare TCP socket, for the tests of a connection that is lost
rather than closed: :meth:`RawSocket.abort` ends it with no close frame and no FIN (a reset,
``SO_LINGER`` 0), as a phone losing its signal does, so the server learns of it only when it
next reads or writes. Text frames only, every wait bounded by a deadline."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import time
import urllib.parse
import urllib.request
from typing import Any


class RawSocket:
    """One WebSocket to ``url`` (``ws://host:port/path``), its handshake done."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        parts = urllib.parse.urlsplit(url)
        assert parts.hostname is not None and parts.port is not None, url
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
                           ).encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv(time.monotonic() + timeout)
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101"), head

    def _recv(self, deadline: float) -> bytes:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the server sent nothing in time")
        self.sock.settimeout(left)
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the server closed the connection")
        return data

    def _take(self, n: int, deadline: float) -> bytes:
        while len(self.buffer) < n:
            self.buffer += self._recv(deadline)
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def send(self, message: Any) -> None:
        """Send ``message`` as JSON in one masked text frame."""
        payload = json.dumps(message).encode()
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                bytes([0x80 | 126]) + struct.pack("!H", n))
        self.sock.sendall(head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))

    def receive(self, timeout: float = 10.0) -> dict[str, Any]:
        """The next text message, parsed (ConnectionError at a close frame)."""
        deadline = time.monotonic() + timeout
        first, second = self._take(2, deadline)
        n = second & 0x7F
        if n == 126:
            n = struct.unpack("!H", self._take(2, deadline))[0]
        elif n == 127:
            n = struct.unpack("!Q", self._take(8, deadline))[0]
        payload = self._take(n, deadline)
        if first & 0x0F == 0x8:
            raise ConnectionError(f"the server closed the socket: {payload[2:]!r}")
        assert first & 0x0F == 0x1, first
        message: dict[str, Any] = json.loads(payload)
        return message

    def until(self, kind: str, limit: int = 30, timeout: float = 10.0) -> dict[str, Any]:
        """The first message of type ``kind`` among the next ``limit``."""
        deadline = time.monotonic() + timeout
        for _ in range(limit):
            message = self.receive(max(0.01, deadline - time.monotonic()))
            if message["type"] == kind:
                return message
        raise AssertionError(f"no {kind!r} message in {limit}")

    def kinds_to_pong(self, limit: int = 10) -> list[str]:
        """Send a ping, then read up to its pong (the server answers a ping after all it
        sent before): the type of every message read, ``"pong"`` last. The test fails if
        no pong comes among the next ``limit`` messages."""
        self.send({"type": "ping"})
        kinds = [self.receive()["type"]]
        while kinds[-1] != "pong" and len(kinds) < limit:
            kinds.append(self.receive()["type"])
        assert kinds[-1] == "pong", kinds
        return kinds

    def abort(self) -> None:
        """End the connection with a reset: no close frame, no FIN."""
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.sock.close()

    def close(self) -> None:
        self.sock.close()


def lobby_hello(base: str, key: str) -> tuple[RawSocket, dict[str, Any]]:
    """A lobby socket of the server at ``base`` (``http://...``) that said hello with the
    player's ``key``: it, and its welcome."""
    ws = RawSocket(base.replace("http", "ws", 1) + "/ws/lobby")
    ws.send({"type": "hello", "player": key})
    return ws, ws.until("welcome")


def call(base: str, method: str, path: str, body: Any = None, key: str | None = None,
         token: str | None = None, timeout: float = 30) -> tuple[int, Any]:
    """One JSON request with the player's key and a seat's token, as given: the status and
    the answer (errors included)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if key is not None:
        request.add_header("X-Player-Key", key)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())
