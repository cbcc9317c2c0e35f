"""The opponent model that weighs worlds by the opponent's choices (players/beliefs.py), and
the weighted hands the searches deal from (core/worlds.py ``Beliefs``).

The model's fast form scores each tile once per choice and sums the worth of the tiles held
in a world; here every world that explains small positions late in a hand is replayed by
the engine from the start (tests/worlds_support.py), and at each of the opponent's choices
the likelihood is computed the readable way: the legal moves of the replayed hand (one per
class of equivalent moves), each scored, as a softmax. Both must give every world the same
weight up to one constant (RULES.md §1 hidden information; §2-§4 the legal moves).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import nullcontext
from typing import Any

import pytest

from dominolab import native
from dominolab.core import (
    TILES,
    Draw,
    Hand,
    LuzakOptions,
    Match,
    Move,
    Options,
    Play,
    Tile,
    View,
    view_of,
)
from dominolab.core.equivalence import representatives
from dominolab.core.worlds import Beliefs, HiddenWorlds
from dominolab.native import search as native_search
from dominolab.players import make_player
from dominolab.players.base import Budget
from dominolab.players.beliefs import ChoiceModel, SearchingModel, choice_views
from dominolab.players.greedy import expected_score
from dominolab.players.search import ExpertPlayer, PimcPlayer, WorldSampler
from worlds_support import late_position, replay, structure_of

CASES: list[tuple[str, Options | None, int, int]] = [
    ("luzak", None, 11, 1),
    ("luzak", LuzakOptions(short_ends_any_time=False), 11, 1),
    ("luzak-line", None, 11, 1),
    ("widelec", None, 14, 2),
]


def _cases() -> list[tuple[str, Hand[Any], View]]:
    out = []
    for game, options, unseen_max, facts in CASES:
        for seed in range(400):
            found = late_position(game, options, seed, unseen_max=unseen_max,
                                  want_draws=facts)
            if found is not None:
                out.append((game, *found))
                break
        else:
            raise AssertionError(f"no test position for {game} {options}")
    return out


_CASES = _cases()


def _reference_log_likelihood(hand: Hand[Any], view: View, theirs: tuple[Tile, ...],
                              drawn: dict[int, Tile], model: ChoiceModel) -> float | None:
    """The log-likelihood of the opponent's choices in one world, by replaying it: at each
    choice (a normal play not forced by a draw just made), a softmax over the replayed
    hand's legal moves (one per class of equivalent moves), scored as the model says."""
    me, opp = view.seat, 1 - view.seat
    history = view.history
    quartets = view.spec.scoring == "quartets"
    total = [0.0]

    def visit(world: Hand[Any], i: int) -> None:
        seat, move = history[i]
        if seat != opp or not isinstance(move, Play) or move.luzak or world.pending is not None:
            return
        moves = world.legal_moves()
        reps = representatives(world.table, moves, quartets)
        legal = [m for m in dict.fromkeys(reps) if isinstance(m, Play)]
        # the tiles the opponent certainly held then, whatever the world: laid from here on
        # before any draw of its whose tile stayed hidden
        certain: set[Tile] = set()
        for j in range(i, len(history)):
            s, m = history[j]
            if s == opp and isinstance(m, Draw):
                if not (j + 1 < len(history) and history[j + 1][0] == opp
                        and isinstance(history[j + 1][1], Play)):
                    break  # hidden: a tile laid after it may be the one drawn
            elif s == opp and isinstance(m, Play) and not (
                    history[j - 1][0] == opp and isinstance(history[j - 1][1], Draw)):
                certain.add(m.tile)  # not the tile of a draw just made
        on_table = {p.tile for p in world.table_placements}
        unseen_then = [t for t in TILES if t not in on_table and t not in certain]

        def score(m: Any) -> float:
            if not model.answer:
                points = world.points_of(m)
                return float(points[opp] - points[me])
            others = [t for t in unseen_then if t is not m.tile]
            ours = len(world.hands[me])
            key, _ = expected_score(m, world.table, opp, len(world.hands[opp]) == 1, others,
                                    ours, view.options, view.game)
            return key / math.comb(len(others), min(ours, len(others)))

        scores = [model.sharpness * score(m) for m in legal]
        chosen = legal.index(reps[moves.index(move)])  # type: ignore[arg-type]
        softmax = math.exp(scores[chosen]) / sum(math.exp(s) for s in scores)
        total[0] += math.log(model.floor / len(legal) + (1 - model.floor) * softmax)

    if replay(hand, view, theirs, drawn, visit=visit) is None:
        return None
    return total[0]


