"""The lobby: the named players' lobby sockets, each held by one server process that says
it is alive (so a process that dies leaves none behind), and the seeks they own.

Accepting a seek stores the game and marks the seek with it in one transaction (two
accepts at once make one game). The match is then owed to the seek's creator
(:meth:`Seeks.owed_matches`) until their page acknowledges it (:meth:`Seeks.ack_match`):
a message sent proves nothing, since a dying socket swallows it. The accepted seek stays
while its game is played. Both seats' tokens derive from its id, which the game keeps
(``token_from``) for :meth:`Seeks.live_games_of` to give a player's page.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import replace

from dominolab.web.storage.database import Database
from dominolab.web.storage.games import insert_game
from dominolab.web.storage.rows import (
    GAME_COLUMNS,
    GAME_JOINS,
    SEEK_COLUMNS,
    SEEK_JOINS,
    GameRow,
    SeekRow,
    game_row,
    seek_row,
)


class Seeks(Database):
    """The lobby's part of :class:`~dominolab.web.storage.store.Store`."""

    # -- lobby sockets -----------------------------------------------------------------------
    def open_lobby_socket(self, socket: str, player: str, server: str) -> None:
        """A named player's lobby socket, held by the server process ``server``."""
        with self._lock:
            self._db.execute(
                "INSERT INTO lobby_sockets (id, player, server, seen) VALUES (?, ?, ?, ?)",
                (socket, player, server, self.clock()))

    def close_lobby_socket(self, socket: str) -> int:
        """A lobby socket ended: forget it and delete its open seeks (accepted ones stay
        until their creator is told); returns how many seeks went."""
        with self._write():
            gone = self._db.execute(
                "DELETE FROM seeks WHERE socket = ? AND game_id IS NULL", (socket,)
            ).rowcount
            self._db.execute("DELETE FROM lobby_sockets WHERE id = ?", (socket,))
        return int(gone)

    def heartbeat(self, server: str, sockets: Sequence[tuple[str, str]]) -> None:
        """The server process ``server`` is alive and holds these lobby sockets (id,
        player): their rows are kept, or put back after a pause long enough for another
        process to have swept them."""
        if not sockets:
            return
        now = self.clock()
        with self._write():
            self._db.executemany(
                "INSERT INTO lobby_sockets (id, player, server, seen) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (id) DO UPDATE SET seen = excluded.seen, "
                "server = excluded.server",
                [(socket, player, server, now) for socket, player in sockets])

    def sweep_lobby(self, dead_before: float, accepted_before: float) -> int:
        """Delete the lobby sockets whose process has not said it is alive since
        ``dead_before`` (it died) with every open seek no socket owns, and the seeks
        accepted before ``accepted_before`` whose game is no longer played (until then a
        late accept is told it came second, and a match owed is still told); returns how
        many open seeks went."""
        with self._write():
            self._db.execute("DELETE FROM lobby_sockets WHERE seen < ?", (dead_before,))
            gone = self._db.execute(
                "DELETE FROM seeks WHERE game_id IS NULL AND socket NOT IN "
                "(SELECT id FROM lobby_sockets)").rowcount
            self._db.execute(
                "DELETE FROM seeks WHERE game_id IS NOT NULL AND accepted < ? AND game_id "
                "NOT IN (SELECT id FROM games WHERE finished = 0)", (accepted_before,))
        return int(gone)

    # -- seeks -------------------------------------------------------------------------------
    def create_seek(self, row: SeekRow, max_open: int) -> SeekRow | str:
        """Store the open seek ``row``, owned by the lobby socket ``row.socket`` (which must
        be its player's), or by the player's latest lobby socket if ``row.socket`` is
        ``''``. Returns the seek as stored, or why not: ``"no-socket"`` (the player has no
        such lobby socket), ``"too-many"`` (the player has ``max_open`` open seeks)."""
        with self._write() as tx:
            made = self._insert_seek(row, max_open)
            if not isinstance(made, SeekRow):
                tx.discard()
        return made

    def _insert_seek(self, row: SeekRow, max_open: int) -> SeekRow | str:
        """Call with the lock held, in a transaction."""
        if row.socket:
            found = self._db.execute("SELECT id FROM lobby_sockets WHERE id = ? AND player = ?",
                                     (row.socket, row.player.id)).fetchone()
        else:
            found = self._db.execute(
                "SELECT id FROM lobby_sockets WHERE player = ? ORDER BY seen DESC, id LIMIT 1",
                (row.player.id,)).fetchone()
        if found is None:
            return "no-socket"
        open_seeks = self._db.execute(
            "SELECT COUNT(*) FROM seeks WHERE player = ? AND game_id IS NULL",
            (row.player.id,)).fetchone()[0]
        if open_seeks >= max_open:
            return "too-many"
        made = replace(row, socket=str(found[0]))
        self._db.execute(
            "INSERT INTO seeks (id, player, socket, game, options, rated, move_seconds, "
            "token_hash, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (made.id, made.player.id, made.socket, made.game,
             json.dumps(made.options, sort_keys=True), int(made.rated), made.move_seconds,
             made.token_hash, made.created))
        return made

    def seek(self, seek_id: str) -> SeekRow | None:
        """The seek, open or accepted; None if there is none."""
        with self._lock:
            found = self._db.execute(
                f"SELECT {SEEK_COLUMNS} FROM seeks s {SEEK_JOINS} WHERE s.id = ?",
                (seek_id,)).fetchone()
        return None if found is None else seek_row(found)

    def delete_seek(self, seek_id: str, player: str) -> bool:
        """Delete ``player``'s open seek; False if it is not an open seek of theirs."""
        with self._lock:
            gone = self._db.execute(
                "DELETE FROM seeks WHERE id = ? AND player = ? AND game_id IS NULL",
                (seek_id, player)).rowcount
        return bool(gone == 1)

    def accept_seek(self, seek_id: str, player: str, build: Callable[[SeekRow], GameRow]
                    ) -> GameRow | str:
        """``player`` accepts the open seek: the game ``build(seek)`` is stored and the
        seek marked with it, in one transaction, and both players' other open seeks are
        deleted. Returns the game, or why not: ``"gone"`` (no such seek), ``"taken"``
        (accepted already: two accepts at once make one game), ``"own"``."""
        with self._write() as tx:
            found = self._db.execute(
                f"SELECT {SEEK_COLUMNS} FROM seeks s {SEEK_JOINS} WHERE s.id = ?",
                (seek_id,)).fetchone()
            seek = None if found is None else seek_row(found)
            made: GameRow | str
            if seek is None:
                made = "gone"
            elif seek.game_id is not None:
                made = "taken"
            elif seek.player.id == player:
                made = "own"
            else:
                made = self._accept(seek, player, build)
            if not isinstance(made, GameRow):
                tx.discard()
        return made

    def _accept(self, seek: SeekRow, player: str, build: Callable[[SeekRow], GameRow]
                ) -> GameRow:
        """Call with the lock held, in a transaction, for an open seek of another player."""
        row = build(seek)
        seat = 0 if row.token_hashes[0] == seek.token_hash else 1
        insert_game(self._db, row)
        self._db.execute("UPDATE seeks SET game_id = ?, seat = ?, accepted = ? WHERE id = ?",
                         (row.id, seat, row.created, seek.id))
        self._db.execute("DELETE FROM seeks WHERE game_id IS NULL AND player IN (?, ?)",
                         (seek.player.id, player))
        return row

    def quick_pair(self, seek: SeekRow, max_open: int, build: Callable[[SeekRow], GameRow]
                   ) -> GameRow | SeekRow | str:
        """Quick pairing, in one transaction: accept the oldest open seek of another player
        for the same game, options, rating and clock as ``seek`` (returns the new game);
        else keep the player's own such seek if there is one, or open ``seek`` (returns the
        seek); or why not, as :meth:`create_seek` says."""
        with self._write() as tx:
            alike = ("s.game_id IS NULL AND s.game = ? AND s.options = ? AND s.rated = ? "
                     "AND s.move_seconds = ?")
            args = (seek.game, json.dumps(seek.options, sort_keys=True), int(seek.rated),
                    seek.move_seconds, seek.player.id)
            other = self._db.execute(
                f"SELECT {SEEK_COLUMNS} FROM seeks s {SEEK_JOINS} WHERE {alike} "
                "AND s.player <> ? ORDER BY s.created, s.id LIMIT 1", args).fetchone()
            mine = None if other is not None else self._db.execute(
                f"SELECT {SEEK_COLUMNS} FROM seeks s {SEEK_JOINS} WHERE {alike} "
                "AND s.player = ? ORDER BY s.created, s.id LIMIT 1", args).fetchone()
            made: GameRow | SeekRow | str
            if other is not None:
                made = self._accept(seek_row(other), seek.player.id, build)
            elif mine is not None:
                made = seek_row(mine)
            else:
                made = self._insert_seek(seek, max_open)
            if isinstance(made, str):
                tx.discard()
        return made

    def lobby(self, limit: int = 100
              ) -> tuple[list[SeekRow], list[GameRow], list[tuple[str, str, str]]]:
        """What the lobby shows: the open seeks, oldest first; the unfinished lobby games,
        newest first (at most ``limit`` of each); and the matches owed (accepted seeks
        whose creator's page has not acknowledged them), as (seek id, socket, player)."""
        with self._lock:
            seeks = self._db.execute(
                f"SELECT {SEEK_COLUMNS} FROM seeks s {SEEK_JOINS} WHERE s.game_id IS NULL "
                "ORDER BY s.created, s.id LIMIT ?", (limit,)).fetchall()
            live = self._db.execute(
                f"SELECT {GAME_COLUMNS} FROM games g {GAME_JOINS} "
                "WHERE g.finished = 0 AND g.move_seconds IS NOT NULL AND g.mode = 'lobby' "
                "ORDER BY g.created DESC, g.id LIMIT ?", (limit,)).fetchall()
            owed = self._db.execute(
                "SELECT id, socket, player FROM seeks WHERE game_id IS NOT NULL "
                "AND acked IS NULL").fetchall()
        return ([seek_row(r) for r in seeks], [game_row(r) for r in live],
                [(str(a), str(b), str(c)) for a, b, c in owed])

    def owed_matches(self, player: str) -> list[tuple[str, str, int]]:
        """The matches owed to ``player``: their accepted seeks that their page has not
        acknowledged, as (seek id, game id, their seat), oldest first. Reading them marks
        nothing: they are owed, to every lobby socket of the player, until
        :meth:`ack_match`."""
        with self._lock:
            found = self._db.execute(
                "SELECT id, game_id, seat FROM seeks WHERE player = ? AND game_id IS NOT NULL "
                "AND acked IS NULL ORDER BY accepted, id", (player,)).fetchall()
        return [(str(a), str(b), int(c)) for a, b, c in found]

    def ack_match(self, seek_id: str, player: str) -> bool:
        """``player``'s page has the seat of the game made of their seek ``seek_id``: the
        match is no longer owed (again: harmless). False if that is no accepted seek of
        theirs."""
        with self._write():
            found = self._db.execute(
                "UPDATE seeks SET acked = COALESCE(acked, ?) WHERE id = ? AND player = ? "
                "AND game_id IS NOT NULL", (self.clock(), seek_id, player)).rowcount
        return bool(found == 1)

    def live_games_of(self, player: str, limit: int = 100) -> list[GameRow]:
        """The unfinished games ``player`` holds a seat in (lobby, against the computer,
        with a friend), newest first."""
        with self._lock:
            found = self._db.execute(
                f"SELECT {GAME_COLUMNS} FROM games g {GAME_JOINS} "
                "WHERE g.finished = 0 AND (g.player0 = ? OR g.player1 = ?) "
                "ORDER BY g.created DESC, g.id LIMIT ?", (player, player, limit)).fetchall()
        return [game_row(r) for r in found]
