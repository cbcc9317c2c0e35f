"""The lobby (docs/web.md, "The lobby"): open seeks that other players accept, quick
pairing, and the lobby's WebSockets, kept live from the store.

Everything a lobby shows is in the store, never only in this process's memory: several
server processes may share one database. A seek belongs to its creator's lobby socket, a
row with the process holding it and that process's heartbeat; the socket's end deletes its
seeks, and a process that dies stops its heartbeat, so another process's sweep deletes
them. Every change is committed, then announced on the event bus (topic ``"lobby"``), and
each process answers an announcement by reading the lobby from the store again (one read
for all its sockets, however many announcements came meanwhile) and sending it to every
socket whose view changed.

Accepting a seek stores the game and marks the seek with it in one transaction, so two
accepts at once make one game (the other is told 409). Both seats' tokens are derived from
their player's key and the seek's id (:func:`seat_token`): the store keeps only their
hashes; whichever process holds a lobby socket of the creator (which said the key in its
hello) can hand theirs over there, never in a URL; and a page holding a player's key
rejoins their live games (:meth:`Lobby.live_games`) by deriving the token itself.

The match is owed to the creator until their page acknowledges it (``{"type": "ack"}``):
every lobby socket of theirs, on any server, is told it once, so a socket that died as the
seek was accepted (a send into it "succeeds") leaves it owed to the next.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from dominolab.core import RULES_VERSION, OptionError, first_opener_by_lot, get_game
from dominolab.web.errors import ApiError, take
from dominolab.web.games.clocks import move_seconds_of
from dominolab.web.games.creator import is_default, log_created, refuse_banned
from dominolab.web.games.live import (
    Closer,
    LiveGame,
    Sender,
    game_seat_token,
    player_json,
    seat_token,
    token_hash,
)
from dominolab.web.games.service import GameService
from dominolab.web.storage.store import DATABASE_ERRORS, GameRow, PlayerRow, SeekRow, unavailable

log = logging.getLogger("dominolab.web")
T = TypeVar("T")

#: seek ids, socket ids
_ID_CHARS: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
#: at most this many open seeks and live matches are shown
SHOWN: Final = 100
#: an accepted seek is kept this long (a late accept is told it came second, 409)
ACCEPTED_KEPT: Final = 3600.0


def _is_id(value: Any) -> bool:
    return isinstance(value, str) and 8 <= len(value) <= 40 and set(value) <= _ID_CHARS


def _token_source(row: GameRow, seat: int, key: str) -> dict[str, str] | None:
    """What ``seat``'s token in ``row`` is derived from with the player's ``key``:
    ``{"kind": "seek", "id": ...}`` (:func:`seat_token`) or ``{"kind": "game", "id": ...}``
    (:func:`game_seat_token`), checked against the stored hash; None if the token is not
    derived from this key (random: made before tokens were derived, or a friend's
    invitation claimed)."""
    if row.token_from is None:
        return None
    kind, derive = ("seek", seat_token) if row.mode == "lobby" else ("game", game_seat_token)
    if not hmac.compare_digest(token_hash(derive(key, row.token_from)),
                               row.token_hashes[seat]):
        return None
    return {"kind": kind, "id": row.token_from}


def seek_json(seek: SeekRow) -> dict[str, Any]:
    return {"id": seek.id, "player": player_json(seek.player), "game": seek.game,
            "options": seek.options, "rated": seek.rated, "move_seconds": seek.move_seconds,
            "created": seek.created}


@dataclass(eq=False)
class LobbySocket:
    """One open lobby WebSocket; ``player`` and ``key`` are None for an anonymous watcher."""

    id: str
    player: PlayerRow | None
    key: str | None
    send: Sender
    close: Closer
    #: one send at a time, in order
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    #: the last lobby message sent (one that did not change is not sent again)
    last: str | None = None
    #: the seeks whose match this socket was told (each is told once per socket)
    told: set[str] = field(default_factory=set)


class Lobby:
    """The lobby of one server process, over its :class:`GameService`."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.store = service.store
        self.limits = service.limits
        #: this process, as the store knows it (the owner of its lobby sockets)
        self.server = secrets.token_urlsafe(9)
        self.sockets: dict[str, LobbySocket] = {}
        #: lobby sockets by client address (counted from the handshake on)
        self.clients: Counter[str] = Counter()
        self._seek_limit = service.limiter("seeks", self.limits.seeks_per_minute,
                                           self.limits.seeks_burst)
        self._dirty = False
        self._refresher: asyncio.Task[None] | None = None
        service.events.subscribe("lobby", self._on_event)

    # -- seeks -------------------------------------------------------------------------------
    def _terms(self, data: dict[str, Any]) -> tuple[str, dict[str, Any], bool, int]:
        """A seek's game, options, rating and clock from a request, checked."""
        game = data.get("game", "luzak")
        if not isinstance(game, str):
            raise ApiError(400, "game must be a text: luzak, luzak-line or widelec")
        try:
            spec = get_game(game)
            options = data.get("options")
            opts = spec.options_class.from_dict({} if options is None else options)
        except (OptionError, TypeError, ValueError) as exc:
            raise ApiError(422, str(exc)) from None
        rated = data.get("rated", False)
        if not isinstance(rated, bool):
            raise ApiError(400, "rated must be true or false")
        seconds = move_seconds_of(data.get("move_seconds"))
        chosen = opts.to_dict()
        if rated and not is_default(spec.name, chosen):
            raise ApiError(422, "a rated match is played with the game's default options; "
                                "open a casual one to change them")
        return spec.name, chosen, rated, seconds

    @staticmethod
    def _player(player: PlayerRow | None, key: str | None) -> tuple[PlayerRow, str]:
        if player is None or key is None:
            raise ApiError(401, "the lobby needs your player key (X-Player-Key: KEY); "
                                "choose a name first (POST /api/players)")
        refuse_banned(player, "the lobby's seeks and pairing")
        return player, key

    def _new_seek(self, player: PlayerRow, key: str, game: str, options: dict[str, Any],
                  rated: bool, seconds: int, socket: str) -> SeekRow:
        seek_id = secrets.token_urlsafe(9)
        return SeekRow(seek_id, player.ref, socket, game, options, rated, seconds,
                       token_hash(seat_token(key, seek_id)), self.service.clock())

    @staticmethod
    def _refused(why: str, open_seeks: int) -> ApiError:
        if why == "no-socket":
            return ApiError(409, "open the lobby first: a seek lasts as long as your lobby "
                                 "page (its WebSocket, /ws/lobby) is open")
        return ApiError(409, f"you have {open_seeks} open seeks already; cancel one first")

    async def create_seek(self, data: dict[str, Any], player: PlayerRow | None,
                          key: str | None, client: str = "local") -> SeekRow:
        """Open a seek owned by the player's lobby socket (``data["conn"]``, or their
        latest one)."""
        player, key = self._player(player, key)
        game, options, rated, seconds = self._terms(data)
        conn = data.get("conn")
        if conn is not None and not _is_id(conn):
            raise ApiError(400, "conn is the id your lobby socket was given in its welcome")
        await take(self._seek_limit, client, "seeks")
        seek = self._new_seek(player, key, game, options, rated, seconds, conn or "")
        made = await self._db(self.store.create_seek(seek, self.limits.open_seeks_per_player),
                              "open the seek")
        if isinstance(made, str):
            raise self._refused(made, self.limits.open_seeks_per_player)
        await self.service.events.publish("lobby", {"seek": made.id})
        return made

    async def cancel(self, seek_id: str, player: PlayerRow | None) -> None:
        """Delete the player's own open seek."""
        if player is None:
            raise ApiError(401, "this needs your player key (X-Player-Key: KEY)")
        if not _is_id(seek_id):
            raise ApiError(404, "there is no such seek")
        if await self._db(self.store.delete_seek(seek_id, player.id), "cancel the seek"):
            await self.service.events.publish("lobby", {"seek": seek_id})
            return
        found = await self._db(self.store.seek(seek_id), "cancel the seek")
        if found is None:
            raise ApiError(404, "there is no such seek (its player left, or it was cancelled)")
        if found.player.id != player.id:
            raise ApiError(403, "this seek is another player's")
        raise ApiError(409, "this seek has been accepted already")

    def _builder(self, player: PlayerRow, key: str
                 ) -> tuple[Callable[[SeekRow], GameRow], Callable[[], str]]:
        """The function that makes the game of an accepted seek (the creator in seat 0,
        ``player`` with key ``key`` in seat 1, the first opener by lot), and the function
        that gives seat 1's token once it has made it (derived from the key and the seek's
        id, as the creator's is)."""
        seed = self.service.seed(None)
        game_id = secrets.token_urlsafe(9)
        created = self.service.clock()
        tokens: list[str] = []

        def build(seek: SeekRow) -> GameRow:
            tokens.append(seat_token(key, seek.id))
            return GameRow(
                id=game_id, game=seek.game, options=seek.options, seed=seed,
                first_opener=first_opener_by_lot(seed), mode="lobby", opponent=None,
                token_hashes=(seek.token_hash, token_hash(tokens[-1])),
                rules_version=RULES_VERSION, created=created, finished=False,
                players=(seek.player, player.ref), rated=seek.rated,
                move_seconds=seek.move_seconds, token_from=seek.id)

        return build, lambda: tokens[-1]

    async def accept(self, seek_id: str, player: PlayerRow | None, key: str | None,
                     client: str = "local") -> tuple[LiveGame, str]:
        """``player`` (whose key is ``key``) accepts the seek: the new game and their
        seat's (1) token."""
        if player is None or key is None:
            raise ApiError(401, "accepting a seek needs your player key (X-Player-Key: KEY)")
        refuse_banned(player, "the lobby's seeks and pairing")
        if not _is_id(seek_id):
            raise ApiError(404, "there is no such seek")
        await take(self.service.game_limit, client, "new games")
        build, token = self._builder(player, key)
        made = await self._db(self.store.accept_seek(seek_id, player.id, build),
                              "accept the seek")
        if made == "gone":
            raise ApiError(404, "this seek is gone (its player left, or cancelled it)")
        if made == "taken":
            raise ApiError(409, "someone else accepted this seek first")
        if made == "own":
            raise ApiError(409, "this is your own seek: wait for someone to accept it")
        assert isinstance(made, GameRow)
        live = self.service.install(made)
        log_created(made, client, "seek", seek=seek_id)
        await self.service.events.publish("lobby", {"seek": seek_id, "game": made.id})
        return live, token()

    async def quick(self, data: dict[str, Any], player: PlayerRow | None, key: str | None,
                    client: str = "local") -> tuple[LiveGame, str] | SeekRow:
        """Play anyone now: a rated match with the game's default options and clock,
        against the player of the oldest such open seek (the new game and seat 1's token),
        or, with none open, a seek of the caller's (who is matched over their lobby
        socket)."""
        player, key = self._player(player, key)
        game, options, rated, seconds = self._terms({"game": data.get("game", "luzak"),
                                                     "rated": True})
        await take(self._seek_limit, client, "seeks")
        seek = self._new_seek(player, key, game, options, rated, seconds, "")
        build, token = self._builder(player, key)
        made = await self._db(self.store.quick_pair(seek, self.limits.open_seeks_per_player,
                                                    build), "pair you")
        if isinstance(made, str):
            raise self._refused(made, self.limits.open_seeks_per_player)
        if isinstance(made, GameRow):
            live = self.service.install(made)
            log_created(made, client, "seek", seek=made.token_from)
            await self.service.events.publish("lobby", {"game": made.id})
            return live, token()
        if made.id == seek.id:
            await self.service.events.publish("lobby", {"seek": made.id})
        return made

    @staticmethod
    async def _db(call: Awaitable[T], what: str) -> T:
        with unavailable(f"the server could not {what}", f"the lobby could not {what}"):
            return await call

    # -- what the lobby shows ----------------------------------------------------------------
    async def snapshot(self) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
        """The lobby as the store has it now (docs/web.md, "The lobby"), and the matches
        owed, as (seek id, socket, player)."""
        seeks, games, owed = await self.store.lobby(SHOWN)
        live = []
        for row in games:
            totals = None
            try:
                game = await self.service.get(row.id)
                totals = list(game.match.totals)
            except ApiError:
                pass
            live.append({"id": row.id, "game": row.game,
                         "players": [player_json(p) for p in row.players],
                         "totals": totals, "rated": row.rated,
                         "move_seconds": row.move_seconds})
        return {"seeks": [seek_json(s) for s in seeks], "live": live}, owed

    async def _on_event(self, topic: str, message: dict[str, Any]) -> None:
        self.refresh()

    def refresh(self) -> None:
        """Read the lobby again and send it to every socket whose view changed: one read
        at a time, and one more after it for whatever changed meanwhile."""
        self._dirty = True
        if self._refresher is None or self._refresher.done():
            self._refresher = asyncio.get_running_loop().create_task(
                self._refresh(), name="lobby refresh")

    async def _refresh(self) -> None:
        while self._dirty:
            self._dirty = False
            try:
                shown, owed = await self.snapshot()
            except DATABASE_ERRORS as exc:
                log.warning("could not read the lobby: %s", exc)
                return  # the next change, or the next sweep, reads it again
            text = json.dumps({"type": "lobby", **shown}, separators=(",", ":"))
            sockets = list(self.sockets.values())
            await asyncio.gather(*(self._send_lobby(s, text) for s in sockets))
            owed_to: dict[str, set[str]] = {}
            for seek, _socket, player in owed:
                owed_to.setdefault(player, set()).add(seek)
            for sock in sockets:
                if sock.player is not None and owed_to.get(sock.player.id, set()) - sock.told:
                    await self._tell_matches(sock)

    async def _send_lobby(self, sock: LobbySocket, text: str) -> None:
        if sock.last == text:
            return
        sock.last = text
        await self._send(sock, text)

    async def _send(self, sock: LobbySocket, text: str) -> None:
        try:
            async with sock.lock:
                await sock.send(text)
        except Exception:
            self.detach(sock)

    async def _tell_matches(self, sock: LobbySocket) -> None:
        """Tell a seek's creator of each match owed to them that this socket has not told
        yet: the game, their seat and its token (over the socket only: never in a URL).
        It stays owed until the page acknowledges it (:meth:`ack`)."""
        assert sock.player is not None and sock.key is not None
        try:
            found = await self.store.owed_matches(sock.player.id)
        except DATABASE_ERRORS as exc:
            log.warning("could not read the lobby's matches: %s", exc)
            return
        for seek_id, game_id, seat in found:
            if seek_id in sock.told:
                continue
            sock.told.add(seek_id)
            await self._send(sock, json.dumps({
                "type": "matched", "game": game_id, "seat": seat, "seek": seek_id,
                "token": seat_token(sock.key, seek_id)}))

    async def ack(self, sock: LobbySocket, seek_id: Any) -> str:
        """The page of ``sock`` has the seat of the match of its seek ``seek_id`` (the
        ``seek`` of a ``matched`` message): it is owed no longer. Returns the seek's id."""
        if sock.player is None:
            raise ApiError(401, "only a named player's lobby socket is told of matches; say "
                                "hello with your player key")
        if not _is_id(seek_id):
            raise ApiError(400, "send {\"type\": \"ack\", \"seek\": ID}, the seek of a "
                                "matched message")
        if not await self._db(self.store.ack_match(seek_id, sock.player.id),
                              "take the acknowledgement"):
            raise ApiError(404, f"no game was made of a seek of yours called {seek_id!r}")
        return str(seek_id)

    async def live_games(self, player: PlayerRow, key: str) -> list[dict[str, Any]]:
        """Every unfinished game ``player`` (whose key is ``key``) holds a seat in, newest
        first (docs/web.md, "Seats and tokens"): in the lobby, against the computer, with a
        friend. Each with its id, game and mode, the player's seat, the opponent (a player,
        or None) or the computer's level, whether it is rated, its clock, whose move it is
        (a seat; None while it cannot be read) and what the seat's token is derived from
        with the key (``token_from``: a seek's or a game's id; the token itself is never
        sent here), or ``device_only``: the token is random, held only by the device that
        made the game or claimed the seat."""
        rows = await self._db(self.store.live_games_of(player.id, SHOWN),
                              "list your live games")
        found = []
        for row in rows:
            seat = 0 if row.players[0] is not None and row.players[0].id == player.id else 1
            to_move = None
            try:
                live = await self.service.get(row.id)
                if live.over:
                    continue
                to_move = live.match.to_move
            except ApiError:
                pass
            source = _token_source(row, seat, key)
            entry = {"id": row.id, "game": row.game, "mode": row.mode, "seat": seat,
                     "opponent": player_json(row.players[1 - seat]),
                     "computer": row.opponent if row.mode == "computer" else None,
                     "rated": row.rated, "move_seconds": row.move_seconds,
                     "to_move": to_move, "token_from": source,
                     "device_only": source is None}
            if source is not None and source["kind"] == "seek":
                entry["seek"] = source["id"]  # as before token_from was given
            found.append(entry)
        return found

    # -- sockets -----------------------------------------------------------------------------
    async def attach(self, sock: LobbySocket) -> None:
        """A lobby socket said hello: it is welcomed (with its id, for seeks it opens) and
        sent the lobby; a named player's socket is stored (it owns their seeks) and told of
        matches it missed."""
        if sock.player is not None:
            await self._db(self.store.open_lobby_socket(sock.id, sock.player.id, self.server),
                           "open your lobby")
        self.sockets[sock.id] = sock
        me = None if sock.player is None else player_json(sock.player.ref)
        await self._send(sock, json.dumps({"type": "welcome", "conn": sock.id, "player": me}))
        try:
            shown, _told = await self.snapshot()
        except DATABASE_ERRORS as exc:
            log.warning("could not read the lobby: %s", exc)
            raise ApiError(503, "the lobby could not be read just now; try again") from None
        await self._send_lobby(sock, json.dumps({"type": "lobby", **shown},
                                                separators=(",", ":")))
        if sock.player is not None:
            await self._tell_matches(sock)

    def detach(self, sock: LobbySocket) -> None:
        """A lobby socket ended: its seeks go (by a task of the service's: the ending
        handler may be cancelled)."""
        if self.sockets.pop(sock.id, None) is not None and sock.player is not None:
            self.service.spawn(self._closed(sock.id), f"lobby socket {sock.id} closed")

    async def _closed(self, socket: str) -> None:
        try:
            gone = await self.store.close_lobby_socket(socket)
        except DATABASE_ERRORS as exc:
            # its heartbeat stops: the sweep deletes its seeks
            log.warning("could not close lobby socket %s now: %s", socket, exc)
            return
        if gone:
            await self.service.events.publish("lobby", {"socket": socket})

    async def close(self) -> None:
        """Stop following the lobby (the server is stopping)."""
        if self._refresher is not None:
            self._refresher.cancel()

    # -- the sweep ---------------------------------------------------------------------------
    async def sweep(self) -> None:
        """Say this process and its lobby sockets are alive; delete the seeks of sockets
        whose process died; end the games whose clock ran out."""
        now = self.service.clock()
        await self.store.heartbeat(self.server, [(s.id, s.player.id) for s in
                                                 list(self.sockets.values())
                                                 if s.player is not None])
        gone = await self.store.sweep_lobby(now - self.limits.lobby_socket_timeout,
                                            now - ACCEPTED_KEPT)
        if gone:
            await self.service.events.publish("lobby", {"swept": gone})
        await self.service.sweep_clocks()

    async def sweep_forever(self) -> None:
        """Run :meth:`sweep` now and every ``limits.lobby_sweep_every`` seconds."""
        while True:
            try:
                await self.sweep()
            except DATABASE_ERRORS as exc:
                log.warning("could not sweep the lobby this time: %s", exc)
            await asyncio.sleep(self.limits.lobby_sweep_every)


__all__ = ["Lobby", "LobbySocket", "seek_json"]
