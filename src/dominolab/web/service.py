"""The web app's games: creating them, seats and tokens, moves, the computer's turns, and
telling every connected seat what changed. The server is authoritative: a move is checked
by the engine, stored, and only then announced.

Everything here runs on the server's event loop; only the computer's thinking and hints
run in worker threads, and they see nothing but a seat's :class:`~dominolab.core.View`.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from dominolab.core import (
    RULES_VERSION,
    AmbiguousMoveError,
    DominoError,
    IllegalMoveError,
    InvalidMoveError,
    Match,
    OptionError,
    first_opener_by_lot,
    get_game,
    match_record,
)
from dominolab.players import LEVELS, make_player
from dominolab.players.hints import HINT_BUDGET, analyse, immediate_points
from dominolab.players.search import MoveValue
from dominolab.web.layout import TableLayout
from dominolab.web.payload import (
    WIDTHS,
    previous_hand_json,
    replay_frames,
    seat_state,
    step_json,
)
from dominolab.web.store import GameRow, Store

log = logging.getLogger("dominolab.web")

#: game ids and tokens are URL-safe base64
_ID_RE: Final = re.compile(r"^[A-Za-z0-9_-]{8,40}$")
OPPONENTS: Final = (*LEVELS, "friend")
FIRST: Final = ("me", "opponent", "lot")


class ApiError(Exception):
    """A refused request: an HTTP status and a sentence for a person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


#: sends one JSON text to one connection; raises if the connection is gone
Sender = Callable[[str], Awaitable[None]]


