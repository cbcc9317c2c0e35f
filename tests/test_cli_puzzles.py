"""The puzzle generator and its command: `dominolab puzzles make`, `check` and `show`
(lab/puzzles.py, cli/puzzles.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from dominolab.cli.main import main
from dominolab.core import get_game, match_record, replay
from dominolab.lab import play_match
from dominolab.lab.puzzles import (
    PER_MATCH,
    level_rating,
    make_puzzle_setup,
    make_puzzles,
    write_atomically,
)
from dominolab.players import make_player
from dominolab.players.puzzles import Puzzle, read_puzzles
from dominolab.players.ratings import LEVEL_RATINGS

#: a small, quick run: Widelec's positions are searched fastest; a shallow deep search
SMALL = ["puzzles", "make", "--game", "widelec", "--count", "4", "--seed", "3",
         "--deep", "400"]


def _make(tmp_path: Path, name: str, *extra: str) -> bytes:
    out = tmp_path / name
    assert main([*SMALL, "--out", str(out), *extra]) == 0
    return out.read_bytes()


def test_the_same_command_writes_the_same_bytes_with_1_or_2_workers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    once = _make(tmp_path, "a.jsonl", "--workers", "1")
    assert once == _make(tmp_path, "b.jsonl", "--workers", "1")
    assert once == _make(tmp_path, "c.jsonl", "--workers", "2")
    puzzles = read_puzzles(tmp_path / "a.jsonl")
    assert [p.id for p in puzzles] == [f"widelec-000{k}" for k in range(1, 5)]
    assert all(p.source.startswith("simulated: ") and p.worlds == 400 for p in puzzles)
    assert "a.jsonl: 4 puzzles of widelec" in capsys.readouterr().out


def test_another_seed_makes_other_puzzles(tmp_path: Path) -> None:
    assert _make(tmp_path, "a.jsonl") != _make(tmp_path, "b.jsonl", "--seed", "4")


def test_a_match_gives_at_most_a_few_puzzles_one_a_hand() -> None:
    puzzles = make_puzzles(make_puzzle_setup("widelec", 12, 3, deep=400)).puzzles
    by_match: dict[str, list[str]] = {}
    for p in puzzles:
        match, _, where = p.source.partition(", hand ")
        by_match.setdefault(match, []).append(where.split(",")[0])
    assert all(len(hands) <= PER_MATCH for hands in by_match.values())
    assert all(len(set(hands)) == len(hands) for hands in by_match.values())
    assert len(by_match) >= 12 // PER_MATCH


def _record_file(tmp_path: Path, seed: int) -> Path:
    """A finished match's record as `dominolab play` and the site save it (match_record
    with the players' names)."""
    played = play_match("widelec", get_game("widelec").options(None), seed,
                        ("greedy", "pimc"), (None, None)).match
    path = tmp_path / f"game-{seed}.json"
    path.write_text(json.dumps(match_record(played, players=("you", "computer (medium)"))),
                    encoding="utf-8")
    return path


def test_records_are_judged_first_and_named(tmp_path: Path) -> None:
    record = _record_file(tmp_path, 11)
    out = tmp_path / "real.jsonl"
    assert main(["puzzles", "make", "--game", "widelec", "--count", "3", "--deep", "400",
                 "--records", str(record), "--out", str(out), "--workers", "1"]) == 0
    puzzles = read_puzzles(out)
    real = [p for p in puzzles if p.source.startswith(f"record {record.name}, hand ")]
    assert real, [p.source for p in puzzles]
    assert puzzles[:len(real)] == real  # the records come before any simulated match
    whole = replay(json.loads(record.read_text(encoding="utf-8")))
    for p in real:  # the position is one of the recorded match's
        at = p.match()
        assert at.hands[-1].deal == whole.hands[at.hand_number - 1].deal
        done = len(at.hand.moves)
        assert at.hand.moves == whole.hands[at.hand_number - 1].moves[:done]


def test_check_passes_a_good_file_and_fails_a_tampered_puzzle(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--seed 1 repeats the generator's own re-check, which every puzzle it kept passed (a
    search this shallow need not hold with yet another seed: the shipped ones are deeper)."""
    _make(tmp_path, "good.jsonl")
    capsys.readouterr()
    assert main(["puzzles", "check", str(tmp_path / "good.jsonl"), "--seed", "1",
                 "--workers", "1"]) == 0
    assert "4 of 4 puzzles hold" in capsys.readouterr().out
    lines = (tmp_path / "good.jsonl").read_text(encoding="utf-8").splitlines()
    data = json.loads(lines[1])
    data["moves"][0], data["moves"][1] = data["moves"][1], data["moves"][0]  # a wrong answer
    lines[1] = json.dumps(data)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert main(["puzzles", "check", str(bad), "--seed", "1", "--workers", "1"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"{data['id']}: {data['moves'][0]['move']} is no longer clearly")
    assert "3 of 4 puzzles hold" in out
    assert main(["puzzles", "check", str(bad), "--sample", "1", "--seed", "5",
                 "--workers", "1"]) in (0, 1)
    assert "of 1 puzzles hold" in capsys.readouterr().out


def test_show_prints_the_position_and_the_answer(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _make(tmp_path, "p.jsonl")
    puzzle = read_puzzles(tmp_path / "p.jsonl")[1]
    capsys.readouterr()
    assert main(["puzzles", "show", str(tmp_path / "p.jsonl"), puzzle.id]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"puzzle {puzzle.id} (widelec, rating {puzzle.rating:.0f})")
    assert f"  best  {puzzle.best.move}" in out
    assert f"     2  {puzzle.runner_up.move}" in out
    assert "to move" in out and "your tiles:" in out


def test_an_interrupted_run_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C (or SIGTERM, which the command takes as Ctrl-C) mid-run: exit status 130, the
    old file as it was, no temporary file left."""
    out = tmp_path / "p.jsonl"
    out.write_text("the old file\n", encoding="utf-8")
    import dominolab.lab.puzzles as lab

    def stopped(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(lab, "make_puzzles", stopped)
    assert main([*SMALL, "--out", str(out)]) == 130
    assert "interrupted" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "the old file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl"]


