"""Which kind of player is the opponent (players/beliefs.py ``GreedyModel``, ``MixedModel``):
the opponent read as the expected-answer greedy, and the greedy and searching readings
weighed against each other by how well each explains its choices.

The greedy model's fast form asks the greedy, at each of the opponent's choices, what it
would have played with the tiles a world gives it then, in a view of that choice taken from
one other world. Here every world is replayed by the engine from the true start of the hand
(tests/worlds_support.py) and the greedy is asked in the replayed world's own view, the
legal moves and their classes those of the replayed hand: both must give every world the
same log-likelihood (RULES.md §1 hidden information, §2-§3 the legal moves, on both the
native and the pure-Python path).
"""

from __future__ import annotations

import math
import random
from contextlib import nullcontext
from dataclasses import replace
from typing import Any

import pytest

from dominolab import native
from dominolab.core import TILES, Draw, Hand, Match, Play, Tile, View, view_of
from dominolab.core.equivalence import representatives
from dominolab.core.worlds import Beliefs, HiddenWorlds, proven_absent
from dominolab.players import make_player
from dominolab.players.beliefs import (
    GreedyModel,
    MixedModel,
    SearchingModel,
    Weighed,
    choice_views,
)
from dominolab.players.greedy import GreedyHolding, GreedyPlayer, greedy_move_holding
from dominolab.players.search import ExpertPlayer, reading_model
from worlds_support import replay, structure_of


def _hand_of(game: str, opponent: str, seed: int, moves: int) -> tuple[Hand[Any], View]:
    """Hand 1 of a match of two ``opponent`` players, seat 0 to move after about ``moves``
    moves (the first of its turns from there on), and its view."""
    match = Match(game, seed=seed)
    bots = [make_player(opponent, 2 * seed), make_player(opponent, 2 * seed + 1)]
    while match.to_move is not None and match.hand_number == 1:
        view = match.view(match.to_move)
        if view.seat == 0 and len(match.hand.moves) >= moves:
            return match.hand, view
        match.apply(bots[view.seat].choose(view))
    raise AssertionError(f"hand 1 of {game} seed {seed} ended before move {moves}")


def _greedy_reference(hand: Hand[Any], view: View, theirs: tuple[Tile, ...],
                      drawn: dict[int, Tile], floor: float) -> float | None:
    """The greedy model's log-likelihood of one world, the readable way: the world replayed
    from the hand's true start, and at each of the opponent's normal plays with two or more
    classes of moves (not a tile laid at once after its draw), the greedy asked in the
    replayed world's view of the opponent."""
    opp = 1 - view.seat
    quartets = view.spec.scoring == "quartets"
    total = [0.0]

    def visit(world: Hand[Any], i: int) -> None:
        seat, move = view.history[i]
        if seat != opp or not isinstance(move, Play) or move.luzak or world.pending:
            return
        moves = world.legal_moves()
        reps = representatives(world.table, moves, quartets)
        classes = list(dict.fromkeys(reps))
        if len(classes) < 2:
            return
        wanted = GreedyPlayer().choose(view_of(world, opp))
        same = reps[moves.index(wanted)] == reps[moves.index(move)]
        total[0] += math.log(floor / len(classes) + (1 - floor) * same)

    if replay(hand, view, theirs, drawn, visit=visit) is None:
        return None
    return total[0]


@pytest.mark.parametrize("pure", [False, True])
@pytest.mark.parametrize("game", ["luzak", "luzak-line", "widelec"])
def test_greedy_weights_equal_a_full_replay(game: str, pure: bool) -> None:
    """RULES.md §1-§4: every world the greedy model weighs (in Widelec with the tiles of the
    opponent's hidden draws) has the log-likelihood of a full replay of it, natively and on
    the pure-Python path alike; ``weighed`` gives the sampled worlds those weights."""
    hand, view = _hand_of(game, "greedy", 4, 8 if game != "widelec" else 16)
    model = GreedyModel(samples=24, floor=0.2)
    worlds = HiddenWorlds(view)
    rng = random.Random(3)
    logs = []
    with native.pure() if pure else nullcontext():
        for _ in range(24):
            theirs, _, drawn = worlds.sample_draws(rng)
            reference = _greedy_reference(hand, view, tuple(theirs), drawn, 0.2)
            assert reference is not None
            logs.append(model.log_likelihood(view, theirs, drawn))
            assert logs[-1] == pytest.approx(reference, abs=1e-9)
        found = model.weighed(view, random.Random(3))
    assert min(logs) < max(logs)  # the choices told the worlds apart
    if game == "widelec":
        assert any(isinstance(mv, Draw) for s, mv in view.history if s == 1)
    else:  # without hidden draws, the same worlds in the same order
        assert found is not None and found.logs == pytest.approx(logs)


