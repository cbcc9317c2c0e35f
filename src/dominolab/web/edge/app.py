"""The web app's routes (docs/web.md): the page, the JSON API and the WebSocket.

``create_app(db_path)`` builds a Starlette application; ``dominolab serve`` runs it under
uvicorn. Every refusal is JSON ``{"error", "status"}`` with a 4xx status and changes nothing;
a 503 (the database failed) changes nothing either.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import secrets
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket, WebSocketDisconnect
from starlette_compress import CompressMiddleware

from dominolab import __version__
from dominolab.core import GAMES, JsonError
from dominolab.core import read_json as read_bounded_json
from dominolab.players import LEVELS
from dominolab.players.base import Budget
from dominolab.web.community.devices import Devices
from dominolab.web.community.featured import Candidate, Featured
from dominolab.web.community.lobby import Lobby, LobbySocket, seek_json
from dominolab.web.community.players import Players
from dominolab.web.community.puzzles import PuzzleRoom
from dominolab.web.community.standings import Standings
from dominolab.web.content.guide import guide_endpoint, guide_index_endpoint
from dominolab.web.content.lessons import lessons_endpoint, lessons_index_endpoint
from dominolab.web.content.puzzles import Shelf, shipped_shelf
from dominolab.web.content.rules import rules_html
from dominolab.web.edge.assets import COMPRESS_FROM, STATIC, STATIC_PATH, Assets, Revalidated
from dominolab.web.errors import ApiError
from dominolab.web.games.live import Connection, LiveGame, width_of
from dominolab.web.games.service import GameService
from dominolab.web.limits import Limits
from dominolab.web.logs import AccessLog, socket_opened
from dominolab.web.metrics import CONTENT_TYPE, DEFAULT_ALLOW, Gauges, Metrics, allowed, networks
from dominolab.web.storage.store import BUSY_TIMEOUT, DATABASE_ERRORS, Store, unavailable
from dominolab.web.studies.catalogue import game_entries, player_entries
from dominolab.web.studies.runner import ENDED, Studies, data_folder

log = logging.getLogger("dominolab.web")

#: the largest request body or WebSocket message accepted
MAX_BODY: Final = 4096


# -- helpers ---------------------------------------------------------------------------------

def error(status: int, message: str, retry_after: float | None = None) -> JSONResponse:
    headers = None if retry_after is None else {"Retry-After": str(math.ceil(retry_after))}
    return JSONResponse({"error": message, "status": status}, status_code=status,
                        headers=headers)


def client_of(request: Request | WebSocket) -> str:
    """Who is asking, for the limits: the peer's address (uvicorn puts the address from
    X-Forwarded-For there only when ``dominolab serve --forwarded-allow-ips`` trusts the
    peer as a proxy; none is trusted by default)."""
    return request.client.host if request.client is not None else "unknown"


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, refusing what is too big, not JSON or not an object."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise ApiError(415, "send the request body as JSON (Content-Type: application/json)")
    declared = request.headers.get("content-length")
    if declared is not None and not (declared.isascii() and declared.isdigit()):
        raise ApiError(400, "the Content-Length header is not a number")
    if declared is not None and (len(declared) > 10 or int(declared) > MAX_BODY):
        raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise ApiError(413, f"the request body is larger than {MAX_BODY} bytes")
    data = parse_json(bytes(body) or b"{}")
    if data is None:
        raise ApiError(400, "the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


def parse_json(text: str | bytes) -> Any:
    """JSON text as Python values, read by the one bounded reader
    (:func:`~dominolab.core.read_json`), or None if it refuses it (not JSON, nested too
    deeply, a number too long, NaN: never an exception)."""
    try:
        return read_bounded_json(text, "a request")
    except JsonError:
        return None


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def player_key(request: Request) -> str | None:
    """The player's secret key, sent as ``X-Player-Key`` (a header: never in a URL)."""
    key = request.headers.get("x-player-key", "").strip()
    return key or None


def service_of(request: Request | WebSocket) -> GameService:
    service: GameService = request.app.state.service
    return service


def players_of(request: Request | WebSocket) -> Players:
    players: Players = request.app.state.players
    return players


def devices_of(request: Request | WebSocket) -> Devices:
    devices: Devices = request.app.state.devices
    return devices


def standings_of(request: Request | WebSocket) -> Standings:
    standings: Standings = request.app.state.standings
    return standings


def puzzles_of(request: Request | WebSocket) -> PuzzleRoom:
    room: PuzzleRoom = request.app.state.puzzles
    return room


def lobby_of(request: Request | WebSocket) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


async def seat_for(request: Request) -> tuple[GameService, LiveGame, int]:
    service = service_of(request)
    live = await service.get(request.path_params["game_id"])
    return service, live, await service.seat_for(live, bearer(request))


# -- HTTP routes -----------------------------------------------------------------------------

