"""STYLE.md point 3: each game declares the facts of its rules on its spec, and code asks the
spec, not the game's name. Each game's values, and that they agree with what the hands do."""

from __future__ import annotations

import random

import pytest

from conftest import GAME_NAMES
from dominolab.core import (
    GAMES,
    LineTable,
    LuzakOptions,
    Match,
    Play,
    TreeTable,
    get_game,
)

EXPECTED = {
    "luzak": dict(table="tree", spinners=True, has_boneyard=False, luzaks=True,
                  luzak_pips=True, scoring="count", has_count=True, hand_end="tiles",
                  tiles_per_hand=12, out_bonus=False, hand_ends=("tiles",)),
    "luzak-line": dict(table="line", spinners=False, has_boneyard=False, luzaks=True,
                       luzak_pips=False, scoring="count", has_count=True, hand_end="tiles",
                       tiles_per_hand=12, out_bonus=False, hand_ends=("tiles",)),
    "widelec": dict(table="line", spinners=False, has_boneyard=True, luzaks=False,
                    luzak_pips=False, scoring="quartets", has_count=False, hand_end="out",
                    tiles_per_hand=None, out_bonus=True,
                    hand_ends=("domino", "block", "target")),
}


def test_every_game_declares_its_rules() -> None:
    assert set(EXPECTED) == set(GAMES)
    for name, facts in EXPECTED.items():
        spec = get_game(name)
        for attr, value in facts.items():
            assert getattr(spec, attr) == value, (name, attr)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_new_table_is_the_games_table(game: str) -> None:
    spec = get_game(game)
    table = spec.new_table()
    assert isinstance(table, TreeTable if spec.table == "tree" else LineTable)
    assert table.n == 0


def test_new_table_follows_the_options() -> None:
    spec = get_game("luzak")
    for short in (True, False):
        table = spec.new_table(LuzakOptions(short_ends_any_time=short))
        assert isinstance(table, TreeTable) and table.short_any is short


@pytest.mark.parametrize("game", GAME_NAMES)
def test_specs_agree_with_what_hands_do(game: str) -> None:
    """Seeded full matches: the moves, the ends and the scores each spec says are possible
    are the ones that happen."""
    spec = get_game(game)
    rng = random.Random(f"specs/{game}")
    ends: set[str] = set()
    kinds: set[str] = set()
    for seed in range(12):
        match = Match(game, seed=seed)
        while not match.is_over:
            hand = match.hand
            assert type(hand.table) is type(spec.new_table(match.options))
            move = rng.choice(match.legal_moves())
            if isinstance(move, Play):
                kinds.add("luzak" if move.luzak else "play")
            else:
                kinds.add(type(move).__name__.lower())
            step = match.apply(move)
            assert (step.count is not None) == spec.has_count
            if hand.result is not None:
                ends.add(hand.result.end)
                assert hand.result.end in spec.hand_ends
                assert (hand.result.bonus > 0) <= spec.out_bonus
                if spec.tiles_per_hand is not None:
                    assert hand.n == spec.tiles_per_hand
    assert ("luzak" in kinds) == spec.luzaks
    assert bool(kinds & {"draw", "pass", "keep"}) == spec.has_boneyard
    assert ends <= set(spec.hand_ends)
