"""Players' standings (docs/web.md, "Ratings"): a finished rated match applied to its
players' ratings, once, by whichever process comes first (the Glicko-2 reckoning itself is
:mod:`dominolab.web.community.ratings`), and the leaderboard of each game. The games call
:meth:`Standings.apply` as a rated match ends (wired in by
:meth:`~dominolab.web.games.service.GameService.rate_with`)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Final

from dominolab.core import GAMES, get_game
from dominolab.web import logs
from dominolab.web.community.ratings import (
    PROVISIONAL_RD,
    NotCounted,
    levels_json,
    rating_json,
    reckon,
)
from dominolab.web.errors import ApiError
from dominolab.web.storage.store import (
    DATABASE_ERRORS,
    AsyncStore,
    GameRow,
    RatingConflict,
    unavailable,
)

log = logging.getLogger("dominolab.web")

#: the games that have ratings, in the registry's order
RATED_GAMES: Final = tuple(GAMES)


class Standings:
    """The ratings and leaderboards of one server's store."""

    def __init__(self, store: AsyncStore, clock: Callable[[], float]) -> None:
        self.store = store
        self.clock = clock

    async def apply(self, row: GameRow, attempts: int = 8) -> bool:
        """Apply the finished rated match ``row`` to its players' ratings, once: True if
        this call applied it, False if it was applied before (by this process or another)
        or counts for nothing (then it is marked so, and logged). Raises what the database
        raises."""
        if row.result is None or not row.finished:  # an ending this process did not see
            loaded = await self.store.load_game(row.id)
            if loaded is None:
                return False
            row = loaded[0]
        players = [p.id for p in row.players if p is not None]
        for _ in range(attempts):
            current = await self.store.ratings_of(row.game, players)
            try:
                ratings, changes = reckon(row, current, self.clock())
            except NotCounted as exc:
                log.error("%s", exc)
                ratings, changes = [], []
            try:
                applied = await self.store.apply_ratings(row.id, ratings, changes)
            except RatingConflict as exc:
                log.info("game %s: %s; reckoned again", row.id, exc)
                continue
            if applied and changes:
                logs.note(
                    logs.GAMES, "ratings_applied", "game %s: ratings applied: %s", row.id,
                    ", ".join(f"{c.player} {c.rating_before:.0f} -> {c.rating_after:.0f}"
                              for c in changes),
                    game=row.id, kind=row.game,
                    changes=[{"seat": c.seat, "player": c.player,
                              "before": round(c.rating_before, 1),
                              "after": round(c.rating_after, 1)} for c in changes])
            return applied
        log.error("game %s: its players' ratings kept changing; left for the next sweep",
                  row.id)
        return False

    async def apply_due(self) -> int:
        """Apply every finished rated match whose ratings are not applied yet; how many
        this call applied."""
        done = 0
        for row in await self.store.ratings_due():
            try:
                done += await self.apply(row)
            except DATABASE_ERRORS:
                raise
            except Exception:
                # one match's failure must not stop the sweep (nor the others' ratings)
                log.exception("game %s: applying the ratings failed", row.id)
        return done

    async def leaderboard(self, game: str) -> dict[str, Any]:
        """The best players of ``game`` and the computer levels (docs/web.md,
        "Ratings"); 404 for a game there is not."""
        if game not in RATED_GAMES:
            raise ApiError(404, f"there is no game {game[:40]!r}; the games are "
                                f"{', '.join(RATED_GAMES)}")
        with unavailable("the leaderboard could not be read",
                         f"could not read the {game} leaderboard"):
            rows = await self.store.leaderboard(game, PROVISIONAL_RD)
        people = [{"kind": "player", "rank": rank, "id": ref.id, "name": ref.name,
                   **rating_json(found)} for rank, (ref, found) in enumerate(rows, 1)]
        # the levels stand among the settled players by rating; provisional players follow
        settled = [e for e in people if not e["provisional"]]
        entries = sorted([*settled, *levels_json(game)], key=lambda e: -e["rating"])
        entries += [e for e in people if e["provisional"]]
        return {"game": game, "title": get_game(game).title,
                "provisional_rd": PROVISIONAL_RD, "entries": entries}
