"""Who is connected to a game, and telling them: seats' and spectators' sockets joining and
leaving, the spectators' limits, every state sent in order, and the presence of seats
connected to other servers on the same database."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from dominolab.web.errors import ApiError
from dominolab.web.games.live import Connection, LiveGame
from dominolab.web.games.registry import Registry
from dominolab.web.limits import Limits

log = logging.getLogger("dominolab.web")


class Sockets:
    """The open connections of every live game of one server."""

    def __init__(self, registry: Registry, limits: Limits) -> None:
        self.registry = registry
        self.limits = limits
        #: spectators connected, by address, and in all
        self.by_client: dict[str, int] = {}
        self.watchers = 0
        if registry.events.shared:
            # a server that vanished (killed) takes its seats' presence with it
            registry.events.subscribe("peers", self.on_peers)

    async def add(self, live: LiveGame, conn: Connection) -> None:
        """Take ``conn`` on and send it the state; tell the others if that changes who is
        connected or how many watch (see :meth:`GameService.attach`)."""
        before, here = live.presence(), live.connected_here()
        if conn.seat is None:
            self.admit(live, conn)
        live.connections.append(conn)
        await self.push(live, conn)
        if live.presence() != before:
            await self.broadcast(live, skip=conn)
        if self.registry.events.shared and live.connected_here() != here:
            await self.announce_presence(live)

    def admit(self, live: LiveGame, conn: Connection) -> None:
        """Count a new spectator in, or refuse it (see :meth:`GameService.attach`)."""
        limits = self.limits
        if self.by_client.get(conn.client, 0) >= limits.watchers_per_client:
            raise ApiError(429, f"your address is watching {limits.watchers_per_client} "
                                f"games already; close one to watch another", kind="watchers")
        if live.watching() >= limits.watchers_per_game:
            raise ApiError(409, f"this game has {limits.watchers_per_game} spectators, as "
                                f"many as it takes; try again later")
        if self.watchers >= limits.watchers_total:
            raise ApiError(503, "the server has as many spectators as it takes; try again "
                                "later", retry_after=30)
        self.by_client[conn.client] = self.by_client.get(conn.client, 0) + 1
        self.watchers += 1

    def remove(self, live: LiveGame, conn: Connection) -> None:
        """Take ``conn`` off the game (and a spectator off the counts); nobody is told."""
        live.connections.remove(conn)
        if conn.seat is None:
            left = self.by_client[conn.client] - 1
            if left:
                self.by_client[conn.client] = left
            else:
                del self.by_client[conn.client]
            self.watchers -= 1

    def detach(self, live: LiveGame, conn: Connection) -> None:
        """A connection ended. Who is connected (or how many watch) changes now, and the
        others are told by a task of the service's: the ending connection's handler may be
        cancelled."""
        if conn in live.connections:
            before, here = live.presence(), live.connected_here()
            self.remove(live, conn)
            if live.presence() != before:
                self.registry.spawn(self.broadcast(live), f"presence {live.id}")
            if self.registry.events.shared and live.connected_here() != here:
                self.registry.spawn(self.announce_presence(live), f"presence {live.id}")

    async def push(self, live: LiveGame, conn: Connection) -> None:
        """Send ``conn`` its seat's state (or a spectator's) as it is when the send
        begins. One send at a time per connection, each built afresh, so a connection never
        gets an older state after a newer one. A connection that fails is dropped."""
        def state() -> str:
            text = live.message(conn.seat, conn.width)
            if live.row.move_seconds is not None:
                # the server's time as it is sent: the page's countdown to the deadline
                text = f'{{"now":{self.registry.clock():.3f},{text[1:]}'
            return text

        await self.send(live, conn, state)

    async def send(self, live: LiveGame, conn: Connection,
                   text: str | Callable[[], str]) -> None:
        """Send ``conn`` a message, in turn with its other sends (``text`` may be made once
        its turn comes, so that it is up to date). A connection that fails is dropped."""
        try:
            async with conn.lock:
                await conn.send(text if isinstance(text, str) else text())
        except Exception:
            self.detach(live, conn)

    async def broadcast(self, live: LiveGame, skip: Connection | None = None) -> None:
        """Send every connection (but ``skip``) its seat's state, or a spectator's."""
        conns = [c for c in live.connections if c is not skip]
        if conns:
            await asyncio.gather(*(self.push(live, c) for c in conns))

    # -- seats connected to other servers ----------------------------------------------------
    async def on_presence(self, live: LiveGame, message: dict[str, Any]) -> None:
        """Another server's seats of this game (``presence``), or its question who is
        connected here (``ask``)."""
        events = self.registry.events
        if "ask" in message:
            if message["ask"] != events.instance and any(live.connected_here()):
                await self.announce_presence(live)
            return
        there, seats = message.get("from"), message.get("presence")
        if there == events.instance or not isinstance(there, str) \
                or not isinstance(seats, list) or len(seats) != 2:
            return
        before = live.connected()
        if any(seats):
            live.remote[there] = (bool(seats[0]), bool(seats[1]))
        else:
            live.remote.pop(there, None)
        if live.connected() != before:
            await self.broadcast(live)

    async def announce_presence(self, live: LiveGame) -> None:
        events = self.registry.events
        await events.publish(f"game:{live.id}", {
            "presence": list(live.connected_here()), "from": events.instance})

    async def on_peers(self, topic: str, message: dict[str, Any]) -> None:
        """Servers that are gone: their seats are no longer connected."""
        gone = set(message.get("gone") or ())
        for live in list(self.registry.games.values()):
            if gone & live.remote.keys():
                before = live.connected()
                for there in gone:
                    live.remote.pop(there, None)
                if live.connected() != before:
                    await self.broadcast(live)
