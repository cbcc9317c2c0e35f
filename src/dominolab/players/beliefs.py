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

:class:`SearchingModel` models a player that looks ahead instead: world by world, each of
the opponent's choices is valued by a small PIMC *with the hand it held then*
(docs/strength/log.md, "World by world"). It keeps its weighted worlds through a hand and
re-weighs them only by the opponent's new choices. :class:`GreedyModel` models the
opponent as the expected-answer greedy (the ``easy`` level) instead, and
:class:`MixedModel` asks which kind of player the opponent is: it weighs the two models
against each other by how well each explains the choices so far (Bayesian model
averaging). Every model satisfies :class:`OpponentModel`, the one interface the searches
use.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from dominolab import native
from dominolab.core import TILES, Deal, Hand, Tile, View, get_game
from dominolab.core.equivalence import representatives
from dominolab.core.moves import Draw, Move, Play
from dominolab.core.view import free_ports_of, view_of
from dominolab.core.worlds import Beliefs, HiddenWorlds, proven_values
from dominolab.players.base import Budget
from dominolab.players.greedy import GreedyHolding, expected_score

if TYPE_CHECKING:
    from dominolab.players.search import MoveValue


class OpponentModel(Protocol):
    """A model of the opponent's choices, as the searches use one: the opponent's possible
    hands for a view, weighted; None to search the rules' exact posterior instead. A model
    given a ``deadline`` (a :func:`time.perf_counter` reading) stops weighing worlds then and
    answers with those it has: its time counts against the search's. ``native_only``: the
    model replays worlds and runs searches of its own, affordable on the native path alone
    (on the pure-Python path the expert does without it)."""

    native_only: bool

    def beliefs(self, view: View, rng: random.Random,
                deadline: float | None = None) -> Beliefs | None: ...


class WeighingModel(OpponentModel, Protocol):
    """A model that weighs worlds drawn from the rules' exact posterior one by one, and
    says how well it explains the opponent's choices (:class:`Weighed`), so that models of
    different kinds of player can be weighed against each other (:class:`MixedModel`)."""

    def weighed(self, view: View, rng: random.Random,
                deadline: float | None = None) -> Weighed | None: ...

    @property
    def greedy_moves(self) -> float:
        """The chance that this kind of player makes the expected-answer greedy's move at a
        choice (what a search may assume of it where it is read as this kind)."""
        ...


@dataclass(frozen=True, slots=True)
class Weighed:
    """Worlds drawn from the rules' exact posterior (:class:`~dominolab.core.worlds.
    HiddenWorlds`), each with the log-likelihood of the opponent's choices in it under one
    model: the opponent's hands now (tuples in tile order; a hand drawn twice may stand
    twice) and their logs."""

    hands: tuple[tuple[Tile, ...], ...]
    logs: tuple[float, ...]

    def evidence(self) -> float:
        """The log of the mean likelihood over the worlds: an estimate of the probability
        of the opponent's choices under the model (its marginal likelihood), the measure by
        which models of different kinds of player are compared."""
        top = max(self.logs)
        return top + math.log(sum(math.exp(x - top) for x in self.logs) / len(self.logs))

    def shares(self) -> dict[tuple[Tile, ...], float]:
        """Each distinct hand's share of the likelihood (the shares sum to 1)."""
        summed = self._summed()
        total = sum(summed.values())
        return {hand: w / total for hand, w in summed.items()}

    def beliefs(self) -> Beliefs:
        """The hands as beliefs, each weighing its likelihood (relative to the likeliest)."""
        summed = self._summed()
        return Beliefs(tuple(summed), tuple(summed.values()))

    def _summed(self) -> dict[tuple[Tile, ...], float]:
        top = max(self.logs)
        out: dict[tuple[Tile, ...], float] = {}
        for hand, log in zip(self.hands, self.logs, strict=True):
            out[hand] = out.get(hand, 0.0) + math.exp(log - top)
        return out


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

    native_only = False

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

    def beliefs(self, view: View, rng: random.Random,
                deadline: float | None = None) -> Beliefs:
        """The opponent's possible hands for ``view``, weighted by how likely its choices so
        far were in each (drawn from :class:`~dominolab.core.worlds.HiddenWorlds`; every
        sample is weighed, ``deadline`` or not: the model is cheap)."""
        worlds = HiddenWorlds(view)
        choices = self.choices(view)
        by_hand: dict[tuple[Tile, ...], float] = {}
        logs: list[tuple[tuple[Tile, ...], float]] = []
        for _ in range(self.samples):
            theirs, drawn = worlds.sample_hand(rng)
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


