"""``dominolab simulate``'s files: the default name carries the options and is never
replaced silently, every hand records its tiles (format version 2; version 1 still reads),
``--resume`` continues an interrupted run (torn at any byte, stopped by Ctrl-C, or killed by
SIGKILL) to the bytes of an uninterrupted run, and an option's comma list sweeps its values.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dominolab.cli.main import main
from dominolab.core import TILES, OptionError, RecordError, get_game, parse_tile
from dominolab.lab.simfile import parse_sim, read_sim_file, recover_sim_file
from dominolab.lab.simulate import (
    OutputExists,
    ResumeMismatch,
    SimInterrupted,
    default_out,
    make_setup,
    make_sweep,
    option_label,
    run_simulation,
    simulate_to_file,
    split_sweep,
)

MATCH_LINE = b'"type":"match"'
#: every wait on another process ends by then
DEADLINE = 120.0


def full_text(game: str, players: str, matches: int, seed: int = 1,
              options: tuple[str, ...] = ()) -> str:
    out = io.StringIO()
    run_simulation(make_setup(game, players, matches, seed, list(options)), out, workers=1)
    return out.getvalue()


# -- 1. the default name ---------------------------------------------------------------------

def test_default_name_carries_the_non_default_options_in_a_stable_order() -> None:
    widelec = get_game("widelec")
    assert default_out("widelec", 1, widelec.options([])) == Path("sim-widelec-1.jsonl")
    assert default_out("widelec", 1) == Path("sim-widelec-1.jsonl")
    no_edge = widelec.options(["edge-double=off"])
    assert default_out("widelec", 1, no_edge) == Path("sim-widelec-1-edge-double=no.jsonl")
    # the options' own order, whatever the order given; a default value is not named
    a = widelec.options(["win-at-once=no", "target=31", "edge-double=yes"])
    b = widelec.options(["edge-double=yes", "target=31", "win-at-once=0"])
    assert option_label(a) == option_label(b) == "target=31-win-at-once=no"
    name = default_out("widelec", 7, a).name
    assert name == "sim-widelec-7-target=31-win-at-once=no.jsonl"
    assert all(c.isalnum() or c in "-=._" for c in name)


def test_an_existing_file_is_refused_unless_forced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    base = ["simulate", "--game", "widelec", "--matches", "3", "--workers", "1"]
    assert main(base) == 0
    assert main([*base, "-o", "edge-double=no"]) == 0  # its own file, the first one kept
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "sim-widelec-1-edge-double=no.jsonl", "sim-widelec-1.jsonl"]
    first = (tmp_path / "sim-widelec-1.jsonl").read_bytes()
    capsys.readouterr()
    assert main([*base, "--seed", "1", "--players", "random,random"]) == 2
    err = capsys.readouterr().err
    assert err == ("dominolab simulate: sim-widelec-1.jsonl exists; give --force to replace it "
                   "or --resume to continue an interrupted run into it\n")
    assert (tmp_path / "sim-widelec-1.jsonl").read_bytes() == first
    assert main([*base, "--players", "random,random", "--force"]) == 0
    assert (tmp_path / "sim-widelec-1.jsonl").read_bytes() != first
    assert main([*base, "--force", "--resume"]) == 2
    assert "not both" in capsys.readouterr().err
    # an explicit --out is protected the same way
    assert main([*base, "--out", "sim-widelec-1.jsonl"]) == 2


def test_the_library_refuses_too(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("mine\n", encoding="utf-8")
    setup = make_setup("luzak", matches=1)
    with pytest.raises(OutputExists):
        simulate_to_file(setup, path, workers=1, mode="new")
    assert path.read_text(encoding="utf-8") == "mine\n"
    simulate_to_file(setup, path, workers=1)  # "replace", the default
    assert read_sim_file(path).requested == 1


# -- 2. tiles ----------------------------------------------------------------------------------

@pytest.mark.parametrize("game", ["luzak", "luzak-line", "widelec"])
def test_every_hand_records_its_tiles(game: str) -> None:
    text = full_text(game, "random,greedy", 12, seed=4)
    assert json.loads(text.splitlines()[0])["format_version"] == 2
    digits = {t.digits for t in TILES}
    hands = parse_sim(io.StringIO(text)).hand_lines
    for h, raw in zip(hands, [json.loads(x) for x in text.splitlines()[1:]
                              if '"type":"hand"' in x], strict=True):
        assert h.scored is not None and h.left is not None
        left = [*h.left[0], *h.left[1]]
        assert set(left) <= digits and len(set(left)) == len(left)
        for seat in (0, 1):
            assert list(h.left[seat]) == sorted(h.left[seat], key=lambda t: parse_tile(t).index)
        scored_points = sum(points for _, points in h.scored)
        if game == "widelec":
            assert h.luzaked is None and "luzaked" not in raw
            assert list(raw)[-2:] == ["scored", "left"]
            assert scored_points == sum(h.quartet_points)
            assert len(h.scored) == sum(h.quartets)
            if h.end == "domino":
                assert h.winner is not None and h.left[h.winner] == ()
            if h.end == "block":
                assert h.left[0] and h.left[1]
        else:
            assert h.luzaked is not None
            assert list(raw)[-3:] == ["luzaked", "scored", "left"]
            assert len(h.luzaked) == sum(h.luzaks)
            assert sum(parse_tile(t).pips for t in h.luzaked) == sum(h.luzak_pips)
            assert scored_points == sum(h.points)  # every Luzak point comes from a laying
            assert len(left) == 24 - 12  # 12 tiles dealt to each seat, 12 laid
            assert not set(h.luzaked) & set(left)
        assert all(t in digits for t, _ in h.scored)


def test_luzaked_tiles_appear() -> None:
    hands = parse_sim(io.StringIO(full_text("luzak", "random,random", 10))).hand_lines
    assert any(h.luzaked for h in hands)


def test_version_1_files_still_read() -> None:
    lines = full_text("luzak", "random,random", 3).splitlines()
    header = json.loads(lines[0])
    header["format_version"] = 1
    old = [json.dumps(header, separators=(",", ":"))]
    for line in lines[1:]:
        obj = json.loads(line)
        for key in ("luzaked", "scored", "left"):
            obj.pop(key, None)
        old.append(json.dumps(obj, separators=(",", ":")))
    sim = parse_sim(old)
    assert len(sim.matches) == 3
    h = sim.hand_lines[0]
    assert h.luzaked is None and h.scored is None and h.left is None
    # read back as written: no tile fields appear
    assert json.dumps(h.to_json(False), separators=(",", ":")) == old[1]
    header["format_version"] = 3
    with pytest.raises(RecordError, match="format version 3 is not supported"):
        parse_sim([json.dumps(header)])


@pytest.mark.parametrize(("key", "value"), [
    ("left", [["21"], ["33"], []]), ("left", [["12"], []]), ("scored", [["54", "10"]]),
    ("luzaked", ["7"]), ("scored", [["54"]])])
def test_bad_tile_fields_are_named(key: str, value: Any) -> None:
    lines = full_text("luzak", "random,random", 1).splitlines()
    obj = json.loads(lines[1])
    obj[key] = value
    with pytest.raises(RecordError, match=f"line 2: '{key}'"):
        parse_sim([lines[0], json.dumps(obj), *lines[2:]])


# -- 3. resume ---------------------------------------------------------------------------------

def test_resume_from_any_cut_gives_the_uninterrupted_file(tmp_path: Path) -> None:
    setup = make_setup("widelec", "greedy,random", matches=6, seed=3)
    full = full_text("widelec", "greedy,random", 6, seed=3).encode("utf-8")
    header_end = full.index(b"\n") + 1
    line_ends = [i + 1 for i, b in enumerate(full) if b == ord("\n")]
    cuts = sorted({0, 5, header_end - 1, header_end, *line_ends[1:8],
                   *(e - 3 for e in line_ends[2:8]), len(full) - 1, len(full)})
    path = tmp_path / "cut.jsonl"
    for cut in cuts:
        path.write_bytes(full[:cut])
        outcome = simulate_to_file(setup, path, workers=2, mode="resume")
        assert path.read_bytes() == full, cut
        whole = sum(MATCH_LINE in line for line in full[:cut].split(b"\n")[:-1])
        assert outcome.written == 6 and outcome.resumed == whole


def test_recover_says_what_is_whole(tmp_path: Path) -> None:
    full = full_text("luzak", "greedy,random", 3).encode("utf-8")
    second_match_end = [i for i in range(len(full)) if full.startswith(MATCH_LINE, i)][1]
    second_match_end = full.index(b"\n", second_match_end) + 1
    path = tmp_path / "f.jsonl"
    path.write_bytes(full[:second_match_end + 40])
    found = recover_sim_file(path)
    assert (found.matches, found.whole_bytes, found.torn_bytes) == (2, second_match_end, 40)


def test_resume_refuses_other_arguments_and_foreign_files(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    path = tmp_path / "r.jsonl"
    simulate_to_file(make_setup("luzak", "greedy,random", matches=2), path, workers=1)
    before = path.read_bytes()
    for other in (make_setup("luzak", "greedy,random", matches=3),
                  make_setup("luzak", "greedy,greedy", matches=2),
                  make_setup("luzak", "greedy,random", matches=2, options=["target=31"])):
        with pytest.raises(ResumeMismatch, match="written with other arguments"):
            simulate_to_file(other, path, workers=1, mode="resume")
    assert path.read_bytes() == before
    assert main(["simulate", "--game", "luzak", "--players", "greedy,random", "--matches",
                 "5", "--out", str(path), "--resume"]) == 2
    err = capsys.readouterr().err
    assert "cannot resume" in err and "matches 2 (these arguments: 5)" in err
    assert len(err.splitlines()) == 1
    path.write_bytes(before.replace(b'"type":"hand"', b'"type":"hamd"', 1))
    with pytest.raises(RecordError, match="cannot resume"):
        simulate_to_file(make_setup("luzak", "greedy,random", matches=2), path, workers=1,
                         mode="resume")


def test_resume_after_a_library_interrupt(tmp_path: Path) -> None:
    setup = make_setup("luzak-line", "random,greedy", matches=8, seed=5)
    path = tmp_path / "i.jsonl"

    def stop(done: int, total: int) -> None:
        if done >= 3:
            raise KeyboardInterrupt

    with pytest.raises(SimInterrupted):
        simulate_to_file(setup, path, workers=2, progress_callback=stop)
    simulate_to_file(setup, path, workers=2, mode="resume")
    assert path.read_text(encoding="utf-8") == full_text("luzak-line", "random,greedy", 8, 5)


def _default_sigint() -> None:
    """In the child: SIGINT as a terminal has it (a suite started in the background by a
    non-interactive shell inherits it ignored, and the Ctrl-C test would wait in vain)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(argv: list[str], cwd: Path) -> subprocess.Popen[bytes]:
    code = "import sys; from dominolab.cli.main import main; sys.exit(main(sys.argv[1:]))"
    return subprocess.Popen([sys.executable, "-c", code, *argv], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True, preexec_fn=_default_sigint)


