"""A player's codes for more devices (:mod:`dominolab.web.community.devices`): one-time link
codes, short-lived and claimed once, and one recovery code per player, each stored as the
code's hash with the player's key sealed under the code (the server cannot open it without
the code).
"""

from __future__ import annotations

from dataclasses import dataclass

from dominolab.web.storage.database import Database


@dataclass(frozen=True, slots=True)
class CodeRow:
    """A stored code: whose it is, and the player's key sealed under it (hex)."""

    player: str
    kind: str
    sealed: str


@dataclass(frozen=True, slots=True)
class CodesOf:
    """What a player has for coming back: whether a recovery code is kept, and on how many
    devices a link code was claimed."""

    recovery: bool
    linked: int


class Devices(Database):
    """The codes' part of :class:`~dominolab.web.storage.store.Store`."""

    def put_code(self, code_hash: str, player: str, kind: str, sealed: str,
                 expires: float | None) -> None:
        """Store a new code of ``kind`` (``"link"`` or ``"recovery"``) for ``player``, in
        place of the player's earlier code of that kind (a new one replaces the old)."""
        with self._write():
            self._db.execute("DELETE FROM player_codes WHERE player = ? AND kind = ?",
                             (player, kind))
            self._db.execute(
                "INSERT INTO player_codes (code_hash, player, kind, sealed, created, expires) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (code_hash, player, kind, sealed, self.clock(), expires))

    def claim_code(self, code_hash: str, kind: str, now: float) -> CodeRow | None:
        """The code of ``kind`` whose hash is ``code_hash``, or None if there is none (or it
        expired). A link code is deleted as it is claimed (one conditional DELETE: two
        devices claiming it at once, one gets it) and the player's ``linked`` counted; a
        recovery code stays until a new one replaces it."""
        with self._write() as tx:
            found = self._db.execute(
                "SELECT player, kind, sealed FROM player_codes WHERE code_hash = ? "
                "AND kind = ? AND (expires IS NULL OR expires > ?)",
                (code_hash, kind, now)).fetchone()
            if found is None:
                tx.discard()
                return None
            if kind == "link":
                taken = self._db.execute(
                    "DELETE FROM player_codes WHERE code_hash = ? AND expires > ?",
                    (code_hash, now)).rowcount
                if taken != 1:
                    tx.discard()
                    return None
                self._db.execute("UPDATE players SET linked = linked + 1 WHERE id = ?",
                                 (found[0],))
        return CodeRow(str(found[0]), str(found[1]), str(found[2]))

    def codes_of(self, player: str) -> CodesOf:
        """Whether ``player`` keeps a recovery code, and how many devices were linked."""
        with self._lock:
            linked = self._db.execute("SELECT linked FROM players WHERE id = ?",
                                      (player,)).fetchone()
            recovery = self._db.execute(
                "SELECT COUNT(*) FROM player_codes WHERE player = ? AND kind = 'recovery'",
                (player,)).fetchone()
        return CodesOf(bool(recovery[0]), 0 if linked is None else int(linked[0]))

    def expire_codes(self, now: float) -> int:
        """Delete the link codes that expired by ``now`` unclaimed; returns how many."""
        with self._write():
            gone = self._db.execute(
                "DELETE FROM player_codes WHERE expires IS NOT NULL AND expires <= ?",
                (now,)).rowcount
        return int(gone)