def _falls_short(deadline: float | None, have: int, tried: int, started: float,
                 least: int) -> bool:
    """On the clock (a ``deadline``), whether the worlds weighed so far, ``have`` of
    ``tried`` since ``started``, will at that rate fall short of ``least`` by the deadline."""
    if deadline is None or not tried:
        return False
    now = time.perf_counter()
    return have + (deadline - now) * tried / (now - started) < least


def dealt_of(view: View) -> tuple[tuple[Tile, ...], tuple[Tile, ...]]:
    """(this seat's dealt tiles, the tiles the opponent laid) in a Luzak game's view."""
    mine = [*view.hand, *(mv.tile for s, mv in view.history
                          if s == view.seat and isinstance(mv, Play))]
    laid = tuple(mv.tile for s, mv in view.history
                 if s != view.seat and isinstance(mv, Play))
    return tuple(sorted(mine, key=_index)), laid


def hand_at_start(view: View, dealt: Sequence[Tile]) -> Hand[Any]:
    """A Luzak game's hand of ``view`` at its start, in the world where the opponent was
    dealt ``dealt``."""
    mine, _ = dealt_of(view)
    theirs = tuple(sorted(dealt, key=_index))
    taken = {*mine, *theirs}
    rest = tuple(t for t in TILES if t not in taken)
    hands = (mine, theirs) if view.seat == 0 else (theirs, mine)
    return view.spec.hand_class(Deal(hands, rest), view.opener, view.options)


@dataclass(slots=True)
class _Particle:
    """One possible world of a hand: the opponent's dealt tiles, the world replayed up to
    the history's ``done`` moves, and the log-likelihood of its choices so far."""

    dealt: tuple[Tile, ...]
    opponent: int
    world: Hand[Any]
    log: float = 0.0


@dataclass(slots=True)
class _Pool:
    """The particles of one hand of one seat, and the history they were replayed through."""

    history: tuple[tuple[int, Move], ...]
    particles: dict[tuple[Tile, ...], _Particle] = field(default_factory=dict)


class Weighing:
    """The beliefs of a model that weighs worlds one by one (:class:`WeighingModel`)."""

    def weighed(self, view: View, rng: random.Random,
                deadline: float | None = None) -> Weighed | None:
        raise NotImplementedError

    def beliefs(self, view: View, rng: random.Random,
                deadline: float | None = None) -> Beliefs | None:
        """:meth:`weighed`'s worlds as beliefs (None where it declines)."""
        found = self.weighed(view, rng, deadline)
        return None if found is None else found.beliefs()


