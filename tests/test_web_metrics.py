"""``/healthz`` and ``/metrics`` (docs/web.md, "Health and metrics"): what each metric
counts, who may read them, the health check failing with the database, and the counts of a
bench run against a real server."""

from __future__ import annotations

import http.client
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from dominolab.cli.main import main
from dominolab.lab.bench.serve import run_serve_bench
from dominolab.players import Budget
from dominolab.web.edge.app import create_app
from dominolab.web.edge.process import ServerProcess
from dominolab.web.limits import Limits
from dominolab.web.metrics import allowed, networks
from loops import until
from pgserver import PostgresServer
from web_support import auth, friend_game, seeded_app, service_of

pytestmark = pytest.mark.timeout(240)

LOCAL = ("127.0.0.1", 50000)


def make_client(path: str | Path, client: tuple[str, int] = LOCAL, **kwargs: Any) -> TestClient:
    kwargs.setdefault("workers", 0)
    app = seeded_app(path, seed=5, hint_budget=Budget(worlds=20), **kwargs)
    return TestClient(app, client=client, raise_server_exceptions=False)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path / "games.sqlite3") as c:
        yield c


def scrape(client: TestClient) -> dict[str, float]:
    """Every sample of ``/metrics``, by its name and labels: ``name{a="x",b="y"}``."""
    answer = client.get("/metrics")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    found = {}
    for family in text_string_to_metric_families(answer.text):
        for sample in family.samples:
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return found


def play(client: TestClient, gid: str, tokens: tuple[str, str], moves: int) -> int:
    """``moves`` moves of a friend game, each by the seat to move; returns the version."""
    state = client.get(f"/api/games/{gid}", headers=auth(tokens[0])).json()
    for _ in range(moves):
        token = tokens[state["to_move"]]
        state = client.get(f"/api/games/{gid}", headers=auth(token)).json()
        answer = client.post(f"/api/games/{gid}/moves", headers=auth(token),
                             json={"move": state["legal"][0]["move"],
                                   "version": state["version"]})
        assert answer.status_code == 200, answer.text
        state = answer.json()
    version: int = state["version"]
    return version


# -- what each metric means ----------------------------------------------------------------------

