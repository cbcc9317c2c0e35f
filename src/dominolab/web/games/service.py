"""The web app's games: one coordinator, :class:`GameService`, over small collaborators that
each keep one concern of a live game, found by name:

- :mod:`~dominolab.web.games.live`: one game in memory, its connections and seats' tokens;
- :mod:`~dominolab.web.games.registry`: the games in memory and the topics listened to;
- :mod:`~dominolab.web.games.creator`: new games, invitations and rematches;
- :mod:`~dominolab.web.games.moves`: a seat's move checked, stored, made and announced;
- :mod:`~dominolab.web.games.computer`: the computer's turns and the hints;
- :mod:`~dominolab.web.games.sockets`: who is connected, and telling them;
- :mod:`~dominolab.web.games.peers`: other servers' changes caught up with;
- :mod:`~dominolab.web.games.clocks`: the clocks of lobby and rated computer matches;
- :mod:`~dominolab.web.games.finisher`: what follows a finished game;
- :mod:`~dominolab.web.games.expiry`: old games deleted, gone ones forgotten.

The server is authoritative, and the database is the one source of truth: a move is checked
by the engine on a copy of the match, committed to the store, and only then installed in
memory and announced. Everything here runs on the server's event loop. The database works in
a thread of its own (:class:`~dominolab.web.storage.store.AsyncStore`); the computer's
thinking and hints run in a bounded pool of worker processes with a fair queue
(:mod:`dominolab.web.games.compute`), and they see nothing but a seat's
:class:`~dominolab.core.View`. Players and their ratings are the community's: what follows a
rated match is wired in from above (:meth:`GameService.rate_with`).
"""

from __future__ import annotations

import logging
import os
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import Any

from dominolab.core import Match, get_game, match_record
from dominolab.players.base import Budget
from dominolab.players.hints import HINT_BUDGET
from dominolab.web.errors import ApiError
from dominolab.web.games.chat import Chat
from dominolab.web.games.clocks import Clocks
from dominolab.web.games.compute import ComputePool
from dominolab.web.games.computer import Computer
from dominolab.web.games.creator import Creator
from dominolab.web.games.expiry import Expiry
from dominolab.web.games.finisher import Finisher, Ratings
from dominolab.web.games.live import ID_RE, Connection, LiveGame, player_json, seat_of
from dominolab.web.games.moves import Moves
from dominolab.web.games.payload import replay_frames, rules_json
from dominolab.web.games.peers import Peers
from dominolab.web.games.registry import Registry
from dominolab.web.games.review import Reviewer, may_review
from dominolab.web.games.sockets import Sockets
from dominolab.web.limits import Limiter, Limits
from dominolab.web.metrics import Metrics
from dominolab.web.storage.events import Events
from dominolab.web.storage.store import (
    DATABASE_ERRORS,
    AsyncStore,
    GameRow,
    PlayerRow,
    Store,
    unavailable,
)

log = logging.getLogger("dominolab.web")


