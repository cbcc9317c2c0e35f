"""Why a move scored what it did (RULES.md sections 2-4), as a value: front ends word it
(the terminal in English, the web page in English or Polish) without redoing the rules."""

from __future__ import annotations

from dataclasses import dataclass

from dominolab.core.games import GameSpec, get_game
from dominolab.core.hand import NO_POINTS, Points, Step
from dominolab.core.moves import Draw, Keep, Pass, Play
from dominolab.core.tiles import Tile


@dataclass(frozen=True, slots=True)
class Reason:
    """What one step did for the score.

    ``kind``: ``"count"`` (a normal tile in a Luzak game: the table count after tile ``n``
    and whether it was ``scored``, i.e. not 0 and divisible by ``n``), ``"luzak"`` (the
    same for a luzak; in Luzak the opponent ``to`` also gets its ``pips``), ``"quartet"``
    (Widelec: the end tiles ``ends`` form ``quartet``), ``"none"`` (Widelec: no quartet;
    ``ends`` is None for the lead), or ``"draw"``, ``"pass"``, ``"keep"``. ``points`` are
    what the step gave each seat.
    """

    kind: str
    n: int = 0
    count: int = 0
    scored: bool = False
    to: int | None = None
    pips: int = 0
    quartet: str | None = None
    ends: tuple[Tile, Tile] | None = None
    points: Points = NO_POINTS


def reason_of(game: str | GameSpec, step: Step) -> Reason:
    """Why ``step`` (a step of ``game``, a name or a spec) scored what it did."""
    spec = get_game(game) if isinstance(game, str) else game
    move = step.move
    if isinstance(move, Draw):
        return Reason("draw")
    if isinstance(move, Pass):
        return Reason("pass")
    if isinstance(move, Keep):
        return Reason("keep")
    assert isinstance(move, Play)
    n = step.n
    if spec.scoring == "quartets":
        kind = "quartet" if step.quartet else "none"
        return Reason(kind, n, quartet=step.quartet, ends=step.ends, points=step.points)
    count = step.count or 0
    scored = count != 0 and count % n == 0
    if move.luzak:
        return Reason("luzak", n, count, scored, to=1 - step.seat,
                      pips=move.tile.pips if spec.luzak_pips else 0, points=step.points)
    return Reason("count", n, count, scored, points=step.points)