@pytest.mark.parametrize(("answer", "floor"), [(False, 0.0), (True, 0.0), (True, 0.2)],
                         ids=["immediate", "answer", "answer-floor"])
@pytest.mark.parametrize(("game", "hand", "view"), _CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(_CASES)])
def test_choice_weights_equal_a_full_replay(game: str, hand: Hand[Any], view: View,
                                            answer: bool, floor: float) -> None:
    """RULES.md §1-§4: over every world that explains the position, the model's weight and
    the replayed likelihood differ by one constant (none at all with a floor, where the
    chosen move's share is no longer common to every world)."""
    model = ChoiceModel(0.3, answer=answer, floor=floor)
    choices = model.choices(view)
    assert choices, "the position has no choice of the opponent's to read"
    _, hidden, laid, public = structure_of(view)
    differences = []
    for theirs in itertools.combinations(view.unseen(), view.opponent_tiles):
        pool = [*theirs, *(t for t in laid if t not in public)]
        for tiles in itertools.permutations(pool, len(hidden)):
            drawn = dict(zip(hidden, tiles, strict=True))
            reference = _reference_log_likelihood(hand, view, theirs, drawn, model)
            if reference is not None:
                differences.append(reference - model.log_weight(choices, theirs, drawn))
    assert len(differences) > 1
    assert max(differences) - min(differences) < 1e-9, (min(differences), max(differences))
    assert abs(differences[0]) < 1e-9, "the model's weight is the whole likelihood"


def test_the_model_finds_a_greedy_opponents_tiles() -> None:
    """Against a greedy opponent, weighing by its choices puts more weight on the tiles it
    really holds than a model of an opponent choosing at random, at most positions."""
    gains = 0
    positions = 0
    for seed in range(8):
        match = Match("luzak", seed=seed)
        bots = [make_player("greedy", seed), make_player("greedy", seed + 1)]
        while match.to_move is not None and len(match.hand.moves) < 10:
            match.apply(bots[match.to_move].choose(match.view(match.to_move)))
        view = match.view(match.to_move or 0)
        if view.result is not None:
            continue
        theirs = tuple(sorted(match.hand.hands[1 - view.seat], key=lambda t: t.index))
        flat = ChoiceModel(0.0, samples=2000).beliefs(view, random.Random(seed))
        sharp = ChoiceModel(0.5, samples=2000).beliefs(view, random.Random(seed))
        truth = set(theirs)

        positions += 1
        gains += _held_mass(sharp, truth) > _held_mass(flat, truth)
    assert positions >= 5 and gains > positions / 2


def _held_mass(beliefs: Beliefs, truth: set[Tile]) -> float:
    """How many of the true tiles the believed hands hold, on average by weight."""
    total = sum(beliefs.weights)
    return sum(w * len(truth & set(h))
               for h, w in zip(beliefs.hands, beliefs.weights, strict=True)) / total


def test_beliefs_refuse_bad_weights_and_deal_by_weight() -> None:
    a, b, c = TILES[0], TILES[1], TILES[2]
    with pytest.raises(ValueError, match="one weight per hand"):
        Beliefs(((a,),), ())
    with pytest.raises(ValueError, match="non-negative"):
        Beliefs(((a,), (b,)), (1.0, -1.0))
    with pytest.raises(ValueError, match="not all 0"):
        Beliefs(((a,),), (0.0,))
    with pytest.raises(ValueError, match="sharpness"):
        ChoiceModel(-1.0)
    with pytest.raises(ValueError, match="samples"):
        ChoiceModel(0.5, samples=0)
    with pytest.raises(ValueError, match="floor"):
        ChoiceModel(0.5, floor=1.5)
    beliefs = Beliefs(((a,), (b,)), (3.0, 1.0))
    assert beliefs.effective == pytest.approx(16 / 10)
    rng = random.Random(1)
    n = 4000
    seen: Counter[Tile] = Counter()
    for _ in range(n):
        theirs, rest = beliefs.sample(rng, (a, b, c))
        assert sorted([*theirs, *rest], key=lambda t: t.index) == [a, b, c]
        seen.update(theirs)
    assert abs(seen[a] / n - 0.75) < 5 * math.sqrt(0.75 * 0.25 / n)


