"""How much one client may ask of the server, and how long games are kept.

A client is an address: the TCP peer, or, when the peer is a proxy trusted with
``dominolab serve --forwarded-allow-ips`` (none is by default), the address that proxy gives
in ``X-Forwarded-For``. Creating games, claiming invitations and hints each draw from the
client's bucket for that kind of request; an empty bucket is a 429 with ``Retry-After``.
A client's open connections are bounded in all (web/edge/guard.py) and by kind: seats',
spectators' and lobby sockets (docs/web.md, "Faults and abuse", "Spectators").

The rates hold for every server on one database: a :class:`Limiter` keeps its buckets in
this process (:class:`RateLimiter`: an SQLite file has one process), or, given the store's
:class:`SharedBuckets` (PostgreSQL's, :mod:`dominolab.web.storage.pglimits`), in the
database, where every server draws on the same bucket. When the shared buckets cannot be
reached, a limiter draws on its own process's instead (it fails open, to the per-process
limits: docs/web.md, "Limits across servers"). The socket counts stay per process: they
bound a process's own open files.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

DAY: Final = 86_400.0
#: who may run studies: nobody, the server's own machine, everyone (``serve --lab``)
LAB_MODES: Final = ("off", "local", "everyone")


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's limits (``dominolab serve --help`` names the flags that set them)."""

    #: new games (and invitations claimed) a client may make per minute, on average
    games_per_minute: float = 20.0
    #: ... and at once, after a quiet while
    games_burst: int = 10
    #: hints a client may ask for per minute, on average, and at once
    hints_per_minute: float = 30.0
    hints_burst: int = 10
    #: reviews a client may have worked out per minute, on average, and at once (a review
    #: already worked out, kept for its game, is free)
    reviews_per_minute: float = 10.0
    reviews_burst: int = 5
    #: new players a client may make per minute, on average, and at once
    players_per_minute: float = 5.0
    players_burst: int = 5
    #: device codes (link and recovery) one player, or one client, may make per minute, on
    #: average, and at once (community/devices.py)
    codes_per_minute: float = 3.0
    codes_burst: int = 5
    #: codes one client may try to claim per minute, on average, and at once (a wrong
    #: code counts: 8 characters of 32 cannot be guessed at this rate)
    claims_per_minute: float = 5.0
    claims_burst: int = 10
    #: puzzle answers a client may send per minute, on average, and at once
    #: (community/puzzles.py)
    puzzle_answers_per_minute: float = 30.0
    puzzle_answers_burst: int = 20
    #: how long a link code may be claimed, in seconds
    link_code_lifetime: float = 600.0
    #: jobs (computer moves and hints) one client may have waiting for a worker
    queued_per_client: int = 200
    #: seeks (and quick pairings) a client may open per minute, on average, and at once
    seeks_per_minute: float = 20.0
    seeks_burst: int = 10
    #: canned messages one seat of a game may send per minute, on average, and at once
    messages_per_minute: float = 6.0
    messages_burst: int = 3
    #: open seeks one player may have at a time
    open_seeks_per_player: int = 3
    #: lobby WebSockets one client may hold open at a time (in one server process)
    lobby_sockets_per_client: int = 8
    #: how often the lobby says this process is alive and looks for seeks whose process
    #: died and for clocks that ran out in games no process is watching
    lobby_sweep_every: float = 10.0
    #: a lobby socket whose process has not said it is alive for this long is gone
    lobby_socket_timeout: float = 60.0
    #: an unfinished game nobody has moved in for this long is deleted
    abandoned_after: float = 7 * DAY
    #: a finished game is kept this long after its last move (its record and replay)
    finished_kept: float = 30 * DAY
    #: how often expired games are looked for
    sweep_every: float = 600.0
    #: spectators' sockets one client may have open at once (over all games)
    watchers_per_client: int = 10
    #: spectators one game may have at once
    watchers_per_game: int = 100
    #: spectators the server takes at once
    watchers_total: int = 5000
    #: connections one client may hold open at once, of every kind (plain HTTP and every
    #: WebSocket); past it a new one gets a 429 and is closed before it is read
    sockets_per_client: int = 64
    #: seats' sockets one client may hold open at once (over all games and seats)
    seat_sockets_per_client: int = 20
    #: seconds a connection has to send a request's whole head (from its opening, or from
    #: the first byte of a later request on it)
    head_timeout: float = 10.0
    #: seconds an idle keep-alive connection is kept after its last answer
    keep_alive_timeout: float = 5.0
    #: seconds a new WebSocket has to say hello
    hello_timeout: float = 10.0
    #: who may run studies (the lab, docs/web.md): ``"local"`` the server's own machine
    #: (127.0.0.1, ::1: ``make play``), ``"everyone"``, or ``"off"``
    lab: str = "local"
    #: matches one study may play, every variant together
    lab_matches_per_study: int = 20_000
    #: matches one client may start per hour (its studies' matches, counted when started)
    lab_matches_per_hour: int = 100_000
    #: studies one client may have running at once, and the server in all
    lab_studies_per_client: int = 2
    lab_studies_total: int = 4

    def __post_init__(self) -> None:
        for name in ("games_per_minute", "hints_per_minute", "reviews_per_minute",
                     "players_per_minute",
                     "codes_per_minute", "claims_per_minute", "link_code_lifetime",
                     "puzzle_answers_per_minute",
                     "abandoned_after",
                     "finished_kept", "sweep_every", "seeks_per_minute", "lobby_sweep_every",
                     "messages_per_minute",
                     "lobby_socket_timeout", "head_timeout", "keep_alive_timeout",
                     "hello_timeout"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise ValueError(f"{name} must be a positive number, not {value!r}")
        for name in ("games_burst", "hints_burst", "reviews_burst", "players_burst", "codes_burst",
                     "claims_burst", "puzzle_answers_burst", "queued_per_client",
                     "seeks_burst", "messages_burst", "open_seeks_per_player",
                     "lobby_sockets_per_client",
                     "watchers_per_client", "watchers_per_game", "watchers_total",
                     "sockets_per_client", "seat_sockets_per_client",
                     "lab_matches_per_study", "lab_matches_per_hour",
                     "lab_studies_per_client", "lab_studies_total"):
            value = getattr(self, name)
            if not (isinstance(value, int) and value >= 1):
                raise ValueError(f"{name} must be a whole number of at least 1, not {value!r}")
        if self.lab not in LAB_MODES:
            raise ValueError(f"lab must be {', '.join(LAB_MODES)}, not {self.lab!r}")


class RateLimited(Exception):
    """Too many requests of one kind from one client; try again after ``retry_after`` s."""

    def __init__(self, retry_after: float) -> None:
        super().__init__(f"try again in {retry_after:.1f} s")
        self.retry_after = retry_after


class RateLimiter:
    """A token bucket per client: ``burst`` requests at once, refilled at ``per_minute``.

    At most ``max_clients`` buckets are kept; the least recently seen go first (a client
    forgotten that way starts again with a full bucket, which only ever errs towards
    letting a request through)."""

    def __init__(self, per_minute: float, burst: int, *, max_clients: int = 100_000,
                 clock: Callable[[], float] | None = None) -> None:
        self.rate = per_minute / 60.0
        self.burst = float(burst)
        self.max_clients = max_clients
        self.clock = clock or time.monotonic
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def take(self, client: str) -> None:
        """Spend one request of ``client``'s; :class:`RateLimited` if it has none left."""
        now = self.clock()
        tokens, then = self._buckets.pop(client, (self.burst, now))
        tokens = min(self.burst, tokens + (now - then) * self.rate)
        if tokens < 1.0:
            self._buckets[client] = (tokens, now)
            raise RateLimited((1.0 - tokens) / self.rate)
        self._buckets[client] = (tokens - 1.0, now)
        while len(self._buckets) > self.max_clients:
            self._buckets.popitem(last=False)


class BucketsUnreachable(Exception):
    """The shared buckets could not be asked just now (the database is down or slow)."""


class SharedBuckets(Protocol):
    """Token buckets kept where every server process reaches them, with
    :class:`RateLimiter`'s arithmetic: ``burst`` at once, refilled at ``per_second``."""

    async def take(self, kind: str, client: str, per_second: float, burst: float) -> None:
        """Spend one of ``client``'s ``kind`` requests; :class:`RateLimited` if none is
        left, :class:`BucketsUnreachable` if the buckets cannot be asked."""

    async def spend(self, kind: str, client: str, amount: int, cap: int,
                    window: float) -> None:
        """Spend ``amount`` of ``client``'s ``kind``, of which at most ``cap`` may be spent
        over any ``window`` seconds (:class:`WindowLimiter`); :class:`WindowFull` if it would
        pass that, :class:`BucketsUnreachable` if the buckets cannot be asked."""

    async def close(self) -> None:
        """Let go of the connection (if any)."""


class Limiter:
    """The rate of one ``kind`` of request (``"games"``, ``"hints"``...) per client: a
    :class:`RateLimiter` of this process's, or, given ``shared`` buckets, theirs, which hold
    for every server on the database; while those cannot be reached, this process's own
    (logged by ``shared``). Its :meth:`take` is awaited on both backends."""

    def __init__(self, kind: str, per_minute: float, burst: int,
                 shared: SharedBuckets | None = None, *,
                 clock: Callable[[], float] | None = None) -> None:
        self.kind = kind
        #: this process's buckets: the only ones without ``shared``, the fallback with them
        self.local = RateLimiter(per_minute, burst, clock=clock)
        self.shared = shared

    async def take(self, client: str) -> None:
        """Spend one request of ``client``'s; :class:`RateLimited` if it has none left."""
        if self.shared is None:
            self.local.take(client)
            return
        try:
            await self.shared.take(self.kind, client, self.local.rate, self.local.burst)
        except BucketsUnreachable:
            self.local.take(client)


class WindowFull(RateLimited):
    """``used`` of a client's cap is spent within the window: ``amount`` more would pass
    it; the oldest spending leaves the window in ``retry_after`` s."""

    def __init__(self, used: int, retry_after: float) -> None:
        super().__init__(retry_after)
        self.used = used


class WindowLimiter:
    """At most ``cap`` of one ``kind`` of quantity (the lab's matches) spent per client over
    any ``window`` seconds: in this process's memory, or, given ``shared`` buckets, in
    theirs, for every server on the database (this process's while those cannot be
    reached, as :class:`Limiter` does)."""

    def __init__(self, kind: str, cap: int, window: float,
                 shared: SharedBuckets | None = None, *,
                 clock: Callable[[], float] | None = None) -> None:
        self.kind = kind
        self.cap = cap
        self.window = window
        self.shared = shared
        self.clock = clock or time.monotonic
        #: client -> (when, amount) spent within the window, oldest first (this process's)
        self._spent: dict[str, deque[tuple[float, int]]] = {}

    async def spend(self, client: str, amount: int) -> None:
        """Spend ``amount`` of ``client``'s; :class:`WindowFull` if it would pass the cap."""
        if self.shared is not None:
            try:
                await self.shared.spend(self.kind, client, amount, self.cap, self.window)
                return
            except BucketsUnreachable:
                pass
        self.spend_here(client, amount)

    def spend_here(self, client: str, amount: int) -> None:
        """:meth:`spend` in this process's memory alone."""
        now = self.clock()
        spent = self._spent.setdefault(client, deque())
        while spent and spent[0][0] <= now - self.window:
            spent.popleft()
        used = sum(a for _, a in spent)
        if used + amount > self.cap:
            raise WindowFull(used, self.window - (now - spent[0][0]) if spent
                             else self.window)
        spent.append((now, amount))
        for gone in [c for c, d in self._spent.items() if not d]:
            del self._spent[gone]
