"""Many games at once against a real server, over WebSocket (``dominolab bench serve``).

A real ``dominolab serve`` is started in its own process on loopback, with a fresh
database. For each run, N friend games are created over HTTP and each seat is played by a
scripted client over its own WebSocket: when its state says it is to move, it waits the
think time, then sends a random legal move with the version it saw. The time measured is
from a move sent to the *opponent's* client receiving the state with that move. Errors are
error messages, refused moves and dropped sockets; a lost move is one the server accepted
(or never answered) whose update the opponent never received, or a final server version
that disagrees with the moves the clients made.

Each game is created from a loopback address of its own and its invitation claimed from
another (``127.0.1.x`` and ``127.0.2.x``: Linux's loopback answers the whole of
127.0.0.0/8), so that the server's limits per address see each player as a different person.
With ``--abuse``, one more client, from ``127.0.0.2`` in a process of its own, spends the
whole run creating "hard, the computer opens" games and asking for hints on them as fast as
it can over several connections, ignoring every refusal; the normal games' figures show
what that costs everybody else, and the abuser's answers by status show what it got.
Every request goes to the server on 127.0.0.1.

With ``--db postgresql://...`` and ``--servers N``, N servers are started on that database
(each run in a schema of its own, dropped afterwards) and the clients are spread over them:
game i's seat 0 is on server i mod N and its seat 1 on server i + 1 mod N, so with two
servers the seats of every friend game are on different processes and each move reaches
the opponent through PostgreSQL's LISTEN/NOTIFY. The same runs are then played against one
server on a fresh SQLite file, for comparison, in the same command.

With ``--proxy nginx``, each run is played twice, side by side: straight to the servers,
then through Debian's nginx (/usr/sbin/nginx) running the site file docs/deploy.md ships,
in front of them; the clients then all talk to nginx, which spreads their connections over
the servers, and the servers believe its X-Forwarded-For (``--forwarded-allow-ips
127.0.0.1``, in both runs), so each client keeps its own address.

Besides the friend games, each run plays K games against the computer (``--computer-games``,
default 10; at the level ``--computer-level``, default easy), each created from an address of
its own (``127.0.3.x`` with up to 250 friend games) with the person opening; its one seat is
a scripted client like the others. Measured there: the time from the person's move sent to
the person's client receiving the state in which the computer has replied (the first state
with the person to move again, or the match over), the server's computer delay being 0. A
move after which the computer had nothing to do (it ended a hand and the person opens the
next) is counted apart. The targets (:func:`reply_target`): the easy computer is greedy, a
few milliseconds of work, so its p99 is to stay under 1 s also under ``--abuse`` (its reply
does not wait behind the abuser's hard searches); a searching level (medium, hard) is to
reply in a median of at most 1 s and never take more than 3 s.

With ``--study MATCHES``, each run is played twice on fresh servers, the same games from the
same seed: without, then with a study of MATCHES greedy matches (``--study-player`` for
another lab player) asked of the first server from 127.0.0.1 as the first move may go
(:class:`~dominolab.lab.bench.study.StudyBeside`), and cancelled when the moves stop if it
still runs. :func:`study_pairs` sets the two p99s side by side against issue 42's target: a
friend game's p99 move-to-update under 250 ms while a study runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import itertools
import json
import multiprocessing
import os
import random
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from dominolab.lab.bench.study import STUDY_PLAYER, StudyBeside, study_body
from dominolab.lab.stats import percentile
from dominolab.web.edge.nginx import NginxProcess
from dominolab.web.edge.process import ServerProcess

#: the server's address: the only one any request of the bench goes to
SERVER: Final = "127.0.0.1"
#: the abusive client's own address
ABUSER: Final = "127.0.0.2"
#: the abuser's connections, each sending its next request as soon as it has an answer
ABUSE_CONNECTIONS: Final = 4
#: what the abuser creates: the costliest game there is to start
HARD_OPENS: Final = {"game": "luzak", "opponent": "hard", "first": "opponent"}
#: the computer's reply to a move in a game against the easy computer: p99 under this
COMPUTER_REPLY_TARGET_MS: Final = 1000.0
#: a searching level's reply to a move: median at most this, and none longer than the worst
SEARCH_REPLY_MEDIAN_MS: Final = 1000.0
SEARCH_REPLY_WORST_MS: Final = 3000.0
#: after a run's last move, how long its clients may wait for the answers still due
DRAIN_SECONDS: Final = 30.0


def player_address(index: int, seat: int) -> str:
    """The loopback address of game ``index``'s player in ``seat``: 127.0.1.x for seat 0,
    127.0.2.x for seat 1 (then 127.0.3.x, 127.0.4.x past 250 games, and so on)."""
    block, host = divmod(index, 250)
    return f"127.0.{1 + 2 * block + seat}.{1 + host}"


def computer_player_address(index: int, friend_games: int) -> str:
    """The loopback address of the person in computer game ``index`` of a run that also
    has ``friend_games`` friend games: the first block past theirs (127.0.3.x with up to
    250 friend games)."""
    used = 2 * -(-friend_games // 250)  # the third bytes the friend games' players use
    block, host = divmod(index, 250)
    return f"127.0.{1 + used + block}.{1 + host}"


def call(port: int, method: str, path: str, body: Any = None, token: str | None = None,
         source: str = SERVER, conn: http.client.HTTPConnection | None = None,
         timeout: float = 30) -> tuple[int, Any]:
    """One JSON request to the server from loopback address ``source`` (over ``conn``, kept
    alive, if given): (status, the decoded answer or None)."""
    own = conn is None
    if conn is None:
        conn = http.client.HTTPConnection(SERVER, port, timeout=timeout,
                                          source_address=(source, 0))
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        answer = conn.getresponse()
        data = answer.read()
        try:
            # our own server's answer: a bench client reads what the server under test
            # wrote, not a person's file (a decode error is counted as no answer)
            decoded = json.loads(data) if data else None
        except ValueError:
            decoded = None
        return answer.status, decoded
    finally:
        if own:
            conn.close()


#: the server's counts a run reads from ``/metrics``: its moves, and what is open as play
#: begins (summed over the servers)
SCRAPED: Final = ("dominolab_moves_total", "dominolab_computer_moves_total",
                  "dominolab_live_games", 'dominolab_open_sockets{kind="seat"}')


def scrape(ports: Sequence[int], timeout: float = 30) -> dict[str, float] | None:
    """:data:`SCRAPED` from the ``/metrics`` of the servers at ``ports`` (asked from
    :data:`SERVER`), each summed over them; None if a server has no ``/metrics`` (an older
    one's ``--server-src``) or it cannot be read."""
    from prometheus_client.parser import text_string_to_metric_families

    found = dict.fromkeys(SCRAPED, 0.0)
    for port in ports:
        conn = http.client.HTTPConnection(SERVER, port, timeout=timeout)
        try:
            conn.request("GET", "/metrics")
            answer = conn.getresponse()
            text = answer.read().decode("utf-8", "replace")
        except OSError:
            return None
        finally:
            conn.close()
        if answer.status != 200:
            return None
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
                name = f"{sample.name}{{{labels}}}" if labels else sample.name
                if name in found:
                    found[name] += sample.value
    return found


def _expect(port: int, method: str, path: str, body: Any, token: str | None, source: str,
            want: int) -> Any:
    status, answer = call(port, method, path, body, token, source)
    if status != want:
        raise RuntimeError(f"{method} {path} from {source}: {status} {answer}")
    return answer


def create_friend_game(port: int, game: str, index: int, join_port: int | None = None
                       ) -> tuple[str, tuple[str, str]]:
    """Game ``index``: created by its seat-0 player, its invitation claimed by its seat-1
    player (each from its own address; on the server at ``join_port`` if given); returns
    (id, both seats' tokens).

    The invitation is ``/game/ID#i=CODE``, claimed with ``POST /api/games/ID/join``; an
    older server's ``/game/ID#t=TOKEN`` carries seat 1's token itself."""
    created = _expect(port, "POST", "/api/games",
                      {"game": game, "opponent": "friend", "first": "lot"}, None,
                      player_address(index, 0), 201)
    game_id, invite = created["id"], created.get("invite") or ""
    if "#t=" in invite:
        return game_id, (created["token"], invite.split("#t=", 1)[1])
    if "#i=" not in invite:
        raise RuntimeError(f"game {game_id}: no invitation in {invite!r}")
    joined = _expect(join_port or port, "POST", f"/api/games/{game_id}/join",
                     {"invite": invite.split("#i=", 1)[1]}, None, player_address(index, 1), 200)
    if joined.get("seat") != 1:
        raise RuntimeError(f"game {game_id}: claiming the invitation gave {joined}")
    return game_id, (created["token"], joined["token"])


def create_computer_game(port: int, game: str, source: str,
                         level: str = "easy") -> tuple[str, str]:
    """A game against the computer at ``level``, the person opening, created from
    ``source``: (id, the person's token)."""
    created = _expect(port, "POST", "/api/games",
                      {"game": game, "opponent": level, "first": "me"}, None, source, 201)
    if created.get("seat") not in (0, None):
        raise RuntimeError(f"game {created['id']}: created in seat {created.get('seat')}")
    return created["id"], created["token"]


# -- the abuser ------------------------------------------------------------------------------

def _abuse_connection(port: int, stop: Any, games: list[tuple[str, str]],
                      lock: threading.Lock, counts: dict[str, Any], seed: int,
                      open_conns: set[http.client.HTTPConnection], ready: Any) -> None:
    """One of the abuser's connections: a creation, then a hint on one of its games, and
    again, until ``stop``; a refusal is never waited out. ``ready`` is set at its first
    answer."""
    rng = random.Random(seed)
    conn: http.client.HTTPConnection | None = None
    sent = 0
    while not stop.is_set():
        if conn is None:
            conn = http.client.HTTPConnection(SERVER, port, timeout=30,
                                              source_address=(ABUSER, 0))
            with lock:
                open_conns.add(conn)
        with lock:
            target = rng.choice(games) if games and sent % 2 else None
        try:
            if target is None:
                status, answer = call(port, "POST", "/api/games", HARD_OPENS, conn=conn)
            else:
                status, answer = call(port, "POST", f"/api/games/{target[0]}/hint", {},
                                      target[1], conn=conn)
        except (OSError, http.client.HTTPException):
            with lock:
                open_conns.discard(conn)
                if not stop.is_set():  # else it was cut short at the end of the run
                    counts["connection_errors"] += 1
            conn.close()
            conn = None
            continue
        sent += 1
        ready.set()
        with lock:
            if target is None and status == 201:
                games.append((answer["id"], answer["token"]))
            key = str(status) if status in (200, 201, 429) else "other"
            counts["by_status"][key] += 1
            if key == "other":
                counts["other_statuses"][str(status)] = \
                    counts["other_statuses"].get(str(status), 0) + 1
    if conn is not None:
        with lock:
            open_conns.discard(conn)
        conn.close()


def abuse(port: int, stop: Any, out: Any, ready: Any,
          connections: int = ABUSE_CONNECTIONS) -> None:
    """The abusive client (run in a process of its own, so that its own work does not slow
    the measuring clients' event loop): ``connections`` connections from :data:`ABUSER`
    until ``stop`` is set, ``ready`` set once the server has answered the first; then its
    counts go to the queue ``out``."""
    with contextlib.suppress(OSError):
        os.nice(5)  # its processor time stands for another machine's: the server's comes first
    counts: dict[str, Any] = {"by_status": {"201": 0, "200": 0, "429": 0, "other": 0},
                              "other_statuses": {}, "connection_errors": 0}
    games: list[tuple[str, str]] = []
    lock = threading.Lock()
    open_conns: set[http.client.HTTPConnection] = set()
    started = time.perf_counter()
    threads = [threading.Thread(target=_abuse_connection,
                                args=(port, stop, games, lock, counts, i, open_conns,
                                      ready),
                                daemon=True)
               for i in range(connections)]
    for thread in threads:
        thread.start()
    stop.wait()
    elapsed = time.perf_counter() - started
    with lock:  # cut the requests still waiting for an answer short
        for conn in open_conns:
            if conn.sock is not None:
                with contextlib.suppress(OSError):
                    conn.sock.shutdown(socket.SHUT_RDWR)
    for thread in threads:
        thread.join(60)
    requests = sum(counts["by_status"].values())
    out.put({"address": ABUSER, "connections": connections, "requests": requests,
             "requests_per_s": round(requests / elapsed, 1), **counts,
             "games_accepted": counts["by_status"]["201"]})


class Abuser:
    """:func:`abuse` in a child process, from :meth:`start` to :meth:`stop`."""

    def __init__(self, port: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._stop = ctx.Event()
        self._ready = ctx.Event()
        self._out: Any = ctx.Queue()
        self._proc = ctx.Process(target=abuse,
                                 args=(port, self._stop, self._out, self._ready),
                                 name="dominolab-bench-abuser", daemon=True)

    def start(self, timeout: float = 60) -> None:
        """Start it and return once the server has answered its first request, so that it
        floods the whole run: a spawned process takes a second or more to import before its
        first request (more with the cores busy), which once ate a short run entirely.
        RuntimeError if it is not flooding within ``timeout`` s."""
        self._proc.start()
        deadline = time.monotonic() + timeout
        while not self._ready.wait(0.1):
            if not self._proc.is_alive() or time.monotonic() > deadline:
                self._proc.kill()
                self._proc.join(5)
                raise RuntimeError(f"the abusive client did not get an answer within "
                                   f"{timeout:g} s (exit code {self._proc.exitcode})")

    def stop(self, timeout: float = 60) -> dict[str, Any]:
        """Stop it and return its counts (RuntimeError if it does not report in time)."""
        self._stop.set()
        try:
            result: dict[str, Any] = self._out.get(timeout=timeout)
        except Exception as exc:
            raise RuntimeError(f"the abusive client did not report within {timeout:g} s "
                               f"(exit code {self._proc.exitcode})") from exc
        finally:
            self._proc.join(timeout)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join(5)
        return result


@dataclass
class GameRun:
    """The clients' bookkeeping of one friend game."""

    id: str
    tokens: tuple[str, str]
    #: the game's number in its run: its players' addresses
    index: int
    #: version a move was chosen at -> when it was sent
    sent: dict[int, float] = field(default_factory=dict)
    #: version a move was chosen at -> the seat that sent it
    senders: dict[int, int] = field(default_factory=dict)
    received: set[int] = field(default_factory=set)
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    last_version: int = 0
    over: bool = False


class FriendSeat:
    """One seat of a friend game, as :func:`_scripted_seat` reports to it: times the
    opponent's update of each move this seat sent."""

    def __init__(self, run: GameRun, seat: int) -> None:
        self.run = run
        self.seat = seat
        self.token = run.tokens[seat]
        self.address = player_address(run.index, seat)

    def may_move(self) -> bool:
        return True

    def sent(self, version: int, when: float) -> None:
        self.run.sent[version] = when
        self.run.senders[version] = self.seat

    def error(self, message: Any) -> None:
        self.run.errors.append(f"seat {self.seat}: {message}")

    def update(self, state: dict[str, Any], now: float) -> None:
        run = self.run
        # the update of every move the opponent sent before this version: usually the one
        # at version - 1, but a server catching up with another's moves may bring two at
        # once (the opponent ended a hand and opened the next, or drew and played)
        for made in range(max(0, state["version"] - 30), state["version"]):
            if (made in run.sent and made not in run.received
                    and run.senders[made] != self.seat):
                run.received.add(made)
                run.latencies.append(now - run.sent[made])
        if state["match_result"] is not None:
            run.over = True


@dataclass
class ComputerRun:
    """The person's client's bookkeeping of one game against the easy computer, as
    :func:`_scripted_seat` reports to it: times the computer's reply to each move."""

    id: str
    token: str
    #: the person's own loopback address
    address: str
    #: the person's move awaiting the computer's reply: (the version it was chosen at,
    #: when it was sent)
    pending: tuple[int, float] | None = None
    moves: int = 0
    #: seconds from a move sent to the state with the computer's reply
    latencies: list[float] = field(default_factory=list)
    #: moves after which the person was to move again at once (the computer had nothing to
    #: do: the move ended a hand and the person opens the next)
    no_reply: int = 0
    errors: list[str] = field(default_factory=list)
    last_version: int = 0
    over: bool = False

    def may_move(self) -> bool:
        return self.pending is None  # one move at a time, each timed to its reply

    def sent(self, version: int, when: float) -> None:
        self.pending = (version, when)
        self.moves += 1

    def error(self, message: Any) -> None:
        self.errors.append(f"computer game, the person: {message}")
        self.pending = None  # a refused move is answered by this error

    def update(self, state: dict[str, Any], now: float) -> None:
        self.last_version = max(self.last_version, state["version"])
        if state["match_result"] is not None:
            self.over = True
        if self.pending is not None:
            version, sent = self.pending
            if state["version"] > version and (state["to_move"] in (None, state["seat"])
                                               or self.over):
                if state["version"] > version + 1:  # the computer moved
                    self.latencies.append(now - sent)
                else:
                    self.no_reply += 1
                self.pending = None


@dataclass
class Clients:
    """What the run waits on: every client holding its first state (``all_ready``), and
    any news from a client (``changed``: a state or error received, a client ended)."""

    total: int
    ready: int = 0
    all_ready: asyncio.Event = field(default_factory=asyncio.Event)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    def arrived(self) -> None:
        self.ready += 1
        if self.ready >= self.total:
            self.all_ready.set()

    async def until(self, done: Callable[[], bool], seconds: float) -> None:
        """Wait until ``done()``, looking again at each piece of news; at most ``seconds``."""

        async def watch() -> None:
            while not done():
                self.changed.clear()
                await self.changed.wait()

        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(watch(), seconds)


async def _scripted_seat(seat: FriendSeat | ComputerRun, ws_url: str, think: float,
                         rng: random.Random, clients: Clients, go: asyncio.Event,
                         stop: asyncio.Event) -> None:
    """One scripted seat over a WebSocket of its own, from its own address: reads every
    update and tells ``seat``; on its turn (when ``seat`` allows), thinks, then sends a
    random legal move."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    async with connect(ws_url, max_size=2**22, open_timeout=60,
                       local_addr=(seat.address, 0)) as ws:
        await ws.send(json.dumps({"type": "hello", "token": seat.token, "layout": "wide"}))
        latest: list[dict[str, Any]] = []
        acted = [-1]

        async def move_later(state: dict[str, Any]) -> None:
            await asyncio.sleep(think * (0.5 + rng.random()))
            if stop.is_set():
                return
            version = state["version"]
            seat.sent(version, time.perf_counter())
            await ws.send(json.dumps({"type": "move", "version": version,
                                      "move": rng.choice(state["legal"])["move"]}))

        def maybe_move() -> None:
            state = latest[-1]
            if (go.is_set() and seat.may_move() and state["to_move"] == state["seat"]
                    and state["version"] > acted[0] and state["legal"]):
                acted[0] = state["version"]
                asyncio.get_running_loop().create_task(move_later(state))

        async def on_go() -> None:
            await go.wait()
            maybe_move()

        starter = asyncio.get_running_loop().create_task(on_go())
        try:
            async for text in ws:
                now = time.perf_counter()
                message = json.loads(text)  # our own server's message, not outside input
                clients.changed.set()
                if message.get("type") != "state":
                    seat.error(message)
                    continue
                state = message["state"]
                if not latest:
                    clients.arrived()
                latest[:] = [state]
                seat.update(state, now)
                maybe_move()
        except ConnectionClosed as exc:
            if exc.rcvd is None or exc.rcvd.code != 1000:
                raise
        finally:
            starter.cancel()


def _latency_figures(seconds: list[float]) -> dict[str, float | None]:
    """p50, p99 and max of ``seconds``, in milliseconds (None without any)."""
    ms = sorted(x * 1000 for x in seconds)
    return {"p50_ms": round(percentile(ms, 50), 2) if ms else None,
            "p99_ms": round(percentile(ms, 99), 2) if ms else None,
            "max_ms": round(ms[-1], 2) if ms else None}


async def _run(bases: Sequence[str], games: int, seconds: float, think: float, game: str,
               seed: int, abuse: bool = False, computer_games: int = 0,
               level: str = "easy", cpu: Callable[[], CpuSample] | None = None,
               beside: StudyBeside | None = None, ended: threading.Event | None = None
               ) -> dict[str, Any]:
    ports = [int(base.rsplit(":", 1)[1]) for base in bases]
    abuser = Abuser(ports[0]) if abuse else None
    if abuser is not None:
        # flooding for the whole run, the creation of the normal games included
        await asyncio.to_thread(abuser.start)
    try:
        result = await _play(bases, ports, games, seconds, think, game, seed, computer_games,
                             level, cpu, beside, ended)
    finally:
        abused = abuser.stop() if abuser is not None else None
    if abused is not None:
        result["abuse"] = abused
    counted = result["metrics"]
    # (the abuser's games against the computer make moves of their own)
    if abused is None and counted is not None and counted["moves"] != counted["stored_moves"]:
        result["errors"] += 1
        result["error_examples"].append(
            f"the servers' /metrics counted {counted['moves']} moves stored; the games hold "
            f"{counted['stored_moves']}")
    return result


async def _window(seconds: float, ended: threading.Event | None) -> None:
    """``seconds``, or until ``ended`` is set if that comes first (looked at every 50 ms)."""
    if ended is None:
        await asyncio.sleep(seconds)
        return
    deadline = time.monotonic() + seconds
    while not ended.is_set() and (left := deadline - time.monotonic()) > 0:
        await asyncio.sleep(min(0.05, left))


def server_of(index: int, seat: int, servers: int) -> int:
    """Which of ``servers`` servers game ``index``'s ``seat`` plays on: the two seats of a
    game on different ones (given two or more)."""
    return (index + seat) % servers


async def _play(bases: Sequence[str], ports: Sequence[int], games: int, seconds: float,
                think: float, game: str, seed: int, computer_games: int = 0,
                level: str = "easy", cpu: Callable[[], CpuSample] | None = None,
                beside: StudyBeside | None = None, ended: threading.Event | None = None
                ) -> dict[str, Any]:
    """Create the games, connect their clients, play for ``seconds`` (or until ``ended`` is
    set, if sooner) and wait for the answers still due. ``cpu()``, sampled as the first
    move may go and once the last answer is in, gives the processor time per move: that of
    playing alone, not of creating the games or connecting their clients. ``beside``, a
    study, is started as the first move may go and stopped as the last may (its figures
    under ``study``)."""
    n = len(ports)
    runs: list[GameRun] = []
    for index in range(games):
        game_id, tokens = await asyncio.to_thread(
            create_friend_game, ports[server_of(index, 0, n)], game, index,
            ports[server_of(index, 1, n)])
        runs.append(GameRun(game_id, tokens, index))
    people: list[ComputerRun] = []
    for index in range(computer_games):
        address = computer_player_address(index, games)
        game_id, token = await asyncio.to_thread(create_computer_game,
                                                 ports[server_of(index, 0, n)], game,
                                                 address, level)
        people.append(ComputerRun(game_id, token, address))
    go = asyncio.Event()
    stop = asyncio.Event()
    clients = Clients(2 * games + computer_games)
    ws_bases = [base.replace("http://", "ws://") for base in bases]
    rng = random.Random(seed)
    seats: list[tuple[FriendSeat | ComputerRun, str]] = [
        (FriendSeat(run, seat), f"{ws_bases[server_of(run.index, seat, n)]}/ws/games/{run.id}")
        for run in runs for seat in (0, 1)]
    seats += [(person, f"{ws_bases[server_of(i, 0, n)]}/ws/games/{person.id}")
              for i, person in enumerate(people)]
    tasks = [asyncio.create_task(_scripted_seat(seat, url, think, random.Random(rng.random()),
                                                clients, go, stop))
             for seat, url in seats]
    for task in tasks:
        task.add_done_callback(lambda _: clients.changed.set())
    # every client connected and holding its first state before the first move
    await clients.until(clients.all_ready.is_set, 60)
    # what the servers count as play begins (every game made, every seat connected)
    at_start = await asyncio.to_thread(scrape, ports)
    cpu_before = None if cpu is None else cpu()
    if beside is not None:
        await asyncio.to_thread(beside.start)
    go.set()
    started = time.perf_counter()
    try:
        await _window(seconds, ended)
    finally:
        stop.set()  # no new moves; let the answers still due arrive, within a deadline
        studied = None if beside is None else await asyncio.to_thread(beside.stop)

    def settled() -> bool:
        answered = (all(run.errors or set(run.sent) <= run.received for run in runs)
                    and all(p.errors or p.pending is None for p in people))
        return answered or all(task.done() for task in tasks)

    await clients.until(settled, DRAIN_SECONDS)
    cpu_after = None if cpu is None else cpu()
    for task in tasks:
        task.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    results = [r for r in results if not isinstance(r, asyncio.CancelledError)]
    elapsed = time.perf_counter() - started
    errors = [f"client: {r!r}" for r in results if isinstance(r, BaseException)]
    lost = 0
    stored = 0  # the moves every game holds at its end, as the servers answer
    if clients.ready < clients.total:
        errors.append(f"only {clients.ready} of {clients.total} clients connected within 60 s")
    for run in runs:
        errors.extend(run.errors)
        lost += len(set(run.sent) - run.received)
        status, final = await asyncio.to_thread(call, ports[server_of(run.index, 0, n)],
                                                "GET", f"/api/games/{run.id}", None,
                                                run.tokens[0], player_address(run.index, 0))
        if status != 200:
            errors.append(f"game {run.id}: the final state answered {status} {final}")
        else:
            stored += final["version"]
            if final["version"] != len(run.sent):
                lost += abs(final["version"] - len(run.sent))
    moves = sum(len(run.sent) for run in runs)
    result: dict[str, Any] = {
        "games": games, "moves": moves, "seconds": round(elapsed, 2),
        "moves_per_s": round(moves / elapsed, 1),
        **_latency_figures([x for run in runs for x in run.latencies]),
        "errors": len(errors), "lost_moves": lost, "matches_finished": sum(r.over for r in runs),
        "error_examples": errors[:3],
        # every move a client made (a friend's or the person's against the computer)
        **cpu_per_move(cpu_before, cpu_after, moves + sum(p.moves for p in people)),
    }
    if studied is not None:
        result["study"] = studied
    if people:
        result["computer"] = figures = await _computer_figures(
            [ports[server_of(i, 0, n)] for i in range(len(people))], people, level)
        stored += figures.pop("stored_moves")
    # the servers' own counts (GET /metrics), beside what the clients saw: every stored
    # move counted once, over all servers
    at_end = await asyncio.to_thread(scrape, ports)
    result["metrics"] = None if at_start is None or at_end is None else {
        "stored_moves": stored,
        "moves": round(at_end["dominolab_moves_total"]),
        "computer_moves": round(at_end["dominolab_computer_moves_total"]),
        "live_games_at_start": round(at_start["dominolab_live_games"]),
        "seat_sockets_at_start": round(at_start['dominolab_open_sockets{kind="seat"}']),
    }
    return result


def reply_target(level: str, figures: Mapping[str, float | None]) -> tuple[str, bool | None]:
    """The target for the computer's replies at ``level`` (p50/p99/max in ms, as
    :func:`_latency_figures` gives them), in words, and whether it was met (None: nothing
    measured). Easy: p99 under 1 s; a searching level: median at most 1 s, worst 3 s."""
    if level == "easy":
        p99 = figures["p99_ms"]
        return (f"p99 < {COMPUTER_REPLY_TARGET_MS:g} ms",
                None if p99 is None else p99 < COMPUTER_REPLY_TARGET_MS)
    p50, worst = figures["p50_ms"], figures["max_ms"]
    return (f"median <= {SEARCH_REPLY_MEDIAN_MS:g} ms, max <= {SEARCH_REPLY_WORST_MS:g} ms",
            None if p50 is None or worst is None
            else p50 <= SEARCH_REPLY_MEDIAN_MS and worst <= SEARCH_REPLY_WORST_MS)


async def _computer_figures(ports: Sequence[int], people: list[ComputerRun],
                            level: str = "easy") -> dict[str, Any]:
    """The games against the computer (person i on the server at ``ports[i]``): its reply
    to a move, and errors."""
    errors: list[str] = []
    stored = 0
    for port, person in zip(ports, people, strict=True):
        errors.extend(person.errors)
        status, final = await asyncio.to_thread(call, port, "GET", f"/api/games/{person.id}",
                                                None, person.token, person.address)
        if status != 200:
            errors.append(f"computer game {person.id}: the final state answered {status} "
                          f"{final}")
        elif final["version"] < person.last_version:
            errors.append(f"computer game {person.id}: the final state is at version "
                          f"{final['version']}, the person saw {person.last_version}")
        else:
            stored += final["version"]
    figures = _latency_figures([x for p in people for x in p.latencies])
    target, met = reply_target(level, figures)
    return {
        "games": len(people), "opponent": level,
        "addresses": f"{people[0].address} .. {people[-1].address}",
        "moves": sum(p.moves for p in people),
        "computer_reply": {"count": sum(len(p.latencies) for p in people), **figures},
        "no_reply_needed": sum(p.no_reply for p in people),
        "unanswered": sum(p.pending is not None and not p.errors for p in people),
        "errors": len(errors), "error_examples": errors[:3],
        "matches_finished": sum(p.over for p in people),
        "target": target, "target_met": met,
        # the moves the games hold at the end (taken out by the caller)
        "stored_moves": stored,
    }


@contextlib.contextmanager
def scratch_schema(url: str) -> Iterator[str]:
    """A schema of its own in the PostgreSQL database at ``url``, dropped afterwards: the
    URL that puts a server there (``options=-c search_path=...``)."""
    import psycopg

    name = f"dominolab_bench_{secrets.token_hex(4)}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {name}".encode())
    parts = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    query["options"] = f"{query.get('options', '')} -c search_path={name}".strip()
    try:
        yield urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(
            query, quote_via=urllib.parse.quote)))
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {name} CASCADE".encode())


@contextlib.contextmanager
def bench_servers(tmp: Path, db: str | None, servers: int, source: Path | None = None,
                  extra: tuple[str, ...] = ()
                  ) -> Iterator[tuple[list[ServerProcess], str | None]]:
    """``servers`` servers on loopback on a fresh database: an SQLite file in ``tmp``
    (``db`` None; one server), or a scratch schema of the PostgreSQL database ``db``; each
    the ``dominolab`` in ``source`` if given, started with the flags ``extra``. Yields them
    and the URL they use (None for SQLite)."""
    with contextlib.ExitStack() as stack:
        url = None
        if db is None:
            database: Path | str = tmp / "bench.sqlite3"
        else:
            database = url = stack.enter_context(scratch_schema(db))
        procs = [stack.enter_context(ServerProcess(database, log=tmp / f"server{i}.log",
                                                   source=source, extra=extra))
                 for i in range(servers)]
        yield procs, url


def source_tree(path: Path) -> Path:
    """The directory holding the ``dominolab`` package of the checkout or source directory
    ``path`` (its ``src`` if it has one); ValueError naming ``path`` if there is none."""
    for where in (path / "src", path):
        if (where / "dominolab" / "__init__.py").is_file():
            return where.resolve()
    raise ValueError(f"{str(path)!r} holds no dominolab package (neither "
                     f"{str(path / 'src' / 'dominolab')!r} nor {str(path / 'dominolab')!r})")


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process descended from it that is alive now (from /proc; just
    ``pid`` where the children cannot be read)."""
    tree, todo = [], [pid]
    while todo:
        parent = todo.pop()
        tree.append(parent)
        try:
            tasks = list(Path(f"/proc/{parent}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError, ValueError):
                todo.extend(int(c) for c in (task / "children").read_text().split())
    return tree


def cpu_seconds(pids: Sequence[int], reaped: bool = False) -> float | None:
    """The processor time (user and system) the processes ``pids`` have used so far, from
    /proc (``reaped``: with that of their children that ended and were waited for); None if
    any of them cannot be read (not on this machine, or not Linux)."""
    total = 0
    try:
        for pid in pids:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(f) for f in fields[11:15 if reaped else 13])
    except (OSError, IndexError, ValueError):
        return None
    return total / os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class CpuSample:
    """The processor time, in seconds, used so far by the servers' own processes
    (``servers``), by their descendants (``workers``: the computer's pool; those that
    ended included) and by the database's backends (``database``); None where /proc
    cannot be read."""

    servers: float | None
    workers: float | None
    database: float | None


def cpu_sampler(server_pids: Sequence[int], db_pids: Sequence[int]
                ) -> Callable[[], CpuSample]:
    """What :func:`_play` calls as the measured window opens and closes: the processor
    time of the servers ``server_pids`` and their process trees, and of ``db_pids``."""

    def sample() -> CpuSample:
        own = cpu_seconds(server_pids)
        trees = cpu_seconds([p for pid in server_pids for p in process_tree(pid)], reaped=True)
        return CpuSample(own, None if own is None or trees is None else round(trees - own, 6),
                         cpu_seconds(db_pids))

    return sample


def cpu_per_move(before: CpuSample | None, after: CpuSample | None, moves: int
                 ) -> dict[str, float | None]:
    """Milliseconds of processor time per move between two samples: the servers' own
    (``server_cpu_ms_per_move``, the figure a move costs the server), their workers' and
    the database's (None where a sample is missing)."""

    def per_move(a: float | None, b: float | None) -> float | None:
        return None if a is None or b is None else round((a - b) / max(1, moves) * 1000, 3)

    if before is None or after is None:
        return {"server_cpu_ms_per_move": None, "workers_cpu_ms_per_move": None,
                "database_cpu_ms_per_move": None}
    return {"server_cpu_ms_per_move": per_move(after.servers, before.servers),
            "workers_cpu_ms_per_move": per_move(after.workers, before.workers),
            "database_cpu_ms_per_move": per_move(after.database, before.database)}


def database_pids(url: str) -> list[int]:
    """The PostgreSQL backends serving the bench's servers (their connections live as long
    as the servers)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = "
                            "current_database() AND application_name LIKE 'dominolab%'"
                            ).fetchall()
    return [int(pid) for (pid,) in rows]


def run_serve_bench(games: Sequence[int], seconds: float, think: float, game: str,
                    abuse: bool = False, computer_games: int = 10, level: str = "easy",
                    on_start: Callable[[], None] | None = None,
                    on_run: Callable[[dict[str, Any]], None] | None = None,
                    servers: int = 1, db: str | None = None,
                    on_setup: Callable[[str, int], None] | None = None,
                    sources: Sequence[Path | None] = (None,),
                    proxy: str | None = None, backups: bool = False,
                    study: int | None = None, study_player: str = STUDY_PLAYER
                    ) -> list[dict[str, Any]]:
    """Play one run for each number of friend games in ``games`` (``seconds`` each; the run
    with N games uses the seed N), with ``computer_games`` more games against the computer
    at ``level``, each run against servers started for it on loopback on a fresh database.
    With ``db``, a PostgreSQL URL: first on ``servers`` servers on that database, then the
    same runs against one server on SQLite. Each run is played once for each of
    ``sources`` in turn (None: this ``dominolab``; a directory: the ``dominolab`` in it, as
    :func:`source_tree` finds it), so that versions are compared side by side under the same
    load. With ``proxy="nginx"``, each of those is played twice, on fresh servers each time:
    directly, then through nginx running the shipped site file in front of the servers
    (:mod:`dominolab.web.edge.nginx`; every client then talks to nginx, which spreads
    their connections over the servers), the servers believing its X-Forwarded-For both
    times. ``on_start()`` is called once the first servers are up, ``on_setup(backend,
    servers)`` as each backend's first servers are up, ``on_run(result)`` as each run ends. Returns
    every run's figures, each saying its ``backend``, ``servers``, ``source`` (None for
    this one), ``proxy`` (None: direct) and ``backing_up``. With ``backups``, each run is
    played twice more on fresh servers, without and then with a :class:`BackupLoop`
    backing their database up all along (its figures under ``backups``). With ``study``, a
    number of matches, each run is played twice more on fresh servers (``studying``: false,
    then true): the second time with a study of that many ``study_player`` matches (the
    run's seed) started on the first server as the first move may go, its figures under
    ``study`` (:class:`~dominolab.lab.bench.study.StudyBeside`; :func:`study_pairs` sets
    them side by side). :class:`NginxError` if nginx is wanted and missing or does not
    start."""
    if db is None and servers != 1:
        raise ValueError("several servers share a PostgreSQL database: give --db "
                         "postgresql://...; an SQLite file serves one")
    if proxy not in (None, "nginx"):
        raise ValueError(f"the one proxy the bench runs is nginx, not {proxy!r}")
    trees = [None if s is None else source_tree(s) for s in sources]
    vias = [None] if proxy is None else [None, proxy]
    # the proxy's X-Forwarded-For believed, in the direct runs too, so both run alike
    extra = () if proxy is None else ("--forwarded-allow-ips", SERVER)
    setups = [("sqlite", 1, None)] if db is None else \
        [("postgresql", servers, db), ("sqlite", 1, None)]
    results: list[dict[str, Any]] = []
    started = False
    for backend, count, url in setups:
        announced = False
        for n in games:
            arms = [(tree, via, backing, studying) for tree in trees for via in vias
                    for backing in ((False, True) if backups else (False,))
                    for studying in ((False, True) if study else (False,))]
            for tree, via, backing, studying in arms:
                with tempfile.TemporaryDirectory(prefix="dominolab-bench-") as tmp, \
                        bench_servers(Path(tmp), url, count, tree, extra) as (procs, scratch), \
                        contextlib.ExitStack() as stack:
                    bases = [proc.base for proc in procs]
                    if via is not None:
                        bases = [stack.enter_context(
                            NginxProcess([proc.port for proc in procs])).base]
                    if not started and on_start is not None:
                        on_start()
                    if not announced and on_setup is not None:
                        on_setup(backend, count)
                    started = announced = True
                    sample = cpu_sampler(
                        [proc.proc.pid for proc in procs if proc.proc is not None],
                        database_pids(scratch) if scratch is not None else [])
                    loop = BackupLoop(procs[0].db, Path(tmp)) if backing else None
                    beside = StudyBeside(procs[0].base, study_body(
                        game, study or 0, study_player, seed=n)) if studying else None
                    if loop is not None:
                        loop.start()
                    try:
                        # a loop of its own, whatever the caller's
                        with ThreadPoolExecutor(1) as pool:
                            result = pool.submit(
                                asyncio.run,
                                _run(bases, n, seconds, think, game,
                                     seed=n, abuse=abuse, computer_games=computer_games,
                                     level=level, cpu=sample, beside=beside)).result()
                    finally:
                        made = loop.stop() if loop is not None else None
                    if made is not None:
                        result["backups"] = made
                if scratch is None:
                    result["database_cpu_ms_per_move"] = 0.0  # SQLite works in the server
                # where the clients went, and where the servers were
                result = {"backend": backend, "servers": count,
                          "source": None if tree is None else str(tree), "proxy": via,
                          "backing_up": backing, "studying": studying,
                          "clients_to": bases, "servers_at": [p.base for p in procs],
                          **result}
                results.append(result)
                if on_run is not None:
                    on_run(result)
    return results


class BackupLoop:
    """``nice dominolab backup`` of a server's database over and over, one after another,
    each a process of its own as an operator's would be, from :meth:`start` until
    :meth:`stop`: what a run of ``bench serve --backups`` plays beside. Each backup
    replaces the last, in ``folder``."""

    def __init__(self, db: Path | str, folder: Path) -> None:
        out = folder / ("backup.dump" if isinstance(db, str) else "backup.sqlite3")
        self.command = [sys.executable, "-m", "dominolab", "backup", "--db", str(db),
                        str(out), "--force"]
        self.seconds: list[float] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="backups", daemon=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            began = time.perf_counter()
            # at a lower priority, as docs/web.md advises (nice), so the server comes first
            try:
                done = subprocess.run(self.command, capture_output=True, text=True,
                                      timeout=600, check=False,
                                      preexec_fn=lambda: os.nice(10))
            except (OSError, subprocess.SubprocessError) as exc:
                # a backup that cannot start or hangs is a failure the run reports, not a
                # thread ended in silence
                self.failures.append(f"{self.command[0]}: {exc!r}"[-200:])
                self._stop.wait(1.0)
                continue
            if done.returncode == 0:
                self.seconds.append(time.perf_counter() - began)
            else:
                self.failures.append(" ".join(done.stderr.split())[-200:])

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> dict[str, Any]:
        """Stop after the backup under way; how many were made, how long each took, and
        the failures (with examples)."""
        self._stop.set()
        self._thread.join(660)
        ms = sorted(x * 1000 for x in self.seconds)
        return {"made": len(ms), "failed": len(self.failures),
                "p50_ms": round(percentile(ms, 50), 1) if ms else None,
                "max_ms": round(ms[-1], 1) if ms else None,
                "failure_examples": self.failures[:3]}


def play_games(bases: Sequence[str], games: int, seconds: float, think: float,
               game: str = "luzak", seed: int = 1,
               ended: threading.Event | None = None) -> dict[str, Any]:
    """Play ``games`` friend games between scripted clients for ``seconds`` (or until
    ``ended`` is set, if sooner: a caller that waits for something to happen during the
    play ends it then) against the running servers ``bases`` (their base URLs), as one run
    of ``bench serve`` does, in an event loop of its own; the run's figures (moves,
    latencies, errors, lost moves)."""
    with ThreadPoolExecutor(1) as pool:
        figures: dict[str, Any] = pool.submit(
            asyncio.run, _run(bases, games, seconds, think, game, seed, ended=ended)).result()
    return figures


#: issue 42's target: a friend game's p99 move-to-update while a study runs beside it
STUDY_P99_TARGET_MS: Final = 250.0


def study_pairs(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs of ``bench serve --study`` side by side: for each run with a study, the one
    just before it without (the same games, seed, backend, source and proxy), their p99
    move-to-update and whether the one with the study met :data:`STUDY_P99_TARGET_MS`."""
    pairs = []
    for before, run in itertools.pairwise(results):
        if run.get("studying") and not before.get("studying"):
            p99 = run["p99_ms"]
            pairs.append({"games": run["games"], "backend": run["backend"],
                          "source": run["source"], "proxy": run["proxy"],
                          "p99_without_ms": before["p99_ms"], "p99_with_ms": p99,
                          "ratio": None if not before["p99_ms"] or p99 is None
                          else round(p99 / before["p99_ms"], 2),
                          "target_ms": STUDY_P99_TARGET_MS,
                          "target_met": None if p99 is None else p99 < STUDY_P99_TARGET_MS,
                          "study_played": run["study"]["played"],
                          "study_ran_whole_window": run["study"]["ended_after_s"] is None})
    return pairs


def failed(results: Sequence[dict[str, Any]]) -> bool:
    """Whether any run had an error or a lost move, or a computer game an error or a move
    left unanswered."""
    return any(r["errors"] or r["lost_moves"] or r.get("backups", {}).get("failed")
               or r.get("study", {}).get("state_at_end") == "failed"
               or ("computer" in r and (r["computer"]["errors"] or r["computer"]["unanswered"]))
               for r in results)


__all__ = ["ABUSER", "ABUSE_CONNECTIONS", "COMPUTER_REPLY_TARGET_MS", "DRAIN_SECONDS",
           "SEARCH_REPLY_MEDIAN_MS", "SEARCH_REPLY_WORST_MS", "STUDY_P99_TARGET_MS",
           "HARD_OPENS", "SERVER", "Abuser", "BackupLoop", "ComputerRun", "CpuSample",
           "FriendSeat", "GameRun",
           "abuse", "call", "computer_player_address", "cpu_per_move", "cpu_sampler",
           "cpu_seconds", "create_computer_game", "create_friend_game", "failed",
           "play_games", "player_address", "process_tree", "reply_target", "run_serve_bench",
           "SCRAPED", "scrape", "scratch_schema", "server_of", "source_tree", "study_pairs"]