def _widelec_view() -> View:
    match = Match("widelec", seed=4)
    bots = [make_player("greedy", 1), make_player("greedy", 2)]
    while len(match.hand.moves) < 8:
        match.apply(bots[match.to_move or 0].choose(match.view(match.to_move or 0)))
    while match.view(match.to_move or 0).pending is not None or len(
            match.view(match.to_move or 0).legal_moves) < 2:
        match.apply(bots[match.to_move or 0].choose(match.view(match.to_move or 0)))
    return match.view(match.to_move or 0)


@pytest.mark.skipif(not native.enabled(), reason="the C extension is not in use")
def test_the_native_search_deals_from_the_beliefs() -> None:
    """The weighted hands reach the native search as its world distribution: a search told
    one hand for sure searches that hand's world, whose sums differ from sampled worlds'."""
    view = _widelec_view()
    unseen = view.unseen()
    one = tuple(unseen[:view.opponent_tiles])
    groups, choices = native_search.distribution_of_beliefs(view, Beliefs((one,), (2.0,)))
    assert groups == [1 << t.index for t in unseen]
    assert choices == [(1.0, tuple(int(t in one) for t in unseen))]
    expert = ExpertPlayer(random.Random(5))
    told = native_search.search(view, kind="pimc-expected", value=None, need=None,
                                iterations=50, seconds=None, exploration=0.0, seed=9,
                                beliefs=Beliefs((one,), (1.0,)))
    assert all(t.count == 50 for t in told)
    assert expert.analyse(view)  # in Widelec the expert's model declines: the exact posterior


@pytest.mark.parametrize("pure", [False, True], ids=["native", "python"])
def test_an_expert_with_a_opponent_model_plays_widelec_and_luzak(pure: bool) -> None:
    """On both paths the expert weighing its worlds by the choice model plays legal moves,
    repeatably, also after hidden draws."""
    def modelled() -> ExpertPlayer:
        player = ExpertPlayer(random.Random(3))
        player.opponent_model = ChoiceModel(0.4, samples=200)
        return player

    for view in (_widelec_view(), _luzak_view()):
        with native.pure() if pure else nullcontext():
            a = modelled().choose(view, Budget(worlds=200))
            b = modelled().choose(view, Budget(worlds=200))
        assert a == b and a in view.legal_moves


def test_the_python_sampler_deals_from_the_beliefs() -> None:
    view = _luzak_view()
    unseen = view.unseen()
    one = tuple(unseen[-view.opponent_tiles:])
    sampler = WorldSampler(view, random.Random(2), beliefs=Beliefs((one,), (1.0,)))
    for _ in range(20):
        world = sampler.sample()
        assert set(world.hands[1 - view.seat]) == set(one)


def _luzak_view() -> View:
    match = Match("luzak", seed=8)
    bots = [make_player("greedy", 1), make_player("greedy", 2)]
    while len(match.hand.moves) < 9 or len(match.view(match.to_move or 0).legal_moves) < 2:
        match.apply(bots[match.to_move or 0].choose(match.view(match.to_move or 0)))
    return match.view(match.to_move or 0)




# -- the searching model -----------------------------------------------------------------------

