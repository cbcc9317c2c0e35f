"""The server's log (docs/web.md, "Logs"): a real ``dominolab serve --log-format json``
driven through a whole run by scripted clients (players, a friend game played out over its
seats' WebSockets, a spectator, the lobby, a rated lobby match played out over HTTP, a game
against the computer, a hint, a rematch, refusals); every line is JSON with the documented
fields, there is a line for each request, socket and game event, and no line holds any of
the secrets the clients held (seat tokens, invitation codes, player keys, a lobby socket's
id) or their hashes, even one sent in a query string. Beside it, in process: a time-out,
an expiry and the ratings each log their line, and the text format keeps one line per
record."""

from __future__ import annotations

import io
import json
import logging
import random
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

import loops
from dominolab.web import logs
from dominolab.web.edge.process import ServerProcess
from dominolab.web.games.clocks import CLOCK_GRACE
from dominolab.web.games.live import game_seat_token, seat_token, token_hash
from web_support import Clock, on_loop, seeded_app, service_of

pytestmark = pytest.mark.timeout(300)

#: the keys of every JSON line, and of each event's
COMMON = {"time", "level", "logger", "event", "message"}
FIELDS = {
    "request": {"method", "path", "status", "ms", "client", "bytes"},
    "socket_opened": {"kind", "game", "seat", "player", "client"},
    "socket_closed": {"kind", "game", "seat", "player", "client", "ms", "code", "path",
                      "accepted"},
    "game_created": {"game", "kind", "mode", "opponent", "rated", "move_seconds", "how",
                     "client", "players"},
    "game_joined": {"game", "seat", "client", "player"},
    "game_finished": {"game", "how", "winner", "points", "moves", "rated"},
    "game_expired": {"game"},
    "ratings_applied": {"game", "kind", "changes"},
}
#: what the server prints on standard output (the same file here) besides its log
BANNER = ("dominolab is running:", "Games are saved in ")


class Run:
    """A client of the server at ``base`` that keeps every secret it is given or sends."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.secrets: set[str] = set()
        self.requests = 0

    def keep(self, *secrets: str) -> None:
        for secret in secrets:
            self.secrets |= {secret, token_hash(secret)}

    def call(self, method: str, path: str, body: Any = None, token: str | None = None,
             key: str | None = None, want: int = 200) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token is not None:
            req.add_header("Authorization", f"Bearer {token}")
        if key is not None:
            req.add_header("X-Player-Key", key)
        self.requests += 1
        try:
            with urllib.request.urlopen(req, timeout=30) as answer:
                status, text = answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            status, text = exc.code, exc.read()
        assert status == want, (method, path, status, text[:300])
        return json.loads(text) if text else None

    def player(self, name: str) -> dict[str, Any]:
        made: dict[str, Any] = self.call("POST", "/api/players", {"name": name}, want=201)
        self.keep(made["key"])
        return made

    def play_out(self, gid: str, tokens: tuple[str, str], rng: random.Random) -> int:
        """Random legal moves over HTTP until the match is over; how many were made."""
        made = 0
        while True:
            st = self.call("GET", f"/api/games/{gid}", token=tokens[0])
            if st["match_result"] is not None:
                return made
            seat = st["to_move"]
            st = self.call("GET", f"/api/games/{gid}", token=tokens[seat])
            move = rng.choice(st["legal"])["move"]
            self.call("POST", f"/api/games/{gid}/moves",
                      {"move": move, "version": st["version"]}, token=tokens[seat])
            made += 1


def ws_url(base: str, path: str) -> str:
    return base.replace("http://", "ws://") + path


def until(ws: Any, done: Callable[[dict[str, Any]], bool], seconds: float = 30
          ) -> dict[str, Any]:
    """The first message from ``ws`` that is ``done``, within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        assert left > 0, "no such message in time"
        message: dict[str, Any] = json.loads(ws.recv(timeout=left))
        if done(message):
            return message


