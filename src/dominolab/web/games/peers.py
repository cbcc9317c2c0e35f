"""Other servers' changes (docs/web.md, "Two backends, several processes"): servers on one
database announce what they stored on the game's topic; a server that hears of a change
reads what was stored since its own version, applies it through the engine and tells its
connections."""

from __future__ import annotations

import logging
from typing import Any

from dominolab.core import DominoError
from dominolab.web.games.chat import Chat
from dominolab.web.games.clocks import Clocks
from dominolab.web.games.expiry import Expiry
from dominolab.web.games.live import LiveGame
from dominolab.web.games.registry import Registry
from dominolab.web.games.sockets import Sockets
from dominolab.web.storage.store import DATABASE_ERRORS

log = logging.getLogger("dominolab.web")


class Peers:
    """Keeps this server's games up with what the other servers stored."""

    def __init__(self, registry: Registry, sockets: Sockets, clocks: Clocks,
                 expiry: Expiry, chat: Chat) -> None:
        self.registry = registry
        self.chat = chat
        self.sockets = sockets
        self.clocks = clocks
        self.expiry = expiry
        registry.listen(self.on_game_event)

    async def on_game_event(self, topic: str, message: dict[str, Any]) -> None:
        """A change of game ``topic`` announced by a server (this one's own are behind us
        already): read what was stored since this server's version, apply it through the
        engine and tell this server's connections."""
        registry = self.registry
        game_id = topic.removeprefix("game:")
        live = registry.games.get(game_id)
        if live is None:
            if game_id in registry.watching:
                registry.stale.add(game_id)  # being loaded: caught up once it is
            return
        if "presence" in message or "ask" in message:
            await self.sockets.on_presence(live, message)
            return
        if "chat" in message:
            await self.chat.deliver(live, message)
            return
        version = message.get("version")
        if (isinstance(version, int) and version <= live.version and not message.get("row")
                and not message.get("gone")):
            return
        try:
            async with live.lock:
                changed = await self.catch_up(live)
        except DATABASE_ERRORS as exc:
            log.warning("game %s: could not catch up with another server's change: %s",
                        game_id, exc)
            return
        if changed:
            await self.sockets.broadcast(live)

    async def catch_up(self, live: LiveGame) -> bool:
        """Bring ``live`` up to what the store holds (call with ``live.lock`` held): the
        moves from its version on, and its row. Returns whether anything changed. A game
        the store no longer has expired on another server: it goes here too."""
        registry = self.registry
        found = await registry.store.game_since(live.id, live.version)
        if found is None:
            if registry.games.get(live.id) is live:
                self.expiry.forget([live.id])
            return False
        row, moves = found
        changed = row != live.row
        live.row = row
        if changed:
            live.messages.clear()  # the cached states show the row (players, the ending)
        # applied in place (the lock is held): a stored move that does not apply means a
        # damaged game, which is then dropped from memory altogether
        for ply, (seat, text) in enumerate(moves, live.version):
            match = live.match
            try:
                if match.to_move != seat:
                    raise DominoError(f"seat {seat} is not to move")
                match.apply(match.parse_move(text))
            except DominoError as exc:
                log.error("stored game %s is damaged at move %d: %s", live.id, ply + 1, exc)
                self.expiry.forget([live.id])
                return False
            live.version += 1
            changed = True
        if changed and row.move_seconds is not None:
            # the clock runs from the stored time of the last move, wherever it was made
            live.moved_at = await registry.store.moved_at(live.id) or row.created
        if changed:
            self.clocks.due(live)
        return changed
