"""The benchmarks run and print the documented JSON (their figures are not asserted:
speed targets live in the benchmarks, never in tests)."""

from __future__ import annotations

import json

import pytest

from dominolab.cli.main import main


def test_bench_engine_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--seconds", "0.05", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"luzak", "luzak-line", "widelec"}
    assert all(data[g]["hands_per_s"] > 0 for g in data)


def test_bench_players_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "players", "--seconds", "0.05", "--json", "--game", "widelec"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"widelec"}
    row = data["widelec"]
    assert row["decisions_per_s"] > 0 and row["iterations_per_s"] > 0
    assert row["iterations_per_decision"] == 1000


def test_bench_rejects_a_bad_duration(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--seconds", "0"]) == 2
    assert "positive" in capsys.readouterr().err


def test_bench_serve_json(capsys: pytest.CaptureFixture[str]) -> None:
    """A real server, two tiny runs of scripted WebSocket clients; no error, no lost move."""
    assert main(["bench", "serve", "--games", "2", "--games", "3", "--seconds", "1.5",
                 "--think", "0.05", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["games"] for r in data["runs"]] == [2, 3]
    for run in data["runs"]:
        assert run["moves"] > 5 and run["errors"] == 0 and run["lost_moves"] == 0
        assert 0 < run["p50_ms"] <= run["p99_ms"] <= run["max_ms"]


def test_bench_serve_rejects_bad_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "serve", "--games", "0"]) == 2
    assert "--games must be positive" in capsys.readouterr().err
