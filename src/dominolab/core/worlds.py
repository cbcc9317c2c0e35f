"""Possible worlds: what the rules prove about the tiles a seat cannot see, and the hand
state a view would have under one assignment of those tiles.

Search players sample worlds (which hidden tile is where) and search each one; the
sampling lives with the players, the facts of the rules live here:

* Luzak games: a luzak proves its layer held no tile fitting any free port then, and
  without drawing that is still true of every tile they hold now (RULES.md §2, §3).
* Widelec: a draw or a pass proves the drawer held no tile fitting either end then; tiles
  drawn later may fit, so each fact allows as many fitting tiles as the opponent has drawn
  since without showing them (RULES.md §4). A kept playable tile (option) fits, and so does
  a tile just drawn that the drawer must now lay.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dominolab.core.errors import InvalidMoveError
from dominolab.core.games import get_game
from dominolab.core.hand import Deal, Hand, WidelecHand
from dominolab.core.moves import Draw, Keep, Move, Pass, Play
from dominolab.core.table import LineTable, TreeTable
from dominolab.core.tiles import Tile
from dominolab.core.view import View


@dataclass(frozen=True, slots=True)
class Limit:
    """At most ``allowed`` of the opponent's current tiles have a half in ``values``."""

    values: frozenset[int]
    allowed: int

    def count(self, tiles: Sequence[Tile]) -> int:
        values = self.values
        return sum(1 for t in tiles if t.hi in values or t.lo in values)


def opponent_limits(view: View) -> tuple[Limit, ...]:
    """What the opponent's moves in this hand prove about the tiles they hold now."""
    opponent = 1 - view.seat
    table = view.new_table_empty()
    history = view.history
    facts: list[tuple[int, frozenset[int], int]] = []  # (index in history, values, kept)
    for i, (seat, move) in enumerate(history):
        if seat == opponent:
            if isinstance(move, Play) and move.luzak:
                facts.append((i, _open_values(table), 0))
            elif isinstance(move, Draw | Pass):
                # the drawn tile fits when it was kept (option), or when it is the last move
                # and the drawer is still to move: it must be laid now
                kept = int(i + 1 < len(history) and isinstance(history[i + 1][1], Keep)) or int(
                    isinstance(move, Draw) and i + 1 == len(history)
                    and view.to_move == opponent)
                facts.append((i, _open_values(table), kept))
        if isinstance(move, Play):
            table.place(move)
    # draws by the opponent whose tile stayed hidden (not laid at once)
    hidden_draws = [
        i for i, (seat, move) in enumerate(history)
        if seat == opponent and isinstance(move, Draw)
        and not (i + 1 < len(history) and history[i + 1][0] == opponent
                 and isinstance(history[i + 1][1], Play))
    ]
    limits = []
    for i, values, kept in facts:
        later = sum(1 for j in hidden_draws if j > i)
        limits.append(Limit(values, later + kept))
    return tuple(limits)


def _open_values(table: TreeTable | LineTable) -> frozenset[int]:
    if isinstance(table, TreeTable):
        return frozenset(table.port_value.values())
    if table.n == 0:
        return frozenset()
    return frozenset(table.end_values[0]) | frozenset(table.end_values[1])


def fits_limits(tiles: Sequence[Tile], limits: Sequence[Limit]) -> bool:
    return all(limit.count(tiles) <= limit.allowed for limit in limits)


def check_world(view: View, opponent: Sequence[Tile], rest: Sequence[Tile]) -> None:
    """Raise InvalidMoveError unless ``opponent`` and ``rest`` can be the hidden tiles of
    ``view``: the hand is not over, the opponent's count and the boneyard's size match, and
    together they are the unseen tiles, each once."""
    if view.result is not None:
        raise InvalidMoveError("the hand is over; there is nothing to search")
    if len(opponent) != view.opponent_tiles:
        raise InvalidMoveError(f"the opponent holds {view.opponent_tiles} tiles, "
                               f"not {len(opponent)}")
    if view.boneyard is not None and len(rest) != view.boneyard:
        raise InvalidMoveError(f"the boneyard holds {view.boneyard} tiles, not {len(rest)}")
    unseen = set(view.unseen())
    given = [*opponent, *rest]
    if set(given) != unseen or len(given) != len(unseen):
        raise InvalidMoveError("the opponent's tiles and the rest must be the unseen tiles, "
                               "each once")


def passes_in_a_row(history: Sequence[tuple[int, Move]]) -> int:
    """Passes at the end of a hand's history (two in a row end it: RULES.md section 4)."""
    passes = 0
    for _, move in reversed(history):
        if not isinstance(move, Pass):
            break
        passes += 1
    return passes


def hand_from_view(view: View, opponent: Sequence[Tile], rest: Sequence[Tile]) -> Hand[Any]:
    """The hand state ``view`` describes, with ``opponent`` as the opponent's tiles and
    ``rest`` as the unused tiles (Luzak) or the boneyard, next draw first (Widelec).

    The result is a full state for search (its ``deal`` is a stand-in built from this
    world, not the real deal). Raises InvalidMoveError if the tiles do not fit the view.
    """
    check_world(view, opponent, rest)
    cls: type[Hand[Any]] = get_game(view.game).hand_class
    hand = cls.__new__(cls)
    own = sorted(view.hand, key=_index)
    theirs = sorted(opponent, key=_index)
    hands = [own, theirs] if view.seat == 0 else [theirs, own]
    hand.options = view.options
    on_table = tuple(p.tile for p in view.table)
    hand.deal = Deal((tuple(hands[0]), tuple(hands[1])), (*on_table, *rest))
    hand.opener = view.opener
    hand.to_move = view.to_move if view.to_move is not None else view.seat
    hand.hands = hands
    hand.points = [view.hand_points[0], view.hand_points[1]]
    hand.moves = list(view.history)
    hand.result = None
    table = view.new_table()
    hand.table = table
    if isinstance(hand, WidelecHand):
        hand.boneyard = list(reversed(rest))
        hand.pending = view.pending  # the drawn tile, which must be laid
        hand.passes = passes_in_a_row(view.history)
        from dominolab.core.quartets import QUARTET_WORTH

        hand._worth = QUARTET_WORTH[view.options.edge_double]  # type: ignore[attr-defined]
    return hand


def _index(tile: Tile) -> int:
    return tile.index