#: the page runs only its own scripts and talks only to this server
PAGE_HEADERS: Final = {
    "Cache-Control": "no-cache",
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' "
                               "'unsafe-inline'; img-src 'self' data:; connect-src 'self'; "
                               "base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}


async def page(request: Request) -> Response:
    assets: Assets = request.app.state.assets
    return assets.page_response(request, PAGE_HEADERS)


async def meta(request: Request) -> Response:
    games = []
    for spec in GAMES.values():
        options: list[dict[str, Any]] = []
        ranges = spec.options_class.ranges()
        for name, _shown, help_text in spec.options_class.describe():
            key = name.replace("-", "_")
            value = getattr(spec.options_class(), key)
            option = {"name": key, "type": "bool" if isinstance(value, bool) else "int",
                      "default": value, "help": help_text}
            if key in ranges:
                option["min"], option["max"] = ranges[key]
            options.append(option)
        games.append({"name": spec.name, "title": spec.title, "hand_size": spec.hand_size,
                      "options": options})
    return JSONResponse({"version": __version__, "levels": list(LEVELS), "games": games})


async def create_game(request: Request) -> Response:
    data = await read_json(request)
    service = service_of(request)
    game = data.get("game", "luzak")
    if not isinstance(game, str):
        raise ApiError(400, "game must be a text: luzak, luzak-line or widelec")
    opponent = data.get("opponent", "medium")
    first = data.get("first", "lot")
    rated = data.get("rated", False)
    if not isinstance(rated, bool):
        raise ApiError(400, "rated must be true or false")
    key = player_key(request)
    player = await players_of(request).player_of(key)
    live, token, invite = await service.create(game, data.get("options", {}),
                                               str(opponent), str(first), client_of(request),
                                               player, rated, data.get("move_seconds"), key)
    link = None if invite is None else f"/game/{live.id}#i={invite}"
    width = width_of(data.get("layout"))
    return JSONResponse({"id": live.id, "seat": 0, "token": token, "invite": link,
                         "rated": live.row.rated, "state": live.state(0, width)},
                        status_code=201)


async def join_game(request: Request) -> Response:
    """Claim a friend game's invitation: seat 1 and its new token, once only."""
    data = await read_json(request)
    service = service_of(request)
    live = await service.get(request.path_params["game_id"])
    player = await players_of(request).player_of(player_key(request))
    token = await service.join(live, data.get("invite"), client_of(request), player)
    width = width_of(data.get("layout"))
    return JSONResponse({"id": live.id, "seat": 1, "token": token,
                         "state": live.state(1, width)})


def state_response(live: LiveGame, seat: int, width: str) -> Response:
    return Response(live.state_text(seat, width), media_type="application/json")


async def game_state(request: Request) -> Response:
    _, live, seat = await seat_for(request)
    return state_response(live, seat, width_of(request.query_params.get("layout")))


async def make_move(request: Request) -> Response:
    service, live, seat = await seat_for(request)
    data = await read_json(request)
    await service.act(live, seat, data.get("move"), data.get("version"), client_of(request))
    return state_response(live, seat, width_of(data.get("layout")))


async def rematch(request: Request) -> Response:
    """The finished match's rematch: made by the first call, the same game after (201, then
    200); the caller keeps their seat and their token."""
    service, live, seat = await seat_for(request)
    data = await read_json(request)
    new, created = await service.rematch(live, seat, client_of(request))
    token = bearer(request)
    width = width_of(data.get("layout"))
    return JSONResponse({"id": new.id, "seat": seat, "token": token,
                         "state": new.state(seat, width)}, status_code=201 if created else 200)


async def hint(request: Request) -> Response:
    service, live, seat = await seat_for(request)
    await read_json(request)
    return JSONResponse(await service.hint(live, seat, client_of(request)))


async def review(request: Request) -> Response:
    """A seat's review (docs/web.md, REVIEW): ``?seat=N``, with that seat's token until the
    match is over, never during a rated match; anyone's once it is over."""
    service = service_of(request)
    live = await service.get(request.path_params["game_id"])
    return JSONResponse(await service.review(
        live, request.query_params.get("seat"), bearer(request), client_of(request),
        width_of(request.query_params.get("layout"))))


async def record(request: Request) -> Response:
    service, live, _seat = await seat_for(request)
    body = service.record(live)
    return JSONResponse(body, headers={
        "Content-Disposition": f'attachment; filename="dominolab-{live.row.game}-{live.id}.json"'
    })


async def replay(request: Request) -> Response:
    """A finished match's replay, anyone's who has its id: once the match is over nothing
    in it is hidden any more, so a player's page and a spectator can show it (409 for
    everyone until then)."""
    service = service_of(request)
    live = await service.get(request.path_params["game_id"])
    return JSONResponse(service.replay(live, width_of(
        request.query_params.get("layout"))))


async def create_player(request: Request) -> Response:
    """A new player: a display name, and the secret key the browser keeps."""
    data = await read_json(request)
    player, key = await players_of(request).register(data.get("name"), client_of(request))
    return JSONResponse({"id": player.id, "name": player.name, "key": key}, status_code=201)


async def me(request: Request) -> Response:
    """The player whose key this request carries (401 without one, or for a key that is
    nobody's), and every unfinished game they hold a seat in (``live``; no token: the page
    derives each seat's from the key and what ``token_from`` names)."""
    key = player_key(request)
    player = await players_of(request).player_of(key)
    if player is None or key is None:
        raise ApiError(401, "this needs your player key (X-Player-Key: KEY)")
    live = await lobby_of(request).live_games(player, key)
    codes = await devices_of(request).status(player)
    return JSONResponse({"id": player.id, "name": player.name, "live": live, **codes})


async def make_link_code(request: Request) -> Response:
    """A one-time code that gives another device this player's key (docs/web.md, "Your
    games on any device"): 201 ``{"code", "kind", "expires", "url", "qr"}``."""
    page = str(request.url_for("link_page"))
    return JSONResponse(await devices_of(request).make("link", player_key(request),
                                                       client_of(request), page),
                        status_code=201)


async def make_recovery_code(request: Request) -> Response:
    """The player's recovery code, shown once, in place of the one before: 201."""
    return JSONResponse(await devices_of(request).make("recovery", player_key(request),
                                                       client_of(request)), status_code=201)


async def claim_code(request: Request) -> Response:
    """A link or recovery code typed on a device: the player's ``{"id", "name", "key"}``."""
    data = await read_json(request)
    return JSONResponse(await devices_of(request).claim(data.get("code"), client_of(request)))


async def player_page(request: Request) -> Response:
    return JSONResponse(await players_of(request).player_page(
        request.path_params["player_id"]))


async def watch_state(request: Request) -> Response:
    """A spectator's state of any game, by its id alone (docs/web.md, "Spectators")."""
    service = service_of(request)
    live = await service.get(request.path_params["game_id"])
    width = width_of(request.query_params.get("layout"))
    return Response(live.watch_text(width), media_type="application/json")


async def featured_game(request: Request) -> Response:
    """The featured live game to watch (docs/web.md, "The featured game"), or null."""
    featured: Featured = request.app.state.featured
    with unavailable("the featured game could not be read", "could not read the featured game"):
        return JSONResponse({"featured": await featured.get()})


async def game_seats(request: Request) -> Response:
    """Any game's two seats as a spectator sees them: names, computer level, ratings."""
    live = await service_of(request).get(request.path_params["game_id"])
    featured: Featured = request.app.state.featured
    with unavailable("the ratings could not be read", "could not read the ratings"):
        return JSONResponse({"seats": await featured.seats(live.row)})


async def leaderboard(request: Request) -> Response:
    """A game's best players by rating, and the computer levels' fixed ratings."""
    return JSONResponse(await standings_of(request).leaderboard(request.path_params["game"]))


# -- puzzles (docs/web.md, "Puzzles") -------------------------------------------------------

async def puzzles_index(request: Request) -> Response:
    """The games with puzzles, how many, and the caller's puzzle ratings (given a key)."""
    return JSONResponse(await puzzles_of(request).overview(player_key(request)))


async def daily_puzzle(request: Request) -> Response:
    """``?game=GAME`` (default luzak)'s puzzle of the day (``&date=YYYY-MM-DD``: of that
    day; default today, UTC)."""
    query = request.query_params
    return JSONResponse(await puzzles_of(request).daily(
        query.get("game", "luzak"), query.get("date"), width_of(query.get("layout"))))


async def next_puzzle(request: Request) -> Response:
    """The next puzzle of a game for the caller (``?after=ID,ID``: puzzles just shown)."""
    query = request.query_params
    return JSONResponse(await puzzles_of(request).next(
        request.path_params["game"], player_key(request), query.get("after"),
        width_of(query.get("layout"))))


async def one_puzzle(request: Request) -> Response:
    """A puzzle's position, nothing of its answer."""
    return JSONResponse(await puzzles_of(request).puzzle(
        request.path_params["game"], request.path_params["puzzle_id"], player_key(request),
        width_of(request.query_params.get("layout"))))


async def answer_puzzle(request: Request) -> Response:
    """``{"move": "56@4e"}``: solved or not, why, and the rating change (docs/web.md)."""
    data = await read_json(request)
    return JSONResponse(await puzzles_of(request).answer(
        request.path_params["game"], request.path_params["puzzle_id"], player_key(request),
        data.get("move"), client_of(request), width_of(data.get("layout"))))


# -- the lobby (docs/web.md, "The lobby") ----------------------------------------------------

async def lobby_now(request: Request) -> Response:
    """The lobby as its sockets see it: the open seeks and the live lobby matches."""
    with unavailable("the lobby could not be read", "could not read the lobby"):
        shown, _told = await lobby_of(request).snapshot()
    return JSONResponse(shown)


async def create_seek(request: Request) -> Response:
    data = await read_json(request)
    key = player_key(request)
    player = await players_of(request).player_of(key)
    seek = await lobby_of(request).create_seek(data, player, key, client_of(request))
    return JSONResponse(seek_json(seek), status_code=201)


async def cancel_seek(request: Request) -> Response:
    player = await players_of(request).player_of(player_key(request))
    seek_id = request.path_params["seek_id"]
    await lobby_of(request).cancel(seek_id, player)
    return JSONResponse({"id": seek_id, "cancelled": True})


def seat_answer(service: GameService, live: LiveGame, token: str, data: dict[str, Any],
                **more: Any) -> Response:
    """201 with a new lobby game's seat 1, its token (in the body, never a URL) and state."""
    width = width_of(data.get("layout"))
    return JSONResponse({**more, "id": live.id, "seat": 1, "token": token,
                         "state": live.state(1, width)}, status_code=201)


async def accept_seek(request: Request) -> Response:
    data = await read_json(request)
    service = service_of(request)
    key = player_key(request)
    player = await players_of(request).player_of(key)
    live, token = await lobby_of(request).accept(request.path_params["seek_id"], player, key,
                                                 client_of(request))
    return seat_answer(service, live, token, data)


async def quick(request: Request) -> Response:
    """Play anyone now: the game made with the oldest fitting seek, or the caller's seek."""
    data = await read_json(request)
    service = service_of(request)
    key = player_key(request)
    player = await players_of(request).player_of(key)
    made = await lobby_of(request).quick(data, player, key, client_of(request))
    if isinstance(made, tuple):
        return seat_answer(service, *made, data, matched=True)
    return JSONResponse({"matched": False, "seek": seek_json(made)}, status_code=201)


async def rules(request: Request) -> Response:
    lang = request.path_params["lang"]
    if lang not in ("en", "pl"):
        raise ApiError(404, "the rules are in English (en) and Polish (pl)")
    return JSONResponse(rules_html(lang))


# -- health and metrics (docs/web.md, "Health and metrics") ---------------------------------

#: neither answer is kept by any cache: each is the server's state now
# -- the lab: studies run by the server (docs/web.md, "The lab") --------------------------------

def studies_of(request: Request | WebSocket) -> Studies:
    studies: Studies = request.app.state.studies
    return studies


async def lab_meta(request: Request) -> Response:
    """What the lab's page may choose, from the games' own option metadata, and whether
    this address may run studies (``why`` not)."""
    studies = studies_of(request)
    why = studies.refusal(client_of(request))
    return JSONResponse({"enabled": why is None, "why": why, "games": game_entries(),
                         "players": player_entries(), "limits": studies.limits_json()})


async def create_study(request: Request) -> Response:
    """A study: 201 when new, 200 when the same parameters already made it."""
    studies = studies_of(request)
    studies.check(client_of(request))
    data = await read_json(request)
    study, created = await studies.start(data, client_of(request))
    return JSONResponse({"id": study.id, "url": f"/lab/{study.id}",
                         "state": study.state}, status_code=201 if created else 200)


async def study_state(request: Request) -> Response:
    studies = studies_of(request)
    studies.check(client_of(request))
    return JSONResponse(studies.get(request.path_params["study_id"]).as_json())


async def cancel_study(request: Request) -> Response:
    studies = studies_of(request)
    studies.check(client_of(request))
    study = await studies.cancel(request.path_params["study_id"], client_of(request))
    return JSONResponse(study.as_json())


async def study_report(request: Request) -> Response:
    studies = studies_of(request)
    studies.check(client_of(request))
    return JSONResponse(await studies.report(request.path_params["study_id"],
                                             client_of(request)))


async def compare_studies(request: Request) -> Response:
    """2 to 4 ended studies side by side: one report over every variant's file."""
    studies = studies_of(request)
    studies.check(client_of(request))
    return JSONResponse(await studies.compare(request.query_params.get("ids"),
                                              client_of(request)))


async def study_file(request: Request) -> Response:
    """A variant's JSON Lines file, as a download named as ``dominolab simulate`` names it."""
    studies = studies_of(request)
    studies.check(client_of(request))
    path, name = studies.file(request.path_params["study_id"], request.path_params["k"])
    if not path.is_file():
        raise ApiError(404, "this variant has no file yet")
    return FileResponse(path, media_type="application/x-ndjson", filename=name)


async def study_socket(ws: WebSocket) -> None:
    """A study's progress: ``{"type": "progress", "done", "total", "state"}`` now, every
    second while it runs and once when it ends; then the socket is closed (1000)."""
    if not origin_allowed(ws):
        await ws.close(code=4403, reason="this page's origin may not connect")
        return
    await ws.accept()
    studies = studies_of(ws)
    why = studies.refusal(client_of(ws))
    if why is not None:
        await _close(ws, 4403, why)
        return
    try:
        study = studies.get(ws.path_params["study_id"])
    except ApiError as exc:
        await _close(ws, 4404, exc.message)
        return
    try:
        while True:
            ended = study.state in ENDED
            await ws.send_text(json.dumps(study.progress()))
            if ended:
                await ws.close(code=1000)
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(study.ended.wait(), 1.0)
    except (WebSocketDisconnect, RuntimeError, OSError):
        pass


NOW_HEADERS: Final = {"Cache-Control": "no-store"}


async def healthz(request: Request) -> Response:
    """For load balancers, anyone's: 200 if the database answers (a write could be made)
    within ``health_timeout`` seconds, 503 saying why if not."""
    service = service_of(request)
    timeout: float = request.app.state.health_timeout
    started = time.perf_counter()
    try:
        await asyncio.wait_for(service.store.ping(), timeout)
    except TimeoutError:
        why = f"the database did not answer within {timeout:g} s"
    except DATABASE_ERRORS as exc:
        why = f"the database failed: {exc}"
    else:
        return JSONResponse({"ok": True, "version": __version__,
                             "database_ms": round((time.perf_counter() - started) * 1000, 1)},
                            headers=NOW_HEADERS)
    log.warning("health check failed: %s", why)
    return JSONResponse({"ok": False, "error": why, "status": 503}, status_code=503,
                        headers=NOW_HEADERS)


async def metrics_text(request: Request) -> Response:
    """This process's metrics in Prometheus' text format, to the addresses of
    ``--metrics-allow`` only (403 for anyone else)."""
    if not allowed(client_of(request), request.app.state.metrics_allow):
        return error(403, "the metrics are not shown to your address (see dominolab serve "
                          "--metrics-allow)")
    metrics: Metrics = request.app.state.metrics
    return Response(metrics.text(), media_type=CONTENT_TYPE, headers=NOW_HEADERS)


# -- the WebSocket ---------------------------------------------------------------------------

def origin_allowed(ws: WebSocket) -> bool:
    """A browser's socket must come from a page of this server (or of an origin given with
    ``--allow-origin``): another site's page could otherwise act for a player. Clients
    that are not browsers send no Origin, and have no cookies or ambient rights to abuse."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    allowed: frozenset[str] = ws.app.state.allow_origins
    if origin in allowed:
        return True
    scheme = "https" if ws.url.scheme == "wss" else "http"
    host = ws.headers.get("host")
    return host is not None and origin == f"{scheme}://{host}"


#: the close code of each refusal after the hello, by the refusal's HTTP status (anything
#: else is a token that is not this game's seat: 4401)
HELLO_CLOSE: Final = {404: 4404, 503: 1013, 429: 4429, 409: 4409}


async def game_socket(ws: WebSocket) -> None:
    """Live updates of one seat, or of a spectator (docs/web.md, "WebSocket",
    "Spectators")."""
    if not origin_allowed(ws):
        # refused before the handshake: the browser sees HTTP 403
        await ws.close(code=4403, reason="this page's origin may not connect")
        return
    await ws.accept()
    service = service_of(ws)
    try:
        hello = parse_json(await asyncio.wait_for(ws.receive_text(),
                                                  service.limits.hello_timeout))
        if not isinstance(hello, dict) or hello.get("type") != "hello":
            raise ValueError
    except (ValueError, TypeError, KeyError, TimeoutError, WebSocketDisconnect):
        await _close(ws, 4400, "say hello first: {\"type\": \"hello\", \"token\": ...}")
        return
    async def close(code: int, reason: str) -> None:
        await _close(ws, code, reason)

    client = client_of(ws)
    seats: Counter[str] = ws.app.state.seat_sockets
    seat: int | None = None
    try:
        live = await service.get(ws.path_params["game_id"])
        # a spectator needs no token (and a token beside "watch" opens no seat)
        if hello.get("watch") is not True:
            token = hello.get("token")
            seat = await service.seat_for(live, token if isinstance(token, str) else None)
            if seats[client] >= service.limits.seat_sockets_per_client:
                seat = None
                raise ApiError(429, "too many seats' connections from your address; close "
                                    "another game's page", kind="seat_sockets")
            seats[client] += 1
        conn = Connection(seat, width_of(hello.get("layout")), ws.send_text, close,
                          client)
        await service.attach(live, conn)
    except ApiError as exc:
        _uncount(seats, client, seat)
        if exc.status == 429:
            service.metrics.refusal(exc.kind or "other")
        await _close(ws, HELLO_CLOSE.get(exc.status, 4401), exc.message)
        return

    socket_opened(ws.scope, "watch" if seat is None else "seat", live.id, seat)

    async def reply(text: str) -> None:
        async with conn.lock:  # in order with the updates the service sends
            await ws.send_text(text)

    try:
        async for message in _messages(ws):
            if isinstance(message, dict) and message.get("type") == "ping":
                # answered after everything sent before it: a client can use it to know it
                # has every update so far
                await reply('{"type":"pong"}')
                continue
            try:
                if seat is None:
                    raise ApiError(403, "a spectator cannot move; it may only send "
                                        "{\"type\": \"ping\"}")
                if isinstance(message, dict) and message.get("type") == "chat":
                    await service.say(live, seat, message.get("phrase"))
                    continue
                if not isinstance(message, dict) or message.get("type") != "move":
                    raise ApiError(400, "send {\"type\": \"move\", \"move\": ..., "
                                        "\"version\": ...} or {\"type\": \"chat\", "
                                        "\"phrase\": ...} as JSON")
                await service.act(live, seat, message.get("move"), message.get("version"),
                                  client)
            except ApiError as exc:
                answer: dict[str, Any] = {"type": "error", "status": exc.status,
                                          "error": exc.message}
                if exc.kind == "messages":
                    # a message past the rate: the page says when it may send again
                    service.metrics.refusal(exc.kind)
                    answer["retry_after"] = exc.retry_after
                await reply(json.dumps(answer))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        service.detach(live, conn)
        _uncount(seats, client, seat)


def _uncount(seats: Counter[str], client: str, seat: int | None) -> None:
    """A seat's socket of ``client``'s closed (nothing for a spectator's)."""
    if seat is not None:
        seats[client] -= 1
        if seats[client] <= 0:
            del seats[client]


async def lobby_socket(ws: WebSocket) -> None:
    """The lobby, live (docs/web.md, "The lobby's WebSocket")."""
    if not origin_allowed(ws):
        await ws.close(code=4403, reason="this page's origin may not connect")
        return
    await ws.accept()
    service, lobby = service_of(ws), lobby_of(ws)
    client = client_of(ws)
    lobby.clients[client] += 1
    sock: LobbySocket | None = None
    try:
        if lobby.clients[client] > service.limits.lobby_sockets_per_client:
            service.metrics.refusal("lobby_sockets")
            await _close(ws, 4429, "too many lobby connections from your address; close "
                                   "another lobby page")
            return
        try:
            hello = parse_json(await asyncio.wait_for(ws.receive_text(),
                                                      service.limits.hello_timeout))
            if not isinstance(hello, dict) or hello.get("type") != "hello":
                raise ValueError
            key = hello.get("player")
            if key is not None and not (isinstance(key, str) and 0 < len(key) <= 200):
                raise ValueError
        except (ValueError, TypeError, KeyError, TimeoutError, WebSocketDisconnect):
            await _close(ws, 4400, "say hello first: {\"type\": \"hello\", \"player\": "
                                   "KEY or null}")
            return

        async def close(code: int, reason: str) -> None:
            await _close(ws, code, reason)

        try:
            player = await players_of(ws).player_of(key)
            sock = LobbySocket(secrets.token_urlsafe(12), player, key, ws.send_text, close)
            await lobby.attach(sock)
            socket_opened(ws.scope, "lobby", player=None if player is None else player.id)
        except ApiError as exc:
            await _close(ws, 1013 if exc.status == 503 else 4401, exc.message)
            return
        async for message in _messages(ws):
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "ping":
                answer = '{"type":"pong"}'
            elif kind == "ack":
                try:
                    acked = await lobby.ack(sock, message.get("seek"))
                    answer = json.dumps({"type": "acked", "seek": acked})
                except ApiError as exc:
                    answer = json.dumps({"type": "error", "status": exc.status,
                                         "error": exc.message})
            else:
                answer = json.dumps({
                    "type": "error", "status": 400,
                    "error": "the lobby socket takes {\"type\": \"ping\"} and {\"type\": "
                             "\"ack\", \"seek\": ID}; seeks are opened and accepted over "
                             "HTTP (/api/seeks)"})
            async with sock.lock:  # in order with the lobby messages
                await ws.send_text(answer)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        lobby.clients[client] -= 1
        if lobby.clients[client] <= 0:
            del lobby.clients[client]
        if sock is not None:
            lobby.detach(sock)


async def _messages(ws: WebSocket) -> AsyncIterator[Any]:
    """A socket's messages, each parsed from JSON (None where it is not JSON), until the
    client leaves; a binary message (1003) or one over :data:`MAX_BODY` (1009) closes the
    socket and ends them."""
    while True:
        received = await ws.receive()
        if received["type"] == "websocket.disconnect":
            return
        text = received.get("text")
        if text is None:
            await _close(ws, 1003, "send text messages (JSON), not binary ones")
            return
        if len(text) > MAX_BODY:
            await _close(ws, 1009, f"messages are at most {MAX_BODY} bytes")
            return
        yield parse_json(text)


async def _close(ws: WebSocket, code: int, reason: str) -> None:
    try:
        await ws.send_text(json.dumps({"type": "error", "status": code, "error": reason}))
        await ws.close(code=code, reason=reason[:120])
    except (RuntimeError, WebSocketDisconnect):
        pass


# -- the application -------------------------------------------------------------------------

async def api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    if exc.status == 429:
        service_of(request).metrics.refusal(exc.kind or "other")
    elif exc.status == 500:  # a stored game that does not replay
        service_of(request).metrics.server_error()
    return error(exc.status, exc.message, exc.retry_after)


async def http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if request.url.path.startswith("/api/"):
        message = {404: "there is no such address in the API (see docs/web.md)",
                   405: "that method is not allowed here"}.get(exc.status_code, str(exc.detail))
        return error(exc.status_code, message)
    return Response(str(exc.detail), status_code=exc.status_code,
                    headers=getattr(exc, "headers", None))


async def server_error(request: Request, exc: Exception) -> Response:
    log.exception("unexpected error on %s", request.url.path, exc_info=exc)
    service_of(request).metrics.server_error()
    return error(500, "something went wrong on the server")


#: what every API answer says: it may carry a seat's hand, so no cache keeps it, and its
#: type is what it says
API_HEADERS: Final = ((b"cache-control", b"no-store"), (b"x-content-type-options", b"nosniff"))


class ApiHeaders:
    """Adds :data:`API_HEADERS` to every answer under ``/api/`` (errors included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/api/"):
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                names = {name for name, _ in API_HEADERS}
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message = {**message, "headers": [*kept, *API_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def create_app(db_path: str | Path, *, computer_delay: float | None = None,
               hint_budget: Any = None, review_budget: Budget | None = None,
               seeds: Callable[[], int] | None = None,
               limits: Limits | None = None, workers: int | None = None,
               allow_origins: tuple[str, ...] = (), busy_timeout: float = BUSY_TIMEOUT,
               clock: Callable[[], float] | None = None,
               metrics_allow: tuple[str, ...] = DEFAULT_ALLOW,
               health_timeout: float = 2.0, puzzles: Shelf | None = None,
               data_dir: Path | None = None) -> Starlette:
    """The web app over the games database at ``db_path`` (created if missing; a database
    that cannot be used raises :class:`~dominolab.web.storage.store.StoreError` here): an SQLite
    file's path, or a ``postgresql://`` URL, where several servers may serve the same
    games.

    ``computer_delay``: the least time the computer takes over a move; ``hint_budget``: the
    budget of a hint; ``review_budget``: of each position a review looks at; ``seeds``:
    where new games' seeds come from (default: the operating system's randomness);
    ``limits``: rates, queues and expiry (:class:`Limits`);
    ``workers``: processes for the computer and hints (default: the cores but one);
    ``allow_origins``: pages of other origins whose WebSockets are accepted;
    ``busy_timeout``: how long a write waits for another process's lock; ``clock``: the
    wall clock for game times (tests move it on); ``metrics_allow``: the addresses and
    networks that may read ``/metrics`` (ValueError naming one that is neither);
    ``health_timeout``: the seconds ``/healthz`` gives the database; ``puzzles``: the
    puzzles served (default: the shipped ones, read here: a broken puzzle file raises
    :class:`~dominolab.players.puzzles.PuzzleError` naming it); ``data_dir``: the
    server's data folder, where studies keep their files (``DATA_DIR/studies/ID/``;
    default: beside an SQLite file, for PostgreSQL the user's data folder)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        service: GameService = app.state.service
        await service.events.start()  # hearing the other servers before taking requests
        await app.state.players.rekey()  # names compared the way this server compares them
        sweeper = asyncio.get_running_loop().create_task(service.expire_forever(),
                                                         name="expire games")
        lobby_sweeper = asyncio.get_running_loop().create_task(
            app.state.lobby.sweep_forever(), name="sweep the lobby")
        moderated = asyncio.get_running_loop().create_task(
            app.state.players.watch_forever(), name="watch moderators")
        studies: Studies = app.state.studies
        studies.resume_all()  # every unfinished study goes on from its files
        try:
            yield
        finally:
            await studies.close()
            sweeper.cancel()
            lobby_sweeper.cancel()
            moderated.cancel()
            await app.state.lobby.close()
            await service.close()

    assets = Assets.load(STATIC)
    app = Starlette(
        routes=[
            Route("/", page),
            Route("/game/{game_id}", page),
            Route("/replay/{game_id}", page),
            Route("/watch/{game_id}", page),
            Route("/rules", page),
            Route("/rules/{path:path}", page),
            Route("/learn", page),
            Route("/learn/{path:path}", page),
            Route("/player/{player_id}", page),
            Route("/leaderboard", page),
            Route("/leaderboard/{game}", page),
            Route("/lobby", page),
            Route("/puzzles", page),
            Route("/puzzles/{path:path}", page),
            Route("/lab", page),
            Route("/lab/{path:path}", page),
            Route("/healthz", healthz),
            Route("/metrics", metrics_text),
            Route("/api/meta", meta),
            Route("/api/players", create_player, methods=["POST"]),
            Route("/api/me", me),
            Route("/api/me/link", make_link_code, methods=["POST"]),
            Route("/api/me/recovery", make_recovery_code, methods=["POST"]),
            Route("/api/codes", claim_code, methods=["POST"]),
            Route("/link", page, name="link_page"),
            Route("/api/players/{player_id}", player_page),
            Route("/api/leaderboard/{game}", leaderboard),
            Route("/api/games", create_game, methods=["POST"]),
            Route("/api/games/{game_id}", game_state),
            Route("/api/games/{game_id}/join", join_game, methods=["POST"]),
            Route("/api/games/{game_id}/moves", make_move, methods=["POST"]),
            Route("/api/games/{game_id}/hint", hint, methods=["POST"]),
            Route("/api/games/{game_id}/review", review, methods=["GET"]),
            Route("/api/games/{game_id}/rematch", rematch, methods=["POST"]),
            Route("/api/games/{game_id}/record", record),
            Route("/api/games/{game_id}/replay", replay),
            Route("/api/games/{game_id}/watch", watch_state),
            Route("/api/games/{game_id}/seats", game_seats),
            Route("/api/featured", featured_game),
            Route("/api/seeks", lobby_now),
            Route("/api/seeks", create_seek, methods=["POST"]),
            Route("/api/seeks/{seek_id}", cancel_seek, methods=["DELETE"]),
            Route("/api/seeks/{seek_id}/accept", accept_seek, methods=["POST"]),
            Route("/api/quick", quick, methods=["POST"]),
            Route("/api/puzzles", puzzles_index),
            Route("/api/puzzles/daily", daily_puzzle),
            Route("/api/puzzles/{game}/next", next_puzzle),
            Route("/api/puzzles/{game}/{puzzle_id}", one_puzzle),
            Route("/api/puzzles/{game}/{puzzle_id}/answer", answer_puzzle, methods=["POST"]),
            Route("/api/lab", lab_meta),
            Route("/api/studies", create_study, methods=["POST"]),
            Route("/api/studies/compare", compare_studies),  # before {study_id}
            Route("/api/studies/{study_id}", study_state),
            Route("/api/studies/{study_id}/cancel", cancel_study, methods=["POST"]),
            Route("/api/studies/{study_id}/report", study_report),
            Route("/api/studies/{study_id}/files/{k}", study_file),
            Route("/api/rules/{lang}", rules),
            Route("/api/lessons", lessons_index_endpoint),
            Route("/api/lessons/{game}", lessons_endpoint),
            Route("/api/guide/{lang}", guide_index_endpoint),
            Route("/api/guide/{game}/{lang}", guide_endpoint),
            WebSocketRoute("/ws/games/{game_id}", game_socket),
            WebSocketRoute("/ws/lobby", lobby_socket),
            WebSocketRoute("/ws/studies/{study_id}", study_socket),
            # the page's files under their version, kept a year; the same at their plain
            # addresses, revalidated (an old version's address is a 404 there)
            Route(f"{assets.prefix}/{{path:path}}", assets.file_response, name="static"),
            Mount(STATIC_PATH, Revalidated(StaticFiles(directory=STATIC))),
        ],
        exception_handlers={ApiError: api_error, HTTPException: http_error,
                            Exception: server_error},
        # the access log outermost: it sees each answer as it leaves (compressed); other
        # text answers of 500 bytes or more compressed as they go (zstd, br or gzip, as the
        # browser accepts); WebSockets pass through untouched
        middleware=[Middleware(AccessLog),
                    Middleware(CompressMiddleware, minimum_size=COMPRESS_FROM),
                    Middleware(ApiHeaders)],
        lifespan=lifespan,
    )
    clock = clock or time.time
    app.state.metrics_allow = networks(metrics_allow)
    app.state.health_timeout = health_timeout
    app.state.metrics = metrics = Metrics()
    store = Store(db_path, busy_timeout=busy_timeout, clock=clock)
    app.state.service = GameService(store, computer_delay=computer_delay,
                                    hint_budget=hint_budget, review_budget=review_budget,
                                    seeds=seeds, limits=limits,
                                    workers=workers, clock=clock, events=store.events(),
                                    metrics=metrics)
    # the players' side, over the games' store: ratings follow a rated match's end
    service: GameService = app.state.service
    app.state.players = Players(
        service.store, clock,
        service.limiter("players", service.limits.players_per_minute,
                        service.limits.players_burst),
        service.events)
    rates = service.limits
    app.state.devices = Devices(
        service.store, app.state.players, rates.link_code_lifetime,
        service.limiter("codes", rates.codes_per_minute, rates.codes_burst),
        service.limiter("claims", rates.claims_per_minute, rates.claims_burst))
    app.state.standings = Standings(service.store, clock)
    app.state.puzzles = PuzzleRoom(
        puzzles if puzzles is not None else shipped_shelf(), service.store, app.state.players,
        clock, service.limiter("puzzles", rates.puzzle_answers_per_minute,
                               rates.puzzle_answers_burst))
    service.rate_with(app.state.standings)
    app.state.lobby = Lobby(service)
    app.state.featured = Featured(service.store, lambda: [
        Candidate(live.row, (int(live.match.totals[0]), int(live.match.totals[1])))
        for live in list(service.games.values()) if not live.over], clock)
    app.state.assets = assets
    app.state.studies = Studies((data_dir or data_folder(db_path)) / "studies", service.pool,
                                service.limits)
    app.state.allow_origins = frozenset(o.rstrip("/") for o in allow_origins)
    #: the seats' sockets open per client (Limits.seat_sockets_per_client)
    app.state.seat_sockets = Counter()
    lobby: Lobby = app.state.lobby
    metrics.watch(Gauges(
        live_games=lambda: len(service.games),
        sockets=lambda: {"seat": sum(app.state.seat_sockets.values()),
                         "spectator": service.watchers,
                         "lobby": sum(lobby.clients.values())},
        pool=service.pool.stats))
    return app
