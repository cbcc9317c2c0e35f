"""Issue 40's small truths of the lab: the players' registry says which think against the
clock (the simulate note and help follow it), the report's hand ends and numbers, SIGTERM as
Ctrl-C, progress on and off a terminal, and gzip result files."""

from __future__ import annotations

import dataclasses
import fcntl
import gzip
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from dominolab.cli import progress
from dominolab.cli.main import main
from dominolab.lab import read_sim_file, summarise_file
from dominolab.lab.report import (
    TileFigure,
    hand_end_shares,
    plain_number,
    report_tables,
    table_text,
)
from dominolab.lab.stats import Estimate
from dominolab.players import KINDS, LEVELS, Budget, make_player, thinks_against_clock

# -- the players' registry ----------------------------------------------------------------------

@pytest.mark.parametrize("name", list(KINDS))
def test_the_registry_says_what_the_player_does(name: str) -> None:
    """A clocked player is one whose own default budget includes seconds; the others take no
    budget at all."""
    player = make_player(name, 1)
    default = getattr(player, "default", None)
    assert KINDS[name].clocked == (default is not None and default.seconds is not None)
    assert thinks_against_clock(name, Budget(worlds=3)) is False
    assert thinks_against_clock(name, None) is KINDS[name].clocked
    assert thinks_against_clock(name, Budget(seconds=1.0)) is KINDS[name].clocked


def test_levels_follow_their_player() -> None:
    assert thinks_against_clock("hard", None) and not thinks_against_clock("easy", None)
    assert not thinks_against_clock("medium", LEVELS["medium"][1])


def test_greedy_worst_gets_no_clock_note(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "luzak", "--matches", "1", "--players",
                 "greedy-worst,greedy", "--workers", "1",
                 "--out", str(tmp_path / "x.jsonl")]) == 0
    assert "against the clock" not in capsys.readouterr().err


