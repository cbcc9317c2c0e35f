"""What the games database gives and takes: one frozen value per kind of row (a game, a
player, a seek, a rating and a rating's change), the errors its methods raise, and how a
row is read back from the columns the queries select.

The columns of a game, a seek and a rating are named once here (:data:`GAME_COLUMNS` with
:data:`GAME_JOINS`, ...) beside the function that reads them (:func:`game_row`, ...), so a
query of any part of the store reads a row the same way.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final


class StoreError(Exception):
    """The database cannot be used (newer schema, not a dominolab database, read-only,
    damaged...)."""


class MoveConflict(Exception):
    """A move was stored for that ply already: the caller's idea of the game is stale."""


@dataclass(frozen=True, slots=True)
class PlayerRef:
    """A player as a game shows it: the id (for the player's page) and the display name."""

    id: str
    name: str


@dataclass(frozen=True, slots=True)
class PlayerRow:
    """One stored player."""

    id: str
    name: str
    key_hash: str
    created: float
    #: when a moderator banned the player (no seeks, pairing or rated matches), None: never
    banned: float | None = None

    @property
    def ref(self) -> PlayerRef:
        return PlayerRef(self.id, self.name)


@dataclass(frozen=True, slots=True)
class GameResult:
    """How a finished game ended: the winning seat (None: drawn), the match points, and
    ``ended_by``: ``"play"`` (the match was played out) or another way (``"time"``: the
    player to move ran out of time)."""

    winner: int | None
    points: tuple[int, int]
    ended_by: str = "play"


@dataclass(frozen=True, slots=True)
class GameRow:
    """One stored game, without its moves."""

    id: str
    game: str
    options: dict[str, Any]
    seed: int
    first_opener: int
    mode: str
    opponent: str | None
    token_hashes: tuple[str, str]
    rules_version: int
    created: float
    finished: bool
    #: SHA-256 of a friend game's unclaimed invitation, else None
    invite: str | None = None
    #: the id of this finished game's rematch, once a seat has asked for one
    rematch: str | None = None
    #: the seat that asked for the rematch
    rematch_by: int | None = None
    #: the players of the two seats (None: nobody named, or the computer)
    players: tuple[PlayerRef | None, PlayerRef | None] = (None, None)
    #: how the game ended, once it is finished
    result: GameResult | None = None
    #: whether the match counts for the players' ratings
    rated: bool = False
    #: the seconds a move may take (lobby games), None: no clock
    move_seconds: int | None = None
    #: what its named players' seat tokens are derived from (with their keys): the seek's
    #: id for a lobby game (both seats, :func:`~dominolab.web.games.live.seat_token`), else
    #: the id of the game its creator made (seat 0,
    #: :func:`~dominolab.web.games.live.game_seat_token`); a rematch keeps it. None: the
    #: tokens are random (no named creator, or made before tokens were derived)
    token_from: str | None = None


@dataclass(frozen=True, slots=True)
class SeekRow:
    """A seek of the lobby: a named player looking for an opponent for one game, owned by
    that player's lobby socket ``socket``. ``token_hash``: the SHA-256 of the seat token the
    creator will hold in the game (derived from their key, so that whichever server process
    holds their socket can hand it over). ``game_id``/``seat``: the game and the creator's
    seat, once accepted (kept while that game is played: the match is owed to the creator
    until their page acknowledges it, and both seats' tokens derive from the seek's id)."""

    id: str
    player: PlayerRef
    socket: str
    game: str
    options: dict[str, Any]
    rated: bool
    move_seconds: int
    token_hash: str
    created: float
    game_id: str | None = None
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class RatingRow:
    """One player's Glicko-2 rating in one game (:mod:`dominolab.web.community.ratings`)."""

    player: str
    game: str
    rating: float
    rd: float
    volatility: float
    #: the rated matches counted so far (0: none, the starting values); also the row's
    #: version, so a change reckoned from an older row is refused
    games: int
    updated: float


@dataclass(frozen=True, slots=True)
class RatingChange:
    """What one rated match did to one seat's rating, and what it was reckoned against."""

    game_id: str
    seat: int
    player: str
    game: str
    rating_before: float
    rating_after: float
    rd_before: float
    rd_after: float
    opponent_rating: float
    opponent_rd: float
    at: float


class RatingConflict(Exception):
    """A rating changed since it was read (another match of the player's was counted
    meanwhile): reckon the match again from the ratings as they are now."""


# -- reading rows -------------------------------------------------------------------------------

#: a game's columns, with its players' names (``g``: games, ``p0``/``p1``: its players)
GAME_COLUMNS: Final = (
    "g.id, g.game, g.options, g.seed, g.first_opener, g.mode, g.opponent, g.token0, g.token1, "
    "g.rules_version, g.created, g.finished, g.invite, g.rematch, g.rematch_by, "
    "g.player0, p0.name, g.player1, p1.name, g.winner, g.points0, g.points1, g.ended_by, "
    "g.rated, g.move_seconds, g.token_from")
GAME_JOINS: Final = ("LEFT JOIN players p0 ON p0.id = g.player0 "
                     "LEFT JOIN players p1 ON p1.id = g.player1")


#: a seek's columns, with its player's name (``s``: seeks, ``sp``: its player)
SEEK_COLUMNS: Final = ("s.id, s.player, sp.name, s.socket, s.game, s.options, s.rated, "
                       "s.move_seconds, s.token_hash, s.created, s.game_id, s.seat")
SEEK_JOINS: Final = "JOIN players sp ON sp.id = s.player"


def seek_row(found: Sequence[Any]) -> SeekRow:
    """A :class:`SeekRow` from the :data:`SEEK_COLUMNS` of one row."""
    # the JSON columns hold what this server wrote (options it checked), not outside input
    return SeekRow(found[0], PlayerRef(found[1], found[2]), found[3], found[4],
                   json.loads(found[5]), bool(found[6]), int(found[7]), found[8],
                   float(found[9]), found[10], None if found[11] is None else int(found[11]))


def game_row(found: Sequence[Any]) -> GameRow:
    """A :class:`GameRow` from the :data:`GAME_COLUMNS` of one row."""
    players = tuple(None if found[i] is None else PlayerRef(found[i], found[i + 1])
                    for i in (15, 17))
    result = None if found[22] is None else GameResult(
        None if found[19] is None else int(found[19]), (int(found[20]), int(found[21])),
        str(found[22]))
    # options this server checked and wrote (not outside input), as in seek_row
    return GameRow(found[0], found[1], json.loads(found[2]), found[3], found[4], found[5],
                   found[6], (found[7], found[8]), found[9], found[10], bool(found[11]),
                   found[12], found[13], found[14], (players[0], players[1]), result,
                   bool(found[23]), None if found[24] is None else int(found[24]), found[25])


#: a rating's columns, in :class:`RatingRow`'s order
RATING_COLUMNS: Final = "player, game, rating, rd, volatility, games, updated"
RATING_COLUMNS_R: Final = ", ".join(f"r.{c}" for c in RATING_COLUMNS.split(", "))


def rating_row(found: Sequence[Any]) -> RatingRow:
    """A :class:`RatingRow` from the :data:`RATING_COLUMNS` of one row."""
    return RatingRow(str(found[0]), str(found[1]), float(found[2]), float(found[3]),
                     float(found[4]), int(found[5]), float(found[6]))

