"""The per-address rates of several servers on one PostgreSQL database (docs/web.md, "Limits
across servers"): one bucket per address and kind for all of them, spent atomically; when
the database cannot be asked, each server counts alone (and says so once), and goes back to
the shared buckets when it can.

SQLite's one process keeps its buckets in memory, as before (tests/test_web_limits.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dominolab.web.edge.process import ServerProcess
from dominolab.web.limits import Limiter, RateLimited
from dominolab.web.storage.pglimits import TABLE, PgBuckets
from dominolab.web.storage.store import Store
from loops import run_async
from pgserver import PostgresServer
from web_support import running

pytestmark = pytest.mark.timeout(180)

FRIEND_GAME = {"game": "luzak", "opponent": "friend", "first": "me"}


def post(server: ServerProcess, path: str, body: Any, source: str
         ) -> tuple[int, dict[str, str], Any]:
    """One JSON POST to ``server`` from loopback address ``source``: status, headers (lower
    case) and the decoded answer."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30,
                                      source_address=(source, 0))
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        answer = conn.getresponse()
        return (answer.status, {k.lower(): v for k, v in answer.getheaders()},
                json.loads(answer.read()))
    finally:
        conn.close()


@pytest.fixture
def two_servers(pg_url: str, tmp_path: Path) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    # one new game a minute after the first 10: none refills while the test floods
    with running([ServerProcess(pg_url, log=tmp_path / f"server{i}.log",
                                extra=("--games-per-minute", "1")) for i in range(2)]
                 ) as (a, b):
        yield a, b


def test_two_servers_flooded_from_one_address_give_one_server_s_budget(
        two_servers: tuple[ServerProcess, ServerProcess]) -> None:
    """Creations from one address, alternately on two servers: the first 10 (one bucket's
    burst) are made, every one after is 429 on both, with the wait of a bucket refilled at
    one a minute; another address still makes games on both."""
    a, b = two_servers
    answers = [post((a, b)[i % 2], "/api/games", FRIEND_GAME, "127.0.0.1") for i in range(20)]
    statuses = [status for status, _, _ in answers]
    assert statuses == [201] * 10 + [429] * 10, statuses
    for _, headers, body in answers[10:]:
        assert 55 <= int(headers["retry-after"]) <= 60, headers
        assert "too many new games" in body["error"]
    # another address has a bucket of its own, on both servers
    assert post(a, "/api/games", FRIEND_GAME, "127.0.0.2")[0] == 201
    assert post(b, "/api/games", FRIEND_GAME, "127.0.0.2")[0] == 201
    # and another kind of request from the flooding address is not held up
    status, _, _ = post(b, "/api/players", {"name": "Flooder"}, "127.0.0.1")
    assert status == 201
    for server in two_servers:
        assert "Traceback" not in server.log.read_text()


def test_two_servers_racing_for_the_last_tokens_spend_each_once(pg_url: str) -> None:
    """Many takes at once over two connections (two servers' buckets): exactly a bucket's
    burst of them are granted, and the refused ones say how long to wait."""

    async def run() -> None:
        shared = [PgBuckets(pg_url), PgBuckets(pg_url)]
        limiters = [Limiter("games", 6, 5, buckets) for buckets in shared]
        try:
            got = await asyncio.gather(*(limiters[i % 2].take("203.0.113.9")
                                         for i in range(40)), return_exceptions=True)
        finally:
            for buckets in shared:
                await buckets.close()
        granted = [g for g in got if g is None]
        refused = [g for g in got if isinstance(g, RateLimited)]
        assert len(granted) == 5 and len(refused) == 35, got
        # six a minute: the next token comes in at most 10 s
        assert all(0 < r.retry_after <= 10 for r in refused)

    Store(pg_url).close()  # the table, as a server's start makes it
    run_async(run(), timeout=60)


