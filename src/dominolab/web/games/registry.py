"""The games one server holds in memory, and the topics it listens to for them: the one
place the other collaborators of :class:`~dominolab.web.games.service.GameService` share.

A game is kept while it is used; past ``max_live`` the least recently used idle games are
dropped (they are rebuilt from the database when asked for again). While a game is in
memory, or being loaded, the server listens to its topic (``game:ID``), where every server
announces what it changed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import replace
from typing import Any

from dominolab.web.games.live import LiveGame
from dominolab.web.metrics import Metrics
from dominolab.web.storage.events import Events
from dominolab.web.storage.store import DATABASE_ERRORS, AsyncStore, PlayerRef

log = logging.getLogger("dominolab.web")

#: what hears a game's topic: the topic and the message
Listener = Callable[[str, dict[str, Any]], Awaitable[None]]


class Registry:
    """The live games by id, the store and the events they share, and the server's own
    tasks."""

    def __init__(self, store: AsyncStore, events: Events, clock: Callable[[], float],
                 max_live: int, metrics: Metrics | None = None) -> None:
        self.store = store
        #: what this server counts for ``/metrics``
        self.metrics = metrics or Metrics()
        #: where committed changes are announced (:mod:`dominolab.web.storage.events`)
        self.events = events
        #: the wall clock, for when games were made and last moved (tests move it on)
        self.clock = clock
        #: games kept in memory; beyond this the least recently used idle ones are dropped
        self.max_live = max_live
        self.games: dict[str, LiveGame] = {}
        #: tasks that must outlive the request or connection that started them
        self.tasks: set[asyncio.Task[None]] = set()
        #: the games whose topic this server listens to, and how to stop listening
        self.watching: dict[str, Callable[[], None]] = {}
        #: games told of a change while they were being loaded: caught up once loaded
        self.stale: set[str] = set()
        self._listener: Listener | None = None
        events.subscribe("players", self._renamed)

    def listen(self, listener: Listener) -> None:
        """Hear every watched game's topic with ``listener`` (set once, by the service)."""
        self._listener = listener

    def spawn(self, coro: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``coro`` as a task of the service's own, not of the caller's: a connection's
        handler may be cancelled as it ends, and what it started must still happen."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def keep(self, live: LiveGame) -> None:
        """Hold ``live`` in memory (and listen to it), dropping idle games past
        ``max_live``."""
        self.games[live.id] = live
        self.watch(live.id)
        if len(self.games) <= self.max_live:
            return
        for old in list(self.games.values()):
            if len(self.games) <= self.max_live:
                break
            if old is not live and idle(old):
                del self.games[old.id]
                self.unwatch_unless_kept(old.id)

    def watch(self, game_id: str) -> None:
        """Listen to the game's topic (``game:ID``) while it is in memory or being loaded."""
        if game_id not in self.watching:
            self.watching[game_id] = self.events.subscribe(f"game:{game_id}", self._heard)

    def unwatch_unless_kept(self, game_id: str) -> None:
        if game_id not in self.games:
            stop = self.watching.pop(game_id, None)
            if stop is not None:
                stop()
            self.stale.discard(game_id)

    async def _renamed(self, topic: str, message: dict[str, Any]) -> None:
        """A moderator acted on a player (docs/web.md, "Moderation and privacy"): the
        live games' seats show their players' names as stored now (renamed, hidden or
        forgotten), from the next state sent on."""
        ids = sorted({p.id for live in self.games.values() for p in live.row.players
                      if p is not None})
        try:
            names = await self.store.player_names(ids)
        except DATABASE_ERRORS as exc:
            log.warning("could not read the players' names again: %s", exc)
            return
        for live in list(self.games.values()):
            seats = tuple(None if p is None else PlayerRef(p.id, names.get(p.id, p.name))
                          for p in live.row.players)
            if seats != live.row.players:
                live.row = replace(live.row, players=(seats[0], seats[1]))
                live.messages.clear()

    async def _heard(self, topic: str, message: dict[str, Any]) -> None:
        if self._listener is not None:
            await self._listener(topic, message)

    async def announce(self, live: LiveGame, **what: Any) -> None:
        """Tell the other servers (and this one's listeners) that the game changed: its
        version now, and ``row=True`` if its row did (an invitation claimed, a rematch)."""
        await self.events.publish(f"game:{live.id}", {"version": live.version, **what})


def idle(live: LiveGame) -> bool:
    """Whether nothing holds ``live``: no connection, lock or computer's turn."""
    return (not live.connections and not live.lock.locked()
            and not live.hint_lock.locked()
            and (live.computer is None or live.computer.done()))
