"""Puzzles people solve, and their puzzle ratings (docs/web.md, "Puzzles").

A player has a puzzle rating per game and each puzzle has one, both Glicko-2 through the
players' one function (:func:`~dominolab.web.community.ratings.rate`): a player's first try
at a puzzle is one rating period for both, each updated from both ratings as they stood
before it, the player scoring 1 for solving it and the puzzle 1 for not being solved. A
second try at the same puzzle is answered (solved or not, and why) but not rated. A player
starts at :data:`~dominolab.web.community.ratings.START`; a puzzle at the rating it was
shipped with, with START's deviation and volatility. A visitor (no key) is answered too,
and nothing is rated.

Answers are rate-limited per address; the next puzzle is picked near the player's puzzle
rating (:func:`~dominolab.web.content.puzzles.pick_next`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any, Final

from dominolab.web.community.players import Players
from dominolab.web.community.ratings import PROVISIONAL_RD, START, Glicko, rate
from dominolab.web.content.puzzles import (
    VISITOR_RATING,
    Shelf,
    Shelved,
    chosen_index,
    judged_json,
    pick_next,
    position_json,
    read_after,
    read_day,
)
from dominolab.web.errors import ApiError, take
from dominolab.web.limits import Limiter
from dominolab.web.storage.store import (
    AsyncStore,
    PlayerRow,
    PuzzleRating,
    PuzzleTry,
    RatingConflict,
    unavailable,
)

#: how many times a try is reckoned again when a rating changed meanwhile (another try of
#: the same player or at the same puzzle, on this server or another)
RETRIES: Final = 5


def puzzle_start(shelved: Shelved) -> Glicko:
    """Where a puzzle's rating starts: its shipped rating, START's deviation and volatility."""
    return Glicko(shelved.puzzle.rating, START.rd, START.volatility)


def glicko(row: PuzzleRating | None, start: Glicko) -> Glicko:
    return start if row is None else Glicko(row.rating, row.rd, row.volatility)


def rating_json(row: PuzzleRating | None) -> dict[str, Any]:
    """A puzzle rating as the API shows it (a player's: START until the first try)."""
    now = glicko(row, START)
    return {"rating": round(now.rating, 1), "rd": round(now.rd, 1),
            "provisional": now.rd > PROVISIONAL_RD,
            "tries": 0 if row is None else row.tries,
            "solved": 0 if row is None else row.solved}


class PuzzleRoom:
    """The puzzles of one server: the shelf of shipped puzzles, and their ratings and
    players' tries in the store."""

    def __init__(self, shelf: Shelf, store: AsyncStore, players: Players,
                 clock: Callable[[], float], answers: Limiter) -> None:
        self.shelf = shelf
        self.store = store
        self.players = players
        self.clock = clock
        #: answers, per address
        self._answers = answers

    def today(self) -> dt.date:
        """The UTC date now, by the server's clock."""
        return dt.datetime.fromtimestamp(self.clock(), dt.UTC).date()

    async def overview(self, key: str | None) -> dict[str, Any]:
        """Each game with puzzles: its name, title, how many and, given a player's key, the
        player's puzzle rating there."""
        player = await self.players.player_of(key)
        ratings: dict[str, PuzzleRating] = {}
        if player is not None:
            with unavailable("the puzzle ratings could not be read",
                             "could not read puzzle ratings"):
                ratings = {r.game: r for r in await self.store.player_puzzle_ratings(player.id)}
        return {"games": [
            {"game": game, "title": puzzles[0].view.spec.title, "count": len(puzzles),
             "rating": None if player is None else rating_json(ratings.get(game))}
            for game, puzzles in self.shelf.games.items()]}

    async def puzzle(self, game: Any, puzzle_id: Any, key: str | None,
                     width: str) -> dict[str, Any]:
        """A puzzle's position (nothing of its answer), its rating now and, given a key,
        the player's rating and whether they tried it."""
        shelved = self.shelf.get(game, puzzle_id)
        return await self._shown(shelved, await self.players.player_of(key), width)

    async def next(self, game: Any, key: str | None, after: str | None,
                   width: str) -> dict[str, Any]:
        """The next puzzle for the player (:func:`pick_next`: near their puzzle rating, not
        one they tried nor one of ``after``, the least tried), or for a visitor near
        :data:`VISITOR_RATING`."""
        puzzles = self.shelf.of(game)
        shown_ids = read_after(after)
        player = await self.players.player_of(key)
        with unavailable("the puzzles could not be read", "could not read puzzle ratings"):
            stored = await self.store.puzzle_ratings(game)
            tried: set[str] = set()
            rating = VISITOR_RATING
            if player is not None:
                tried = await self.store.puzzles_tried(player.id, game)
                mine = [r for r in await self.store.player_puzzle_ratings(player.id)
                        if r.game == game]
                rating = glicko(mine[0] if mine else None, START).rating
        picked = pick_next(puzzles, {pid: (r.rating, r.tries) for pid, r in stored.items()},
                           rating, tried, shown_ids)
        return await self._shown(picked, player, width)

    async def daily(self, game: Any, day: str | None, width: str) -> dict[str, Any]:
        """``game``'s puzzle of the day (``day``: ``YYYY-MM-DD``, today's UTC date if None)."""
        when = read_day(day, self.today())
        shown = await self._shown(self.shelf.daily(game, when), None, width)
        return {**shown, "date": when.isoformat()}

    async def _shown(self, shelved: Shelved, player: PlayerRow | None,
                     width: str) -> dict[str, Any]:
        with unavailable("the puzzle could not be read", "could not read a puzzle's rating"):
            standing = await self.store.puzzle_standing(
                None if player is None else player.id, shelved.puzzle.game, shelved.puzzle.id)
        its = glicko(standing.puzzle, puzzle_start(shelved))
        return {"puzzle": position_json(shelved, width),
                "rating": round(its.rating, 1),
                "tries": 0 if standing.puzzle is None else standing.puzzle.tries,
                "you": None if player is None else rating_json(standing.player),
                "tried": standing.tried is not None}

    async def answer(self, game: Any, puzzle_id: Any, key: str | None, move_text: Any,
                     client: str, width: str) -> dict[str, Any]:
        """Answer a puzzle with a move: solved or not, the best move and its equivalents,
        every judged move with its facts, and, on a player's first try, both ratings'
        change. 400 for a move that is not one or not legal; 429 past the address's rate."""
        await take(self._answers, client, "puzzle answers")
        shelved = self.shelf.get(game, puzzle_id)
        move = shelved.read_move(move_text)
        solved = shelved.puzzle.solves(shelved.view, move)
        player = await self.players.player_of(key)
        rated: dict[str, Any] | None = None
        first = False
        if player is not None:
            first, rated = await self._rate(shelved, player, str(move), solved)
        puzzle = shelved.puzzle
        return {
            "id": puzzle.id, "game": puzzle.game, "move": str(move), "solved": solved,
            "best": {"move": puzzle.best.move, "same": list(puzzle.best.same)},
            "chosen": chosen_index(shelved, move),
            "moves": [judged_json(shelved, j, width) for j in puzzle.moves],
            "source": puzzle.source,
            "rated": first, "rating": rated,
        }

    async def _rate(self, shelved: Shelved, player: PlayerRow, move: str, solved: bool
                    ) -> tuple[bool, dict[str, Any] | None]:
        """Rate the player's try at the puzzle if it is their first: (rated, the ratings'
        change); a later try: (False, the change their first try made)."""
        puzzle = shelved.puzzle
        for _ in range(RETRIES):
            with unavailable("the puzzle rating could not be saved",
                             "could not store a puzzle try"):
                standing = await self.store.puzzle_standing(player.id, puzzle.game, puzzle.id)
                if standing.tried is not None:
                    return False, change_json(standing.tried)
                mine = glicko(standing.player, START)
                its = glicko(standing.puzzle, puzzle_start(shelved))
                score = 1.0 if solved else 0.0
                mine_after = rate(mine, [(its.rating, its.rd, score)])
                its_after = rate(its, [(mine.rating, mine.rd, 1.0 - score)])
                now = self.clock()
                tried = PuzzleTry(player.id, puzzle.game, puzzle.id, move, solved,
                                  mine.rating, mine_after.rating, its.rating, its_after.rating,
                                  now)
                try:
                    stored = await self.store.record_puzzle_try(
                        tried, rated_row(player.id, puzzle.game, mine_after, standing.player,
                                         solved, now),
                        rated_row(puzzle.id, puzzle.game, its_after, standing.puzzle,
                                  solved, now))
                except RatingConflict:
                    continue
            if stored:
                return True, {**change_json(tried), "rd": round(mine_after.rd, 1)}
        raise ApiError(503, "the puzzle rating changed too often while it was reckoned; try "
                            "again in a moment", retry_after=2)


def rated_row(who: str, game: str, new: Glicko, before: PuzzleRating | None, solved: bool,
              now: float) -> PuzzleRating:
    """The stored row of ``who``'s rating after one more rated try (``solved``: whether the
    try solved the puzzle, counted in ``solved``)."""
    tries = 0 if before is None else before.tries
    solves = 0 if before is None else before.solved
    return PuzzleRating(who, game, new.rating, new.rd, new.volatility, tries + 1,
                        solves + int(solved), now)


def change_json(tried: PuzzleTry) -> dict[str, Any]:
    """A rated try's change to the player's and the puzzle's ratings."""
    return {"before": round(tried.rating_before, 1), "after": round(tried.rating_after, 1),
            "change": round(tried.rating_after - tried.rating_before, 1),
            "puzzle_before": round(tried.puzzle_before, 1),
            "puzzle_after": round(tried.puzzle_after, 1),
            "solved": tried.solved, "move": tried.move}
