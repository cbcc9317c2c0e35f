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
- ``moderation.py``: a moderator's actions on players, and their audit;
- ``devices.py``: a player's link and recovery codes (their key on more devices);
- ``puzzles.py``: puzzle ratings (players' and puzzles') and players' first tries;
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
import inspect
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar, overload

from dominolab.web.limits import SharedBuckets
from dominolab.web.storage.database import (
    BUSY_TIMEOUT,
    DATABASE_ERRORS,
    is_database_url,
    unavailable,
)
from dominolab.web.storage.devices import CodeRow, CodesOf, Devices
from dominolab.web.storage.events import Events
from dominolab.web.storage.expiry import Expiry
from dominolab.web.storage.games import Games, NewMoves, Outcome
from dominolab.web.storage.moderation import Moderation
from dominolab.web.storage.players import Players
from dominolab.web.storage.puzzles import PuzzleRating, Puzzles, PuzzleStanding, PuzzleTry
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
P = ParamSpec("P")


class Store(Games, Players, Seeks, Expiry, Moderation, Devices, Puzzles):
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

    def buckets(self) -> SharedBuckets | None:
        """Where the per-address rates of every server on this database are kept, or None
        where each process keeps its own (SQLite: one process)."""
        return None

    def reader(self) -> Store | None:
        """A second connection for catching up with other processes' changes, or None
        where there are none (SQLite: one process)."""
        return None


class _OffLoop(Generic[P, T]):
    """A method of :class:`AsyncStore` that runs the :class:`Store` method of the same name
    in the store's thread, typed as that method (less ``self``) but awaited. The method is
    looked up on the store at each call, so PostgreSQL's (or a test's) is the one run."""

    def __init__(self, method: Callable[Concatenate[Store, P], T], *, write: bool = False
                 ) -> None:
        self.name = method.__name__
        #: a write: timed, and told to the store's ``on_write``
        self.write = write
        self.__doc__ = method.__doc__
        shown = inspect.signature(method)
        #: the signature the bound method shows: the store method's, less ``self``
        self.signature = shown.replace(parameters=list(shown.parameters.values())[1:])

    @overload
    def __get__(self, owner: None, kind: type[AsyncStore]) -> _OffLoop[P, T]: ...

    @overload
    def __get__(self, owner: AsyncStore, kind: type[AsyncStore]
                ) -> Callable[P, Awaitable[T]]: ...

    def __get__(self, owner: AsyncStore | None, kind: type[AsyncStore]
                ) -> _OffLoop[P, T] | Callable[P, Awaitable[T]]:
        if owner is None:
            return self
        name = self.name
        timed = self.write and owner.on_write is not None

        async def run(*args: P.args, **kwargs: P.kwargs) -> T:
            method: Callable[P, T] = getattr(owner.sync, name)
            if not timed:
                return await owner._run(partial(method, *args, **kwargs))
            return await owner._timed(name, owner._run(partial(method, *args, **kwargs)))

        run.__name__ = run.__qualname__ = name
        run.__doc__ = self.__doc__
        run.__signature__ = self.signature  # type: ignore[attr-defined]
        return run


