"""The engine's speed on one core: random full hands per second, per game.

Each hand is dealt from a seeded generator and played to its end by uniform random choice
among the legal moves, through the unchecked fast path (``Hand.apply_unchecked``) that
search code uses; a second figure plays whole hands through the checked ``Hand.apply``.
"""

from __future__ import annotations

import random
import time
from typing import Any

from dominolab.core import Deal, GameSpec


def random_hands_fast(spec: GameSpec, seconds: float, seed: int = 1) -> tuple[int, int, float]:
    """Play random hands through the fast path for about ``seconds``: (hands, moves, elapsed)."""
    rng = random.Random(seed)
    rand = rng.random
    cls = spec.hand_class
    options = spec.options_class()
    size = spec.hand_size
    hands = moves = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            hand = cls(Deal.shuffle(rng, size), hands & 1, options)
            while hand.result is None:
                legal = hand.legal_moves()
                hand.apply_unchecked(legal[int(rand() * len(legal))])
                moves += 1
            hands += 1
        now = time.perf_counter()
        if now >= deadline:
            return hands, moves, now - start


def random_hands_checked(spec: GameSpec, seconds: float, seed: int = 1) -> tuple[int, float]:
    """The same through the checked ``apply`` (legality checks and a Step per move)."""
    rng = random.Random(seed)
    cls = spec.hand_class
    options = spec.options_class()
    hands = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(50):
            hand = cls(Deal.shuffle(rng, spec.hand_size), hands & 1, options)
            while hand.result is None:
                legal = hand.legal_moves()
                hand.apply(legal[int(rng.random() * len(legal))])
            hands += 1
        now = time.perf_counter()
        if now >= deadline:
            return hands, now - start


def measure_engine(spec: GameSpec, seconds: float) -> dict[str, Any]:
    """One game's figures: hands and moves per second through the fast path for about
    ``seconds``, and hands per second through the checked path for a third of that."""
    hands, moves, elapsed = random_hands_fast(spec, seconds)
    checked, checked_elapsed = random_hands_checked(spec, max(seconds / 3, 0.2))
    return {
        "hands_per_s": round(hands / elapsed, 1),
        "moves_per_s": round(moves / elapsed, 1),
        "moves_per_hand": round(moves / hands, 2),
        "checked_hands_per_s": round(checked / checked_elapsed, 1),
        "hands": hands,
    }


__all__ = ["measure_engine", "random_hands_checked", "random_hands_fast"]
