"""Players (docs/web.md, "Players"): a name chosen once, with a secret key the browser keeps
(the server keeps only its hash), and a page anyone may see: the name, the ratings and the
finished matches."""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from typing import Any

from dominolab.web.community.names import KEYS_VERSION, NameRefused, check_name, skeleton
from dominolab.web.community.ratings import change_json, rating_json
from dominolab.web.community.standings import RATED_GAMES
from dominolab.web.errors import ApiError, take
from dominolab.web.games.live import ID_RE, player_json, token_hash
from dominolab.web.limits import Limiter
from dominolab.web.storage.events import Events
from dominolab.web.storage.store import (
    DATABASE_ERRORS,
    AsyncStore,
    GameRow,
    PlayerRow,
    RatingChange,
    unavailable,
)

log = logging.getLogger("dominolab.web")


class Players:
    """The players of one server's store."""

    def __init__(self, store: AsyncStore, clock: Callable[[], float], limit: Limiter,
                 events: Events) -> None:
        self.store = store
        self.clock = clock
        #: new players per client (the games' :meth:`GameService.limiter`: over every
        #: server on the same database)
        self._limit = limit
        #: players by the hash of their key, as they were last read (only a moderator
        #: changes one: then they are read again, :meth:`watch_forever`)
        self._by_key: dict[str, PlayerRow] = {}
        #: the games' bus: a moderator's change is told on it (:meth:`watch_forever`)
        self.events = events
        self.events.subscribe("players", self._moderated)

    async def _moderated(self, topic: str, message: dict[str, Any]) -> None:
        """A moderator renamed, banned, unbanned, hid or forgot a player (or, on
        PostgreSQL, the bus may have missed one): read every player again when next
        seen."""
        self._by_key.clear()

    async def watch_forever(self, every: float = 1.0) -> None:
        """On SQLite, where ``dominolab admin`` cannot reach this process's bus: read the
        ``players_version`` fact every ``every`` seconds, and when it changed tell this
        process's listeners of ``players`` and ``lobby`` (a ban deletes seeks). On
        PostgreSQL the action's own NOTIFY tells every server, and this returns at once."""
        if self.events.shared:
            return
        seen: int | None = None
        while True:
            now: int | None
            try:
                now = await self.store.players_version()
            except DATABASE_ERRORS as exc:
                log.warning("could not read the players' version: %s", exc)
                now = seen
            if seen is not None and now != seen:
                log.info("a moderator changed players (version %s)", now)
                await self.events.publish("players", {"version": now})
                await self.events.publish("lobby", {"players": now})
            seen = now
            await asyncio.sleep(every)

    async def rekey(self) -> int:
        """At start: the stored name keys made again if :func:`skeleton` has changed since
        they were made (:meth:`~dominolab.web.storage.store.Store.rekey_players`); returns
        how many changed."""
        changed = await self.store.rekey_players(skeleton, KEYS_VERSION)
        if changed:
            log.info("made %d players' name keys again (%s)", changed, KEYS_VERSION)
        return changed

    async def register(self, name: Any, client: str = "local") -> tuple[PlayerRow, str]:
        """A new player called ``name``; returns it with its secret key (kept by the
        browser; the server keeps only its hash). 422 for a name that may not be used, 409
        for one taken (or too like one taken)."""
        try:
            shown = check_name(name)
        except NameRefused as exc:
            raise ApiError(422, str(exc)) from None
        await take(self._limit, client, "new players")
        key = secrets.token_urlsafe(24)
        row = PlayerRow(secrets.token_urlsafe(9), shown, token_hash(key), self.clock())
        with unavailable("the new player could not be saved", "could not store a new player"):
            made = await self.store.create_player(row, skeleton(shown))
        if not made:
            raise ApiError(409, f"the name {shown!r} is taken (or looks like one that is); "
                                f"choose another")
        self._by_key[row.key_hash] = row
        return row, key

    async def player_of(self, key: str | None) -> PlayerRow | None:
        """The player whose secret key this is; None without a key, 401 for a key that is
        nobody's (a page should then forget it)."""
        if key is None:
            return None
        digest = token_hash(key)
        found = self._by_key.get(digest)
        if found is None:
            with unavailable("the player could not be read", "could not read a player"):
                found = await self.store.player(key_hash=digest)
            if found is None:
                raise ApiError(401, "this player key is nobody's (the server may have a new "
                                    "database); choose your name again")
            if len(self._by_key) > 10_000:
                self._by_key.clear()
            self._by_key[digest] = found
        return found

    async def player_page(self, player_id: str) -> dict[str, Any]:
        """What anyone may see of a player: the name and the finished matches (docs/web.md,
        "Players"); 404 if there is no such player."""
        with unavailable("the player could not be read", f"could not read player {player_id}"):
            found = None if not ID_RE.match(player_id) else await self.store.player(
                id=player_id)
            games = [] if found is None else await self.store.finished_games_of(player_id)
        if found is None:
            raise ApiError(404, "there is no such player")
        with unavailable("the player could not be read",
                         f"could not read player {player_id}'s ratings"):
            ratings = await self.store.player_ratings(player_id)
            changes = await self.store.rating_changes_of(player_id,
                                                         [g.id for g in games if g.rated])
        by_game = {r.game: rating_json(r) for r in ratings}
        return {"id": found.id, "name": found.name, "since": found.created,
                "ratings": {game: by_game.get(game) for game in RATED_GAMES},
                "matches": [_match_json(row, player_id, changes.get(row.id))
                            for row in games]}


def _match_json(row: GameRow, player_id: str, change: RatingChange | None = None
                ) -> dict[str, Any]:
    """One finished match of a player's page, from that player's side, with what it did to
    the player's rating (``change``) if it counted."""
    seat = 0 if row.players[0] is not None and row.players[0].id == player_id else 1
    result = row.result
    return {
        "id": row.id, "game": row.game, "options": row.options, "seat": seat,
        "opponent": player_json(row.players[1 - seat]),
        "computer": row.opponent if row.mode == "computer" else None,
        "outcome": None if result is None else (
            "drawn" if result.winner is None else "won" if result.winner == seat else "lost"),
        "points": None if result is None else [result.points[seat], result.points[1 - seat]],
        "ended_by": None if result is None else result.ended_by,
        "played": row.created,
        "rated": row.rated,
        "rating": None if change is None else change_json(change),
    }
