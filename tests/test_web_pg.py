"""The games database on PostgreSQL, and several servers on one database (docs/web.md,
"Two backends, several processes").

Each test gets a fresh database on a throwaway PostgreSQL server (tests/pgserver.py). The
store's own methods run unchanged on both backends; the servers hear each other over
LISTEN/NOTIFY and catch up from the store; a server killed mid-match leaves its players to
finish on another; a lost connection to PostgreSQL answers 503, never 500, and heals.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.core import Match, get_game
from dominolab.web.edge.process import ServerProcess, free_port
from dominolab.web.games.live import Connection, seat_of, seat_token
from dominolab.web.games.service import GameService
from dominolab.web.storage.pg import PgEvents, PgStore, redact, translate
from dominolab.web.storage.store import (
    DATABASE_ERRORS,
    MIGRATIONS,
    SCHEMA_VERSION,
    AsyncStore,
    GameRow,
    MoveConflict,
    Store,
    StoreError,
)
from loops import run_async
from pgserver import PostgresServer
from rawsocket import call, lobby_hello
from web_support import running, seeded_app, service_of

Json = dict[str, Any]

#: the socket reads here have no timeout of their own: this bounds each test
pytestmark = pytest.mark.timeout(180)

#: a short friend match: one hand of Luzak-line at most
QUICK: Json = {"target": 1, "even_hands": False}


def row_of(game_id: str, **changes: Any) -> GameRow:
    row = GameRow(id=game_id, game="luzak", options={"target": 1}, seed=2**53 - 5,
                  first_opener=0, mode="friend", opponent=None, token_hashes=("a", "b"),
                  rules_version=1, created=1_790_000_000.123456, finished=False,
                  invite="inv")
    return replace(row, **changes)


# -- the store on both backends --------------------------------------------------------------

def test_the_store_s_methods_mean_the_same_on_both_backends(any_db: str) -> None:
    store = Store(any_db)
    try:
        assert store.version == SCHEMA_VERSION
        store.create_game(row_of("game0001"))
        loaded = store.load_game("game0001")
        # 53-bit seeds and microsecond times survive (SQLite's INTEGER and REAL are 64-bit)
        assert loaded == (row_of("game0001"), [])
        store.add_moves("game0001", 0, [(0, "54@1e"), (1, "draw")], False)
        with pytest.raises(MoveConflict):
            store.add_moves("game0001", 1, [(0, "33@2e")], False)
        store.add_moves("game0001", 2, [(0, "33@2e")], True)
        assert store.game_since("game0001", 1) == (
            replace(row_of("game0001"), finished=True), [(1, "draw"), (0, "33@2e")])
        assert store.game_since("nosuchgame", 0) is None
        assert store.claim_invite("game0001", "inv", "tok1") is True
        assert store.claim_invite("game0001", "inv", "tok2") is False
        made = store.create_rematch("game0001", 1, row_of("game0002", invite=None))
        assert made == ("game0002", 1)
        assert store.create_rematch("game0001", 0, row_of("game0003")) == ("game0002", 1)
        assert store.count_games() == 2
        assert store.expire(unfinished_before=0, finished_before=2e9) == ["game0001"]
        assert store.count_games() == 1
        with pytest.raises(sqlite3.IntegrityError):  # the same error class on both
            store.create_game(row_of("game0002"))
        store.create_game(row_of("game0004"))  # and the connection carries on
    finally:
        store.close()


def test_two_connections_storing_one_ply_get_one_move_and_one_conflict(any_db: str) -> None:
    """As two server processes would: the write lock makes the loser's count see the
    winner's move, so it gets MoveConflict (not a duplicate key error, not two moves)."""
    stores = [Store(any_db), Store(any_db)]
    try:
        stores[0].create_game(row_of("game0001"))
        start = threading.Barrier(2)

        def move(i: int) -> str:
            start.wait(timeout=30)
            try:
                stores[i].add_moves("game0001", 0, [(0, f"move{i}")], False)
            except MoveConflict:
                return "conflict"
            return "stored"

        for _ in range(5):
            with ThreadPoolExecutor(2) as pool:
                got = sorted(pool.map(move, range(2)))
            assert got == ["conflict", "stored"]
            stores[0].expire(unfinished_before=2e9, finished_before=2e9)
            stores[0].create_game(row_of("game0001"))
    finally:
        for store in stores:
            store.close()


