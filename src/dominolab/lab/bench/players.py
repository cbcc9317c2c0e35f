"""The expert's speed on one core: decisions and search iterations per second at a fixed
budget, on fixed positions from greedy self-play (its search alone, without its model of
the opponent's choices)."""

from __future__ import annotations

import random
import time

from dominolab.core import GameSpec, Match, View
from dominolab.players import Budget, ExpertPlayer, GreedyPlayer
from dominolab.players.hints import distinct

#: the expert's budget per decision, in iterations (one sampled world and one playout each)
ITERATIONS = 1000


def bench_positions(spec: GameSpec, count: int, seed: int = 1) -> list[View]:
    """``count`` decision points (more than one legal move) from greedy self-play matches,
    the same on every run."""
    greedy = GreedyPlayer()
    views: list[View] = []
    match_seed = seed
    while len(views) < count:
        match = Match(spec, seed=match_seed)
        while not match.is_over and len(views) < count:
            view = match.view(match.hand.to_move)
            if len(view.legal_moves) > 1:
                views.append(view)
            match.apply(greedy.choose(view))
        match_seed += 1
    return views


def bench_expert(spec: GameSpec, seconds: float,
                 iterations: int = ITERATIONS) -> dict[str, float]:
    """The expert at a fixed budget of ``iterations`` (one sampled world and one playout
    each) on fixed positions, for about ``seconds``: decisions and iterations per second."""
    views = bench_positions(spec, 200)
    player = ExpertPlayer(random.Random(1), reading=False)  # the search alone
    budget = Budget(worlds=iterations)
    decisions = searched = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        view = views[decisions % len(views)]
        values = player.analyse(view, budget)
        decisions += 1
        # equivalent moves share their class's visits: count each class once
        searched += sum(v.worlds for v in distinct(values, view))
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": round(decisions / elapsed, 2),
            "iterations_per_s": round(searched / elapsed, 1),
            "seconds_per_decision": round(elapsed / decisions, 4),
            "iterations_per_decision": iterations, "decisions": decisions}


__all__ = ["ITERATIONS", "bench_expert", "bench_positions"]
