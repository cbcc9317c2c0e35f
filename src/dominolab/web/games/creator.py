"""New games: made against the computer or a friend, a friend's invitation claimed, and a
finished match's rematch. A new game's seed also draws its first opener by lot, so the same
seeds give the same games."""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any, Final

from dominolab.core import RULES_VERSION, Match, OptionError, first_opener_by_lot, get_game
from dominolab.players import LEVELS
from dominolab.web.errors import ApiError, take
from dominolab.web.games.clocks import Clocks, move_seconds_of
from dominolab.web.games.computer import Computer
from dominolab.web.games.live import ID_RE, LiveGame, game_seat_token, token_hash
from dominolab.web.games.registry import Registry
from dominolab.web.games.sockets import Sockets
from dominolab.web.limits import Limiter
from dominolab.web.logs import GAMES, note
from dominolab.web.storage.store import GameRow, PlayerRow, unavailable

log = logging.getLogger("dominolab.web")

OPPONENTS: Final = (*LEVELS, "friend")
FIRST: Final = ("me", "opponent", "lot")


def is_default(game: str, options: Mapping[str, Any]) -> bool:
    """Whether ``options`` are ``game``'s default rules."""
    try:
        spec = get_game(game)
        return bool(spec.options_class.from_dict(dict(options)).to_dict()
                    == spec.options(None).to_dict())
    except (OptionError, TypeError, ValueError):
        return False


class Creator:
    """Makes the games of one server."""

    def __init__(self, registry: Registry, sockets: Sockets, clocks: Clocks,
                 computer: Computer, *, seeds: Callable[[], int],
                 game_limit: Limiter) -> None:
        self.registry = registry
        self.sockets = sockets
        self.clocks = clocks
        self.computer = computer
        #: where new games' seeds come from (tests give a seeded generator)
        self.seeds = seeds
        #: new games and invitations claimed, per client
        self.game_limit = game_limit

    async def create(self, game: str, options: Any, opponent: str, first: str,
                     client: str = "local", player: PlayerRow | None = None,
                     rated: bool = False, move_seconds: Any = None, key: str | None = None
                     ) -> tuple[LiveGame, str, str | None]:
        """See :meth:`GameService.create`."""
        try:
            spec = get_game(game)
            if isinstance(options, dict):
                opts = spec.options_class.from_dict(options)
            elif isinstance(options, list) and all(isinstance(o, str) for o in options):
                opts = spec.options(options)
            elif options is None:
                opts = spec.options(None)
            else:
                raise ApiError(400, "options must be an object like {\"target\": 61}")
        except (OptionError, TypeError, ValueError) as exc:
            raise ApiError(422, str(exc)) from None
        if opponent not in OPPONENTS:
            raise ApiError(422, f"no opponent {opponent!r}; choose one of {', '.join(OPPONENTS)}")
        if first not in FIRST:
            raise ApiError(422, f"first must be one of {', '.join(FIRST)}, not {first!r}")
        clock = None
        if rated:
            check_rated(spec.name, opts.to_dict(), opponent, player)
            # a rated match always ends: walking away loses on time (docs/web.md, "Clocks")
            clock = move_seconds_of(move_seconds)
        elif move_seconds is not None:
            raise ApiError(422, "move_seconds is for a rated match (a clock: the time a "
                                "move may take); a casual game has none, so leave it out")
        await take(self.game_limit, client, "new games")
        seed = self.seed({"me": 0, "opponent": 1}.get(first))
        first_opener = first_opener_by_lot(seed)
        match = Match(spec, opts, seed=seed, first_opener=first_opener)
        game_id = secrets.token_urlsafe(9)
        # a named player's seat is theirs on any device that holds their key
        derive = key if player is not None else None
        token = secrets.token_urlsafe(24) if derive is None else game_seat_token(derive, game_id)
        friend = opponent == "friend"
        invite = secrets.token_urlsafe(24) if friend else None
        row = GameRow(
            id=game_id, game=spec.name, options=opts.to_dict(), seed=seed,
            first_opener=first_opener, mode="friend" if friend else "computer",
            opponent=None if friend else opponent,
            # the computer's seat and an unclaimed seat have no token: '' matches none
            token_hashes=(token_hash(token), ""),
            rules_version=RULES_VERSION, created=self.registry.clock(), finished=False,
            invite=None if invite is None else token_hash(invite),
            players=(None if player is None else player.ref, None), rated=rated,
            move_seconds=clock, token_from=None if derive is None else game_id,
        )
        with unavailable("the new game could not be saved", "could not store a new game"):
            await self.registry.store.create_game(row)
        live = LiveGame(row, match, 0, moved_at=row.created)
        self.registry.keep(live)
        log_created(row, client, "new")
        self.computer.if_due(live, client)
        self.clocks.due(live)
        return live, token, invite

    def seed(self, opener: int | None) -> int:
        """A new game's seed. The seed also draws the first opener by lot (records check
        it), so a chosen ``opener`` is had by drawing seeds until the lot agrees (two tries
        on average)."""
        seed = self.seeds()
        while opener is not None and first_opener_by_lot(seed) != opener:
            seed = self.seeds()
        return seed

    async def rematch(self, live: LiveGame, seat: int, client: str = "local"
                      ) -> tuple[str, bool]:
        """The id of the rematch of a finished match, and whether this call made it (see
        :meth:`GameService.rematch`)."""
        if not live.over:
            raise ApiError(409, "the match is not over yet; a rematch is offered once it is")
        created = False
        found = live.row.rematch
        if found is None:
            if live.row.invite is not None:
                raise ApiError(409, "your friend never joined this game; start a new game "
                                    "and send them its invitation")
            await take(self.game_limit, client, "new games")
            old = live.row
            seed = self.seed(1 - old.first_opener)
            match = Match(live.match.spec, live.match.options, seed=seed,
                          first_opener=1 - old.first_opener)
            row = replace(old, id=secrets.token_urlsafe(9), seed=seed,
                          first_opener=1 - old.first_opener, rules_version=RULES_VERSION,
                          created=self.registry.clock(), finished=False, invite=None,
                          rematch=None, rematch_by=None, result=None,
                          # a rated lobby match is one both players chose there: a rematch
                          # one of them asked for (the other may have gone, and would lose
                          # it on time) is casual
                          rated=old.rated and old.mode != "lobby")
            with unavailable("the rematch could not be saved",
                             f"could not store the rematch of game {old.id}"):
                made = await self.registry.store.create_rematch(old.id, seat, row)
            if made is None:
                raise ApiError(404, "there is no such game (it may have expired)")
            found, by = made
            if found == row.id:
                created = True
                new = LiveGame(row, match, 0, moved_at=row.created)
                self.registry.keep(new)
                log_created(row, client, "rematch", of=old.id)
                self.computer.if_due(new, client)
                self.clocks.due(new)
            if live.row.rematch != found:
                live.row = replace(live.row, rematch=found, rematch_by=by)
                await self.sockets.broadcast(live)
            if created:
                await self.registry.announce(live, row=True)
        return found, created

    async def join(self, live: LiveGame, invite: Any, client: str = "local",
                   player: PlayerRow | None = None) -> str:
        """Claim a friend game's invitation: seat 1's token, minted now, once only (and
        seat 1 is ``player``'s, if named)."""
        if not isinstance(invite, str) or not ID_RE.match(invite):
            raise ApiError(400, "send the invitation from the link: {\"invite\": \"...\"}")
        if live.row.mode != "friend":
            raise ApiError(403, "this game is against the computer; it has no invitation")
        if live.row.invite is None:
            raise ApiError(409, "this invitation has already been used; ask your friend for "
                                "a new game")
        if not hmac.compare_digest(token_hash(invite), live.row.invite):
            raise ApiError(403, "this invitation is not this game's")
        await take(self.game_limit, client, "new games and invitations")
        token = secrets.token_urlsafe(24)
        with unavailable("the invitation could not be saved",
                         f"could not store a claimed invitation in game {live.id}"):
            claimed = await self.registry.store.claim_invite(
                live.id, live.row.invite, token_hash(token),
                None if player is None else player.id)
        if not claimed:
            raise ApiError(409, "this invitation has already been used")
        live.row = replace(live.row, token_hashes=(live.row.token_hashes[0], token_hash(token)),
                           invite=None,
                           players=(live.row.players[0], None if player is None else player.ref))
        live.messages.clear()
        note(GAMES, "game_joined", "game %s: seat 1 joined from %s", live.id, client,
             game=live.id, seat=1, client=client,
             player=None if player is None else player.id)
        await self.sockets.broadcast(live)
        await self.registry.announce(live, row=True)
        return token


