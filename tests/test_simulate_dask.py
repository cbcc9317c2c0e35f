"""``dominolab simulate --scheduler``: the same file on a Dask cluster (started here, two
worker processes) as in a local run, matches sent in batches, and a clear message within a
deadline when the cluster cannot be used: nothing there, something there that is not a Dask
scheduler (silent, a web server, a worker), or a scheduler without workers."""

from __future__ import annotations

import builtins
import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dominolab.cli.main import main
from dominolab.lab import ClusterError, connect_cluster, make_setup, run_tasks, simulate_to_file
from dominolab.lab.pool import CONNECT_TIMEOUT, MAX_BATCH, batch_size

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=":0")
    try:
        yield str(cluster.scheduler_address)
    finally:
        cluster.close()


@pytest.mark.parametrize("game", ["luzak", "widelec"])
def test_cluster_file_is_the_local_file(game: str, scheduler: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["simulate", "--game", game, "--players", "greedy,random", "--matches", "6",
            "--seed", "3"]
    assert main([*argv, "--workers", "1", "--out", str(tmp_path / "local.jsonl")]) == 0
    assert main([*argv, "--scheduler", scheduler, "--out", str(tmp_path / "dask.jsonl")]) == 0
    local = (tmp_path / "local.jsonl").read_bytes()
    assert (tmp_path / "dask.jsonl").read_bytes() == local
    assert local.count(b'"type":"match"') == 6
    assert f"dask.jsonl: 6 matches of {game}, greedy vs random" in capsys.readouterr().out


def test_library_with_a_connected_client(scheduler: str, tmp_path: Path) -> None:
    setup = make_setup("luzak-line", "random,greedy", matches=4, seed=9)
    seen: list[tuple[int, int]] = []
    simulate_to_file(setup, tmp_path / "a.jsonl", workers=1)
    client = connect_cluster(scheduler)
    try:
        outcome = simulate_to_file(setup, tmp_path / "b.jsonl", None,
                                   lambda d, t: seen.append((d, t)), client)
    finally:
        client.close()
    assert outcome.written == 4 and not outcome.interrupted
    assert (tmp_path / "b.jsonl").read_bytes() == (tmp_path / "a.jsonl").read_bytes()
    assert seen[0] == (0, 4) and seen[-1] == (4, 4)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:{port}", "nonsense"])
def test_unreachable_scheduler_exit_2_no_file(address: str, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "never.jsonl"
    code = main(["simulate", "--game", "luzak", "--matches", "2", "--out", str(out),
                 "--scheduler", address.format(port=_closed_port())])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("dominolab simulate: cannot reach the Dask scheduler")
    assert "Traceback" not in err and len(err.splitlines()) == 1
    assert not out.exists()


def test_workers_and_scheduler_together_is_an_error(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    assert main(["simulate", "--game", "luzak", "--workers", "2", "--out",
                 str(tmp_path / "x.jsonl"), "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert "not both" in capsys.readouterr().err


def test_without_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_distributed(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_distributed)
    with pytest.raises(ClusterError, match=r"pip install 'dominolab\[cluster\]'"):
        connect_cluster("tcp://127.0.0.1:1")


# -- batches ------------------------------------------------------------------------------------

def test_batch_size() -> None:
    assert batch_size(6, 2) == 1
    assert batch_size(40, 2) == 5  # four batches a worker thread
    assert batch_size(1_000_000, 16) == MAX_BATCH
    assert batch_size(0, 4) == 1


def test_matches_go_in_batches_and_the_file_is_the_same(scheduler: str, tmp_path: Path) -> None:
    setup = make_setup("widelec", "greedy,random", matches=40, seed=2)
    simulate_to_file(setup, tmp_path / "local.jsonl", workers=2)
    client = connect_cluster(scheduler)
    try:
        with distributed.get_task_stream(client) as stream:
            simulate_to_file(setup, tmp_path / "dask.jsonl", None, None, client)
        tasks = [t for t in stream.data if "run_batch" in str(t.get("key"))]
        assert len(tasks) == -(-40 // batch_size(40, 2))  # 8 Dask tasks, not 40
        # and an explicit batch size, through the runner
        got: list[int] = []
        run_tasks(abs, list(range(-25, 0)), got.append, client=client, batch=10)
        assert sorted(got) == list(range(1, 26))
    finally:
        client.close()
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


# -- what answers is not a usable scheduler ------------------------------------------------------

@contextlib.contextmanager
def fake_server(first_words: bytes | None, wait_for_request: bool = False) -> Iterator[str]:
    """A TCP server on 127.0.0.1 that accepts and then says nothing (``None``) or
    ``first_words``, perhaps only after the client has spoken (as a web server does)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()
    held: list[socket.socket] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            held.append(conn)
            if first_words is not None:
                with contextlib.suppress(OSError):
                    if wait_for_request:
                        conn.settimeout(5)
                        conn.recv(1024)
                    conn.sendall(first_words)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        server.close()


HTTP = b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("words", "after_request", "reason"), [
    (None, False, "said nothing within 5 s"),
    (HTTP, False, "its first bytes are b'HTTP/1.1'"),
    (HTTP, True, "said nothing within 5 s"),
    (b"\x05\x00\x00\x00\x00\x00\x00\x00hello", False, "not a Dask scheduler"),
])
def test_an_address_that_answers_but_is_no_scheduler(
        words: bytes | None, after_request: bool, reason: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "never.jsonl"
    with fake_server(words, after_request) as address:
        start = time.monotonic()
        code = main(["simulate", "--game", "luzak", "--matches", "2", "--out", str(out),
                     "--scheduler", address])
        elapsed = time.monotonic() - start
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dominolab simulate: {address!r} answers, but is not a Dask "
                          f"scheduler (")
    assert reason in err and len(err.splitlines()) == 1 and "Traceback" not in err
    assert elapsed < 3 * CONNECT_TIMEOUT
    assert not out.exists()


def test_a_worker_address_is_not_the_scheduler(scheduler: str,
                                               capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    client = connect_cluster(scheduler)
    try:
        worker = next(iter(client.scheduler_info()["workers"]))
    finally:
        client.close()
    assert main(["simulate", "--game", "luzak", "--matches", "2", "--out",
                 str(tmp_path / "x.jsonl"), "--scheduler", worker]) == 2
    err = capsys.readouterr().err
    assert "not a Dask scheduler (it says it is Worker" in err and len(err.splitlines()) == 1


@pytest.mark.timeout(120)
def test_a_cluster_without_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cluster = distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=":0")
    try:
        address = str(cluster.scheduler_address)
        out = tmp_path / "never.jsonl"
        start = time.monotonic()
        assert main(["simulate", "--game", "luzak", "--matches", "2", "--out", str(out),
                     "--scheduler", address]) == 2
        assert time.monotonic() - start < 3 * CONNECT_TIMEOUT
    finally:
        cluster.close()
    err = capsys.readouterr().err
    assert err.startswith(f"dominolab simulate: the Dask scheduler {address!r} has no "
                          f"workers (none joined within 5 s); start some: dask worker ")
    assert len(err.splitlines()) == 1 and not out.exists()


@pytest.mark.timeout(300)
def test_resume_on_the_cluster(scheduler: str, tmp_path: Path) -> None:
    setup = make_setup("luzak", "greedy,random", matches=12, seed=4)
    simulate_to_file(setup, tmp_path / "local.jsonl", workers=1)
    full = (tmp_path / "local.jsonl").read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(full[:len(full) // 2])
    assert main(["simulate", "--game", "luzak", "--players", "greedy,random", "--matches",
                 "12", "--seed", "4", "--out", str(cut), "--scheduler", scheduler,
                 "--resume"]) == 0
    assert cut.read_bytes() == full
