"""Hints for people: every legal move with the expert's values, a one-line explanation of a
move, and a review of the moves that lost the most expected value.

Everything here works from a seat's :class:`~dominolab.core.View` alone, never the hand
state, so a hint can never leak a hidden tile. The values are the expert's
(:class:`~dominolab.players.search.ExpertPlayer`, its search on the rules' exact posterior,
without its model of the opponent's choices, so a hint comes at once): ``win_chance`` is
the estimated chance to win the match (:meth:`~dominolab.players.search.MatchValue.chance`:
in the Luzak games it counts what opening the next hand is worth), ``margin`` the expected
point margin (mine minus the opponent's) from the move to the end of the hand. With a
worlds-only budget the results repeat exactly for a given seed.

Moves that are the same in all but a port's name (a spinner's two short ends, the two long
sides of a lone opening double: :mod:`dominolab.core.equivalence`) are one move to the
search, share one value, are shown once (``40@2n (or 2s)``, :func:`distinct`,
:func:`move_text`) and are never set against each other in a review.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from dominolab.core import (
    Draw,
    Keep,
    LineTable,
    Move,
    Pass,
    Play,
    View,
    equivalent_moves,
    quartet_text,
)
from dominolab.players.base import Budget
from dominolab.players.search import ExpertPlayer, MoveValue

#: the budget of one hint: enough worlds to rank the moves, never much over a second
HINT_BUDGET: Final = Budget(worlds=4000, seconds=1.5)
#: the budget of each position of a review (a hand holds several of the person's moves)
REVIEW_BUDGET: Final = Budget(worlds=1500, seconds=0.4)
#: a review reports a move only if it lost at least this much win chance or these points
MIN_WIN_LOSS: Final = 0.005
MIN_POINTS_LOSS: Final = 0.5
#: a review searches a move further when it was searched in fewer than this share of the
#: worlds of the move it is compared with: their values are not equally sure
LOPSIDED: Final = 1 / 3
#: a review's "±" is this many standard errors (about 95% sure)
SURE_Z: Final = 1.96


# -- equivalent moves ------------------------------------------------------------------------

def move_classes(view: View) -> list[tuple[Move, ...]]:
    """The legal moves of ``view`` in classes of equivalent moves
    (:func:`dominolab.core.equivalent_moves`: the same tile on ports that are the same in all
    but name, like a spinner's two short ends), each class led by its representative."""
    return equivalent_moves(view.new_table(), view.legal_moves,
                            view.spec.scoring == "quartets")


def _class_map(view: View) -> dict[Move, tuple[Move, ...]]:
    return {m: cls for cls in move_classes(view) for m in cls}


def same_as(view: View, move: Move) -> tuple[Move, ...]:
    """The other legal moves equivalent to ``move`` (empty when it is alone)."""
    cls = _class_map(view).get(move, (move,))
    return tuple(m for m in cls if m != move)


def move_text(view: View, move: Move) -> str:
    """``move`` as a hint shows it: with the ports of its equivalent moves, e.g.
    ``40@2n (or 2s)``."""
    others = same_as(view, move)
    ports = [m.port.text for m in others if isinstance(m, Play) and m.port is not None]
    return f"{move!s} (or {' or '.join(ports)})" if ports else str(move)


def distinct(values: Iterable[MoveValue], view: View) -> list[MoveValue]:
    """``values`` with each class of equivalent moves once: its first entry (in
    :func:`rank`'s order that is the class's representative, as the members' values are the
    same)."""
    classes = _class_map(view)
    seen: set[Move] = set()
    out: list[MoveValue] = []
    for v in values:
        lead = classes.get(v.move, (v.move,))[0]
        if lead not in seen:
            seen.add(lead)
            out.append(v)
    return out


def equivalent(view: View, a: Move, b: Move) -> bool:
    """True if ``a`` and ``b`` are the same move in all but a port's name."""
    return a == b or b in same_as(view, a)


def win_chance(value: MoveValue) -> float:
    """The chance to win the match that a hint shows for a move (a player that does not
    value the match, pimc, gives none: its value, the mean margin, stands in)."""
    return value.win_chance if value.win_chance is not None else value.value


def rank(values: Iterable[MoveValue]) -> list[MoveValue]:
    """Analysed moves in the order a person is shown them, best first. The terminal's and
    the web page's hints both use this order, and a review's "better" move is the first.

    1. The win chance: it is the figure a hint leads with and what the match is about, so
       the list reads from the highest chance down and never puts "58%" above "63%".
    2. Then the expected margin to the end of the hand: among moves that win equally often
       (near the end of a match, often all 100% or all 0%) the one that scores more is
       better; points carry into the next hands.
    3. Then the better explored estimate (more worlds), then the order of the legal moves,
       so that equal values always come out in the same order.

    A move the search never tried (no worlds) has no estimate and goes last. This is not
    the expert's own order (most visited first, the move it would play): that order can
    list a lower shown chance above a higher one in a near-tie, which reads as a mistake;
    with a hint's budget the two orders differ only in such near-ties.
    """
    items = list(values)

    def key(item: tuple[int, MoveValue]) -> tuple[bool, float, float, int, int]:
        i, v = item
        return (v.worlds == 0, -win_chance(v), -v.margin, -v.worlds, i)

    return [v for _, v in sorted(enumerate(items), key=key)]


def analyse(view: View, budget: Budget | None = None, seed: int = 0) -> list[MoveValue]:
    """Every legal move of ``view``'s seat with the expert's values, in the expert's own
    order (most searched first); show them to a person in the order of :func:`rank`.

    Works from the view alone. Deterministic for a given ``seed`` when ``budget`` sets only
    worlds (a ``seconds`` limit makes the number of worlds depend on the machine).
    Raises :class:`ValueError` if the view's seat is not to move.
    """
    if not view.my_turn or not view.legal_moves:
        raise ValueError(f"seat {view.seat} is not to move, so it has no moves to analyse")
    expert = ExpertPlayer(random.Random(f"dominolab/hints/{seed}"), reading=False)
    return expert.analyse(view, budget or HINT_BUDGET)


# -- explanations ----------------------------------------------------------------------------

def immediate_points(view: View, move: Move) -> tuple[int, int]:
    """The points ``move`` scores at once as (mine, the opponent's); draws, passes and keeps
    score nothing, and a Widelec end-of-hand bonus is not included."""
    if not isinstance(move, Play):
        return 0, 0
    table = view.new_table()
    points = view.spec.hand_class.score_placement(table, move, view.seat, view.options)
    return points[view.seat], points[1 - view.seat]


def immediate_reason(view: View, move: Move) -> str:
    """Why ``move`` scores now, e.g. "scores +10 now (count 20 divisible by 4)"; "" when it
    scores nothing and does nothing else worth saying."""
    if isinstance(move, Draw):
        return "draws a tile"
    if isinstance(move, Pass):
        return "passes"
    if isinstance(move, Keep):
        return "keeps the drawn tile"
    assert isinstance(move, Play)
    mine, theirs = immediate_points(view, move)
    table = view.new_table()
    spec = view.spec
    spec.hand_class.score_placement(table, move, view.seat, view.options)
    parts: list[str] = []
    if spec.scoring == "quartets":
        if mine:
            assert isinstance(table, LineTable)
            left, right = table.end_tiles
            assert left is not None and right is not None
            edge = bool(getattr(view.options, "edge_double", True))
            parts.append(f"scores +{mine} now (ends {left} {right} form quartet "
                         f"{quartet_text(left, right, edge)})")
        if len(view.hand) == 1:
            parts.append("goes out")
        return "; ".join(parts)
    n = view.n + 1
    count = table.count
    rule = f"count {count} divisible by {n}"
    if move.luzak:
        if theirs and mine:
            parts.append(f"a luzak: the opponent scores +{theirs} now, you +{mine} ({rule})")
        elif theirs:
            parts.append(f"a luzak: the opponent scores +{theirs} now")
        else:
            parts.append("a luzak")
    elif mine:
        parts.append(f"scores +{mine} now ({rule})")
    return "; ".join(parts)


def percent(chance: float) -> str:
    """A chance for people: ``62%``, ``<1%``, ``>99%``."""
    if 0.0 < chance < 0.005:
        return "<1%"
    if 0.995 < chance < 1.0:
        return ">99%"
    return f"{100 * chance:.0f}%"


def percent_change(delta: float) -> str:
    """A change of chance: ``-7%``, ``-0.4%``, ``±0%``."""
    if abs(delta) < 0.0005:
        return "±0%"
    if abs(delta) < 0.01:
        return f"{100 * delta:+.1f}%"
    return f"{100 * delta:+.0f}%"


def explain(value: MoveValue, view: View, best: MoveValue | None = None) -> str:
    """One line for people about one analysed move, e.g.
    ``54@1e  win chance 62% (best), expected margin +4.1 points to the end of the hand;
    scores +10 now (count 20 divisible by 4)``. For a move other than ``best``, it says what
    it loses against the best (``vs the best: -7% win chance, -3.2 points``)."""
    chance = win_chance(value)
    # a move equivalent to the best is as good as the best (the same move but for a name)
    is_best = best is None or equivalent(view, best.move, value.move)
    text = (f"{move_text(view, value.move)}  win chance {percent(chance)}"
            + (" (best)" if is_best else ""))
    text += f", expected margin {value.margin:+.1f} points to the end of the hand"
    if not is_best:
        assert best is not None
        best_chance = win_chance(best)
        text += (f"; vs the best: {percent_change(chance - best_chance)} win chance, "
                 f"{value.margin - best.margin:+.1f} points")
    reason = immediate_reason(view, value.move)
    return text + (f"; {reason}" if reason else "")


# -- reviews ---------------------------------------------------------------------------------

def focused(view: View, move: Move, worlds: int, seed: int = 0,
            seconds: float | None = None) -> MoveValue:
    """The expert's value of ``move`` alone: its search with every iteration spent under
    that one move (``worlds`` of them, or fewer if ``seconds`` runs out). A review uses it
    for a move the full search hardly looked at, so that its value is as sure as the best
    move's. Deterministic for a seed with no ``seconds``."""
    expert = ExpertPlayer(random.Random(f"dominolab/hints/{seed}/focused"), reading=False)
    values = expert.analyse(view, Budget(worlds=max(1, worlds), seconds=seconds), only=[move])
    return next(v for v in values if v.move == move)


@dataclass(frozen=True, slots=True)
class Review:
    """One of the person's moves set against the expert's best in the same position.

    ``index``: the position's place in the sequence reviewed; ``view``: the view then;
    ``chosen`` and ``best``: the expert's values of the move played and of its best move.
    ``spread``: how sure the win chance lost is, as a "±" (about 95%, from the worlds each
    value rests on). ``focused``: when the expert's search had looked at one of the two
    moves in fewer than a third (:data:`LOPSIDED`) of the other's worlds, that move was
    searched again alone (:func:`focused`) with as many worlds as the other, and its value
    here is that search's; ``focused`` names the move, None when no move was.
    """

    index: int
    view: View
    chosen: MoveValue
    best: MoveValue
    spread: float = 0.0
    focused: Move | None = None

    @property
    def move(self) -> Move:
        return self.chosen.move

    @property
    def win_loss(self) -> float:
        """Win chance lost against the best move (0 or more)."""
        return max(0.0, win_chance(self.best) - win_chance(self.chosen))

    @property
    def points_loss(self) -> float:
        """Expected points of margin lost against the best move (may be negative when the
        best move gives up points for a better chance to win the match)."""
        return self.best.margin - self.chosen.margin

    @property
    def sure(self) -> bool:
        """The loss is larger than its "±": not search noise."""
        return self.win_loss > self.spread

    def certainty(self) -> str:
        """How sure the figure is, for people: ``±3%``, and ``not sure`` when the loss is
        within it."""
        text = f"±{100 * self.spread:.0f}%" if self.spread >= 0.005 else "±<1%"
        return text if self.sure else f"{text}, not sure"

    def summary(self) -> str:
        """``tile 5: 13@2e, better 54@1e: -7% win chance (±2%), -3.2 points``."""
        return (f"tile {self.view.n + 1}: {self.move!s}, better "
                f"{move_text(self.view, self.best.move)}: "
                f"{percent_change(-self.win_loss)} win chance ({self.certainty()}), "
                f"{-self.points_loss:+.1f} points")


def chance_spread(*estimates: tuple[float, int]) -> float:
    """The "±" (about 95%) of the difference of independent win chances, each given as
    (chance, the worlds it was estimated over): a win chance's variance is at most
    ``p(1-p)``, the most a value in 0..1 with that mean can have. A chance over no worlds
    is not known at all (1.0)."""
    var = 0.0
    for chance, worlds in estimates:
        if worlds == 0:
            return 1.0
        p = min(1.0, max(0.0, chance))
        var += max(p * (1 - p), 1e-4) / worlds
    return SURE_Z * math.sqrt(var)


def _spread(a: MoveValue, b: MoveValue) -> float:
    """The "±" of the difference of two moves' win chances (:func:`chance_spread`)."""
    return chance_spread((win_chance(a), a.worlds), (win_chance(b), b.worlds))


def assess(view: View, move: Move, budget: Budget | None = None, seed: int = 0,
           index: int = 0) -> Review | None:
    """``move`` (chosen in ``view``) set against the expert's best move there; None when it
    was forced (a single legal move). A move equivalent to the best (the same move on a port
    of another name, :func:`same_as`) is set against itself: it lost nothing. When the
    expert searched one of the two moves in fewer than a third of the other's worlds, that
    move is searched further, alone (:func:`focused`), so the two values rest on as many
    worlds. ``index`` is the position's place in the sequence reviewed. Raises
    :class:`ValueError` if ``move`` is not legal in ``view``."""
    if move not in view.legal_moves:
        raise ValueError(f"{move} is not a legal move of seat {view.seat} in position "
                         f"{index}")
    if len(view.legal_moves) < 2:
        return None
    budget = budget or REVIEW_BUDGET
    values = analyse(view, budget, seed)
    best = rank(values)[0]
    chosen = next(v for v in values if v.move == move)
    if equivalent(view, chosen.move, best.move):
        return Review(index, view, chosen, chosen, _spread(chosen, chosen))
    again: Move | None = None
    if min(chosen.worlds, best.worlds) < LOPSIDED * max(chosen.worlds, best.worlds):
        # one value rests on far fewer worlds: search that move further, alone
        fewer, more = (chosen, best) if chosen.worlds < best.worlds else (best, chosen)
        value = focused(view, fewer.move, more.worlds, seed, budget.seconds)
        again = value.move
        chosen, best = (value, best) if fewer is chosen else (chosen, value)
    return Review(index, view, chosen, best, _spread(chosen, best), again)


def costliest(assessed: Iterable[Review], top: int = 3, *,
              min_win_loss: float = MIN_WIN_LOSS,
              min_points_loss: float = MIN_POINTS_LOSS) -> list[Review]:
    """The ``top`` of the ``assessed`` moves (:func:`assess`) that lost the most: win chance
    lost first, then points. A move equivalent to the best, and one that lost less than
    ``min_win_loss`` win chance and less than ``min_points_loss`` points (search noise),
    is left out."""
    found = [r for r in assessed
             if not equivalent(r.view, r.chosen.move, r.best.move)
             and (r.win_loss >= min_win_loss or r.points_loss >= min_points_loss)]
    found.sort(key=lambda r: (-r.win_loss, -r.points_loss, r.index))
    return found[:top]


def review(positions: Sequence[tuple[View, Move]], budget: Budget | None = None,
           seed: int = 0, top: int = 3, *, min_win_loss: float = MIN_WIN_LOSS,
           min_points_loss: float = MIN_POINTS_LOSS) -> list[Review]:
    """The ``top`` moves of ``positions`` (each the view when a move was chosen, and that
    move) that lost the most against the expert's best: win chance lost first, then points
    (:func:`assess` each position, then :func:`costliest`).

    Forced moves (a single legal move) are skipped, and so is a move equivalent to the best
    (the same move on a port of another name, :func:`same_as`), and a move that lost less
    than ``min_win_loss`` win chance and less than ``min_points_loss`` points (search noise).
    Every review says how sure its figure is (:attr:`Review.spread`).
    """
    assessed = [assess(view, move, budget, seed, index)
                for index, (view, move) in enumerate(positions)]
    return costliest((r for r in assessed if r is not None), top,
                     min_win_loss=min_win_loss, min_points_loss=min_points_loss)


__all__ = ["HINT_BUDGET", "LOPSIDED", "REVIEW_BUDGET", "MoveValue", "Review", "analyse",
           "assess", "chance_spread", "costliest", "distinct", "equivalent", "explain", "focused",
           "immediate_points", "immediate_reason", "move_classes", "move_text", "percent",
           "percent_change", "rank", "review", "same_as", "win_chance"]
