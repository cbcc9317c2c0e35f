"""Search players under hidden information: sample the worlds a view allows, play each
candidate move out in every world, keep the move with the best mean value.

* :class:`PimcPlayer` — plain perfect-information Monte Carlo: uniform worlds (40 in the
  Luzak games, 64 with a boneyard), playouts to the end of the hand by the expected-answer
  greedy on both seats (:func:`expected_greedy_playout`), point margin as the value. The
  baseline. :class:`ClassicPimcPlayer` (``pimc-classic``) is its earlier form: 40 worlds,
  playouts by the best immediate margin (:func:`greedy_playout`).
* :class:`ExpertPlayer` — information-set Monte Carlo tree search (ISMCTS): one search
  tree over the seat's information set, each iteration in a fresh world consistent with
  what the opponent's moves proved (:mod:`dominolab.core.worlds`), greedy playouts, and the
  *match* as the value: near the target it maximises its chance to win the match (RULES.md
  §2 even number of hands, §4 win at once), not its points. PIMC's one-ply look was found
  to be the weakness (with greedy playouts even the true world barely beats greedy), so the
  expert searches deeper instead.
* :class:`OmniscientPlayer` — the expert's search in the one true world (sees every tile).

Every player takes its randomness from the ``random.Random`` it is built with; with a
``worlds`` budget (and no ``seconds``) its choices repeat exactly.

Where the C extension is in use (:func:`dominolab.native.enabled`) the searches run natively
(:mod:`dominolab.native.search`): the same algorithms, the same values and orders, with the
randomness of each search from a native generator seeded by the player's ``random.Random``.
The Python searches here stay the readable reference and the fallback.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Final

from dominolab import native
from dominolab.core import Hand, Move, View
from dominolab.core.equivalence import representatives
from dominolab.core.worlds import Beliefs, HiddenWorlds, Limit, hand_from_view, opponent_limits
from dominolab.native import search as native_search
from dominolab.players.base import Budget, legal_moves_of
from dominolab.players.beliefs import GreedyModel, MixedModel, OpponentModel, SearchingModel
from dominolab.players.greedy import greedy_expected_move

#: spread (logistic scale) of one hand's point margin, per game, from greedy self-play
_HAND_SCALE = {"luzak": 6.6, "luzak-line": 5.9, "widelec": 8.2}
#: points a player scores in a hand, on average (greedy self-play)
_HAND_POINTS = {"luzak": 12.5, "luzak-line": 10.5, "widelec": 11.1}
#: what opening a hand is worth, as the opener's mean margin in it, per game (greedy
#: self-play, docs/strength/log.md "The next hand's opener")
_OPENER_EDGE = {"luzak": 5.6, "luzak-line": 5.5, "widelec": 0.0}


@dataclass(frozen=True, slots=True)
class MoveValue:
    """How one legal move looks to a search player.

    ``value``: mean value over the worlds searched — the expert's blend of the chance to win
    the match and the hand's margin (:class:`MatchValue`), or the point margin (pimc).
    ``margin``: mean point margin, mine minus the opponent's, from this move to the end of
    the hand (its own points included). ``win_chance``: the estimated chance to win the
    match (None for pimc).
    """

    move: Move
    value: float
    margin: float
    win_chance: float | None
    worlds: int


class MatchValue:
    """The value of a hand's outcome for the seat to move: its chance to win the match,
    blended, when ``margin_weight`` is above 0, with the hand's point margin (mine minus the
    opponent's, as a logistic of the game's spread of a hand's margin):
    ``(1 - w) * chance + w * logistic(margin / spread)``.

    The chance reported (:meth:`chance`, a move's ``win_chance``: what hints and the
    after-hand review show) counts the edge of the next hand's opener (:attr:`lead`); the
    chance in the value the search backs up does not: counting it there made the expert no
    stronger (docs/strength/log.md, "The next hand's opener in the match's chance")."""

    def __init__(self, view: View, margin_weight: float = 0.0) -> None:
        if not 0.0 <= margin_weight <= 1.0:
            raise ValueError(f"the margin weight must be from 0 to 1, not {margin_weight!r}")
        self.margin_weight = margin_weight
        self.seat = view.seat
        self.target = view.options.target
        me, opp = view.seat, 1 - view.seat
        self.banked = (view.totals[me] - view.hand_points[me],
                       view.totals[opp] - view.hand_points[opp])
        self.scale = _HAND_SCALE[view.game]
        self.per_hand = _HAND_POINTS[view.game]
        self.at_once = bool(getattr(view.options, "win_at_once", False))
        even = bool(getattr(view.options, "even_hands", False))
        #: one more hand follows even when the target is reached
        self.one_more = even and view.hand_number % 2 == 1
        #: the points the next hand's opening is worth to this seat (less, when the
        #: opponent opens it): after an odd-numbered hand the next opener gains its edge;
        #: after an even-numbered one the hands still to play come in pairs, each seat
        #: opening one of a pair, and the edges cancel (openers alternate, RULES.md 1)
        edge = _OPENER_EDGE[view.game] if view.hand_number % 2 == 1 else 0.0
        self.lead = edge if view.opener != me else -edge
        # points each seat (by seat number) still needs in this hand to reach the target
        need = [0, 0]
        need[me] = self.target - self.banked[0]
        need[opp] = self.target - self.banked[1]
        self.need = (need[0], need[1])

    def __call__(self, points: Sequence[int], reached: bool) -> float:
        """The value the search backs up for a hand that ends with ``points``: the chance to
        win the match, the next hand's opening not counted, blended with the margin."""
        return self._blend(points, self._chance(points, reached, 0.0))

    def chance(self, points: Sequence[int], reached: bool) -> float:
        """The chance to win the match after a hand that ends with ``points`` (by seat;
        ``reached``: it stopped where a seat reached the target, win at once), the next
        hand's opening counted (:attr:`lead`)."""
        return self._chance(points, reached, self.lead)

    def scored(self, points: Sequence[int], reached: bool) -> tuple[float, float]:
        """(:meth:`chance`, the value backed up) at once, for a search's every playout: the
        chance is worked out once where no next opening counts (as the native search
        does)."""
        chance = self._chance(points, reached, 0.0)
        shown = chance if self.lead == 0.0 else self._chance(points, reached, self.lead)
        return shown, self._blend(points, chance)

    def _blend(self, points: Sequence[int], chance: float) -> float:
        w = self.margin_weight
        if w <= 0.0:
            return chance
        me = self.seat
        return (1.0 - w) * chance + w * _logistic((points[me] - points[1 - me]) / self.scale)

    def _chance(self, points: Sequence[int], reached: bool, lead: float) -> float:
        me, opp = self.seat, 1 - self.seat
        mine = self.banked[0] + points[me]
        theirs = self.banked[1] + points[opp]
        if reached or (self.at_once and (mine >= self.target or theirs >= self.target)):
            return 1.0 if mine >= self.target else 0.0
        diff = mine - theirs
        top = max(mine, theirs)
        if top >= self.target:
            if not self.one_more:
                return 1.0 if diff > 0 else 0.0 if diff < 0 else 0.5
            return _logistic((diff + lead) / self.scale)
        hands_left = 1.0 + (self.target - top) / self.per_hand
        return _logistic((diff + lead) / (self.scale * math.sqrt(hands_left)))


