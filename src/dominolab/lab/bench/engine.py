"""The engine's speed on one core: random full hands per second, per game.

Each hand is dealt from a seeded generator and played to its end by uniform random choice
among the legal moves, through the unchecked path (``Hand.apply_unchecked``) that search
code uses on the pure-Python path; a second figure plays whole hands through the checked
``Hand.apply``. Where the native fast path is built, the same is measured on it in the same
run (:func:`dominolab.native.bench_random_hands`), and the ratio is given.
"""

from __future__ import annotations

import random
import time
from typing import Any

from dominolab import native
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
    """One game's figures, side by side in one run: hands and moves per second on the
    pure-Python fast path for about ``seconds`` (and through the checked path for a third of
    that), then, when it is in use, on the native fast path for as long; ``native_over_python``
    is the ratio of the two hands-per-second figures."""
    hands, moves, elapsed = random_hands_fast(spec, seconds)
    checked, checked_elapsed = random_hands_checked(spec, max(seconds / 3, 0.2))
    out: dict[str, Any] = {
        "hands_per_s": round(hands / elapsed, 1),
        "moves_per_s": round(moves / elapsed, 1),
        "moves_per_hand": round(moves / hands, 2),
        "checked_hands_per_s": round(checked / checked_elapsed, 1),
        "hands": hands,
    }
    if native.enabled():
        n_hands, n_moves, n_elapsed = native.bench_random_hands(spec, seconds)
        out["native"] = {
            "hands_per_s": round(n_hands / n_elapsed, 1),
            "moves_per_s": round(n_moves / n_elapsed, 1),
            "moves_per_hand": round(n_moves / n_hands, 2),
            "hands": n_hands,
        }
        out["native_over_python"] = round(n_hands / n_elapsed / (hands / elapsed), 1)
    return out


__all__ = ["measure_engine", "random_hands_checked", "random_hands_fast"]
