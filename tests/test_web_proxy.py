"""dominolab behind nginx (docs/deploy.md): the shipped site file, run by Debian's nginx
(tests/nginxserver.py) in front of one server on SQLite and of two on PostgreSQL.

Through the proxy: the page, the API, a game's and the lobby's WebSockets; each client's own
address reaches the per-address limits (the servers believe the proxy's X-Forwarded-For,
``--forwarded-allow-ips 127.0.0.1``, and nginx writes that header itself, so a client's
forged one is dropped); one of two servers killed, the other serves the page, the API and
the game's socket reconnecting.
"""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from dominolab.cli.main import build_parser
from dominolab.web.edge.nginx import site_config, site_file
from dominolab.web.edge.process import ServerProcess
from nginxserver import StartNginx
from rawsocket import lobby_hello
from web_support import running

Json = dict[str, Any]

pytestmark = pytest.mark.timeout(180)

#: the servers believe the proxy on this machine, as docs/deploy.md starts them
TRUST = ("--forwarded-allow-ips", "127.0.0.1")


def request(base: str, method: str, path: str, body: Any = None, source: str = "127.0.0.1",
            headers: dict[str, str] | None = None, token: str | None = None
            ) -> tuple[int, str, Any]:
    """One request to ``base`` from the loopback address ``source``: status, content type
    and the body (decoded if JSON)."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=15, source_address=(source, 0))
    sent = dict(headers or {})
    if body is not None:
        sent["Content-Type"] = "application/json"
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, None if body is None else json.dumps(body), sent)
        answer = conn.getresponse()
        data = answer.read()
        kind = answer.getheader("Content-Type") or ""
        return answer.status, kind, json.loads(data) if "json" in kind else data.decode()
    finally:
        conn.close()


def friend_game(base: str) -> tuple[str, str, str]:
    """A friend game made from 127.0.0.2 through ``base``, its invitation claimed from
    127.0.0.3: (id, seat 0's token, seat 1's)."""
    status, _, made = request(base, "POST", "/api/games",
                              {"game": "luzak", "opponent": "friend", "first": "me",
                               "options": {"target": 20}}, source="127.0.0.2")
    assert status == 201, made
    status, _, joined = request(base, "POST", f"/api/games/{made['id']}/join",
                                {"invite": made["invite"].split("#i=", 1)[1]},
                                source="127.0.0.3")
    assert status == 200, joined
    return made["id"], made["token"], joined["token"]


def seat_socket(base: str, gid: str, token: str, origin: str | None = None
                ) -> tuple[ClientConnection, Json]:
    """A seat's socket through ``base`` after its hello: it, and the first state."""
    ws = connect(base.replace("http://", "ws://") + f"/ws/games/{gid}", open_timeout=10,
                 origin=None if origin is None else Origin(origin), legacy=True)
    ws.send(json.dumps({"type": "hello", "token": token}))
    return ws, next_state(ws)


def next_state(ws: ClientConnection, timeout: float = 10) -> Json:
    message: Json = json.loads(ws.recv(timeout))
    assert message["type"] == "state", message
    state: Json = message["state"]
    return state


def state_at(ws: ClientConnection, version: int, timeout: float = 10) -> Json:
    """The first state the socket is sent at ``version`` or later (each read bounded)."""
    while True:
        state = next_state(ws, timeout)
        if state["version"] >= version:
            return state


# -- the shipped file --------------------------------------------------------------------------

def test_the_shipped_site_file_takes_the_tests_ports_and_nothing_else() -> None:
    text = site_file().read_text()
    made = site_config(text, 9000, [9001, 9002, 9003])
    assert "listen 127.0.0.1:9000;" in made and "listen 80;" not in made
    assert "[::]" not in made
    assert re.findall(r"server 127\.0\.0\.1:(\d+) max_fails=1 fail_timeout=10s;", made) == \
        ["9001", "9002", "9003"]
    # every other line as shipped
    kept = [line for line in text.splitlines()
            if not re.match(r"\s*(listen |server 127)", line)]
    assert [line for line in made.splitlines()
            if not re.match(r"\s*(listen |server 127)", line)] == kept
    with pytest.raises(ValueError, match="listen 80"):
        site_config(text.replace("listen 80;", "listen 8080;"), 9000, [9001])
    with pytest.raises(ValueError, match="upstream"):
        site_config(re.sub(r"server 127[^\n]*\n", "", text), 9000, [9001])
    with pytest.raises(ValueError, match="at least one"):
        site_config(text, 9000, [])


