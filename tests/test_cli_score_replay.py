"""The commands `dominolab score` and `dominolab replay` (RULES.md §6 examples through the
command line; records replayed from files). Bad input gives a message, never a traceback."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import random_match, rng_chooser
from dominolab.cli.main import main
from dominolab.core import (
    LuzakLineOptions,
    LuzakOptions,
    WidelecOptions,
    match_record,
    score_moves,
)

L1 = "65 54@1e 64@1w 11@2e* 44@3e"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dominolab.cli.main", *args],
                          capture_output=True, text=True, timeout=60, check=False)


def test_cli_score_json_fields(capsys: pytest.CaptureFixture[str]) -> None:
    """RULES.md §6: `score --json` gives one object a tile with n, count, points."""
    assert main(["score", "luzak", L1, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    steps = score_moves("luzak", L1)
    assert [o["n"] for o in out] == [s.n for s in steps]
    assert [o["count"] for o in out] == [s.count for s in steps]
    assert [o["points"] for o in out] == [list(s.points) for s in steps]
    assert [o["seat"] for o in out] == [0, 1, 0, 1, 0]
    assert [o["move"] for o in out] == L1.split()


def test_cli_score_first_seat(capsys: pytest.CaptureFixture[str]) -> None:
    """`--first-seat 1`: seats alternate from seat 1, points swap."""
    assert main(["score", "luzak", L1, "--json", "--first-seat", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [o["points"] for o in out] == [[0, 11], [10, 0], [0, 0], [0, 2], [0, 10]]


def test_cli_score_options_reach_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    """RULES.md §5 options on the command line: luzak-scores-count=no."""
    moves = "65 20@1e*"
    assert main(["score", "luzak", moves, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[1]["points"] == [2, 6]
    assert main(["score", "luzak", moves, "--json", "-o", "luzak-scores-count=no"]) == 0
    assert json.loads(capsys.readouterr().out)[1]["points"] == [2, 0]
    assert score_moves("luzak", moves, LuzakOptions(luzak_scores_count=False))[1].points == (2, 0)


def test_cli_score_widelec_json_has_ends_and_quartet(capsys: pytest.CaptureFixture[str]) -> None:
    """RULES.md §6 W2 through the command (alias kwartety)."""
    assert main(["score", "kwartety", "21 10@R 06@R", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out[0]["ends"] is None and out[2]["ends"] == ["[2|1]", "[6|0]"]
    assert out[2]["quartet"] == "6012" and out[2]["points"] == [9, 0]
    assert "count" not in out[0]
    assert score_moves("widelec", "21 10@R 06@R", WidelecOptions())[2].quartet == "6012"


def test_cli_score_text_output_totals() -> None:
    """The text form ends with the totals (L1: 23 and 10)."""
    done = run("score", "luzak", L1)
    assert done.returncode == 0
    assert len(done.stdout.strip().splitlines()) == 6
    assert "23" in done.stdout.splitlines()[-1] and "10" in done.stdout.splitlines()[-1]


@pytest.mark.parametrize(("args", "needle"), [
    (("score", "chess", "65"), "chess"),
    (("score", "luzak", "65 zz"), "zz"),
    (("score", "luzak", "65 12@1e"), "12@1e"),  # [2|1] fits no port: it is a luzak; unmarked
    (("score", "luzak", "65 54@1e 54@1w"), "54"),  # laid twice
    (("score", "luzak", "65 33@1e"), "33"),  # [3|3] fits nowhere: unmarked, read as luzak
    (("score", "luzak", "65", "-o", "bogus=1"), "bogus"),
    (("score", "widelec", "21 12@R*"), "12"),
    (("score", "luzak", ""), ""),
])
def test_cli_score_bad_input_message_no_traceback(args: tuple[str, ...], needle: str) -> None:
    """Bad input to `score`: a message quoting it (or success when it is legal), never a
    traceback."""
    done = run(*args)
    assert "Traceback" not in done.stderr + done.stdout
    if done.returncode != 0:
        assert needle in done.stderr


def test_cli_score_ambiguous_lists_choices() -> None:
    """A bare tile that fits several ports: the message lists the choices."""
    done = run("score", "luzak", "33 34")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    for port in ("1w", "1e", "1n", "1s"):
        assert f"34@{port}" in done.stderr


def test_cli_replay_good_record_in_process(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """`dominolab replay FILE` (and `--show`) exits 0 on a good record of every game."""
    for game, opts in (("luzak", LuzakOptions(target=30)), ("widelec", WidelecOptions(target=30))):
        match = random_match(game, opts, 3, rng_chooser(random.Random(3)))
        path = tmp_path / f"{game}.json"
        path.write_text(json.dumps(match_record(match)), encoding="utf-8")
        assert main(["replay", str(path)]) == 0
        out = capsys.readouterr().out
        assert game in out
        assert main(["replay", str(path), "--show", "--no-color"]) == 0
        capsys.readouterr()


def test_cli_replay_tampered_names_first_mismatch(tmp_path: Path) -> None:
    """`dominolab replay` on a tampered record: non-zero, naming the hand and the move."""
    match = random_match("luzak-line", LuzakLineOptions(target=30), 4,
                         rng_chooser(random.Random(4)))
    rec = json.loads(json.dumps(match_record(match)))
    rec["hands"][0]["moves"][6]["points"] = [99, 0]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    done = run("replay", str(path))
    assert done.returncode != 0
    assert "hand 1, move 7" in done.stderr and "points" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("moves", ["\u00b2\u00b9", "\u0666\u0665", "\uff16\uff15", "65 5\u0664@1e",
                                   "9" * 5000, "65 " + "4" * 100_000])
def test_cli_score_other_digits_and_huge_numbers_exit_2(
        moves: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`score` with digits of other scripts or huge numbers: exit 2 and a short message
    naming the move, never a traceback (``int`` took ``²`` for a digit and then failed)."""
    assert main(["score", "luzak", moves]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith("dominolab score: ") and "is not a move" in captured.err
    assert len(captured.err) < 400 and captured.out == ""


def test_cli_score_other_digits_in_a_process() -> None:
    done = run("score", "luzak", "\u00b2\u00b9")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "'\u00b2' (character 1) is not one of the plain digits 0-9" in done.stderr


@pytest.mark.parametrize(("option", "message"), [
    ("target=" + "9" * 4000, "from 1 to 10000"),
    ("target=10001", "from 1 to 10000"),
    ("target=\u0666\u0665", "plain digits 0-9"),
    ("target=5_0", "whole number"),
])
def test_cli_option_values_are_bounded(option: str, message: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    """`--option target=...`: out of range or not plain digits is exit 2 with the range."""
    assert main(["score", "luzak", "65", "-o", option]) == 2
    err = capsys.readouterr().err
    assert message in err and "target" in err and len(err) < 300


@pytest.mark.parametrize("argv", [
    ["play", "luzak", "--seed", "\u0666\u0665"],
    ["play", "luzak", "--seed", "9" * 5000],
    ["play", "luzak", "--seat", "\u0661"],
    ["score", "luzak", "65", "--first-seat", "\uff11"],
    ["arena", "greedy", "random", "--game", "luzak", "--matches", "\u0662"],
    ["simulate", "--game", "luzak", "--seed", "-1"],
])
def test_cli_numbers_are_plain_digits_of_sensible_size(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Whole-number arguments take only the digits 0-9 (``int`` alone reads ``٦٥`` as 65)
    and a bounded size: exit 2 with argparse's message naming the argument."""
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument" in err and "Traceback" not in err


@pytest.mark.parametrize("spec", ["greedy:" + "9" * 400 + "w", "greedy:\u0665w",
                                  "pimc:" + "9" * 400 + "s"])
def test_cli_player_budgets_are_plain_and_bounded(spec: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A budget too big for a float (it became infinity: OverflowError for worlds, endless
    thinking for seconds) or written with other digits: exit 2, never a traceback."""
    budget = spec.partition(":")[2]
    for argv in (["arena", "greedy", spec, "--game", "luzak", "--matches", "1"],
                 ["arena", "greedy", "pimc", "--game", "luzak", "--budget", budget],
                 ["simulate", "--game", "luzak", "--players", f"greedy,{spec}"],
                 ["play", "luzak", "--opponent", spec]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"dominolab {argv[0]}: ") and len(err) < 300


def _replay_err(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith(f"dominolab replay: {path}: ")
    assert len(captured.err) < 400
    return captured.err


@pytest.mark.parametrize(("content", "message"), [
    (b'{"format": "dominolab-record", "seed": ' + b"1" * 5000 + b"}", "5000 digits"),
    (b"[" * 200_000 + b"]" * 200_000, "nested"),
    (b"", "empty"),
    (b"\x00" * 100, "not JSON"),
    (b"\xc3\x28 binary \xff", "not UTF-8"),
    (b'{"format": "dominolab-record", "format_version": 1, "rules_version": 1, '
     b'"game": "luzak", "options": {"target": 100000}, "hands": []}', "from 1 to 10000"),
])
def test_cli_replay_refuses_odd_files(content: bytes, message: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """`replay` on what is no record: exit 2, the file named, what is wrong, no traceback."""
    path = tmp_path / "odd.json"
    path.write_bytes(content)
    assert message in _replay_err(path, capsys)


def test_cli_replay_refuses_a_huge_file_unread(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """A file past the size bound is refused after reading only the bound (a sparse file
    of 64 MiB here)."""
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:
        fh.truncate(64 * 2**20)
    assert "too big for a record" in _replay_err(path, capsys)


def test_cli_replay_bad_target_in_record(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A record whose options are out of range is refused naming the option and range."""
    rec = match_record(random_match("luzak", LuzakOptions(), 3, rng_chooser(random.Random(3))))
    rec["options"]["target"] = 10**20
    path = tmp_path / "target.json"
    path.write_text(json.dumps(rec), encoding="utf-8")
    assert "from 1 to 10000" in _replay_err(path, capsys)