def play_over_sockets(base: str, gid: str, tokens: tuple[str, str], rng: random.Random,
                      moves: int) -> None:
    """``moves`` random legal moves, each sent over the seat's own WebSocket and seen
    arrive on both."""
    from websockets.sync.client import connect

    with connect(ws_url(base, f"/ws/games/{gid}"), open_timeout=30) as zero, \
            connect(ws_url(base, f"/ws/games/{gid}"), open_timeout=30) as one:
        states: list[dict[str, Any]] = []
        for seat, ws in enumerate((zero, one)):
            ws.send(json.dumps({"type": "hello", "token": tokens[seat]}))
            states.append(until(ws, lambda m: m["type"] == "state")["state"])
        for _ in range(moves):
            seat = states[0]["to_move"]
            if seat is None:
                return
            st = states[seat]
            version = st["version"]
            (zero, one)[seat].send(json.dumps({"type": "move", "version": version,
                                               "move": rng.choice(st["legal"])["move"]}))
            def newer(m: dict[str, Any], version: int = version) -> bool:
                return bool(m["type"] == "state" and m["state"]["version"] > version)

            for side, ws in enumerate((zero, one)):
                states[side] = until(ws, newer)["state"]


@pytest.fixture
def logged_run(tmp_path: Path) -> Iterator[tuple[Run, Path, ServerProcess]]:
    log = tmp_path / "server.log"
    server = ServerProcess(tmp_path / "g.sqlite3", computer_delay=0.0, game_seeds=39,
                           extra=("--log-format", "json"), log=log)
    with server:
        yield Run(server.base), log, server