class GameService:
    """Every game of one server, over one :class:`Store`."""

    def __init__(self, store: Store, *, computer_delay: float | None = None,
                 hint_budget: Any = None, review_budget: Budget | None = None,
                 seeds: Callable[[], int] | None = None,
                 max_live: int = 2000, limits: Limits | None = None,
                 workers: int | None = None, clock: Callable[[], float] | None = None,
                 events: Events | None = None, metrics: Metrics | None = None) -> None:
        #: what this server counts for ``/metrics`` (:mod:`dominolab.web.metrics`)
        self.metrics = metrics or Metrics()
        self.store = AsyncStore(store, store.reader(), on_write=self.metrics.wrote)
        #: where committed changes are announced (:mod:`dominolab.web.storage.events`)
        self.events = events or Events()
        self.limits = limits or Limits()
        #: the wall clock, for when games were made and last moved (tests move it on)
        self.clock = clock or time.time
        if computer_delay is None:
            computer_delay = float(os.environ.get("DOMINOLAB_COMPUTER_DELAY", "0.4"))
        if workers is None:
            # at least two: one client's long searches then hold one worker at most
            # (ComputePool.max_running_per_client), and a quick move finds the other; the
            # workers run at a lower priority than this process, so the event loop comes
            # first even when every core is searching
            workers = max(2, os.cpu_count() or 2)
        self.pool = ComputePool(workers, max_queued_per_client=self.limits.queued_per_client,
                                on_wait=self.metrics.waited)
        limits = self.limits
        #: where every server on the database keeps its clients' rates (None: in-process)
        self.buckets = store.buckets()
        #: new games (and invitations claimed) per client: the lobby's matches draw on it
        self.game_limit = self.limiter("games", limits.games_per_minute, limits.games_burst)
        # the collaborators, each over those it needs (none over this coordinator)
        self.registry = Registry(self.store, self.events, self.clock, max_live, self.metrics)
        #: the games in memory, by id (the registry's)
        self.games = self.registry.games
        self.sockets = Sockets(self.registry, limits)
        self.finisher = Finisher()
        self.clocks = Clocks(self.registry, self.sockets, self.finisher)
        self.expiry = Expiry(self.registry, self.sockets, self.finisher, limits)
        #: the seats' canned messages (docs/web.md, "Messages during a game")
        self.chat = Chat(self.registry, self.sockets,
                         self.limiter("messages", limits.messages_per_minute,
                                      limits.messages_burst))
        self.peers = Peers(self.registry, self.sockets, self.clocks, self.expiry, self.chat)
        self.moves = Moves(self.registry, self.sockets, self.peers, self.clocks, self.finisher)
        self.computer = Computer(
            self.registry, self.sockets, self.moves, self.pool, delay=computer_delay,
            hint_budget=hint_budget or HINT_BUDGET,
            hint_limit=self.limiter("hints", limits.hints_per_minute, limits.hints_burst))
        #: the reviews of finished hands and matches (docs/web.md, "Review")
        self.reviewer = Reviewer(
            self.pool, self.limiter("reviews", limits.reviews_per_minute, limits.reviews_burst),
            review_budget)
        self.creator = Creator(
            self.registry, self.sockets, self.clocks, self.computer,
            seeds=seeds or (lambda: secrets.randbelow(2**53)), game_limit=self.game_limit)

    def rate_with(self, ratings: Ratings) -> None:
        """Apply rated matches' ratings with ``ratings`` once they end (and on the expiry
        sweep, those whose end found the database failing)."""
        self.finisher.ratings = ratings

    async def close(self) -> None:
        for live in list(self.games.values()):
            if live.computer is not None:
                live.computer.cancel()
            if live.clock_timer is not None:
                live.clock_timer.cancel()
        for task in list(self.registry.tasks):
            task.cancel()
        await self.pool.close()
        await self.events.close()
        if self.buckets is not None:
            await self.buckets.close()
        self.store.close()

    def spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``coro`` as a task of the service's own (:meth:`Registry.spawn`)."""
        self.registry.spawn(coro, name)

    def limiter(self, kind: str, per_minute: float, burst: int) -> Limiter:
        """The rate of ``kind`` requests per client, for every server on this database."""
        return Limiter(kind, per_minute, burst, self.buckets)

    def seed(self, opener: int | None) -> int:
        """A new game's seed (:meth:`Creator.seed`)."""
        return self.creator.seed(opener)

    # -- creating and finding games ----------------------------------------------------------
    async def create(self, game: str, options: Any, opponent: str, first: str,
                     client: str = "local", player: PlayerRow | None = None,
                     rated: bool = False, move_seconds: Any = None, key: str | None = None
                     ) -> tuple[LiveGame, str, str | None]:
        """A new game; returns it with seat 0's token and, against a friend, the one-time
        invitation for seat 1 (seat 1's token is minted when the invitation is claimed).
        ``player``: the named player who takes seat 0, if any, whose key is ``key``: their
        token is then :func:`~dominolab.web.games.live.game_seat_token` of the key and the
        game's id, so any device holding the key rejoins (random otherwise). ``rated``:
        the match counts for ``player``'s rating (against the computer only, to the default
        rules; 422 otherwise), and has a clock: ``move_seconds`` a move (None: the lobby's default;
        422 outside its range, or given for a casual game)."""
        return await self.creator.create(game, options, opponent, first, client, player,
                                         rated, move_seconds, key)

    async def rematch(self, live: LiveGame, seat: int, client: str = "local"
                      ) -> tuple[LiveGame, bool]:
        """The rematch of a finished match, asked for by ``seat``: the same game, options
        and opponent, and the seat that did not open the match's first hand opens the new
        one's. Each person keeps their seat, and their token reaches it: the new game has
        the old one's token hashes. Made once, in one transaction with the link to it, so
        every call from either seat (two at once included) gets the same game; returns it
        and whether this call made it. 409 before the match is over."""
        found, created = await self.creator.rematch(live, seat, client)
        return await self.get(found), created

    async def join(self, live: LiveGame, invite: Any, client: str = "local",
                   player: PlayerRow | None = None) -> str:
        """Claim a friend game's invitation (:meth:`Creator.join`)."""
        return await self.creator.join(live, invite, client, player)

    async def get(self, game_id: str) -> LiveGame:
        """The game, from memory or rebuilt from the database; 404 if there is none."""
        registry = self.registry
        live = self.games.pop(game_id, None)
        if live is not None:
            self.games[game_id] = live  # the most recently used goes last
            if self.events.shared:
                # the server that was thinking out the computer's move may have died
                self.computer.if_due(live, f"game {game_id}")
            return live
        if not ID_RE.match(game_id):
            raise ApiError(404, "there is no such game")
        # listened to before it is read: a change another server stores meanwhile is
        # caught up with below
        registry.watch(game_id)
        try:
            loaded = await self.store.load_game(game_id)
        except DATABASE_ERRORS as exc:
            registry.unwatch_unless_kept(game_id)
            log.error("could not load game %s: %s", game_id, exc)
            raise ApiError(503, "the game could not be read just now; try again in a moment",
                           retry_after=2) from None
        if loaded is None:
            registry.unwatch_unless_kept(game_id)
            raise ApiError(404, "there is no such game (it may have expired, been created on "
                                "another server, or its database was removed)")
        row, moves = loaded
        moved_at = row.created
        if row.move_seconds is not None:
            with unavailable("the game could not be read",
                             f"could not read game {game_id}'s clock"):
                moved_at = await self.store.moved_at(game_id) or row.created
        live = self.games.get(game_id)  # loaded meanwhile by another request
        if live is not None:
            return live
        match = _new_match(row)
        for ply, (seat, text) in enumerate(moves):
            if match.to_move != seat:
                log.error("stored game %s is damaged at move %d", game_id, ply + 1)
                raise ApiError(500, f"stored game {game_id} is damaged at move {ply + 1}")
            match.apply(match.parse_move(text))
        live = LiveGame(row, match, len(moves), moved_at=moved_at)
        registry.keep(live)
        if game_id in registry.stale:
            registry.stale.discard(game_id)
            registry.spawn(self.peers.on_game_event(f"game:{game_id}", {}),
                           f"catch up {game_id}")
        if self.events.shared:  # who is connected to the other servers?
            await self.events.publish(f"game:{game_id}", {"ask": self.events.instance})
        self.computer.if_due(live, f"game {game_id}")
        self.clocks.due(live)
        return live

    def install(self, row: GameRow) -> LiveGame:
        """A new game just stored (a lobby match), put in memory with its clock running."""
        live = LiveGame(row, _new_match(row), 0, moved_at=row.created)
        self.registry.keep(live)
        self.clocks.due(live)
        return live

    async def seat_for(self, live: LiveGame, token: str | None) -> int:
        """:meth:`seat_of`; with servers that share the store, a token refused here is
        checked again against the stored game (its invitation may have been claimed on
        another server a moment ago)."""
        try:
            return seat_of(live, token)
        except ApiError as exc:
            # only an unclaimed invitation's seat can gain a token elsewhere
            if exc.status != 403 or not self.events.shared or live.row.invite is None:
                raise
        with unavailable("the game could not be read", f"game {live.id}: could not read it again"):
            async with live.lock:
                await self.peers.catch_up(live)
        return seat_of(live, token)

    # -- moves, hints, records, replays ------------------------------------------------------
    async def act(self, live: LiveGame, seat: int, text: Any, version: Any,
                  client: str = "local") -> None:
        """Check ``seat``'s move, store it, then make it and tell everyone; 409/422 when it
        is refused, 503 when it cannot be stored (then nothing changed)."""
        await self.moves.act(live, seat, text, version)
        self.computer.if_due(live, client)

    async def hint(self, live: LiveGame, seat: int, client: str = "local") -> dict[str, Any]:
        """The moves ``seat`` could make now, best first (:meth:`Computer.hint`)."""
        return await self.computer.hint(live, seat, client)

    async def review(self, live: LiveGame, seat: Any, token: str | None,
                     client: str = "local", width: str = "wide") -> dict[str, Any]:
        """``seat``'s review of ``live``'s finished hands (:meth:`Reviewer.review`): anyone's
        once the match is over; until then only with the seat's token, and never in a rated
        match. 422 for a seat that is not 0 or 1."""
        if seat not in ("0", "1", 0, 1):
            raise ApiError(422, f"seat must be 0 or 1, not {str(seat)[:20]!r}")
        number = int(seat)
        token_seat = None
        if not live.over:
            token_seat = await self.seat_for(live, token)
        may_review(live, number, token_seat)
        return await self.reviewer.review(live, number, _new_match(live.row), client, width)

    async def say(self, live: LiveGame, seat: int, phrase: Any) -> None:
        """Send ``seat``'s canned message to both seats (:meth:`Chat.say`)."""
        await self.chat.say(live, seat, phrase)

    def record(self, live: LiveGame) -> dict[str, Any]:
        _require_over(live)
        names = ("seat 0 (you)", f"computer ({live.row.opponent})") \
            if live.row.mode == "computer" else ("seat 0", "seat 1")
        return match_record(live.match, players=names)

    def replay(self, live: LiveGame, width: str) -> dict[str, Any]:
        """The finished match's frames, and what a page needs to show them without a
        seat: the game, its rules, the mode, the computer's level and the players."""
        _require_over(live)
        row = live.row
        return {"frames": replay_frames(live.match, width), "game": row.game,
                "rules": rules_json(live.match.spec), "mode": row.mode,
                "opponent": row.opponent, "players": [player_json(p) for p in row.players],
                "rated": row.rated}

    # -- connections -------------------------------------------------------------------------
    async def attach(self, live: LiveGame, conn: Connection) -> None:
        """A seat or a spectator connected: send it the state; tell the others if that
        changes who is connected or how many watch. A spectator past a limit is refused
        with :class:`ApiError` before anything is sent: 429 when its address watches
        ``limits.watchers_per_client`` games, 409 when the game has
        ``limits.watchers_per_game`` spectators, 503 when the server has
        ``limits.watchers_total``."""
        if self.events.shared:
            # another server may have stored moves whose announcement has not arrived (or
            # never will: it was killed in between); this seat may be moving over from it
            try:
                async with live.lock:
                    changed = await self.peers.catch_up(live)
            except DATABASE_ERRORS as exc:
                log.warning("game %s: could not catch up on connecting: %s", live.id, exc)
                changed = False
            if changed:
                await self.sockets.broadcast(live)
        await self.sockets.add(live, conn)
        # the server that was playing the computer's move may be gone
        self.computer.if_due(live, f"game {live.id}")

    def detach(self, live: LiveGame, conn: Connection) -> None:
        """A connection ended (:meth:`Sockets.detach`)."""
        self.sockets.detach(live, conn)

    @property
    def watchers(self) -> int:
        """How many spectators this server has connected."""
        return self.sockets.watchers

    # -- clocks and expiry -------------------------------------------------------------------
    async def time_out(self, live: LiveGame, version: int) -> bool:
        """End the match by time if the player to move at ``version`` ran out of it
        (:meth:`Clocks.time_out`)."""
        return await self.clocks.time_out(live, version)

    async def sweep_clocks(self) -> int:
        """End every stored game whose clock ran out; returns how many this call ended."""
        return await self.clocks.sweep(self.get)

    async def expire(self, now: float | None = None) -> int:
        """Delete abandoned unfinished games and long-finished ones; returns how many."""
        return await self.expiry.expire(now)

    async def expire_forever(self) -> None:
        """Expire old games now and every ``limits.sweep_every`` seconds
        (:meth:`Expiry.expire_forever`)."""
        await self.expiry.expire_forever()


def _new_match(row: GameRow) -> Match:
    """The match of the stored game ``row`` at its start."""
    spec = get_game(row.game)
    return Match(spec, spec.options_class.from_dict(row.options), seed=row.seed,
                 first_opener=row.first_opener)


def _require_over(live: LiveGame) -> None:
    if not live.over:
        raise ApiError(409, "the record and the replay are there once the match is over "
                            "(until then they would show hidden tiles)")
