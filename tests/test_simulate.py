"""``dominolab simulate`` and :mod:`dominolab.lab`: the result file's format, its figures
against independent computations, determinism across worker counts, interrupted runs, and
bad input."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from dominolab import __version__
from dominolab.cli.main import main
from dominolab.core import RULES_VERSION, OptionError, RecordError, get_game
from dominolab.lab import (
    SimInterrupted,
    SimSetup,
    is_reproducible,
    make_setup,
    parse_sim,
    play_arena_match,
    read_sim_file,
    run_simulation,
    simulate_to_file,
    split_players,
)
from dominolab.players import Budget

GAMES = ("luzak", "luzak-line", "widelec")


def simulate_bytes(setup: SimSetup, workers: int) -> str:
    out = io.StringIO()
    outcome = run_simulation(setup, out, workers=workers)
    assert outcome.written == setup.matches and not outcome.interrupted
    return out.getvalue()


def lines_of(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def raw_matches(text: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """The file's match lines, each with its hand lines, as plain JSON objects; the file
    is first read and checked by the one reader, whose model gives the same lines back."""
    sim = parse_sim(io.StringIO(text))
    out: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    hands: list[dict[str, Any]] = []
    for obj in lines_of(text)[1:]:
        if obj["type"] == "hand":
            hands.append(obj)
        else:
            out.append((obj, hands))
            hands = []
    assert len(out) == len(sim.matches)
    boneyard = get_game(sim.game).has_boneyard
    for m, (rec, raw) in zip(sim.matches, out, strict=True):
        assert m.to_json() == rec
        assert [h.to_json(boneyard) for h in m.hands] == raw
    return out


# -- determinism ------------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
def test_workers_one_and_two_write_the_same_bytes(game: str) -> None:
    setup = make_setup(game, "greedy,random", matches=6, seed=11)
    one = simulate_bytes(setup, 1)
    assert simulate_bytes(setup, 2) == one
    assert simulate_bytes(setup, 1) == one


def test_cli_twice_gives_the_same_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    argv = ["simulate", "--game", "widelec", "--players", "random,greedy", "--matches", "6",
            "--seed", "5", "--option", "win-at-once=yes"]
    assert main([*argv, "--workers", "2"]) == 0
    first = (tmp_path / "sim-widelec-5.jsonl").read_bytes()
    assert main([*argv, "--workers", "1", "--out", "again.jsonl"]) == 0
    assert (tmp_path / "again.jsonl").read_bytes() == first
    out = capsys.readouterr().out
    assert "sim-widelec-5.jsonl: 6 matches of widelec, random vs greedy" in out
    assert b"\r" not in first and first.endswith(b"\n")
    # compact JSON, the same key order on every line of a kind
    for line in first.decode("utf-8").splitlines():
        assert line == json.dumps(json.loads(line), separators=(",", ":"))


# -- the header ---------------------------------------------------------------------------------

def test_header_fields() -> None:
    # one match: the header is what is checked, and each match of these players is seconds
    setup = make_setup("luzak", ["expert:20w", "medium"], matches=1, seed=7,
                       options=["target=31", "luzak-scores-count=no"])
    header = lines_of(simulate_bytes(setup, 1))[0]
    assert list(header) == ["format", "format_version", "game", "rules_version", "options",
                            "players", "budgets", "seed", "matches", "dominolab"]
    assert header["format"] == "dominolab-sim"
    assert header["format_version"] == 2
    assert header["game"] == "luzak"
    assert header["rules_version"] == RULES_VERSION
    assert header["options"] == get_game("luzak").options(
        ["target=31", "luzak-scores-count=no"]).to_dict()
    assert header["players"] == ["expert", "medium"]
    assert header["budgets"] == ["20w", "40w"]
    assert header["seed"] == 7
    assert header["matches"] == 1
    assert header["dominolab"] == __version__


def test_default_header_budgets_are_null() -> None:
    header = make_setup("widelec").header()
    assert header["players"] == ["greedy", "greedy"]
    assert header["budgets"] == [None, None]
    assert header["matches"] == 100 and header["seed"] == 1


# -- the figures, checked independently --------------------------------------------------------

OPTION_CASES = [
    ("luzak", []), ("luzak", ["luzak-scores-count=no", "even-hands=no"]),
    ("luzak-line", []), ("widelec", []), ("widelec", ["win-at-once=yes", "edge-double=no"]),
]


@pytest.mark.parametrize(("game", "options"), OPTION_CASES)
def test_figures_agree_with_raw_records_and_an_independent_replay(
        game: str, options: list[str]) -> None:
    setup = make_setup(game, "greedy,random", matches=8, seed=3, options=options)
    text = simulate_bytes(setup, 1)
    assert not parse_sim(io.StringIO(text)).interrupted
    matches = raw_matches(text)
    assert len(matches) == 8
    opts = get_game(game).options(options)
    for i, (rec, hands) in enumerate(matches):
        assert rec["type"] == "match" and rec["match"] == i and rec["seed"] == 3 + i
        assert rec["hands"] == len(hands)
        # each match's totals are the sum of its hands' points
        assert rec["totals"] == [sum(h["points"][s] for h in hands) for s in (0, 1)]
        t0, t1 = rec["totals"]
        if rec["end"] == "target":
            assert max(t0, t1) >= opts.target
            assert rec["winner"] == (0 if t0 > t1 else 1 if t1 > t0 else None)
        # openers alternate from the first opener
        for h in hands:
            first = rec["first_opener"]
            assert h["opener"] == (first if h["hand"] % 2 == 1 else 1 - first)
        for h in hands:
            check_hand(game, h)
        # the same match played for the arena
        ind = play_arena_match(game, opts, 3 + i, "greedy", "random", a_seat=0)
        assert [ind.a_points, ind.b_points] == rec["totals"]
        assert list(ind.hand_margins) == [h["points"][0] - h["points"][1] for h in hands]
        assert ind.end == rec["end"] and ind.first_opener == rec["first_opener"]
        assert ind.moves == sum(h["moves"] for h in hands)


def check_hand(game: str, h: dict[str, Any]) -> None:
    p0, p1 = h["points"]
    if game == "widelec":
        bonus = [0, 0]
        if h["winner"] is not None:
            bonus[h["winner"]] = h["bonus"]
        else:
            assert h["bonus"] == 0
        assert h["points"] == [h["quartet_points"][s] + bonus[s] for s in (0, 1)]
        assert all(q >= 0 for q in h["quartets"])
        assert (h["quartets"][0] == 0) == (h["quartet_points"][0] == 0)
        assert h["end"] in ("domino", "block", "target")
        assert "scored_n" not in h
        return
    scored = [0, 0]
    for n, seat, points in h["scored_n"]:
        assert 1 <= n <= 12 and seat in (0, 1) and points > 0
        scored[seat] += points
    pips = h["luzak_pips"] if game == "luzak" else [0, 0]  # a luzak's pips go to the opponent
    assert [p0, p1] == [scored[0] + pips[1], scored[1] + pips[0]]
    assert h["moves"] == 12 and h["end"] == "tiles"
    assert h["winner"] == (0 if p0 > p1 else 1 if p1 > p0 else None)
    for seat in (0, 1):  # no luzak, no pips (the luzak [0|0] has none either)
        assert h["luzaks"][seat] > 0 or h["luzak_pips"][seat] == 0
    assert "quartets" not in h


def test_luzak_records_hold_luzaks_somewhere() -> None:
    """The luzak fields are exercised: random play lays luzaks in a few matches."""
    setup = make_setup("luzak", "random,random", matches=10, seed=1)
    hands = parse_sim(io.StringIO(simulate_bytes(setup, 1))).hand_lines
    assert sum(sum(h.luzaks) for h in hands) > 0
    assert any(h.scored_n for h in hands)


# -- interruption -------------------------------------------------------------------------------

@pytest.mark.parametrize("workers", [1, 2])
def test_interrupted_run_keeps_whole_matches(tmp_path: Path, workers: int) -> None:
    setup = make_setup("luzak", "greedy,random", matches=12, seed=2)
    full = simulate_bytes(setup, 1)
    path = tmp_path / "cut.jsonl"

    def stop_after_three(done: int, total: int) -> None:
        # matches finish out of order with two workers, and a match is written only once
        # those before it are: stop when three are done and the file holds one at least
        assert total == 12
        if done >= 3 and len(path.read_text(encoding="utf-8").splitlines()) > 1:
            raise KeyboardInterrupt

    with pytest.raises(SimInterrupted) as info:
        simulate_to_file(setup, path, workers=workers, progress_callback=stop_after_three)
    outcome = info.value.outcome
    assert outcome.interrupted and outcome.requested == 12
    assert 1 <= outcome.written <= 12
    text = path.read_text(encoding="utf-8")
    assert full.startswith(text)  # whole matches, in order, as in the full run
    sim = read_sim_file(path)
    assert sim.interrupted
    assert [m.match for m in sim.matches] == list(range(outcome.written))
    if workers == 1:
        assert outcome.written == 3


def test_a_match_cut_short_is_not_a_valid_file() -> None:
    text = simulate_bytes(make_setup("widelec", "greedy,greedy", matches=2), 1)
    lines = text.splitlines(keepends=True)
    with pytest.raises(RecordError, match="cut short"):
        parse_sim(lines[:2])
    with pytest.raises(RecordError, match="no header"):
        parse_sim(lines[1:])
    with pytest.raises(RecordError, match="not JSON"):
        parse_sim([lines[0], "{oops\n"])


# -- input ------------------------------------------------------------------------------------

def test_split_players_keeps_budget_commas() -> None:
    assert split_players("greedy,random") == ["greedy", "random"]
    assert split_players("expert:200w,1s,greedy") == ["expert:200w,1s", "greedy"]
    assert split_players("pimc:40w, expert:500w") == ["pimc:40w", "expert:500w"]


def test_reproducibility_of_players() -> None:
    assert is_reproducible("greedy", None) and is_reproducible("random", Budget(seconds=1))
    assert is_reproducible("expert", Budget(worlds=500))
    assert not is_reproducible("expert", None)
    assert not is_reproducible("pimc", Budget(worlds=40, seconds=1.0))
    assert is_reproducible("medium", Budget(worlds=40))
    assert not is_reproducible("hard", None)


@pytest.mark.parametrize(("argv", "message"), [
    (["--game", "chess"], "no game 'chess'"),
    (["--game", "luzak", "--players", "greedy"], "give two players"),
    (["--game", "luzak", "--players", "greedy,wizard"], "no player 'wizard'"),
    (["--game", "luzak", "--players", "expert:5x,greedy"], "is not a budget"),
    (["--game", "luzak", "--matches", "0"], "at least 1"),
    (["--game", "luzak", "--workers", "0"], "at least 1"),
    (["--game", "luzak", "--option", "bogus=1"], "bogus"),
])
def test_bad_input_exits_2_with_a_message(argv: list[str], message: str, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", *argv, "--matches" if "--matches" not in argv else "--seed",
                 "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dominolab simulate: ") and message in err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_unwritable_out_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "luzak", "--matches", "1",
                 "--out", str(tmp_path / "no" / "such" / "dir.jsonl")]) == 2
    assert "No such file" in capsys.readouterr().err


def test_clock_players_get_a_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--game", "luzak", "--matches", "1", "--players",
                 "greedy,pimc:1w,0.01s", "--workers", "1",
                 "--out", str(tmp_path / "x.jsonl")]) == 0
    err = capsys.readouterr().err
    assert "seat 1" in err and "not be reproducible" in err and "pimc:500w" in err
    assert read_sim_file(tmp_path / "x.jsonl").header["budgets"] == [None, "1w,0.01s"]


def test_make_setup_rejects_wrong_options_class() -> None:
    with pytest.raises(OptionError):
        make_setup("luzak", options=get_game("widelec").options_class())