@dataclass(eq=False)
class Connection:
    """One open WebSocket of a seat."""

    seat: int
    width: str
    send: Sender


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
    #: this hand's steps as each seat sees them, by (hand number, seat)
    histories: dict[tuple[int, int], list[dict[str, Any]]] = field(default_factory=dict)
    #: the previous hand, encoded, by (hand number, seat, width)
    previous_texts: dict[tuple[int, int, str], str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def computer_seat(self) -> int | None:
        return 1 if self.row.mode == "computer" else None

    def connected(self) -> tuple[bool, bool]:
        seats = {c.seat for c in self.connections}
        if self.computer_seat is not None:
            seats.add(self.computer_seat)
        return (0 in seats, 1 in seats)

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

    def state(self, seat: int, width: str = "wide") -> dict[str, Any]:
        """What ``seat`` sees now (docs/web.md, STATE)."""
        state: dict[str, Any] = json.loads(self.state_text(seat, width))
        return state

    def state_text(self, seat: int, width: str = "wide") -> str:
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
        history.extend(step_json(game, s, seat) for s in steps[len(history):])
        text = json.dumps(seat_state(
            match, seat, game_id=self.id, mode=self.row.mode, opponent=self.row.opponent,
            version=self.version, connected=self.connected(), width=width,
            layout=self.layout(number, width), history=history, with_previous=False,
        ), separators=(",", ":"))
        # the previous hand never changes: encoded once
        key = (number, seat, width)
        previous = self.previous_texts.get(key)
        if previous is None:
            prev_layout = self.layout(number - 1, width) if number > 1 else None
            previous = json.dumps(previous_hand_json(match, seat, width, prev_layout),
                                  separators=(",", ":"))
            self.previous_texts[key] = previous
        return f'{text[:-1]},"previous_hand":{previous}}}'


class GameService:
    """Every game of one server, over one :class:`Store`."""

    def __init__(self, store: Store, *, computer_delay: float | None = None,
                 hint_budget: Any = None, seeds: Callable[[], int] | None = None,
                 max_live: int = 2000) -> None:
        self.store = store
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
        self.games: dict[str, LiveGame] = {}

    # -- creating and finding games ----------------------------------------------------------
    def create(self, game: str, options: Any, opponent: str, first: str
               ) -> tuple[LiveGame, str, str]:
        """A new game; returns it with seat 0's and seat 1's tokens."""
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
        except (OptionError, TypeError) as exc:
            raise ApiError(422, str(exc)) from None
        if opponent not in OPPONENTS:
            raise ApiError(422, f"no opponent {opponent!r}; choose one of {', '.join(OPPONENTS)}")
        if first not in FIRST:
            raise ApiError(422, f"first must be one of {', '.join(FIRST)}, not {first!r}")
        # the seed also draws the first opener by lot (records check it), so a chosen
        # opener is had by drawing seeds until the lot agrees (two tries on average)
        seed = self.seeds()
        wanted = {"me": 0, "opponent": 1}.get(first)
        while wanted is not None and first_opener_by_lot(seed) != wanted:
            seed = self.seeds()
        first_opener = first_opener_by_lot(seed)
        match = Match(spec, opts, seed=seed, first_opener=first_opener)
        tokens = (secrets.token_urlsafe(24), secrets.token_urlsafe(24))
        row = GameRow(
            id=secrets.token_urlsafe(9), game=spec.name, options=opts.to_dict(), seed=seed,
            first_opener=first_opener, mode="friend" if opponent == "friend" else "computer",
            opponent=None if opponent == "friend" else opponent,
            token_hashes=(token_hash(tokens[0]), token_hash(tokens[1])),
            rules_version=RULES_VERSION, created=time.time(), finished=False,
        )
        self.store.create_game(row)
        live = LiveGame(row, match, 0)
        self._keep(live)
        self._computer_if_due(live)
        return live, tokens[0], tokens[1]

    def get(self, game_id: str) -> LiveGame:
        """The game, from memory or rebuilt from the database; 404 if there is none."""
        live = self.games.pop(game_id, None)
        if live is not None:
            self.games[game_id] = live  # the most recently used goes last
            return live
        if not _ID_RE.match(game_id):
            raise ApiError(404, "there is no such game")
        loaded = self.store.load_game(game_id)
        if loaded is None:
            raise ApiError(404, "there is no such game (it may have been created on another "
                                "server or its database was removed)")
        row, moves = loaded
        spec = get_game(row.game)
        match = Match(spec, spec.options_class.from_dict(row.options), seed=row.seed,
                      first_opener=row.first_opener)
        for ply, (seat, text) in enumerate(moves):
            if match.to_move != seat:
                raise ApiError(500, f"stored game {game_id} is damaged at move {ply + 1}")
            match.apply(match.parse_move(text))
        live = LiveGame(row, match, len(moves))
        self._keep(live)
        self._computer_if_due(live)
        return live

    def _keep(self, live: LiveGame) -> None:
        self.games[live.id] = live
        if len(self.games) <= self.max_live:
            return
        for old in list(self.games.values()):
            if len(self.games) <= self.max_live:
                break
            idle = (not old.connections and not old.lock.locked() and not old.hint_lock.locked()
                    and (old.computer is None or old.computer.done()))
            if idle and old is not live:
                del self.games[old.id]

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

    # -- moves -------------------------------------------------------------------------------
    async def act(self, live: LiveGame, seat: int, text: Any, version: Any) -> None:
        """Check and make ``seat``'s move, store it, tell everyone; 409/422 otherwise."""
        if not isinstance(text, str) or not text.strip() or len(text) > 32:
            raise ApiError(400, "the move must be a short text in the game's notation, "
                                "like \"54@1e\" or \"draw\"")
        if isinstance(version, bool) or not isinstance(version, int):
            raise ApiError(400, "the move must say which version of the game it was chosen "
                                "at (\"version\": a whole number)")
        async with live.lock:
            match = live.match
            if version != live.version:
                raise ApiError(409, f"the game has moved on: it is at version {live.version}, "
                                    f"the move {text!r} was chosen at version {version}")
            if match.is_over:
                raise ApiError(409, "the match is over")
            if match.to_move != seat:
                raise ApiError(409, f"it is not your turn (seat {seat}); wait for your "
                                    f"opponent's move")
            try:
                move = match.parse_move(text)
                match.apply(move)
            except (InvalidMoveError, AmbiguousMoveError, IllegalMoveError) as exc:
                raise ApiError(422, str(exc)) from None
            except DominoError as exc:
                raise ApiError(409, str(exc)) from None
            self._commit(live, seat, str(move))
        await self.broadcast(live)
        self._computer_if_due(live)

    def _commit(self, live: LiveGame, seat: int, move: str) -> None:
        try:
            self.store.add_moves(live.id, live.version, [(seat, move)], live.match.is_over)
        except Exception:
            # memory is ahead of the database: forget it and rebuild from what is stored
            self.games.pop(live.id, None)
            raise
        live.version += 1

    def _computer_if_due(self, live: LiveGame) -> None:
        seat = live.computer_seat
        if seat is None or live.match.to_move != seat:
            return
        if live.computer is not None and not live.computer.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: the first request for this game starts the computer
        live.computer = loop.create_task(self._computer_moves(live), name=f"computer {live.id}")

    async def _computer_moves(self, live: LiveGame) -> None:
        seat = live.computer_seat
        assert seat is not None and live.row.opponent is not None
        name, budget = LEVELS[live.row.opponent]
        player = make_player(name, live.row.seed)
        try:
            while live.match.to_move == seat and self.games.get(live.id) is live:
                started = time.monotonic()
                version = live.version
                view = live.match.view(seat)
                move = await asyncio.to_thread(player.choose, view, budget)
                wait = self.computer_delay - (time.monotonic() - started)
                if wait > 0:
                    await asyncio.sleep(wait)
                async with live.lock:
                    if live.version != version:
                        continue
                    live.match.apply(move)
                    self._commit(live, seat, str(move))
                await self.broadcast(live)
        except Exception:
            log.exception("the computer failed to move in game %s", live.id)

    # -- hints, records, replays -------------------------------------------------------------
    async def hint(self, live: LiveGame, seat: int) -> dict[str, Any]:
        match = live.match
        if match.is_over or match.to_move != seat:
            raise ApiError(409, "a hint is for your turn, and it is not your turn now")
        if live.hint_lock.locked():
            raise ApiError(409, "a hint is already being worked out; wait for it")
        async with live.hint_lock:
            version = live.version
            view = match.view(seat)
            values = await asyncio.to_thread(analyse, view, self.hint_budget, version)
        def win(v: MoveValue) -> float:
            return v.win_chance if v.win_chance is not None else v.value

        # best first, as a person reads the list: by the chance to win, then the margin
        ranked = sorted(values, key=lambda v: (-win(v), -v.margin))
        moves = [{"move": str(v.move), "win": win(v), "margin": round(v.margin, 3),
                  "points": list(immediate_points(view, v.move))} for v in ranked]
        return {"version": version, "moves": moves}

    def record(self, live: LiveGame) -> dict[str, Any]:
        self._require_over(live)
        names = ("seat 0 (you)", f"computer ({live.row.opponent})") \
            if live.row.mode == "computer" else ("seat 0", "seat 1")
        return match_record(live.match, players=names)

    def replay(self, live: LiveGame, width: str) -> dict[str, Any]:
        self._require_over(live)
        return {"frames": replay_frames(live.match, width)}

    @staticmethod
    def _require_over(live: LiveGame) -> None:
        if not live.match.is_over:
            raise ApiError(409, "the record and the replay are there once the match is over "
                                "(until then they would show hidden tiles)")

    # -- connections -------------------------------------------------------------------------
    async def attach(self, live: LiveGame, conn: Connection) -> None:
        """A seat connected: send it the state; tell the others if that changes who is
        connected."""
        before = live.connected()
        live.connections.append(conn)
        await conn.send(self.state_message(live, conn.seat, conn.width))
        if live.connected() != before:
            await self.broadcast(live, skip=conn)

    async def detach(self, live: LiveGame, conn: Connection) -> None:
        if conn in live.connections:
            before = live.connected()
            live.connections.remove(conn)
            if live.connected() != before:
                await self.broadcast(live)

    @staticmethod
    def state_message(live: LiveGame, seat: int, width: str) -> str:
        return f'{{"type":"state","state":{live.state_text(seat, width)}}}'

    async def broadcast(self, live: LiveGame, skip: Connection | None = None) -> None:
        """Send every connection (but ``skip``) its seat's state."""
        conns = [c for c in live.connections if c is not skip]
        if not conns:
            return
        texts: dict[tuple[int, str], str] = {}
        sends = []
        for conn in conns:
            key = (conn.seat, conn.width)
            if key not in texts:
                texts[key] = self.state_message(live, *key)
            sends.append(conn.send(texts[key]))
        results = await asyncio.gather(*sends, return_exceptions=True)
        for conn, result in zip(conns, results, strict=True):
            if isinstance(result, Exception) and conn in live.connections:
                live.connections.remove(conn)

    @staticmethod
    def width_of(value: Any) -> str:
        return value if value in WIDTHS else "wide"

