"""What the opponent's *choices* say about its tiles: worlds weighted by how likely the
opponent's moves were in each.

:mod:`dominolab.core.worlds` gives the exact posterior under the rules alone: every world
the opponent's luzaks, draws and passes allow, equally likely, as if its choices among legal
moves said nothing. They do say something. An opponent that laid a tile worth nothing while
it held one that scored 20 is unlikely; a world where it held that tile should count less.

:class:`ChoiceModel` is such a model of the opponent (a belief, not a rule): at each of its
choices it picks among its legal moves with probability proportional to
``exp(sharpness * the move's immediate point margin for it)``. Each world drawn from the
exact posterior is weighted by the likelihood of the opponent's choices in it (importance
sampling); the result, :class:`~dominolab.core.worlds.Beliefs`, is a weighted list of the
opponent's possible hands that the search samples from instead (:class:`~dominolab.players.search.
WorldSampler`, :func:`dominolab.native.search.search`). Sharpness 0 is an opponent
choosing uniformly among its moves (a world with more moves to choose from then explains
its choices less well).

Equivalent moves (:mod:`dominolab.core.equivalence`) are one choice, as they are to the
search. A Widelec tile laid at once after it was drawn is no choice. The end-of-hand bonus
is left out of a move's margin (the model is of the opponent's habits, not exact play).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dominolab.core import TILES, Tile, View
from dominolab.core.equivalence import representatives
from dominolab.core.moves import Draw, Play
from dominolab.core.worlds import Beliefs, HiddenWorlds
from dominolab.players.greedy import expected_score


@dataclass(frozen=True, slots=True)
class _Choice:
    """One choice of the opponent's: the tiles it certainly held then (laid at or after it,
    not drawn after it), the history indexes of its hidden draws after it, per tile the
    summed ``exp(sharpness * margin)`` of its distinct placements then and their number,
    and the worth of the move it chose."""

    known: frozenset[Tile]
    later_draws: tuple[int, ...]
    worth: dict[Tile, float]
    counts: dict[Tile, int]
    chosen: float


class ChoiceModel:
    """The opponent as a soft greedy player: each choice among legal moves made with
    probability proportional to ``exp(sharpness * score)``. The score is the move's
    immediate margin (points for it minus points for us), or with ``answer`` the
    expected-answer greedy's score (:func:`~dominolab.players.greedy.expected_score`: that
    margin less our expected best answer, over the tiles it could not see then and had not
    certainly held). ``samples``: worlds drawn from the exact posterior to weigh.
    ``floor``: the share of choices made uniformly among the legal moves instead (a mixture
    with the uniform choice), so that one move the model finds unlikely never rules a world
    out: a sharp model without a floor trusts its own picture of the opponent too much."""

    def __init__(self, sharpness: float, samples: int = 1000, answer: bool = True,
                 floor: float = 0.0) -> None:
        if not 0.0 <= sharpness <= 10.0:
            raise ValueError(f"the sharpness must be from 0 to 10, not {sharpness!r}")
        if not 1 <= samples <= 8192:
            raise ValueError(f"samples must be from 1 to 8192, not {samples!r}")
        if not 0.0 <= floor <= 1.0:
            raise ValueError(f"the floor must be from 0 to 1, not {floor!r}")
        self.sharpness = sharpness
        self.samples = samples
        self.answer = answer
        self.floor = floor

    def beliefs(self, view: View, rng: random.Random) -> Beliefs:
        """The opponent's possible hands for ``view``, weighted by how likely its choices so
        far were in each (drawn from :class:`~dominolab.core.worlds.HiddenWorlds`)."""
        worlds = HiddenWorlds(view)
        choices = self.choices(view)
        by_hand: dict[tuple[Tile, ...], float] = {}
        logs: list[tuple[tuple[Tile, ...], float]] = []
        for _ in range(self.samples):
            if worlds.draws:
                theirs, _, drawn = worlds.sample_draws(rng)
            else:
                theirs, _ = worlds.sample(rng)
                drawn = {}
            logs.append((tuple(sorted(theirs, key=_index)),
                         self.log_weight(choices, theirs, drawn)))
        top = max(w for _, w in logs)
        for hand, w in logs:
            by_hand[hand] = by_hand.get(hand, 0.0) + math.exp(w - top)
        return Beliefs(tuple(by_hand), tuple(by_hand.values()))

    def log_weight(self, choices: Sequence[_Choice], theirs: Iterable[Tile],
                   drawn: Mapping[int, Tile]) -> float:
        """The log-likelihood of the opponent's ``choices`` (:meth:`choices`) in the world
        where it holds ``theirs`` now and drew ``drawn`` (a tile per hidden draw, by its
        index in the history): at each choice, the chosen move's worth over the summed worth
        of the tiles it held then, mixed with ``floor`` of a uniform choice among their
        placements."""
        held = frozenset(theirs)
        floor = self.floor
        log_weight = 0.0
        for choice in choices:
            gone = {drawn[j] for j in choice.later_draws}
            tiles = (held | choice.known) - gone
            worth = sum(choice.worth.get(t, 0.0) for t in tiles)
            if floor == 0.0:
                log_weight += math.log(choice.chosen / worth)
                continue
            count = sum(choice.counts.get(t, 0) for t in tiles)
            log_weight += math.log(floor / count + (1.0 - floor) * choice.chosen / worth)
        return log_weight

    def choices(self, view: View) -> list[_Choice]:
        """The opponent's choices in ``view``'s hand that the model reads."""
        me, opponent = view.seat, 1 - view.seat
        history = view.history
        spec = view.spec
        score = spec.hand_class.score_placement
        quartets = spec.scoring == "quartets"
        table = view.new_table_empty()
        # the opponent's hidden draws (tile unknown to us, not laid at once)
        hidden = [i for i, (s, mv) in enumerate(history)
                  if s == opponent and isinstance(mv, Draw)
                  and not (i + 1 < len(history) and history[i + 1][0] == opponent
                           and isinstance(history[i + 1][1], Play))]
        # tiles the opponent laid at once after drawing them: drawn, so not held before
        drawn_public = {i + 1 for i, (s, mv) in enumerate(history)
                        if s == opponent and isinstance(mv, Draw)
                        and i + 1 < len(history) and history[i + 1][0] == opponent
                        and isinstance(history[i + 1][1], Play)}
        candidates = [*view.unseen(), *(mv.tile for s, mv in history
                                        if s == opponent and isinstance(mv, Play))]
        out: list[_Choice] = []
        for i, (seat, move) in enumerate(history):
            if not isinstance(move, Play):
                continue
            if seat == opponent and not move.luzak and i not in drawn_public:
                later = history[i:]
                known = frozenset(
                    mv.tile for j, (s, mv) in enumerate(later, start=i)
                    if s == opponent and isinstance(mv, Play) and j not in drawn_public)
                held = view.opponent_tiles + sum(
                    1 for s, mv in later if s == opponent and isinstance(mv, Play)) - sum(
                    1 for s, mv in later if s == opponent and isinstance(mv, Draw))
                # what the opponent could not see then: neither on the table nor certainly
                # its own (laid later with no hidden draw of its in between)
                first_draw = next((j for j in hidden if j > i), len(history))
                certain = {mv.tile for j, (s, mv) in enumerate(history[i:first_draw], start=i)
                           if s == opponent and isinstance(mv, Play) and j not in drawn_public}
                on_table = {p.tile for p in table.placements}
                unseen_then = [t for t in TILES if t not in on_table and t not in certain]
                ours = len(view.hand) + sum(
                    1 for s, mv in later if s == me and isinstance(mv, Play)) - sum(
                    1 for s, mv in later if s == me and isinstance(mv, Draw))
                def worth_of(mv: Play, unseen_then: list[Tile] = unseen_then,
                             held: int = held, ours: int = ours) -> float:
                    if self.answer:
                        others = [t for t in unseen_then if t is not mv.tile]
                        key, _ = expected_score(mv, table, opponent, held == 1,
                                                others, ours, view.options, view.game)
                        margin = key / math.comb(len(others), min(ours, len(others)))
                    else:
                        points = score(table.copy(), mv, opponent, view.options)
                        margin = points[opponent] - points[me]
                    return math.exp(self.sharpness * margin)

                worth: dict[Tile, float] = {}
                counts: dict[Tile, int] = {}
                chosen = 0.0
                for tile in candidates:
                    plays = table.normal_plays((tile,))
                    if not plays:
                        continue
                    reps = representatives(table, plays, quartets) if len(plays) > 1 \
                        else plays
                    # one choice per class of equivalent moves
                    distinct = [m for m in dict.fromkeys(reps) if isinstance(m, Play)]
                    values = [worth_of(mv) for mv in distinct]
                    worth[tile] = sum(values)
                    counts[tile] = len(distinct)
                    if tile is move.tile:
                        chosen = values[distinct.index(reps[plays.index(move)])]  # type: ignore[arg-type]
                out.append(_Choice(known, tuple(j for j in hidden if j > i), worth, counts,
                                   chosen))
            table.place(move)
        return out


def _index(tile: Tile) -> int:
    return tile.index


__all__ = ["ChoiceModel"]
