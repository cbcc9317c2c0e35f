"""The lab's speed: greedy-against-greedy matches per second through the one play loop of
``dominolab simulate`` (:func:`dominolab.lab.simulate.match_lines`, a match played and
written as its lines), on the pure-Python path and on the native fast path, side by side in
one run on one core. The two runs play the same matches, and their lines must be identical:
the same seed gives the same file on either path."""

from __future__ import annotations

import time
from typing import Any

from dominolab import native
from dominolab.core import GameSpec
from dominolab.lab.simulate import make_setup, match_lines


def bench_simulate(spec: GameSpec, seconds: float, seed: int = 1) -> dict[str, Any]:
    """Greedy matches on the pure-Python path for about ``seconds``; then the same matches
    on the native path when it is in use: matches per second on each, their ratio, and
    whether every line came out the same."""
    setup = make_setup(spec.name, ("greedy", "greedy"), seed=seed)
    texts: list[str] = []
    with native.pure():
        start = time.perf_counter()
        deadline = start + seconds
        while not texts or time.perf_counter() < deadline:
            texts.append(match_lines(setup, len(texts)))
        python_s = time.perf_counter() - start
    out: dict[str, Any] = {"matches": len(texts),
                           "python_matches_per_s": round(len(texts) / python_s, 1)}
    if native.enabled():
        start = time.perf_counter()
        fast = [match_lines(setup, i) for i in range(len(texts))]
        native_s = time.perf_counter() - start
        out["native_matches_per_s"] = round(len(texts) / native_s, 1)
        out["native_over_python"] = round(python_s / native_s, 1)
        out["identical"] = fast == texts
    return out


__all__ = ["bench_simulate"]
