"""The players and their ratings: a player is a display name and a secret key's hash (no
password); a rating is a Glicko-2 rating per player and game
(:mod:`dominolab.web.community.ratings` reckons it), changed by each rated match once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from dominolab.web.storage.database import Database
from dominolab.web.storage.rows import (
    GAME_COLUMNS,
    GAME_JOINS,
    RATING_COLUMNS,
    RATING_COLUMNS_R,
    GameRow,
    PlayerRef,
    PlayerRow,
    RatingChange,
    RatingConflict,
    RatingRow,
    game_row,
    rating_row,
)


class Players(Database):
    """The players' and ratings' part of :class:`~dominolab.web.storage.store.Store`."""

    # -- players -----------------------------------------------------------------------------
    def create_player(self, row: PlayerRow, skeleton: str) -> bool:
        """Store a new player; False (and nothing stored) if a player of that name skeleton
        (:func:`dominolab.web.community.names.skeleton`) exists."""
        with self._lock:
            changed = self._db.execute(
                "INSERT INTO players (id, name, skeleton, key_hash, created) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
                (row.id, row.name, skeleton, row.key_hash, row.created)).rowcount
        return bool(changed == 1)

    def rekey_players(self, key: Callable[[str], str], version: str) -> int:
        """Make every player's name key ``key(name)`` again, unless the keys were made by
        ``version`` of :func:`~dominolab.web.community.names.skeleton` already (then
        nothing is read): in one transaction, the players in the order they registered, each
        taking its new key unless an earlier player holds it, and then keeping the key it
        had (or, were that held too, one of its own that no name matches). Nobody loses a
        name, two names never share a key, and a new look-alike of either clashes. Returns
        how many keys changed."""
        with self._write() as tx:
            if self._fact("name_keys") == version:
                tx.discard()
                return 0
            held: set[str] = set()
            changed: list[tuple[str, str]] = []
            for player, name, had in self._db.execute(
                    "SELECT id, name, skeleton FROM players WHERE forgotten IS NULL "
                    "ORDER BY created, id").fetchall():
                new = key(name)
                if new in held:
                    new = had if had not in held else f"#{player}"
                held.add(new)
                if new != had:
                    changed.append((player, new))
            # out of the way first: a key may move to a player whose old key it was
            self._db.executemany("UPDATE players SET skeleton = ? WHERE id = ?",
                                 [(f"#{player}", player) for player, _new in changed])
            self._db.executemany("UPDATE players SET skeleton = ? WHERE id = ?",
                                 [(new, player) for player, new in changed])
            self._set_fact("name_keys", version)
        return len(changed)

    def player(self, *, id: str | None = None, key_hash: str | None = None
               ) -> PlayerRow | None:
        """The player with this id, or with this key's hash; None if there is none (or it
        was forgotten: only its games' seats name it)."""
        column, value = ("id", id) if key_hash is None else ("key_hash", key_hash)
        with self._lock:
            found = self._db.execute(
                f"SELECT id, name, key_hash, created, banned FROM players WHERE {column} = ? "
                "AND forgotten IS NULL", (value,)).fetchone()
        return None if found is None else PlayerRow(*found)

    def player_names(self, ids: Sequence[str]) -> dict[str, str]:
        """The names of the players ``ids`` as stored now (a forgotten one's too)."""
        if not ids:
            return {}
        marks = ", ".join("?" for _ in ids)
        with self._lock:
            rows = self._db.execute(f"SELECT id, name FROM players WHERE id IN ({marks})",
                                    tuple(ids)).fetchall()
        return {r[0]: r[1] for r in rows}

    def players_version(self) -> int:
        """How many moderators' actions changed players (a server on SQLite reads this to
        see one: :class:`~dominolab.web.community.players.Players`)."""
        with self._lock:
            found = self._fact("players_version")
        return 0 if found is None else int(found)

    def finished_games_of(self, player: str, limit: int = 50) -> list[GameRow]:
        """The player's finished games, the latest first (at most ``limit``)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {GAME_COLUMNS} FROM games g {GAME_JOINS} "
                "WHERE (g.player0 = ? OR g.player1 = ?) AND g.finished = 1 "
                "ORDER BY g.updated DESC, g.id LIMIT ?", (player, player, limit)).fetchall()
        return [game_row(r) for r in rows]

    # -- ratings -----------------------------------------------------------------------------
    def ratings_of(self, game: str, players: Sequence[str]) -> dict[str, RatingRow]:
        """The stored ratings in ``game`` of those of ``players`` who have one."""
        if not players:
            return {}
        marks = ", ".join("?" for _ in players)
        with self._lock:
            rows = self._db.execute(
                f"SELECT {RATING_COLUMNS} FROM ratings WHERE game = ? AND player IN ({marks})",
                (game, *players)).fetchall()
        return {r[0]: rating_row(r) for r in rows}

    def player_ratings(self, player: str) -> list[RatingRow]:
        """The player's ratings, one per game they have played a rated match of."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {RATING_COLUMNS} FROM ratings WHERE player = ? ORDER BY game",
                (player,)).fetchall()
        return [rating_row(r) for r in rows]

    def leaderboard(self, game: str, provisional_rd: float, limit: int = 100
                    ) -> list[tuple[PlayerRef, RatingRow]]:
        """The best ``limit`` players of ``game``: those whose deviation is at most
        ``provisional_rd`` first, by rating, then the provisional ones, by rating; a banned
        player is left out."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT p.name, {RATING_COLUMNS_R} FROM ratings r "
                "JOIN players p ON p.id = r.player WHERE r.game = ? AND r.games > 0 "
                "AND p.banned IS NULL "
                "ORDER BY CASE WHEN r.rd > ? THEN 1 ELSE 0 END, r.rating DESC, r.player "
                "LIMIT ?", (game, provisional_rd, limit)).fetchall()
        return [(PlayerRef(r[1], r[0]), rating_row(r[1:])) for r in rows]

    def rating_changes_of(self, player: str, game_ids: Sequence[str]
                          ) -> dict[str, RatingChange]:
        """The player's rating changes in the matches ``game_ids``, by match."""
        if not game_ids:
            return {}
        marks = ", ".join("?" for _ in game_ids)
        with self._lock:
            rows = self._db.execute(
                "SELECT game_id, seat, player, game, rating_before, rating_after, rd_before, "
                "rd_after, opponent_rating, opponent_rd, at FROM rating_changes "
                f"WHERE player = ? AND game_id IN ({marks})", (player, *game_ids)).fetchall()
        return {r[0]: RatingChange(*r) for r in rows}

    def ratings_due(self, limit: int = 100) -> list[GameRow]:
        """Finished rated matches whose rating changes are not applied yet (a server that
        stopped, or a database that failed, just as one ended)."""
        with self._lock:
            rows = self._db.execute(
                f"SELECT {GAME_COLUMNS} FROM games g {GAME_JOINS} "
                "WHERE g.rated = 1 AND g.finished = 1 AND g.ratings_applied = 0 "
                "ORDER BY g.updated, g.id LIMIT ?", (limit,)).fetchall()
        return [game_row(r) for r in rows]

    def apply_ratings(self, game_id: str, ratings: Sequence[RatingRow],
                      changes: Sequence[RatingChange]) -> bool:
        """Store a finished rated match's new ratings and its changes, and mark the match's
        ratings applied, in one transaction, only if the mark is unset: True if this call
        applied them, False if they were applied before (or the game is no finished rated
        match, or is gone). Each new row must have been reckoned from the stored one, whose
        ``games`` is one less (none stored when it is 1); otherwise nothing is stored and
        :class:`RatingConflict` is raised. No ratings and no changes: only the mark (a
        match that counts for nothing)."""
        with self._write() as tx:
            claimed = self._db.execute(
                "UPDATE games SET ratings_applied = 1 WHERE id = ? AND rated = 1 "
                "AND finished = 1 AND ratings_applied = 0", (game_id,)).rowcount
            if claimed != 1:
                tx.discard()
                return False
            for row in ratings:
                values = (row.rating, row.rd, row.volatility, row.games, row.updated)
                if row.games == 1:
                    stored = self._db.execute(
                        "INSERT INTO ratings (player, game, rating, rd, volatility, "
                        "games, updated) VALUES (?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (player, game) DO NOTHING",
                        (row.player, row.game, *values)).rowcount
                else:
                    stored = self._db.execute(
                        "UPDATE ratings SET rating = ?, rd = ?, volatility = ?, games = ?, "
                        "updated = ? WHERE player = ? AND game = ? AND games = ?",
                        (*values, row.player, row.game, row.games - 1)).rowcount
                if stored != 1:
                    raise RatingConflict(f"{row.player}'s {row.game} rating changed "
                                         f"while match {game_id} was reckoned")
            self._db.executemany(
                "INSERT INTO rating_changes (game_id, seat, player, game, rating_before, "
                "rating_after, rd_before, rd_after, opponent_rating, opponent_rd, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(c.game_id, c.seat, c.player, c.game, c.rating_before, c.rating_after,
                  c.rd_before, c.rd_after, c.opponent_rating, c.opponent_rd, c.at)
                 for c in changes])
        return True