def test_the_proxy_waits_longer_than_the_sockets_ping_and_sets_the_client_itself() -> None:
    text = site_file().read_text()
    read = re.search(r"proxy_read_timeout (\d+)s;", text)
    assert read is not None
    # the server pings every quiet WebSocket this often (uvicorn's default, which serve
    # keeps): a socket with nothing to say is never cut by the proxy
    ping = uvicorn.Config("dominolab.web.edge.app:create_app").ws_ping_interval
    assert ping is not None and int(read.group(1)) > 2 * ping
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in text
    assert "$proxy_add_x_forwarded_for" not in text


def test_docs_deploy_shows_the_shipped_files_and_a_unit_serve_accepts() -> None:
    """docs/deploy.md shows the site file and the systemd unit whole, as shipped; the
    unit's ExecStart is ``dominolab serve`` with flags its parser takes."""
    doc = (Path(__file__).parents[1] / "docs" / "deploy.md").read_text()
    unit = (site_file().parent / "dominolab@.service").read_text()
    assert f"```nginx\n{site_file().read_text()}```" in doc
    assert f"```ini\n{unit}```" in doc
    exec_start = [line.split("=", 1)[1] for line in unit.splitlines()
                  if line.startswith("ExecStart=")]
    assert len(exec_start) == 1
    argv = exec_start[0].replace("%i", "8000").split()
    assert argv[0] == "/opt/dominolab/venv/bin/dominolab" and argv[0] in doc
    args = build_parser().parse_args(argv[1:])
    assert (args.command, args.host, args.port, args.forwarded_allow_ips) == \
        ("serve", "127.0.0.1", 8000, "127.0.0.1")
    assert "DOMINOLAB_DB=" in unit  # the database, as serve reads it without --db


# -- one server ----------------------------------------------------------------------------

def test_page_api_and_both_sockets_through_the_proxy(tmp_path: Path,
                                                     nginx: StartNginx) -> None:
    with ServerProcess(tmp_path / "games.sqlite3", extra=TRUST) as server:
        proxy = nginx([server.port])
        status, kind, page = request(proxy.base, "GET", "/")
        assert status == 200 and kind.startswith("text/html") and "<html" in page.lower()
        status, _, meta = request(proxy.base, "GET", "/api/meta")
        assert status == 200 and {"luzak", "widelec"} <= {g["name"] for g in meta["games"]}
        status, _, missing = request(proxy.base, "GET", "/api/games/nosuchgame")
        assert status == 404 and "error" in missing  # the app's JSON, not nginx's page
        gid, token0, token1 = friend_game(proxy.base)
        # a page of this site (the Host nginx passes on carries the port the browser used)
        ws0, st0 = seat_socket(proxy.base, gid, token0, origin=proxy.base)
        ws1, st1 = seat_socket(proxy.base, gid, token1, origin=proxy.base)
        with ws0, ws1:
            assert (st0["seat"], st1["seat"], st0["to_move"]) == (0, 1, 0)
            ws0.send(json.dumps({"type": "move", "move": st0["legal"][0]["move"],
                                 "version": st0["version"]}))
            seen = state_at(ws1, st0["version"] + 1)
            assert seen["history"][-1]["seat"] == 0
        # another site's page is refused, as without the proxy
        assert seat_socket_refused(proxy.base, gid, "https://elsewhere.example") == 403
        status, _, player = request(proxy.base, "POST", "/api/players", {"name": "Ala"})
        assert status == 201, player
        lobby, welcome = lobby_hello(proxy.base, player["key"])
        assert welcome["type"] == "welcome"
        lobby.send({"type": "ping"})
        assert lobby.until("pong")["type"] == "pong"
        lobby.close()
    assert "Traceback" not in server.log.read_text()