@pytest.mark.parametrize("game", ["luzak", "luzak-line", "widelec"])
def test_the_opponents_view_of_each_choice_is_its_view_then(game: str) -> None:
    """The opponent's view before each of its choices, built from the table and the
    history alone, is the engine's view of the replayed hand then, once its tiles and legal
    moves are filled in (RULES.md §1: nothing else of it depends on the hidden tiles)."""
    hand, view = _hand_of(game, "greedy", 6, 8 if game != "widelec" else 16)
    found = choice_views(view)
    assert found
    seen = []

    def visit(world: Hand[Any], i: int) -> None:
        if i in found:
            truth = view_of(world, 1 - view.seat, hand_number=view.hand_number,
                            totals=found[i].totals)
            assert replace(found[i], hand=truth.hand, legal_moves=truth.legal_moves) == truth
            seen.append(i)

    assert replay(hand, view, tuple(hand.hands[1]), _true_draws(hand, view),
                  visit=visit) is not None
    assert seen == sorted(found)


def _true_draws(hand: Hand[Any], view: View) -> dict[int, Tile]:
    """The tiles of the opponent's hidden draws in the true hand, by history index."""
    draws, hidden, _, _ = structure_of(view)
    return {i: hand.deal.rest[k] for k, i in enumerate(draws) if i in hidden}


def test_the_greedy_holding_other_tiles_is_the_greedy() -> None:
    """``greedy_move_holding`` with the seat's own tiles is the greedy player's choice, and
    with other tiles it is the greedy's choice in a view that holds them, natively and on
    the pure-Python path alike, and so is ``GreedyHolding``'s, which builds the table once
    for many hands."""
    for seed in range(6):
        _, view = _hand_of("luzak", "greedy", seed, 6)
        if len(view.legal_moves) < 2:
            continue
        absent = proven_absent(view)
        own = greedy_move_holding(view, view.hand, view.legal_moves, absent)
        assert own == GreedyPlayer().choose(view)
        rng = random.Random(seed)
        table = view.new_table()
        free = [t for t in TILES if t not in {p.tile for p in view.table}]
        many = GreedyHolding(view, absent)  # one table for every hand (the fast path's)
        for _ in range(8):  # other tiles in the same position
            held = tuple(sorted(rng.sample(free, len(view.hand)), key=lambda t: t.index))
            legal = table.normal_plays(held)
            if not legal:
                continue
            fast = greedy_move_holding(view, held, legal, absent)
            with native.pure():
                slow = greedy_move_holding(view, held, legal, absent)
            assert fast == slow == many.move(held, legal) and fast in legal


def _truth_share(beliefs: Beliefs, truth: set[Tile]) -> float:
    total = sum(beliefs.weights)
    return sum(w * len(truth & set(h))
               for h, w in zip(beliefs.hands, beliefs.weights, strict=True)) / total


def test_the_greedy_model_finds_a_greedy_opponents_tiles() -> None:
    """Against a greedy opponent the greedy model puts more of its weight on the tiles the
    opponent really holds than the rules' posterior does, at most positions."""
    better = positions = 0
    for seed in range(10):
        hand, view = _hand_of("luzak", "greedy", seed, 8)
        truth = set(hand.hands[1])
        read = GreedyModel(samples=128).beliefs(view, random.Random(seed))
        if read is None:
            continue
        worlds = HiddenWorlds(view)  # the rules' posterior, by sampling
        rng = random.Random(seed)
        rules = sum(len(truth & set(worlds.sample(rng)[0])) for _ in range(400)) / 400
        positions += 1
        better += _truth_share(read, truth) > rules
    assert positions >= 6 and better >= 0.7 * positions


def test_the_mixture_tells_a_greedy_opponent_from_a_searching_one() -> None:
    """Shown a greedy opponent's choices, the mixture gives the greedy model most of the
    weight; shown a pimc opponent's, the searching model (on average over positions)."""
    def greedy_share(opponent: str) -> float:
        shares = []
        for seed in range(6):
            _, view = _hand_of("luzak", opponent, seed, 8)
            model = MixedModel([(0.5, GreedyModel(samples=64)),
                                (0.5, SearchingModel(samples=16, pimc_worlds=4,
                                                     carry=False))])
            found = model.weighed(view, random.Random(seed))
            if found is not None:
                shares.append(found[0][0])
        assert len(shares) >= 4
        return sum(shares) / len(shares)

    assert greedy_share("greedy") > 0.6
    assert greedy_share("pimc") < 0.4


