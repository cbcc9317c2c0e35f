"""``dominolab bench engine|players|simulate|openspiel|serve|review|study``: the benchmarks of
:mod:`dominolab.lab.bench`, printed.

``engine``: random full hands per second, per game, on one core, on the pure-Python and the
native path side by side (``--check N``: N native hands per game replayed through the
reference rules instead). ``players``: the expert's decisions and search iterations per
second at a fixed budget, on fixed positions from greedy self-play, on both paths.
``simulate``: greedy matches per second through simulate's play loop, on both paths, with
their lines compared. ``openspiel``: random games through the OpenSpiel adapter, the engine and
OpenSpiel's ``python_block_dominoes`` side by side. ``serve``: many games at once against a
real server over WebSocket, the time from a move to the opponent's update. ``review``: the
time from a match's end to its review being ready (:mod:`dominolab.lab.bench.review`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from dominolab import native
from dominolab.cli.progress import Progress
from dominolab.core import GAMES, get_game


def run_bench(args: argparse.Namespace) -> int:
    if args.seconds is None:
        args.seconds = 10.0 if args.what == "serve" else 3.0
    games = [get_game(g).name for g in args.game] if args.game else list(GAMES)
    if args.what == "serve":
        return _bench_serve(args.games or [50, 200], args.seconds, args.think,
                            games[0] if args.game else "luzak", args.json,
                            abuse=args.abuse, computer_games=args.computer_games,
                            level=args.computer_level, servers=args.servers, db=args.db,
                            sources=args.server_src or [], proxy=args.proxy,
                            backups=args.backups, study=args.study,
                            study_player=args.study_player)
    if args.what == "players":
        return _bench_players(args, games)
    if args.what == "simulate":
        return _bench_simulate(args, games)
    if args.what == "openspiel":
        return _bench_openspiel(args.seconds, args.json)
    if args.what == "review":
        return _bench_review(games, args.json)
    if args.what == "study":
        return _bench_study(args.json, args.study)
    if args.check is not None:
        return _check_engine(args, games)
    from dominolab.lab.bench.engine import measure_engine

    results: dict[str, Any] = {}
    if not args.json:
        print(f"random full hands on one core, {args.seconds:g} s per game and path "
              f"({_machine()})")
    for name in games:
        results[name] = r = measure_engine(GAMES[name], args.seconds)
        if not args.json:
            line = (f"  {name:<11} python {r['hands_per_s']:>10,.0f} hands/s "
                    f"({r['moves_per_hand']} moves a hand; checked apply "
                    f"{r['checked_hands_per_s']:,.0f} hands/s)")
            if "native" in r:
                line += (f"\n  {'':<11} native {r['native']['hands_per_s']:>10,.0f} hands/s "
                         f"= {r['native_over_python']:,.1f}x the Python path")
            print(line, flush=True)
    if args.json:
        print(json.dumps(results))
    return 0


def _machine() -> str:
    return (f"Python {platform.python_version()}, {platform.machine()}; "
            f"engine: {native.status()}")


def _check_engine(args: argparse.Namespace, games: list[str]) -> int:
    """``bench engine --check N``: N native random hands per game replayed through the
    reference rules; 1 if any mismatch, 2 without the native path."""
    if not native.enabled():
        print(f"dominolab bench engine --check: there is no native path to check "
              f"({native.status()})", file=sys.stderr)
        return 2
    from dominolab.native.check import check_hands

    results: dict[str, Any] = {}
    failed = False
    for name in games:
        spec = GAMES[name]
        bar = Progress(f"{name} hands")
        start = time.perf_counter()
        try:
            result = check_hands(spec, spec.options_class(), args.check, seed=args.check_seed,
                                 progress=None if args.json else _progress(bar, args.check))
        finally:
            bar.close()
        seconds = time.perf_counter() - start
        failed = failed or bool(result.mismatches)
        results[name] = {"hands": result.hands, "moves": result.moves,
                         "mismatches": len(result.mismatches),
                         "examples": list(result.mismatches[:5]),
                         "seconds": round(seconds, 1)}
        if not args.json:
            print(f"  {name:<11} {result.hands:,} native hands ({result.moves:,} moves) "
                  f"replayed through the reference rules: {len(result.mismatches)} "
                  f"mismatches ({seconds:.0f} s)", flush=True)
            for example in result.mismatches[:5]:
                print(f"      {example}")
    if args.json:
        print(json.dumps(results))
    return 1 if failed else 0


def _progress(bar: Progress, total: int) -> Callable[[int], None]:
    return lambda done: bar(done, total)


def _bench_players(args: argparse.Namespace, games: list[str]) -> int:
    from dominolab.lab.bench.players import ITERATIONS, bench_expert

    results: dict[str, Any] = {}
    if not args.json:
        print(f"the expert (ISMCTS) at a fixed budget of {ITERATIONS} iterations on one core, "
              f"{args.seconds:g} s per game and path ({_machine()})")
    for name in games:
        with native.pure():
            slow = bench_expert(GAMES[name], args.seconds)
        results[name] = r = dict[str, Any](slow)
        rows = [("python", slow)]
        if native.enabled():
            r["native"] = fast = bench_expert(GAMES[name], args.seconds)
            r["native_over_python"] = round(fast["iterations_per_s"] / slow["iterations_per_s"], 1)
            rows.append(("native", fast))
        if not args.json:
            for i, (path, row) in enumerate(rows):
                print(f"  {name if i == 0 else '':<11} {path:<6} "
                      f"{row['decisions_per_s']:>7,.1f} decisions/s "
                      f"{row['iterations_per_s']:>10,.0f} iterations/s (a sampled world and "
                      f"a playout each; {row['seconds_per_decision'] * 1000:.1f} ms a decision)"
                      + (f" = {r['native_over_python']:,.1f}x" if i else ""), flush=True)
    if args.json:
        print(json.dumps(results))
    return 0


def _bench_simulate(args: argparse.Namespace, games: list[str]) -> int:
    from dominolab.lab.bench.simulate import bench_simulate

    results: dict[str, Any] = {}
    if not args.json:
        print(f"greedy against greedy through the play loop of `dominolab simulate`, on one "
              f"core: the Python path for {args.seconds:g} s, then the same matches on the "
              f"native path ({_machine()})")
    differ = False
    for name in games:
        results[name] = r = bench_simulate(GAMES[name], args.seconds)
        differ = differ or r.get("identical") is False
        if not args.json:
            line = (f"  {name:<11} python {r['python_matches_per_s']:>8,.1f} matches/s "
                    f"({r['matches']} matches)")
            if "native_matches_per_s" in r:
                line += (f"; native {r['native_matches_per_s']:>8,.1f} matches/s = "
                         f"{r['native_over_python']:,.1f}x; the same lines: "
                         f"{'yes' if r['identical'] else 'NO'}")
            print(line, flush=True)
    if args.json:
        print(json.dumps(results))
    return 1 if differ else 0


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


def _bench_review(games: list[str], json_out: bool) -> int:
    from dominolab.lab.bench.review import measure_review

    results: dict[str, Any] = {}
    if not json_out:
        print(f"a match's review, random moves, through the server's game service and its "
              f"pool of 2 workers ({_machine()})")
    for name in games:
        results[name] = r = measure_review(name)
        if not json_out:
            print(f"  {name:<11} {r['hands']} hands, {r['choices']} choices: review ready "
                  f"{r['ready_s']:.2f} s after the match's end (each hand's at most "
                  f"{r['hand_s_max']:.2f} s after it); a replay's, all at once: "
                  f"{r['cold_s']:.2f} s ({r['cold_choices']} choices)", flush=True)
    if json_out:
        print(json.dumps(results))
    return 0


def _redacted(url: str) -> str:
    from dominolab.web.storage.pg import redact

    return redact(url)


def _print_serve_run(result: dict[str, Any]) -> None:
    if result["source"] is not None:
        print(f"  the server from {result['source']}:")
    if result.get("proxy") is not None:
        print(f"  through {result['proxy']}:")
    print(f"  N={result['games']:<4} friend games: {result['moves']:>6} moves "
          f"({result['moves_per_s']:,.0f}/s)  move -> opponent's update: p50 "
          f"{result['p50_ms']} ms, p99 {result['p99_ms']} ms, max {result['max_ms']} ms;  "
          f"errors {result['errors']}, lost moves {result['lost_moves']}", flush=True)
    if result["server_cpu_ms_per_move"] is not None:
        print(f"         processor time per move: servers {result['server_cpu_ms_per_move']} ms"
              f", their workers {result['workers_cpu_ms_per_move']} ms, database "
              f"{result['database_cpu_ms_per_move']} ms", flush=True)
    for example in result["error_examples"]:
        print(f"      e.g. {example}")
    if "computer" in result:
        c = result["computer"]
        reply = c["computer_reply"]
        verdict = {None: "no reply measured", True: "met", False: "MISSED"}[c["target_met"]]
        print(f"         vs the {c['opponent']} computer ({c['games']} games): {c['moves']} moves, "
              f"{reply['count']} replies  move -> computer's reply: p50 {reply['p50_ms']} ms, "
              f"p99 {reply['p99_ms']} ms, max {reply['max_ms']} ms;  errors {c['errors']}, "
              f"unanswered {c['unanswered']}  (target {c['target']}: {verdict})", flush=True)
        for example in c["error_examples"]:
            print(f"      e.g. {example}")
    if "backups" in result:
        b = result["backups"]
        print(f"         with `dominolab backup` running all along: {b['made']} backups made "
              f"(each p50 {b['p50_ms']} ms, max {b['max_ms']} ms), {b['failed']} failed",
              flush=True)
        for example in b["failure_examples"]:
            print(f"      e.g. {example}")
    if "study" in result:
        st = result["study"]
        ran = "still running as the moves stopped" if st["ended_after_s"] is None \
            else f"{st['state_at_end']} after {st['ended_after_s']} s"
        print(f"         with a study beside: {st['played']:,} of {st['matches']:,} "
              f"{st['players'][0]} matches played ({st['matches_per_s']}/s), {ran}",
              flush=True)
        for example in st["failure_examples"]:
            print(f"      e.g. {example}")
    if "abuse" in result:
        a = result["abuse"]
        by = a["by_status"]
        print(f"         abuser: {a['requests']} requests ({a['requests_per_s']:,.0f}/s): "
              f"201 {by['201']}, 200 {by['200']}, 429 {by['429']}, other {by['other']} "
              f"{a['other_statuses']}, connection errors {a['connection_errors']}; games "
              f"accepted {a['games_accepted']}", flush=True)


def _bench_serve(games: list[int], seconds: float, think: float, game: str, as_json: bool,
                 abuse: bool = False, computer_games: int = 10, level: str = "easy",
                 servers: int = 1, db: str | None = None,
                 sources: Sequence[Path] = (), proxy: str | None = None,
                 backups: bool = False, study: int | None = None,
                 study_player: str | None = None) -> int:
    from dominolab.lab.bench.serve import (
        ABUSE_CONNECTIONS,
        ABUSER,
        STUDY_P99_TARGET_MS,
        failed,
        run_serve_bench,
        source_tree,
        study_pairs,
    )
    from dominolab.lab.bench.study import STUDY_PLAYER, study_body

    if study_player is not None and study is None:
        print("dominolab bench serve: --study-player needs --study MATCHES",
              file=sys.stderr)
        return 2
    player = study_player or STUDY_PLAYER
    if study is not None:
        refusal = _study_refusal(study_body(game, study, player))
        if refusal is not None:
            print(f"dominolab bench serve: --study: {refusal}", file=sys.stderr)
            return 2

    for source in sources:
        try:
            source_tree(source)
        except ValueError as exc:
            print(f"dominolab bench serve: --server-src: {exc}", file=sys.stderr)
            return 2

    if proxy is not None:
        from dominolab.web.edge.nginx import INSTALL, NGINX, find_nginx

        if find_nginx() is None:
            print(f"dominolab bench serve: --proxy nginx needs nginx, and there is none at "
                  f"{NGINX} or on the PATH: {INSTALL}", file=sys.stderr)
            return 2
    if db is None and servers != 1:
        print("dominolab bench serve: --servers needs --db postgresql://...: several "
              "servers share a PostgreSQL database (an SQLite file serves one)",
              file=sys.stderr)
        return 2
    if db is not None and not db.startswith(("postgresql://", "postgres://")):
        print(f"dominolab bench serve: --db takes a PostgreSQL URL (postgresql://USER@HOST/"
              f"DB), not {db!r}; without it the bench uses a fresh SQLite file",
              file=sys.stderr)
        return 2

    def start() -> None:
        where = "one server process" if db is None else \
            f"{servers} server process{'es' if servers > 1 else ''} on PostgreSQL, each " \
            f"game's two seats on different ones, then one on SQLite"
        if proxy is not None:
            print(f"each run straight to the servers, then through {proxy} in front of "
                  f"them (the servers believing its X-Forwarded-For both times)")
        if sources:
            print(f"each run against this server, then against "
                  f"{', '.join(str(source_tree(s)) for s in sources)}")
        print(f"{game}: N friend games at once, each seat a scripted WebSocket client "
              f"thinking {think:g} s a move on average, {seconds:g} s a run; {where}, "
              f"on loopback ({os.cpu_count()} cores shared with the clients)")
        if computer_games:
            print(f"  and {computer_games} games against the {level} computer (delay 0), "
                  f"the person a scripted client like the others, each from an address "
                  f"of its own: move -> the computer's reply")
        if study is not None:
            print(f"  each run twice on fresh servers: without, then with a study of "
                  f"{study:,} {player} matches started beside the games as the first move "
                  f"may go (target: friend games' p99 < {STUDY_P99_TARGET_MS:g} ms with it)")
        if abuse:
            print(f"  and all along, one abusive client from {ABUSER} creating \"hard, "
                  f"computer opens\" games and asking for hints on them over "
                  f"{ABUSE_CONNECTIONS} connections as fast as it can")

    def setup(backend: str, count: int) -> None:
        if db is not None:
            print(f" {backend}, {count} server process{'es' if count > 1 else ''}:",
                  flush=True)

    try:
        results = run_serve_bench(games, seconds, think, game, abuse=abuse,
                                  computer_games=computer_games, level=level,
                                  on_start=None if as_json else start,
                                  on_run=None if as_json else _print_serve_run,
                                  servers=servers, db=db,
                                  on_setup=None if as_json else setup,
                                  sources=[None, *sources], proxy=proxy,
                                  backups=backups, study=study, study_player=player)
    except RuntimeError as exc:  # a server or nginx that did not start: its output says why
        print(f"dominolab bench serve: {exc}", file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps({"game": game, "think_s": think, "seconds": seconds,
                          "abuse": abuse, "computer_games": computer_games,
                          "computer_level": level, "servers": servers, "proxy": proxy,
                          "backups": backups, "study": study,
                          "study_player": None if study is None else player,
                          "study_pairs": study_pairs(results),
                          "sources": [None, *(str(source_tree(s)) for s in sources)],
                          "db": None if db is None else _redacted(db),
                          "runs": results}, indent=2))
    elif study is not None:
        _print_study_pairs(study_pairs(results))
    return 1 if failed(results) else 0


def _study_refusal(body: dict[str, Any]) -> str | None:
    """Why a server with the lab's default limits would refuse the study ``body`` (the
    field at fault, in its words), or None."""
    from dominolab.web.errors import ApiError
    from dominolab.web.limits import Limits
    from dominolab.web.studies.params import parse_study

    try:
        parse_study(body, Limits().lab_matches_per_study)
    except ApiError as exc:
        return exc.message
    return None


def _print_study_pairs(pairs: list[dict[str, Any]]) -> None:
    print("friend games' p99 move -> opponent's update, without and with the study beside:")
    for pair in pairs:
        verdict = {None: "nothing measured", True: "met", False: "MISSED"}[pair["target_met"]]
        ran = "all along" if pair["study_ran_whole_window"] else "ended before the moves"
        where = "" if pair["source"] is None else f" (the server from {pair['source']})"
        if pair["proxy"] is not None:
            where += f" (through {pair['proxy']})"
        print(f"  N={pair['games']:<4}{where} {pair['p99_without_ms']} ms without, "
              f"{pair['p99_with_ms']} ms with ({pair['ratio']}x; the study played "
              f"{pair['study_played']:,} matches, {ran}); target < "
              f"{pair['target_ms']:g} ms: {verdict}", flush=True)


def _bench_study(json_out: bool, matches: int | None) -> int:
    """A study of ``matches`` greedy Luzak matches (10,000, the target's size, when None)
    from its POST to its report ready; the target is printed for that size only."""
    from dominolab.lab.bench.study import STUDY_PLAYER, measure_study, study_body

    size = 10_000 if matches is None else matches
    refusal = _study_refusal(study_body("luzak", size, STUDY_PLAYER))
    if refusal is not None:
        print(f"dominolab bench study: --study: {refusal}", file=sys.stderr)
        return 2
    if not json_out:
        print(f"a study of {size:,} greedy Luzak matches on a real server, from POST "
              "/api/studies to its report ready:", flush=True)
    r = measure_study(size)
    if json_out:
        print(json.dumps(r))
    else:
        print(f"  played in {r['played_s']:.2f} s ({r['matches_per_s']:.0f} matches/s), "
              f"report {r['report_s']:.2f} s later: {r['total_s']:.2f} s in all"
              + (" (target: 15 s)" if size == 10_000 else ""))
    return 0
