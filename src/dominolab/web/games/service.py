"""The web app's games: creating them, seats and tokens, moves, the computer's turns, and
telling every connected seat what changed. The server is authoritative, and the database is
the one source of truth: a move is checked by the engine on a copy of the match, committed
to the store, and only then installed in memory and announced. A write that fails leaves
memory as it was, tells every open socket of the game its current state again, and answers
503; nothing out of turn can ever be stored.

Everything here runs on the server's event loop. The database works in a thread of its own
(:class:`~dominolab.web.storage.store.AsyncStore`); the computer's thinking and hints run in a
bounded pool of worker processes with a fair queue (:mod:`dominolab.web.games.compute`), and
they see nothing but a seat's :class:`~dominolab.core.View`.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import math
import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, Final

from dominolab.core import (
    GAMES,
    RULES_VERSION,
    AmbiguousMoveError,
    DominoError,
    IllegalMoveError,
    InvalidMoveError,
    Match,
    Move,
    OptionError,
    first_opener_by_lot,
    get_game,
    match_record,
)
from dominolab.players import LEVELS
from dominolab.players.hints import HINT_BUDGET, immediate_points, rank, same_as, win_chance
from dominolab.web.community.names import NameRefused, check_name, skeleton
from dominolab.web.community.ratings import (
    PROVISIONAL_RD,
    NotCounted,
    change_json,
    is_default,
    levels_json,
    rating_json,
    reckon,
)
from dominolab.web.edge.limits import Limits, RateLimited, RateLimiter
from dominolab.web.games.compute import ComputePool, PoolBusy, analyse_hint, choose_move
from dominolab.web.games.layout import TableLayout
from dominolab.web.games.payload import (
    WIDTHS,
    previous_hand_json,
    replay_frames,
    rules_json,
    seat_state,
    seen_step_json,
)
from dominolab.web.storage.events import Events
from dominolab.web.storage.store import (
    DATABASE_ERRORS,
    AsyncStore,
    GameResult,
    GameRow,
    MoveConflict,
    PlayerRef,
    PlayerRow,
    RatingChange,
    RatingConflict,
    Store,
)

log = logging.getLogger("dominolab.web")

#: game ids and tokens are URL-safe base64
_ID_RE: Final = re.compile(r"^[A-Za-z0-9_-]{8,40}$")
OPPONENTS: Final = (*LEVELS, "friend")
FIRST: Final = ("me", "opponent", "lot")
#: a lobby game's clock: the seconds each move may take, by default and at the least and
#: the most (docs/web.md, "Clocks")
MOVE_SECONDS: Final = 120
MOVE_SECONDS_RANGE: Final = (30, 600)
#: a clock is enforced this long after it ran out: a move sent in the last second still
#: reaches the server in time
CLOCK_GRACE: Final = 2.0


class ApiError(Exception):
    """A refused request: an HTTP status and a sentence for a person."""

    def __init__(self, status: int, message: str, *, retry_after: float | None = None
                 ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        #: seconds, sent as ``Retry-After`` (429, 503)
        self.retry_after = retry_after


class NotStored(ApiError):
    """A move that could not be stored, and so was not made."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


#: how every state message begins (the state follows, then one closing brace)
_MESSAGE_HEAD: Final = '{"type":"state","state":'

#: sends one JSON text to one connection; raises if the connection is gone
Sender = Callable[[str], Awaitable[None]]
#: closes one connection with a code and a reason
Closer = Callable[[int, str], Coroutine[Any, Any, None]]


async def _no_close(code: int, reason: str) -> None:
    return None


@dataclass(eq=False)
class Connection:
    """One open WebSocket of a seat, or of a spectator (``seat`` None)."""

    seat: int | None
    width: str
    send: Sender
    close: Closer = _no_close
    #: the address it came from (spectators are counted per address)
    client: str = "local"
    #: one send at a time, so updates arrive in order
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


