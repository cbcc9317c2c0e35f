"""Nothing lost: the real server (``python -m dominolab serve``) is killed in the middle of
games and started again on the same database; every game continues where it was. Also the
database's versioned migrations and the command's clear errors."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dominolab.web.edge.process import ServerProcess, free_port
from dominolab.web.storage.store import MIGRATIONS, SCHEMA_VERSION, Store, StoreError
from loops import run_async


def my_turn(srv: ServerProcess, gid: str, token: str, timeout: float = 30) -> dict[str, Any]:
    """The state once it is this seat's turn or the match is over: read from the game's
    WebSocket, which is sent every change (the computer may be thinking)."""
    from websockets.asyncio.client import connect

    async def wait() -> dict[str, Any]:
        url = srv.base.replace("http", "ws") + f"/ws/games/{gid}"
        async with asyncio.timeout(timeout), connect(url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token}))
            while True:
                message = json.loads(await ws.recv())
                st: dict[str, Any] = message["state"]
                if st["to_move"] in (st["seat"], None) or st["match_result"]:
                    return st

    run_async(wait())
    # as an HTTP client sees it (the socket that waited has gone again)
    st: dict[str, Any] = srv.request("GET", f"/api/games/{gid}", token=token)
    return st


def claim(srv: ServerProcess, made: dict[str, Any]) -> str:
    """Seat 1's token of a friend game, from its invitation."""
    invite = made["invite"].split("#i=", 1)[1]
    joined: dict[str, Any] = srv.request("POST", f"/api/games/{made['id']}/join",
                                         {"invite": invite})
    return str(joined["token"])


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path / "games.sqlite3") as srv:
        yield srv


def play_first(srv: ServerProcess, gid: str, token: str) -> dict[str, Any]:
    st = my_turn(srv, gid, token)
    after: dict[str, Any] = srv.request("POST", f"/api/games/{gid}/moves",
                                     {"move": st["legal"][0]["move"], "version": st["version"]},
                                     token)
    return after


def test_killed_server_continues_every_game(server: ServerProcess) -> None:
    computer = server.request("POST", "/api/games", {"game": "luzak", "opponent": "easy",
                                                  "first": "me"})
    friend = server.request("POST", "/api/games", {"game": "widelec", "opponent": "friend"})
    cid, ctok = computer["id"], computer["token"]
    fid, ftoks = friend["id"], (friend["token"], claim(server, friend))
    for _ in range(3):
        play_first(server, cid, ctok)
    for _ in range(5):
        seat = server.request("GET", f"/api/games/{fid}", token=ftoks[0])["to_move"]
        play_first(server, fid, ftoks[seat])
    before_c = my_turn(server, cid, ctok)
    before_f = [server.request("GET", f"/api/games/{fid}", token=t) for t in ftoks]
    assert before_c["version"] >= 6 and before_f[0]["version"] == 5

    server.kill()
    with pytest.raises(OSError):
        server.request("GET", "/api/meta")
    server.start()

    after_c = server.request("GET", f"/api/games/{cid}", token=ctok)
    after_f = [server.request("GET", f"/api/games/{fid}", token=t) for t in ftoks]
    assert after_c == before_c
    assert after_f == before_f
    # and play goes on, the computer included
    moved = play_first(server, cid, ctok)
    assert moved["version"] == before_c["version"] + 1
    assert my_turn(server, cid, ctok)["version"] >= moved["version"] + 1
    seat = after_f[0]["to_move"]
    assert play_first(server, fid, ftoks[seat])["version"] == 6


def test_websocket_rejoins_after_a_restart(server: ServerProcess) -> None:
    from websockets.asyncio.client import connect

    made = server.request("POST", "/api/games", {"game": "luzak-line", "opponent": "friend",
                                              "first": "me"})
    gid, tokens = made["id"], (made["token"], claim(server, made))
    play_first(server, gid, tokens[0])

    async def hello(seat: int) -> dict[str, Any]:
        url = server.base.replace("http", "ws") + f"/ws/games/{gid}"
        async with connect(url) as ws:
            await ws.send(json.dumps({"type": "hello", "token": tokens[seat]}))
            message: dict[str, Any] = json.loads(await ws.recv())
            return message

    def run(seat: int) -> dict[str, Any]:
        state: dict[str, Any] = run_async(hello(seat))["state"]
        return state

    first = run(1)
    server.kill()
    server.start()
    again = run(1)
    assert again["seat"] == 1 and again["version"] == first["version"] == 1
    assert again["hand"] == first["hand"] and again["table"] == first["table"]


def test_serve_sends_states_uncompressed(server: ServerProcess) -> None:
    """A client offering per-message deflate (as browsers and ``websockets`` do) is
    answered without it: compressing every state for every socket cost the server more
    processor time than anything else in a move."""
    from websockets.asyncio.client import connect

    made = server.request("POST", "/api/games", {"game": "luzak", "opponent": "friend",
                                                 "first": "me"})

    async def hello() -> tuple[str | None, dict[str, Any]]:
        url = server.base.replace("http", "ws") + f"/ws/games/{made['id']}"
        async with asyncio.timeout(30), connect(url, compression="deflate") as ws:
            await ws.send(json.dumps({"type": "hello", "token": made["token"]}))
            message: dict[str, Any] = json.loads(await ws.recv())
            assert ws.response is not None
            return ws.response.headers.get("Sec-WebSocket-Extensions"), message

    extensions, message = run_async(hello())
    assert extensions is None
    assert message["type"] == "state" and message["state"]["seat"] == 0


