"""Puzzle ratings (:mod:`dominolab.web.community.puzzles`): a player's puzzle rating per
game, each puzzle's rating once it was first tried, and each player's first (rated) try at a
puzzle. A try and the two ratings it moves are stored in one transaction, only if the player
had not tried the puzzle before and neither rating changed since it was read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dominolab.web.storage.database import Database
from dominolab.web.storage.rows import RatingConflict


@dataclass(frozen=True, slots=True)
class PuzzleRating:
    """A Glicko-2 puzzle rating: a player's in a game (``who``: the player's id) or a
    puzzle's (``who``: the puzzle's id). ``tries``: the rated tries counted (0: none, the
    starting values), also the row's version; ``solved``: how many of them were solved."""

    who: str
    game: str
    rating: float
    rd: float
    volatility: float
    tries: int
    solved: int
    updated: float


@dataclass(frozen=True, slots=True)
class PuzzleTry:
    """A player's first try at a puzzle, the rated one: the move answered, whether it
    solved it, and both ratings before and after."""

    player: str
    game: str
    puzzle: str
    move: str
    solved: bool
    rating_before: float
    rating_after: float
    puzzle_before: float
    puzzle_after: float
    at: float


@dataclass(frozen=True, slots=True)
class PuzzleStanding:
    """What rating a try needs: the player's and the puzzle's stored ratings (None: none
    stored yet) and the player's first try at the puzzle, if they made one."""

    player: PuzzleRating | None
    puzzle: PuzzleRating | None
    tried: PuzzleTry | None


_RATING = "rating, rd, volatility, tries, solved, updated"
_TRY = ("player, game, puzzle, move, solved, rating_before, rating_after, puzzle_before, "
        "puzzle_after, at")


def _rating(who: str, game: str, row: Sequence[Any]) -> PuzzleRating:
    return PuzzleRating(who, game, float(row[0]), float(row[1]), float(row[2]), int(row[3]),
                        int(row[4]), float(row[5]))


def _try(row: Sequence[Any]) -> PuzzleTry:
    return PuzzleTry(str(row[0]), str(row[1]), str(row[2]), str(row[3]), bool(row[4]),
                     float(row[5]), float(row[6]), float(row[7]), float(row[8]),
                     float(row[9]))


class Puzzles(Database):
    """The puzzles' part of :class:`~dominolab.web.storage.store.Store`."""

    def puzzle_standing(self, player: str | None, game: str, puzzle: str) -> PuzzleStanding:
        """The player's puzzle rating in ``game``, the puzzle's and the player's first try
        at it (``player=None``, a visitor: the puzzle's alone)."""
        with self._lock:
            mine = tried = None
            if player is not None:
                mine = self._db.execute(
                    f"SELECT {_RATING} FROM puzzle_players WHERE player = ? AND game = ?",
                    (player, game)).fetchone()
                tried = self._db.execute(
                    f"SELECT {_TRY} FROM puzzle_tries WHERE player = ? AND game = ? "
                    "AND puzzle = ?", (player, game, puzzle)).fetchone()
            its = self._db.execute(
                f"SELECT {_RATING} FROM puzzle_ratings WHERE game = ? AND puzzle = ?",
                (game, puzzle)).fetchone()
        return PuzzleStanding(
            None if mine is None or player is None else _rating(player, game, mine),
            None if its is None else _rating(puzzle, game, its),
            None if tried is None else _try(tried))

    def record_puzzle_try(self, tried: PuzzleTry, player: PuzzleRating,
                          puzzle: PuzzleRating) -> bool:
        """Store the player's first try at a puzzle and the new ratings it gives the player
        and the puzzle, in one transaction: True if stored, False if the player had tried
        the puzzle before (nothing is stored). Each rating must have been reckoned from the
        stored one, whose ``tries`` is one less (none stored when it is 1); otherwise
        nothing is stored and :class:`RatingConflict` is raised."""
        with self._write() as tx:
            stored = self._db.execute(
                f"INSERT INTO puzzle_tries ({_TRY}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (player, game, puzzle) DO NOTHING",
                (tried.player, tried.game, tried.puzzle, tried.move, int(tried.solved),
                 tried.rating_before, tried.rating_after, tried.puzzle_before,
                 tried.puzzle_after, tried.at)).rowcount
            if stored != 1:
                tx.discard()
                return False
            for table, key, unique, row in (
                    ("puzzle_players", "player", "player, game", player),
                    ("puzzle_ratings", "puzzle", "game, puzzle", puzzle)):
                values = (row.rating, row.rd, row.volatility, row.tries, row.solved,
                          row.updated)
                if row.tries == 1:
                    changed = self._db.execute(
                        f"INSERT INTO {table} ({key}, game, {_RATING}) "
                        f"VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT ({unique}) DO NOTHING",
                        (row.who, row.game, *values)).rowcount
                else:
                    changed = self._db.execute(
                        f"UPDATE {table} SET rating = ?, rd = ?, volatility = ?, tries = ?, "
                        f"solved = ?, updated = ? WHERE {key} = ? AND game = ? AND tries = ?",
                        (*values, row.who, row.game, row.tries - 1)).rowcount
                if changed != 1:
                    raise RatingConflict(f"{row.who}'s {row.game} puzzle rating changed "
                                         f"while the try at {tried.puzzle} was reckoned")
        return True

    def puzzle_ratings(self, game: str) -> dict[str, PuzzleRating]:
        """The stored ratings of ``game``'s puzzles that were tried, by puzzle id."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT puzzle, {_RATING} FROM puzzle_ratings WHERE game = ?",
                (game,)).fetchall()
        return {str(r[0]): _rating(str(r[0]), game, r[1:]) for r in rows}

    def puzzles_tried(self, player: str, game: str) -> set[str]:
        """The ids of ``game``'s puzzles the player has tried."""
        with self._lock:
            rows = self._db.execute(
                "SELECT puzzle FROM puzzle_tries WHERE player = ? AND game = ?",
                (player, game)).fetchall()
        return {str(r[0]) for r in rows}

    def player_puzzle_ratings(self, player: str) -> list[PuzzleRating]:
        """The player's puzzle ratings, one per game they have tried a puzzle of."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT game, {_RATING} FROM puzzle_players WHERE player = ? ORDER BY game",
                (player,)).fetchall()
        return [_rating(player, str(r[0]), r[1:]) for r in rows]