def test_moves_and_database_writes_are_counted(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    before = scrape(client)
    assert before["dominolab_moves_total"] == 0
    assert play(client, gid, (t0, t1), 5) == 5
    after = scrape(client)
    assert after["dominolab_moves_total"] == 5
    assert after["dominolab_computer_moves_total"] == 0
    # each stored move is one write, timed
    assert after['dominolab_database_write_seconds_count{op="add_moves"}'] == 5
    assert after['dominolab_database_write_seconds_sum{op="add_moves"}'] > 0
    assert after['dominolab_database_write_seconds_count{op="create_game"}'] == 1
    assert after['dominolab_errors_total{kind="database"}'] == 0
    # a refused move is no move
    r = client.post(f"/api/games/{gid}/moves", headers=auth(t0),
                    json={"move": "draw", "version": 0})
    assert r.status_code == 409
    assert scrape(client)["dominolab_moves_total"] == 5


def test_the_computers_moves_and_its_queue_are_counted(client: TestClient) -> None:
    made = client.post("/api/games", json={"game": "luzak", "opponent": "easy",
                                           "first": "opponent"}).json()
    gid, token = made["id"], made["token"]

    def state() -> dict[str, Any]:
        answer: dict[str, Any] = client.get(f"/api/games/{gid}", headers=auth(token)).json()
        return answer

    until(lambda: state()["to_move"] == 0)
    version = state()["version"]
    assert version >= 1  # the computer opened
    metrics = scrape(client)
    assert metrics["dominolab_computer_moves_total"] == version
    assert metrics["dominolab_moves_total"] == version
    # every computer move waited in the pool's queue (however briefly), and none is left
    assert metrics['dominolab_compute_wait_seconds_count{job="choose_move"}'] >= 1
    assert metrics['dominolab_compute_jobs{state="waiting"}'] == 0
    assert metrics["dominolab_compute_workers"] == 0  # threads, in this test
    assert metrics["dominolab_live_games"] == 1


def test_429s_are_counted_by_the_limit_that_refused(tmp_path: Path) -> None:
    limits = Limits(games_burst=1, games_per_minute=1, seat_sockets_per_client=1)
    with make_client(tmp_path / "games.sqlite3", limits=limits) as client:
        made = client.post("/api/games", json={"opponent": "easy"}).json()
        refused = client.post("/api/games", json={"opponent": "easy"})
        assert refused.status_code == 429
        hello = json.dumps({"type": "hello", "token": made["token"]})
        with client.websocket_connect(f"/ws/games/{made['id']}") as ws:
            ws.send_text(hello)
            assert ws.receive_json()["type"] == "state"
            with client.websocket_connect(f"/ws/games/{made['id']}") as second:
                second.send_text(hello)
                assert second.receive_json()["status"] == 4429
        metrics = scrape(client)
    assert metrics['dominolab_refused_total{kind="games"}'] == 1
    assert metrics['dominolab_refused_total{kind="seat_sockets"}'] == 1
    # a refusal that is not a 429 is not counted as one
    assert sum(v for k, v in metrics.items() if k.startswith("dominolab_refused_total")) == 2


def test_a_failed_write_and_a_server_error_are_counted(client: TestClient) -> None:
    gid, t0, _t1 = friend_game(client)
    service = service_of(client)
    store = service.store.sync
    real = store.add_moves

    def failing(*args: Any) -> None:
        raise sqlite3.OperationalError("disk I/O error (injected by the test)")

    store.add_moves = failing  # type: ignore[method-assign,assignment]
    state = client.get(f"/api/games/{gid}", headers=auth(t0)).json()
    r = client.post(f"/api/games/{gid}/moves", headers=auth(t0),
                    json={"move": state["legal"][0]["move"], "version": 0})
    assert r.status_code == 503
    store.add_moves = real  # type: ignore[method-assign]
    metrics = scrape(client)
    assert metrics['dominolab_errors_total{kind="database"}'] == 1
    assert metrics["dominolab_moves_total"] == 0
    assert metrics['dominolab_database_write_seconds_count{op="add_moves"}'] == 1

    async def broken(game_id: str) -> Any:
        raise RuntimeError("a bug (injected by the test)")

    service.get = broken  # type: ignore[method-assign]
    assert client.get(f"/api/games/{gid}", headers=auth(t0)).status_code == 500
    assert scrape(client)['dominolab_errors_total{kind="server"}'] == 1


def test_open_sockets_by_kind(client: TestClient) -> None:
    gid, t0, t1 = friend_game(client)
    with client.websocket_connect(f"/ws/games/{gid}") as s0, \
            client.websocket_connect(f"/ws/games/{gid}") as s1, \
            client.websocket_connect(f"/ws/games/{gid}") as watcher, \
            client.websocket_connect("/ws/lobby") as lobby:
        for ws, hello in ((s0, {"token": t0}), (s1, {"token": t1}),
                          (watcher, {"watch": True}), (lobby, {"player": None})):
            ws.send_text(json.dumps({"type": "hello", **hello}))
            ws.receive_json()
        metrics = scrape(client)
        assert metrics['dominolab_open_sockets{kind="seat"}'] == 2
        assert metrics['dominolab_open_sockets{kind="spectator"}'] == 1
        assert metrics['dominolab_open_sockets{kind="lobby"}'] == 1
        # plain HTTP is the edge's count, which only `dominolab serve` has
        assert 'dominolab_open_sockets{kind="http"}' not in metrics
    until(lambda: scrape(client)['dominolab_open_sockets{kind="seat"}'] == 0)
    metrics = scrape(client)
    assert metrics['dominolab_open_sockets{kind="spectator"}'] == 0
    assert metrics['dominolab_open_sockets{kind="lobby"}'] == 0


def test_each_app_counts_its_own(tmp_path: Path) -> None:
    """Two apps in one process share no metric (a registry of each app's own)."""
    with make_client(tmp_path / "a.sqlite3") as a, make_client(tmp_path / "b.sqlite3") as b:
        gid, t0, t1 = friend_game(a)
        play(a, gid, (t0, t1), 2)
        assert scrape(a)["dominolab_moves_total"] == 2
        assert scrape(b)["dominolab_moves_total"] == 0


# -- who may read them --------------------------------------------------------------------------

def test_metrics_only_to_the_allowed_addresses(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with make_client(db, client=("10.1.2.3", 4000)) as stranger:
        r = stranger.get("/metrics")
        assert r.status_code == 403 and "--metrics-allow" in r.json()["error"]
        assert "dominolab_" not in r.text
        # the health check is everyone's
        assert stranger.get("/healthz").status_code == 200
    with make_client(db, client=("10.1.2.3", 4000),
                     metrics_allow=("10.0.0.0/8", "192.0.2.7")) as allowed_client:
        r = allowed_client.get("/metrics")
        assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    with make_client(db, client=("::1", 4000)) as local6:
        assert local6.get("/metrics").status_code == 200


def test_allow_lists() -> None:
    allow = networks("127.0.0.1, ::1,10.0.0.0/8")
    assert allowed("127.0.0.1", allow) and allowed("::1", allow)
    assert allowed("10.200.3.4", allow) and allowed("::ffff:10.0.0.1", allow)
    assert not allowed("127.0.0.2", allow) and not allowed("192.0.2.1", allow)
    assert not allowed("testclient", allow) and not allowed("unknown", allow)
    with pytest.raises(ValueError, match=r"'example\.org' is not an address"):
        networks("127.0.0.1,example.org")
    with pytest.raises(ValueError, match="at least one"):
        networks(" , ")
    with pytest.raises(ValueError, match="'nowhere'"):
        create_app(":memory:", metrics_allow=("nowhere",))


def test_serve_refuses_a_bad_metrics_allow(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    from dominolab.web.edge.process import free_port

    code = main(["serve", "--port", str(free_port()), "--db", str(tmp_path / "g.sqlite3"),
                 "--metrics-allow", "10.0.0.0/8,everyone"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--metrics-allow: 'everyone' is not an address or a network" in err
    assert "Traceback" not in err


def get_from(base_port: int, path: str, source: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", base_port, timeout=30,
                                      source_address=(source, 0))
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def test_a_real_server_refuses_metrics_to_another_address(tmp_path: Path) -> None:
    """``dominolab serve``: 403 from 127.0.0.2 (not this machine's own address by default),
    200 from 127.0.0.1, with the edge's plain connections counted; ``--metrics-allow``
    lets 127.0.0.2 in."""
    with ServerProcess(tmp_path / "games.sqlite3") as server:
        status, body = get_from(server.port, "/metrics", "127.0.0.2")
        assert status == 403 and b"dominolab_" not in body
        assert get_from(server.port, "/healthz", "127.0.0.2")[0] == 200
        status, body = get_from(server.port, "/metrics", "127.0.0.1")
        assert status == 200
        assert b'dominolab_open_sockets{kind="http"} ' in body
        assert b"dominolab_connections_refused_total 0.0" in body
    with ServerProcess(tmp_path / "games.sqlite3",
                       extra=("--metrics-allow", "127.0.0.2")) as server:
        assert get_from(server.port, "/metrics", "127.0.0.2")[0] == 200
        assert get_from(server.port, "/metrics", "127.0.0.1")[0] == 403


# -- the health check ---------------------------------------------------------------------------

def test_healthz_answers_while_the_database_does(client: TestClient) -> None:
    r = client.get("/healthz")
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    body = r.json()
    assert body["ok"] is True and body["database_ms"] >= 0


def test_healthz_503_when_the_database_is_locked(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    # the lock's wait fails first (busy_timeout), or the health check's deadline does
    cases: list[tuple[dict[str, Any], str]] = [
        ({"busy_timeout": 0.1}, "locked"),
        ({"health_timeout": 0.3}, "did not answer within 0.3 s")]
    for kwargs, why in cases:
        with make_client(path, LOCAL, **kwargs) as client:
            assert client.get("/healthz").status_code == 200
            other = sqlite3.connect(path, isolation_level=None)
            other.execute("BEGIN EXCLUSIVE")
            try:
                r = client.get("/healthz")
                assert r.status_code == 503, r.text
                assert r.json()["ok"] is False and why in r.json()["error"]
                assert r.headers["cache-control"] == "no-store"
            finally:
                other.execute("ROLLBACK")
                other.close()
            until(lambda: client.get("/healthz").status_code == 200)


def test_healthz_503_when_the_database_is_gone(tmp_path: Path) -> None:
    path = tmp_path / "games.sqlite3"
    with make_client(path) as client:
        assert client.get("/healthz").status_code == 200
        path.unlink()
        r = client.get("/healthz")
        assert r.status_code == 503
        assert f"the database file {path} is gone" in r.json()["error"]


# -- a bench run, scraped -----------------------------------------------------------------------

def test_a_bench_run_is_counted_by_the_servers_metrics() -> None:
    """``dominolab bench serve`` against a real server scrapes its ``/metrics`` as play
    begins and once it is over: every game in memory and every seat connected at the
    start, and at the end exactly the moves the games hold (the run fails otherwise)."""
    runs = run_serve_bench([3], 1.5, 0.05, "luzak", computer_games=2)
    [run] = runs
    assert run["errors"] == 0 and run["lost_moves"] == 0, run["error_examples"]
    counted = run["metrics"]
    assert counted is not None
    assert counted["live_games_at_start"] == 3 + 2
    assert counted["seat_sockets_at_start"] == 2 * 3 + 2
    assert counted["moves"] == counted["stored_moves"] > run["moves"] > 0
    # the moves the computer made are the difference between what the games hold and
    # what the clients sent
    assert counted["computer_moves"] == counted["stored_moves"] - run["moves"] \
        - run["computer"]["moves"]


def test_healthz_on_postgresql_and_when_its_database_is_gone(pg_url: str,
                                                             postgres: PostgresServer
                                                             ) -> None:
    """PostgreSQL's check is a trivial read; a database dropped under the server fails it."""
    with make_client(pg_url, LOCAL) as client:
        assert client.get("/healthz").json()["ok"] is True
        postgres.execute(f"DROP DATABASE {postgres.name_of(pg_url)} WITH (FORCE)")
        r = client.get("/healthz")
        assert r.status_code == 503 and r.json()["ok"] is False
        assert "the database failed" in r.json()["error"]