class AsyncStore:
    """The :class:`Store` for the event loop: every call runs in one thread of its own, so
    a write waiting on a lock (or a slow disk) never holds up the loop, and calls keep
    their order. Each method is the store's of the same name, awaited; the moves of every
    game that arrive together are stored together (:meth:`add_moves`).

    ``on_write(name, seconds, ok)`` is told of every write as it ends: the method's name,
    its seconds from the call to the answer (its wait behind this store's other calls
    included) and whether it succeeded (a database error: not; a move another server
    stored first, :class:`MoveConflict`, is the database answering: it did)."""

    def __init__(self, store: Store, reader: Store | None = None, *,
                 on_write: Callable[[str, float, bool], None] | None = None) -> None:
        self.sync = store
        self.on_write = on_write
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="dominolab-db")
        #: catching up with other processes (:meth:`game_since`) goes to ``reader``, in a
        #: thread of its own, given one: it never waits behind this process's writes
        self.reader = reader
        self._reads = self._thread if reader is None else \
            ThreadPoolExecutor(1, thread_name_prefix="dominolab-db-read")
        #: moves waiting for the store's thread, each with the future its caller awaits
        self._queued: list[tuple[NewMoves, asyncio.Future[None]]] = []
        #: whether a batch of moves is in the store's thread now
        self._storing = False

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._thread, fn, *args)

    async def _timed(self, name: str, write: Awaitable[T]) -> T:
        """Await the write ``name`` and tell ``on_write`` its seconds and whether the
        database answered (a move another server stored first, :class:`MoveConflict`, is
        the database answering)."""
        assert self.on_write is not None
        started = time.perf_counter()
        ok = False
        try:
            result = await write
            ok = True
            return result
        except MoveConflict:
            ok = True
            raise
        finally:
            self.on_write(name, time.perf_counter() - started, ok)

    async def add_moves(self, game_id: str, first_ply: int,
                        moves: Sequence[tuple[int, str]], finished: bool,
                        result: GameResult | None = None) -> None:
        """:meth:`Store.add_moves`, stored with the moves of every other game that arrive
        in the same turn of the event loop, or while the store's thread stores the ones
        before (:meth:`Store.add_moves_of_games`: one hand-off to the thread and one commit
        for them all). Raises what :meth:`Store.add_moves` would for these moves: a
        database error that fails the transaction fails every move it held, and nothing
        of it is stored. Told to ``on_write`` as ``add_moves``, from the call to the
        answer."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._queued.append(
            (NewMoves(game_id, first_ply, tuple(moves), finished, result), done))
        if len(self._queued) == 1 and not self._storing:
            loop.call_soon(self._store_queued, loop)
        if self.on_write is None:
            await done
        else:
            await self._timed("add_moves", done)

    def _store_queued(self, loop: asyncio.AbstractEventLoop) -> None:
        batch, self._queued = self._queued, []
        if not batch:
            return
        try:
            job = loop.run_in_executor(self._thread, self.sync.add_moves_of_games,
                                       [one for one, _ in batch])
        except RuntimeError as exc:  # the store is closed: its callers hear why
            for _, done in batch:
                if not done.done():
                    done.set_exception(exc)
            return
        self._storing = True
        job.add_done_callback(partial(self._stored, loop, batch))

    def _stored(self, loop: asyncio.AbstractEventLoop,
                batch: list[tuple[NewMoves, asyncio.Future[None]]],
                job: asyncio.Future[list[Outcome]]) -> None:
        self._storing = False
        failed = None if job.cancelled() else job.exception()
        outcomes: Sequence[BaseException | None] = \
            [failed] * len(batch) if job.cancelled() or failed is not None else job.result()
        for (_, done), outcome in zip(batch, outcomes, strict=True):
            if done.done():  # its caller was cancelled
                continue
            if job.cancelled():
                done.cancel()
            elif outcome is None:
                done.set_result(None)
            else:
                done.set_exception(outcome)
        if self._queued:
            self._store_queued(loop)

    # games
    create_game = _OffLoop(Store.create_game, write=True)
    load_game = _OffLoop(Store.load_game)
    claim_invite = _OffLoop(Store.claim_invite, write=True)
    create_rematch = _OffLoop(Store.create_rematch, write=True)
    # players and ratings
    create_player = _OffLoop(Store.create_player, write=True)
    rekey_players = _OffLoop(Store.rekey_players, write=True)
    player = _OffLoop(Store.player)
    finished_games_of = _OffLoop(Store.finished_games_of)
    ratings_of = _OffLoop(Store.ratings_of)
    player_ratings = _OffLoop(Store.player_ratings)
    leaderboard = _OffLoop(Store.leaderboard)
    rating_changes_of = _OffLoop(Store.rating_changes_of)
    ratings_due = _OffLoop(Store.ratings_due)
    apply_ratings = _OffLoop(Store.apply_ratings, write=True)
    players_version = _OffLoop(Store.players_version)
    player_names = _OffLoop(Store.player_names)
    # a player's codes for more devices
    put_code = _OffLoop(Store.put_code, write=True)
    claim_code = _OffLoop(Store.claim_code, write=True)
    codes_of = _OffLoop(Store.codes_of)
    expire_codes = _OffLoop(Store.expire_codes, write=True)
    # puzzle ratings
    puzzle_standing = _OffLoop(Store.puzzle_standing)
    record_puzzle_try = _OffLoop(Store.record_puzzle_try, write=True)
    puzzle_ratings = _OffLoop(Store.puzzle_ratings)
    puzzles_tried = _OffLoop(Store.puzzles_tried)
    player_puzzle_ratings = _OffLoop(Store.player_puzzle_ratings)
    # the lobby
    open_lobby_socket = _OffLoop(Store.open_lobby_socket, write=True)
    close_lobby_socket = _OffLoop(Store.close_lobby_socket, write=True)
    heartbeat = _OffLoop(Store.heartbeat, write=True)
    sweep_lobby = _OffLoop(Store.sweep_lobby, write=True)
    create_seek = _OffLoop(Store.create_seek, write=True)
    seek = _OffLoop(Store.seek)
    delete_seek = _OffLoop(Store.delete_seek, write=True)
    accept_seek = _OffLoop(Store.accept_seek, write=True)
    quick_pair = _OffLoop(Store.quick_pair, write=True)
    lobby = _OffLoop(Store.lobby)
    owed_matches = _OffLoop(Store.owed_matches)
    ack_match = _OffLoop(Store.ack_match, write=True)
    live_games_of = _OffLoop(Store.live_games_of)
    # clocks and expiry
    moved_at = _OffLoop(Store.moved_at)
    out_of_time = _OffLoop(Store.out_of_time)
    end_by_time = _OffLoop(Store.end_by_time, write=True)
    expire = _OffLoop(Store.expire, write=True)

    async def ping(self) -> None:
        """:meth:`Store.ping` in the store's thread (behind this server's other calls)."""
        await self._run(self.sync.ping)

    async def game_since(self, game_id: str, first_ply: int
                         ) -> tuple[GameRow, list[tuple[int, str]]] | None:
        """:meth:`Store.game_since` on the reader, in its own thread, given one."""
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
    "CodeRow", "CodesOf",
    "GameResult", "GameRow", "MoveConflict", "PlayerRef", "PlayerRow", "PuzzleRating",
    "PuzzleStanding", "PuzzleTry", "RatingChange",
    "RatingConflict", "RatingRow", "SeekRow", "Store", "StoreError", "is_database_url",
    "unavailable",
]
