"""The computer's turns and the hints: both thought out in the bounded pool of worker
processes (:mod:`dominolab.web.games.compute`), from nothing but a seat's
:class:`~dominolab.core.View`. The computer's move is stored like a person's."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from dominolab.players import LEVELS
from dominolab.players.hints import immediate_points, rank, same_as, win_chance
from dominolab.web.errors import ApiError, NotStored, take
from dominolab.web.games.compute import ComputePool, PoolBusy, analyse_hint, choose_move
from dominolab.web.games.live import LiveGame
from dominolab.web.games.moves import Moves
from dominolab.web.games.registry import Registry
from dominolab.web.games.sockets import Sockets
from dominolab.web.limits import Limiter

log = logging.getLogger("dominolab.web")


class Computer:
    """Plays the computer's seat of every game against it, and works out hints."""

    def __init__(self, registry: Registry, sockets: Sockets, moves: Moves, pool: ComputePool,
                 *, delay: float, hint_budget: Any, hint_limit: Limiter) -> None:
        self.registry = registry
        self.sockets = sockets
        self.moves = moves
        self.pool = pool
        #: the least time the computer takes over a move, so that a person sees it happen
        self.delay = delay
        self.hint_budget = hint_budget
        self.hint_limit = hint_limit

    def if_due(self, live: LiveGame, client: str) -> None:
        """Start the computer's turns if it is to move and not thinking already."""
        seat = live.computer_seat
        if seat is None or live.match.to_move != seat:
            return
        if live.computer is not None and not live.computer.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop yet: the first request for this game starts the computer
        live.computer = loop.create_task(self._plays(live, client),
                                         name=f"computer {live.id}")

    async def _plays(self, live: LiveGame, client: str) -> None:
        """The computer plays while it is to move. Its move is thought out in the pool,
        from its own view, and stored like a person's; a failure is retried with a growing
        pause, so a passing fault never leaves the game waiting for ever."""
        seat = live.computer_seat
        assert seat is not None and live.row.opponent is not None
        name, budget = LEVELS[live.row.opponent]
        pause = 0.5
        while live.match.to_move == seat and self.registry.games.get(live.id) is live:
            started = time.monotonic()
            version = live.version
            view = live.match.view(seat)
            try:
                # one seed per position: the same position gets the same move, also after
                # a restart
                move = await self.pool.run(client, choose_move, name,
                                           (live.row.seed * 1_000_003 + version) % 2**63,
                                           view, budget)
                wait = self.delay - (time.monotonic() - started)
                if wait > 0:
                    await asyncio.sleep(wait)
                async with live.lock:
                    if live.version != version:
                        continue
                    after = live.match.copy()
                    after.apply(move)
                    await self.moves.commit(live, seat, move, after)
                    self.registry.metrics.computer_moved()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if isinstance(exc, NotStored) and exc.status == 409:
                    # another server played this move first (it thought the same position
                    # out to the same move): caught up with, nothing to say
                    await self.sockets.broadcast(live)
                    continue
                log.warning("game %s: the computer's move failed (%s); trying again in "
                            "%.1f s", live.id, exc, pause)
                await self.sockets.broadcast(live)
                await asyncio.sleep(pause)
                pause = min(pause * 2, 30.0)
                continue
            pause = 0.5
            await self.sockets.broadcast(live)

    async def hint(self, live: LiveGame, seat: int, client: str = "local") -> dict[str, Any]:
        """The moves ``seat`` could make now, best first, each with its chance to win
        (docs/web.md, HINT); none in a lobby match or a rated one (the expert's advice would
        be the rating's), and only on the seat's turn."""
        if live.row.mode == "lobby":
            raise ApiError(403, "there are no hints in a match against another player from "
                                "the lobby")
        if live.row.rated:
            raise ApiError(403, "there are no hints in a rated match: the rating is yours, "
                                "not the expert's")
        self._may_ask(live, seat)
        await take(self.hint_limit, client, "hints")
        # again: the shared limits are a round trip to the database, a move or another
        # hint may have come meanwhile (and with it the turn gone)
        self._may_ask(live, seat)
        async with live.hint_lock:
            version = live.version
            view = live.match.view(seat)
            try:
                values = await self.pool.run(client, analyse_hint, view, self.hint_budget,
                                             version)
            except PoolBusy as exc:
                raise ApiError(429, "too much is being worked out for your address; try "
                                    "again in a moment", retry_after=exc.retry_after,
                               kind="compute") from None

        # best first, in the one order the terminal's hints use too; "same": the moves that
        # are this one but for a port's name (shown once, as the terminal does)
        moves = [{"move": str(v.move), "win": win_chance(v), "margin": round(v.margin, 3),
                  "points": list(immediate_points(view, v.move)),
                  "same": [str(m) for m in same_as(view, v.move)]} for v in rank(values)]
        return {"version": version, "moves": moves}

    @staticmethod
    def _may_ask(live: LiveGame, seat: int) -> None:
        """409 unless ``seat`` is to move and no hint is being worked out."""
        if live.over or live.match.to_move != seat:
            raise ApiError(409, "a hint is for your turn, and it is not your turn now")
        if live.hint_lock.locked():
            raise ApiError(409, "a hint is already being worked out; wait for it")