def _wait_for_matches(proc: subprocess.Popen[bytes], path: Path, matches: int) -> None:
    """Until ``path`` holds ``matches`` whole matches; fails if the run ends first or the
    deadline passes. Between looks it waits on the process itself (which ends the wait
    early if it exits)."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        if path.exists() and path.read_bytes().count(MATCH_LINE) >= matches:
            return
        try:
            proc.wait(timeout=0.02)
        except subprocess.TimeoutExpired:
            continue
        pytest.fail(f"the run ended (status {proc.returncode}) before it could be stopped")
    pytest.fail(f"{path} did not reach {matches} matches within {DEADLINE} s")


SLOW_RUN = ["simulate", "--game", "luzak", "--players", "greedy,random", "--matches", "250",
            "--seed", "2", "--workers", "2", "--out", "run.jsonl"]


@pytest.fixture(scope="module")
def slow_run_file(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("reference") / "full.jsonl"
    assert main([*SLOW_RUN[:-1], str(path)]) == 0
    return path.read_bytes()


@pytest.mark.timeout(600)
def test_killed_run_resumes_to_the_same_bytes(tmp_path: Path, slow_run_file: bytes,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    proc = _start(SLOW_RUN, tmp_path)
    try:
        _wait_for_matches(proc, tmp_path / "run.jsonl", 10)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the run and its worker processes
        proc.wait(timeout=DEADLINE)
    assert proc.returncode == -signal.SIGKILL
    cut = (tmp_path / "run.jsonl").read_bytes()
    assert 10 <= cut.count(MATCH_LINE) < 250 and slow_run_file.startswith(cut)
    monkeypatch.chdir(tmp_path)
    assert main([*SLOW_RUN, "--resume"]) == 0
    assert (tmp_path / "run.jsonl").read_bytes() == slow_run_file


@pytest.mark.timeout(600)
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_then_resume_gives_the_same_bytes(tmp_path: Path, slow_run_file: bytes,
                                                 stop: signal.Signals) -> None:
    """Ctrl-C, and SIGTERM the same way: one "interrupted" line, status 130, resumable."""
    proc = _start(SLOW_RUN, tmp_path)
    try:
        _wait_for_matches(proc, tmp_path / "run.jsonl", 10)
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=DEADLINE)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=DEADLINE)
    assert proc.returncode == 130
    assert b"Traceback" not in err and b"Process " not in err, err
    said = [line for line in err.decode().splitlines() if line.startswith("interrupted")]
    assert len(said) == 1 and said[0].endswith("--resume continues it"), err
    cut = tmp_path / "run.jsonl"
    assert read_sim_file(cut).interrupted  # a valid file of whole matches
    proc = _start([*SLOW_RUN, "--resume"], tmp_path)
    _, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 0, err
    assert cut.read_bytes() == slow_run_file


# -- 4. sweeps ---------------------------------------------------------------------------------

def test_split_sweep_gives_the_product_in_order() -> None:
    assert split_sweep(["target=31,41", "edge-double=yes,no", "win-at-once=no"]) == [
        ["target=31", "edge-double=yes", "win-at-once=no"],
        ["target=31", "edge-double=no", "win-at-once=no"],
        ["target=41", "edge-double=yes", "win-at-once=no"],
        ["target=41", "edge-double=no", "win-at-once=no"]]
    assert split_sweep([]) == [[]]
    with pytest.raises(OptionError, match="swept twice"):
        make_sweep("luzak", options=["target=31,031"])
    with pytest.raises(OptionError, match="target"):
        make_sweep("luzak", options=["target=31,0"])


def test_a_sweep_writes_one_file_a_value(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["simulate", "--game", "widelec", "--matches", "3", "--workers", "2",
            "--players", "greedy,random"]
    assert main([*argv, "-o", "target=31,61", "-o", "edge-double=no,yes"]) == 0
    names = ["sim-widelec-1-target=31-edge-double=no.jsonl", "sim-widelec-1-target=31.jsonl",
             "sim-widelec-1-edge-double=no.jsonl", "sim-widelec-1.jsonl"]
    out = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in out[:4]] == [f"[{i}/4] {n}"
                                                       for i, n in enumerate(names, 1)]
    assert out[4] == f"4 files (target, edge-double swept): {' '.join(names)}"
    for name, options in zip(names, [("target=31", "edge-double=no"), ("target=31",),
                                     ("edge-double=no",), ()], strict=True):
        assert (tmp_path / name).read_text(encoding="utf-8") == full_text(
            "widelec", "greedy,random", 3, options=options)
    # run again: refused before anything is played; --resume finds every file complete
    assert main([*argv, "-o", "target=31,61"]) == 2
    assert "exists" in capsys.readouterr().err
    assert main([*argv, "-o", "target=31,61", "-o", "edge-double=no,yes", "--resume"]) == 0
    assert capsys.readouterr().out.count("(already complete)") == 4
    assert main([*argv, "-o", "target=31,41", "--out", "x.jsonl"]) == 2
    assert "--out names one file" in capsys.readouterr().err
