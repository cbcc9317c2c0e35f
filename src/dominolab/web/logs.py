"""The server's log (docs/web.md, "Logs"): one line per HTTP request, per WebSocket opened
and closed, and per game event that matters to an operator, as text or as JSON.

- :func:`note` writes one structured line: a readable message, and beside it an ``event``
  name and its fields (JSON keys; the text form shows only the message).
- :class:`JsonFormatter` turns every record (ours, uvicorn's, asyncio's) into one JSON
  object per line: ``time``, ``level``, ``logger``, ``event``, ``message``, then the event's
  fields (and ``error``, a traceback's text, when the record has one).
- :class:`AccessLog` is the app's outermost middleware: a ``request`` line as each HTTP
  answer ends, and a ``socket_closed`` line as each WebSocket ends (its close code, and the
  kind, game and seat that :func:`socket_opened` noted when its hello was accepted).
- :func:`configure` sends all of it to standard error in the chosen format.

No line carries a seat token, an invitation code, a player key or any of their hashes: a
path is logged without its query string, and those secrets travel in headers and bodies,
which are never logged (the invitation code is in the URL's fragment, which a browser never
sends).

JSON lines are made by the standard library (``json`` and a small :class:`logging.Formatter`)
rather than a logging library: the whole formatter is a dozen lines, and the server's own
events carry their fields ready-made, which is what such libraries mostly add.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: one line per HTTP request (``request``)
ACCESS: Final = logging.getLogger("dominolab.web.access")
#: one line per WebSocket opened and closed (``socket_opened``, ``socket_closed``)
SOCKETS: Final = logging.getLogger("dominolab.web.sockets")
#: one line per game event (``game_created``, ``game_joined``, ``game_finished``,
#: ``game_expired``, ``ratings_applied``; ``game_move`` at DEBUG, with ``--log-moves``)
GAMES: Final = logging.getLogger("dominolab.web.games")

#: the formats :func:`configure` takes
FORMATS: Final = ("text", "json")
#: the text format's lines
TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: a logged path is cut to this many characters
PATH_CHARS: Final = 200
#: where :class:`AccessLog` finds what the app noted about a WebSocket (in its ASGI scope)
SCOPE_KEY: Final = "dominolab.socket"


def note(logger: logging.Logger, event: str, message: str, *args: object,
         level: int = logging.INFO, **fields: Any) -> None:
    """One structured line on ``logger``: ``message % args`` for people, ``event`` and
    ``fields`` (JSON values) for machines. Nothing is built when the level is off."""
    if logger.isEnabledFor(level):
        logger.log(level, message, *args, extra={"event": event, "fields": fields})


def shown_path(path: str) -> str:
    """A request's path as logged: at most :data:`PATH_CHARS` characters, and any character
    that could break a text line (a newline sent as ``%0A``) escaped."""
    if not path.isprintable():
        path = path.encode("unicode_escape").decode("ascii")
    return path if len(path) <= PATH_CHARS else path[:PATH_CHARS] + "..."


class JsonFormatter(logging.Formatter):
    """Each record as one line of JSON (see the module's docstring for its keys)."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line: dict[str, Any] = {
            "time": f"{stamp}.{int(record.msecs):03d}Z", "level": record.levelname.lower(),
            "logger": record.name, "event": getattr(record, "event", "message"),
            "message": record.getMessage()}
        fields = getattr(record, "fields", None)
        if fields:
            line.update(fields)
        if record.exc_info:
            line["error"] = self.formatException(record.exc_info)
        elif record.exc_text:
            line["error"] = record.exc_text
        return json.dumps(line, ensure_ascii=False, default=str)


