"""Expiry: abandoned unfinished games and long-finished ones (and link codes nobody claimed
in time) are deleted from the store
(``limits.abandoned_after``, ``limits.finished_kept``), every ``limits.sweep_every``
seconds; a game gone from the store, here or on another server, leaves memory and closes
its sockets."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace

from dominolab.web.games.finisher import Finisher
from dominolab.web.games.registry import Registry
from dominolab.web.games.sockets import Sockets
from dominolab.web.limits import Limits
from dominolab.web.logs import GAMES, note
from dominolab.web.storage.store import DATABASE_ERRORS

log = logging.getLogger("dominolab.web")


class Expiry:
    """Deletes old games, and forgets the games that are gone."""

    def __init__(self, registry: Registry, sockets: Sockets, finisher: Finisher,
                 limits: Limits) -> None:
        self.registry = registry
        self.sockets = sockets
        self.finisher = finisher
        self.limits = limits

    async def expire(self, now: float | None = None) -> int:
        """Delete abandoned unfinished games and long-finished ones, and expired link
        codes; returns how many games."""
        registry = self.registry
        now = registry.clock() if now is None else now
        ids = await registry.store.expire(now - self.limits.abandoned_after,
                                          now - self.limits.finished_kept)
        self.forget(ids)
        # and the link codes nobody claimed in time (community/devices.py)
        await registry.store.expire_codes(now)
        for game_id in ids:
            note(GAMES, "game_expired", "game %s: expired (deleted)", game_id, game=game_id)
            await registry.events.publish(f"game:{game_id}", {"gone": True})
        return len(ids)

    def forget(self, ids: list[str]) -> None:
        """Games gone from the store (expired, here or on another server): out of memory,
        their sockets closed with 4410, and rematch links to them cleared."""
        registry = self.registry
        gone = set(ids)
        for kept in registry.games.values():
            if kept.row.rematch in gone:
                kept.row = replace(kept.row, rematch=None, rematch_by=None)
        for game_id in ids:
            live = registry.games.pop(game_id, None)
            registry.unwatch_unless_kept(game_id)
            if live is not None:
                if live.computer is not None:
                    live.computer.cancel()
                for conn in list(live.connections):
                    self.sockets.remove(live, conn)
                    registry.spawn(conn.close(4410, "this game has expired"), "close expired")

    async def expire_forever(self) -> None:
        """Run :meth:`expire` now and every ``limits.sweep_every`` seconds (and apply the
        ratings of any rated match whose end found the database failing)."""
        while True:
            try:
                await self.expire()
                await self.finisher.sweep()
            except DATABASE_ERRORS as exc:
                log.warning("could not expire old games this time: %s", exc)
            await asyncio.sleep(self.limits.sweep_every)