def seat_socket_refused(base: str, gid: str, origin: str) -> int:
    """The HTTP status a seat's socket from a page of ``origin`` is refused with."""
    with pytest.raises(InvalidStatus) as refused:
        connect(base.replace("http://", "ws://") + f"/ws/games/{gid}", open_timeout=10,
                origin=Origin(origin), legacy=True)
    return refused.value.response.status_code


def test_each_client_behind_the_proxy_has_its_own_limits_and_cannot_forge_another(
        tmp_path: Path, nginx: StartNginx) -> None:
    """From 127.0.0.2, eleven creations, each naming another address in X-Forwarded-For:
    the eleventh is past that one address's burst (10), so the forged header was not
    believed; 127.0.0.3 through the same proxy still creates, so the server counted the real
    clients rather than the proxy."""
    with ServerProcess(tmp_path / "games.sqlite3", extra=TRUST) as server:
        proxy = nginx([server.port])

        def create(source: str, forged: str | None = None) -> int:
            headers = {"X-Forwarded-For": forged} if forged else {}
            return request(proxy.base, "POST", "/api/games", {"opponent": "friend"},
                           source=source, headers=headers)[0]

        assert [create("127.0.0.2", f"127.0.9.{i}") for i in range(11)] == [201] * 10 + [429]
        assert create("127.0.0.3") == 201
        assert create("127.0.0.3", "127.0.0.2") == 201  # nor can it be charged to another
        assert create("127.0.0.2") == 429


def test_without_forwarded_allow_ips_everyone_behind_the_proxy_is_one_client(
        tmp_path: Path, nginx: StartNginx) -> None:
    """Why docs/deploy.md starts the servers with --forwarded-allow-ips: without it the
    proxy is the only client the server sees."""
    with ServerProcess(tmp_path / "games.sqlite3") as server:
        proxy = nginx([server.port])
        statuses = [request(proxy.base, "POST", "/api/games", {"opponent": "friend"},
                            source=f"127.0.0.{2 + i}")[0] for i in range(11)]
    assert statuses == [201] * 10 + [429]


# -- two servers on PostgreSQL -------------------------------------------------------------

def test_a_server_killed_behind_the_proxy_leaves_the_other_serving_everything(
        pg_url: str, tmp_path: Path, nginx: StartNginx) -> None:
    """Two servers on one database behind nginx; four sockets of one game, opened one after
    the other, are spread over both by nginx's round robin. One server is killed (SIGKILL):
    its sockets close; the page and the API answer every request through the other; a
    closed seat reconnects through the proxy, to the other server, at the same version,
    and plays on."""
    with running([ServerProcess(pg_url, log=tmp_path / f"server{i}.log", game_seeds=3 + i,
                                extra=TRUST) for i in range(2)]) as servers:
        proxy = nginx([server.port for server in servers])
        gid, token0, token1 = friend_game(proxy.base)
        tokens = [token0, token1, token0, token1]
        opened = [seat_socket(proxy.base, gid, token) for token in tokens]
        sockets = [ws for ws, _ in opened]
        servers[0].kill()
        closed: list[int] = []
        for i, ws in enumerate(sockets):  # a socket on the killed server ends
            try:
                ws.send(json.dumps({"type": "ping"}))
                while json.loads(ws.recv(3))["type"] != "pong":
                    pass
            except (ConnectionClosed, TimeoutError):
                closed.append(i)
        assert 0 < len(closed) < 4, closed
        for _ in range(6):  # round robin would send every other one to the dead server
            assert request(proxy.base, "GET", "/")[0] == 200
            status, _, state = request(proxy.base, "GET", f"/api/games/{gid}", token=token0)
            assert status == 200 and state["version"] == 0
        again = closed[0]
        ws, st = seat_socket(proxy.base, gid, tokens[again])
        assert st["version"] == 0 and st["seat"] == again % 2
        alive = next(i for i in range(4) if i not in closed and i % 2 != again % 2)
        mover, watcher = (ws, sockets[alive]) if st["to_move"] == st["seat"] else \
            (sockets[alive], ws)
        mine = st if mover is ws else opened[alive][1]
        mover.send(json.dumps({"type": "move", "move": mine["legal"][0]["move"],
                               "version": 0}))
        assert state_at(watcher, 1)["version"] == 1
        for sock in [*sockets, ws]:
            sock.close()
        assert "Traceback" not in servers[1].log.read_text()
