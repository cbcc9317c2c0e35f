"""The featured live game (docs/web.md, "The featured game"): the one game the home page and
the lobby offer to watch, and the public seats (names and ratings) a spectator is shown.

The choice: among the games going on, the rated ones first, the highest by the mean of its
two seats' ratings (a player's stored rating, or where every player starts; the computer
level's fixed rating); with no rated game, the newest game between two people (a lobby or a
friend game), then the newest against the computer; none going on: ``None``. A payload
holds ids, names, levels, ratings and the score only: no seat token, no tile of a hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from dominolab.players.ratings import LEVEL_RATINGS
from dominolab.web.community.ratings import START
from dominolab.web.storage.store import AsyncStore, GameRow, RatingRow

#: how long a featured choice is kept before it is read again (seconds)
FEATURED_SECONDS: Final = 5.0
#: how many of the store's lobby games are candidates
CANDIDATES: Final = 100


@dataclass(frozen=True, slots=True)
class Candidate:
    """A game going on: its stored row and its score now (None: not in memory here)."""

    row: GameRow
    totals: tuple[int, int] | None = None


def seat_json(row: GameRow, seat: int, ratings: Mapping[str, RatingRow]) -> dict[str, Any]:
    """Seat ``seat`` of ``row`` as a spectator may see it: a named player with their rating
    in the game (where every player starts when they have none), the computer's level with
    its fixed rating, or a guest (an unnamed friend seat) with none."""
    ref = row.players[seat]
    if ref is not None:
        found = ratings.get(ref.id)
        rating = START.rating if found is None else found.rating
        return {"kind": "player", "id": ref.id, "name": ref.name, "rating": round(rating)}
    level = row.opponent
    if row.mode == "computer" and seat == 1 and level is not None \
            and level in LEVEL_RATINGS.get(row.game, {}):
        return {"kind": "computer", "level": level,
                "rating": round(LEVEL_RATINGS[row.game][level])}
    return {"kind": "guest", "rating": None}


def mean_rating(seats: Sequence[dict[str, Any]]) -> float:
    """The mean of the seats' ratings that are known (0 when none is)."""
    known = [float(s["rating"]) for s in seats if s["rating"] is not None]
    return sum(known) / len(known) if known else 0.0


def choose(candidates: Sequence[Candidate], ratings: Mapping[str, Mapping[str, RatingRow]]
           ) -> dict[str, Any] | None:
    """The featured game of ``candidates`` (the module's rule) as JSON, or None.
    ``ratings``: per game, the stored ratings of the candidates' players."""
    best: tuple[tuple[int, float, float], dict[str, Any]] | None = None
    for c in candidates:
        row = c.row
        if row.finished or row.result is not None:
            continue
        found = ratings.get(row.game, {})
        seats = [seat_json(row, seat, found) for seat in (0, 1)]
        people = all(s["kind"] != "computer" for s in seats)
        # rated first (by rating), then two people's games, then the computer's; newest
        rank = (2 if row.rated else 1 if people else 0,
                mean_rating(seats) if row.rated else 0.0, row.created)
        if best is None or rank > best[0]:
            best = (rank, {"id": row.id, "game": row.game, "rated": row.rated,
                           "mode": row.mode, "players": seats,
                           "totals": None if c.totals is None else list(c.totals)})
    return None if best is None else best[1]


class Featured:
    """The featured game of one server, read again at most every :data:`FEATURED_SECONDS`
    (every home page and lobby asks for it)."""

    def __init__(self, store: AsyncStore, held: Callable[[], Sequence[Candidate]],
                 clock: Callable[[], float]) -> None:
        self.store = store
        self.held = held
        self.clock = clock
        self._cached: tuple[float, dict[str, Any] | None] | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> dict[str, Any] | None:
        """The featured game now (a cached choice while it is fresh)."""
        async with self._lock:
            now = self.clock()
            if self._cached is not None and now - self._cached[0] < FEATURED_SECONDS:
                return self._cached[1]
            chosen = await self._choose()
            self._cached = (now, chosen)
            return chosen

    async def _choose(self) -> dict[str, Any] | None:
        _seeks, lobby_rows, _owed = await self.store.lobby(CANDIDATES)
        by_id = {c.row.id: c for c in self.held()}
        for row in lobby_rows:
            by_id.setdefault(row.id, Candidate(row))
        candidates = list(by_id.values())
        wanted: dict[str, set[str]] = {}
        for c in candidates:
            if c.row.finished:
                continue
            for ref in c.row.players:
                if ref is not None:
                    wanted.setdefault(c.row.game, set()).add(ref.id)
        ratings = {game: await self.store.ratings_of(game, sorted(ids))
                   for game, ids in wanted.items()}
        return choose(candidates, ratings)

    async def seats(self, row: GameRow) -> list[dict[str, Any]]:
        """``row``'s two seats as a spectator sees them (:func:`seat_json`)."""
        ids = [ref.id for ref in row.players if ref is not None]
        found = await self.store.ratings_of(row.game, ids) if ids else {}
        return [seat_json(row, seat, found) for seat in (0, 1)]
