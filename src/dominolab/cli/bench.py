"""``dominolab bench engine|players``: the engine's and the expert's speed, on one core.

``engine``: random full hands per second, per game. ``players``: the expert's decisions and
search iterations per second at a fixed budget, on fixed positions from greedy self-play.

Each hand is dealt from a seeded generator and played to its end by uniform random choice
among the legal moves, through the unchecked fast path (``Hand.apply_unchecked``) that
search code uses; a second figure plays whole hands through the checked ``Hand.apply``.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sys
import time
from typing import Any

from dominolab.core import GAMES, Deal, GameSpec, Match, View, get_game
from dominolab.players import Budget, ExpertPlayer, GreedyPlayer


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


def bench_expert(spec: GameSpec, seconds: float, iterations: int = 1000) -> dict[str, float]:
    """The expert at a fixed budget of ``iterations`` (one sampled world and one playout
    each) on fixed positions, for about ``seconds``: decisions and iterations per second."""
    views = bench_positions(spec, 200)
    player = ExpertPlayer(random.Random(1))
    budget = Budget(worlds=iterations)
    decisions = searched = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        values = player.analyse(views[decisions % len(views)], budget)
        decisions += 1
        searched += sum(v.worlds for v in values)
    elapsed = time.perf_counter() - start
    return {"decisions_per_s": round(decisions / elapsed, 2),
            "iterations_per_s": round(searched / elapsed, 1),
            "seconds_per_decision": round(elapsed / decisions, 4),
            "iterations_per_decision": iterations, "decisions": decisions}


def run_bench(args: argparse.Namespace) -> int:
    if args.seconds is None:
        args.seconds = 10.0 if args.what == "serve" else 3.0
    if args.seconds <= 0:
        print("dominolab bench: --seconds must be positive", file=sys.stderr)
        return 2
    games = [get_game(g).name for g in args.game] if args.game else list(GAMES)
    if args.what == "serve":
        from dominolab.cli import bench_serve

        if any(n < 1 for n in args.games or []) or args.think < 0 \
                or args.computer_games < 0:
            print("dominolab bench: --games must be positive, and --think and "
                  "--computer-games not negative", file=sys.stderr)
            return 2
        return bench_serve.run(args.games or [50, 200], args.seconds, args.think,
                               games[0] if args.game else "luzak", args.json,
                               abuse=args.abuse, computer_games=args.computer_games)
    if args.what == "players":
        return _bench_players(args, games)
    if args.what == "openspiel":
        from dominolab.cli.bench_openspiel import run

        return run(args.seconds, args.json)
    results: dict[str, Any] = {}
    if not args.json:
        print(f"random full hands on one core, {args.seconds:g} s per game "
              f"(Python {platform.python_version()}, {platform.machine()})")
    for name in games:
        spec = GAMES[name]
        hands, moves, elapsed = random_hands_fast(spec, args.seconds)
        checked, checked_elapsed = random_hands_checked(spec, max(args.seconds / 3, 0.2))
        results[name] = {
            "hands_per_s": round(hands / elapsed, 1),
            "moves_per_s": round(moves / elapsed, 1),
            "moves_per_hand": round(moves / hands, 2),
            "checked_hands_per_s": round(checked / checked_elapsed, 1),
            "hands": hands,
        }
        if not args.json:
            r = results[name]
            print(f"  {name:<11} {r['hands_per_s']:>10,.0f} hands/s  "
                  f"({r['moves_per_s']:,.0f} moves/s, {r['moves_per_hand']} moves a hand; "
                  f"checked apply: {r['checked_hands_per_s']:,.0f} hands/s)", flush=True)
    if args.json:
        print(json.dumps(results))
    return 0


def _bench_players(args: argparse.Namespace, games: list[str]) -> int:
    results: dict[str, Any] = {}
    if not args.json:
        print(f"the expert (ISMCTS) at a fixed budget of 1000 iterations on one core, "
              f"{args.seconds:g} s per game (Python {platform.python_version()}, "
              f"{platform.machine()})")
    for name in games:
        results[name] = r = bench_expert(GAMES[name], args.seconds)
        if not args.json:
            print(f"  {name:<11} {r['decisions_per_s']:>7,.1f} decisions/s  "
                  f"{r['iterations_per_s']:>9,.0f} iterations/s (a sampled world and a "
                  f"playout each; {r['seconds_per_decision'] * 1000:.0f} ms a decision)",
                  flush=True)
    if args.json:
        print(json.dumps(results))
    return 0