def _searching_reference(hand: Hand[Any], view: View, theirs: tuple[Tile, ...],
                         model: SearchingModel) -> float | None:
    """The searching model's log-likelihood of one world, the readable way: the hand
    replayed by the engine from its true start (tests/worlds_support.py, with the seat's own
    deal from the hand itself, not rebuilt from the view), and at each of the opponent's
    normal plays with two or more classes of moves, a small PIMC of the opponent's view
    then, seeded by the choice and the tiles it held, as a softmax with a floor."""
    opp = 1 - view.seat
    quartets = view.spec.scoring == "quartets"
    total = [0.0]

    def visit(world: Hand[Any], i: int) -> None:
        seat, move = view.history[i]
        if seat != opp or not isinstance(move, Play) or move.luzak:
            return
        moves = world.legal_moves()
        reps = representatives(world.table, moves, quartets)
        classes = list(dict.fromkeys(reps))
        if len(classes) < 2:
            return
        pimc = PimcPlayer(random.Random(model.seed(i, world.hands[opp])))
        values = {v.move: v.value
                  for v in pimc.analyse(view_of(world, opp), Budget(worlds=model.pimc_worlds))}
        worth = [math.exp(values[m] / model.tau) for m in classes]
        share = worth[classes.index(reps[moves.index(move)])] / sum(worth)
        total[0] += math.log(model.floor / len(classes) + (1 - model.floor) * share)

    if replay(hand, view, theirs, {}, visit=visit) is None:
        return None
    return total[0]


def _pimc_hand(game: str, seed: int, moves: int) -> tuple[Hand[Any], list[View]]:
    """A hand of two pimc players (their first ``moves`` moves) and seat 0's views in it."""
    match = Match(game, seed=seed)
    bots = [make_player("pimc", 2 * seed), make_player("pimc", 2 * seed + 1)]
    views = []
    while match.to_move is not None and len(match.hand.moves) < moves:
        view = match.view(match.to_move)
        if view.seat == 0:
            views.append(view)
        match.apply(bots[view.seat].choose(view))
    return match.hand, views


@pytest.mark.parametrize("game", ["luzak", "luzak-line"])
def test_searching_weights_equal_a_full_replay(game: str) -> None:
    """RULES.md §1-§3: the model, shown seat 0's views of a hand one after another (its
    worlds carried through the hand and re-weighed by the opponent's new choices only),
    gives each hand it believes the weight of a full replay of that world, up to one
    constant; and a world the moves rule out has none."""
    hand, views = _pimc_hand(game, 5, 14)
    model = SearchingModel(samples=12, keep=24, pimc_worlds=4)
    rng = random.Random(7)
    beliefs = None
    for view in views:
        beliefs = model.beliefs(view, rng)
    view = views[-1]
    assert beliefs is not None and len(beliefs.hands) > 1
    differences = []
    for theirs, weight in zip(beliefs.hands, beliefs.weights, strict=True):
        reference = _searching_reference(hand, view, theirs, model)
        assert reference is not None
        differences.append(reference - math.log(weight))
        assert model.log_likelihood(view, theirs) == pytest.approx(reference, abs=1e-9)
    assert max(differences) - min(differences) < 1e-9
    laid = {mv.tile for s, mv in view.history if s == 1 and isinstance(mv, Play)}
    assert all(not set(h) & laid for h in beliefs.hands)
    # a world where the opponent never held a tile it laid is none
    bogus = (*view.unseen()[:view.opponent_tiles - 1], view.hand[0])
    assert model.log_likelihood(view, bogus) is None