def test_moves_of_several_games_at_once_are_stored_together_and_refused_alone(
        any_db: str) -> None:
    """Moves of several games (and two of one game) awaited at once go to the store
    together; a ply stored already, a ply past the stored ones and a game that is gone are
    refused alone, and every other move is stored."""
    store = Store(any_db)
    for gid in ("game0001", "game0002", "game0003"):
        store.create_game(row_of(gid))
    store.add_moves("game0002", 0, [(0, "stored before")], False)
    together = AsyncStore(store)

    async def moves() -> tuple[BaseException | None, ...]:
        return await asyncio.gather(
            together.add_moves("game0001", 0, [(0, "54@1e")], False),
            together.add_moves("game0002", 0, [(0, "54@1e")], False),
            together.add_moves("game0001", 1, [(1, "draw")], False),
            together.add_moves("game0003", 5, [(0, "54@1e")], False),
            together.add_moves("gone0001", 0, [(0, "54@1e")], False),
            together.add_moves("game0003", 0, [(0, "33@2e")], True),
            return_exceptions=True)

    try:
        outcomes = run_async(moves())
        assert [type(o).__name__ for o in outcomes] == [
            "NoneType", "MoveConflict", "NoneType", "MoveConflict", "MoveConflict",
            "NoneType"]
        assert "fewer than 5 moves" in str(outcomes[3])
        assert "gone" in str(outcomes[4])
        assert store.load_game("game0001") == (row_of("game0001"), [(0, "54@1e"), (1, "draw")])
        assert store.load_game("game0002") == (row_of("game0002"), [(0, "stored before")])
        assert store.load_game("game0003") == (row_of("game0003", finished=True),
                                               [(0, "33@2e")])
    finally:
        together.close()


def test_a_whole_database_writer_excludes_moves_in_any_game(pg_url: str) -> None:
    """Moves in different games are stored at once on PostgreSQL (each under its game's
    lock), but a BEGIN IMMEDIATE transaction, as every other writer of the store opens,
    still holds them all off, as SQLite's one write lock does."""
    holder, other = Store(pg_url), Store(pg_url, busy_timeout=0.3)
    try:
        for gid in ("game0001", "game0002"):
            holder.create_game(row_of(gid))
        holder._db.execute("BEGIN IMMEDIATE")
        holder._db.execute("SELECT COUNT(*) FROM games").fetchone()
        with pytest.raises(sqlite3.OperationalError, match="lock"):
            other.add_moves("game0002", 0, [(0, "54@1e")], False)
        holder._db.execute("ROLLBACK")
        other.add_moves("game0002", 0, [(0, "54@1e")], False)
        # and a game's own lock does not hold up another game's moves
        other._db.execute("BEGIN")
        other._db.execute("SELECT pg_advisory_xact_lock_shared(?), "
                          "pg_advisory_xact_lock(?, hashtext(?))",
                          (0x646F6D696E6F, 0x646F6D69, "game0002")).fetchone()
        holder.add_moves("game0001", 0, [(0, "54@1e")], False)
        other._db.execute("ROLLBACK")
    finally:
        holder.close()
        other.close()


def test_placeholders_comments_and_types_are_translated() -> None:
    assert translate("SELECT a FROM t WHERE b = ? AND c LIKE 'x?%' -- what's this?\n"
                     "AND d = ?") == \
        "SELECT a FROM t WHERE b = %s AND c LIKE 'x?%%'  \nAND d = %s"
    assert translate("SELECT '50%' || ? || 5 % 2") == "SELECT '50%%' || %s || 5 %% 2"
    assert translate("SELECT '50%', 5 % 2", with_params=False) == "SELECT '50%', 5 % 2"
    assert translate("CREATE TABLE t (a INTEGER, b REAL, c TEXT) WITHOUT ROWID") == \
        "CREATE TABLE t (a BIGINT, b DOUBLE PRECISION, c TEXT)"
    assert redact("postgresql://ann:s3cret@db.example:5432/games") == \
        "postgresql://ann:***@db.example:5432/games"
    assert redact("postgresql://ann@db/games") == "postgresql://ann@db/games"


def test_the_errors_of_both_backends_are_database_errors() -> None:
    import psycopg

    assert sqlite3.Error in DATABASE_ERRORS and psycopg.Error in DATABASE_ERRORS


# -- migrations and refusals on PostgreSQL ---------------------------------------------------