def test_a_whole_runs_json_log_has_every_line_and_no_secret(
        logged_run: tuple[Run, Path, ServerProcess]) -> None:
    from websockets.sync.client import connect

    run, log, server = logged_run
    rng = random.Random(39)
    ala, ola = run.player("Ala"), run.player("Ola")
    # a friend game: made with Ala's key (her seat's token derives from it), claimed by Ola
    made = run.call("POST", "/api/games", {"game": "luzak-line", "opponent": "friend"},
                    key=ala["key"], want=201)
    gid, invite = made["id"], made["invite"].split("#i=", 1)[1]
    assert made["token"] == game_seat_token(ala["key"], gid)
    joined = run.call("POST", f"/api/games/{gid}/join", {"invite": invite}, key=ola["key"])
    tokens = (made["token"], joined["token"])
    run.keep(*tokens, invite)
    # a spectator watches while the seats play a few moves over their sockets
    with connect(ws_url(run.base, f"/ws/games/{gid}"), open_timeout=30) as watcher:
        watcher.send(json.dumps({"type": "hello", "watch": True}))
        until(watcher, lambda m: m["type"] == "state")
        play_over_sockets(run.base, gid, tokens, rng, 6)
    # the rest over HTTP, then a rematch, a record and the replay
    run.play_out(gid, tokens, rng)
    rematch = run.call("POST", f"/api/games/{gid}/rematch", {}, token=tokens[0], want=201)
    run.call("GET", f"/api/games/{gid}/record", token=tokens[1])
    run.call("GET", f"/api/games/{gid}/replay")
    # the token in a query string (where a careless client might put it) is not logged
    run.call("GET", f"/api/games/{rematch['id']}?token={tokens[0]}&key={ala['key']}",
             want=401)
    # a seat's socket with a wrong token is refused
    wrong = "x" * 32
    run.keep(wrong)
    with connect(ws_url(run.base, f"/ws/games/{gid}"), open_timeout=30) as ws:
        ws.send(json.dumps({"type": "hello", "token": wrong}))
        assert until(ws, lambda m: m["type"] == "error")["status"] == 4401
    # against the computer: a few moves and a hint
    computer = run.call("POST", "/api/games", {"game": "luzak", "opponent": "easy",
                                               "first": "me"}, want=201)
    run.keep(computer["token"])
    run.call("POST", f"/api/games/{computer['id']}/hint", {}, token=computer["token"])
    # the lobby: Ala's seek, made over her lobby socket, accepted by Ola; a rated match
    # played out, whose ratings follow
    with connect(ws_url(run.base, "/ws/lobby"), open_timeout=30) as lobby:
        lobby.send(json.dumps({"type": "hello", "player": ala["key"]}))
        conn = until(lobby, lambda m: m["type"] == "welcome")["conn"]
        run.keep(conn)
        seek = run.call("POST", "/api/seeks", {"game": "luzak-line", "rated": True,
                                               "conn": conn}, key=ala["key"], want=201)
        lobby_game = run.call("POST", f"/api/seeks/{seek['id']}/accept", {}, key=ola["key"],
                              want=201)
    lobby_tokens = (seat_token(ala["key"], seek["id"]), lobby_game["token"])
    assert lobby_tokens[1] == seat_token(ola["key"], seek["id"])
    run.keep(*lobby_tokens)
    run.play_out(lobby_game["id"], lobby_tokens, rng)
    loops.until(lambda: run.call("GET", f"/api/players/{ala['id']}")["ratings"]["luzak-line"]
                is not None, 30, "the rated match's ratings applied")
    run.call("GET", "/api/me", key=ola["key"])

    # a request's line follows its answer: all are written once the server has stopped
    server.stop()
    # every line is JSON (but the banner)
    text = log.read_text()
    lines = [json.loads(line) for line in text.splitlines() if not line.startswith(BANNER)]
    for line in lines:
        assert line.keys() >= COMMON, line
        assert line.keys() >= FIELDS.get(line["event"], set()), line
    events = [line["event"] for line in lines]
    assert events.count("request") == run.requests + 1  # and the start's /api/meta
    assert set(events) >= set(FIELDS) - {"game_expired"}
    queried = [line for line in lines if line["event"] == "request" and line["status"] == 401]
    assert [line["path"] for line in queried] == [f"/api/games/{rematch['id']}"]
    opened = {(line["kind"], line["game"], line["seat"]) for line in lines
              if line["event"] == "socket_opened"}
    assert opened == {("watch", gid, None), ("seat", gid, 0), ("seat", gid, 1),
                      ("lobby", None, None)}
    closed = [(line["kind"], line["code"]) for line in lines
              if line["event"] == "socket_closed"]
    assert (None, 4401) in closed and len(closed) == 5
    created = {line["game"]: line["how"] for line in lines if line["event"] == "game_created"}
    assert created == {gid: "new", rematch["id"]: "rematch", computer["id"]: "new",
                       lobby_game["id"]: "seek"}
    finished = {line["game"]: line["how"] for line in lines if line["event"] == "game_finished"}
    assert finished == {gid: "play", lobby_game["id"]: "play"}
    [rated] = [line for line in lines if line["event"] == "ratings_applied"]
    assert rated["game"] == lobby_game["id"]
    assert {c["player"] for c in rated["changes"]} == {ala["id"], ola["id"]}
    assert not any(line["level"] in ("error", "critical") for line in lines), lines
    # and not one secret, in any form the run held it
    assert len(run.secrets) == 2 * 10
    for secret in run.secrets:
        assert secret not in text, f"the log holds a secret: {secret}"


# -- in process --------------------------------------------------------------------------------

def noted(caplog: pytest.LogCaptureFixture, event: str) -> list[dict[str, Any]]:
    return [{**r.fields, "message": r.getMessage()}  # type: ignore[attr-defined]
            for r in caplog.records if getattr(r, "event", None) == event]


