"""The per-address rates of every server on one PostgreSQL database, kept in the database.

A bucket per (kind of request, client) is a row of :data:`TABLE`, an ``UNLOGGED`` table
(rates need no crash safety: after a crash PostgreSQL empties it, and every bucket is full
again, which only errs towards letting a request through). Spending is one statement,
:data:`TAKE`: an ``INSERT ... ON CONFLICT DO UPDATE`` that refills the stored tokens for the
time since the stored moment, by the database's clock, and spends one if there is one. The
row is locked while it is updated, so two servers can never both spend a bucket's last
token. A row untouched for as long as its bucket takes to refill is the same as no row; each
kind's such rows are deleted every :attr:`PgBuckets.sweep_every` seconds.

:class:`PgBuckets` asks over a connection of its own (not the store's, whose writes it would
wait behind). When that fails or takes over :attr:`PgBuckets.timeout`, it says
:class:`~dominolab.web.limits.BucketsUnreachable` (and for :attr:`PgBuckets.pause` seconds
says so at once, without trying), and the limiter counts in its own process: the limits
fail open to the per-process ones, with one warning in the log, and one line when the
buckets are back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

import psycopg

from dominolab.web.limits import BucketsUnreachable, RateLimited, WindowFull
from dominolab.web.storage.pg import conninfo, one_line

log = logging.getLogger("dominolab.web")
T = TypeVar("T")

#: the buckets' table (made by :meth:`~dominolab.web.storage.pg.PgStore.migrate`)
TABLE: Final = "dominolab_buckets"
#: PostgreSQL's own DDL, not a migration: SQLite keeps its buckets in its one process
CREATE: Final = f"""
    CREATE UNLOGGED TABLE IF NOT EXISTS {TABLE} (
        kind    TEXT NOT NULL,
        client  TEXT NOT NULL,
        tokens  DOUBLE PRECISION NOT NULL,
        at      DOUBLE PRECISION NOT NULL,
        granted BOOLEAN NOT NULL,
        PRIMARY KEY (kind, client)
    )"""
#: what each client spent of a capped quantity, and when (the lab's matches an hour)
SPENT: Final = "dominolab_spent"
CREATE_SPENT: Final = (
    f"CREATE UNLOGGED TABLE IF NOT EXISTS {SPENT} (kind TEXT NOT NULL, client TEXT NOT NULL, "
    f"at DOUBLE PRECISION NOT NULL, amount BIGINT NOT NULL)",
    f"CREATE INDEX IF NOT EXISTS {SPENT}_by_client ON {SPENT} (kind, client, at)")
#: the tokens a stored bucket has now (``EXCLUDED.at`` is now, by the database's clock)
_REFILL: Final = "LEAST(%(burst)s, b.tokens + GREATEST(0, EXCLUDED.at - b.at) * %(rate)s)"
#: spend one token of (kind, client) if it has one; returns whether it did, and the tokens
#: left (refused: what the bucket has, under one)
TAKE: Final = f"""
    INSERT INTO {TABLE} AS b (kind, client, tokens, at, granted)
    VALUES (%(kind)s, %(client)s, %(burst)s - 1,
            extract(epoch FROM clock_timestamp())::float8, true)
    ON CONFLICT (kind, client) DO UPDATE SET
        tokens = {_REFILL} - CASE WHEN {_REFILL} >= 1 THEN 1 ELSE 0 END,
        granted = {_REFILL} >= 1,
        at = EXCLUDED.at
    RETURNING granted, tokens"""
#: forget the buckets of a kind that are full again (untouched for ``%(full)s`` seconds)
SWEEP: Final = f"""
    DELETE FROM {TABLE}
    WHERE kind = %(kind)s AND at < extract(epoch FROM clock_timestamp())::float8 - %(full)s"""


class PgBuckets:
    """:class:`~dominolab.web.limits.SharedBuckets` in PostgreSQL database ``url``, for
    every server on it (see the module's text)."""

    def __init__(self, url: str, *, timeout: float = 2.0, pause: float = 1.0,
                 sweep_every: float = 60.0) -> None:
        self.url = url
        #: the longest a take may wait for the database before the process counts alone
        self.timeout = timeout
        #: after a failure, how long the buckets are not asked at all
        self.pause = pause
        #: how often each kind's full buckets are deleted
        self.sweep_every = sweep_every
        self._conn: psycopg.AsyncConnection[Any] | None = None
        self._lock = asyncio.Lock()
        self._down_until = 0.0
        #: the buckets could not be asked last time (warned of once, until they can)
        self.down = False
        self._swept: dict[str, float] = {}

    async def take(self, kind: str, client: str, per_second: float, burst: float) -> None:
        """See :meth:`~dominolab.web.limits.SharedBuckets.take`."""
        params = {"kind": kind, "client": client, "rate": per_second, "burst": burst}
        found = await self._ask(lambda conn: self._take(conn, kind, params))
        assert found is not None
        granted, tokens = found
        if not granted:
            raise RateLimited((1.0 - float(tokens)) / per_second)

    async def spend(self, kind: str, client: str, amount: int, cap: int,
                    window: float) -> None:
        """See :meth:`~dominolab.web.limits.SharedBuckets.spend`: the client's rows of
        :data:`SPENT` within the window, summed and added to under a lock of the client's
        own (``pg_advisory_xact_lock``), so two servers never both spend its last room."""
        params = {"kind": kind, "client": client, "amount": amount, "cap": cap,
                  "window": window}
        used, oldest, now = await self._ask(lambda conn: self._spend(conn, params))
        if used + amount > cap:
            raise WindowFull(int(used), window - (now - oldest) if oldest is not None
                             else window)

    async def _ask(self, work: Callable[[psycopg.AsyncConnection[Any]], Awaitable[T]]) -> T:
        """``work`` done over this process's connection, within :attr:`timeout`;
        :class:`BucketsUnreachable` if it cannot be."""
        if time.monotonic() < self._down_until:
            raise BucketsUnreachable(TABLE)
        try:
            async with asyncio.timeout(self.timeout), self._lock:
                if time.monotonic() < self._down_until:  # failed while this one waited
                    raise BucketsUnreachable(TABLE)
                try:
                    found = await work(await self._connection())
                except BaseException:
                    # failed, cut off by the deadline or the request gone mid-statement:
                    # the connection is not trusted again (dropped by its holder alone)
                    await self._drop()
                    raise
        except (psycopg.Error, OSError, TimeoutError) as exc:
            self._failed(exc)
            raise BucketsUnreachable(TABLE) from None
        if self.down:
            self.down = False
            log.info("limits: the shared rate limits on PostgreSQL are back")
        return found

    @staticmethod
    async def _spend(conn: psycopg.AsyncConnection[Any],
                     params: dict[str, Any]) -> tuple[int, float | None, float]:
        """(spent within the window before, the oldest such time, now), and ``amount``
        spent now if it fits the cap."""
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext(%(kind)s), "
                               "hashtext(%(client)s))", params)
            cur = await conn.execute("SELECT extract(epoch FROM clock_timestamp())::float8")
            row = await cur.fetchone()
            assert row is not None
            params = {**params, "now": float(row[0])}
            await conn.execute(f"DELETE FROM {SPENT} WHERE kind = %(kind)s AND client = "
                               f"%(client)s AND at <= %(now)s - %(window)s", params)
            cur = await conn.execute(f"SELECT COALESCE(SUM(amount), 0), MIN(at) FROM {SPENT} "
                                     f"WHERE kind = %(kind)s AND client = %(client)s", params)
            found = await cur.fetchone()
            assert found is not None
            used, oldest = int(found[0]), found[1]
            if used + params["amount"] <= params["cap"]:
                await conn.execute(f"INSERT INTO {SPENT} (kind, client, at, amount) VALUES "
                                   f"(%(kind)s, %(client)s, %(now)s, %(amount)s)", params)
        return used, None if oldest is None else float(oldest), params["now"]

    async def _take(self, conn: psycopg.AsyncConnection[Any], kind: str,
                    params: dict[str, Any]) -> Any:
        """:data:`TAKE`'s row, and a sweep of ``kind`` when one is due."""
        cur = await conn.execute(TAKE, params)
        found = await cur.fetchone()
        now = time.monotonic()
        if now - self._swept.get(kind, 0.0) >= self.sweep_every:
            self._swept[kind] = now
            await conn.execute(SWEEP, {"kind": kind,
                                       "full": params["burst"] / params["rate"]})
        return found

    async def _connection(self) -> psycopg.AsyncConnection[Any]:
        conn = self._conn
        if conn is None or conn.broken or conn.closed:
            if conn is not None:
                await conn.close()
            conn = self._conn = None
            conn = await psycopg.AsyncConnection.connect(
                conninfo(self.url, "dominolab limits"), autocommit=True)
            # the server gives up by itself too: a take this process stopped waiting for
            # (it counted alone instead) never spends a token later
            try:
                await conn.execute(
                    f"SET statement_timeout = {max(1, int(self.timeout * 1000))}")
            except BaseException:
                await conn.close()
                raise
            self._conn = conn
        return conn

    def _failed(self, exc: BaseException) -> None:
        """Count in this process for a while; warn once until the buckets are back."""
        self._down_until = time.monotonic() + self.pause
        if not self.down:
            self.down = True
            why = "no answer in time" if isinstance(exc, TimeoutError) else one_line(exc)
            log.warning("limits: cannot reach the shared rate limits on PostgreSQL (%s); "
                        "this server counts each address's requests alone until it can",
                        why)

    async def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error, OSError):
                await conn.close()

    async def close(self) -> None:
        """See :meth:`~dominolab.web.limits.SharedBuckets.close`."""
        await self._drop()


__all__ = ["CREATE", "CREATE_SPENT", "SPENT", "SWEEP", "TABLE", "TAKE", "PgBuckets"]