def test_migrations_from_empty_on_postgresql(pg_url: str, postgres: PostgresServer) -> None:
    stores: list[Store] = []

    def open_one(_: int) -> None:
        stores.append(Store(pg_url))

    # two servers starting at once on an empty database: one migrates, the other waits
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(open_one, range(2)))
    assert all(isinstance(s, PgStore) and s.version == SCHEMA_VERSION for s in stores)
    # SQLite's promise (a commit outlives the process, not a power cut), not more
    assert stores[0]._db.execute("SHOW synchronous_commit").fetchone() == ("off",)
    for store in stores:
        store.close()
    database = postgres.name_of(pg_url)
    types = dict(postgres.execute(
        "SELECT table_name || '.' || column_name, data_type FROM information_schema.columns "
        "WHERE table_name IN ('games', 'moves')", database))
    assert types["games.seed"] == "bigint" and types["games.updated"] == "double precision"
    assert types["moves.ply"] == "bigint" and types["games.rematch"] == "text"
    assert postgres.execute("SELECT version FROM dominolab_schema", database) == \
        [(SCHEMA_VERSION,)]
    Store(pg_url).close()  # opening again applies nothing
    assert postgres.execute("SELECT version FROM dominolab_schema", database) == \
        [(SCHEMA_VERSION,)]


def serve(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dominolab", "serve", "--db", db,
                           "--port", str(free_port()), *args], capture_output=True, text=True,
                          timeout=60)


def refused_in_one_line(run: subprocess.CompletedProcess[str], *words: str) -> str:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and all(w in lines[0] for w in words), run.stderr
    return lines[0]


def test_a_newer_schema_on_postgresql_is_refused_clearly(pg_url: str,
                                                         postgres: PostgresServer) -> None:
    Store(pg_url).close()
    database = postgres.name_of(pg_url)
    postgres.execute(f"UPDATE dominolab_schema SET version = {SCHEMA_VERSION + 1}", database)
    with pytest.raises(StoreError, match="newer than this dominolab knows"):
        Store(pg_url)
    refused_in_one_line(serve(pg_url), "newer than this dominolab knows")


def test_serve_refuses_an_unusable_postgresql_database_in_one_line(
        pg_url: str, postgres: PostgresServer, tmp_path: Path) -> None:
    # nothing listens there; the password is never shown
    line = refused_in_one_line(serve("postgresql://ann:s3cret@127.0.0.1:1/games"),
                               "cannot connect to PostgreSQL", "ann:***@127.0.0.1:1")
    assert "s3cret" not in line
    refused_in_one_line(serve("postgresql://ann@127.0.0.1:notaport/games"), '"notaport"')
    refused_in_one_line(serve("postgresql://ann@/games?sslmode=sometimes"),
                        "invalid sslmode value")
    # a role that may read but not write
    database = postgres.name_of(pg_url)
    Store(pg_url).close()
    postgres.execute("DROP ROLE IF EXISTS reader")
    postgres.execute("CREATE ROLE reader LOGIN")
    postgres.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader", database)
    reader = pg_url.replace("postgresql://postgres@", "postgresql://reader@")
    try:
        refused_in_one_line(serve(reader), "cannot write", "reader@")
    finally:
        postgres.execute("DROP OWNED BY reader", database)
        postgres.execute("DROP ROLE reader")


# -- the shared event bus ------------------------------------------------------------------------

