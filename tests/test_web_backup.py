"""``dominolab backup`` and ``dominolab restore``: a copy taken while a server plays many
games holds every game finished before it began and only legal moves; a killed backup
leaves no OUT; restore refuses a damaged file, a newer schema and a database in use."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dominolab.cli.main import main
from dominolab.lab.bench.serve import play_games
from dominolab.web.edge.process import ServerProcess
from dominolab.web.storage.backup import (
    BackupError,
    backup,
    backup_target,
    check_backup,
    pg_tool,
    restore,
)
from dominolab.web.storage.schema import SCHEMA_VERSION
from dominolab.web.storage.store import Store
from web_support import replay_stored


def moves_by_game(path: Path) -> dict[str, tuple[int, list[str]]]:
    """Every game in the SQLite database ``path``: (finished, its moves in order), read
    without writing (a server may be running on it)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        db.execute("BEGIN")
        games = {str(gid): int(done) for gid, done in
                 db.execute("SELECT id, finished FROM games")}
        moves: dict[str, list[str]] = {gid: [] for gid in games}
        for gid, move in db.execute("SELECT game_id, move FROM moves ORDER BY game_id, ply"):
            moves[gid].append(move)
        db.execute("COMMIT")
    finally:
        db.close()
    return {gid: (done, moves[gid]) for gid, done in games.items()}


def test_backup_while_a_server_plays_keeps_every_finished_game(tmp_path: Path) -> None:
    live = tmp_path / "games.sqlite3"
    copy = tmp_path / "backup.sqlite3"
    figures: dict[str, Any] = {}
    ended = threading.Event()
    with ServerProcess(live) as server:
        # play until the backup is taken (at most 90 s): it begins after about 4 s (the two
        # finished matches) and takes one; the play then ends at once (it had a fixed 12 s,
        # most of them spent only waiting for the play to end)
        player = threading.Thread(target=lambda: figures.update(
            play_games([server.base], 30, 90, 0.03, ended=ended)))
        player.start()
        try:
            # some matches over and others still being played
            deadline = time.monotonic() + 90
            while True:
                before = moves_by_game(live) if live.exists() else {}
                finished = {g for g, (done, _) in before.items() if done}
                if len(finished) >= 2 and len(finished) < len(before):
                    break
                assert time.monotonic() < deadline, f"{len(finished)} of {len(before)} over"
                time.sleep(0.05)
            # one page a step, paused: the copy takes long enough for moves to be stored
            # meanwhile
            contents = backup(live, copy, step_pages=1, pause=0.01)
            after = moves_by_game(live)
        finally:
            ended.set()
            player.join(120)
    assert not player.is_alive()
    assert figures["errors"] == 0 and figures["lost_moves"] == 0, figures
    assert figures["seconds"] < 60, figures  # the play ended with the backup, not at 90 s
    stored_before = sum(len(m) for _, m in before.values())
    stored_after = sum(len(m) for _, m in after.values())
    assert stored_after > stored_before, "no move was stored while the backup ran"

    in_copy = moves_by_game(copy)
    assert contents.games == len(in_copy) >= len(before)
    assert contents.version == SCHEMA_VERSION
    for gid in finished:  # every game over before the backup began is whole in the copy
        assert in_copy[gid] == before[gid]
    for gid, (_, moves) in before.items():  # and no game lost a move
        assert in_copy[gid][1][:len(moves)] == moves
    for gid, (_, moves) in in_copy.items():  # the copy is one moment's database
        assert after[gid][1][:len(moves)] == moves

    restored = tmp_path / "restored" / "games.sqlite3"
    restored.parent.mkdir()
    done = restore(copy, restored)
    assert done.kept is None and done.contents.moves == sum(len(m) for _, m in in_copy.values())
    store = Store(restored)
    try:
        assert store.count_games() == len(in_copy)
        for gid, (_done, moves) in in_copy.items():  # each one legal, in turn
            assert replay_stored(store, gid)[1] == len(moves)
    finally:
        store.close()
    check = sqlite3.connect(restored)
    assert check.execute("PRAGMA quick_check").fetchall() == [("ok",)]
    check.close()


