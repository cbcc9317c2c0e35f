"""Possible worlds (core/worlds.py) and the move preview (Hand.points_of).

The inference must be sound — the true hidden tiles always satisfy it — and a hand rebuilt
from a view with the true hidden tiles must be the real state (RULES.md §1 hidden
information; §2/§3 a luzak proves no normal play; §4 a draw or pass proves no playable tile).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from dominolab.core import (
    GAMES,
    Hand,
    InvalidMoveError,
    LuzakOptions,
    Match,
    Options,
    TreeTable,
    WidelecHand,
    WidelecOptions,
)
from dominolab.core.worlds import fits_limits, hand_from_view, opponent_limits

CASES: list[tuple[str, Options | None]] = [
    ("luzak", None), ("luzak", LuzakOptions(short_ends_any_time=False)),
    ("luzak-line", None), ("widelec", None), ("widelec", WidelecOptions(must_play_drawn=False)),
]


def _true_rest(hand: Hand[Any], unseen: tuple[Any, ...], opponent: list[Any]) -> list[Any]:
    if isinstance(hand, WidelecHand):
        return list(reversed(hand.boneyard))
    return [t for t in unseen if t not in opponent]


@pytest.mark.parametrize(("game", "options"), CASES)
def test_s1_inference_is_sound_and_rebuilt_hands_are_exact(game: str,
                                                            options: Options | None) -> None:
    """RULES.md §1-§4: at every position of random matches, the opponent's real tiles satisfy
    every limit inferred from their moves, and the hand rebuilt from the view with the real
    hidden tiles plays on exactly like the real one."""
    limited = 0
    for seed in range(40):
        match = Match(game, options, seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            hand = match.hand
            seat = hand.to_move
            view = match.view(seat)
            opponent = list(hand.hands[1 - seat])
            limits = opponent_limits(view)
            limited += bool(limits)
            assert fits_limits(opponent, limits)
            world = hand_from_view(view, opponent, _true_rest(hand, view.unseen(), opponent))
            assert world.legal_moves() == hand.legal_moves()
            assert world.points == hand.points and world.to_move == hand.to_move
            a, b = world.copy(), hand.copy()
            playout = random.Random(seed)
            while a.result is None:
                legal = a.legal_moves()
                assert legal == b.legal_moves()
                move = legal[playout.randrange(len(legal))]
                assert a.apply_unchecked(move) == b.apply_unchecked(move)
            assert a.result == b.result
            legal = match.legal_moves()
            match.apply_unchecked(legal[rng.randrange(len(legal))])
    assert limited > 0


def test_s2_a_luzak_proves_no_tile_fits_any_free_port() -> None:
    """RULES.md §2: after the opponent lays a luzak, none of their tiles may show a value of
    a port that was free then."""
    for seed in range(200):
        match = Match("luzak", seed=seed)
        while not match.is_over:
            hand = match.hand
            legal = match.legal_moves()
            if legal[0].luzak:  # type: ignore[union-attr]
                table = getattr(hand, "table", None)
                assert isinstance(table, TreeTable)
                free = set(table.port_value.values())
                match.apply(legal[0])
                if match.is_over or match.hand is not hand:
                    break
                limits = opponent_limits(match.view(hand.to_move))
                assert any(lim.values == frozenset(free) and lim.allowed == 0 for lim in limits)
                return
            match.apply(legal[0])
    pytest.fail("no luzak met in 200 matches")


def test_hand_from_view_refuses_tiles_that_do_not_fit_the_view() -> None:
    match = Match("luzak", seed=3)
    view = match.view(match.hand.to_move)
    unseen = list(view.unseen())
    with pytest.raises(InvalidMoveError):
        hand_from_view(view, unseen[:11], unseen[11:])
    with pytest.raises(InvalidMoveError):
        hand_from_view(view, [*unseen[:11], view.hand[0]], unseen[12:])


@pytest.mark.parametrize("game", list(GAMES))
def test_points_of_equals_the_points_of_applying(game: str) -> None:
    """Hand.points_of previews exactly what apply_unchecked gives, for every legal move."""
    checked = 0
    for seed in range(25):
        match = Match(game, seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            hand = match.hand
            for move in hand.legal_moves():
                assert hand.points_of(move) == hand.copy().apply_unchecked(move)
                checked += 1
            legal = match.legal_moves()
            match.apply_unchecked(legal[rng.randrange(len(legal))])
    assert checked > 1000


def test_s4_a_drawn_tile_waiting_to_be_laid_fits() -> None:
    """RULES.md §4: while the opponent must lay the tile just drawn, the view of the other
    seat must allow one fitting tile in their hand (the inference stays sound there too)."""
    seen = 0
    for seed in range(300):
        match = Match("widelec", seed=seed)
        while not match.is_over and seen < 20:
            hand = match.hand
            assert isinstance(hand, WidelecHand)
            if hand.pending is not None:
                waiting = 1 - hand.to_move
                view = match.view(waiting)
                assert fits_limits(hand.hands[hand.to_move], opponent_limits(view))
                seen += 1
            match.apply(match.legal_moves()[0])
        if seen >= 20:
            return
    pytest.fail("too few positions with a drawn tile waiting")
