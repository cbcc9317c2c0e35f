"""How games end without a move: a move's clock that ran out (lobby games and rated
matches against the computer), and games deleted when nobody has touched them for long
(:meth:`Expiry.expire`).
"""

from __future__ import annotations

from typing import Final

from dominolab.web.storage.database import Database
from dominolab.web.storage.rows import GameResult

#: a game's moves stored, and when it last moved (``g``: games)
_PLIES: Final = "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id)"
_MOVED: Final = "COALESCE((SELECT MAX(m.at) FROM moves m WHERE m.game_id = g.id), g.created)"


class Expiry(Database):
    """The clocks' and expiry's part of :class:`~dominolab.web.storage.store.Store`."""

    # -- clocks ------------------------------------------------------------------------------
    def moved_at(self, game_id: str) -> float | None:
        """When the game's last move was stored (its creation, before any); None if there
        is no such game. A clock runs from there."""
        with self._lock:
            found = self._db.execute(
                "SELECT g.created, (SELECT MAX(m.at) FROM moves m WHERE m.game_id = g.id) "
                "FROM games g WHERE g.id = ?", (game_id,)).fetchone()
        if found is None:
            return None
        return float(found[0] if found[1] is None else found[1])

    def out_of_time(self, ran_out_by: float) -> list[tuple[str, int]]:
        """The unfinished games whose player to move ran out of time by ``ran_out_by``
        (the last move's time plus the game's ``move_seconds``), as (id, moves stored)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT g.id, {_PLIES} FROM games g WHERE g.finished = 0 "
                f"AND g.move_seconds IS NOT NULL AND {_MOVED} + g.move_seconds <= ?",
                (ran_out_by,)).fetchall()
        return [(str(i), int(n)) for i, n in rows]

    def end_by_time(self, game_id: str, version: int, result: GameResult,
                    ran_out_by: float) -> bool:
        """Store ``result`` as the game's end, only if it is unfinished, still has exactly
        ``version`` moves and its clock ran out by ``ran_out_by`` (one conditional
        UPDATE); False if not (a move came first, or it has ended already: an ending is
        stored once)."""
        with self._write():
            changed = self._db.execute(
                "UPDATE games SET finished = 1, updated = ?, winner = ?, points0 = ?, "
                "points1 = ?, ended_by = ? WHERE id = ? AND finished = 0 "
                "AND move_seconds IS NOT NULL "
                "AND (SELECT COUNT(*) FROM moves m WHERE m.game_id = games.id) = ? "
                "AND COALESCE((SELECT MAX(m.at) FROM moves m WHERE m.game_id = games.id), "
                "games.created) + move_seconds <= ?",
                (self.clock(), result.winner, *result.points, result.ended_by, game_id,
                 version, ran_out_by)).rowcount
        return bool(changed == 1)

    # -- expiry ------------------------------------------------------------------------------
    def expire(self, unfinished_before: float, finished_before: float) -> list[str]:
        """Delete the unfinished games without a clock last changed before
        ``unfinished_before`` and the finished ones before ``finished_before``; returns
        their ids. An unfinished game with a clock is never deleted: its clock ends it (a
        rated match is then counted), and it goes once it has been finished for long."""
        with self._write():
            ids = [r[0] for r in self._db.execute(
                "SELECT id FROM games WHERE "
                "(finished = 0 AND move_seconds IS NULL AND updated < ?) "
                "OR (finished = 1 AND updated < ?)", (unfinished_before, finished_before))]
            self._db.executemany("DELETE FROM moves WHERE game_id = ?",
                                 [(i,) for i in ids])
            self._db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in ids])
            # a rematch that expired first may be asked for again
            self._db.executemany("UPDATE games SET rematch = NULL, rematch_by = NULL "
                                 "WHERE rematch = ?", [(i,) for i in ids])
        return ids
