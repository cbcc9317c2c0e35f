"""Moderation and privacy (docs/web.md, "Moderation and privacy"): ``dominolab admin``'s
actions and their audit rows, bad input refused in one line, a player forgotten with their
matches kept for the opponent, and running servers seeing a ban, a rename and a hidden name
within seconds, on SQLite and on two servers sharing PostgreSQL."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from dominolab.cli.main import main
from dominolab.web.edge.process import ServerProcess
from dominolab.web.storage.moderation import FORGOTTEN_NAME, HIDDEN_NAME
from dominolab.web.storage.rows import PlayerRow
from dominolab.web.storage.store import Store
from loops import until
from players_support import register
from rawsocket import call, lobby_hello
from test_web_ratings import rated_match
from web_support import play_out, running, seeded_app, service_of

pytestmark = pytest.mark.timeout(180)

#: how long a running server may take to see a moderator's action
SEEN_WITHIN = 8.0


def admin(db: Path | str, *args: str, by: str | None = "mod") -> tuple[int, str, str]:
    """``dominolab admin --db DB [--by BY] ARGS...``: its status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    argv = ["admin", "--db", str(db), *(["--by", by] if by is not None else []), *args]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(argv)
        except SystemExit as exc:  # argparse's own refusals
            status = int(exc.code or 0)
    return status, out.getvalue(), err.getvalue()


def refused(db: Path | str, *args: str) -> str:
    """The one line ``dominolab admin`` refuses ``args`` with (exit status 2)."""
    status, out, err = admin(db, *args)
    assert status == 2, (out, err)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if not line.startswith("usage:")]
    assert len(lines) == 1, err
    return lines[0]


def seen(done: Callable[[], bool]) -> float:
    """The seconds until ``done`` holds, within :data:`SEEN_WITHIN`."""
    return until(done, SEEN_WITHIN, "a moderator's action seen by the servers")


def seeded_store(path: Path) -> None:
    store = Store(path)
    try:
        for pid, name in (("alicjaid0001", "Alicja"), ("bolekid00001", "Bolek"),
                          ("lolekid00001", "Lolek")):
            assert store.create_player(PlayerRow(pid, name, f"hash-{pid}", 1.0),
                                       name.lower())
    finally:
        store.close()


# -- the actions, their audit, and bad input -------------------------------------------------