def _new_db(path: Path) -> None:
    Store(path).close()


def test_a_killed_backup_leaves_no_out(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    _new_db(db)
    # pages enough that one page a step, paused, takes seconds
    big = sqlite3.connect(db)
    big.execute("CREATE TABLE ballast (x BLOB)")
    big.executemany("INSERT INTO ballast VALUES (?)", [(os.urandom(4000),)] * 2000)
    big.commit()
    big.close()
    out = tmp_path / "out.sqlite3"
    script = ("import sys; from pathlib import Path; "
              "from dominolab.web.storage.backup import backup; "
              "backup(Path(sys.argv[1]), Path(sys.argv[2]), step_pages=1, pause=0.01, "
              "progress=lambda done, total: print(done, flush=True))")
    proc = subprocess.Popen([sys.executable, "-c", script, str(db), str(out)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    assert int(proc.stdout.readline()) >= 1  # copying now
    assert list(tmp_path.glob(".out.sqlite3.partial-*"))
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    assert not out.exists()
    # the next backup to OUT removes what the killed one left, and makes a whole OUT
    assert main(["backup", "--db", str(db), str(out)]) == 0
    assert not list(tmp_path.glob(".out.sqlite3.partial-*"))
    assert check_backup(out).games == 0


def test_an_interrupted_cli_backup_leaves_no_out(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    _new_db(db)
    out = tmp_path / "out.sqlite3"

    def interrupt(done: int, total: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        backup(db, out, step_pages=1, progress=interrupt)
    assert not out.exists() and not list(tmp_path.glob(".out*"))


def test_restore_refuses_a_damaged_file_and_a_newer_schema(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "games.sqlite3"
    _new_db(target)
    good = tmp_path / "good.sqlite3"
    assert main(["backup", "--db", str(target), str(good)]) == 0

    damaged = tmp_path / "damaged.sqlite3"
    data = bytearray(good.read_bytes())
    page = 4096
    data[page * 2:page * 3] = os.urandom(page)  # a page of garbage inside the database
    damaged.write_bytes(bytes(data))
    newer = tmp_path / "newer.sqlite3"
    newer.write_bytes(good.read_bytes())
    db = sqlite3.connect(newer)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    text = tmp_path / "notes.txt"
    text.write_text("not a database\n" * 100)
    other = tmp_path / "other.sqlite3"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.close()

    before = target.read_bytes()
    for bad, said in ((damaged, "damaged"), (newer, "newer than this dominolab"),
                      (text, "not an SQLite database"), (other, "not dominolab's"),
                      (tmp_path / "missing.sqlite3", "no such database")):
        assert main(["restore", str(bad), "--db", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err and str(bad) in err, err
    assert target.read_bytes() == before
    assert not list(tmp_path.glob("*before-restore*"))


def test_restore_refuses_a_database_in_use_and_keeps_the_one_it_replaces(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "games.sqlite3"
    backup_file = tmp_path / "backup.sqlite3"
    with ServerProcess(target) as server:
        made = server.request("POST", "/api/games", {"game": "luzak", "opponent": "easy"})
        assert main(["backup", "--db", str(target), str(backup_file)]) == 0
        server.request("POST", "/api/games", {"game": "luzak", "opponent": "easy"})
        assert main(["restore", str(backup_file), "--db", str(target)]) == 2
        err = capsys.readouterr().err
        assert "is in use" in err and "stop it" in err
        assert not list(tmp_path.glob("*before-restore*"))
    assert main(["restore", str(backup_file), "--db", str(target)]) == 0
    out = capsys.readouterr().out
    kept = list(tmp_path.glob("games.sqlite3.before-restore-*"))
    assert len(kept) == 1 and str(kept[0]) in out
    assert not Path(f"{target}-wal").exists()
    assert len(moves_by_game(kept[0])) == 2  # the replaced database, whole
    with ServerProcess(target) as server:  # the restored one serves the game backed up
        assert server.request("GET", f"/api/games/{made['id']}",
                              token=made["token"])["id"] == made["id"]
        assert len(moves_by_game(target)) == 1


def test_backup_refuses_bad_input_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "games.sqlite3"
    _new_db(db)
    (tmp_path / "exists.sqlite3").write_bytes(b"")
    junk = tmp_path / "junk"
    junk.write_bytes(b"\0" * 5000)
    for argv, said in (
            (["--db", str(tmp_path / "missing"), "out"], "no such database"),
            (["--db", str(db), str(tmp_path / "nowhere" / "out")], "does not exist"),
            (["--db", str(db), str(tmp_path / "exists.sqlite3")], "--force"),
            (["--db", str(db), str(db)], "the database itself"),
            (["--db", str(junk), str(tmp_path / "x")], "not an SQLite database"),
            (["--db", str(tmp_path), str(tmp_path / "x")], "a folder"),
            (["--db", str(db), "/proc/dominolab-backup.sqlite3"], "cannot write"),
            (["--db", str(db), "out\0.sqlite3"], "not a file name")):
        assert main(["backup", *argv]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and said in err, (argv, err)
    # a folder: a dated file in it
    assert main(["backup", "--db", str(db), str(tmp_path)]) == 0
    assert len(list(tmp_path.glob("dominolab-*.sqlite3"))) == 1
    with pytest.raises(BackupError, match="newer"):
        newer = tmp_path / "newer.sqlite3"
        newer.write_bytes(db.read_bytes())
        con = sqlite3.connect(newer)
        con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        con.close()
        backup(newer, tmp_path / "y.sqlite3")


def test_postgresql_round_trip_with_pg_dump(pg_url: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert pg_tool("pg_dump") and pg_tool("pg_restore"), "Debian's PostgreSQL client tools"
    store = Store(pg_url)
    try:
        assert store.count_games() == 0
    finally:
        store.close()
    out = tmp_path / "games.dump"
    with ServerProcess(pg_url, log=tmp_path / "server.log") as server:
        made = server.request("POST", "/api/games", {"game": "luzak", "opponent": "easy"})
        assert main(["backup", "--db", pg_url, str(out)]) == 0
        assert "pg_dump" in capsys.readouterr().out
        assert main(["restore", str(out), "--db", pg_url]) == 2
        assert "in use" in capsys.readouterr().err
        server.request("POST", "/api/games", {"game": "luzak", "opponent": "easy"})
    assert main(["restore", str(out), "--db", pg_url]) == 0
    said = capsys.readouterr().out
    assert f"schema version {SCHEMA_VERSION}" in said and "before-restore" in said
    store = Store(pg_url)
    try:
        assert store.count_games() == 1 and store.load_game(made["id"]) is not None
    finally:
        store.close()
    text = tmp_path / "notes.txt"
    text.write_text("not an archive")
    assert main(["restore", str(text), "--db", pg_url]) == 2
    assert "not a pg_dump archive" in capsys.readouterr().err


def test_bench_serve_plays_each_run_without_then_with_backups(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "serve", "--games", "2", "--seconds", "2", "--think", "0.05",
                 "--computer-games", "0", "--backups", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["backups"] is True
    without, with_backups = report["runs"]
    assert not without["backing_up"] and "backups" not in without
    assert with_backups["backing_up"]
    made = with_backups["backups"]
    assert made["made"] >= 1 and made["failed"] == 0, made
    for run in report["runs"]:
        assert run["errors"] == 0 and run["lost_moves"] == 0 and run["moves"] > 0


def test_restore_makes_the_folder_of_a_new_database(tmp_path: Path) -> None:
    db = tmp_path / "games.sqlite3"
    _new_db(db)
    out = tmp_path / "b.sqlite3"
    assert main(["backup", "--db", str(db), str(out)]) == 0
    fresh = tmp_path / "new" / "machine" / "games.sqlite3"
    assert main(["restore", str(out), "--db", str(fresh)]) == 0
    assert check_backup(fresh).version == SCHEMA_VERSION


def test_without_pg_dump_it_says_what_to_run(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    import dominolab.web.storage.backup as backups

    monkeypatch.setattr(backups, "pg_tool", lambda name: None)
    url = "postgresql://someone:secret@db.example.org/games"
    assert main(["backup", "--db", url, str(tmp_path / "g.dump")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pg_dump is not installed" in err
    assert "pg_dump --format=custom" in err and "secret" not in err
    assert not list(tmp_path.iterdir())


def test_restore_keeps_what_a_killed_server_left_in_its_log(tmp_path: Path) -> None:
    """A server killed outright leaves its last commits in the write-ahead log beside the
    database: the kept database has them, and the restored one gets no stale log."""
    db = tmp_path / "games.sqlite3"
    _new_db(db)
    out = tmp_path / "b.sqlite3"
    assert main(["backup", "--db", str(db), str(out)]) == 0
    script = ("import os, sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
              "db.execute('PRAGMA wal_autocheckpoint=0'); "
              "db.execute(\"INSERT INTO facts VALUES ('last', 'words')\"); db.commit(); "
              "os._exit(0)")
    subprocess.run([sys.executable, "-c", script, str(db)], check=True, timeout=60)
    assert Path(f"{db}-wal").stat().st_size > 0
    done = restore(out, db)
    assert done.kept is not None and not Path(f"{db}-wal").exists()
    kept = sqlite3.connect(done.kept)
    assert kept.execute("SELECT value FROM facts WHERE name = 'last'").fetchall() == [("words",)]
    kept.close()
    fresh = sqlite3.connect(db)
    assert fresh.execute("SELECT count(*) FROM facts WHERE name = 'last'").fetchone() == (0,)
    fresh.close()


def test_a_disk_that_refuses_the_copy_is_one_line_and_leaves_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A write the disk refuses (here: a folder where the copy or OUT must go) is a
    BackupError naming the file, never a traceback, and no partial file stays behind."""
    db = tmp_path / "games.sqlite3"
    _new_db(db)
    out = tmp_path / "b.sqlite3"
    assert main(["backup", "--db", str(db), str(out)]) == 0
    in_the_way = tmp_path / "taken"
    (in_the_way / "something").mkdir(parents=True)
    with pytest.raises(BackupError, match="cannot write it"):
        backup(db, in_the_way)  # the copy is made, then cannot be renamed onto a folder
    assert not list(tmp_path.glob(".*partial*"))
    # restore: the copy of the backup beside the target cannot be written
    (tmp_path / f".{db.name}.partial-{os.getpid()}").mkdir()
    assert main(["restore", str(out), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{db}: cannot write it" in err, err
    assert not list(tmp_path.glob("*before-restore*"))


def test_a_backup_into_a_folder_is_named_for_its_database(tmp_path: Path) -> None:
    """One rule for both databases: a folder gets a dated file, ``.sqlite3`` for an SQLite
    database and ``.dump`` for a pg_dump archive; an existing file only with ``force``."""
    url = "postgresql://someone@db.example.org/games"
    sqlite_out = backup_target(tmp_path / "games.sqlite3", tmp_path, now=0.0)
    pg_out = backup_target(url, tmp_path, now=0.0)
    assert sqlite_out.parent == pg_out.parent == tmp_path
    assert sqlite_out.suffix == ".sqlite3" and pg_out.suffix == ".dump"
    assert sqlite_out.stem == pg_out.stem
    pg_out.write_bytes(b"")
    with pytest.raises(BackupError, match="--force"):
        backup_target(url, pg_out)
    assert backup_target(url, pg_out, force=True) == pg_out
    with pytest.raises(BackupError, match="does not exist"):
        backup_target(url, tmp_path / "nowhere" / "g.dump")
