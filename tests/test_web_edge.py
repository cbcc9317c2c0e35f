"""The server's edge holds against strangers (docs/web.md, "Faults and abuse"): silent and
half-sent connections are closed, one address's connections are bounded so another's are
still served, a failed ``accept()`` is one line a while rather than a traceback each, and
``X-Forwarded-For`` is believed only from the proxies ``--forwarded-allow-ips`` names."""

from __future__ import annotations

import http.client
import json
import logging
import resource
import selectors
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.cli.main import main
from dominolab.players import Budget
from dominolab.web.edge.guard import AcceptFailures, Sockets
from dominolab.web.edge.process import ServerProcess, free_port
from dominolab.web.limits import Limits
from web_support import refused, seeded_app

#: every test here bounds its own waits; this bounds the test as a whole
pytestmark = pytest.mark.timeout(120)

#: the address of the visitor who must still be served (the attacker is 127.0.0.1)
VISITOR = "127.0.0.2"
#: the usual limit of open files, which the server cannot raise here
ULIMIT = 1024
#: the connections the attacker holds: more than the server could have files for
FLOOD = 1100


def enough_files(n: int) -> None:
    """This process may hold ``n`` more sockets (the flood's, on the client side)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = n + 200
    if soft < want:
        if hard != resource.RLIM_INFINITY and hard < want:
            pytest.fail(f"this test needs {want} open files; the hard limit is {hard}")
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


@contextmanager
def flood(port: int, count: int, source: str = "127.0.0.1",
          half_sent: int = 0) -> Iterator[list[socket.socket]]:
    """``count`` connections from ``source`` that send nothing (the first ``half_sent`` of
    them half a request head), closed on leaving."""
    with ExitStack() as stack:
        socks = []
        for i in range(count):
            s = stack.enter_context(socket.socket())
            s.bind((source, 0))
            s.settimeout(5)
            s.connect(("127.0.0.1", port))
            if i < half_sent:
                s.sendall(b"GET /api/meta HTTP/1.1\r\nHost: x\r\n")
            socks.append(s)
        yield socks


def closed_by_the_server(socks: list[socket.socket], deadline: float) -> list[bytes]:
    """Wait until the server has closed every one of ``socks`` (end of file, or reset) and
    return what each was sent; fails at ``deadline`` with how many are still open."""
    got = {s: b"" for s in socks}
    with selectors.DefaultSelector() as sel:
        for s in socks:
            s.setblocking(False)
            sel.register(s, selectors.EVENT_READ)
        while sel.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"{len(sel.get_map())} of {len(socks)} connections still open")
            for key, _ in sel.select(min(left, 0.5)):
                ready = key.fileobj
                assert isinstance(ready, socket.socket)
                try:
                    data = ready.recv(65536)
                except BlockingIOError:
                    continue
                except ConnectionResetError:
                    data = b""
                got[ready] += data
                if not data:
                    sel.unregister(ready)
    return [got[s] for s in socks]


def timed_get(port: int, path: str, source: str, timeout: float,
              headers: dict[str, str] | None = None) -> tuple[int, float, Any]:
    """GET ``path`` from ``source``: (status, seconds taken, decoded JSON)."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                      source_address=(source, 0))
    try:
        conn.request("GET", path, headers=headers or {})
        answer = conn.getresponse()
        body = answer.read()
        return answer.status, time.monotonic() - started, json.loads(body)
    finally:
        conn.close()


def log_of(server: ServerProcess) -> str:
    return server.log.read_text(errors="replace")


def test_a_flood_of_silent_connections_locks_no_other_visitor_out(tmp_path: Path) -> None:
    """1,100 silent (some half-sent) connections from one address against a server that
    may open 1,024 files: another address is served within 1 s, the flood's connections
    past its share are refused at once and the rest closed at the head's deadline, and
    the log says nothing."""
    enough_files(FLOOD)
    server = ServerProcess(tmp_path / "games.sqlite3", open_files=ULIMIT,
                           extra=("--head-timeout", "2", "--keep-alive-timeout", "1"))
    with server:
        started = time.monotonic()
        with flood(server.port, FLOOD, half_sent=30) as socks:
            status, took, meta = timed_get(server.port, "/api/meta", VISITOR, timeout=5)
            assert status == 200 and "games" in meta
            assert took < 1.0, f"the visitor waited {took:.2f} s"
            sent = closed_by_the_server(socks, time.monotonic() + 2 + 10)
            # past its share (64) each was answered 429 and closed before it was read
            refused = [s for s in sent if s.startswith(b"HTTP/1.1 429 ")]
            assert len(refused) >= FLOOD - 64
            assert all(b"too many open connections" in s for s in refused)
            # the half-sent heads that were let in were told why they were closed
            assert any(s.startswith(b"HTTP/1.1 408 ") for s in sent[:30])
            # the rest were closed at the deadline (2 s), not held for ever
            assert time.monotonic() - started < 2 + 8
        # an idle keep-alive connection is closed after --keep-alive-timeout
        conn = socket.create_connection(("127.0.0.1", server.port), timeout=5,
                                        source_address=(VISITOR, 0))
        with conn:
            conn.sendall(b"GET /api/meta HTTP/1.1\r\nHost: x\r\n\r\n")
            [answer] = closed_by_the_server([conn], time.monotonic() + 1 + 5)
            assert answer.startswith(b"HTTP/1.1 200 ")
        text = log_of(server)
    assert "Traceback" not in text and len(text) < 2000, text[-3000:]


