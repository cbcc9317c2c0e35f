"""One live game in memory (:class:`LiveGame`): its stored row, the engine's match, who is
connected (:class:`Connection`), and the state each seat sees, built from caches. Seats are
known by the hash of their token (:func:`token_hash`); the server keeps no token itself."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import re
from base64 import urlsafe_b64encode
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from dominolab.core import Match
from dominolab.web.errors import ApiError
from dominolab.web.games.layout import TableLayout
from dominolab.web.games.payload import WIDTHS, previous_hand_json, seat_state, seen_step_json
from dominolab.web.storage.store import GameRow, PlayerRef

#: game ids and tokens are URL-safe base64
ID_RE: Final = re.compile(r"^[A-Za-z0-9_-]{8,40}$")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _derived(key: str, domain: bytes, source: str) -> str:
    digest = hmac.new(key.encode(), domain + source.encode(), hashlib.sha256).digest()
    return urlsafe_b64encode(digest[:24]).decode()


def seat_token(key: str, seek_id: str) -> str:
    """The seat token the creator of seek ``seek_id`` holds in the game made of it (and
    its acceptor too, with their own key): an HMAC of the seek's id under the player's
    key."""
    return _derived(key, b"dominolab seat ", seek_id)


def game_seat_token(key: str, game_id: str) -> str:
    """The seat token a named player holds in a game they made (``POST /api/games`` with
    their key): an HMAC of the game's id under their key, with a prefix of its own, so it
    never equals a lobby seat's :func:`seat_token`. A rematch keeps the token of the game
    its chain began with (:attr:`~dominolab.web.storage.store.GameRow.token_from`)."""
    return _derived(key, b"dominolab game seat ", game_id)


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
    #: the players' names, encoded, by the row's players (they change when a friend claims
    #: the invitation)
    players_text: dict[tuple[PlayerRef | None, PlayerRef | None], str] = field(
        default_factory=dict)
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
        """When the player to move runs out of time (epoch seconds); None without a clock,
        once the match is over, and on the computer's turn: only a person's turn is timed
        (a busy pool never costs anyone the match), and the person's time runs from the
        computer's move once it is stored."""
        computer = self.computer_seat
        if self.row.move_seconds is None or self.over or \
                (computer is not None and self.match.to_move == computer):
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
        # the text this server just wrote (not outside input)
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
        state["rated"] = self.row.rated
        text = compact_json(state)
        # the previous hand never changes: encoded once
        key = (number, seat, width)
        previous = self.previous_texts.get(key)
        if previous is None:
            prev_layout = self.layout(number - 1, width) if number > 1 else None
            previous = compact_json(previous_hand_json(match, seat, width, prev_layout))
            self.previous_texts[key] = previous
        players = self.players_text.get(self.row.players)
        if players is None:
            self.players_text.clear()
            # the one free text of a state (names): the standard library's encoding,
            # non-ASCII escaped, as every state has always been sent
            players = self.players_text[self.row.players] = json.dumps(
                [player_json(p) for p in self.row.players], separators=(",", ":"))
        return f'{text[:-1]},"players":{players},"previous_hand":{previous}}}'


def compact_json(value: Any) -> str:
    """``value`` as compact JSON text, as ``json.dumps(value, separators=(",", ":"))``
    writes it for the ASCII-only values of a state (orjson: a fifth of the time; it writes
    non-ASCII text unescaped, so free text such as names stays with the standard library).
    """
    return orjson.dumps(value).decode()


def player_json(ref: PlayerRef | None) -> dict[str, str] | None:
    return None if ref is None else {"id": ref.id, "name": ref.name}


def seat_of(live: LiveGame, token: str | None) -> int:
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


def width_of(value: Any) -> str:
    """A layout width a request named, or ``"wide"`` for anything else."""
    return value if value in WIDTHS else "wide"