def test_a_searching_players_choice_chance_is_a_softmax_of_its_small_pimc() -> None:
    """The searching model's chance of each class of moves at a choice (before its floor) is
    a softmax of the small PIMC's values at its temperature, and the chances sum to one; a
    model that works the chance out otherwise (docs/strength/inference.py's calibrated one)
    needs to override that method alone."""
    match = Match("luzak-line", seed=3)
    bots = [make_player("pimc", 1), make_player("pimc", 2)]
    for _ in range(200):  # a choice of three classes or more, past the opening moves
        view = match.view(match.to_move or 0)
        classes = list(dict.fromkeys(representatives(view.new_table(), list(view.legal_moves),
                                                     False)))
        if len(match.hand.moves) >= 4 and len(classes) >= 3:
            break
        match.apply(bots[view.seat].choose(view))
    else:
        pytest.fail("no choice of three classes in 200 moves of seed 3")
    model = SearchingModel(pimc_worlds=4, tau=3.0)
    at = len(view.history)
    values = {v.move: v.value for v in model.values(view, at)}
    worth = [math.exp(values[m] / 3.0) for m in classes]
    chances = [model.choice_chance(view, at, classes, i) for i in range(len(classes))]
    assert chances == pytest.approx([w / sum(worth) for w in worth], abs=1e-12)
    assert sum(chances) == pytest.approx(1.0, abs=1e-12)

    class Sure(SearchingModel):
        def choice_chance(self, seen: View, at: int, classes: Sequence[Move],
                          chosen: int) -> float:
            return 1.0

    # with no floor, a model sure of every choice weighs every world the moves allow alike
    _, views = _pimc_hand("luzak-line", 5, 14)
    sure = Sure(samples=8, keep=8, pimc_worlds=2, floor=0.0, carry=False, work=100)
    weighed = sure.weighed(views[-1], random.Random(1))
    assert weighed is not None and weighed.logs and set(weighed.logs) == {0.0}


def test_searching_model_reads_worlds_from_the_view_only() -> None:
    """Late positions of random play: the model's likelihood of sampled worlds, rebuilt
    from the view alone, equals the replay from the true start of the hand."""
    for game, hand, view in _CASES:
        if view.spec.has_boneyard:
            continue
        model = SearchingModel(samples=4, keep=4, pimc_worlds=2)
        worlds = HiddenWorlds(view)
        rng = random.Random(3)
        for _ in range(6):
            theirs = tuple(worlds.sample(rng)[0])
            reference = _searching_reference(hand, view, theirs, model)
            assert reference is not None, game
            assert model.log_likelihood(view, theirs) == pytest.approx(reference, abs=1e-9)


def test_searching_model_declines_widelec_and_before_any_choice() -> None:
    model = SearchingModel()
    assert model.beliefs(_widelec_view(), random.Random(1)) is None
    fresh = Match("luzak", seed=2)
    assert model.beliefs(fresh.view(fresh.to_move or 0), random.Random(1)) is None
    with pytest.raises(ValueError, match="samples"):
        SearchingModel(samples=0)
    with pytest.raises(ValueError, match="pimc_worlds"):
        SearchingModel(pimc_worlds=0)
    with pytest.raises(ValueError, match="tau"):
        SearchingModel(tau=0.0)
    with pytest.raises(ValueError, match="floor"):
        SearchingModel(floor=2.0)
    with pytest.raises(ValueError, match="work"):
        SearchingModel(work=0)


def test_the_searching_models_work_is_bounded() -> None:
    """A call values at most ``work`` of the opponent's choices (and the world it started),
    keeps the most likely worlds it had, and its weights are still a full replay's."""
    hand, views = _pimc_hand("luzak", 5, 16)
    free = SearchingModel(samples=12, keep=24, pimc_worlds=2)
    bounded = SearchingModel(samples=12, keep=24, pimc_worlds=2, work=6)
    rng_free, rng_bounded = random.Random(7), random.Random(7)
    for view in views:
        free.beliefs(view, rng_free)
        beliefs = bounded.beliefs(view, rng_bounded)
        if beliefs is None:
            continue
        choices = sum(1 for s, mv in view.history
                      if s == 1 and isinstance(mv, Play) and not mv.luzak)
        assert bounded.valued <= 6 + choices  # the last world started is finished
        assert len(beliefs.hands) >= 1
    assert free.valued > bounded.valued
    view = views[-1]
    beliefs = bounded.beliefs(view, random.Random(8))
    assert beliefs is not None
    differences = []
    for theirs, weight in zip(beliefs.hands, beliefs.weights, strict=True):
        reference = _searching_reference(hand, view, theirs, bounded)
        assert reference is not None
        differences.append(reference - math.log(weight))
    assert max(differences) - min(differences) < 1e-9


