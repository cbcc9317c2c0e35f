"""A seat's move: checked by the engine on a copy of the match, committed to the store, and
only then installed in memory and announced. A write that fails leaves memory as it was,
tells every open socket of the game its current state again, and answers 503; nothing out
of turn can ever be stored."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from dominolab.core import (
    AmbiguousMoveError,
    DominoError,
    IllegalMoveError,
    InvalidMoveError,
    Match,
    Move,
)
from dominolab.web.errors import ApiError, NotStored
from dominolab.web.games.clocks import Clocks
from dominolab.web.games.finisher import Finisher
from dominolab.web.games.live import LiveGame
from dominolab.web.games.peers import Peers
from dominolab.web.games.registry import Registry
from dominolab.web.games.sockets import Sockets
from dominolab.web.logs import GAMES, note
from dominolab.web.storage.store import DATABASE_ERRORS, GameResult, MoveConflict, unavailable

log = logging.getLogger("dominolab.web")


class Moves:
    """Checks, stores and makes the moves of one server's games."""

    def __init__(self, registry: Registry, sockets: Sockets, peers: Peers, clocks: Clocks,
                 finisher: Finisher) -> None:
        self.registry = registry
        self.sockets = sockets
        self.peers = peers
        self.clocks = clocks
        self.finisher = finisher

    async def act(self, live: LiveGame, seat: int, text: Any, version: Any) -> None:
        """Check ``seat``'s move, store it, then make it and tell everyone; 409/422 when it
        is refused, 503 when it cannot be stored (then nothing changed)."""
        if not isinstance(text, str) or not text.strip() or len(text) > 32:
            raise ApiError(400, "the move must be a short text in the game's notation, "
                                "like \"54@1e\" or \"draw\"")
        if isinstance(version, bool) or not isinstance(version, int):
            raise ApiError(400, "the move must say which version of the game it was chosen "
                                "at (\"version\": a whole number)")
        async with live.lock:
            if version > live.version and self.registry.events.shared:
                # chosen on a state this server has not caught up with yet (another server
                # stored the move before, and its announcement is on its way)
                with unavailable("the game could not be read",
                                 f"game {live.id}: could not catch up"):
                    await self.peers.catch_up(live)
            match = live.match
            if version != live.version:
                raise ApiError(409, f"the game has moved on: it is at version {live.version}, "
                                    f"the move {text!r} was chosen at version {version}")
            if live.over:
                raise ApiError(409, "the match is over")
            if match.to_move != seat:
                raise ApiError(409, f"it is not your turn (seat {seat}); wait for your "
                                    f"opponent's move")
            after = match.copy()
            try:
                move = after.parse_move(text)
                after.apply(move)
            except (InvalidMoveError, AmbiguousMoveError, IllegalMoveError) as exc:
                raise ApiError(422, str(exc)) from None
            except DominoError as exc:
                raise ApiError(409, str(exc)) from None
            failed: NotStored | None = None
            try:
                await self.commit(live, seat, move, after)
            except NotStored as exc:
                failed = exc
        # after a failed write too: every open socket gets the state as it is (a page may
        # be showing the move as under way)
        await self.sockets.broadcast(live)
        if failed is not None:
            raise failed

    async def commit(self, live: LiveGame, seat: int, move: Move, after: Match) -> None:
        """Store ``move`` at ply ``live.version``; then, and only then, make ``after`` the
        game. Call with ``live.lock`` held. A failed write leaves the game as it was and
        raises :class:`NotStored` (503; 409 if the database holds another move there, when
        this server's idea of the game is stale and it is reloaded)."""
        registry = self.registry
        result = None
        if after.result is not None:
            totals = after.result.totals
            result = GameResult(after.result.winner, (totals[0], totals[1]))
        try:
            await registry.store.add_moves(live.id, live.version, [(seat, str(move))],
                                           after.is_over, result)
        except MoveConflict as exc:
            # another server stored a move at this ply first (the computer's, thought out
            # there too, or a seat's over another connection): take the stored game
            log.info("game %s: %s; catching up with the database", live.id, exc)
            try:
                await self.peers.catch_up(live)
            except DATABASE_ERRORS as again:
                log.error("game %s: could not catch up: %s", live.id, again)
            raise NotStored(409, "the game has moved on; reload it") from None
        except DATABASE_ERRORS as exc:
            log.error("game %s: move %s at version %d was not stored: %s", live.id, move,
                      live.version, exc)
            raise NotStored(503, "the move could not be saved just now, so it was not made; "
                                 "try again in a moment", retry_after=1) from None
        registry.metrics.moved()
        if GAMES.isEnabledFor(logging.DEBUG):  # serve --log-moves: nothing built otherwise
            note(GAMES, "game_move", "game %s: seat %d played %s at version %d", live.id,
                 seat, move, live.version, level=logging.DEBUG, game=live.id, seat=seat,
                 move=str(move), version=live.version)
        hand = live.match.hand_number
        live.match = after
        live.version += 1
        live.moved_at = registry.clock()
        if result is not None:
            live.row = replace(live.row, finished=True, result=result)
            await self.finisher.finished(live)
        self.clocks.due(live)
        if live.row.mode == "lobby" and (result is not None or after.hand_number != hand):
            # the lobby shows its matches' scores (as of a hand's end) and drops the over
            registry.spawn(registry.events.publish("lobby", {"game": live.id}), "lobby score")

        await registry.announce(live)
