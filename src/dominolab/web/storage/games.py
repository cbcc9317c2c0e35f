"""The games and their moves: storing a game, appending its moves (each committed before
anyone is told of it), claiming a friend's invitation, making a rematch, and reading a game
back whole or from a ply on.

A game is stored as what makes it up (game, options, seed, first opener, seats) plus its
moves in order; the state is rebuilt by re-applying the moves through the engine, so what
is stored can never disagree with the rules.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from dominolab.web.storage.database import Database
from dominolab.web.storage.rows import (
    GAME_COLUMNS,
    GAME_JOINS,
    GameResult,
    GameRow,
    MoveConflict,
    game_row,
)


def insert_game(db: sqlite3.Connection, row: GameRow) -> None:
    """Store a new game on ``db``; call with the store's lock held (games made by a seek or
    a rematch are stored in the transaction that makes them)."""
    db.execute(
        "INSERT INTO games (id, game, options, seed, first_opener, mode, opponent, "
        "token0, token1, rules_version, created, updated, finished, invite, "
        "player0, player1, rated, move_seconds, token_from) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (row.id, row.game, json.dumps(row.options, sort_keys=True), row.seed,
         row.first_opener, row.mode, row.opponent, row.token_hashes[0],
         row.token_hashes[1], row.rules_version, row.created, row.created,
         int(row.finished), row.invite, *(p and p.id for p in row.players),
         int(row.rated), row.move_seconds, row.token_from),
    )


@dataclass(frozen=True, slots=True)
class NewMoves:
    """The arguments of one :meth:`Games.add_moves`, as :meth:`Games.add_moves_of_games`
    takes several at once."""

    game_id: str
    first_ply: int
    moves: tuple[tuple[int, str], ...]
    finished: bool
    result: GameResult | None = None


#: what one game's moves came to in :meth:`Games.add_moves_of_games`: None (stored), or
#: the error :meth:`Games.add_moves` raised for them alone (PostgreSQL's are sqlite3's)
Outcome = MoveConflict | sqlite3.Error | None


class Games(Database):
    """The games' part of :class:`~dominolab.web.storage.store.Store`."""

    def create_game(self, row: GameRow) -> None:
        with self._lock:
            insert_game(self._db, row)

    def load_game(self, game_id: str) -> tuple[GameRow, list[tuple[int, str]]] | None:
        """The game and its moves as (seat, move) in order, or None."""
        with self._lock:
            found = self._db.execute(
                f"SELECT {GAME_COLUMNS} FROM games g {GAME_JOINS} WHERE g.id = ?", (game_id,)
            ).fetchone()
            if found is None:
                return None
            moves = self._db.execute(
                "SELECT seat, move FROM moves WHERE game_id = ? ORDER BY ply", (game_id,)
            ).fetchall()
        return game_row(found), [(int(s), str(m)) for s, m in moves]

    def game_since(self, game_id: str, first_ply: int
                   ) -> tuple[GameRow, list[tuple[int, str]]] | None:
        """The game and its moves from ``first_ply`` on, or None: how a server catches up
        with what another process stored (:meth:`load_game` reads every move)."""
        with self._lock:
            # one query (one round trip to a database server): the game's columns on every
            # row, and its moves from first_ply on, or NULLs if there are none
            rows = self._db.execute(
                f"SELECT {GAME_COLUMNS}, m.seat, m.move FROM games g {GAME_JOINS} "
                "LEFT JOIN moves m ON m.game_id = g.id AND m.ply >= ? "
                "WHERE g.id = ? ORDER BY m.ply", (first_ply, game_id)).fetchall()
        if not rows:
            return None
        return game_row(rows[0]), [(int(r[-2]), str(r[-1])) for r in rows
                                    if r[-2] is not None]

    def create_rematch(self, game_id: str, seat: int, row: GameRow) -> tuple[str, int] | None:
        """Store ``row`` as the rematch of the finished game ``game_id``, asked for by
        ``seat``, in one transaction with the link to it, unless that game has a rematch
        already. Returns the rematch's id and the seat that asked for it: ``row``'s, or
        the one stored before (so two calls at once make one game); None if ``game_id`` is
        no finished game."""
        with self._write() as tx:
            found = self._db.execute(
                "SELECT finished, rematch, rematch_by FROM games WHERE id = ?", (game_id,)
            ).fetchone()
            if found is None or not found[0]:
                tx.discard()
                return None
            if found[1] is not None:
                tx.discard()
                return str(found[1]), int(found[2])
            insert_game(self._db, row)
            self._db.execute("UPDATE games SET rematch = ?, rematch_by = ?, updated = ? "
                             "WHERE id = ?", (row.id, seat, self.clock(), game_id))
        return row.id, seat

    def add_moves(self, game_id: str, first_ply: int, moves: Sequence[tuple[int, str]],
                  finished: bool, result: GameResult | None = None) -> None:
        """Append moves ``first_ply``, ``first_ply + 1``, ... in one transaction, or nothing:
        :class:`MoveConflict` if a move is stored at one of those plies already (or the
        game is gone), ``sqlite3.Error`` if the database fails (locked, full...). A move
        that finishes the game comes with its ``result``, stored in the same transaction."""
        now = self.clock()
        with self._write():
            # one look-up by primary keys: whether the game is over (or gone), and whether
            # the ply before the first is stored; the moves' primary key refuses a ply
            # stored already (no count of the game's moves)
            found = self._db.execute(
                "SELECT finished, EXISTS (SELECT 1 FROM moves WHERE game_id = ? AND ply = ?) "
                "FROM games WHERE id = ?", (game_id, first_ply - 1, game_id)).fetchone()
            if found is None:
                raise MoveConflict(f"game {game_id} is gone")
            if found[0]:
                # ended another way meanwhile (a clock ran out, in another process)
                raise MoveConflict(f"game {game_id} is over")
            if first_ply > 0 and not found[1]:
                raise MoveConflict(f"game {game_id} has fewer than {first_ply} moves stored")
            try:
                self._db.executemany(
                    "INSERT INTO moves (game_id, ply, seat, move, at) VALUES (?, ?, ?, ?, ?)",
                    [(game_id, first_ply + i, seat, move, now)
                     for i, (seat, move) in enumerate(moves)],
                )
            except sqlite3.IntegrityError:
                raise MoveConflict(f"game {game_id} has a move stored at ply {first_ply} "
                                   f"or after already") from None
            self._db.execute("UPDATE games SET updated = ?, finished = ? WHERE id = ?",
                             (now, int(finished), game_id))
            if result is not None:
                self._db.execute(
                    "UPDATE games SET winner = ?, points0 = ?, points1 = ?, ended_by = ? "
                    "WHERE id = ?", (result.winner, *result.points, result.ended_by,
                                     game_id))

    def add_moves_of_games(self, batch: Sequence[NewMoves]) -> list[Outcome]:
        """:meth:`add_moves` for each of ``batch`` (of different games, or of one game in
        order), in one transaction: one commit for them all, as the server's thread stores
        the moves of every game that arrived at once. Each game's moves are a savepoint, so
        one refused (:class:`MoveConflict`, or an ``IntegrityError`` of its own) is answered
        alone and the others are kept; any other database error (locked, full, the commit
        failing) raises, and then none of them is stored."""
        with self._together():
            return self.add_each(batch, (MoveConflict, sqlite3.IntegrityError))

    def add_each(self, batch: Sequence[NewMoves],
                 refused: tuple[type[MoveConflict | sqlite3.Error], ...]) -> list[Outcome]:
        """:meth:`add_moves` for each of ``batch`` in turn: what raises one of ``refused``
        is that game's answer alone (the others go on); anything else raises."""
        outcomes: list[Outcome] = []
        for one in batch:
            try:
                self.add_moves(one.game_id, one.first_ply, one.moves, one.finished,
                               one.result)
            except refused as exc:
                outcomes.append(exc)
            else:
                outcomes.append(None)
        return outcomes

    def claim_invite(self, game_id: str, invite_hash: str, token_hash: str,
                     player: str | None = None) -> bool:
        """Give seat 1 the token ``token_hash`` (and the player ``player``, if named) if
        ``invite_hash`` is the game's unclaimed invitation; False if it is not (wrong, or
        claimed already). Claimed once only."""
        with self._lock:
            changed = self._db.execute(
                "UPDATE games SET token1 = ?, invite = NULL, updated = ?, player1 = ? "
                "WHERE id = ? AND invite = ?",
                (token_hash, self.clock(), player, game_id, invite_hash)).rowcount
        return bool(changed == 1)

    def count_games(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