def test_the_shared_bus_relays_in_order_heals_and_says_who_is_gone(
        pg_url: str, postgres: PostgresServer) -> None:
    async def run() -> None:
        a, b = PgEvents(pg_url), PgEvents(pg_url)
        for bus in (a, b):
            await bus.start()
        seen: dict[str, list[Json]] = {"a": [], "b": [], "peers": []}
        changed = asyncio.Event()

        def into(name: str) -> Callable[[str, Json], Awaitable[None]]:
            async def listener(topic: str, message: Json) -> None:
                seen[name].append(message)
                changed.set()
            return listener

        async def until(done: Callable[[], bool], seconds: float = 10) -> None:
            async with asyncio.timeout(seconds):
                while not done():
                    changed.clear()
                    await changed.wait()

        a.subscribe("lobby", into("a"))
        b.subscribe("lobby", into("b"))
        b.subscribe("peers", into("peers"))
        for n in range(20):
            await a.publish("lobby", {"n": n})
        await until(lambda: len(seen["b"]) == 20)
        # in order, once each: here at once, there over NOTIFY (not twice here)
        assert seen["a"] == seen["b"] == [{"n": n} for n in range(20)]
        with pytest.raises(ValueError, match="send ids and versions"):
            await a.publish("lobby", {"state": "x" * 8000})
        # b's listening connection is cut: it comes back, and says messages may be missed
        postgres.execute("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                         f"WHERE application_name = 'dominolab listen {b.instance}'")
        await until(lambda: {"missed": True} in seen["b"], 20)
        assert b.connections == 2
        await a.publish("lobby", {"n": 20})
        await until(lambda: seen["b"][-1] == {"n": 20})
        # a goes: b finds it gone within its next look (every 5 s)
        await a.close()
        await until(lambda: {"gone": [a.instance]} in seen["peers"], 20)
        await b.close()

    run_async(run(), timeout=150)


# -- two services on one database, in one process --------------------------------------------

@asynccontextmanager
async def two_services(url: str, **kwargs: Any) -> AsyncIterator[tuple[GameService, ...]]:
    """Two servers' services on one database, each with its own store and bus (as two
    processes would have), listening before they are used."""
    services = []
    for _ in range(2):
        store = Store(url)
        services.append(GameService(store, computer_delay=0, workers=1,
                                    events=store.events(), **kwargs))
    try:
        for service in services:
            await service.events.start()
        yield tuple(services)
    finally:
        for service in services:
            await service.close()


class Inbox:
    """A fake connection's received states, with a wait for one that satisfies a test."""

    def __init__(self) -> None:
        self.states: list[Json] = []
        self.closed: list[int] = []
        self.changed = asyncio.Event()

    async def send(self, text: str) -> None:
        self.states.append(json.loads(text)["state"])
        self.changed.set()

    async def close(self, code: int, reason: str) -> None:
        self.closed.append(code)
        self.changed.set()

    async def until(self, done: Callable[[], bool], seconds: float = 10) -> None:
        async with asyncio.timeout(seconds):
            while not done():
                self.changed.clear()
                await self.changed.wait()


def test_the_computer_s_move_is_played_once_when_two_servers_think_it_out(
        pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """Both servers have the game and both see the computer to move: each thinks out the
    same move; one stores it, the other's is refused by the store's ply check, and it
    catches up without a word to its sockets but the new state."""

    async def run() -> None:
        async with two_services(pg_url) as (a, b):
            live_a, token, _ = await a.create("luzak", QUICK, "easy", "opponent")
            live_b = await b.get(live_a.id)
            inbox = Inbox()
            await b.attach(live_b, Connection(0, "wide", inbox.send, inbox.close))
            await inbox.until(lambda: bool(inbox.states) and inbox.states[-1]["version"] >= 1,
                              30)
            for live in (live_a, live_b):
                if live.computer is not None:
                    async with asyncio.timeout(30):
                        await live.computer
            if live_a.version != live_b.version:  # a has yet to hear of b's move
                await a.peers.on_game_event(f"game:{live_a.id}", {})
            assert live_a.version == live_b.version == inbox.states[-1]["version"]
            assert seat_of(live_b, token) == 0
        loaded = Store(pg_url).load_game(live_a.id)
        assert loaded is not None
        assert [seat for seat, _ in loaded[1]] == [1] * live_a.version

    caplog.set_level(logging.INFO, "dominolab.web")
    run_async(run(), timeout=150)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_invitations_rematches_and_expiry_cross_servers(pg_url: str) -> None:
    async def run() -> None:
        async with two_services(pg_url) as (a, b):
            live_a, _token0, invite = await a.create("luzak-line", QUICK, "friend", "me")
            assert invite is not None
            live_b = await b.get(live_a.id)
            token1 = await b.join(live_b, invite)
            # a's row still has the invitation until it hears of the claim; seat 1's token
            # is accepted there at once all the same
            assert await a.seat_for(live_a, token1) == 1
            assert live_a.row.invite is None
            inbox = Inbox()
            await b.attach(live_b, Connection(1, "wide", inbox.send, inbox.close))
            rng = random.Random(2)
            while not live_a.match.is_over:
                seat = live_a.match.to_move
                assert seat is not None
                move = rng.choice(live_a.state(seat)["legal"])["move"]
                await a.act(live_a, seat, move, live_a.version)
            await inbox.until(lambda: inbox.states[-1]["match_result"] is not None)
            assert inbox.states[-1]["version"] == live_a.version == live_b.version
            new, created = await a.rematch(live_a, 0)
            assert created
            await inbox.until(lambda: inbox.states[-1]["rematch"] is not None)
            assert inbox.states[-1]["rematch"] == {"id": new.id, "by": 0}
            again, created = await b.rematch(live_b, 1)
            assert again.id == new.id and not created
            # a sweep on a expires both; b's socket is closed with 4410
            assert await a.expire(now=time.time() + 400 * 86400) == 2
            await inbox.until(lambda: inbox.closed == [4410])
            assert live_b.id not in b.games
            assert await b.expire(now=time.time() + 400 * 86400) == 0  # harmless again

    run_async(run(), timeout=150)


# -- two server processes ----------------------------------------------------------------------

@pytest.fixture
def two_servers(pg_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two servers on a fresh database, for a test that kills one or breaks its database."""
    with running([ServerProcess(pg_url, log=tmp_path / f"server{i}.log", game_seeds=7 + i)
                  for i in range(2)]) as (a, b):
        yield a, b


@pytest.fixture(scope="module")
def shared_servers(postgres: PostgresServer, tmp_path_factory: pytest.TempPathFactory
                   ) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two servers on a database of the module's own, for the tests that only play on them
    (each its own games and players): a pair costs seconds to start."""
    url = postgres.database()
    logs = tmp_path_factory.mktemp("pg-shared")
    try:
        with running([ServerProcess(url, log=logs / f"server{i}.log", game_seeds=7 + i)
                      for i in range(2)]) as (a, b):
            yield a, b
    finally:
        postgres.execute(f"DROP DATABASE IF EXISTS {postgres.name_of(url)} WITH (FORCE)")


def ws_url(server: ServerProcess, gid: str) -> str:
    return server.base.replace("http", "ws") + f"/ws/games/{gid}"


class Seat:
    """One seat's WebSocket: every state it was sent, in order."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.states: list[Json] = []
        #: the canned messages it was sent
        self.chats: list[Json] = []
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.changed = asyncio.Event()

    async def connect(self, url: str) -> None:
        from websockets.asyncio.client import connect

        self.ws = await connect(url)
        await self.ws.send(json.dumps({"type": "hello", "token": self.token}))
        self.reader = asyncio.get_running_loop().create_task(self._read())
        await self.until(lambda st: True)

    async def _read(self) -> None:
        from websockets.exceptions import ConnectionClosed

        try:
            async for text in self.ws:
                message = json.loads(text)
                if message["type"] == "chat":
                    self.chats.append(message)
                else:
                    assert message["type"] == "state", message
                    self.states.append(message["state"])
                self.changed.set()
        except ConnectionClosed:
            pass
        finally:
            self.changed.set()

    async def until(self, done: Callable[[Json], bool], seconds: float = 10) -> Json:
        async with asyncio.timeout(seconds):
            while not self.states or not done(self.states[-1]):
                self.changed.clear()
                await self.changed.wait()
        return self.states[-1]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self.reader is not None:
            await self.reader


def friend_game(a: ServerProcess, b: ServerProcess) -> tuple[str, str, str]:
    """Made on ``a``, its invitation claimed on ``b``."""
    made = a.request("POST", "/api/games", {"game": "luzak", "opponent": "friend",
                                            "first": "me", "options": {"target": 20}})
    joined = b.request("POST", f"/api/games/{made['id']}/join",
                       {"invite": made["invite"].split("#i=", 1)[1]})
    return made["id"], made["token"], joined["token"]


def test_a_socket_on_one_server_sees_a_move_made_on_the_other(
        shared_servers: tuple[ServerProcess, ServerProcess]) -> None:
    a, b = shared_servers
    gid, token0, token1 = friend_game(a, b)

    async def run() -> None:
        seat1 = Seat(token1)
        await seat1.connect(ws_url(b, gid))
        before = seat1.states[-1]
        st = a.request("GET", f"/api/games/{gid}", token=token0)
        started = time.monotonic()
        await asyncio.to_thread(a.request, "POST", f"/api/games/{gid}/moves",
                                {"move": st["legal"][0]["move"], "version": st["version"]},
                                token0)
        after = await seat1.until(lambda s: s["version"] == before["version"] + 1, 5)
        assert time.monotonic() - started < 5
        assert after["history"][-1]["seat"] == 0 and after["opponent_tiles"] == 11
        await seat1.close()

    run_async(run(), timeout=150)


def test_a_message_sent_on_one_server_reaches_the_seat_on_the_other(
        two_servers: tuple[ServerProcess, ServerProcess]) -> None:
    """Canned messages go out on the game's topic (docs/web.md, "Messages during a game"):
    seat 0 on server a says "good luck", and seat 1, connected to b, is told."""
    a, b = two_servers
    gid, token0, token1 = friend_game(a, b)

    async def run() -> None:
        seat0, seat1 = Seat(token0), Seat(token1)
        await seat0.connect(ws_url(a, gid))
        await seat1.connect(ws_url(b, gid))
        await seat0.ws.send(json.dumps({"type": "chat", "phrase": "good_luck"}))
        async with asyncio.timeout(10):
            while not seat1.chats:
                seat1.changed.clear()
                await seat1.changed.wait()
        assert seat1.chats == [{"type": "chat", "seat": 0, "phrase": "good_luck"}]
        await seat0.close()
        await seat1.close()

    run_async(run(), timeout=150)


def test_a_match_owed_to_a_socket_reset_on_one_server_is_told_on_the_other(
        shared_servers: tuple[ServerProcess, ServerProcess]) -> None:
    """The creator's lobby socket on server a is reset (no close frame) as the seek is
    accepted on b; their next socket, on b, is told the match, until it is acknowledged;
    /api/me on b lists the game, and the seat's token derived from the key opens it there
    (issue: "no match is lost")."""
    a, b = shared_servers
    ala = call(a.base, "POST", "/api/players", {"name": "Ala"})[1]
    ola = call(b.base, "POST", "/api/players", {"name": "Ola"})[1]
    first, welcome = lobby_hello(a.base, ala["key"])
    status, seek = call(a.base, "POST", "/api/seeks", {"conn": welcome["conn"]},
                        key=ala["key"])
    assert status == 201, seek
    status, joined = call(b.base, "POST", f"/api/seeks/{seek['id']}/accept", {},
                          key=ola["key"])
    first.abort()
    assert status == 201, joined
    second, _welcome = lobby_hello(b.base, ala["key"])
    matched = second.until("matched")
    assert (matched["game"], matched["seat"], matched["seek"]) == (joined["id"], 0, seek["id"])
    assert matched["token"] == seat_token(ala["key"], seek["id"])
    second.abort()  # not acknowledged: owed still, to the next socket on either server
    third, _welcome = lobby_hello(a.base, ala["key"])
    assert third.until("matched") == matched
    third.send({"type": "ack", "seek": seek["id"]})
    assert third.until("acked") == {"type": "acked", "seek": seek["id"]}
    third.close()
    fourth, _welcome = lobby_hello(b.base, ala["key"])
    assert "matched" not in fourth.kinds_to_pong()
    fourth.close()
    status, me = call(b.base, "GET", "/api/me", key=ala["key"])
    assert status == 200
    assert [(g["id"], g["seat"], g["seek"], g["opponent"]["name"]) for g in me["live"]] == \
        [(joined["id"], 0, seek["id"], "Ola")]
    status, mine = call(b.base, "GET", f"/api/games/{joined['id']}",
                        token=seat_token(ala["key"], me["live"][0]["seek"]))
    assert (status, mine["seat"]) == (200, 0)
    for server in shared_servers:
        assert "Traceback" not in server.log.read_text()


def test_a_friend_match_across_two_servers_finishes_after_one_is_killed(
        two_servers: tuple[ServerProcess, ServerProcess], pg_url: str) -> None:
    """Seat 0 plays on server a, seat 1 on server b, each told the other is connected; a
    is killed (SIGKILL) mid-match, and b soon tells seat 1 that seat 0 left; seat 0
    reconnects to b and the match is finished there; every move is stored, in order, and
    the stored game replays to the final state."""
    a, b = two_servers
    gid, token0, token1 = friend_game(a, b)
    made: list[tuple[int, str]] = []

    async def run() -> Json:
        seats = [Seat(token0), Seat(token1)]
        await seats[0].connect(ws_url(a, gid))
        await seats[1].connect(ws_url(b, gid))
        for seat in seats:  # presence crosses servers too
            await seat.until(lambda s: s["connected"] == [True, True])
        rng = random.Random(5)
        killed = False
        while True:
            st = seats[0].states[-1]
            if st["match_result"] is not None:
                break
            if len(made) == 9 and not killed:
                await asyncio.to_thread(a.kill)
                killed = True
                await seats[0].until(lambda s: seats[0].reader is not None
                                     and seats[0].reader.done())
                # b finds a gone (its connections to PostgreSQL are): seat 0 is not here
                await seats[1].until(lambda s: s["connected"] == [False, True], 20)
                seats[0] = Seat(token0)
                await seats[0].connect(ws_url(b, gid))
                assert seats[0].states[-1]["version"] == len(made)
                await seats[1].until(lambda s: s["connected"] == [True, True])
                continue
            mover = seats[st["to_move"]]
            mine = mover.states[-1]
            move = rng.choice(mine["legal"])["move"]
            await mover.ws.send(json.dumps({"type": "move", "move": move,
                                            "version": mine["version"]}))
            made.append((mine["seat"], move))
            for seat in seats:  # both seats see it, on either server
                await seat.until(lambda s: s["version"] == len(made))
        assert killed and seats[1].states[-1]["match_result"] is not None
        for seat in seats:
            await seat.close()
        return st

    final = run_async(run(), timeout=150)
    store = Store(pg_url)
    try:
        loaded = store.load_game(gid)
    finally:
        store.close()
    assert loaded is not None
    row, moves = loaded
    assert row.finished and len(moves) == final["version"] == len(made)
    spec = get_game(row.game)
    match = Match(spec, spec.options_class.from_dict(row.options), seed=row.seed,
                  first_opener=row.first_opener)
    for (seat, text), (sent_seat, sent) in zip(moves, made, strict=True):
        assert seat == sent_seat and match.to_move == seat
        played = match.parse_move(text)
        assert played == match.parse_move(sent)
        match.apply(played)
    assert match.is_over and list(match.totals) == final["totals"]


def test_a_lost_postgresql_connection_answers_503_and_heals(
        two_servers: tuple[ServerProcess, ServerProcess], pg_url: str,
        postgres: PostgresServer) -> None:
    """Every server's connections are cut (pg_terminate_backend) and new ones refused: a
    move is answered 503 with Retry-After, never 500; once PostgreSQL takes connections
    again the same move is made, and the other server's socket hears of it (its listening
    connection came back)."""
    import urllib.error

    a, b = two_servers
    gid, token0, token1 = friend_game(a, b)
    database = postgres.name_of(pg_url)

    async def run() -> None:
        seat1 = Seat(token1)
        await seat1.connect(ws_url(b, gid))
        st = a.request("GET", f"/api/games/{gid}", token=token0)
        body = {"move": st["legal"][0]["move"], "version": st["version"]}
        postgres.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS false")
        postgres.execute("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                         f"WHERE datname = '{database}'")
        try:
            for _ in range(2):  # the broken connection, then a refused new one
                with pytest.raises(urllib.error.HTTPError) as info:
                    await asyncio.to_thread(a.request, "POST", f"/api/games/{gid}/moves",
                                            body, token0)
                assert info.value.code == 503 and info.value.headers["Retry-After"]
                with pytest.raises(urllib.error.HTTPError) as info:
                    await asyncio.to_thread(b.request, "POST", "/api/games",
                                            {"game": "luzak", "opponent": "friend"})
                assert info.value.code == 503
        finally:
            postgres.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS true")
        moved = await asyncio.to_thread(a.request, "POST", f"/api/games/{gid}/moves", body,
                                        token0)
        assert moved["version"] == st["version"] + 1
        await seat1.until(lambda s: s["version"] == moved["version"], 20)
        await seat1.close()

    run_async(run(), timeout=150)
    for server in two_servers:
        assert "Traceback" not in server.log.read_text()


@pytest.mark.parametrize("number", range(4, SCHEMA_VERSION + 1))
def test_every_migration_since_players_is_portable_sql(number: int) -> None:
    """Migrations are written once for both backends (web/storage/pg.py): no SQLite-only words, only
    the portable types, and no semicolon inside a comment (statements are split on them).
    Versions 1-3 came before PostgreSQL; the adapter translates what they use."""
    script = MIGRATIONS[number - 1]
    for word in ("WITHOUT ROWID", "AUTOINCREMENT", "INSERT OR", "PRAGMA", "STRICT"):
        assert word not in script.upper(), word
    for line in script.splitlines():
        _, dash, comment = line.partition("--")
        assert not dash or ";" not in comment, line
    types = {w for w in script.replace(",", " ").replace(";", " ").split()
             if w in ("TEXT", "INTEGER", "REAL", "BLOB", "NUMERIC", "BOOLEAN", "DATETIME")}
    # (a migration that only updates rows names no type at all)
    assert types <= {"TEXT", "INTEGER", "REAL"}


def test_the_bus_listens_on_the_loop_that_serves_the_app(pg_url: str) -> None:
    """An app built in a thread where another loop is running (a test's browser leaves its
    loop so) still hears the other servers once it has started: its bus's tasks are made on
    the loop that serves it, not on the one that happened to run while it was built
    (they were, and never ran: each start waited its whole 10 s and nothing was heard)."""
    async def build_beside_another_loop() -> int:
        app = seeded_app(pg_url, seed=3)
        started = time.monotonic()
        with TestClient(app) as client:
            took = time.monotonic() - started
            events = service_of(client).events
            assert isinstance(events, PgEvents)
            assert events.connections == 1, "not listening once started"
        assert took < 8, f"the start waited {took:.1f} s for the bus"
        return events.connections

    assert run_async(build_beside_another_loop(), timeout=60) == 1


# -- the lab's studies on several servers ------------------------------------------------------

def owner_pid(folder: Path) -> int:
    """The process that last claimed the study of ``folder`` (its ``owner`` file)."""
    return int((folder / "owner").read_text().split()[1])


def study_until(server: ServerProcess, sid: str, check: Callable[[Json], bool], what: str,
                seconds: float = 60) -> Json:
    """Poll study ``sid`` on ``server`` until ``check`` holds: its state."""
    deadline = time.monotonic() + seconds
    while True:
        state: Json = server.request("GET", f"/api/studies/{sid}")
        if check(state):
            return state
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {seconds:g} s: {what} ({state})")
        time.sleep(0.05)


def test_a_study_runs_on_one_server_and_a_killed_one_s_goes_on_at_the_other(
        pg_url: str, tmp_path: Path) -> None:
    from dominolab.lab.simulate import make_setup, simulate_to_file

    data = tmp_path / "data"
    servers = [ServerProcess(pg_url, log=tmp_path / f"server{i}.log",
                             extra=("--data-dir", str(data), "--workers", "1"))
               for i in range(2)]
    body = {"game": "luzak", "players": ["greedy", "greedy"], "matches": 12_000, "seed": 5}
    with running(servers) as (a, b):
        assert a.proc is not None and b.proc is not None
        sid = a.request("POST", "/api/studies", body)["id"]
        folder = data / "studies" / sid
        # the other server answers for it from the folder, and does not play it too
        seen = study_until(b, sid, lambda s: s["state"] == "running" and s["done"] > 0,
                           "the other server sees it run")
        assert owner_pid(folder) == a.proc.pid
        again = b.request("POST", "/api/studies", body)
        assert again["id"] == sid and again["state"] in ("queued", "running")
        assert owner_pid(folder) == a.proc.pid
        # a cancel asked of the server that does not run it stops the one that does
        other = a.request("POST", "/api/studies", {**body, "seed": 6})["id"]
        study_until(b, other, lambda s: s["done"] > 0, "the second study runs")
        stopped = b.request("POST", f"/api/studies/{other}/cancel")
        assert stopped["state"] == "cancelled", stopped
        assert a.request("GET", f"/api/studies/{other}")["state"] == "cancelled"
        # the server that runs the first is killed: the other goes on with it when it looks
        assert seen["done"] < 12_000
        assert a.request("GET", f"/api/studies/{sid}")["state"] == "running"
        a.kill()
        state = study_until(b, sid, lambda s: s["state"] in ("done", "failed"),
                            "the other server finishes it", 120)
        assert state["state"] == "done" and state["done"] == 12_000, state
        assert owner_pid(folder) == b.proc.pid
    unbroken = tmp_path / "unbroken.jsonl"
    simulate_to_file(make_setup("luzak", ("greedy", "greedy"), 12_000, 5, []), unbroken,
                     workers=1)
    assert (folder / "0.jsonl").read_bytes() == unbroken.read_bytes()


def test_the_matches_an_address_starts_an_hour_are_counted_across_servers(
        pg_url: str, tmp_path: Path) -> None:
    from urllib.error import HTTPError

    servers = [ServerProcess(pg_url, log=tmp_path / f"server{i}.log",
                             extra=("--data-dir", str(tmp_path / "data"),
                                    "--lab-matches-per-hour", "100"))
               for i in range(2)]
    study = {"game": "luzak", "players": ["greedy", "greedy"], "matches": 60}
    with running(servers) as (a, b):
        a.request("POST", "/api/studies", {**study, "seed": 1})
        # 60 started on one server: 60 more on the other would pass the 100 an hour
        with pytest.raises(HTTPError) as refused:
            b.request("POST", "/api/studies", {**study, "seed": 2})
        assert refused.value.code == 429
        said = json.loads(refused.value.read())["error"]
        assert "started 60 matches in the last hour" in said and "100 an hour" in said
        assert 3500 <= int(refused.value.headers["Retry-After"]) <= 3600
        with pytest.raises(HTTPError) as again:
            a.request("POST", "/api/studies", {**study, "seed": 3})
        assert again.value.code == 429
        # 40 fit, on either
        b.request("POST", "/api/studies", {**study, "matches": 40, "seed": 4})
        with pytest.raises(HTTPError) as full:
            a.request("POST", "/api/studies", {**study, "matches": 1, "seed": 5})
        assert "started 100 matches" in json.loads(full.value.read())["error"]