def test_an_expert_with_the_searching_model_plays_repeatably() -> None:
    """Two experts with models of their own, shown the same views, choose the same legal
    moves (the small searches are seeded by the worlds, the samples by the player)."""
    _, views = _pimc_hand("luzak-line", 3, 12)

    def expert() -> ExpertPlayer:
        player = ExpertPlayer(random.Random(4))
        player.opponent_model = SearchingModel(samples=8, keep=16, pimc_worlds=2)
        return player

    a, b = expert(), expert()
    for view in views:
        if len(view.legal_moves) > 1:
            move = a.choose(view, Budget(worlds=200))
            assert move == b.choose(view, Budget(worlds=200)) and move in view.legal_moves


def test_a_model_that_carries_nothing_depends_on_the_view_alone() -> None:
    """``carry=False``: the beliefs at a view are the same whatever views came before, as
    for a computer made anew for each move (the web app's)."""
    _, views = _pimc_hand("luzak-line", 3, 14)

    def beliefs(carry: bool, history: bool) -> Beliefs | None:
        model = SearchingModel(samples=6, keep=6, pimc_worlds=2, work=30, carry=carry)
        for view in views[:-1] if history else ():
            model.beliefs(view, random.Random(1))
        return model.beliefs(views[-1], random.Random(2))

    assert beliefs(False, True) == beliefs(False, False)
    assert beliefs(True, True) != beliefs(True, False)  # a carrying model remembers


@pytest.mark.parametrize("game", ["widelec", "luzak"])
def test_before_the_opponents_first_choice_the_expert_is_the_plain_expert(game: str) -> None:
    """The reading declines before the opponent has made a choice (a normal play that is
    not a Widelec tile laid at once after its draw), and draws nothing from the player's
    random stream then: the expert not following the greedy in its tree unread
    (``follows_at_least`` 0) and ``expert-plain`` (the same stream) see the same moves alike
    there, and once the opponent has chosen, no longer."""
    before = after = 0
    for seed in range(12):
        match = Match(game, seed=seed)
        bots = [make_player("greedy", 2 * seed), make_player("greedy", 2 * seed + 1)]
        while match.to_move is not None and match.hand_number == 1:
            view = match.view(match.to_move)
            if view.seat == 0 and len(view.legal_moves) > 1:
                chosen = bool(choice_views(view))
                if not chosen or not after:
                    analyses = []
                    for name in ("expert", "expert-plain"):
                        expert = make_player(name, seed)
                        assert isinstance(expert, ExpertPlayer)
                        expert.follows_at_least = 0.0
                        analyses.append(expert.analyse(view, Budget(worlds=200)))
                    assert (analyses[0] == analyses[1]) is not chosen
                    before += not chosen
                    after += chosen
            match.apply(bots[view.seat].choose(view))
    assert before >= 3 and after >= 1


def test_the_searching_model_stops_at_its_deadline() -> None:
    """The bound by the clock that a search under a time budget (or the level's ceiling)
    gives the model, half the time left: past it, with fewer than a quarter of its samples
    weighed, the model declines (the search keeps the rules' posterior rather than a world
    or two), and forgets what it started; in time, it weighs its worlds as ever."""
    _, views = _pimc_hand("luzak", 5, 16)
    model = SearchingModel(samples=12, keep=24, pimc_worlds=2, carry=False)
    assert model.beliefs(views[-1], random.Random(1), deadline=time.perf_counter()) is None
    free = model.beliefs(views[-1], random.Random(1))
    timed = model.beliefs(views[-1], random.Random(1), deadline=time.perf_counter() + 600)
    assert free is not None and len(free.hands) >= 3 and timed == free


def test_on_the_pure_path_the_expert_does_not_read() -> None:
    """The reading is hundreds of small searches a move, affordable natively only: on the
    pure-Python path the expert plays as ``expert-plain`` (the same stream, the same moves)."""
    _, views = _pimc_hand("luzak", 5, 16)
    view = views[-1]
    assert any(s == 1 and isinstance(mv, Play) and not mv.luzak for s, mv in view.history)
    expert, plain = make_player("expert", 2), make_player("expert-plain", 2)
    assert isinstance(expert, ExpertPlayer) and isinstance(plain, ExpertPlayer)
    with native.pure():
        assert expert.analyse(view, Budget(worlds=30)) == plain.analyse(view, Budget(worlds=30))
