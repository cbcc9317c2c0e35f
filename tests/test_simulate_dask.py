"""``dominolab simulate --scheduler``: the same file on a Dask cluster (started here, two
worker processes) as in a local run, matches sent in batches, and a clear message within a
deadline when the cluster cannot be used: nothing there, something there that is not a Dask
scheduler (silent, a web server, a worker), an address of another protocol, or a scheduler
without workers. A run always ends: when every worker is killed mid-run (after
``--no-workers-timeout`` seconds), or the scheduler, it stops with one line within 60 s and
``--resume`` finishes its file; Ctrl-C prints the "interrupted" line alone."""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dominolab.cli.main import build_parser, main
from dominolab.core import OptionError
from dominolab.lab import (
    ClusterError,
    connect_cluster,
    make_setup,
    pool,
    run_tasks,
    simulate_to_file,
)
from dominolab.lab.pool import (
    MAX_BATCH,
    MAX_NO_WORKERS_TIMEOUT,
    NO_WORKERS_TIMEOUT,
    batch_size,
    check_no_workers_timeout,
    scheduler_address,
)

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

#: the connect timeout of the runs below (the default's 5 s would be waited out in full in
#: three of them; the messages and the bound on the wait are the same at 1 s)
QUICK_CONNECT = 1.0


@pytest.fixture
def quick_connect(monkeypatch: pytest.MonkeyPatch) -> float:
    """The CLI's connect timeout, for a run in this process, cut to :data:`QUICK_CONNECT`."""
    monkeypatch.setattr(pool, "CONNECT_TIMEOUT", QUICK_CONNECT)
    return QUICK_CONNECT


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("words", "after_request", "reason"), [
    (None, False, f"said nothing within {QUICK_CONNECT:g} s"),
    (HTTP, False, "its first bytes are b'HTTP/1.1'"),
    (HTTP, True, f"said nothing within {QUICK_CONNECT:g} s"),
    (b"\x05\x00\x00\x00\x00\x00\x00\x00hello", False, "not a Dask scheduler"),
])
def test_an_address_that_answers_but_is_no_scheduler(
        words: bytes | None, after_request: bool, reason: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str], quick_connect: float) -> None:
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
    assert elapsed < 3 * quick_connect
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
def test_a_cluster_without_workers(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   quick_connect: float) -> None:
    cluster = distributed.LocalCluster(n_workers=0, processes=True, dashboard_address=":0")
    try:
        address = str(cluster.scheduler_address)
        out = tmp_path / "never.jsonl"
        start = time.monotonic()
        assert main(["simulate", "--game", "luzak", "--matches", "2", "--out", str(out),
                     "--scheduler", address]) == 2
        assert time.monotonic() - start < 3 * quick_connect
    finally:
        cluster.close()
    err = capsys.readouterr().err
    assert err.startswith(f"dominolab simulate: the Dask scheduler {address!r} has no "
                          f"workers (none joined within {quick_connect:g} s); start some: "
                          f"dask worker ")
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


# -- addresses ---------------------------------------------------------------------------------

def test_an_address_without_a_scheme_is_tcp(scheduler: str, tmp_path: Path) -> None:
    """As ``dask worker HOST:PORT`` takes it."""
    bare = scheduler.removeprefix("tcp://")
    assert scheduler_address(bare) == scheduler
    assert main(["simulate", "--game", "luzak", "--matches", "2", "--out",
                 str(tmp_path / "bare.jsonl"), "--scheduler", bare]) == 0
    assert main(["simulate", "--game", "luzak", "--matches", "2", "--out",
                 str(tmp_path / "tcp.jsonl"), "--workers", "1"]) == 0
    assert (tmp_path / "bare.jsonl").read_bytes() == (tmp_path / "tcp.jsonl").read_bytes()