def test_the_mixture_is_its_parts_weighed_by_their_evidence() -> None:
    """Bayesian model averaging: each model's posterior share is its prior times its
    evidence (the mean likelihood of its worlds), and each hand's weight is the sum over the
    models of that share times the hand's share of the model's likelihood."""
    _, view = _hand_of("luzak-line", "greedy", 2, 8)
    greedy = GreedyModel(samples=32)
    searching = SearchingModel(samples=8, pimc_worlds=2, carry=False)
    model = MixedModel([(0.3, greedy), (0.7, searching)])
    found = model.weighed(view, random.Random(5))
    assert found is not None
    (share_g, share_s), (part_g, part_s) = found
    rng = random.Random(5)
    assert part_g == greedy.weighed(view, rng) and part_s == searching.weighed(view, rng)
    odds = (0.3 * math.exp(part_g.evidence())) / (0.7 * math.exp(part_s.evidence()))
    assert share_g / share_s == pytest.approx(odds, rel=1e-9)
    assert share_g + share_s == pytest.approx(1.0)
    beliefs = model.beliefs(view, random.Random(5))
    assert beliefs is not None
    expected: dict[tuple[Tile, ...], float] = {}
    for share, part in ((share_g, part_g), (share_s, part_s)):
        for hand, w in part.shares().items():
            expected[hand] = expected.get(hand, 0.0) + share * w
    assert dict(zip(beliefs.hands, beliefs.weights, strict=True)) == pytest.approx(expected)
    assert model.beliefs_of(*found) == beliefs
    # read as greedy this far, the opponent makes the greedy's move but for the floor
    assert model.greedy_chance((share_g, share_s)) == pytest.approx(share_g * 0.9)
    assert model.greedy_chance((0.0, 1.0)) == 0.0


def test_weighed_worlds_evidence_and_shares() -> None:
    """The evidence is the log of the mean likelihood; a hand drawn twice counts twice."""
    a, b = (TILES[0], TILES[1]), (TILES[2], TILES[3])
    weighed = Weighed((a, b, a), (math.log(0.5), math.log(0.25), math.log(0.5)))
    assert weighed.evidence() == pytest.approx(math.log((0.5 + 0.25 + 0.5) / 3))
    assert weighed.shares() == pytest.approx({a: 0.8, b: 0.2})
    assert weighed.beliefs() == Beliefs((a, b), (2.0, 0.5))


def test_the_models_decline_widelec_before_any_choice_and_bad_settings() -> None:
    """Where either model declines (Widelec, no choice of the opponent's yet, the greedy
    model out of time) the mixture does too, and the search keeps the rules' posterior."""
    widelec = Match("widelec", seed=4)
    fresh = Match("luzak", seed=2)
    mixed = MixedModel([(0.5, GreedyModel()), (0.5, SearchingModel())])
    for match in (widelec, fresh):
        view = match.view(match.to_move or 0)
        assert GreedyModel().beliefs(view, random.Random(1)) is None
        assert mixed.beliefs(view, random.Random(1)) is None
    _, view = _hand_of("luzak", "greedy", 3, 8)
    assert GreedyModel(samples=8).weighed(view, random.Random(1), deadline=0.0) is None
    with pytest.raises(ValueError, match="samples"):
        GreedyModel(samples=0)
    with pytest.raises(ValueError, match="floor"):
        GreedyModel(floor=0.0)
    with pytest.raises(ValueError, match="prior"):
        MixedModel([(0.0, GreedyModel())])
    with pytest.raises(ValueError, match="prior"):
        MixedModel([])


def test_the_expert_reads_which_kind_of_player_its_opponent_is() -> None:
    """The expert's reading (docs/strength/log.md, "Which kind of player" and "Following a greedy
    opponent"): greedy and searching at even odds, the searching model as tuned before, and
    the search follows the opponent read as greedy; ``expert-plain`` reads nothing."""
    expert, plain = make_player("expert", 3), make_player("expert-plain", 3)
    assert isinstance(expert, ExpertPlayer) and isinstance(plain, ExpertPlayer)
    model = expert.opponent_model
    assert isinstance(model, MixedModel)
    (p_greedy, greedy), (p_searching, searching) = model.models
    assert (p_greedy, p_searching) == (0.5, 0.5)
    assert isinstance(greedy, GreedyModel) and (greedy.samples, greedy.floor) == (256, 0.1)
    assert isinstance(searching, SearchingModel)
    assert (searching.samples, searching.keep, searching.pimc_worlds, searching.tau,
            searching.floor, searching.work, searching.carry) == (64, 128, 8, 3.0, 0.1, 400,
                                                                  False)
    assert plain.opponent_model is None
    assert expert.exploits  # it follows an opponent read as greedy into the greedy's replies
    (_, bigger), _ = reading_model(0.9, greedy_samples=1024, greedy_floor=0.05).models
    assert isinstance(bigger, GreedyModel) and (bigger.samples, bigger.floor) == (1024, 0.05)