def _logistic(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


def greedy_playout(hand: Hand[Any], need: tuple[int, int] | None = None) -> bool:
    """Play ``hand`` to its end, each side taking its move with the best immediate point
    margin (first in order on ties). With ``need``, stop as soon as a seat's points in the
    hand reach its need (Widelec's win at once); return True if that happened."""
    while hand.result is None:
        legal = hand.legal_moves()
        if len(legal) == 1:
            move = legal[0]
        else:
            seat = hand.to_move
            move = legal[0]
            best = -10_000
            for candidate in legal:
                p = hand.points_of(candidate)
                v = p[seat] - p[1 - seat]
                if v > best:
                    best = v
                    move = candidate
        hand.apply_unchecked(move)
        if need is not None and (hand.points[0] >= need[0] or hand.points[1] >= need[1]):
            return True
    return False


def expected_greedy_playout(hand: Hand[Any], need: tuple[int, int] | None = None) -> bool:
    """Play ``hand`` to its end, each seat moving as the expected-answer greedy
    (:func:`dominolab.players.greedy.greedy_expected_move`) judging from its own tiles and
    the table only, not from the world's hidden tiles. ``need`` as in
    :func:`greedy_playout`; True if it stopped there."""
    while hand.result is None:
        hand.apply_unchecked(greedy_expected_move(hand))
        if need is not None and (hand.points[0] >= need[0] or hand.points[1] >= need[1]):
            return True
    return False


class WorldSampler:
    """Deals the tiles a view cannot see — to the opponent and the rest (the boneyard in
    random order) — exactly from the posterior over worlds consistent with the view
    (:class:`dominolab.core.worlds.HiddenWorlds`: never a world the opponent's moves have
    ruled out). ``limits`` asks for that inference: pass
    :func:`~dominolab.core.worlds.opponent_limits` (any non-empty limits) to use what the
    opponent's moves proved, none for uniform worlds (the PIMC baseline). ``beliefs``: draw
    the opponent's hand from these weighted hands instead (a model of the opponent,
    :mod:`dominolab.players.beliefs`). The view's hand state is rebuilt once; each sample
    only re-deals."""

    def __init__(self, view: View, rng: random.Random, limits: Sequence[Limit] = (),
                 beliefs: Beliefs | None = None) -> None:
        self.rng = rng
        self.beliefs = beliefs
        self.limits = tuple(limits)
        self.worlds = HiddenWorlds(view, infer=bool(self.limits))
        self.unseen = list(view.unseen())
        self.k = view.opponent_tiles
        self.opponent = 1 - view.seat
        self.base = hand_from_view(view, self.unseen[:self.k], self.unseen[self.k:])
        #: the rest is a boneyard in draw order, dealt afresh with each sample
        self.boneyard = view.spec.has_boneyard

    def deal(self) -> tuple[list[Any], list[Any]]:
        """(the opponent's tiles, the rest in order)."""
        if self.beliefs is not None:
            return self.beliefs.sample(self.rng, self.unseen)
        return self.worlds.sample(self.rng)

    def sample(self) -> Hand[Any]:
        chosen, left = self.deal()
        world = self.base.copy()
        world.hands[self.opponent] = sorted(chosen, key=_INDEX)
        if self.boneyard:
            world.boneyard = list(reversed(left))  # type: ignore[attr-defined]
        return world


_INDEX = attrgetter("index")


def _known(hand: Hand[Any] | None) -> Hand[Any]:
    assert hand is not None
    return hand


def sample_world(view: View, rng: random.Random,
                 limits: Sequence[Limit] = ()) -> Hand[Any]:
    """One hand state consistent with ``view`` (see :class:`WorldSampler`)."""
    return WorldSampler(view, rng, limits).sample()


#: the longest a search with a budget in worlds alone takes on the pure-Python path
PURE_PATH_SECONDS: Final = 3.0


class _MonteCarlo:
    """The shared search: every legal move played out in the same sampled worlds."""

    name = "search"
    default = Budget(worlds=40, seconds=1.0)
    inference = False
    match_aware = False
    #: the native search of the same kind (:mod:`dominolab.native.search`)
    kind: native_search.Kind = "pimc"
    exploration = 0.0
    #: share of the hand's point margin in the value (0: the match value alone)
    margin_weight = 0.0
    #: the playout policy of the Python path (the native one goes with ``kind``)
    playout = staticmethod(greedy_playout)
    #: a model of the opponent's choices that weighs the worlds (None: the rules alone)
    opponent_model: OpponentModel | None = None
    #: the tree search only: where the model reads the opponent as a greedy player
    #: (:meth:`MixedModel.greedy_chance`), the opponent makes the greedy's move at its
    #: choices in the tree that often, instead of the move UCB picks for it
    exploits = False
    #: the tree searches: independent searches of the budget's share each, their root
    #: visits summed (root-parallel MCTS; docs/strength/log.md, "Root-parallel searches")
    roots = 1
    #: with :attr:`exploits`, the least of that chance, whatever the reading says (before
    #: the opponent's first choice too, where the reading declines): chosen by
    #: duplicate-match experiments (docs/strength/log.md, "The opponent's own tiles in the tree")
    follows_at_least = 0.0

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        legal = legal_moves_of(view)
        if len(legal) == 1:
            return legal[0]
        return self.analyse(view, budget)[0].move

    def analyse(self, view: View, budget: Budget | None = None,
                only: Sequence[Move] | None = None) -> list[MoveValue]:
        """Every legal move with its value, best first. ``only`` (the expert's search):
        search just these legal moves, all the budget on them; the others get no worlds."""
        if only is None:
            return self._search(view, budget, None)
        if not isinstance(self, _Ismcts):
            raise TypeError(f"the {self.name} search cannot be limited to some moves")
        return self._search(view, budget, None, only=only)

    def _plan(self, budget: Budget | None) -> tuple[int, float | None]:
        """(most worlds or iterations, deadline or None) for one search under ``budget``:
        a time budget alone searches until the time is up. On the pure-Python path (no
        compiler: the search is some 270 times slower) a budget in worlds alone also stops
        at :data:`PURE_PATH_SECONDS`, so the levels keep their time there if not their
        strength."""
        budget = budget or self.default
        count = budget.worlds if budget.worlds is not None else (
            self.default.worlds if budget.seconds is None else 10_000_000)
        assert count is not None
        seconds = budget.seconds
        if seconds is None and not native.enabled():
            seconds = PURE_PATH_SECONDS
        deadline = None if seconds is None else time.perf_counter() + seconds
        return count, deadline

    def _search(self, view: View, budget: Budget | None,
                true_hand: Hand[Any] | None) -> list[MoveValue]:
        if native.enabled():
            return self._search_native(view, budget, true_hand)
        legal = list(legal_moves_of(view))
        worlds, deadline = self._plan(budget)
        if true_hand is not None:
            worlds = 1
        me, opp = view.seat, 1 - view.seat
        value = MatchValue(view, self.margin_weight)
        need = value.need if value.at_once and self.match_aware else None
        limits = opponent_limits(view) if self.inference and true_hand is None else ()
        sums = [0.0] * len(legal)
        margins = [0.0] * len(legal)
        chances = [0.0] * len(legal)
        # each class of equivalent moves is played out once, by its representative
        rep = _class_index(view, legal)
        searched = [i for i in range(len(legal)) if rep[i] == i]
        sampler = (WorldSampler(view, self.rng, limits, self._reading(view, deadline)[0])
                   if true_hand is None else None)
        done = 0
        while done < worlds:
            world = sampler.sample() if sampler is not None else _known(true_hand)
            before = world.points[me] - world.points[opp]
            for i in searched:
                move = legal[i]
                hand = world.copy()
                hand.apply_unchecked(move)
                reached = self.playout(hand, need)
                margin = hand.points[me] - hand.points[opp]
                margins[i] += margin - before
                if self.match_aware:
                    chance, worth = value.scored(hand.points, reached)
                    chances[i] += chance
                    sums[i] += worth
                else:
                    sums[i] += margin - before
            done += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        results = [
            MoveValue(move, sums[rep[i]] / done, margins[rep[i]] / done,
                      chances[rep[i]] / done if self.match_aware else None, done)
            for i, move in enumerate(legal)
        ]
        order = sorted(range(len(legal)), key=lambda i: (-results[i].value,
                                                         -results[i].margin, i))
        return [results[i] for i in order]

    def _search_native(self, view: View, budget: Budget | None,
                       true_hand: Hand[Any] | None, *,
                       only: Sequence[Move] | None = None,
                       greedy: float | None = None) -> list[MoveValue]:
        """:meth:`_search` on the native path: the same search and the same results."""
        legal_moves_of(view)  # ValueError if the seat is not to move
        count, deadline = self._plan(budget)
        value = MatchValue(view, self.margin_weight)
        ismcts = self.kind in ("ismcts", "ismcts-expected")
        if ismcts:
            matched = True
            limits = opponent_limits(view) if true_hand is None else ()
        else:
            matched = self.match_aware
            limits = opponent_limits(view) if self.inference and true_hand is None else ()
            if true_hand is not None:
                count = 1
        beliefs, read = self._reading(view, deadline) if true_hand is None else (None, 0.0)
        roots = self.roots if ismcts else 1
        summed: dict[Move, list[float]] = {}
        for root in range(roots):  # root-parallel: independent trees, their visits summed
            now = time.perf_counter()
            seconds = None if deadline is None else (deadline - now) / (roots - root)
            for t in native_search.search(
                    view, kind=self.kind, value=value if matched else None,
                    need=value.need if value.at_once and matched else None,
                    iterations=count // roots + (root < count % roots), seconds=seconds,
                    exploration=self.exploration, seed=self.rng.getrandbits(64),
                    limits=limits, true_hand=true_hand, only=only, beliefs=beliefs,
                    greedy=read if greedy is None else greedy):
                acc = summed.setdefault(t.move, [0, 0.0, 0.0, 0.0])
                acc[0] += t.count
                acc[1] += t.value
                acc[2] += t.margin
                acc[3] += t.chance
        sums = [native_search.Totals(move, int(c), v, m, ch)
                for move, (c, v, m, ch) in summed.items()]
        results = []
        for t in sums:
            mean = t.value / t.count if t.count else 0.0
            margin = t.margin / t.count if t.count else 0.0
            chance = t.chance / t.count if t.count else 0.0
            results.append(MoveValue(t.move, mean, margin, chance if matched else None,
                                     t.count))
        if ismcts:
            order = sorted(range(len(results)), key=lambda i: (-results[i].worlds,
                                                               -results[i].value, i))
        else:
            order = sorted(range(len(results)), key=lambda i: (-results[i].value,
                                                               -results[i].margin, i))
        return [results[i] for i in order]


    def _reading(self, view: View, deadline: float | None) -> tuple[Beliefs | None, float]:
        """(the worlds weighted by :attr:`opponent_model`, or None without one or where it
        declines: the exact posterior then; the chance that the opponent makes the greedy's
        move at its choices in the tree, 0 unless the player :attr:`exploits` a model that
        reads greedy players, and then at least :attr:`follows_at_least`). Under a
        ``deadline`` the model has half the time left, the search the rest."""
        model = self.opponent_model
        if model is None:
            return None, 0.0
        if deadline is not None:
            now = time.perf_counter()
            deadline = now + max(deadline - now, 0.0) / 2
        if self.exploits and isinstance(model, MixedModel):
            found = model.weighed(view, self.rng, deadline)
            least = self.follows_at_least
            if found is None:
                return None, least
            return model.beliefs_of(*found), max(least, model.greedy_chance(found[0]))
        return model.beliefs(view, self.rng, deadline), 0.0


def _class_index(view: View, legal: Sequence[Move]) -> list[int]:
    """For each legal move, the index in ``legal`` of its class's representative
    (:func:`dominolab.core.equivalence.representatives`): equivalent moves are one move
    to the search, and share its values."""
    reps = representatives(view.new_table(), legal, view.spec.scoring == "quartets")
    where = {id(m): i for i, m in enumerate(legal)}
    return [where.get(id(r), i) for i, r in enumerate(reps)]


class _Node:
    """A node of the information-set search tree: statistics of the move that led here."""

    __slots__ = ("children", "mover", "move", "reward", "seen", "visits")

    def __init__(self, move: Move | None, mover: int) -> None:
        self.move = move
        self.mover = mover  # the seat that made ``move``
        self.children: dict[int, _Node] = {}  # by id() of the (interned) move
        self.visits = 0
        self.seen = 1  # times this move was available when its parent was visited
        self.reward = 0.0  # summed reward for ``mover``


class _Ismcts(_MonteCarlo):
    """Single-observer information-set MCTS (Cowling, Powley and Whitehouse, 2012): each
    iteration samples a world allowed by the view, walks the one shared tree by UCB over the
    moves legal in that world, adds a node, finishes the hand with a greedy playout and
    backs up the match value. An opponent read as a greedy player (:attr:`exploits`) makes,
    at its nodes with a choice and with the chance read, the expected-answer greedy's move
    (the playouts' policy) instead of the one UCB picks for it."""

    kind: native_search.Kind = "ismcts-expected"
    playout = staticmethod(expected_greedy_playout)
    #: UCB's exploration constant, and the hand margin's share of the value: chosen by
    #: duplicate-match experiments (docs/strength/log.md)
    exploration = 0.4
    margin_weight = 0.3

    def _search(self, view: View, budget: Budget | None, true_hand: Hand[Any] | None, *,
                only: Sequence[Move] | None = None,
                greedy: float | None = None) -> list[MoveValue]:
        """The search; ``greedy``: the chance that the opponent makes the greedy's move at
        its choices in the tree (None: as :meth:`_reading` finds)."""
        if native.enabled():
            return self._search_native(view, budget, true_hand, only=only, greedy=greedy)
        legal = list(legal_moves_of(view))
        iterations, deadline = self._plan(budget)
        quartets = view.spec.scoring == "quartets"
        allowed: set[int] | None = None
        if only is not None:  # the root's classes to search (by the representative's id)
            if not only or any(m not in legal for m in only):
                raise ValueError(f"only: {list(map(str, only))} must be legal moves here")
            reps = representatives(view.new_table(), legal, quartets)
            allowed = {id(reps[legal.index(m)]) for m in only}
        me = view.seat
        value = MatchValue(view, self.margin_weight)
        need = value.need if value.at_once else None
        limits = opponent_limits(view) if true_hand is None else ()
        root = _Node(None, 1 - me)
        margins: dict[int, float] = {}
        chances: dict[int, float] = {}
        beliefs, read = self._reading(view, deadline) if true_hand is None else (None, 0.0)
        if greedy is None:
            greedy = read
        sampler = WorldSampler(view, self.rng, limits, beliefs) if true_hand is None else None
        c = self.exploration
        log = math.log
        sqrt = math.sqrt
        randrange = self.rng.randrange
        done = 0
        while done < iterations:
            state = sampler.sample() if sampler is not None else _known(true_hand).copy()
            node = root
            path = [root]
            first = 0
            reached = False
            while state.result is None:
                legal_now = moves = state.legal_moves()
                reps = moves
                if len(moves) > 1:  # a class of equivalent moves is one move of the tree
                    reps = representatives(state.table, moves, quartets)
                    moves = list(dict.fromkeys(reps))
                if allowed is not None and node is root:
                    moves = [m for m in moves if id(m) in allowed]
                children = node.children
                fresh = [m for m in moves if id(m) not in children]
                pick = None  # the opponent read as a greedy player makes the greedy's move
                if greedy and state.to_move != me and len(moves) > 1 \
                        and self.rng.random() < greedy:
                    pick = reps[legal_now.index(greedy_expected_move(state))]
                if pick is not None and id(pick) in children:
                    move = pick
                    child = children[id(pick)]
                    fresh = []
                    for m in moves:
                        ch = children.get(id(m))
                        if ch is not None:
                            ch.seen += 1
                elif pick is not None or fresh:
                    if pick is None:
                        move = fresh[0] if len(fresh) == 1 else fresh[randrange(len(fresh))]
                    else:
                        move, fresh = pick, [pick]
                    child = _Node(move, state.to_move)
                    children[id(move)] = child
                    for m in moves:
                        ch = children.get(id(m))
                        if ch is not None and ch is not child:
                            ch.seen += 1
                else:
                    best = -1.0
                    child = root
                    for m in moves:
                        ch = children[id(m)]
                        score = ch.reward / ch.visits + c * sqrt(log(ch.seen) / ch.visits)
                        if score > best:
                            best = score
                            child = ch
                        ch.seen += 1
                    move = m if child.move is None else child.move
                state.apply_unchecked(move)
                if not first:
                    first = id(move)
                path.append(child)
                node = child
                if need is not None and (state.points[0] >= need[0]
                                         or state.points[1] >= need[1]):
                    reached = True
                    break
                if fresh:
                    break
            if not reached and state.result is None:
                reached = self.playout(state, need)
            chance, reward = value.scored(state.points, reached)
            for n in path[1:]:
                n.visits += 1
                n.reward += reward if n.mover == me else 1.0 - reward
            if first:
                margins[first] = margins.get(first, 0.0) + (
                    state.points[me] - state.points[1 - me])
                chances[first] = chances.get(first, 0.0) + chance
            done += 1
            if deadline is not None and time.perf_counter() >= deadline:
                break
        before = view.hand_points[me] - view.hand_points[1 - me]
        results = []
        classes = _class_index(view, legal)
        for i, move in enumerate(legal):
            key = id(legal[classes[i]])  # a class's members share its representative's node
            ch = root.children.get(key)
            visits = ch.visits if ch is not None else 0
            mean = ch.reward / visits if ch is not None and visits else 0.0
            margin = margins.get(key, 0.0) / visits - before if visits else 0.0
            win = chances.get(key, 0.0) / visits if visits else 0.0
            results.append(MoveValue(move, mean, margin, win, visits))
        order = sorted(range(len(legal)),
                       key=lambda i: (-results[i].worlds, -results[i].value, i))
        return [results[i] for i in order]


class PimcPlayer(_MonteCarlo):
    """Plain perfect-information Monte Carlo (``pimc``): N uniform worlds (by default 40 in
    the Luzak games, 64 in games with a boneyard), every legal move played out in each world
    with both seats finishing the hand as the expected-answer greedy
    (:class:`~dominolab.players.greedy.GreedyPlayer`, each judging from its own tiles and
    the table: :func:`expected_greedy_playout`), the best mean point margin."""

    name = "pimc"
    default = Budget(worlds=40, seconds=3.0)
    kind: native_search.Kind = "pimc-expected"
    playout = staticmethod(expected_greedy_playout)

    @staticmethod
    def worlds_for(view: View) -> int:
        """The deals ``pimc`` plays out a move unless told otherwise: 64 in a game with a
        boneyard, 40 in the Luzak games."""
        return 64 if view.spec.has_boneyard else 40

    def _search(self, view: View, budget: Budget | None,
                true_hand: Hand[Any] | None) -> list[MoveValue]:
        if budget is None:
            budget = Budget(worlds=self.worlds_for(view), seconds=3.0)
        return super()._search(view, budget, true_hand)


class ClassicPimcPlayer(_MonteCarlo):
    """The earlier PIMC (``pimc-classic``): 40 uniform worlds, playouts where each side
    takes the move with the best immediate margin (:func:`greedy_playout`), the best mean
    point margin."""

    name = "pimc-classic"
    default = Budget(worlds=40, seconds=3.0)


def reading_model(greedy: float = 0.5, *, samples: int = 64, work: int = 400,
                  deals: int = 8, greedy_samples: int = 256,
                  greedy_floor: float = 0.1) -> MixedModel:
    """The expert's model of the opponent, chosen by duplicate-match experiments
    (docs/strength/log.md, "Paired on the same deals" and "Which kind of player"): is the
    opponent a searching player or a greedy one, even odds at first (``greedy``: the greedy
    kind's prior, for experiments), weighed by how well each explains its choices so far
    (:class:`~dominolab.players.beliefs.MixedModel`).
    Searching: ``samples`` worlds (64), each weighed by how likely a searching opponent's
    choices were in it (``deals`` deals a small PIMC: 8; temperature 3 points, floor 0.1),
    at most ``work`` of those choices valued a move (400; the other sizes were tried: "A
    bigger reading"). Greedy: ``greedy_samples`` worlds (256), each weighed by whether the
    expected-answer greedy would have made each choice in it (floor ``greedy_floor``, 0.1;
    more worlds and a lower floor were tried: "More worlds for the greedy kind"). Both
    start afresh at every move, so the beliefs are a function of the view (the web app
    makes its computer anew for each move)."""
    searching = SearchingModel(samples, max(128, samples), deals, tau=3.0, work=work,
                               carry=False)
    return MixedModel([(greedy, GreedyModel(greedy_samples, greedy_floor)),
                       (1.0 - greedy, searching)])


class ExpertPlayer(_Ismcts):
    """The strongest honest player: information-set MCTS over worlds consistent with
    everything the opponent's moves proved, each weighed by how likely the opponent's
    choices were in it, read as a greedy or a searching player's (:func:`reading_model`),
    valued by the chance to win the match; as far as the opponent is read as a greedy
    player, its moves in the tree are the greedy's (:attr:`exploits`: a greedy opponent's
    mistakes are there to be taken, not feared as a searching one's replies), and at least
    half of them whatever the reading says (:attr:`follows_at_least`): a move made with
    the tiles the opponent holds in that iteration's world, where UCB's is the same for
    every world. Budget: ``worlds`` is the number of search iterations (one sampled world
    each). ``reading=False``: the rules' exact posterior alone and UCB's moves for the
    opponent, as the expert was before the model (``expert-plain``). On the pure-Python path
    the expert neither reads nor follows (the model's small searches would take many seconds
    a move there)."""

    name = "expert"
    default = Budget(worlds=40_000, seconds=3.0)
    inference = True
    match_aware = True
    exploits = True
    follows_at_least = 0.5

    def __init__(self, rng: random.Random, reading: bool = True) -> None:
        super().__init__(rng)
        self.opponent_model = reading_model() if reading else None

    def _reading(self, view: View, deadline: float | None) -> tuple[Beliefs | None, float]:
        if self.opponent_model is not None and self.opponent_model.native_only \
                and not native.enabled():
            return None, 0.0  # the reading replays worlds and searches: native path only
        return super()._reading(view, deadline)


class OmniscientPlayer(_Ismcts):
    """Sees every tile (a measuring stick only): the expert's search in the true world."""

    name = "omniscient"
    sees_all = True
    default = Budget(worlds=40_000, seconds=3.0)
    match_aware = True

    def choose_seeing(self, hand: Hand[Any], view: View, budget: Budget | None = None) -> Move:
        legal = view.legal_moves
        if len(legal) == 1:
            return legal[0]
        return self.analyse_seeing(hand, view, budget)[0].move

    def analyse_seeing(self, hand: Hand[Any], view: View,
                       budget: Budget | None = None) -> list[MoveValue]:
        """Every legal move of ``view`` with its value in the true world ``hand`` (left
        unchanged), most searched first: a judge of other players' moves
        (docs/strength/regret.py)."""
        return self._search(view, budget, hand.copy())

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        raise TypeError("the omniscient player must be given the hand: use choose_seeing")


__all__ = ["ClassicPimcPlayer", "ExpertPlayer", "MatchValue", "MoveValue", "OmniscientPlayer",
           "PimcPlayer", "expected_greedy_playout", "greedy_playout", "reading_model",
           "sample_world"]
