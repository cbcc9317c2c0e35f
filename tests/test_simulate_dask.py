"""``dominolab simulate --scheduler``: the same file on a Dask cluster (started here, two
worker processes) as in a local run, and a clear message when the cluster cannot be used."""

from __future__ import annotations

import builtins
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dominolab.cli.main import main
from dominolab.lab import ClusterError, connect_cluster, make_setup, simulate_to_file

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
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