@pytest.mark.parametrize(("scheme", "reason"), [
    ("http", "is a web address, and http is not a Dask protocol (a scheduler's dashboard "
             "answers there, not the scheduler); give tcp://HOST:PORT"),
    ("https", "is a web address, and https is not a Dask protocol"),
    ("tls", "is a TLS address, and connecting over TLS needs a security configuration "
            "(certificates) that dominolab does not take; give a tcp://HOST:PORT"),
    ("ucx", "is a ucx address, and dominolab reaches a Dask scheduler over tcp:// only"),
])
def test_an_address_of_another_protocol_says_what_is_wrong(
        scheme: str, reason: str, scheduler: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The live scheduler's own host and port, under another scheme."""
    address = scheduler.replace("tcp://", f"{scheme}://")
    out = tmp_path / "never.jsonl"
    assert main(["simulate", "--game", "luzak", "--matches", "2", "--out", str(out),
                 "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"dominolab simulate: {address!r} ")
    assert reason in err and len(err.splitlines()) == 1 and "Error" not in err
    assert not out.exists()


# -- a run always ends -------------------------------------------------------------------------

def _until(condition: Any, seconds: float, what: str) -> None:
    """Poll ``condition()`` until it holds; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not within {seconds:g} s: {what}"
        time.sleep(0.05)


def _matches_in(path: Path) -> int:
    return path.read_bytes().count(b'"type":"match"') if path.exists() else 0


@contextlib.contextmanager
def process_cluster(tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen[bytes],
                                                      subprocess.Popen[bytes]]]:
    """``dask scheduler`` and ``dask worker`` (two worker processes under a nanny), each in
    a process group of its own, so that a test can kill either whole; (address, scheduler,
    workers), both killed at the end."""
    found = tmp_path / "scheduler.json"
    groups: list[subprocess.Popen[bytes]] = []

    def start(*argv: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", *argv], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, start_new_session=True)

    try:
        groups.append(start("distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                            "--port", "0", "--no-dashboard", "--scheduler-file", str(found)))

        def written() -> bool:
            with contextlib.suppress(OSError, ValueError):
                return bool(json.loads(found.read_text())["address"])
            return False

        _until(written, 60, "the scheduler started")
        address = str(json.loads(found.read_text())["address"])
        groups.append(start("distributed.cli.dask_worker", address, "--nworkers", "2",
                            "--nthreads", "1", "--no-dashboard"))
        with distributed.Client(address, timeout=30, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=60)
        yield address, groups[0], groups[1]
    finally:
        for group in groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group.pid, signal.SIGKILL)
            group.wait(timeout=30)


#: greedy matches enough for a run of a second or two on two worker processes (eight
#: batches: the first is written while six are still to play, so a kill at the first match
#: lands mid-run whatever the count; the tests assert it did)
LONG_MATCHES = 3000
LONG_RUN = ["--game", "luzak", "--players", "greedy,greedy", "--matches", str(LONG_MATCHES),
            "--seed", "7"]


def _start_run(address: str, out: Path, *more: str) -> subprocess.Popen[str]:
    """``simulate --scheduler`` (and ``more`` arguments) in a process of its own, once it
    has written a match."""
    run = subprocess.Popen(
        [sys.executable, "-m", "dominolab.cli.main", "simulate", *LONG_RUN, "--scheduler",
         address, "--out", str(out), *more], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    _until(lambda: _matches_in(out) > 0 or run.poll() is not None, 60,
           "the run wrote a match")
    assert run.poll() is None, run.communicate()
    return run


#: a line of the progress bar as it is written off a terminal (cli/progress.py)
PROGRESS_LINE = re.compile(r"^\s*\d+%\|[# 0-9]*\| \d+/\d+ \[")


def _ended(run: subprocess.Popen[str], seconds: float) -> tuple[int, str, float]:
    """(exit status, stderr without its progress lines, seconds taken) of ``run``, which
    must end within ``seconds``."""
    start = time.monotonic()
    try:
        _, err = run.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        run.kill()
        run.communicate()
        pytest.fail(f"the run did not end within {seconds:g} s")
    told = "".join(line for line in err.splitlines(keepends=True)
                   if not PROGRESS_LINE.match(line))
    return run.returncode, told, time.monotonic() - start


@pytest.fixture(scope="module")
def unbroken_run(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The file an unbroken local run of LONG_RUN writes (played once for the module: both
    tests that kill a part of the cluster compare with it)."""
    whole = tmp_path_factory.mktemp("unbroken") / "whole.jsonl"
    assert main(["simulate", *LONG_RUN, "--workers", "2", "--out", str(whole)]) == 0
    return whole.read_bytes()


def _assert_resumes(out: Path, written: int, unbroken: bytes) -> None:
    """``--resume`` (locally) continues the file to the one an unbroken run writes."""
    assert _matches_in(out) == written
    assert main(["simulate", *LONG_RUN, "--workers", "2", "--out", str(out), "--resume"]) == 0
    assert out.read_bytes() == unbroken


#: the --no-workers-timeout of the run whose workers are killed: the default's 30 s would
#: be waited out in full, and this is as telling
NO_WORKERS_SECONDS = 2.0


@pytest.mark.timeout(240)
def test_a_run_whose_workers_all_die_ends_with_one_line_and_resumes(tmp_path: Path,
                                                                   unbroken_run: bytes) -> None:
    out = tmp_path / "run.jsonl"
    with process_cluster(tmp_path) as (address, _, workers):
        run = _start_run(address, out, "--no-workers-timeout", f"{NO_WORKERS_SECONDS:g}")
        os.killpg(workers.pid, signal.SIGKILL)  # every worker and their nanny, at once
        code, err, seconds = _ended(run, 60)
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert NO_WORKERS_SECONDS <= seconds < NO_WORKERS_TIMEOUT  # the flag's, not the default
    written = _matches_in(out)
    assert 0 < written < LONG_MATCHES
    assert err == (f"dominolab simulate: the Dask cluster has had no workers for "
                   f"{NO_WORKERS_SECONDS:g} s (start some: dask worker {address}); the run "
                   f"stopped: {out} holds the {written} whole matches finished (of "
                   f"{LONG_MATCHES}); --resume continues it\n")
    _assert_resumes(out, written, unbroken_run)


def test_the_no_workers_timeout_default_and_bounds(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    assert parser.parse_args(["simulate", "--game", "luzak"]).no_workers_timeout is None
    given = parser.parse_args(["simulate", "--game", "luzak", "--no-workers-timeout", "0.5"])
    assert given.no_workers_timeout == 0.5
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    assert f"(default: {NO_WORKERS_TIMEOUT:g}," in " ".join(capsys.readouterr().out.split())
    assert check_no_workers_timeout(2) == 2.0
    assert check_no_workers_timeout(MAX_NO_WORKERS_TIMEOUT) == MAX_NO_WORKERS_TIMEOUT
    for bad in (0, -1.0, MAX_NO_WORKERS_TIMEOUT + 1, float("nan"), float("inf"), True, "2"):
        with pytest.raises(OptionError, match=r"no_workers_timeout must be above 0 and at "
                                              r"most 86400 seconds, not "):
            check_no_workers_timeout(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(("value", "words"), [
    ("0", "0 must be above 0 and at most 86400"),
    ("-2", "is not a number written with the plain digits"),
    ("nan", "is not a number written with the plain digits"),
    ("86401", "86401 must be above 0 and at most 86400"),
])
def test_a_bad_no_workers_timeout_is_refused(value: str, words: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "never.jsonl"
    with pytest.raises(SystemExit) as info:
        main(["simulate", "--game", "luzak", "--matches", "2", "--out", str(out),
              "--scheduler", "tcp://127.0.0.1:1", "--no-workers-timeout", value])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --no-workers-timeout" in err and words in err, err
    assert "Traceback" not in err and not out.exists()


def test_the_no_workers_timeout_needs_a_scheduler(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "never.jsonl"
    assert main(["simulate", "--game", "luzak", "--matches", "2", "--out", str(out),
                 "--no-workers-timeout", "2"]) == 2
    err = capsys.readouterr().err
    assert "--no-workers-timeout is for a run on a cluster: give it with --scheduler" in err
    assert len(err.splitlines()) == 1 and not out.exists()
    # the library checks it before the file or the cluster is touched
    setup = make_setup("luzak", "greedy,random", matches=2, seed=1)
    with pytest.raises(OptionError, match="no_workers_timeout must be above 0"):
        simulate_to_file(setup, out, scheduler="tcp://127.0.0.1:1", no_workers_timeout=0)
    assert not out.exists()


@pytest.mark.timeout(240)
def test_a_run_whose_scheduler_dies_ends_with_one_line_and_resumes(tmp_path: Path,
                                                                   unbroken_run: bytes) -> None:
    out = tmp_path / "run.jsonl"
    with process_cluster(tmp_path) as (address, scheduler, _):
        run = _start_run(address, out)
        os.killpg(scheduler.pid, signal.SIGKILL)
        code, err, seconds = _ended(run, 60)
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert seconds < NO_WORKERS_TIMEOUT  # a lost connection is seen at once
    written = _matches_in(out)
    assert 0 < written < LONG_MATCHES
    assert err == (f"dominolab simulate: lost the connection to the Dask scheduler "
                   f"{address!r} (is it still running?); the run stopped: {out} holds the "
                   f"{written} whole matches finished (of {LONG_MATCHES}); --resume continues "
                   f"it\n")
    _assert_resumes(out, written, unbroken_run)


@pytest.mark.timeout(120)
def test_ctrl_c_on_the_cluster_prints_the_interrupted_line_alone(scheduler: str,
                                                                  tmp_path: Path) -> None:
    out = tmp_path / "run.jsonl"
    run = _start_run(scheduler, out)
    run.send_signal(signal.SIGINT)
    code, err, _ = _ended(run, 30)
    written = _matches_in(out)
    assert code == 130
    assert err == (f"interrupted: {out} holds the {written} whole matches finished (of "
                   f"{LONG_MATCHES}); --resume continues it\n")