def configure(fmt: str = "text", *, access: bool = True, moves: bool = False) -> None:
    """Every log line to standard error in ``fmt`` (one of :data:`FORMATS`): the server's
    at INFO (the request lines only with ``access``; each move too with ``moves``), other
    libraries' (uvicorn's, asyncio's) at WARNING. Replaces what an earlier call set up."""
    if fmt not in FORMATS:
        raise ValueError(f"the log format is one of {', '.join(FORMATS)}, not {fmt!r}")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "dominolab", False)]:
        root.removeHandler(old)
    handler.dominolab = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    logging.getLogger("dominolab").setLevel(logging.INFO)
    ACCESS.setLevel(logging.INFO if access else logging.WARNING)
    GAMES.setLevel(logging.DEBUG if moves else logging.INFO)


def socket_opened(scope: Scope, kind: str, game: str | None = None, seat: int | None = None,
                  player: str | None = None) -> None:
    """A WebSocket's hello was accepted: a ``socket_opened`` line, and what
    :class:`AccessLog` says of it once it closes. ``kind``: ``seat``, ``watch`` or ``lobby``;
    ``player``: a lobby socket's player's (public) id."""
    fields: dict[str, Any] = {"kind": kind, "game": game, "seat": seat, "player": player}
    scope[SCOPE_KEY] = fields
    client = scope.get("client")
    note(SOCKETS, "socket_opened", "%s socket opened%s%s from %s", kind,
         "" if game is None else f" on game {game}",
         "" if seat is None else f" seat {seat}",
         client[0] if client else "unknown", client=client[0] if client else None, **fields)


class AccessLog:
    """The app's outermost middleware: a ``request`` line for each HTTP request (method,
    path without its query, status, milliseconds, the client as the limits see it, bytes of
    body sent), and a ``socket_closed`` line for each WebSocket (its close code: the
    server's, or the client's, or 1006 if the connection just went)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and ACCESS.isEnabledFor(logging.INFO):
            await self._request(scope, receive, send)
        elif scope["type"] == "websocket" and SOCKETS.isEnabledFor(logging.INFO):
            await self._socket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _request(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = time.perf_counter()
        status = 0
        sent = 0

        async def counting(message: Message) -> None:
            nonlocal status, sent
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                sent += len(message.get("body", b""))
            await send(message)

        try:
            await self.app(scope, receive, counting)
        except Exception:
            status = status or 500  # the error handler outside answers 500
            raise
        finally:
            client = scope.get("client")
            address = client[0] if client else None
            ms = round((time.perf_counter() - start) * 1000, 1)
            path = shown_path(scope["path"])
            note(ACCESS, "request", "%s %s %d %.1f ms %s %d B", scope["method"], path, status,
                 ms, address, sent, method=scope["method"], path=path, status=status, ms=ms,
                 client=address, bytes=sent)

    async def _socket(self, scope: Scope, receive: Receive, send: Send) -> None:
        start = time.perf_counter()
        code: int | None = None
        accepted = False

        async def watching_send(message: Message) -> None:
            nonlocal code, accepted
            if message["type"] == "websocket.accept":
                accepted = True
            elif message["type"] == "websocket.close" and code is None:
                code = int(message.get("code", 1000))
            await send(message)

        async def watching_receive() -> Message:
            nonlocal code
            message = await receive()
            if message["type"] == "websocket.disconnect" and code is None:
                code = int(message.get("code", 1005))
            return message

        try:
            await self.app(scope, watching_receive, watching_send)
        finally:
            client = scope.get("client")
            address = client[0] if client else None
            noted = scope.get(SCOPE_KEY) or {"kind": None, "game": None, "seat": None,
                                             "player": None}
            ms = round((time.perf_counter() - start) * 1000, 1)
            code = code if code is not None else 1006
            path = shown_path(scope["path"])
            note(SOCKETS, "socket_closed", "%s socket closed %d after %.1f ms on %s%s from %s",
                 noted["kind"] or "unopened", code, ms, path,
                 "" if noted["seat"] is None else f" seat {noted['seat']}", address, path=path,
                 client=address, ms=ms, code=code, accepted=accepted, **noted)