def log_created(row: GameRow, client: str, how: str, **more: Any) -> None:
    """The ``game_created`` line of a new game ``row``, made by ``client``: ``how`` is
    ``new``, ``rematch`` (``of`` names the finished match) or ``seek`` (a lobby seek
    accepted or matched)."""
    note(GAMES, "game_created", "game %s: created (%s %s%s%s) from %s", row.id, row.game,
         row.mode, "" if row.opponent is None else f" against {row.opponent}",
         ", rated" if row.rated else "", client, game=row.id, kind=row.game, mode=row.mode,
         opponent=row.opponent, rated=row.rated, move_seconds=row.move_seconds, how=how,
         client=client, players=[None if p is None else p.id for p in row.players], **more)


def check_rated(game: str, options: dict[str, Any], opponent: str,
                player: PlayerRow | None) -> None:
    """422 unless a rated match of this kind may be made here: against the computer, by a
    named player, to the game's default rules."""
    if opponent == "friend":
        raise ApiError(422, "a game with a friend by invitation is casual; rated matches "
                            "are played against the computer or with a stranger")
    if player is None:
        raise ApiError(422, "a rated match needs a player: send your player key "
                            "(X-Player-Key)")
    refuse_banned(player, "rated matches")
    if not is_default(game, options):
        raise ApiError(422, "a rated match is played to the game's default rules; leave "
                            "the options as they are, or play it unrated")


def refuse_banned(player: PlayerRow | None, what: str) -> None:
    """403 if a moderator banned ``player`` (docs/web.md, "Moderation and privacy"): no
    seeks, pairing or rated matches; casual games against the computer or a friend still
    work."""
    if player is not None and player.banned is not None:
        raise ApiError(403, f"a moderator has banned you from {what} on this server; "
                            f"casual games against the computer still work")
