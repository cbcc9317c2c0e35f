"""Scripted positions: lay moves on an empty table without hands (RULES.md section 6).

Seats alternate from ``first_seat``. A luzak must be marked (``11@2e*``) and must fit no
open port, as in the worked examples; every tile may be laid once.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dominolab.core.errors import IllegalMoveError, InvalidMoveError, shown
from dominolab.core.games import GameSpec, get_game
from dominolab.core.hand import Step
from dominolab.core.moves import Move, Play, resolve_move
from dominolab.core.options import Options
from dominolab.core.quartets import quartet_text
from dominolab.core.table import LineTable, TreeTable
from dominolab.core.tiles import TILES


def split_moves(text: str) -> list[str]:
    """Split a move list written with spaces, commas or semicolons."""
    return [t for t in text.replace(",", " ").replace(";", " ").split() if t]


def score_moves(game: str | GameSpec, moves: str | Iterable[str],
                options: Options | None = None, first_seat: int = 0) -> list[Step]:
    """Lay ``moves`` (a text or a list of move texts) and return a Step for each tile:
    N, the table count (Luzak games) or the end tiles and quartet (Widelec), the points."""
    spec = get_game(game) if isinstance(game, str) else game
    opts: Any = options if options is not None else spec.options_class()
    texts = split_moves(moves) if isinstance(moves, str) else list(moves)
    if not texts:
        raise InvalidMoveError("no moves given")
    table = spec.new_table(opts)
    quartets = spec.scoring == "quartets"
    used: set[object] = set()
    steps: list[Step] = []
    seat = first_seat
    for text in texts:
        unused = [t for t in TILES if t not in used]
        legal: list[Move] = list(table.normal_plays(unused))
        if spec.luzaks and table.n:
            legal.extend(table.luzak_plays([t for t in unused if not table.fits(t)]))
        position = (f"{spec.name} scripted, tile {table.n + 1}; table: "
                    + (" ".join(map(str, table.placements)) or "(empty)"))
        try:
            move = resolve_move(text, legal, position)
        except IllegalMoveError:
            _explain(text, table, used, spec.luzaks, position)
            raise
        assert isinstance(move, Play)
        points = spec.hand_class.score_placement(table, move, seat, opts)
        used.add(move.tile)
        if isinstance(table, LineTable) and quartets:
            ends = quartet = None
            if table.n >= 2:
                left, right = table.end_tiles
                assert left is not None and right is not None
                ends = (left, right)
                quartet = quartet_text(left, right, opts.edge_double) if any(points) else None
            steps.append(Step(seat, move, table.n, points, ends=ends, quartet=quartet))
        else:
            steps.append(Step(seat, move, table.n, points, count=table.count))
        seat = 1 - seat
    return steps


def _explain(text: str, table: TreeTable | LineTable, used: set[object], luzaks: bool,
             position: str) -> None:
    """Raise a more precise IllegalMoveError for ``text`` if one can be told."""
    from dominolab.core.moves import parse_move

    try:
        move = parse_move(text)
    except InvalidMoveError:
        return
    if not isinstance(move, Play):
        raise IllegalMoveError(f"{shown(text)}: a scripted position holds only tiles laid. "
                               f"Position: {position}")
    if move.tile in used:
        raise IllegalMoveError(f"{shown(text)}: {move.tile} is on the table already. "
                               f"Position: {position}")
    if not luzaks and move.luzak:
        raise IllegalMoveError(f"{shown(text)}: this game has no luzak. Position: {position}")
    try:
        table.check(move)
    except IllegalMoveError as exc:
        raise IllegalMoveError(f"{exc}. Position: {position}") from None
    if move.luzak and table.fits(move.tile):
        raise IllegalMoveError(f"{shown(text)}: {move.tile} fits an open port, so it cannot be a "
                               f"luzak. Position: {position}")
