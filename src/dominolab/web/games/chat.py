"""Canned messages between a game's two seats (docs/web.md, "Messages during a game"):
a fixed set of phrases, sent as their ids (each page words them in its own language), no
free text, rate-limited per seat, shown to the two seats only (spectators never see them).
A phrase goes out on the game's topic, so a seat connected to another server on the same
database hears it too."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Final

from dominolab.web.errors import ApiError, take
from dominolab.web.games.live import LiveGame
from dominolab.web.games.registry import Registry
from dominolab.web.games.sockets import Sockets
from dominolab.web.limits import Limiter

#: the phrases a seat may send, by id (static/js/strings/chat.js words them)
PHRASES: Final = ("good_luck", "well_played", "thanks", "good_game")


class Chat:
    """Sends a seat's phrase to both seats of a game, wherever they are connected."""

    def __init__(self, registry: Registry, sockets: Sockets, limit: Limiter) -> None:
        self.registry = registry
        self.sockets = sockets
        #: phrases per seat of a game (not per address: two players behind one address
        #: each have their own)
        self.limit = limit

    async def say(self, live: LiveGame, seat: int, phrase: Any) -> None:
        """Send ``phrase`` from ``seat``: 400 for a phrase not in :data:`PHRASES`, 409 in a
        game against the computer, 429 past the rate."""
        if not isinstance(phrase, str) or phrase not in PHRASES:
            raise ApiError(400, f"a message is one of {', '.join(PHRASES)}, not "
                                f"{json.dumps(phrase)[:40]}")
        if live.row.mode == "computer":
            raise ApiError(409, "the computer reads no messages")
        await take(self.limit, f"{live.id}/{seat}", "messages")
        await self.registry.events.publish(f"game:{live.id}",
                                           {"chat": phrase, "seat": seat})

    async def deliver(self, live: LiveGame, message: dict[str, Any]) -> None:
        """A phrase heard on the game's topic: to this server's seats' connections."""
        phrase, seat = message.get("chat"), message.get("seat")
        if phrase not in PHRASES or seat not in (0, 1):
            return
        text = json.dumps({"type": "chat", "seat": seat, "phrase": phrase})
        await asyncio.gather(*(self.sockets.send(live, c, text)
                               for c in live.connections if c.seat is not None))