def test_serve_ws_deflate_compresses_states_for_clients_that_offer_it(tmp_path: Path
                                                                      ) -> None:
    """``serve --ws-deflate``: per-message deflate is agreed with a client that offers it,
    and the states it is sent read as the same states; a client that does not offer it
    is sent them plain."""
    from websockets.asyncio.client import connect

    with ServerProcess(tmp_path / "games.sqlite3", extra=("--ws-deflate",)) as srv:
        made = srv.request("POST", "/api/games", {"game": "luzak", "opponent": "friend",
                                                  "first": "me"})
        plain = srv.request("GET", f"/api/games/{made['id']}", token=made["token"])

        async def hello(compression: str | None) -> tuple[str | None, dict[str, Any]]:
            url = srv.base.replace("http", "ws") + f"/ws/games/{made['id']}"
            async with asyncio.timeout(30), connect(url, compression=compression) as ws:
                await ws.send(json.dumps({"type": "hello", "token": made["token"]}))
                message: dict[str, Any] = json.loads(await ws.recv())
                assert ws.response is not None
                return ws.response.headers.get("Sec-WebSocket-Extensions"), message

        extensions, message = run_async(hello("deflate"))
        assert extensions is not None and "permessage-deflate" in extensions
        assert message["type"] == "state" and message["state"]["hand"] == plain["hand"]
        extensions, message = run_async(hello(None))
        assert extensions is None and message["state"]["hand"] == plain["hand"]


def test_wrong_token_after_restart_is_still_refused(server: ServerProcess) -> None:
    made = server.request("POST", "/api/games", {"game": "luzak", "opponent": "friend"})
    server.kill()
    server.start()
    with pytest.raises(urllib.error.HTTPError) as info:
        server.request("GET", f"/api/games/{made['id']}", token="guess")
    assert info.value.code == 403


# -- the database --------------------------------------------------------------------------

def test_migrations_bring_an_old_database_up_to_date(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    sqlite3.connect(path).close()  # an empty database: schema version 0
    store = Store(path)
    assert store.version == SCHEMA_VERSION == len(MIGRATIONS)
    store.close()
    Store(path).close()  # opening again applies nothing and keeps the version
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_newer_database_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer than this dominolab knows"):
        Store(path)


def test_serve_explains_a_bad_database_and_a_busy_port(tmp_path: Path) -> None:
    bad = tmp_path / "notes.sqlite3"
    bad.write_text("these are not games\n" * 100)
    run = subprocess.run([sys.executable, "-m", "dominolab", "serve", "--db", str(bad),
                          "--port", str(free_port())], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "not a usable SQLite database" in run.stderr
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "dominolab", "serve", "--db",
                              str(tmp_path / "ok.sqlite3"), "--port", str(port)],
                             capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "already in use" in run.stderr


def serve_once(db: Path, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dominolab", "serve", "--db", str(db),
                           "--port", str(free_port())], capture_output=True, text=True,
                          timeout=60, **kwargs)


def refused_in_one_line(run: subprocess.CompletedProcess[str], words: str) -> None:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], run.stderr


def test_serve_refuses_a_damaged_database(tmp_path: Path) -> None:
    """A database whose pages were overwritten fails PRAGMA quick_check: refused at start,
    not answered with 500 to every request later."""
    db = tmp_path / "games.sqlite3"
    Store(db).close()
    raw = sqlite3.connect(db)
    raw.execute("CREATE TABLE filler (x TEXT)")
    raw.executemany("INSERT INTO filler VALUES (?)", [("x" * 200,) for _ in range(2000)])
    raw.execute("CREATE INDEX filler_x ON filler(x)")
    raw.commit()
    raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw.close()
    data = bytearray(db.read_bytes())
    page = 4096
    for offset in range(6 * page, len(data) - page, 7 * page):
        data[offset + 100: offset + 400] = b"\xff" * 300
    db.write_bytes(bytes(data))
    run = serve_once(db)
    refused_in_one_line(run, str(db))
    assert "damaged" in run.stderr or "malformed" in run.stderr or "not a usable" in run.stderr


def test_serve_refuses_a_database_it_cannot_write(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    Store(db).close()
    if os.geteuid() == 0:
        # root writes any file whatever its mode, but not an immutable one
        subprocess.run(["chattr", "+i", str(db)], check=True)
    else:
        db.chmod(0o444)
    try:
        run = serve_once(db)
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(db)], check=True)
    refused_in_one_line(run, "cannot write")


@pytest.mark.parametrize(("args", "words"), [
    (["--port", "\u0668\u0660\u0660\u0660"], "plain digits"),
    (["--port", "70000"], "not from 1 to 65535"),
    (["--workers", "0"], "not from 1 to 64"),
    (["--games-per-minute", "nan"], "plain digits"),
    (["--abandoned-after", "0"], "must be above 0"),
    (["--computer-delay", "1e999"], "plain digits"),
    (["--game-seeds", "-1"], "not from 0"),
])
def test_serve_refuses_bad_numbers_in_one_line(tmp_path: Path, args: list[str],
                                               words: str) -> None:
    run = subprocess.run([sys.executable, "-m", "dominolab", "serve", "--db",
                          str(tmp_path / "games.sqlite3"), *args],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"argument {args[0]}" in run.stderr and words in run.stderr, run.stderr
    assert not (tmp_path / "games.sqlite3").exists()