def test_a_failing_accept_is_one_line_a_while_and_the_server_recovers(
        tmp_path: Path) -> None:
    """With every file descriptor taken (a share per address above the files there are),
    asyncio's failed accept() is logged as one line, not a traceback per try; once the
    held connections reach their deadline the server serves again."""
    enough_files(400)
    server = ServerProcess(tmp_path / "games.sqlite3", open_files=256,
                           extra=("--head-timeout", "3", "--sockets-per-address", "5000"))
    with server, flood(server.port, 400) as socks:
        deadline = time.monotonic() + 20
        while "cannot accept new connections" not in log_of(server):
            assert time.monotonic() < deadline, log_of(server)[-3000:]
            time.sleep(0.05)
        closed_by_the_server(socks[:100], time.monotonic() + 3 + 10)
        deadline = time.monotonic() + 15
        while True:
            try:
                status, _took, _meta = timed_get(server.port, "/api/meta", VISITOR, 2)
                break
            except OSError:
                assert time.monotonic() < deadline, log_of(server)[-3000:]
        assert status == 200
        text = log_of(server)
    assert "Traceback" not in text, text[-3000:]
    assert text.count("cannot accept new connections") <= 2
    assert len(text) < 3000, text[-3000:]


def test_accept_failures_are_said_once_per_interval() -> None:
    now = [0.0]
    quiet = AcceptFailures(10.0, clock=lambda: now[0])
    logger = logging.getLogger("test_web_edge.accept")

    def record(message: str) -> logging.LogRecord:
        exc = OSError(24, "Too many open files")
        return logger.makeRecord(logger.name, logging.ERROR, __file__, 1, message, (),
                                 (OSError, exc, None))

    failure = "socket.accept() out of system resource\nsocket: <socket>"
    first = record(failure)
    assert quiet.filter(first)
    assert first.exc_info is None and "\n" not in first.getMessage()
    assert "Too many open files" in first.getMessage()
    assert not any(quiet.filter(record(failure)) for _ in range(1000))
    now[0] = 10.0
    later = record(failure)
    assert quiet.filter(later) and "1000 more failures" in later.getMessage()
    other = record("Task exception was never retrieved")
    assert quiet.filter(other) and other.exc_info is not None  # the rest is untouched


def test_sockets_are_counted_per_client_and_released_once() -> None:
    sockets = Sockets(2, trusted="127.0.0.1")
    a, b, c, d = object(), object(), object(), object()
    assert sockets.open(a, "x") and sockets.open(b, "x") and not sockets.open(c, "x")
    assert sockets.open(c, "y")
    sockets.release(a)
    sockets.release(a)
    assert sockets.counts == {"x": 1, "y": 1}
    assert sockets.open(d, None) and sockets.open_connections() == 3
    # a proxy's connection moves to each request's client
    assert sockets.open(d, "y") and sockets.open(d, "y")
    assert sockets.counts["y"] == 2
    forwarded = [(b"x-forwarded-for", b"127.0.9.1, 127.0.0.1")]
    assert sockets.client_of("127.0.0.1", forwarded) == "127.0.9.1"
    assert sockets.client_of("127.0.0.2", forwarded) == "127.0.0.2"  # not a proxy
    assert Sockets(2).client_of("127.0.0.1", forwarded) == "127.0.0.1"  # none trusted
    with pytest.raises(ValueError, match="per_client"):
        Sockets(0)