@dataclass(eq=False)
class LiveGame:
    """A game in memory: the stored row, the engine's match and who is connected."""

    row: GameRow
    match: Match
    version: int
    connections: list[Connection] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    hint_lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    computer: asyncio.Task[None] | None = None
    #: the table layouts of (hand number, width), shared by both seats' payloads
    layouts: dict[tuple[int, str], TableLayout] = field(default_factory=dict)
    #: this hand's steps as each seat (None: the spectators) sees them, by (hand number,
    #: seat)
    histories: dict[tuple[int, int | None], list[dict[str, Any]]] = field(
        default_factory=dict)
    #: the previous hand, encoded, by (hand number, seat, width)
    previous_texts: dict[tuple[int, int | None, str], str] = field(default_factory=dict)
    #: state messages by (version, connected, watching, seat, width, rematch): the
    #: spectators' are keyed by seat None, apart from either seat's
    messages: dict[tuple[int, tuple[bool, bool], int, int | None, str, str | None], str] = (
        field(default_factory=dict))
    #: when the last move was stored (the game's creation before any): a clock runs from it
    moved_at: float = 0.0
    #: the call that ends the game when its clock runs out
    clock_timer: asyncio.TimerHandle | None = None
    #: the seats connected to other servers on the same database, by server
    remote: dict[str, tuple[bool, bool]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def computer_seat(self) -> int | None:
        return 1 if self.row.mode == "computer" else None

    @property
    def over(self) -> bool:
        """Whether the match is over: played out, or ended another way (a clock)."""
        return self.match.is_over or self.row.finished

    @property
    def deadline(self) -> float | None:
        """When the player to move runs out of time (epoch seconds); None without a clock
        or once the match is over."""
        if self.row.move_seconds is None or self.over:
            return None
        return self.moved_at + self.row.move_seconds

    def connected(self) -> tuple[bool, bool]:
        """Which seats are connected: here, on another server, or the computer."""
        here = self.connected_here()
        seats = {seat for seat in (0, 1) if here[seat]}
        if self.computer_seat is not None:
            seats.add(self.computer_seat)
        for there in self.remote.values():
            seats.update(seat for seat in (0, 1) if there[seat])
        return (0 in seats, 1 in seats)

    def connected_here(self) -> tuple[bool, bool]:
        """Which seats have a connection to this server."""
        seats = {c.seat for c in self.connections}
        return (0 in seats, 1 in seats)

    def watching(self) -> int:
        """How many spectators are connected."""
        return sum(1 for c in self.connections if c.seat is None)

    def presence(self) -> tuple[tuple[bool, bool], int]:
        """Who is connected and how many watch: every state shows both."""
        return self.connected(), self.watching()

    def layout(self, number: int, width: str) -> TableLayout:
        """Hand ``number``'s table laid out, kept and extended tile by tile (a layout never
        moves a tile already laid, so extending it equals laying it out afresh)."""
        placements = self.match.hands[number - 1].table_placements
        key = (number, width)
        found = self.layouts.get(key)
        if found is None or len(found.tiles) > len(placements):
            if len(self.layouts) > 8:
                self.layouts.clear()
            found = TableLayout(self.match.spec.name, self.match.options, width)
            self.layouts[key] = found
        for mv in placements[len(found.tiles):]:
            found.place(mv)
        return found

    def message(self, seat: int | None, width: str) -> str:
        """The WebSocket message with ``seat``'s state now (None: a spectator's), built once
        per version, who is connected and watching, seat, width and rematch (a move's
        update goes to every connection)."""
        key = (self.version, self.connected(), self.watching(), seat, width, self.row.rematch)
        text = self.messages.get(key)
        if text is None:
            if len(self.messages) > 16:
                self.messages.clear()
            text = self.messages[key] = f'{_MESSAGE_HEAD}{self.state_text(seat, width)}}}'
        return text

    def state(self, seat: int | None, width: str = "wide") -> dict[str, Any]:
        """What ``seat`` sees now (docs/web.md, STATE; None: a spectator)."""
        state: dict[str, Any] = json.loads(self.state_text(seat, width))
        return state

    def watch_text(self, width: str = "wide") -> str:
        """A spectator's state now as JSON text, from the spectators' message cache (so
        polling ``GET /api/games/ID/watch`` costs a lookup while nothing changes)."""
        message = self.message(None, width)
        return message[len(_MESSAGE_HEAD):-1]

    def state_text(self, seat: int | None, width: str = "wide") -> str:
        """:meth:`state` as JSON text, built from caches: a move's update is sent to every
        connection, so this is the server's hot path."""
        match = self.match
        number = match.hand_number
        game = match.spec.name
        # this hand's steps as this seat sees them: they only ever grow
        steps = match.steps[-1]
        history = self.histories.get((number, seat))
        if history is None or len(history) > len(steps):
            history = self.histories[(number, seat)] = []
        history.extend(seen_step_json(game, s, seat) for s in steps[len(history):])
        rematch = None if self.row.rematch is None else \
            {"id": self.row.rematch, "by": self.row.rematch_by}
        state = seat_state(
            match, seat, game_id=self.id, mode=self.row.mode, opponent=self.row.opponent,
            version=self.version, connected=self.connected(), width=width,
            layout=self.layout(number, width), history=history, with_previous=False,
            rematch=rematch, watching=self.watching(),
        )
        ended = self.row.result
        if ended is not None and not match.is_over:
            # ended another way than by play (a clock ran out): nobody is to move
            state.update(to_move=None, legal=[], match_result={
                "end": ended.ended_by, "winner": ended.winner, "totals": list(ended.points),
                "hands": match.hand_number})
        state["deadline"] = self.deadline
        state["move_seconds"] = self.row.move_seconds
        text = json.dumps(state, separators=(",", ":"))
        # the previous hand never changes: encoded once
        key = (number, seat, width)
        previous = self.previous_texts.get(key)
        if previous is None:
            prev_layout = self.layout(number - 1, width) if number > 1 else None
            previous = json.dumps(previous_hand_json(match, seat, width, prev_layout),
                                  separators=(",", ":"))
            self.previous_texts[key] = previous
        players = json.dumps([player_json(p) for p in self.row.players],
                             separators=(",", ":"))
        return f'{text[:-1]},"players":{players},"previous_hand":{previous}}}'


class GameService:
    """Every game of one server, over one :class:`Store`."""

    def __init__(self, store: Store, *, computer_delay: float | None = None,
                 hint_budget: Any = None, seeds: Callable[[], int] | None = None,
                 max_live: int = 2000, limits: Limits | None = None,
                 workers: int | None = None, clock: Callable[[], float] | None = None,
                 events: Events | None = None) -> None:
        self.store = AsyncStore(store, store.reader())
        #: where committed changes are announced (:mod:`dominolab.web.storage.events`)
        self.events = events or Events()
        #: games kept in memory; beyond this the least recently used idle ones are dropped
        #: (they are rebuilt from the database when asked for again)
        self.max_live = max_live
        #: where new games' seeds come from (tests give a seeded generator)
        self.seeds = seeds or (lambda: secrets.randbelow(2**53))
        if computer_delay is None:
            computer_delay = float(os.environ.get("DOMINOLAB_COMPUTER_DELAY", "0.4"))
        #: the least time the computer takes over a move, so that a person sees it happen
        self.computer_delay = computer_delay
        self.hint_budget = hint_budget or HINT_BUDGET
        self.limits = limits or Limits()
        #: the wall clock, for when games were made and last moved (tests move it on)
        self.clock = clock or time.time
        self.games: dict[str, LiveGame] = {}
        self._game_limit = RateLimiter(self.limits.games_per_minute, self.limits.games_burst)
        self._hint_limit = RateLimiter(self.limits.hints_per_minute, self.limits.hints_burst)
        self._player_limit = RateLimiter(self.limits.players_per_minute,
                                         self.limits.players_burst)
        #: players by the hash of their key, as they were last read (a name never changes)
        self._players: dict[str, PlayerRow] = {}
        if workers is None:
            # at least two: one client's long searches then hold one worker at most
            # (ComputePool.max_running_per_client), and a quick move finds the other; the
            # workers run at a lower priority than this process, so the event loop comes
            # first even when every core is searching
            workers = max(2, os.cpu_count() or 2)
        self.pool = ComputePool(workers, max_queued_per_client=self.limits.queued_per_client)
        #: tasks that must outlive the request or connection that started them
        self._tasks: set[asyncio.Task[None]] = set()
        #: spectators connected, by address, and in all
        self._watchers: dict[str, int] = {}
        self.watchers = 0
        #: the games whose topic this server listens to, and how to stop listening
        self._watching: dict[str, Callable[[], None]] = {}
        #: games told of a change while they were being loaded: caught up once loaded
        self._stale: set[str] = set()
        if self.events.shared:
            # a server that vanished (killed) takes its seats' presence with it
            self.events.subscribe("peers", self._on_peers)

    async def close(self) -> None:
        for live in list(self.games.values()):
            if live.computer is not None:
                live.computer.cancel()
            if live.clock_timer is not None:
                live.clock_timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await self.pool.close()
        await self.events.close()
        self.store.close()

    def _spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``coro`` as a task of the service's own, not of the caller's: a connection's
        handler may be cancelled as it ends, and what it started must still happen."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- limits ------------------------------------------------------------------------------
    def _take(self, limiter: RateLimiter, client: str, what: str) -> None:
        try:
            limiter.take(client)
        except RateLimited as exc:
            wait = max(1, math.ceil(exc.retry_after))
            raise ApiError(429, f"too many {what} from your address; try again in {wait} s",
                           retry_after=wait) from None

    # -- creating and finding games ----------------------------------------------------------
    async def create(self, game: str, options: Any, opponent: str, first: str,
                     client: str = "local", player: PlayerRow | None = None,
                     rated: bool = False) -> tuple[LiveGame, str, str | None]:
        """A new game; returns it with seat 0's token and, against a friend, the one-time
        invitation for seat 1 (seat 1's token is minted when the invitation is claimed).
        ``player``: the named player who takes seat 0, if any. ``rated``: the match counts
        for ``player``'s rating (against the computer only, to the default rules; 422
        otherwise)."""
        try:
            spec = get_game(game)
            if isinstance(options, dict):
                opts = spec.options_class.from_dict(options)
            elif isinstance(options, list) and all(isinstance(o, str) for o in options):
                opts = spec.options(options)
            elif options is None:
                opts = spec.options(None)
            else:
                raise ApiError(400, "options must be an object like {\"target\": 61}")
        except (OptionError, TypeError, ValueError) as exc:
            raise ApiError(422, str(exc)) from None
        if opponent not in OPPONENTS:
            raise ApiError(422, f"no opponent {opponent!r}; choose one of {', '.join(OPPONENTS)}")
        if first not in FIRST:
            raise ApiError(422, f"first must be one of {', '.join(FIRST)}, not {first!r}")
        if rated:
            self._check_rated(spec.name, opts.to_dict(), opponent, player)
        self._take(self._game_limit, client, "new games")
        seed = self._seed({"me": 0, "opponent": 1}.get(first))
        first_opener = first_opener_by_lot(seed)
        match = Match(spec, opts, seed=seed, first_opener=first_opener)
        token = secrets.token_urlsafe(24)
        friend = opponent == "friend"
        invite = secrets.token_urlsafe(24) if friend else None
        row = GameRow(
            id=secrets.token_urlsafe(9), game=spec.name, options=opts.to_dict(), seed=seed,
            first_opener=first_opener, mode="friend" if friend else "computer",
            opponent=None if friend else opponent,
            # the computer's seat and an unclaimed seat have no token: '' matches none
            token_hashes=(token_hash(token), ""),
            rules_version=RULES_VERSION, created=self.clock(), finished=False,
            invite=None if invite is None else token_hash(invite),
            players=(None if player is None else player.ref, None), rated=rated,
        )
        try:
            await self.store.create_game(row)
        except DATABASE_ERRORS as exc:
            log.error("could not store a new game: %s", exc)
            raise ApiError(503, "the new game could not be saved just now; try again in a "
                                "moment", retry_after=2) from None
        live = LiveGame(row, match, 0)
        self._keep(live)
        self._computer_if_due(live, client)
        return live, token, invite

    @staticmethod
    def _check_rated(game: str, options: dict[str, Any], opponent: str,
                     player: PlayerRow | None) -> None:
        """422 unless a rated match of this kind may be made here: against the computer, by
        a named player, to the game's default rules."""
        if opponent == "friend":
            raise ApiError(422, "a game with a friend by invitation is casual; rated matches "
                                "are played against the computer or with a stranger")
        if player is None:
            raise ApiError(422, "a rated match needs a player: send your player key "
                                "(X-Player-Key)")
        if not is_default(game, options):
            raise ApiError(422, "a rated match is played to the game's default rules; leave "
                                "the options as they are, or play it unrated")

    def _seed(self, opener: int | None) -> int:
        """A new game's seed. The seed also draws the first opener by lot (records check
        it), so a chosen ``opener`` is had by drawing seeds until the lot agrees (two tries
        on average)."""
        seed = self.seeds()
        while opener is not None and first_opener_by_lot(seed) != opener:
            seed = self.seeds()
        return seed

    async def rematch(self, live: LiveGame, seat: int, client: str = "local"
                      ) -> tuple[LiveGame, bool]:
        """The rematch of a finished match, asked for by ``seat``: the same game, options
        and opponent, and the seat that did not open the match's first hand opens the new
        one's. Each person keeps their seat, and their token reaches it: the new game has
        the old one's token hashes. Made once, in one transaction with the link to it, so
        every call from either seat (two at once included) gets the same game; returns it
        and whether this call made it. 409 before the match is over."""
        if not live.over:
            raise ApiError(409, "the match is not over yet; a rematch is offered once it is")
        created = False
        found = live.row.rematch
        if found is None:
            if live.row.invite is not None:
                raise ApiError(409, "your friend never joined this game; start a new game "
                                    "and send them its invitation")
            self._take(self._game_limit, client, "new games")
            old = live.row
            seed = self._seed(1 - old.first_opener)
            match = Match(live.match.spec, live.match.options, seed=seed,
                          first_opener=1 - old.first_opener)
            row = replace(old, id=secrets.token_urlsafe(9), seed=seed,
                          first_opener=1 - old.first_opener, rules_version=RULES_VERSION,
                          created=self.clock(), finished=False, invite=None, rematch=None,
                          rematch_by=None, result=None,
                          # a rated lobby match is one both players chose there: a rematch
                          # one of them asked for (the other may have gone, and would lose
                          # it on time) is casual
                          rated=old.rated and old.mode != "lobby")
            try:
                made = await self.store.create_rematch(old.id, seat, row)
            except DATABASE_ERRORS as exc:
                log.error("could not store the rematch of game %s: %s", old.id, exc)
                raise ApiError(503, "the rematch could not be saved just now; try again in a "
                                    "moment", retry_after=2) from None
            if made is None:
                raise ApiError(404, "there is no such game (it may have expired)")
            found, by = made
            if found == row.id:
                created = True
                new = LiveGame(row, match, 0, moved_at=row.created)
                self._keep(new)
                self._computer_if_due(new, client)
                self._clock_due(new)
            if live.row.rematch != found:
                live.row = replace(live.row, rematch=found, rematch_by=by)
                await self.broadcast(live)
            if created:
                await self._announce(live, row=True)
        return await self.get(found), created

    async def join(self, live: LiveGame, invite: Any, client: str = "local",
                   player: PlayerRow | None = None) -> str:
        """Claim a friend game's invitation: seat 1's token, minted now, once only (and
        seat 1 is ``player``'s, if named)."""
        if not isinstance(invite, str) or not _ID_RE.match(invite):
            raise ApiError(400, "send the invitation from the link: {\"invite\": \"...\"}")
        if live.row.mode != "friend":
            raise ApiError(403, "this game is against the computer; it has no invitation")
        if live.row.invite is None:
            raise ApiError(409, "this invitation has already been used; ask your friend for "
                                "a new game")
        if not hmac.compare_digest(token_hash(invite), live.row.invite):
            raise ApiError(403, "this invitation is not this game's")
        self._take(self._game_limit, client, "new games and invitations")
        token = secrets.token_urlsafe(24)
        try:
            claimed = await self.store.claim_invite(live.id, live.row.invite, token_hash(token),
                                                    None if player is None else player.id)
        except DATABASE_ERRORS as exc:
            log.error("could not store a claimed invitation in game %s: %s", live.id, exc)
            raise ApiError(503, "the invitation could not be saved just now; try again in a "
                                "moment", retry_after=2) from None
        if not claimed:
            raise ApiError(409, "this invitation has already been used")
        live.row = replace(live.row, token_hashes=(live.row.token_hashes[0], token_hash(token)),
                           invite=None,
                           players=(live.row.players[0], None if player is None else player.ref))
        live.messages.clear()
        await self.broadcast(live)
        await self._announce(live, row=True)
        return token

    # -- players -----------------------------------------------------------------------------
    async def register(self, name: Any, client: str = "local") -> tuple[PlayerRow, str]:
        """A new player called ``name``; returns it with its secret key (kept by the
        browser; the server keeps only its hash). 422 for a name that may not be used, 409
        for one taken (or too like one taken)."""
        try:
            shown = check_name(name)
        except NameRefused as exc:
            raise ApiError(422, str(exc)) from None
        self._take(self._player_limit, client, "new players")
        key = secrets.token_urlsafe(24)
        row = PlayerRow(secrets.token_urlsafe(9), shown, token_hash(key), self.clock())
        try:
            made = await self.store.create_player(row, skeleton(shown))
        except DATABASE_ERRORS as exc:
            log.error("could not store a new player: %s", exc)
            raise ApiError(503, "the new player could not be saved just now; try again in a "
                                "moment", retry_after=2) from None
        if not made:
            raise ApiError(409, f"the name {shown!r} is taken (or looks like one that is); "
                                f"choose another")
        self._players[row.key_hash] = row
        return row, key

    async def player_of(self, key: str | None) -> PlayerRow | None:
        """The player whose secret key this is; None without a key, 401 for a key that is
        nobody's (a page should then forget it)."""
        if key is None:
            return None
        digest = token_hash(key)
        found = self._players.get(digest)
        if found is None:
            try:
                found = await self.store.player(key_hash=digest)
            except DATABASE_ERRORS as exc:
                log.error("could not read a player: %s", exc)
                raise ApiError(503, "the player could not be read just now; try again in a "
                                    "moment", retry_after=2) from None
            if found is None:
                raise ApiError(401, "this player key is nobody's (the server may have a new "
                                    "database); choose your name again")
            if len(self._players) > 10_000:
                self._players.clear()
            self._players[digest] = found
        return found

    async def player_page(self, player_id: str) -> dict[str, Any]:
        """What anyone may see of a player: the name and the finished matches (docs/web.md,
        "Players"); 404 if there is no such player."""
        try:
            found = None if not _ID_RE.match(player_id) else await self.store.player(
                id=player_id)
            games = [] if found is None else await self.store.finished_games_of(player_id)
        except DATABASE_ERRORS as exc:
            log.error("could not read player %s: %s", player_id, exc)
            raise ApiError(503, "the player could not be read just now; try again in a "
                                "moment", retry_after=2) from None
        if found is None:
            raise ApiError(404, "there is no such player")
        try:
            ratings = await self.store.player_ratings(player_id)
            changes = await self.store.rating_changes_of(player_id,
                                                         [g.id for g in games if g.rated])
        except DATABASE_ERRORS as exc:
            log.error("could not read player %s's ratings: %s", player_id, exc)
            raise ApiError(503, "the player could not be read just now; try again in a "
                                "moment", retry_after=2) from None
        by_game = {r.game: rating_json(r) for r in ratings}
        return {"id": found.id, "name": found.name, "since": found.created,
                "ratings": {game: by_game.get(game) for game in RATED_GAMES},
                "matches": [_match_json(row, player_id, changes.get(row.id))
                            for row in games]}

    async def get(self, game_id: str) -> LiveGame:
        """The game, from memory or rebuilt from the database; 404 if there is none."""
        live = self.games.pop(game_id, None)
        if live is not None:
            self.games[game_id] = live  # the most recently used goes last
            if self.events.shared:
                # the server that was thinking out the computer's move may have died
                self._computer_if_due(live, f"game {game_id}")
            return live
        if not _ID_RE.match(game_id):
            raise ApiError(404, "there is no such game")
        # listened to before it is read: a change another server stores meanwhile is
        # caught up with below
        self._watch(game_id)
        try:
            loaded = await self.store.load_game(game_id)
        except DATABASE_ERRORS as exc:
            self._unwatch_unless_kept(game_id)
            log.error("could not load game %s: %s", game_id, exc)
            raise ApiError(503, "the game could not be read just now; try again in a moment",
                           retry_after=2) from None
        if loaded is None:
            self._unwatch_unless_kept(game_id)
            raise ApiError(404, "there is no such game (it may have expired, been created on "
                                "another server, or its database was removed)")
        row, moves = loaded
        moved_at = row.created
        if row.move_seconds is not None:
            try:
                moved_at = await self.store.moved_at(game_id) or row.created
            except DATABASE_ERRORS as exc:
                log.error("could not read game %s's clock: %s", game_id, exc)
                raise ApiError(503, "the game could not be read just now; try again in a "
                                    "moment", retry_after=2) from None
        live = self.games.get(game_id)  # loaded meanwhile by another request
        if live is not None:
            return live
        spec = get_game(row.game)
        match = Match(spec, spec.options_class.from_dict(row.options), seed=row.seed,
                      first_opener=row.first_opener)
        for ply, (seat, text) in enumerate(moves):
            if match.to_move != seat:
                log.error("stored game %s is damaged at move %d", game_id, ply + 1)
                raise ApiError(500, f"stored game {game_id} is damaged at move {ply + 1}")
            match.apply(match.parse_move(text))
        live = LiveGame(row, match, len(moves), moved_at=moved_at)
        self._keep(live)
        if game_id in self._stale:
            self._stale.discard(game_id)
            self._spawn(self._on_game_event(f"game:{game_id}", {}), f"catch up {game_id}")
        if self.events.shared:  # who is connected to the other servers?
            await self.events.publish(f"game:{game_id}", {"ask": self.events.instance})
        self._computer_if_due(live, f"game {game_id}")
        self._clock_due(live)
        return live

    def install(self, row: GameRow) -> LiveGame:
        """A new game just stored (a lobby match), put in memory with its clock running."""
        spec = get_game(row.game)
        match = Match(spec, spec.options_class.from_dict(row.options), seed=row.seed,
                      first_opener=row.first_opener)
        live = LiveGame(row, match, 0, moved_at=row.created)
        self._keep(live)
        self._clock_due(live)
        return live

    def _keep(self, live: LiveGame) -> None:
        self.games[live.id] = live
        self._watch(live.id)
        if len(self.games) <= self.max_live:
            return
        for old in list(self.games.values()):
            if len(self.games) <= self.max_live:
                break
            if old is not live and self._idle(old):
                del self.games[old.id]
                self._unwatch_unless_kept(old.id)

    # -- other servers' changes --------------------------------------------------------------
    def _watch(self, game_id: str) -> None:
        """Listen to the game's topic (``game:ID``) while it is in memory or being loaded."""
        if game_id not in self._watching:
            self._watching[game_id] = self.events.subscribe(f"game:{game_id}",
                                                            self._on_game_event)

    def _unwatch_unless_kept(self, game_id: str) -> None:
        if game_id not in self.games:
            stop = self._watching.pop(game_id, None)
            if stop is not None:
                stop()
            self._stale.discard(game_id)

    async def _announce(self, live: LiveGame, **what: Any) -> None:
        """Tell the other servers (and this one's listeners) that the game changed: its
        version now, and ``row=True`` if its row did (an invitation claimed, a rematch)."""
        await self.events.publish(f"game:{live.id}", {"version": live.version, **what})

    async def _on_game_event(self, topic: str, message: dict[str, Any]) -> None:
        """A change of game ``topic`` announced by a server (this one's own are behind us
        already): read what was stored since this server's version, apply it through the
        engine and tell this server's connections."""
        game_id = topic.removeprefix("game:")
        live = self.games.get(game_id)
        if live is None:
            if game_id in self._watching:
                self._stale.add(game_id)  # being loaded: caught up once it is
            return
        if "presence" in message or "ask" in message:
            await self._on_presence(live, message)
            return
        version = message.get("version")
        if (isinstance(version, int) and version <= live.version and not message.get("row")
                and not message.get("gone")):
            return
        try:
            async with live.lock:
                changed = await self._catch_up(live)
        except DATABASE_ERRORS as exc:
            log.warning("game %s: could not catch up with another server's change: %s",
                        game_id, exc)
            return
        if changed:
            await self.broadcast(live)

    async def _on_presence(self, live: LiveGame, message: dict[str, Any]) -> None:
        """Another server's seats of this game (``presence``), or its question who is
        connected here (``ask``)."""
        if "ask" in message:
            if message["ask"] != self.events.instance and any(live.connected_here()):
                await self._announce_presence(live)
            return
        there, seats = message.get("from"), message.get("presence")
        if there == self.events.instance or not isinstance(there, str) \
                or not isinstance(seats, list) or len(seats) != 2:
            return
        before = live.connected()
        if any(seats):
            live.remote[there] = (bool(seats[0]), bool(seats[1]))
        else:
            live.remote.pop(there, None)
        if live.connected() != before:
            await self.broadcast(live)

    async def _announce_presence(self, live: LiveGame) -> None:
        await self.events.publish(f"game:{live.id}", {
            "presence": list(live.connected_here()), "from": self.events.instance})

    async def _on_peers(self, topic: str, message: dict[str, Any]) -> None:
        """Servers that are gone: their seats are no longer connected."""
        gone = set(message.get("gone") or ())
        for live in list(self.games.values()):
            if gone & live.remote.keys():
                before = live.connected()
                for there in gone:
                    live.remote.pop(there, None)
                if live.connected() != before:
                    await self.broadcast(live)

    async def _catch_up(self, live: LiveGame) -> bool:
        """Bring ``live`` up to what the store holds (call with ``live.lock`` held): the
        moves from its version on, and its row. Returns whether anything changed. A game
        the store no longer has expired on another server: it goes here too."""
        found = await self.store.game_since(live.id, live.version)
        if found is None:
            if self.games.get(live.id) is live:
                self._forget([live.id])
            return False
        row, moves = found
        changed = row != live.row
        live.row = row
        if changed:
            live.messages.clear()  # the cached states show the row (players, the ending)
        # applied in place (the lock is held): a stored move that does not apply means a
        # damaged game, which is then dropped from memory altogether
        for ply, (seat, text) in enumerate(moves, live.version):
            match = live.match
            try:
                if match.to_move != seat:
                    raise DominoError(f"seat {seat} is not to move")
                match.apply(match.parse_move(text))
            except DominoError as exc:
                log.error("stored game %s is damaged at move %d: %s", live.id, ply + 1, exc)
                self._forget([live.id])
                return False
            live.version += 1
            changed = True
        if changed and row.move_seconds is not None:
            # the clock runs from the stored time of the last move, wherever it was made
            live.moved_at = await self.store.moved_at(live.id) or row.created
        if changed:
            self._clock_due(live)
        return changed

    @staticmethod
    def _idle(live: LiveGame) -> bool:
        return (not live.connections and not live.lock.locked()
                and not live.hint_lock.locked()
                and (live.computer is None or live.computer.done()))

    async def seat_for(self, live: LiveGame, token: str | None) -> int:
        """:meth:`seat_of`; with servers that share the store, a token refused here is
        checked again against the stored game (its invitation may have been claimed on
        another server a moment ago)."""
        try:
            return self.seat_of(live, token)
        except ApiError as exc:
            # only an unclaimed invitation's seat can gain a token elsewhere
            if exc.status != 403 or not self.events.shared or live.row.invite is None:
                raise
        try:
            async with live.lock:
                await self._catch_up(live)
        except DATABASE_ERRORS as exc:
            log.error("game %s: could not read it again: %s", live.id, exc)
            raise ApiError(503, "the game could not be read just now; try again in a moment",
                           retry_after=2) from None
        return self.seat_of(live, token)

    def seat_of(self, live: LiveGame, token: str | None) -> int:
        """The seat this token belongs to: 401 without one, 403 if it is not this game's."""
        if not token:
            raise ApiError(401, "this needs the seat's token (Authorization: Bearer TOKEN)")
        digest = token_hash(token)
        for seat in (0, 1):
            if hmac.compare_digest(digest, live.row.token_hashes[seat]):
                if seat == live.computer_seat:
                    break
                return seat
        raise ApiError(403, "this token is not a seat of this game")

    # -- expiry ------------------------------------------------------------------------------
    async def expire(self, now: float | None = None) -> int:
        """Delete abandoned unfinished games and long-finished ones; returns how many."""
        now = self.clock() if now is None else now
        ids = await self.store.expire(now - self.limits.abandoned_after,
                                      now - self.limits.finished_kept)
        self._forget(ids)
        for game_id in ids:
            await self.events.publish(f"game:{game_id}", {"gone": True})
        if ids:
            log.info("expired %d games", len(ids))
        return len(ids)

    def _forget(self, ids: list[str]) -> None:
        """Games gone from the store (expired, here or on another server): out of memory,
        their sockets closed with 4410, and rematch links to them cleared."""
        gone = set(ids)
        for kept in self.games.values():
            if kept.row.rematch in gone:
                kept.row = replace(kept.row, rematch=None, rematch_by=None)
        for game_id in ids:
            live = self.games.pop(game_id, None)
            self._unwatch_unless_kept(game_id)
            if live is not None:
                if live.computer is not None:
                    live.computer.cancel()
                for conn in list(live.connections):
                    self._remove(live, conn)
                    self._spawn(conn.close(4410, "this game has expired"), "close expired")

    async def expire_forever(self) -> None:
        """Run :meth:`expire` now and every ``limits.sweep_every`` seconds (and apply the
        ratings of any rated match whose end found the database failing)."""
        while True:
            try:
                await self.expire()
                await self.apply_due_ratings()
            except DATABASE_ERRORS as exc:
                log.warning("could not expire old games this time: %s", exc)
            await asyncio.sleep(self.limits.sweep_every)

    # -- clocks ------------------------------------------------------------------------------
    def _clock_due(self, live: LiveGame, retry: float | None = None) -> None:
        """Wake when the player to move runs out of time (or after ``retry`` seconds); no
        clock, or a match over, stops it."""
        if live.clock_timer is not None:
            live.clock_timer.cancel()
            live.clock_timer = None
        deadline = live.deadline
        if deadline is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the lobby's sweep finds the clock
        version = live.version
        delay = retry if retry is not None else deadline + CLOCK_GRACE - self.clock()
        live.clock_timer = loop.call_later(max(0.0, delay), lambda: self._spawn(
            self._run_out(live, version), f"clock {live.id}"))

    async def _run_out(self, live: LiveGame, version: int) -> None:
        await self.time_out(live, version)

    async def time_out(self, live: LiveGame, version: int) -> bool:
        """End the match by time if the player to move at ``version`` has run out of it:
        they lose (``ended_by`` "time"). The ending is stored once, only while the game is
        still at that version and unfinished (whichever process or sweep comes first),
        then :meth:`_on_finished` runs and both seats are told. Returns whether this call
        ended it; a game that another process ended is shown as ended here too."""
        ended = False
        async with live.lock:
            deadline = live.deadline
            if deadline is None or live.version != version:
                return False
            now = self.clock()
            if now < deadline + CLOCK_GRACE:
                self._clock_due(live)
                return False
            seat = live.match.to_move
            assert seat is not None
            totals = live.match.totals
            result = GameResult(1 - seat, (totals[0], totals[1]), "time")
            try:
                ended = await self.store.end_by_time(live.id, version, result,
                                                     now - CLOCK_GRACE)
                stored = None if ended else await self.store.load_game(live.id)
            except DATABASE_ERRORS as exc:
                log.warning("game %s: its clock ran out but the ending could not be stored "
                            "(%s); trying again", live.id, exc)
                self._clock_due(live, retry=5.0)
                return False
            if ended:
                live.row = replace(live.row, finished=True, result=result)
                await self._on_finished(live)
                await self._announce(live, row=True)
            elif stored is not None and stored[0].finished and not live.row.finished:
                live.row = replace(live.row, finished=True, result=stored[0].result)
                live.messages.clear()
            if live.clock_timer is not None:
                live.clock_timer.cancel()
                live.clock_timer = None
        await self.broadcast(live)
        if ended:
            log.info("game %s: seat %d ran out of time", live.id, seat)
            await self.events.publish(f"game:{live.id}", {"ended_by": "time"})
            await self.events.publish("lobby", {"game": live.id})
        return ended

    async def sweep_clocks(self) -> int:
        """End every stored game whose clock ran out (also those no process holds, after
        a restart or in a process that died); returns how many this call ended."""
        found = await self.store.out_of_time(self.clock() - CLOCK_GRACE)
        ended = 0
        for game_id, plies in found:
            try:
                live = await self.get(game_id)
            except ApiError:
                continue
            if await self.time_out(live, plies):
                ended += 1
        return ended

    # -- moves -------------------------------------------------------------------------------
    async def act(self, live: LiveGame, seat: int, text: Any, version: Any,
                  client: str = "local") -> None:
        """Check ``seat``'s move, store it, then make it and tell everyone; 409/422 when it
        is refused, 503 when it cannot be stored (then nothing changed)."""
        if not isinstance(text, str) or not text.strip() or len(text) > 32:
            raise ApiError(400, "the move must be a short text in the game's notation, "
                                "like \"54@1e\" or \"draw\"")
        if isinstance(version, bool) or not isinstance(version, int):
            raise ApiError(400, "the move must say which version of the game it was chosen "
                                "at (\"version\": a whole number)")
        async with live.lock:
            if version > live.version and self.events.shared:
                # chosen on a state this server has not caught up with yet (another server
                # stored the move before, and its announcement is on its way)
                try:
                    await self._catch_up(live)
                except DATABASE_ERRORS as exc:
                    log.error("game %s: could not catch up: %s", live.id, exc)
                    raise ApiError(503, "the game could not be read just now; try again in "
                                        "a moment", retry_after=1) from None
            match = live.match
            if version != live.version:
                raise ApiError(409, f"the game has moved on: it is at version {live.version}, "
                                    f"the move {text!r} was chosen at version {version}")
            if live.over:
                raise ApiError(409, "the match is over")
            if match.to_move != seat:
                raise ApiError(409, f"it is not your turn (seat {seat}); wait for your "
                                    f"opponent's move")
            after = match.copy()
            try:
                move = after.parse_move(text)
                after.apply(move)
            except (InvalidMoveError, AmbiguousMoveError, IllegalMoveError) as exc:
                raise ApiError(422, str(exc)) from None
            except DominoError as exc:
                raise ApiError(409, str(exc)) from None
            failed: NotStored | None = None
            try:
                await self._commit(live, seat, move, after)
            except NotStored as exc:
                failed = exc
        # after a failed write too: every open socket gets the state as it is (a page may
        # be showing the move as under way)
        await self.broadcast(live)
        if failed is not None:
            raise failed
        self._computer_if_due(live, client)

    async def _commit(self, live: LiveGame, seat: int, move: Move, after: Match) -> None:
        """Store ``move`` at ply ``live.version``; then, and only then, make ``after`` the
        game. Call with ``live.lock`` held. A failed write leaves the game as it was and
        raises :class:`NotStored` (503; 409 if the database holds another move there, when
        this server's idea of the game is stale and it is reloaded)."""
        result = None
        if after.result is not None:
            totals = after.result.totals
            result = GameResult(after.result.winner, (totals[0], totals[1]))
        try:
            await self.store.add_moves(live.id, live.version, [(seat, str(move))],
                                       after.is_over, result)
        except MoveConflict as exc:
            # another server stored a move at this ply first (the computer's, thought out
            # there too, or a seat's over another connection): take the stored game
            log.info("game %s: %s; catching up with the database", live.id, exc)
            try:
                await self._catch_up(live)
            except DATABASE_ERRORS as again:
                log.error("game %s: could not catch up: %s", live.id, again)
            raise NotStored(409, "the game has moved on; reload it") from None
        except DATABASE_ERRORS as exc:
            log.error("game %s: move %s at version %d was not stored: %s", live.id, move,
                      live.version, exc)
            raise NotStored(503, "the move could not be saved just now, so it was not made; "
                                 "try again in a moment", retry_after=1) from None
        hand = live.match.hand_number
        live.match = after
        live.version += 1
        live.moved_at = self.clock()
        if result is not None:
            live.row = replace(live.row, finished=True, result=result)
            await self._on_finished(live)
        self._clock_due(live)
        if live.row.mode == "lobby" and (result is not None or after.hand_number != hand):
            # the lobby shows its matches' scores (as of a hand's end) and drops the over
            self._spawn(self.events.publish("lobby", {"game": live.id}), "lobby score")

        await self._announce(live)

    async def _on_finished(self, live: LiveGame) -> None:
        """A game has just been stored as finished (its last move, or another ending such
        as a player's time running out): what follows from that happens here. It may run in
        more than one process for the same game, so what it stores must be idempotent."""
        live.messages.clear()
        if live.row.rated:
            try:
                await self.apply_ratings(live.row)
            except DATABASE_ERRORS as exc:
                # the match's end is stored: its ratings follow on the next sweep
                log.error("game %s: the ratings could not be applied just now (%s); they "
                          "will be on the next sweep", live.id, exc)
            except Exception:
                # never fail the ending that is stored already (the sweep tries again)
                log.exception("game %s: applying the ratings failed", live.id)

    # -- ratings -----------------------------------------------------------------------------
    async def apply_ratings(self, row: GameRow, attempts: int = 8) -> bool:
        """Apply the finished rated match ``row`` to its players' ratings, once: True if
        this call applied it, False if it was applied before (by this process or another)
        or counts for nothing (then it is marked so, and logged). Raises what the database
        raises."""
        if row.result is None or not row.finished:  # an ending this process did not see
            loaded = await self.store.load_game(row.id)
            if loaded is None:
                return False
            row = loaded[0]
        players = [p.id for p in row.players if p is not None]
        for _ in range(attempts):
            current = await self.store.ratings_of(row.game, players)
            try:
                ratings, changes = reckon(row, current, self.clock())
            except NotCounted as exc:
                log.error("%s", exc)
                ratings, changes = [], []
            try:
                return await self.store.apply_ratings(row.id, ratings, changes)
            except RatingConflict as exc:
                log.info("game %s: %s; reckoned again", row.id, exc)
        log.error("game %s: its players' ratings kept changing; left for the next sweep",
                  row.id)
        return False

    async def apply_due_ratings(self) -> int:
        """Apply every finished rated match whose ratings are not applied yet; how many
        this call applied."""
        done = 0
        for row in await self.store.ratings_due():
            try:
                done += await self.apply_ratings(row)
            except DATABASE_ERRORS:
                raise
            except Exception:
                # one match's failure must not stop the sweep (nor the others' ratings)
                log.exception("game %s: applying the ratings failed", row.id)
        return done

    async def leaderboard(self, game: str) -> dict[str, Any]:
        """The best players of ``game`` and the computer levels (docs/web.md,
        "Ratings"); 404 for a game there is not."""
        if game not in RATED_GAMES:
            raise ApiError(404, f"there is no game {game[:40]!r}; the games are "
                                f"{', '.join(RATED_GAMES)}")
        try:
            rows = await self.store.leaderboard(game, PROVISIONAL_RD)
        except DATABASE_ERRORS as exc:
            log.error("could not read the %s leaderboard: %s", game, exc)
            raise ApiError(503, "the leaderboard could not be read just now; try again in a "
                                "moment", retry_after=2) from None
        people = [{"kind": "player", "rank": rank, "id": ref.id, "name": ref.name,
                   **rating_json(found)} for rank, (ref, found) in enumerate(rows, 1)]
        # the levels stand among the settled players by rating; provisional players follow
        settled = [e for e in people if not e["provisional"]]
        entries = sorted([*settled, *levels_json(game)], key=lambda e: -e["rating"])
        entries += [e for e in people if e["provisional"]]
        return {"game": game, "title": get_game(game).title,
                "provisional_rd": PROVISIONAL_RD, "entries": entries}

    def _computer_if_due(self, live: LiveGame, client: str) -> None:
        seat = live.computer_seat
        if seat is None or live.match.to_move != seat:
            return
        if live.computer is not None and not live.computer.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: the first request for this game starts the computer
        live.computer = loop.create_task(self._computer_moves(live, client),
                                         name=f"computer {live.id}")

    async def _computer_moves(self, live: LiveGame, client: str) -> None:
        """The computer plays while it is to move. Its move is thought out in the pool,
        from its own view, and stored like a person's; a failure is retried with a growing
        pause, so a passing fault never leaves the game waiting for ever."""
        seat = live.computer_seat
        assert seat is not None and live.row.opponent is not None
        name, budget = LEVELS[live.row.opponent]
        pause = 0.5
        while live.match.to_move == seat and self.games.get(live.id) is live:
            started = time.monotonic()
            version = live.version
            view = live.match.view(seat)
            try:
                # one seed per position: the same position gets the same move, also after
                # a restart
                move = await self.pool.run(client, choose_move, name,
                                           (live.row.seed * 1_000_003 + version) % 2**63,
                                           view, budget)
                wait = self.computer_delay - (time.monotonic() - started)
                if wait > 0:
                    await asyncio.sleep(wait)
                async with live.lock:
                    if live.version != version:
                        continue
                    after = live.match.copy()
                    after.apply(move)
                    await self._commit(live, seat, move, after)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if isinstance(exc, NotStored) and exc.status == 409:
                    # another server played this move first (it thought the same position
                    # out to the same move): caught up with, nothing to say
                    await self.broadcast(live)
                    continue
                log.warning("game %s: the computer's move failed (%s); trying again in "
                            "%.1f s", live.id, exc, pause)
                await self.broadcast(live)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 30.0)
                continue
            pause = 0.5
            await self.broadcast(live)

    # -- hints, records, replays -------------------------------------------------------------
    async def hint(self, live: LiveGame, seat: int, client: str = "local") -> dict[str, Any]:
        match = live.match
        if live.row.mode == "lobby":
            raise ApiError(403, "there are no hints in a match against another player from "
                                "the lobby")
        if live.over or match.to_move != seat:
            raise ApiError(409, "a hint is for your turn, and it is not your turn now")
        if live.hint_lock.locked():
            raise ApiError(409, "a hint is already being worked out; wait for it")
        self._take(self._hint_limit, client, "hints")
        async with live.hint_lock:
            version = live.version
            view = match.view(seat)
            try:
                values = await self.pool.run(client, analyse_hint, view, self.hint_budget,
                                             version)
            except PoolBusy as exc:
                raise ApiError(429, "too much is being worked out for your address; try "
                                    "again in a moment", retry_after=exc.retry_after) from None

        # best first, in the one order the terminal's hints use too; "same": the moves that
        # are this one but for a port's name (shown once, as the terminal does)
        moves = [{"move": str(v.move), "win": win_chance(v), "margin": round(v.margin, 3),
                  "points": list(immediate_points(view, v.move)),
                  "same": [str(m) for m in same_as(view, v.move)]} for v in rank(values)]
        return {"version": version, "moves": moves}

    def record(self, live: LiveGame) -> dict[str, Any]:
        self._require_over(live)
        names = ("seat 0 (you)", f"computer ({live.row.opponent})") \
            if live.row.mode == "computer" else ("seat 0", "seat 1")
        return match_record(live.match, players=names)

    def replay(self, live: LiveGame, width: str) -> dict[str, Any]:
        """The finished match's frames, and what a page needs to show them without a
        seat: the game, its rules, the mode, the computer's level and the players."""
        self._require_over(live)
        row = live.row
        return {"frames": replay_frames(live.match, width), "game": row.game,
                "rules": rules_json(live.match.spec), "mode": row.mode,
                "opponent": row.opponent, "players": [player_json(p) for p in row.players],
                "rated": row.rated}

    @staticmethod
    def _require_over(live: LiveGame) -> None:
        if not live.over:
            raise ApiError(409, "the record and the replay are there once the match is over "
                                "(until then they would show hidden tiles)")

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
                    changed = await self._catch_up(live)
            except DATABASE_ERRORS as exc:
                log.warning("game %s: could not catch up on connecting: %s", live.id, exc)
                changed = False
            if changed:
                await self.broadcast(live)
        before, here = live.presence(), live.connected_here()
        if conn.seat is None:
            self._admit(live, conn)
        live.connections.append(conn)
        await self.push(live, conn)
        if live.presence() != before:
            await self.broadcast(live, skip=conn)
        if self.events.shared and live.connected_here() != here:
            await self._announce_presence(live)
        # the server that was playing the computer's move may be gone
        self._computer_if_due(live, f"game {live.id}")

    def _admit(self, live: LiveGame, conn: Connection) -> None:
        """Count a new spectator in, or refuse it (see :meth:`attach`)."""
        limits = self.limits
        if self._watchers.get(conn.client, 0) >= limits.watchers_per_client:
            raise ApiError(429, f"your address is watching {limits.watchers_per_client} "
                                f"games already; close one to watch another")
        if live.watching() >= limits.watchers_per_game:
            raise ApiError(409, f"this game has {limits.watchers_per_game} spectators, as "
                                f"many as it takes; try again later")
        if self.watchers >= limits.watchers_total:
            raise ApiError(503, "the server has as many spectators as it takes; try again "
                                "later", retry_after=30)
        self._watchers[conn.client] = self._watchers.get(conn.client, 0) + 1
        self.watchers += 1

    def _remove(self, live: LiveGame, conn: Connection) -> None:
        """Take ``conn`` off the game (and a spectator off the counts); nobody is told."""
        live.connections.remove(conn)
        if conn.seat is None:
            left = self._watchers[conn.client] - 1
            if left:
                self._watchers[conn.client] = left
            else:
                del self._watchers[conn.client]
            self.watchers -= 1

    def detach(self, live: LiveGame, conn: Connection) -> None:
        """A connection ended. Who is connected (or how many watch) changes now, and the
        others are told by a task of the service's: the ending connection's handler may be
        cancelled."""
        if conn in live.connections:
            before, here = live.presence(), live.connected_here()
            self._remove(live, conn)
            if live.presence() != before:
                self._spawn(self.broadcast(live), f"presence {live.id}")
            if self.events.shared and live.connected_here() != here:
                self._spawn(self._announce_presence(live), f"presence {live.id}")

    async def push(self, live: LiveGame, conn: Connection) -> None:
        """Send ``conn`` its seat's state (or a spectator's) as it is when the send
        begins. One send at a time per connection, each built afresh, so a connection never
        gets an older state after a newer one. A connection that fails is dropped."""
        try:
            async with conn.lock:
                text = live.message(conn.seat, conn.width)
                if live.row.move_seconds is not None:
                    # the server's time as it is sent: the page's countdown to the deadline
                    text = f'{{"now":{self.clock():.3f},{text[1:]}'
                await conn.send(text)
        except Exception:
            self.detach(live, conn)

    async def broadcast(self, live: LiveGame, skip: Connection | None = None) -> None:
        """Send every connection (but ``skip``) its seat's state, or a spectator's."""
        conns = [c for c in live.connections if c is not skip]
        if conns:
            await asyncio.gather(*(self.push(live, c) for c in conns))

    @staticmethod
    def width_of(value: Any) -> str:
        return value if value in WIDTHS else "wide"


def player_json(ref: PlayerRef | None) -> dict[str, str] | None:
    return None if ref is None else {"id": ref.id, "name": ref.name}


#: the games that have ratings, in the registry's order
RATED_GAMES: Final = tuple(GAMES)


def _match_json(row: GameRow, player_id: str, change: RatingChange | None = None
                ) -> dict[str, Any]:
    """One finished match of a player's page, from that player's side, with what it did to
    the player's rating (``change``) if it counted."""
    seat = 0 if row.players[0] is not None and row.players[0].id == player_id else 1
    result = row.result
    return {
        "id": row.id, "game": row.game, "options": row.options, "seat": seat,
        "opponent": player_json(row.players[1 - seat]),
        "computer": row.opponent if row.mode == "computer" else None,
        "outcome": None if result is None else (
            "drawn" if result.winner is None else "won" if result.winner == seat else "lost"),
        "points": None if result is None else [result.points[seat], result.points[1 - seat]],
        "ended_by": None if result is None else result.ended_by,
        "played": row.created,
        "rated": row.rated,
        "rating": None if change is None else change_json(change),
    }
