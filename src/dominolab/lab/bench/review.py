"""How soon a match's review is ready (docs/web.md, "Review"; issue 41's target: within 5 s
of the match's end on this machine class).

One friend match per game is played through the web server's own game service (its store
on a throwaway SQLite file, its compute pool of worker processes, the default review
budget), both seats making random legal moves, as fast as the service takes them. Seat 0
asks for its review after every hand, as the page does when a hand ends; the figure is the
time from the match's last move to seat 0's review of the whole match being ready. Seat
1's review, asked for only once the match is over (a finished match's replay that nobody
reviewed), is the cold case: every hand worked out at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from dominolab.web.games.service import GameService
from dominolab.web.limits import Limits
from dominolab.web.storage.store import Store


async def _measure(game: str, seed: int, workers: int, db: Path) -> dict[str, Any]:
    limits = dataclasses.replace(Limits(), reviews_burst=10_000, reviews_per_minute=10_000.0)
    service = GameService(Store(db), computer_delay=0, seeds=lambda: seed, limits=limits,
                          workers=workers)
    rng = random.Random(seed)
    try:
        live, t0, invite = await service.create(game, None, "friend", "me")
        assert invite is not None
        t1 = await service.join(live, invite)
        tokens = (t0, t1)
        per_hand: list[float] = []
        hand = live.match.hand_number
        while not live.over:
            seat = live.match.to_move
            assert seat is not None
            move = rng.choice(live.match.legal_moves())
            await service.act(live, seat, str(move), live.version)
            if not live.over and live.match.hand_number != hand:
                hand = live.match.hand_number
                started = time.perf_counter()
                await service.review(live, 0, tokens[0])
                per_hand.append(time.perf_counter() - started)
        ended = time.perf_counter()
        review = await service.review(live, 0, tokens[0])
        ready = time.perf_counter() - ended
        started = time.perf_counter()
        cold = await service.review(live, 1, None)
        cold_s = time.perf_counter() - started
        return {"game": game, "hands": live.match.hand_number,
                "choices": sum(h["choices"] for h in review["hands"]),
                "ready_s": ready, "hand_s_max": max(per_hand, default=0.0),
                "cold_s": cold_s, "cold_choices": sum(h["choices"] for h in cold["hands"])}
    finally:
        await service.close()


def measure_review(game: str, seed: int = 1, workers: int = 2) -> dict[str, Any]:
    """One match of ``game`` (see the module): ``ready_s``, the seconds from its last move
    to seat 0's review being ready, seat 0 having asked after every hand (the longest of
    those: ``hand_s_max``); ``cold_s``, seat 1's whole review asked for only at the end;
    ``hands`` and ``choices`` (seat 0's moves that were not forced)."""
    with tempfile.TemporaryDirectory(prefix="dominolab-bench-review-") as tmp, \
            ThreadPoolExecutor(1) as thread:
        # a loop of its own in a thread of its own: the caller's thread may run one already
        result: dict[str, Any] = thread.submit(
            asyncio.run, _measure(game, seed, workers, Path(tmp) / "games.sqlite3")).result()
        return result


__all__ = ["measure_review"]
