"""Where the web app's games live: SQLite, from the standard library.

A game is stored as what makes it up — game, options, seed, first opener, seats — plus its
moves in order; the state is rebuilt by re-applying the moves through the engine, so what
is stored can never disagree with the rules. Each move is committed before anyone is told
of it: a server killed at any moment restarts with every move it ever announced.

:class:`Store` is put together from one part per concern, each in a file of ``web/storage/``
named for it:

- ``database.py``: the connection, its write transactions, bringing the schema up to date;
- ``schema.py``: the schema, as versioned migrations (its one place);
- ``rows.py``: the values stored and read (:class:`GameRow`, :class:`PlayerRow`,
  :class:`SeekRow`, ...), the errors, and how a row is read back;
- ``games.py``: games and their moves, invitations, rematches;
- ``players.py``: players and their ratings;
- ``seeks.py``: the lobby's sockets and seeks;
- ``expiry.py``: move clocks that run out, and old games deleted;
- ``pg.py``: the same store on PostgreSQL; ``events.py``: the event bus.

Each part is a class over :class:`~dominolab.web.storage.database.Database` that adds
methods only, and :class:`Store` is all of them at once (mixins), rather than an object
owning one table object per concern that it forwards to: the parts share one connection,
one lock and one transaction (accepting a seek stores its game in the seek's
transaction), :class:`~dominolab.web.storage.pg.PgStore` overrides one method and keeps
the rest, and every method stays ``store.name(...)`` with no list of forwards to keep in
step. Everything is imported from here, as before the split.

``Store("postgresql://user@host/db")`` is the same store on PostgreSQL, for several server
processes (:mod:`dominolab.web.storage.pg`): the methods run there unchanged, so write them
and the migrations in the portable subset that module describes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from dominolab.web.storage.database import (
    BUSY_TIMEOUT,
    DATABASE_ERRORS,
    is_database_url,
)
from dominolab.web.storage.events import Events
from dominolab.web.storage.expiry import Expiry
from dominolab.web.storage.games import Games
from dominolab.web.storage.players import Players
from dominolab.web.storage.rows import (
    GameResult,
    GameRow,
    MoveConflict,
    PlayerRef,
    PlayerRow,
    RatingChange,
    RatingConflict,
    RatingRow,
    SeekRow,
    StoreError,
)
from dominolab.web.storage.schema import MIGRATIONS, SCHEMA_VERSION
from dominolab.web.storage.seeks import Seeks

T = TypeVar("T")


class Store(Games, Players, Seeks, Expiry):
    """The games database. Safe to share between threads (one connection, one lock).

    Opening it checks it: a file that is not a database, fails ``PRAGMA quick_check``, has
    a newer schema or cannot be written raises :class:`StoreError`, so a server never starts
    on a database it would answer 500 from. Given a ``postgresql://`` URL instead of a
    path, it is a :class:`dominolab.web.storage.pg.PgStore`."""

    def __new__(cls, path: str | Path, *args: Any, **kwargs: Any) -> Store:
        if cls is Store and is_database_url(path):
            try:
                from dominolab.web.storage.pg import PgStore
            except ImportError as exc:
                raise StoreError(f"a PostgreSQL database needs psycopg 3 ({exc}): "
                                 f"pip install 'psycopg[binary]'") from None
            return super().__new__(PgStore)
        return super().__new__(cls)

    def events(self) -> Events:
        """The event bus that reaches every server on this database: one process serves an
        SQLite file, so the bus of this process (PostgreSQL's reaches them all)."""
        return Events()

    def reader(self) -> Store | None:
        """A second connection for catching up with other processes' changes, or None
        where there are none (SQLite: one process)."""
        return None


class AsyncStore:
    """The :class:`Store` for the event loop: every call runs in one thread of its own, so
    a write waiting on a lock (or a slow disk) never holds up the loop, and calls keep
    their order."""

    def __init__(self, store: Store, reader: Store | None = None) -> None:
        self.sync = store
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="dominolab-db")
        #: catching up with other processes (:meth:`game_since`) goes to ``reader``, in a
        #: thread of its own, given one: it never waits behind this process's writes
        self.reader = reader
        self._reads = self._thread if reader is None else \
            ThreadPoolExecutor(1, thread_name_prefix="dominolab-db-read")

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

    async def create_game(self, row: GameRow) -> None:
        await self._run(self.sync.create_game, row)

    async def load_game(self, game_id: str) -> tuple[GameRow, list[tuple[int, str]]] | None:
        return await self._run(self.sync.load_game, game_id)

    async def add_moves(self, game_id: str, first_ply: int, moves: Sequence[tuple[int, str]],
                        finished: bool, result: GameResult | None = None) -> None:
        await self._run(self.sync.add_moves, game_id, first_ply, moves, finished, result)

    async def claim_invite(self, game_id: str, invite_hash: str, token_hash: str,
                           player: str | None = None) -> bool:
        return await self._run(self.sync.claim_invite, game_id, invite_hash, token_hash,
                               player)

    async def create_player(self, row: PlayerRow, skeleton: str) -> bool:
        return await self._run(self.sync.create_player, row, skeleton)

    async def player(self, *, id: str | None = None, key_hash: str | None = None
                     ) -> PlayerRow | None:
        return await self._run(lambda: self.sync.player(id=id, key_hash=key_hash))

    async def finished_games_of(self, player: str, limit: int = 50) -> list[GameRow]:
        return await self._run(self.sync.finished_games_of, player, limit)

    async def create_rematch(self, game_id: str, seat: int, row: GameRow
                             ) -> tuple[str, int] | None:
        return await self._run(self.sync.create_rematch, game_id, seat, row)

    async def expire(self, unfinished_before: float, finished_before: float) -> list[str]:
        return await self._run(self.sync.expire, unfinished_before, finished_before)

    async def ratings_of(self, game: str, players: Sequence[str]) -> dict[str, RatingRow]:
        return await self._run(self.sync.ratings_of, game, players)

    async def player_ratings(self, player: str) -> list[RatingRow]:
        return await self._run(self.sync.player_ratings, player)

    async def leaderboard(self, game: str, provisional_rd: float, limit: int = 100
                          ) -> list[tuple[PlayerRef, RatingRow]]:
        return await self._run(self.sync.leaderboard, game, provisional_rd, limit)

    async def rating_changes_of(self, player: str, game_ids: Sequence[str]
                                ) -> dict[str, RatingChange]:
        return await self._run(self.sync.rating_changes_of, player, game_ids)

    async def ratings_due(self, limit: int = 100) -> list[GameRow]:
        return await self._run(self.sync.ratings_due, limit)

    async def apply_ratings(self, game_id: str, ratings: Sequence[RatingRow],
                            changes: Sequence[RatingChange]) -> bool:
        return await self._run(self.sync.apply_ratings, game_id, ratings, changes)
    async def open_lobby_socket(self, socket: str, player: str, server: str) -> None:
        await self._run(self.sync.open_lobby_socket, socket, player, server)

    async def close_lobby_socket(self, socket: str) -> int:
        return await self._run(self.sync.close_lobby_socket, socket)

    async def heartbeat(self, server: str, sockets: Sequence[tuple[str, str]]) -> None:
        await self._run(self.sync.heartbeat, server, sockets)

    async def sweep_lobby(self, dead_before: float, told_before: float) -> int:
        return await self._run(self.sync.sweep_lobby, dead_before, told_before)

    async def create_seek(self, row: SeekRow, max_open: int) -> SeekRow | str:
        return await self._run(self.sync.create_seek, row, max_open)

    async def seek(self, seek_id: str) -> SeekRow | None:
        return await self._run(self.sync.seek, seek_id)

    async def delete_seek(self, seek_id: str, player: str) -> bool:
        return await self._run(self.sync.delete_seek, seek_id, player)

    async def accept_seek(self, seek_id: str, player: str,
                          build: Callable[[SeekRow], GameRow]) -> GameRow | str:
        return await self._run(self.sync.accept_seek, seek_id, player, build)

    async def quick_pair(self, seek: SeekRow, max_open: int,
                         build: Callable[[SeekRow], GameRow]) -> GameRow | SeekRow | str:
        return await self._run(self.sync.quick_pair, seek, max_open, build)

    async def lobby(self, limit: int = 100
                    ) -> tuple[list[SeekRow], list[GameRow], list[tuple[str, str, str]]]:
        return await self._run(self.sync.lobby, limit)

    async def claim_matches(self, socket: str, player: str) -> list[tuple[str, str, int]]:
        return await self._run(self.sync.claim_matches, socket, player)

    async def moved_at(self, game_id: str) -> float | None:
        return await self._run(self.sync.moved_at, game_id)

    async def out_of_time(self, ran_out_by: float) -> list[tuple[str, int]]:
        return await self._run(self.sync.out_of_time, ran_out_by)

    async def end_by_time(self, game_id: str, version: int, result: GameResult,
                          ran_out_by: float) -> bool:
        return await self._run(self.sync.end_by_time, game_id, version, result,
                               ran_out_by)

    async def game_since(self, game_id: str, first_ply: int
                         ) -> tuple[GameRow, list[tuple[int, str]]] | None:
        store = self.reader or self.sync
        return await asyncio.get_running_loop().run_in_executor(
            self._reads, store.game_since, game_id, first_ply)

    def close(self) -> None:
        self._thread.shutdown(wait=True)
        self.sync.close()
        if self.reader is not None:
            self._reads.shutdown(wait=True)
            self.reader.close()


__all__ = [
    "BUSY_TIMEOUT", "DATABASE_ERRORS", "MIGRATIONS", "SCHEMA_VERSION", "AsyncStore",
    "GameResult", "GameRow", "MoveConflict", "PlayerRef", "PlayerRow", "RatingChange",
    "RatingConflict", "RatingRow", "SeekRow", "Store", "StoreError", "is_database_url",
]
