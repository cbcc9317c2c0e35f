"""What follows a finished game: its cached states go, and a rated match's ratings are
applied by what the server wired in above the games (:class:`Ratings`; the players' side
of the web app keeps them)."""

from __future__ import annotations

import logging
from typing import Protocol

from dominolab.web.games.live import LiveGame
from dominolab.web.logs import GAMES, note
from dominolab.web.storage.store import DATABASE_ERRORS, GameRow

log = logging.getLogger("dominolab.web")


class Ratings(Protocol):
    """Whatever applies finished rated matches to their players' ratings."""

    async def apply(self, row: GameRow) -> bool:
        """Apply the finished rated match ``row``, once (True if this call did)."""
        ...

    async def apply_due(self) -> int:
        """Apply every finished rated match not applied yet; how many this call did."""
        ...


class Finisher:
    """Ends games: what happens once a game is stored as finished, however it ended."""

    def __init__(self) -> None:
        #: the ratings of rated matches; None: they wait in the store for a server that
        #: has them (:meth:`sweep` there)
        self.ratings: Ratings | None = None

    async def finished(self, live: LiveGame) -> None:
        """A game has just been stored as finished (its last move, or another ending such
        as a player's time running out): what follows from that happens here. It may run in
        more than one process for the same game, so what it stores must be idempotent."""
        live.messages.clear()
        result = live.row.result
        if result is not None:
            note(GAMES, "game_finished", "game %s: finished by %s after %d moves, %s, %d:%d",
                 live.id, result.ended_by, live.version,
                 "drawn" if result.winner is None else f"seat {result.winner} won",
                 *result.points, game=live.id, how=result.ended_by, winner=result.winner,
                 points=list(result.points), moves=live.version, rated=live.row.rated)
        if live.row.rated and self.ratings is not None:
            try:
                await self.ratings.apply(live.row)
            except DATABASE_ERRORS as exc:
                # the match's end is stored: its ratings follow on the next sweep
                log.error("game %s: the ratings could not be applied just now (%s); they "
                          "will be on the next sweep", live.id, exc)
            except Exception:
                # never fail the ending that is stored already (the sweep tries again)
                log.exception("game %s: applying the ratings failed", live.id)

    async def sweep(self) -> int:
        """Apply the ratings of any rated match whose end found the database failing; how
        many this call applied."""
        return 0 if self.ratings is None else await self.ratings.apply_due()
