"""Games' clocks (docs/web.md, "Clocks"): lobby matches and rated matches against the
computer. Each move may take ``move_seconds``; the player to move who runs out of it loses.
Only a person's turn is timed: the computer's has no deadline, and the person's time runs
from the computer's move once it is stored. A live game's own timer ends it when it is due,
and a sweep ends the games no process is watching (after a restart, or a process that
died). The ending is stored once, whichever comes first."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, Final

from dominolab.web.errors import ApiError
from dominolab.web.games.finisher import Finisher
from dominolab.web.games.live import LiveGame
from dominolab.web.games.registry import Registry
from dominolab.web.games.sockets import Sockets
from dominolab.web.storage.store import DATABASE_ERRORS, GameResult

log = logging.getLogger("dominolab.web")

#: a clock (a lobby seek's, a rated match against the computer's): the seconds each move
#: may take, by default and at the least and the most (docs/web.md, "Clocks")
MOVE_SECONDS: Final = 120
MOVE_SECONDS_RANGE: Final = (30, 600)
#: a clock is enforced this long after it ran out: a move sent in the last second still
#: reaches the server in time
CLOCK_GRACE: Final = 2.0


def move_seconds_of(value: Any) -> int:
    """A clock's ``move_seconds`` as a request gives it: None is :data:`MOVE_SECONDS`;
    anything but a whole number in :data:`MOVE_SECONDS_RANGE` is refused (422, quoting
    it)."""
    if value is None:
        return MOVE_SECONDS
    low, high = MOVE_SECONDS_RANGE
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ApiError(422, f"move_seconds (the time a move may take) is a whole number "
                            f"from {low} to {high}, not {str(value)[:40]!r}")
    return value


class Clocks:
    """The clocks of one server's games."""

    def __init__(self, registry: Registry, sockets: Sockets, finisher: Finisher) -> None:
        self.registry = registry
        self.sockets = sockets
        self.finisher = finisher

    def due(self, live: LiveGame, retry: float | None = None) -> None:
        """Wake when the player to move runs out of time (or after ``retry`` seconds); no
        clock, or a match over, stops it."""
        if live.clock_timer is not None:
            live.clock_timer.cancel()
            live.clock_timer = None
        deadline = live.deadline
        if deadline is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the lobby's sweep finds the clock
        version = live.version
        delay = retry if retry is not None else deadline + CLOCK_GRACE - self.registry.clock()
        live.clock_timer = loop.call_later(max(0.0, delay), lambda: self.registry.spawn(
            self._run_out(live, version), f"clock {live.id}"))

    async def _run_out(self, live: LiveGame, version: int) -> None:
        await self.time_out(live, version)

    async def time_out(self, live: LiveGame, version: int) -> bool:
        """End the match by time if the player to move at ``version`` has run out of it:
        they lose (``ended_by`` "time"). The ending is stored once, only while the game is
        still at that version and unfinished (whichever process or sweep comes first),
        then the :class:`Finisher` runs and both seats are told. Returns whether this call
        ended it; a game that another process ended is shown as ended here too."""
        registry = self.registry
        ended = False
        async with live.lock:
            deadline = live.deadline
            if deadline is None or live.version != version:
                return False
            now = registry.clock()
            if now < deadline + CLOCK_GRACE:
                self.due(live)
                return False
            seat = live.match.to_move
            assert seat is not None
            totals = live.match.totals
            result = GameResult(1 - seat, (totals[0], totals[1]), "time")
            try:
                ended = await registry.store.end_by_time(live.id, version, result,
                                                         now - CLOCK_GRACE)
                stored = None if ended else await registry.store.load_game(live.id)
            except DATABASE_ERRORS as exc:
                log.warning("game %s: its clock ran out but the ending could not be stored "
                            "(%s); trying again", live.id, exc)
                self.due(live, retry=5.0)
                return False
            if ended:
                live.row = replace(live.row, finished=True, result=result)
                await self.finisher.finished(live)
                await registry.announce(live, row=True)
            elif stored is not None and stored[0].finished and not live.row.finished:
                live.row = replace(live.row, finished=True, result=stored[0].result)
                live.messages.clear()
            if live.clock_timer is not None:
                live.clock_timer.cancel()
                live.clock_timer = None
        await self.sockets.broadcast(live)
        if ended:  # its game_finished line (how: time) is the Finisher's
            await registry.events.publish(f"game:{live.id}", {"ended_by": "time"})
            await registry.events.publish("lobby", {"game": live.id})
        return ended

    async def sweep(self, get: Callable[[str], Awaitable[LiveGame]]) -> int:
        """End every stored game whose clock ran out (also those no process holds, after
        a restart or in a process that died), each found with ``get``; returns how many
        this call ended."""
        found = await self.registry.store.out_of_time(self.registry.clock() - CLOCK_GRACE)
        ended = 0
        for game_id, plies in found:
            try:
                live = await get(game_id)
            except ApiError:
                continue
            if await self.time_out(live, plies):
                ended += 1
        return ended