class SearchingModel(Weighing):
    """The opponent as a player that looks ahead (a model fitted to a PIMC opponent):
    at each of its choices, a small PIMC (``pimc_worlds`` deals of the tiles it could not
    see, :class:`~dominolab.players.search.PimcPlayer`) values its legal moves *with the
    hand it held then*, one per class of equivalent moves, and it is taken to choose with
    probability ``floor / classes + (1 - floor) * softmax(values / tau)[its class]``. A
    world's weight is the product over the opponent's choices (a normal play with two or
    more classes to choose from; a luzak is no choice).

    Everything comes from the view: the seat's own dealt tiles are its hand and the tiles
    it laid; a world is the opponent's tiles now, its dealt tiles those plus the ones it
    laid, replayed through the engine from the start of the hand (a world where a move of
    the history is illegal is none). Each small PIMC is seeded by the choice and the hand
    the opponent held then (:meth:`seed`), so a world's weight is a function of the world
    alone and fixed-budget runs repeat.

    Particles: the worlds are kept through a hand, each replayed up to the last move seen
    with its log-likelihood; at the next call only the opponent's new choices are valued
    and worlds its new moves rule out are dropped; ``samples`` fresh worlds from the exact
    posterior (:class:`~dominolab.core.worlds.HiddenWorlds`, distinct from those kept) top
    them up each call (as many draws as ``samples`` less the worlds kept, at least a quarter
    of ``samples``), and when more than ``keep`` are held the least likely go. Distinct
    worlds drawn uniformly from a uniform posterior, weighted by their likelihood, are a
    self-normalised importance sample; dropping the least likely is an approximation.

    ``work`` bounds a call's time by the number of the opponent's choices it values (one
    small PIMC each), not by the clock, so that fixed-budget runs still repeat: kept worlds
    are advanced most likely first and fresh ones drawn until that many were valued (a
    world started is finished, and one world is always there); None: no bound.
    ``carry=False`` keeps no worlds between calls: every call starts afresh, so the beliefs
    are a function of the view (and the random stream) alone, as for a player made anew
    for each move (the web app's computer).

    A carrying model reads the Luzak games only: the view does not say which tiles this
    seat drew, so the start of a Widelec hand cannot be rebuilt from it (:meth:`beliefs` is
    None there). A model that starts afresh reads Widelec too: it never replays a world from
    the start, but weighs each choice in the opponent's view then, with the tiles the world
    gives it then (:meth:`_fresh`; in the Luzak games the same worlds and weights). Both
    decline before the opponent has made a choice."""

    native_only = True
    #: a searching player is assumed to make no move for being the greedy's
    greedy_moves = 0.0

    def __init__(self, samples: int = 64, keep: int = 128, pimc_worlds: int = 8,
                 tau: float = 2.0, floor: float = 0.1, work: int | None = None,
                 carry: bool = True) -> None:
        if not 1 <= samples <= 4096 or not samples <= keep <= 8192:
            raise ValueError(f"samples must be from 1 to 4096 and keep from samples to 8192, "
                             f"not {samples!r} and {keep!r}")
        if work is not None and not 1 <= work <= 1_000_000:
            raise ValueError(f"work must be from 1 to 1,000,000 choices, not {work!r}")
        if not 1 <= pimc_worlds <= 256:
            raise ValueError(f"pimc_worlds must be from 1 to 256, not {pimc_worlds!r}")
        if not tau > 0.0:
            raise ValueError(f"tau must be above 0, not {tau!r}")
        if not 0.0 <= floor <= 1.0:
            raise ValueError(f"the floor must be from 0 to 1, not {floor!r}")
        self.samples = samples
        self.keep = keep
        self.pimc_worlds = pimc_worlds
        self.tau = tau
        self.floor = floor
        self.work = work
        self.carry = carry
        #: the opponent's choices valued (small searches run) so far, for :attr:`work`
        self.valued = 0
        self._pools: dict[tuple[object, ...], _Pool] = {}

    # the model, one choice at a time ---------------------------------------------------
    @staticmethod
    def seed(at: int, held: Iterable[Tile]) -> str:
        """The small PIMC's seed for the opponent's choice at history index ``at`` holding
        ``held`` then."""
        return f"dominolab/searching-model/{at}/" + ",".join(
            str(t.index) for t in sorted(held, key=_index))

    def values(self, seen: View, at: int) -> list[MoveValue]:
        """The small PIMC's values of the opponent's legal moves in its view ``seen``, the
        choice at history index ``at``."""
        from dominolab.players.search import PimcPlayer

        pimc = PimcPlayer(random.Random(self.seed(at, seen.hand)))
        return pimc.analyse(seen, Budget(worlds=self.pimc_worlds))

    def choice_log(self, world: Hand[Any], at: int, move: Move) -> float:
        """The log-probability that the opponent, to move in ``world`` (before history
        index ``at``), makes ``move``; 0 when it is no choice."""
        if not isinstance(move, Play) or move.luzak:
            return 0.0
        return self._log_of(world.table, world.legal_moves(), at, move,
                            get_game(world.GAME).scoring == "quartets",
                            lambda: view_of(world, world.to_move))

    def _log_of(self, table: Any, legal: Sequence[Move], at: int, move: Move,
                quartets: bool, seen: Callable[[], View]) -> float:
        """:meth:`choice_log` of ``move`` among ``legal`` on ``table`` (Widelec's with
        ``quartets``), ``seen`` giving the opponent's view then (asked only when the move is
        a choice)."""
        if len(legal) < 2:
            return 0.0
        reps = representatives(table, legal, quartets)
        classes = list(dict.fromkeys(reps))
        if len(classes) < 2:
            return 0.0
        self.valued += 1
        chance = self.choice_chance(seen(), at, classes, classes.index(reps[legal.index(move)]))
        return math.log(self.floor / len(classes) + (1.0 - self.floor) * chance)

    def choice_chance(self, seen: View, at: int, classes: Sequence[Move], chosen: int) -> float:
        """The chance that a searching player in view ``seen`` (the choice at history index
        ``at``) makes a move of ``classes[chosen]``, among the representatives ``classes`` of
        its classes of equivalent moves, before the floor: a softmax of the small PIMC's
        values at temperature :attr:`tau`."""
        value = {v.move: v.value for v in self.values(seen, at)}
        scores = [value[m] / self.tau for m in classes]
        top = max(scores)
        worth = [math.exp(x - top) for x in scores]
        return worth[chosen] / sum(worth)

    # worlds from the view ----------------------------------------------------------------
    def advance(self, particle: _Particle, history: Sequence[tuple[int, Move]],
                done: int) -> bool:
        """Replay ``history[done:]`` in the particle's world, adding the opponent's choices'
        log-probabilities; False if a move is illegal there."""
        world = particle.world
        for i in range(done, len(history)):
            seat, move = history[i]
            if world.to_move != seat or move not in world.legal_moves():
                return False
            if seat == particle.opponent:
                particle.log += self.choice_log(world, i, move)
            world.apply_unchecked(move)
        return True

    def log_likelihood(self, view: View, theirs: Iterable[Tile]) -> float | None:
        """The log-likelihood of the opponent's choices in ``view``'s hand, in the world
        where it holds ``theirs`` now, replayed from scratch (None if no such world)."""
        theirs = tuple(theirs)
        if len(set(theirs)) != view.opponent_tiles or not set(theirs) <= set(view.unseen()):
            return None
        _, laid = dealt_of(view)
        dealt = tuple(sorted({*theirs, *laid}, key=_index))
        particle = _Particle(dealt, 1 - view.seat, hand_at_start(view, dealt))
        if not self.advance(particle, view.history, 0):
            return None
        return particle.log

    def _spent(self, deadline: float | None) -> bool:
        return ((self.work is not None and self.valued >= self.work)
                or (deadline is not None and time.perf_counter() >= deadline))

    # beliefs ---------------------------------------------------------------------------
    def weighed(self, view: View, rng: random.Random,
                deadline: float | None = None) -> Weighed | None:
        """The opponent's possible hands now, weighted by its choices so far; None before
        the opponent has made a choice (the exact posterior then), and in Widelec for a
        carrying model. Past
        ``deadline`` it stops as when out of :attr:`work` (a bound by the clock, so only for
        searches under a time budget or its ceiling; fixed-budget runs repeat only when it
        is not reached); if by then it has weighed fewer than a quarter of
        :attr:`samples` worlds, or sees it will not, it declines: too few worlds to weigh
        are worse than the rules' posterior, and the time is the search's."""
        if view.opponent_tiles == 0:
            return None
        if not self.carry:
            return self._fresh(view, rng, deadline)
        opponent = 1 - view.seat
        if view.spec.has_boneyard or not any(
                s == opponent and isinstance(mv, Play) and not mv.luzak
                for s, mv in view.history):
            return None
        mine, laid = dealt_of(view)
        key = (view.game, view.options, view.seat, view.opener, view.hand_number,
               view.totals, mine)
        pool = self._pools.get(key)
        history = view.history
        if pool is None or not self.carry or history[:len(pool.history)] != pool.history:
            pool = _Pool(())
            if len(self._pools) >= 4:
                self._pools.pop(next(iter(self._pools)))
        self._pools[key] = pool
        done = len(pool.history)
        # the most likely first, so that a call out of work keeps the worlds that matter
        kept = list(pool.particles.items())
        if self.work is not None:
            kept.sort(key=lambda kv: (-kv[1].log, [t.index for t in kv[0]]))
        self.valued = 0
        particles = {d: p for d, p in kept
                     if not self._spent(deadline) and self.advance(p, history, done)}
        worlds = HiddenWorlds(view)
        least = max(1, self.samples // 4)
        started, tried, cut = time.perf_counter(), 0, False
        for _ in range(max(self.samples - len(particles), self.samples // 4)):
            if _falls_short(deadline, len(particles), tried, started, least):
                cut = True
                break
            if self._spent(deadline) and particles:
                break
            tried += 1
            theirs, _ = worlds.sample(rng)
            dealt = tuple(sorted([*theirs, *laid], key=_index))
            if dealt in particles:
                continue
            particle = _Particle(dealt, 1 - view.seat, hand_at_start(view, dealt))
            if self.advance(particle, history, 0):
                particles[dealt] = particle
        if deadline is not None and len(particles) < least and (
                cut or time.perf_counter() >= deadline):
            self._pools.pop(key)  # cut short by the clock: the exact posterior instead
            return None
        if len(particles) > self.keep:
            ranked = sorted(particles.items(),
                            key=lambda kv: (-kv[1].log, [t.index for t in kv[0]]))
            particles = dict(ranked[:self.keep])
        pool.history = history
        pool.particles = particles
        gone = set(laid)
        return Weighed(tuple(tuple(t for t in d if t not in gone) for d in particles),
                       tuple(p.log for p in particles.values()))

    def _fresh(self, view: View, rng: random.Random,
               deadline: float | None) -> Weighed | None:
        """:meth:`weighed` afresh (``carry=False``), in every game: each world drawn from
        the exact posterior (in Widelec with the tiles of the opponent's hidden draws) is
        weighed choice by choice in the opponent's view then (:func:`choice_views`) with
        the tiles the world gives it then, which is the opponent's view in the world
        replayed (so, in the Luzak games, the same worlds and weights as the particles'
        replay from the start of the hand). None before the opponent's first choice."""
        steps = [ChoiceStep(then, view) for then in choice_views(view).values()]
        if not steps:
            return None
        quartets = view.spec.scoring == "quartets"
        worlds = HiddenWorlds(view)
        least = max(1, self.samples // 4)
        self.valued = 0
        found: dict[object, tuple[tuple[Tile, ...], float]] = {}
        started, tried, cut = time.perf_counter(), 0, False
        for _ in range(self.samples):
            if _falls_short(deadline, len(found), tried, started, least):
                cut = True
                break
            if self._spent(deadline) and found:
                break
            tried += 1
            theirs, drawn = worlds.sample_hand(rng)
            hand = tuple(sorted(theirs, key=_index))
            key = (hand, tuple(sorted(drawn.items())))
            if key in found:
                continue
            mask = native.mask_of(hand)
            log = 0.0
            for step in steps:
                tiles, legal = step.holding(step.held(mask, drawn))
                log += self._log_of(step.table, legal, step.at, step.move, quartets,
                                    partial(replace, step.then, hand=tiles,
                                            legal_moves=tuple(legal)))
            found[key] = (hand, log)
        if deadline is not None and len(found) < least and (
                cut or time.perf_counter() >= deadline):
            return None  # cut short by the clock: the exact posterior instead
        return Weighed(tuple(h for h, _ in found.values()),
                       tuple(log for _, log in found.values()))


def checked_sampling(samples: int, floor: float, most: int) -> tuple[int, float]:
    """(``samples``, ``floor``) of a model that weighs sampled worlds with a floor of uniform
    choice, or ValueError naming the one out of range (1 to ``most`` worlds; a floor above 0
    and at most 1)."""
    if not 1 <= samples <= most:
        raise ValueError(f"samples must be from 1 to {most}, not {samples!r}")
    if not 0.0 < floor <= 1.0:
        raise ValueError(f"the floor must be above 0 and at most 1, not {floor!r}")
    return samples, floor


class GreedyModel(Weighing):
    """The opponent as the expected-answer greedy (:class:`~dominolab.players.greedy.
    GreedyPlayer`: the ``easy`` level, and a player who takes the points in front of it
    while minding the answer): at each of its choices it makes the greedy's move (its class
    of equivalent moves), save that with probability ``floor`` it chooses uniformly among
    its classes instead. ``samples`` worlds drawn from the rules' exact posterior (in
    Widelec with the tiles of the opponent's hidden draws) are weighed by that likelihood
    (:meth:`weighed`).

    The greedy's move in a world is asked of the greedy itself, in the opponent's view at
    that choice (:func:`choice_views`) with the tiles the world gives it then: nothing else
    of that view depends on the hidden tiles. A choice is a normal play of the opponent's
    with two or more classes of moves; a luzak, and a Widelec tile laid at once after it was
    drawn, are none. None before the opponent has chosen."""

    native_only = True

    def __init__(self, samples: int = 256, floor: float = 0.1) -> None:
        self.samples, self.floor = checked_sampling(samples, floor, 8192)

    @property
    def greedy_moves(self) -> float:
        """The greedy's move at a choice, but for :attr:`floor`."""
        return 1.0 - self.floor

    def weighed(self, view: View, rng: random.Random,
                deadline: float | None = None) -> Weighed | None:
        """:attr:`samples` worlds from the exact posterior, each with the log-likelihood of
        the opponent's choices in it; None before the opponent's first choice. Past
        ``deadline`` it stops, and declines if it has weighed fewer than a quarter of its
        samples."""
        if view.opponent_tiles == 0:
            return None
        steps = [_GreedyStep(then, view) for then in choice_views(view).values()]
        if not steps:
            return None
        worlds = HiddenWorlds(view)
        hands: list[tuple[Tile, ...]] = []
        logs: list[float] = []
        for n in range(self.samples):
            if n and deadline is not None and time.perf_counter() >= deadline:
                break
            theirs, drawn = worlds.sample_hand(rng)
            now = native.mask_of(theirs)
            hands.append(tuple(sorted(theirs, key=_index)))
            logs.append(sum(step.log(now, drawn, self.floor) for step in steps))
        if deadline is not None and len(hands) < max(1, self.samples // 4):
            return None
        return Weighed(tuple(hands), tuple(logs))

    def log_likelihood(self, view: View, theirs: Iterable[Tile],
                       drawn: Mapping[int, Tile]) -> float:
        """The log-likelihood of the opponent's choices in the world where it holds
        ``theirs`` now and drew ``drawn`` (a tile per hidden draw, by history index)."""
        now = native.mask_of(theirs)
        return sum(_GreedyStep(then, view).log(now, drawn, self.floor)
                   for then in choice_views(view).values())


def choice_views(view: View) -> dict[int, View]:
    """The opponent's view before each of its normal plays that may be a choice (not a
    luzak, not a Widelec tile laid at once after its draw), by history index, built from
    the table and the history alone: its own tiles and legal moves left empty, for the
    caller to fill in from a world (nothing else of the view depends on the hidden tiles).
    Its ``totals`` are the match's before this hand plus the hand's points then."""
    opponent = 1 - view.seat
    history = view.history
    spec = view.spec
    score = spec.hand_class.score_placement
    table = view.new_table_empty()
    draws = sum(1 for _, mv in history if isinstance(mv, Draw))
    mine = len(view.hand)  # this seat's tiles before each move, counted back from now
    for seat, mv in history:
        if seat == view.seat:
            mine += isinstance(mv, Play) - isinstance(mv, Draw)
    points = [0, 0]
    out: dict[int, View] = {}
    for i, (seat, move) in enumerate(history):
        if seat == opponent and isinstance(move, Play) and not move.luzak and not (
                i and history[i - 1][0] == opponent and isinstance(history[i - 1][1], Draw)):
            banked = (view.totals[0] - view.hand_points[0], view.totals[1] - view.hand_points[1])
            out[i] = View(
                game=view.game, options=view.options, seat=opponent,
                hand_number=view.hand_number, opener=view.opener, to_move=opponent, hand=(),
                opponent_tiles=mine,
                boneyard=None if view.boneyard is None else view.boneyard + draws,
                table=tuple(table.placements), history=history[:i],
                hand_points=(points[0], points[1]),
                totals=(banked[0] + points[0], banked[1] + points[1]),
                count=table.count if spec.has_count else None, legal_moves=(), result=None,
                previous=view.previous, free_ports=free_ports_of(table))
        if isinstance(move, Draw):
            draws -= 1
            mine += seat == view.seat
        elif isinstance(move, Play):
            mine -= seat == view.seat
            gain = score(table, move, seat, view.options)
            points[0] += gain[0]
            points[1] += gain[1]
    return out


class ChoiceStep:
    """One choice of the opponent's, for the models that weigh worlds one choice at a time:
    its view then (:func:`choice_views`), the move it made, the table then, the tiles it
    certainly held then (laid then or later, not drawn after it) and its hidden draws after
    it, from which a world's tiles then follow (:meth:`held`)."""

    def __init__(self, then: View, view: View) -> None:
        self.at = at = len(then.history)
        history = view.history
        opponent = then.seat
        self.then = then
        self.move = history[at][1]
        self.table = then.new_table()
        # a tile laid at once after the opponent drew it was drawn, not held then
        after_draw = {j for j in range(at + 1, len(history))
                      if history[j][0] == opponent and isinstance(history[j][1], Play)
                      and history[j - 1][0] == opponent and isinstance(history[j - 1][1], Draw)}
        #: the tiles it laid then or later, not drawn after it: held then (a mask)
        self.later = native.mask_of(mv.tile for j, (s, mv) in enumerate(history) if j >= at
                                    and s == opponent and isinstance(mv, Play)
                                    and j not in after_draw)
        self.draws = tuple(j for j in range(at + 1, len(history))
                           if history[j][0] == opponent and isinstance(history[j][1], Draw)
                           and j + 1 not in after_draw)

    def held(self, now: int, drawn: Mapping[int, Tile]) -> int:
        """The opponent's tiles then (a mask, bit ``t.index``), had it held the tiles of
        mask ``now`` and drawn ``drawn`` (a tile per hidden draw, by history index)."""
        held = now | self.later
        for j in self.draws:
            held &= ~(1 << drawn[j].index)
        return held

    def holding(self, held: int) -> tuple[tuple[Tile, ...], list[Play]]:
        """(the tiles of mask ``held`` in tile order, the normal plays it has then: its
        legal moves, since the move made was one)."""
        tiles = tuple(t for t in TILES if held >> t.index & 1)
        return tiles, self.table.normal_plays(tiles)


class _GreedyStep(ChoiceStep):
    """A :class:`ChoiceStep` for :class:`GreedyModel`: every normal play's class of equivalent
    moves then, the tiles the opponent is proven to lack then (by value, whatever it
    holds), and the log-likelihoods already found for a hand held then."""

    def __init__(self, then: View, view: View) -> None:
        super().__init__(then, view)
        quartets = then.spec.scoring == "quartets"
        on_table = {p.tile for p in then.table}
        plays = self.table.normal_plays(tuple(t for t in TILES if t not in on_table))
        self.classes = dict(zip(plays, representatives(self.table, plays, quartets),
                                strict=True))
        ids: dict[Move, int] = {}
        #: by tile index, the classes of its plays then, as bits of the classes' numbers
        self.class_bits = [0] * len(TILES)
        for play, kind in self.classes.items():
            self.class_bits[play.tile.index] |= 1 << ids.setdefault(kind, len(ids))
        values = proven_values(then)
        self.greedy = GreedyHolding(then, (t for t in TILES if t.hi in values
                                           or t.lo in values))
        self.known: dict[int, float] = {}

    def log(self, now: int, drawn: Mapping[int, Tile], floor: float) -> float:
        """The log-probability of the move made, had the opponent held the tiles of mask
        ``now`` and drawn ``drawn``: ``floor / classes``, plus ``1 - floor`` if it is (in
        the class of) the greedy's with the tiles held then."""
        held = self.held(now, drawn)
        found = self.known.get(held)
        if found is not None:
            return found
        bits = 0
        for i, tile_bits in enumerate(self.class_bits):
            if held >> i & 1:
                bits |= tile_bits
        classes = bits.bit_count()
        log = 0.0
        if classes > 1:
            wanted = self.greedy.move(*self.holding(held))
            same = self.classes[wanted] == self.classes[self.move]  # type: ignore[index]
            log = math.log(floor / classes + (1.0 - floor) * same)
        self.known[held] = log
        return log


class MixedModel:
    """Which kind of player is the opponent? Models of different kinds (``models``: each
    with its prior share), each a :class:`WeighingModel`, weighed against each other by how
    well each explains the opponent's choices so far (Bayesian model averaging): each
    model's posterior share is its prior times its evidence (:meth:`Weighed.evidence`), and
    the beliefs are each model's hands weighted by their share of its likelihood, times the
    model's posterior share. A greedy opponent's choices soon make the greedy model all
    but certain, a searching one's the searching model. Where any model declines, so does
    the mixture (the rules' posterior then)."""

    native_only = True

    def __init__(self, models: Sequence[tuple[float, WeighingModel]]) -> None:
        if not models or any(not prior > 0.0 for prior, _ in models):
            raise ValueError("a mixture needs at least one model, each with a prior share "
                             "above 0")
        self.models = tuple(models)

    def beliefs(self, view: View, rng: random.Random,
                deadline: float | None = None) -> Beliefs | None:
        found = self.weighed(view, rng, deadline)
        return None if found is None else self.beliefs_of(*found)

    def greedy_chance(self, shares: Sequence[float]) -> float:
        """The chance that the opponent makes the greedy's move at a choice, given the
        models' posterior ``shares``: each model's share times the chance its kind of player
        makes that move (:attr:`WeighingModel.greedy_moves`)."""
        return sum(share * model.greedy_moves
                   for share, (_, model) in zip(shares, self.models, strict=True))

    @staticmethod
    def beliefs_of(shares: Sequence[float], parts: Sequence[Weighed]) -> Beliefs:
        """The beliefs of :meth:`weighed`'s models' ``shares`` and weighed worlds: each hand
        its share of its model's likelihood, times the model's share."""
        weights: dict[tuple[Tile, ...], float] = {}
        for share, part in zip(shares, parts, strict=True):
            for hand, w in part.shares().items():
                weights[hand] = weights.get(hand, 0.0) + share * w
        return Beliefs(tuple(weights), tuple(weights.values()))

    def weighed(self, view: View, rng: random.Random, deadline: float | None = None
                ) -> tuple[tuple[float, ...], tuple[Weighed, ...]] | None:
        """(each model's posterior share, its weighed worlds), or None where one declines."""
        parts: list[Weighed] = []
        for _, model in self.models:
            found = model.weighed(view, rng, deadline)
            if found is None:
                return None
            parts.append(found)
        evidence = [math.log(prior) + part.evidence()
                    for (prior, _), part in zip(self.models, parts, strict=True)]
        top = max(evidence)
        odds = [math.exp(e - top) for e in evidence]
        return tuple(x / sum(odds) for x in odds), tuple(parts)


__all__ = ["ChoiceModel", "ChoiceStep", "GreedyModel", "MixedModel", "OpponentModel",
           "SearchingModel", "Weighed", "Weighing", "WeighingModel", "checked_sampling",
           "choice_views"]
