"""What one seat may see (RULES.md section 1): its own hand, the table, the scores, how many
tiles the opponent holds, every move made (a draw without the tile drawn) and, in Widelec,
how many tiles the boneyard holds. Nothing else.

A view also carries what every front end would otherwise work out for itself from the
table and the history: the free ports and what each shows, and the drawn tile a seat must
now lay (Widelec)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from dominolab.core.errors import shown
from dominolab.core.games import GameSpec, get_game
from dominolab.core.hand import Hand, HandResult, Points
from dominolab.core.moves import Move, Play, Port
from dominolab.core.options import Options
from dominolab.core.table import LineTable, TreeTable
from dominolab.core.tiles import TILES, Tile

if TYPE_CHECKING:
    from dominolab.core.match import MatchResult


@dataclass(frozen=True, slots=True)
class View:
    """One seat's view of a match (or of a lone hand). Immutable; holds no hidden tile."""

    game: str
    options: Options
    seat: int
    hand_number: int
    opener: int
    #: the seat to move, None once the hand is over
    to_move: int | None
    hand: tuple[Tile, ...]
    opponent_tiles: int
    #: Widelec: tiles left in the boneyard; None in the Luzak games
    boneyard: int | None
    #: the tiles on the table, in the order they were laid (tile number N = index + 1)
    table: tuple[Play, ...]
    #: every move of this hand as (seat, move); a draw does not say which tile
    history: tuple[tuple[int, Move], ...]
    hand_points: Points
    totals: Points
    #: Luzak games: the table count; None in Widelec
    count: int | None
    #: this seat's legal moves, empty unless it is to move
    legal_moves: tuple[Move, ...]
    #: the end of this hand, once over (it shows what the hand's end makes public)
    result: HandResult | None
    #: how earlier hands of the match ended
    previous: tuple[HandResult, ...] = ()
    match_result: MatchResult | None = None
    #: the table's free ports in port order, each with the values a tile may match there
    #: (one value; two at a line end across a luzak); empty before the lead
    free_ports: tuple[tuple[Port, tuple[int, ...]], ...] = ()
    #: Widelec: the tile this seat has just drawn and must now lay (or, with
    #: ``must-play-drawn`` off, may keep); shown only in the drawing seat's own view
    pending: Tile | None = None
    #: Widelec: the seat that has just drawn a tile that fits and must now lay or keep it
    #: (public: everyone saw the draw and that the drawer moves again); None otherwise
    pending_seat: int | None = None

    @property
    def spec(self) -> GameSpec:
        """The game's spec: ask it, not the game's name, how the game behaves."""
        return get_game(self.game)

    @property
    def port_values(self) -> dict[Port, tuple[int, ...]]:
        """The free ports as a mapping (port -> the values a tile may match there)."""
        return dict(self.free_ports)

    @property
    def n(self) -> int:
        """Tiles on the table."""
        return len(self.table)

    @property
    def my_turn(self) -> bool:
        return self.to_move == self.seat

    def unseen(self) -> tuple[Tile, ...]:
        """Tiles this seat cannot see: the opponent's, and the unused or undrawn ones."""
        seen = set(self.hand)
        seen.update(p.tile for p in self.table)
        return tuple(t for t in TILES if t not in seen)

    def new_table_empty(self) -> TreeTable | LineTable:
        """An empty table of this game under this view's options."""
        return self.spec.new_table(self.options)

    def new_table(self) -> TreeTable | LineTable:
        """A fresh table with this view's tiles laid, for trying moves on."""
        table = self.new_table_empty()
        for mv in self.table:
            table.place(mv)
        return table


def view_of(hand: Hand[Options], seat: int, *, hand_number: int = 1,
            totals: Points | None = None, previous: tuple[HandResult, ...] = (),
            match_result: MatchResult | None = None) -> View:
    """Build ``seat``'s view of ``hand`` (``totals`` default to the hand's points)."""
    if seat not in (0, 1):
        raise ValueError(f"seat must be 0 or 1, not {shown(seat)}")
    over = hand.result is not None
    spec = get_game(hand.GAME)
    table = hand.table
    boneyard = len(hand.boneyard) if spec.has_boneyard else None  # type: ignore[attr-defined]
    count = table.count if spec.has_count else None
    points = (hand.points[0], hand.points[1])
    pending_seat = hand.to_move if not over and hand.pending is not None else None
    return View(
        game=hand.GAME,
        options=hand.options,
        seat=seat,
        hand_number=hand_number,
        opener=hand.opener,
        to_move=None if over else hand.to_move,
        hand=tuple(hand.hands[seat]),
        opponent_tiles=len(hand.hands[1 - seat]),
        boneyard=boneyard,
        table=hand.table_placements,
        history=tuple(hand.moves),
        hand_points=points,
        totals=points if totals is None else totals,
        count=count,
        legal_moves=tuple(hand.legal_moves()) if not over and hand.to_move == seat else (),
        result=hand.result,
        previous=previous,
        match_result=match_result,
        free_ports=free_ports_of(table),
        pending=hand.pending if pending_seat == seat else None,
        pending_seat=pending_seat,
    )


def free_ports_of(table: TreeTable | LineTable) -> tuple[tuple[Port, tuple[int, ...]], ...]:
    """A table's free ports in port order, each with the values a tile may match there."""
    return tuple((port, value if isinstance(value, tuple) else (value,))
                 for port, value in table.port_values().items())