def create_from(port: int, source: str, forwarded: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10,
                                      source_address=(source, 0))
    try:
        conn.request("POST", "/api/games", json.dumps({"opponent": "friend"}),
                     {"Content-Type": "application/json", "X-Forwarded-For": forwarded})
        answer = conn.getresponse()
        answer.read()
        return answer.status
    finally:
        conn.close()


def test_forwarded_for_is_not_believed_by_default(tmp_path: Path) -> None:
    """Eleven creations from one address each naming another in X-Forwarded-For: the
    eleventh is past the one address's burst (10)."""
    with ServerProcess(tmp_path / "games.sqlite3") as server:
        statuses = [create_from(server.port, "127.0.0.1", f"127.0.9.{i}") for i in range(11)]
    assert statuses == [201] * 10 + [429]


def test_behind_a_trusted_proxy_every_limit_counts_the_real_client(tmp_path: Path) -> None:
    """``--forwarded-allow-ips 127.0.0.1``: the proxy's requests count for the clients
    it names, for the rates and the sockets alike; anyone else's header is ignored."""
    server = ServerProcess(tmp_path / "games.sqlite3",
                           extra=("--forwarded-allow-ips", "127.0.0.1",
                                  "--sockets-per-address", "2"))
    with server:
        # rates: eleven clients behind the proxy, then one client eleven times
        assert [create_from(server.port, "127.0.0.1", f"127.0.9.{i}")
                for i in range(11)] == [201] * 11
        assert [create_from(server.port, "127.0.0.1", "127.0.9.99")
                for _ in range(11)][-1] == 429
        # a stranger's header is not believed
        assert [create_from(server.port, VISITOR, f"127.0.8.{i}")
                for i in range(11)][-1] == 429
        # sockets: two kept-alive connections of one forwarded client, then a third
        header = {"X-Forwarded-For": "127.0.9.50"}
        kept = []
        for _ in range(2):
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
            conn.request("GET", "/api/meta", headers=header)
            response = conn.getresponse()
            response.read()
            assert response.status == 200
            kept.append(conn)
        try:
            status, _took, answer = timed_get(server.port, "/api/meta", "127.0.0.1", 5,
                                              header)
            assert status == 429 and "too many open connections" in answer["error"]
            # another client behind the same proxy is served
            assert timed_get(server.port, "/api/meta", "127.0.0.1", 5,
                             {"X-Forwarded-For": "127.0.9.51"})[0] == 200
        finally:
            for conn in kept:
                conn.close()
        text = log_of(server)
    assert "Traceback" not in text, text[-3000:]


def test_serve_refuses_a_bad_proxy_list(capsys: pytest.CaptureFixture[str]) -> None:
    port = str(free_port())
    assert main(["serve", "--port", port, "--forwarded-allow-ips", "proxy.example"]) == 2
    err = capsys.readouterr().err
    assert "--forwarded-allow-ips takes addresses" in err and "'proxy.example'" in err
    with pytest.raises(SystemExit) as info:
        main(["serve", "--port", port, "--head-timeout", "0"])
    assert info.value.code == 2
    assert "argument --head-timeout" in capsys.readouterr().err


def test_a_client_s_seat_sockets_are_bounded(tmp_path: Path) -> None:
    """Past ``seat_sockets_per_client`` a seat's socket is closed with 4429; spectators do
    not count, and a closed seat's socket frees its place."""
    app = seeded_app(tmp_path / "games.sqlite3", seed=3, hint_budget=Budget(worlds=30),
                     workers=1, limits=Limits(seat_sockets_per_client=2))
    with TestClient(app) as client:
        made = client.post("/api/games", json={"opponent": "friend", "first": "me"}).json()
        gid, hello = made["id"], json.dumps({"type": "hello", "token": made["token"]})
        with client.websocket_connect(f"/ws/games/{gid}") as a, \
                client.websocket_connect(f"/ws/games/{gid}") as b:
            for ws in (a, b):
                ws.send_text(hello)
                assert ws.receive_json()["type"] == "state"
            with client.websocket_connect(f"/ws/games/{gid}") as c:
                c.send_text(hello)
                error, closed = refused(c)
                assert closed == error["status"] == 4429
                assert "seats' connections" in error["error"]
            with client.websocket_connect(f"/ws/games/{gid}") as watcher:
                watcher.send_text(json.dumps({"type": "hello", "watch": True}))
                assert watcher.receive_json()["type"] == "state"
        with client.websocket_connect(f"/ws/games/{gid}") as again:
            again.send_text(hello)
            assert again.receive_json()["type"] == "state"
        assert dict(app.state.seat_sockets) == {}
