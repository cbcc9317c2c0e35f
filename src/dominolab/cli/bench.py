"""``dominolab bench engine|players|openspiel|serve``: the benchmarks of
:mod:`dominolab.lab.bench`, printed.

``engine``: random full hands per second, per game, on one core. ``players``: the expert's
decisions and search iterations per second at a fixed budget, on fixed positions from greedy
self-play. ``openspiel``: random games through the OpenSpiel adapter, the engine and
OpenSpiel's ``python_block_dominoes`` side by side. ``serve``: many games at once against a
real server over WebSocket, the time from a move to the opponent's update.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from typing import Any

from dominolab.core import GAMES, get_game


def run_bench(args: argparse.Namespace) -> int:
    if args.seconds is None:
        args.seconds = 10.0 if args.what == "serve" else 3.0
    games = [get_game(g).name for g in args.game] if args.game else list(GAMES)
    if args.what == "serve":
        return _bench_serve(args.games or [50, 200], args.seconds, args.think,
                            games[0] if args.game else "luzak", args.json,
                            abuse=args.abuse, computer_games=args.computer_games)
    if args.what == "players":
        return _bench_players(args, games)
    if args.what == "openspiel":
        return _bench_openspiel(args.seconds, args.json)
    from dominolab.lab.bench.engine import measure_engine

    results: dict[str, Any] = {}
    if not args.json:
        print(f"random full hands on one core, {args.seconds:g} s per game "
              f"(Python {platform.python_version()}, {platform.machine()})")
    for name in games:
        results[name] = r = measure_engine(GAMES[name], args.seconds)
        if not args.json:
            print(f"  {name:<11} {r['hands_per_s']:>10,.0f} hands/s  "
                  f"({r['moves_per_s']:,.0f} moves/s, {r['moves_per_hand']} moves a hand; "
                  f"checked apply: {r['checked_hands_per_s']:,.0f} hands/s)", flush=True)
    if args.json:
        print(json.dumps(results))
    return 0


def _bench_players(args: argparse.Namespace, games: list[str]) -> int:
    from dominolab.lab.bench.players import ITERATIONS, bench_expert

    results: dict[str, Any] = {}
    if not args.json:
        print(f"the expert (ISMCTS) at a fixed budget of {ITERATIONS} iterations on one core, "
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


def _bench_openspiel(seconds: float, json_out: bool) -> int:
    """Print the figures (``json_out``: one JSON object). 2 if OpenSpiel is missing."""
    from dominolab.lab.bench.openspiel import REFERENCE, have_openspiel, measure

    if not have_openspiel():
        print("dominolab bench openspiel: OpenSpiel is not installed; install the extra "
              "with: pip install 'dominolab[openspiel]'", file=sys.stderr)
        return 2
    if not json_out:
        print(f"random games (one hand each) on one core, {seconds:g} s per figure "
              f"(Python {platform.python_version()}, {platform.machine()})", flush=True)
    results = measure(seconds)
    if json_out:
        print(json.dumps(results))
        return 0
    ref = results[REFERENCE]
    print(f"  {REFERENCE:<22} {ref['games_per_s']:>9,.0f} games/s "
          f"({ref['steps_per_game']} steps a game)")
    for short, r in results.items():
        if short == REFERENCE:
            continue
        print(f"  {short:<22} {r['games_per_s']:>9,.0f} games/s through OpenSpiel "
              f"({r['steps_per_game']} steps a game, chance included); engine directly "
              f"{r['engine_games_per_s']:,.0f} games/s = {r['engine_over_adapter']:.1f}x; "
              f"vs block dominoes {r['adapter_over_block_dominoes']:.2f}x")
    return 0


def _print_serve_run(result: dict[str, Any]) -> None:
    print(f"  N={result['games']:<4} friend games: {result['moves']:>6} moves "
          f"({result['moves_per_s']:,.0f}/s)  move -> opponent's update: p50 "
          f"{result['p50_ms']} ms, p99 {result['p99_ms']} ms, max {result['max_ms']} ms;  "
          f"errors {result['errors']}, lost moves {result['lost_moves']}", flush=True)
    for example in result["error_examples"]:
        print(f"      e.g. {example}")
    if "computer" in result:
        c = result["computer"]
        reply = c["computer_reply"]
        verdict = {None: "no reply measured", True: "met", False: "MISSED"}[c["target_met"]]
        print(f"         vs the easy computer ({c['games']} games): {c['moves']} moves, "
              f"{reply['count']} replies  move -> computer's reply: p50 {reply['p50_ms']} ms, "
              f"p99 {reply['p99_ms']} ms, max {reply['max_ms']} ms;  errors {c['errors']}, "
              f"unanswered {c['unanswered']}  (target p99 < {c['target_p99_ms']:g} ms: "
              f"{verdict})", flush=True)
        for example in c["error_examples"]:
            print(f"      e.g. {example}")
    if "abuse" in result:
        a = result["abuse"]
        by = a["by_status"]
        print(f"         abuser: {a['requests']} requests ({a['requests_per_s']:,.0f}/s): "
              f"201 {by['201']}, 200 {by['200']}, 429 {by['429']}, other {by['other']} "
              f"{a['other_statuses']}, connection errors {a['connection_errors']}; games "
              f"accepted {a['games_accepted']}", flush=True)


def _bench_serve(games: list[int], seconds: float, think: float, game: str, as_json: bool,
                 abuse: bool = False, computer_games: int = 10) -> int:
    from dominolab.lab.bench.serve import (
        ABUSE_CONNECTIONS,
        ABUSER,
        COMPUTER_REPLY_TARGET_MS,
        failed,
        run_serve_bench,
    )

    def start() -> None:
        print(f"{game}: N friend games at once, each seat a scripted WebSocket client "
              f"thinking {think:g} s a move on average, {seconds:g} s a run; one "
              f"server process on loopback ({os.cpu_count()} cores shared with the "
              f"clients)")
        if computer_games:
            print(f"  and {computer_games} games against the easy computer (delay 0), "
                  f"the person a scripted client like the others, each from an address "
                  f"of its own: move -> the computer's reply")
        if abuse:
            print(f"  and all along, one abusive client from {ABUSER} creating \"hard, "
                  f"computer opens\" games and asking for hints on them over "
                  f"{ABUSE_CONNECTIONS} connections as fast as it can")

    results = run_serve_bench(games, seconds, think, game, abuse=abuse,
                              computer_games=computer_games,
                              on_start=None if as_json else start,
                              on_run=None if as_json else _print_serve_run)
    if as_json:
        print(json.dumps({"game": game, "think_s": think, "seconds": seconds,
                          "abuse": abuse, "computer_games": computer_games,
                          "computer_reply_target_p99_ms": COMPUTER_REPLY_TARGET_MS,
                          "runs": results}, indent=2))
    return 1 if failed(results) else 0
