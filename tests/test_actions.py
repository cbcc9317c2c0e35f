"""The shared action numbering of the framework adapters: one number per move, unique and
sorted in every position, and back to the same move."""

from __future__ import annotations

import random

import pytest

from dominolab.core import GAMES, Match
from dominolab.integrations.actions import codec


@pytest.mark.parametrize("game", list(GAMES))
def test_actions_are_unique_in_range_and_decode(game: str) -> None:
    c = codec(game)
    for seed in range(30):
        match = Match(game, seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            hand = match.hand
            legal = hand.legal_moves()
            actions = c.legal_actions(hand)
            assert len(set(actions)) == len(legal) == len(actions)
            assert actions == sorted(actions)
            assert all(0 <= a < c.num_actions for a in actions)
            for move in legal:
                action = c.encode(move)
                assert c.move(hand, action) == move
                assert c.describe(action) == str(move).rstrip("*")  # a luzak needs the position
            match.apply(legal[rng.randrange(len(legal))])


def test_action_counts() -> None:
    assert codec("luzak").num_actions == 28 * 2 * 49
    assert codec("luzak-line").num_actions == 28 * 2 * 3
    assert codec("kwartety").num_actions == 28 * 2 * 3 + 3
