"""Both paths, as a person meets them (issue: native speed, "works without a compiler").

Where a C compiler is, the native part is built and in use, and ``dominolab --version``
says so; ``DOMINOLAB_PURE=1`` turns it off on purpose, silently; a package built without a
compiler still installs, plays and simulates on the pure-Python path, with one warning
line. Greedy players give the same moves and the same files on either path, and every
move the native path plays goes through the reference rules' checked ``Match.apply``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dominolab import native
from dominolab.cli.main import main
from dominolab.core import GAMES, Match
from dominolab.lab.simulate import make_setup, match_lines
from dominolab.players import GreedyPlayer

ROOT = Path(__file__).resolve().parents[1]
#: how long a child process may take (a build of the package from source included)
DEADLINE = 120

needs_native = pytest.mark.skipif(not native.enabled(),
                                  reason=f"the native path is not in use: {native.status()}")


def _run(args: list[str], env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=DEADLINE,
                          env={**os.environ, **(env or {})}, cwd=cwd, check=False)


def test_native_is_built_where_there_is_a_compiler() -> None:
    """`make test` on a machine with gcc builds the native part: CI fails if a build
    silently fell back to the pure-Python path."""
    if shutil.which("gcc") is None or os.environ.get(native.PURE_ENV, "") not in ("", "0"):
        pytest.skip("no compiler here, or the pure path is asked for")
    assert native.enabled(), native.status()


def test_version_names_the_path() -> None:
    out = _run([sys.executable, "-m", "dominolab", "--version"])
    assert out.returncode == 0
    assert f"(engine: {native.status()})" in out.stdout
    pure = _run([sys.executable, "-m", "dominolab", "--version"], {native.PURE_ENV: "1"})
    assert "(engine: pure Python" in pure.stdout
    assert pure.stderr == ""  # turned off on purpose: no warning


@needs_native
@pytest.mark.parametrize("game", list(GAMES))
def test_greedy_plays_the_same_on_both_paths(game: str) -> None:
    """The native greedy choice is the Python one, decision by decision, over whole
    matches; the native moves are applied through the checked Match.apply."""
    player = GreedyPlayer()
    for seed in range(3):
        match = Match(game, seed=seed)
        while not match.is_over:
            seat = match.to_move
            assert seat is not None
            view = match.view(seat)
            fast = player.choose(view)
            with native.pure():
                slow = player.choose(view)
            assert fast == slow, f"{game} seed {seed}: {view}"
            match.apply(fast)


@needs_native
@pytest.mark.parametrize("game", list(GAMES))
def test_simulate_lines_are_the_same_on_both_paths(game: str) -> None:
    """Same seed, same file: simulate's lines for greedy matches do not depend on the path
    (the native loop plays whole hands in one call)."""
    setup = make_setup(game, ("greedy", "greedy"), seed=11)
    fast = [match_lines(setup, i) for i in range(4)]
    with native.pure():
        slow = [match_lines(setup, i) for i in range(4)]
    assert fast == slow


@needs_native
def test_bench_engine_reports_both_paths(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--seconds", "0.05", "--json", "--game", "luzak"]) == 0
    row = json.loads(capsys.readouterr().out)["luzak"]
    assert row["hands_per_s"] > 0 and row["native"]["hands_per_s"] > 0
    assert row["native_over_python"] > 1


@needs_native
def test_bench_engine_check_finds_no_mismatch(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "engine", "--check", "300", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == set(GAMES)
    assert all(r["hands"] == 300 and r["mismatches"] == 0 for r in data.values())


@needs_native
def test_bench_simulate_compares_the_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "simulate", "--seconds", "0.2", "--json", "--game", "widelec"]) == 0
    row = json.loads(capsys.readouterr().out)["widelec"]
    assert row["identical"] is True and row["matches"] >= 1


def test_bench_engine_check_without_native_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    with native.pure():
        assert main(["bench", "engine", "--check", "10"]) == 2
    assert "no native path" in capsys.readouterr().err


def _copy_source(dest: Path) -> None:
    """The project's source as a fresh clone has it: no built extension, no caches."""
    ignore = shutil.ignore_patterns("*.so", "__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "src", dest / "src", ignore=ignore)
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)


def test_installs_and_plays_without_a_compiler(tmp_path: Path) -> None:
    """`pip install .` where the compiler fails: the package installs (no extension in the
    wheel), says it runs on the pure-Python path in one warning line, and plays."""
    _copy_source(tmp_path / "project")
    wheels = tmp_path / "wheels"
    build = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
                  str(tmp_path / "project")], {"CC": "false", "LDSHARED": "false"})
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = wheels.glob("dominolab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert not any(n.endswith(".so") for n in names), names
    target = tmp_path / "site"
    install = _run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)])
    assert install.returncode == 0, install.stderr[-2000:]
    env = {"PYTHONPATH": str(target), native.PURE_ENV: ""}
    version = _run([sys.executable, "-m", "dominolab", "--version"], env, cwd=tmp_path)
    assert "(engine: pure Python: the native part is not built" in version.stdout
    out = tmp_path / "sim.jsonl"
    sim = _run([sys.executable, "-m", "dominolab", "simulate", "--game", "luzak",
                "--matches", "2", "--workers", "1", "--out", str(out)], env, cwd=tmp_path)
    assert sim.returncode == 0, sim.stderr
    warnings = [line for line in sim.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "pure-Python path" in warnings[0], sim.stderr
    assert len(out.read_text().splitlines()) > 2


@needs_native
@pytest.mark.parametrize("game", list(GAMES))
def test_records_of_either_path_replay_on_the_other(game: str) -> None:
    """A match the native players played (expert and greedy) is recorded by the core and
    replays on the pure-Python path with every figure checked, and the other way round."""
    from dominolab.core import match_record, replay
    from dominolab.lab.play import play_match
    from dominolab.players import Budget

    seats, budgets = ["expert", "greedy"], [Budget(worlds=20), None]
    fast = play_match(game, GAMES[game].options_class(), 5, seats, budgets)
    with native.pure():
        slow = play_match(game, GAMES[game].options_class(), 5, seats, budgets)
        assert replay(match_record(fast.match)).totals == fast.match.totals
    assert replay(match_record(slow.match)).totals == slow.match.totals