def test_a_write_cut_short_leaves_the_old_file(tmp_path: Path) -> None:
    out = tmp_path / "p.jsonl"
    out.write_text("the old file\n", encoding="utf-8")
    good = read_puzzles(Path(__file__).resolve().parents[1] / "src" / "dominolab" / "web"
                        / "content" / "puzzles" / "widelec.jsonl")[:2]

    def cut() -> Iterator[Puzzle]:
        yield good[0]
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomically(out, cut())
    assert out.read_text(encoding="utf-8") == "the old file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl"]
    write_atomically(out, good)
    assert read_puzzles(out) == good


BAD = {
    "no such game": (["make", "--game", "chess", "--count", "1", "--out", "x"], "chess"),
    "no puzzles": (["make", "--game", "luzak", "--count", "0", "--out", "x"], "--count"),
    "a count in other digits": (["make", "--game", "luzak", "--count", "\u0663",
                                 "--out", "x"], "plain digits"),
    "no workers": (["make", "--game", "luzak", "--count", "1", "--out", "x",
                    "--workers", "0"], "--workers"),
    "a missing record": (["make", "--game", "luzak", "--count", "1", "--out", "x",
                          "--records", "missing.json"], "missing.json"),
    "a record not JSON": (["make", "--game", "luzak", "--count", "1", "--out", "x",
                           "--records", "notjson.json"], "notjson.json"),
    "a record of another game": (["make", "--game", "luzak", "--count", "1", "--out", "x",
                                  "--records", "widelec.json"], "not of luzak"),
    "a tampered record": (["make", "--game", "widelec", "--count", "1", "--out", "x",
                           "--records", "tampered.json"], "tampered.json"),
    "an out file in a missing folder": (["make", "--game", "widelec", "--count", "1",
                                         "--deep", "50", "--out", "no/such/dir/x.jsonl",
                                         "--workers", "1"], "no folder"),
    "check a missing file": (["check", "missing.jsonl"], "missing.jsonl"),
    "check a file that is not puzzles": (["check", "notjson.json"], "notjson.json, line 1"),
    "check with seed 0": (["check", "missing.jsonl", "--seed", "0"], "--seed"),
    "check a sample of 0": (["check", "missing.jsonl", "--sample", "0"], "--sample"),
    "show an unknown id": (["show", "puzzles.jsonl", "luzak-9999"], "no puzzle 'luzak-9999'"),
}


@pytest.mark.parametrize(("argv", "said"), BAD.values(), ids=BAD.keys())
def test_bad_input_is_one_line_and_exit_status_2(
        argv: list[str], said: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notjson.json").write_text("{nope", encoding="utf-8")
    record = json.loads(_record_file(tmp_path, 5).read_text(encoding="utf-8"))
    (tmp_path / "widelec.json").write_text(json.dumps(record), encoding="utf-8")
    record["hands"][0]["moves"][0]["points"] = [99, 0]
    (tmp_path / "tampered.json").write_text(json.dumps(record), encoding="utf-8")
    shipped = (Path(__file__).resolve().parents[1] / "src" / "dominolab" / "web" / "content"
               / "puzzles" / "luzak.jsonl").read_text(encoding="utf-8").splitlines()[0]
    (tmp_path / "puzzles.jsonl").write_text(shipped + "\n", encoding="utf-8")
    assert _status(["puzzles", *argv]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert said in err.strip().splitlines()[-1]  # one line says it (after argparse's usage)


def _status(argv: list[str]) -> object:
    """The exit status: what main returns, or what argparse exits with."""
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code


def test_both_commands_have_help(capsys: pytest.CaptureFixture[str]) -> None:
    for action in ("make", "check", "show"):
        with pytest.raises(SystemExit) as stop:
            main(["puzzles", action, "--help"])
        assert stop.value.code == 0
        assert "usage: dominolab puzzles " + action in capsys.readouterr().out


def test_a_shipped_puzzles_rating_is_the_weakest_level_that_solves_it() -> None:
    """The starting rating repeats: the levels choose again in the position (seeded by the
    puzzle's seed) and the weakest that solves it gives the rating; an easy puzzle is one the
    easy level's greedy choice solves."""
    shipped = read_puzzles(Path(__file__).resolve().parents[1] / "src" / "dominolab" / "web"
                           / "content" / "puzzles" / "widelec.jsonl")
    ratings = LEVEL_RATINGS["widelec"]
    for wanted in (ratings["easy"], ratings["medium"]):
        puzzle = next(p for p in shipped if p.rating == wanted)
        view = puzzle.view()
        assert level_rating("widelec", view, puzzle) == wanted
        greedy = make_player("greedy", 0).choose(view, None)
        assert puzzle.solves(view, greedy) == (wanted == ratings["easy"])