def test_players_help_lists_every_player(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in KINDS:
        assert f"{name}," in text or f"{name} " in text, name
    clocked = [name for name, kind in KINDS.items() if kind.clocked]
    assert f"against the clock: {', '.join(clocked)} " in text
    assert "greedy-worst" in text


# -- the report ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def widelec_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Widelec to a low target, so that many hands are cut short at it (win at once)."""
    path = tmp_path_factory.mktemp("sim") / "w.jsonl"
    assert main(["simulate", "--game", "widelec", "--matches", "12", "--workers", "1",
                 "--players", "greedy,random", "--option", "target=61",
                 "--out", str(path)]) == 0
    return path


def test_hand_ends_plot_counts_the_tables_hands(widelec_file: Path) -> None:
    s = summarise_file(read_sim_file(str(widelec_file)))
    assert s.hand_ends.get("target", 0) > 0 and s.completed_hands < s.hands
    shares = hand_end_shares(s)
    assert shares == {"domino": pytest.approx(s.estimates["domino_share"].value * 100),
                      "block": pytest.approx(s.estimates["block_share"].value * 100)}
    assert sum(shares.values()) == pytest.approx(100.0)
    assert shares["domino"] == pytest.approx(
        100 * s.hand_ends["domino"] / s.completed_hands)
    figures = table_text(report_tables([s])[0])
    assert any(line.strip().startswith("completed hands ending in a domino")
               for line in figures)


def test_hand_ends_caption_says_completed_hands(widelec_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "r.html"
    assert main(["report", str(widelec_file), "--html", str(out)]) == 0
    page = " ".join(out.read_text(encoding="utf-8").split())
    assert "How the completed hands ended" in page


@pytest.mark.parametrize(("x", "text"), [(1584840.0, "1584840"), (6.0, "6"), (6.5, "6.5"),
                                         (2 / 3, "0.67"), (1e20, "100000000000000000000"),
                                         (float("nan"), "-")])
def test_plain_number(x: float, text: str) -> None:
    assert plain_number(x) == text


def test_no_table_prints_an_exponent(widelec_file: Path) -> None:
    s = summarise_file(read_sim_file(str(widelec_file)))
    assert s.tile_worth
    big = TileFigure("66", 1584840.0, 123456789.0, Estimate(0.0128, (0.0120, 0.0136), None))
    s = dataclasses.replace(s, tile_worth=(big, *s.tile_worth))
    tables = report_tables([s])
    worth = next(t for t in tables if t.id == "tile-worth")
    assert worth.rows[0][-1] == "1584840 / 123456789"
    for table in tables:
        for line in table_text(table):
            assert not re.search(r"[0-9]e[+-][0-9]", line), line


# -- progress ------------------------------------------------------------------------------------

PROGRESS_LINE = re.compile(r"^\s*\d+%\|[# 0-9]*\| (\d+)/(\d+) \[")


def test_progress_off_a_terminal_is_plain_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Standard error not a terminal (as in a background run): whole lines now and then
    (here at every match, the interval made tiny), no carriage returns, nothing on stdout
    but the result."""
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    assert main(["simulate", "--game", "luzak", "--matches", "6", "--workers", "1",
                 "--out", str(tmp_path / "x.jsonl")]) == 0
    captured = capsys.readouterr()
    assert "\r" not in captured.err
    counts = [int(m.group(1)) for m in map(PROGRESS_LINE.match, captured.err.splitlines())
              if m is not None]
    assert counts[0] == 0 and counts[-1] == 6 and len(set(counts)) == 7, captured.err
    assert captured.out.count("\n") == 1 and "%|" not in captured.out


def test_progress_off_a_terminal_waits_its_interval(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """At the default interval a quick run tells only its start and its end."""
    assert main(["simulate", "--game", "luzak", "--matches", "6", "--workers", "1",
                 "--out", str(tmp_path / "x.jsonl")]) == 0
    counts = [int(m.group(1)) for m in map(PROGRESS_LINE.match,
                                           capsys.readouterr().err.splitlines()) if m]
    assert counts[0] == 0 and counts[-1] == 6 and len(set(counts)) == 2


@pytest.mark.parametrize("columns", [0, 100])
def test_progress_on_a_terminal_is_a_bar(tmp_path: Path, columns: int) -> None:
    """Standard error a terminal (a pty, sized or bare): one bar redrawn in place."""
    main_fd, child_fd = pty.openpty()
    if columns:
        fcntl.ioctl(child_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 30, columns, 0, 0))
    code = "import sys; from dominolab.cli.main import main; sys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen([sys.executable, "-c", code, "simulate", "--game", "luzak",
                             "--matches", "30", "--workers", "1", "--out", "x.jsonl"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=child_fd,
                            stdin=subprocess.DEVNULL)
    os.close(child_fd)
    seen = b""
    end = time.monotonic() + 60
    try:
        while time.monotonic() < end:
            ready, _, _ = select.select([main_fd], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(main_fd, 4096)
                except OSError:  # the child closed its end
                    break
                if not chunk:
                    break
                seen += chunk
            elif proc.poll() is not None:
                break
        out, _ = proc.communicate(timeout=60)
    finally:
        os.close(main_fd)
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)
    assert proc.returncode == 0
    text = seen.decode()
    assert "\r" in text and "30/30" in text and "matches" in text, text
    assert "█" in text or "%|" in text  # tqdm's bar
    assert b"30/30" not in out  # stdout holds the result only


# -- compressed names ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["x.jsonl.gz", "X.JSONL.GZ", "x.jsonl.xz", "x.parquet.gz"])
def test_a_compressed_name_is_refused_in_one_line(name: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / name
    for extra in ([], ["--resume"], ["--force"]):
        assert main(["simulate", "--game", "luzak", "--matches", "2", "--workers", "1",
                     "--out", str(out), *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(out) in err and "uncompressed" in err, err
    assert list(tmp_path.iterdir()) == []


def test_a_finished_file_compressed_is_reported(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """What the refusal tells: compress the finished file; report reads it alike."""
    plain = tmp_path / "x.jsonl"
    assert main(["simulate", "--game", "luzak", "--matches", "3", "--workers", "1",
                 "--out", str(plain)]) == 0
    packed = tmp_path / "x.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    capsys.readouterr()
    assert main(["report", str(plain)]) == 0
    first = capsys.readouterr().out
    assert main(["report", str(packed)]) == 0
    assert capsys.readouterr().out == first.replace(str(plain), str(packed))