def test_the_buckets_refill_by_the_database_s_clock_and_are_swept(
        pg_url: str, postgres: PostgresServer) -> None:
    """A bucket refills at its rate; a bucket full again is deleted by the sweep; the table
    is unlogged (a crash empties it: every bucket full)."""
    database = postgres.name_of(pg_url)

    async def run() -> None:
        buckets = PgBuckets(pg_url, sweep_every=0)
        fast = Limiter("hints", 600, 1, buckets)  # one token every 0.1 s
        try:
            await fast.take("198.51.100.1")
            with pytest.raises(RateLimited) as refused:
                await fast.take("198.51.100.1")
            assert 0 < refused.value.retry_after <= 0.1
            deadline = time.monotonic() + 10
            while True:  # refilled within its 0.1 s (polled, with a deadline)
                try:
                    await fast.take("198.51.100.1")
                    break
                except RateLimited:
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.02)
            # full again 0.1 s after the last take: another address's take sweeps it away
            deadline = time.monotonic() + 10
            while postgres.execute(f"SELECT client FROM {TABLE} WHERE client = "
                                   f"'198.51.100.1'", database):
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
                with contextlib.suppress(RateLimited):  # swept whether it is spent or not
                    await fast.take("198.51.100.2")
        finally:
            await buckets.close()

    Store(pg_url).close()
    run_async(run(), timeout=60)
    [(persistence,)] = postgres.execute(
        f"SELECT relpersistence FROM pg_class WHERE relname = '{TABLE}'", database)
    assert persistence == "u"


def test_without_the_database_each_server_counts_alone_and_then_shares_again(
        pg_url: str, postgres: PostgresServer, caplog: pytest.LogCaptureFixture) -> None:
    """The database refuses connections: takes fall back to this process's bucket (fail
    open to the per-process limits, still limited), with one warning, however many takes;
    once it takes connections again the shared bucket (spent before the outage) counts
    again, and the log says so."""
    database = postgres.name_of(pg_url)

    async def run() -> None:
        buckets = PgBuckets(pg_url, pause=0.2)
        limiter = Limiter("games", 1, 3, buckets)
        try:
            for _ in range(3):
                await limiter.take("192.0.2.1")
            with pytest.raises(RateLimited):
                await limiter.take("192.0.2.1")  # shared: spent
            postgres.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS false")
            postgres.execute("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity "
                             f"WHERE datname = '{database}'")
            try:
                for _ in range(3):  # this process's own bucket, full
                    await limiter.take("192.0.2.1")
                with pytest.raises(RateLimited):
                    await limiter.take("192.0.2.1")  # and still a limit
                assert buckets.down
            finally:
                postgres.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS true")
            deadline = time.monotonic() + 20
            while buckets.down:  # asked again after the pause
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
                await limiter.take("192.0.2.99")
            with pytest.raises(RateLimited) as refused:
                await limiter.take("192.0.2.1")  # the shared bucket is still spent
            assert 50 < refused.value.retry_after <= 60
        finally:
            await buckets.close()

    Store(pg_url).close()
    caplog.set_level(logging.INFO, "dominolab.web")
    run_async(run(), timeout=90)
    said = [r.getMessage() for r in caplog.records if r.name == "dominolab.web"]
    assert len([m for m in said if "cannot reach the shared rate limits" in m]) == 1, said
    assert any("shared rate limits on PostgreSQL are back" in m for m in said), said


def test_a_database_too_slow_to_answer_is_not_waited_for(
        pg_url: str, postgres: PostgresServer) -> None:
    """Another connection holds the bucket's row locked: the take gives up at its deadline
    and counts in this process; once the row is free the shared bucket is used again."""
    import psycopg

    async def run() -> None:
        buckets = PgBuckets(pg_url, timeout=0.5, pause=0.1)
        limiter = Limiter("seeks", 1, 2, buckets)
        try:
            await limiter.take("192.0.2.7")  # the row exists; one token left
            async with await psycopg.AsyncConnection.connect(pg_url) as holder:
                await holder.execute(f"SELECT * FROM {TABLE} FOR UPDATE")
                started = time.monotonic()
                await limiter.take("192.0.2.7")  # not waited for: this process's bucket
                assert time.monotonic() - started < 3
                assert buckets.down
            deadline = time.monotonic() + 20
            while buckets.down:
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)
                await limiter.take("192.0.2.99")
            await limiter.take("192.0.2.7")  # the shared bucket's last token
            with pytest.raises(RateLimited):
                await limiter.take("192.0.2.7")
        finally:
            await buckets.close()

    Store(pg_url).close()
    run_async(run(), timeout=60)