def test_a_time_out_an_expiry_and_the_ratings_each_log_their_line(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="dominolab")
    clock = Clock()
    app = seeded_app(tmp_path / "g.sqlite3", seed=5, workers=0, clock=clock)
    with TestClient(app) as client:
        ala = client.post("/api/players", json={"name": "Ala"}).json()
        made = client.post("/api/games", json={"game": "luzak-line", "opponent": "easy",
                                               "rated": True, "first": "me",
                                               "move_seconds": 30},
                           headers={"X-Player-Key": ala["key"]}).json()
        casual = client.post("/api/games", json={"game": "luzak", "opponent": "easy"}).json()
        service = service_of(client)
        clock.now += 30 + CLOCK_GRACE + 1
        assert on_loop(client, service.sweep_clocks) == 1
        [ended] = noted(caplog, "game_finished")
        assert (ended["game"], ended["how"], ended["winner"], ended["rated"]) == \
            (made["id"], "time", 1, True)
        [rated] = noted(caplog, "ratings_applied")
        assert rated["game"] == made["id"] and rated["changes"][0]["player"] == ala["id"]
        assert rated["changes"][0]["after"] < rated["changes"][0]["before"]
        # the casual game, untouched for longer than games are kept, is deleted
        clock.now += service.limits.abandoned_after + 1
        assert on_loop(client, service.expire) == 1
        assert [line["game"] for line in noted(caplog, "game_expired")] == [casual["id"]]
    for record in caplog.records:
        for secret in (ala["key"], made["token"], casual["token"]):
            assert secret not in record.getMessage()
            assert secret not in json.dumps(getattr(record, "fields", {}), default=str)


def test_moves_are_logged_only_when_asked() -> None:
    """``--log-moves``: a DEBUG line per move on the games' logger; off by default."""
    root_level = logging.getLogger().level
    try:
        logs.configure("json")
        assert not logs.GAMES.isEnabledFor(logging.DEBUG)
        assert logs.ACCESS.isEnabledFor(logging.INFO)
        logs.configure("json", access=False, moves=True)
        assert logs.GAMES.isEnabledFor(logging.DEBUG)
        assert not logs.ACCESS.isEnabledFor(logging.INFO)
        handlers = [h for h in logging.getLogger().handlers if getattr(h, "dominolab", False)]
        assert len(handlers) == 1  # configured twice: one handler still
    finally:
        root = logging.getLogger()
        root.setLevel(root_level)
        for handler in [h for h in root.handlers if getattr(h, "dominolab", False)]:
            root.removeHandler(handler)
        logs.GAMES.setLevel(logging.NOTSET)
        logs.ACCESS.setLevel(logging.NOTSET)
        logging.getLogger("dominolab").setLevel(logging.NOTSET)
    with pytest.raises(ValueError, match="'xml'"):
        logs.configure("xml")


def test_each_format_keeps_one_line_per_record() -> None:
    """A path with a newline in it (sent as %0A) stays on its line, in either format; an
    error's traceback goes into the JSON line's ``error``."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    logger = logging.getLogger("dominolab.test.logs")
    logger.addHandler(handler)
    logger.propagate = False
    logger.setLevel(logging.INFO)
    try:
        path = logs.shown_path("/game/\nfake line" + "x" * 500)
        assert "\n" not in path and len(path) <= logs.PATH_CHARS + 3
        for formatter in (logging.Formatter(logs.TEXT_FORMAT), logs.JsonFormatter()):
            handler.setFormatter(formatter)
            logs.note(logger, "request", "GET %s", path, path=path)
            try:
                raise RuntimeError("boom")
            except RuntimeError:
                logger.exception("failed")
        text, json_lines = out.getvalue().split("\n", 1)[0], out.getvalue().splitlines()
        assert text.endswith("GET " + path)
        [request, failed] = [json.loads(line) for line in json_lines if line.startswith("{")]
        assert (request["event"], request["path"]) == ("request", path)
        assert (failed["event"], failed["level"]) == ("message", "error")
        assert "RuntimeError: boom" in failed["error"]
    finally:
        logger.removeHandler(handler)


def test_serve_refuses_an_unknown_log_format(capsys: pytest.CaptureFixture[str]) -> None:
    from dominolab.cli.main import main

    with pytest.raises(SystemExit) as exited:
        main(["serve", "--log-format", "xml"])
    assert exited.value.code == 2
    assert "--log-format: invalid choice: 'xml'" in capsys.readouterr().err
