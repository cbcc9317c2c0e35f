"""``dominolab bench serve``: many games at once against a real server, over WebSocket.

A real ``dominolab serve`` is started in its own process on loopback, with a fresh
database. For each run, N friend games are created over HTTP and each seat is played by a
scripted client over its own WebSocket: when its state says it is to move, it waits the
think time, then sends a random legal move with the version it saw. The time measured is
from a move sent to the *opponent's* client receiving the state with that move. Errors are
error messages, refused moves and dropped sockets; a lost move is one the server accepted
(or never answered) whose update the opponent never received, or a final server version
that disagrees with the moves the clients made.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dominolab.arena import percentile
from dominolab.web.process import ServerProcess, request_json


@dataclass
class GameRun:
    """The clients' bookkeeping of one game."""

    id: str
    tokens: tuple[str, str]
    #: version a move was chosen at -> when it was sent
    sent: dict[int, float] = field(default_factory=dict)
    received: set[int] = field(default_factory=set)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    last_version: int = 0
    over: bool = False


async def _seat(run: GameRun, seat: int, ws_url: str, think: float, rng: random.Random,
                ready: list[int], go: asyncio.Event, stop: asyncio.Event) -> None:
    """One scripted seat: reads every update; on its turn, thinks, then moves."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    async with connect(ws_url, max_size=2**22, open_timeout=60) as ws:
        await ws.send(json.dumps({"type": "hello", "token": run.tokens[seat],
                                  "layout": "wide"}))
        latest: list[dict[str, Any]] = []
        acted = [-1]

        async def move_later(state: dict[str, Any]) -> None:
            await asyncio.sleep(think * (0.5 + rng.random()))
            if stop.is_set():
                return
            version = state["version"]
            run.sent[version] = time.perf_counter()
            await ws.send(json.dumps({"type": "move", "version": version,
                                      "move": rng.choice(state["legal"])["move"]}))

        def maybe_move() -> None:
            state = latest[-1]
            if (go.is_set() and state["to_move"] == seat and state["version"] > acted[0]
                    and state["legal"]):
                acted[0] = state["version"]
                asyncio.get_running_loop().create_task(move_later(state))

        async def on_go() -> None:
            await go.wait()
            maybe_move()

        starter = asyncio.get_running_loop().create_task(on_go())
        try:
            async for text in ws:
                now = time.perf_counter()
                message = json.loads(text)
                if message.get("type") != "state":
                    run.errors.append(f"seat {seat}: {message}")
                    continue
                state = message["state"]
                if not latest:
                    ready[0] += 1
                latest[:] = [state]
                # the update of the move made at version - 1, if the opponent made it
                made = state["version"] - 1
                if made in run.sent and made not in run.received:
                    history = state["history"] or state["previous_hand"]["history"]
                    if history[-1]["seat"] != seat:
                        run.received.add(made)
                        run.latencies.append(now - run.sent[made])
                if state["match_result"] is not None:
                    run.over = True
                maybe_move()
        except ConnectionClosed as exc:
            if exc.rcvd is None or exc.rcvd.code != 1000:
                raise
        finally:
            starter.cancel()


async def _run(base: str, games: int, seconds: float, think: float, game: str,
               seed: int) -> dict[str, Any]:
    runs: list[GameRun] = []
    for _ in range(games):
        created = await asyncio.to_thread(request_json, base, "POST", "/api/games",
                                          {"game": game, "opponent": "friend", "first": "lot"})
        invite = created["invite"]
        runs.append(GameRun(created["id"], (created["token"], invite.split("#t=", 1)[1])))
    go = asyncio.Event()
    stop = asyncio.Event()
    ready = [0]
    ws_base = base.replace("http://", "ws://")
    rng = random.Random(seed)
    tasks = [
        asyncio.create_task(_seat(run, seat, f"{ws_base}/ws/games/{run.id}", think,
                                  random.Random(rng.random()), ready, go, stop))
        for run in runs for seat in (0, 1)
    ]
    # every client connected and holding its first state before the first move
    deadline = time.monotonic() + 60
    while ready[0] < 2 * games and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    go.set()
    started = time.perf_counter()
    await asyncio.sleep(seconds)
    stop.set()  # no new moves; let the last ones arrive
    await asyncio.sleep(min(2.0, think + 1.0))
    for task in tasks:
        task.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    results = [r for r in results if not isinstance(r, asyncio.CancelledError)]
    elapsed = time.perf_counter() - started
    errors = [f"client: {r!r}" for r in results if isinstance(r, BaseException)]
    lost = 0
    if ready[0] < 2 * games:
        errors.append(f"only {ready[0]} of {2 * games} clients connected within 60 s")
    for run in runs:
        errors.extend(run.errors)
        lost += len(set(run.sent) - run.received)
        final = await asyncio.to_thread(request_json, base, "GET", f"/api/games/{run.id}", None,
                                        run.tokens[0])
        if final["version"] != len(run.sent):
            lost += abs(final["version"] - len(run.sent))
    latencies = sorted(x * 1000 for run in runs for x in run.latencies)
    moves = sum(len(run.sent) for run in runs)
    return {
        "games": games, "moves": moves, "seconds": round(elapsed, 2),
        "moves_per_s": round(moves / elapsed, 1),
        "p50_ms": round(percentile(latencies, 50), 2) if latencies else None,
        "p99_ms": round(percentile(latencies, 99), 2) if latencies else None,
        "max_ms": round(latencies[-1], 2) if latencies else None,
        "errors": len(errors), "lost_moves": lost, "matches_finished": sum(r.over for r in runs),
        "error_examples": errors[:3],
    }


def run(games: list[int], seconds: float, think: float, game: str, as_json: bool) -> int:
    with tempfile.TemporaryDirectory(prefix="dominolab-bench-") as tmp, \
            ServerProcess(Path(tmp) / "bench.sqlite3") as server:
        base = server.base
        results = []
        if not as_json:
            print(f"{game}: N friend games at once, each seat a scripted WebSocket client "
                  f"thinking {think:g} s a move on average, {seconds:g} s a run; one "
                  f"server process on loopback ({os.cpu_count()} cores shared with the "
                  f"clients)")
        for n in games:
            with ThreadPoolExecutor(1) as pool:  # a loop of its own, whatever the caller's
                result = pool.submit(asyncio.run,
                                     _run(base, n, seconds, think, game, seed=n)).result()
            results.append(result)
            if not as_json:
                print(f"  N={n:<4} {result['moves']:>6} moves ({result['moves_per_s']:,.0f}/s)"
                      f"  move -> opponent's update: p50 {result['p50_ms']} ms, "
                      f"p99 {result['p99_ms']} ms, max {result['max_ms']} ms;  "
                      f"errors {result['errors']}, lost moves {result['lost_moves']}",
                      flush=True)
                for example in result["error_examples"]:
                    print(f"      e.g. {example}")
    if as_json:
        print(json.dumps({"game": game, "think_s": think, "seconds": seconds,
                          "runs": results}, indent=2))
    bad = any(r["errors"] or r["lost_moves"] for r in results)
    return 1 if bad else 0