@pytest.mark.parametrize("game", ["luzak", "luzak-line"])
def test_the_searching_model_afresh_weighs_as_its_replay_does(game: str) -> None:
    """``carry=False`` weighs each world choice by choice in the opponent's views then
    (:func:`choice_views`); a model that carries its worlds replays them from the start of
    the hand. On a first call both draw the same worlds and give them the same weights,
    bounded work and all (the expert's runs of the searching model stand)."""
    for seed, moves in ((5, 6), (7, 9), (11, 8)):
        _, view = _hand_of(game, "pimc", seed, moves)
        for work in (None, 20):
            fresh = SearchingModel(samples=10, keep=20, pimc_worlds=3, tau=3.0, work=work,
                                   carry=False)
            carried = SearchingModel(samples=10, keep=20, pimc_worlds=3, tau=3.0, work=work)
            a = fresh.weighed(view, random.Random(seed))
            b = carried.weighed(view, random.Random(seed))
            assert a is not None and a == b and fresh.valued == carried.valued


def test_the_searching_model_reads_widelec_afresh() -> None:
    """In Widelec (afresh only: the view does not say which tiles this seat drew, so no
    world can be replayed from the start of the hand) each world, with the tiles of the
    opponent's hidden draws, is weighed by the small searches of the opponent's views then
    with the tiles it held then: the weights of a full replay of that world."""
    hand, view = _hand_of("widelec", "pimc", 4, 16)
    model = SearchingModel(samples=12, pimc_worlds=3, carry=False)
    assert SearchingModel(samples=12, pimc_worlds=3).weighed(view, random.Random(1)) is None
    found = model.weighed(view, random.Random(1))
    assert found is not None and len(set(found.hands)) > 1
    assert min(found.logs) < max(found.logs)
    # the same worlds, replayed from the true start of the hand
    worlds = HiddenWorlds(view)
    rng = random.Random(1)
    seen: set[object] = set()
    logs = []
    for _ in range(12):
        theirs, _, drawn = worlds.sample_draws(rng)
        key = (tuple(sorted(theirs, key=lambda t: t.index)), tuple(sorted(drawn.items())))
        if key in seen:
            continue
        seen.add(key)
        choices: list[float] = []

        def visit(world: Hand[Any], i: int, choices: list[float] = choices) -> None:
            seat, move = view.history[i]
            if seat == 1 and not world.pending:
                choices.append(model.choice_log(world, i, move))

        assert replay(hand, view, tuple(theirs), drawn, visit=visit) is not None
        logs.append(sum(choices))
    assert found.logs == pytest.approx(logs, abs=1e-9)


def test_the_expert_follows_a_greedy_opponent_as_far_as_it_reads_it_so() -> None:
    """An expert that :attr:`~dominolab.players.search.ExpertPlayer.exploits` its reading
    hands its search the chance that the opponent makes the greedy's move at a choice: the
    greedy model's posterior share times 1 less its floor, with the mixture's beliefs;
    one that does not hands 0, with the same beliefs; where the mixture declines, the
    rules' posterior and 0. With ``follows_at_least`` (the expert's 0.5), the chance is at
    least that, where the mixture declines too; without ``exploits``, still 0."""
    _, view = _hand_of("luzak", "greedy", 1, 8)
    small = MixedModel([(0.5, GreedyModel(samples=32)),
                        (0.5, SearchingModel(samples=8, pimc_worlds=2, carry=False))])
    found = small.weighed(view, random.Random(9))
    assert found is not None
    chance = small.greedy_chance(found[0])
    assert chance > 0.5  # a greedy opponent's choices are read as a greedy player's
    assert ExpertPlayer.follows_at_least == 0.5
    fresh = Match("luzak", seed=2)
    for least in (0.0, 0.5, 0.9):
        for exploits in (True, False):
            expert = ExpertPlayer(random.Random(9))
            expert.opponent_model, expert.exploits = small, exploits
            expert.follows_at_least = least
            beliefs, greedy = expert._reading(view, None)
            assert beliefs == small.beliefs_of(*found)
            assert greedy == (max(chance, least) if exploits else 0.0)
            assert expert._reading(fresh.view(fresh.to_move or 0), None) == (
                None, least if exploits else 0.0)
        with native.pure():  # the pure path does not read, nor follow
            assert expert._reading(view, None) == (None, 0.0)