def test_each_action_is_done_in_one_transaction_with_its_audit_row(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    seeded_store(db)
    assert admin(db, "rename", "Alicja", "Ala Nowa", "--reason", "asked")[0] == 0
    assert admin(db, "ban", "alicjaid0001", "--reason", "abuse in chat")[0] == 0
    assert admin(db, "unban", "Ala Nowa")[0] == 0
    assert admin(db, "hide-name", "Bolek", "--reason", "offensive")[0] == 0
    status, out, _ = admin(db, "export", "Lolek")
    assert status == 0 and json.loads(out)["player"]["name"] == "Lolek"
    store = Store(db)
    try:
        assert store.player(id="alicjaid0001") == PlayerRow(
            "alicjaid0001", "Ala Nowa", "hash-alicjaid0001", 1.0, None)
        assert store.player(id="bolekid00001").name == HIDDEN_NAME  # type: ignore[union-attr]
        rows = store.audit_rows(10)
        # an export changes nobody: servers need not hear of it
        assert store.players_version() == 4
    finally:
        store.close()
    assert [(r.action, r.player, r.by, r.reason) for r in rows] == [
        ("rename", "alicjaid0001", "mod", "asked"),
        ("ban", "alicjaid0001", "mod", "abuse in chat"),
        ("unban", "alicjaid0001", "mod", ""),
        ("hide-name", "bolekid00001", "mod", "offensive"),
        ("export", "lolekid00001", "mod", "")]
    assert rows[0].detail == {"from": "Alicja", "to": "Ala Nowa"}
    assert rows[3].detail == {"from": "Bolek"}
    status, out, _ = admin(db, "audit", "--last", "2")
    assert status == 0 and out.splitlines()[0].split()[2:5] == ["mod", "hide-name",
                                                                  "bolekid00001"]
    status, out, _ = admin(db, "audit", "--json", by=None)
    assert status == 0 and len(out.splitlines()) == 5
    # --by defaults to the person running it
    assert admin(db, "ban", "Lolek", by=None)[0] == 0
    assert admin(db, "audit", "--json", "--last", "1")[1].count('"by": "mod"') == 0
    # the hidden name stays taken: nobody else may be called it either
    assert "taken" in refused(db, "rename", "Lolek", "B0lek")


def test_bad_input_is_refused_in_one_line_and_changes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    seeded_store(db)
    assert "no player" in refused(db, "ban", "Nobody")
    assert "taken" in refused(db, "rename", "Alicja", "Bolek")
    assert "computer" in refused(db, "rename", "Alicja", "c0mputer")
    assert "characters" in refused(db, "rename", "Alicja", "A")
    assert "not banned" in refused(db, "unban", "Alicja")
    assert "no database" in refused(tmp_path / "missing.sqlite3", "audit")
    assert not (tmp_path / "missing.sqlite3").exists()
    assert "not a usable" in refused("postgresql://x:y@[::1", "audit")
    assert "--last" in refused(db, "audit", "--last", "0")
    assert "--reason" in refused(db, "ban", "Alicja", "--reason", "x" * 501)
    assert "--by" in refused(db, "--by", " ", "ban", "Alicja")
    assert "folder" in refused(db, "export", "Alicja", "--out", str(tmp_path / "no" / "f"))
    (tmp_path / "in-the-way").mkdir()
    assert "is a folder" in refused(db, "export", "Alicja", "--out", str(tmp_path / "in-the-way"))
    (tmp_path / "not-a-db.sqlite3").write_text("hello")
    assert "not a usable" in refused(tmp_path / "not-a-db.sqlite3", "audit")
    assert admin(db, "ban", "Alicja")[0] == 0
    assert "banned already" in refused(db, "ban", "Alicja")
    assert admin(db, "hide-name", "Bolek")[0] == 0
    assert admin(db, "hide-name", "Lolek")[0] == 0
    assert "2 players are called" in refused(db, "ban", HIDDEN_NAME)
    assert admin(db, "forget", "Alicja")[0] == 0
    assert "forgotten" in refused(db, "rename", "alicjaid0001", "Ala")
    store = Store(db)
    try:
        assert [r.action for r in store.audit_rows(100)] == ["ban", "hide-name", "hide-name",
                                                             "forget"]
    finally:
        store.close()


# -- forget and export ---------------------------------------------------------------------

@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(seeded_app(tmp_path / "games.sqlite3", seed=17, workers=0)) as c:
        yield c


def test_forget_keeps_the_opponent_s_match_and_export_then_finds_nothing_personal(
        client: TestClient, tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    ala, ola = register(client, "Ala"), register(client, "Ola")
    gid, tokens = rated_match(service_of(client).store.sync, ala, ola, seed=5)
    play_out(client, gid, tokens, random.Random(5))
    out = tmp_path / "ala.json"
    assert admin(db, "export", "Ala", "--out", str(out))[0] == 0
    before = json.loads(out.read_text())
    assert before["player"]["name"] == "Ala"
    assert [g["id"] for g in before["games"]] == [gid] and before["games"][0]["moves"]
    assert [r["game"] for r in before["ratings"]] == ["luzak-line"]
    assert [c["game_id"] for c in before["rating_changes"]] == [gid]
    assert ala["key"] not in out.read_text()
    assert client.get("/api/me", headers={"X-Player-Key": ala["key"]}).status_code == 200

    status, said, _ = admin(db, "forget", "Ala", "--reason", "asked by email")
    assert status == 0 and ala["id"] in said
    status, text, err = admin(db, "export", ala["id"])
    assert status == 0, err
    after = json.loads(text)
    assert status == 0 and "Ala" not in text.replace(ola["name"], "")
    assert after["player"]["name"] is None and after["player"]["forgotten"] is not None
    assert after["ratings"] == [] and after["rating_changes"] == [] and after["seeks"] == []
    assert all(a["detail"] == {} for a in after["audit"])
    assert "no player" in refused(db, "export", "Ala")
    # the server forgets the key too, within seconds (it kept the player cached)
    seen(lambda: client.get("/api/me", headers={"X-Player-Key": ala["key"]}
                             ).status_code == 401)
    assert client.get(f"/api/players/{ala['id']}").status_code == 404
    # the opponent keeps the match, the seat shown as a deleted player, and it replays
    page = client.get(f"/api/players/{ola['id']}").json()
    assert [(m["id"], m["opponent"]) for m in page["matches"]] == [
        (gid, {"id": ala["id"], "name": FORGOTTEN_NAME})]
    assert page["ratings"]["luzak-line"] is not None
    replay = client.get(f"/api/games/{gid}/replay")
    assert replay.status_code == 200 and FORGOTTEN_NAME in replay.text
    assert "Ala" not in client.get("/api/leaderboard/luzak-line").text
    # the name is free again
    assert register(client, "Ala")["id"] != ala["id"]


# -- a running server sees it ----------------------------------------------------------------

def lobby_refuses(base: str, key: str) -> bool:
    """Whether the lobby refuses the player as banned (asked with a bad ``conn``, so that a
    player not banned yet is told 400 and no seek is made)."""
    return call(base, "POST", "/api/seeks", {"game": "luzak", "conn": "!"}, key=key)[0] == 403


def lobby_takes(base: str, key: str) -> bool:
    return call(base, "POST", "/api/seeks", {"game": "luzak"}, key=key)[0] == 201


def named(base: str, key: str, name: str) -> bool:
    return bool(call(base, "GET", "/api/me", key=key)[1]["name"] == name)


def check_a_ban_is_seen(servers: Sequence[ServerProcess], db: Path | str) -> None:
    """A player seen by every server (so cached) is banned: each server refuses them the
    lobby and rated matches within :data:`SEEN_WITHIN` seconds, their open seek is gone,
    casual games against the computer still work; unbanned, the lobby takes them again;
    renamed, every server shows the new name."""
    first = servers[0].base
    status, bad = call(first, "POST", "/api/players", {"name": "Troll"})
    assert status == 201
    ws, _welcome = lobby_hello(first, bad["key"])
    try:
        status, seek = call(first, "POST", "/api/seeks", {"game": "luzak"}, key=bad["key"])
        assert status == 201
        for server in servers:
            assert call(server.base, "GET", "/api/me", key=bad["key"])[0] == 200
            assert [s["id"] for s in call(server.base, "GET", "/api/seeks")[1]["seeks"]] == \
                [seek["id"]]
        assert admin(db, "ban", "Troll", "--reason", "spam")[0] == 0
        for server in servers:
            took = seen(functools.partial(lobby_refuses, server.base, bad["key"]))
            assert took < SEEN_WITHIN
            status, body = call(server.base, "POST", "/api/seeks", {"game": "luzak"},
                                key=bad["key"])
            assert status == 403 and "banned" in body["error"]
            status, body = call(server.base, "POST", "/api/quick", {}, key=bad["key"])
            assert status == 403 and "banned" in body["error"]
            status, body = call(server.base, "POST", "/api/games",
                                {"opponent": "easy", "rated": True}, key=bad["key"])
            assert status == 403 and "casual games" in body["error"]
            assert call(server.base, "POST", "/api/games", {"opponent": "easy"},
                        key=bad["key"])[0] == 201
            assert call(server.base, "GET", "/api/seeks")[1]["seeks"] == []
        assert admin(db, "unban", "Troll")[0] == 0
        for server in servers:
            seen(functools.partial(lobby_takes, server.base, bad["key"]))
        assert admin(db, "rename", "Troll", "Gentle Soul")[0] == 0
        for server in servers:
            seen(functools.partial(named, server.base, bad["key"], "Gentle Soul"))
        assert admin(db, "hide-name", "Gentle Soul")[0] == 0
        for server in servers:
            seen(functools.partial(named, server.base, bad["key"], HIDDEN_NAME))
            seeks = call(server.base, "GET", "/api/seeks")[1]["seeks"]
            assert seeks and {s["player"]["name"] for s in seeks} == {HIDDEN_NAME}
    finally:
        ws.close()
    for server in servers:
        assert "Traceback" not in server.log.read_text()


def test_a_running_server_on_sqlite_sees_a_ban_within_seconds(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    with ServerProcess(db) as server:
        check_a_ban_is_seen([server], db)


def test_two_servers_on_postgresql_see_a_ban_over_the_event_bus(pg_url: str,
                                                                tmp_path: Path) -> None:
    with running([ServerProcess(pg_url, log=tmp_path / f"server{i}.log")
                  for i in range(2)]) as servers:
        check_a_ban_is_seen(servers, pg_url)


def test_export_and_forget_mean_the_same_on_postgresql(pg_url: str) -> None:
    store = Store(pg_url)
    try:
        assert store.create_player(PlayerRow("alicjaid0001", "Alicja", "h-a", 1.0), "alicja")
    finally:
        store.close()
    assert admin(pg_url, "rename", "Alicja", "Ala")[0] == 0
    assert json.loads(admin(pg_url, "export", "Ala")[1])["player"]["name"] == "Ala"
    assert admin(pg_url, "forget", "Ala")[0] == 0
    text = admin(pg_url, "export", "alicjaid0001")[1]
    assert "Ala" not in text and "h-a" not in text
    assert "no player" in refused(pg_url, "ban", "Ala")
