"""The baselines of issue 13 ("Baselines worth beating"): ``greedy`` subtracts the opponent's
EXPECTED best answer over its possible hands, ``pimc`` is plain PIMC whose playouts are that
greedy on both seats; the earlier forms stay as ``greedy-worst`` and ``pimc-classic``.

The native fast path makes exactly the Python reference's choices: per decision, over whole
greedy hands (where the facts the opponent's moves prove are kept up natively) and in the
PIMC's playouts.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from math import comb

import pytest

from conftest import played_out
from dominolab import native
from dominolab.core import Match, View, get_game
from dominolab.core.options import WidelecOptions
from dominolab.core.worlds import opponent_limits, proven_absent
from dominolab.lab.play import greedy_match_facts, play_match
from dominolab.players import (
    LEVELS,
    PLAYERS,
    Budget,
    ClassicPimcPlayer,
    GreedyPlayer,
    PimcPlayer,
    WorstCaseGreedyPlayer,
    make_player,
)
from dominolab.players.greedy import expected_best

GAME_NAMES = ["luzak", "luzak-line", "widelec"]
needs_native = pytest.mark.skipif(not native.enabled(), reason="the fast path is not built")


def test_names_and_levels() -> None:
    assert type(make_player("greedy", 1)) is GreedyPlayer
    assert type(make_player("greedy-worst", 1)) is WorstCaseGreedyPlayer
    assert type(make_player("pimc", 1)) is PimcPlayer
    assert type(make_player("pimc-classic", 1)) is ClassicPimcPlayer
    assert {"greedy", "greedy-worst", "pimc", "pimc-classic"} <= set(PLAYERS)
    assert LEVELS["easy"][0] == "greedy" and LEVELS["medium"][0] == "pimc"


@pytest.mark.parametrize(("u", "k"), [(1, 1), (4, 2), (6, 3), (7, 7), (8, 1), (9, 4), (5, 0)])
def test_expected_best_is_the_mean_over_every_hand(u: int, k: int) -> None:
    """sum_i a_i C(u-i, k-1) is C(u, k) times the mean best answer over all k-subsets, ties
    and answers of 0 or less included."""
    rng = random.Random(u * 31 + k)
    for _ in range(20):
        answers = [rng.choice([-3, 0, 0, 2, 5, 5, 10, 12]) for _ in range(u)]
        total = sum(max([0, *(answers[i] for i in held)])
                    for held in itertools.combinations(range(u), k)) if k else 0
        assert expected_best(answers, u, k) == total
        if k:
            assert Fraction(expected_best(answers, u, k), comb(u, k)) == Fraction(
                total, comb(u, k))


def _walk(game: str, seed: int, options: object | None = None) -> list[View]:
    """The views of the seat to move over a match played half greedily, half at random."""
    spec = get_game(game)
    opts = options if options is not None else spec.options_class(target=40)
    match = Match(game, opts, seed=seed)  # type: ignore[arg-type]
    rng = random.Random(seed)
    views = []
    while not match.is_over:
        seat = match.to_move
        assert seat is not None
        view = match.view(seat)
        views.append(view)
        legal = match.legal_moves()
        match.apply(legal[rng.randrange(len(legal))] if rng.random() < 0.5 else legal[0])
    return views


def test_proven_absent_are_the_limits_that_allow_none() -> None:
    for game in GAME_NAMES:
        for view in _walk(game, 3):
            absent = proven_absent(view)
            for limit in opponent_limits(view):
                if limit.allowed == 0:
                    assert all(t in absent for t in view.unseen()
                               if t.hi in limit.values or t.lo in limit.values)
            assert absent <= set(view.unseen())


def test_the_expected_greedy_differs_from_the_worst_case_one() -> None:
    """The two rules are different players: somewhere they choose differently."""
    differ = 0
    with native.pure():
        for view in _walk("luzak", 1)[:40]:
            if len(view.legal_moves) > 1 and view.to_move == view.seat:
                differ += GreedyPlayer().choose(view) != WorstCaseGreedyPlayer().choose(view)
    assert differ > 0


@needs_native
@pytest.mark.parametrize("game", GAME_NAMES)
def test_native_greedy_choices_are_the_reference(game: str) -> None:
    for seed in range(3):
        for view in _walk(game, seed):
            with native.pure():
                slow = GreedyPlayer().choose(view), WorstCaseGreedyPlayer().choose(view)
            assert (GreedyPlayer().choose(view), WorstCaseGreedyPlayer().choose(view)) == slow


@needs_native
@pytest.mark.parametrize("options", [WidelecOptions(must_play_drawn=False),
                                     WidelecOptions(edge_double=False)])
def test_native_greedy_hands_keep_the_proven_facts(options: WidelecOptions) -> None:
    """Whole greedy hands natively, from the start and from the middle (draws, kept tiles and
    passes before), are two GreedyPlayers deciding one view at a time on the Python path."""
    for seed in range(8):
        rng = random.Random(seed)
        match = Match("widelec", options, seed=seed)
        for _ in range(rng.randrange(14)):
            legal = match.legal_moves()
            match.apply(legal[rng.randrange(len(legal))])
            if match.is_over or match.hand.result is not None:
                break
        hand = match.hand
        if hand.result is not None:
            continue
        for worst in (False, True):
            moves = native.greedy_moves(hand, worst)
            player = WorstCaseGreedyPlayer() if worst else GreedyPlayer()
            assert moves == played_out(hand, player), (seed, worst)


@needs_native
@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("names", [("greedy", "greedy"), ("greedy-worst", "greedy-worst")])
def test_fast_loop_plays_the_named_greedy(game: str, names: tuple[str, str]) -> None:
    """The native whole-hand loop plays the greedy named (both names), exactly as the
    players deciding one move at a time on the Python path."""
    spec = get_game(game)
    options = spec.options_class(target=40)
    worst = names[0] == "greedy-worst"
    for seed in range(2):
        facts = greedy_match_facts(spec, options, seed, worst)
        fast = play_match(game, options, seed, names).match
        with native.pure():
            slow = play_match(game, options, seed, names).match
        fast_moves = [m for h in fast.hands for _, m in h.moves]
        slow_moves = [m for h in slow.hands for _, m in h.moves]
        assert fast_moves == slow_moves
        assert [s[1] for h in facts.hands for s in h.steps] == slow_moves
        assert fast.result == slow.result


@needs_native
@pytest.mark.parametrize("game", GAME_NAMES)
def test_native_pimc_playouts_are_the_reference(game: str) -> None:
    """The native ``pimc-expected`` search in one known world gives the Python reference's
    values for every move (each playout: both seats the expected-answer greedy)."""
    for seed in range(2):
        match = Match(game, seed=seed)
        rng = random.Random(seed)
        for _ in range(rng.randrange(5)):
            legal = match.legal_moves()
            match.apply(legal[rng.randrange(len(legal))])
        seat = match.to_move
        assert seat is not None
        view = match.view(seat)
        if len(view.legal_moves) < 2:
            continue
        fast = PimcPlayer(random.Random(1))._search(view, Budget(worlds=1), match.hand.copy())
        with native.pure():
            slow = PimcPlayer(random.Random(1))._search(view, Budget(worlds=1),
                                                        match.hand.copy())
        assert [(r.move, r.value, r.margin) for r in fast] == [
            (r.move, r.value, r.margin) for r in slow]


@needs_native
def test_pimc_default_worlds_follow_the_game() -> None:
    for game, worlds in (("luzak", 40), ("luzak-line", 40), ("widelec", 64)):
        view = Match(game, seed=2).view(Match(game, seed=2).to_move or 0)
        values = PimcPlayer(random.Random(1)).analyse(view)
        assert {v.worlds for v in values} == {worlds}
        classic = ClassicPimcPlayer(random.Random(1)).analyse(view)
        assert {v.worlds for v in classic} == {40}


def test_pimc_repeats_with_a_worlds_budget() -> None:
    view = Match("luzak", seed=4).view(Match("luzak", seed=4).to_move or 0)
    a = make_player("pimc", 3).choose(view, Budget(worlds=8))
    b = make_player("pimc", 3).choose(view, Budget(worlds=8))
    assert a == b

