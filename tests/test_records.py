"""Game records (RULES.md §1 seeded determinism, §5 options named in the record): a record
round-trips through JSON and replays; any tampered figure is caught, naming where."""

from __future__ import annotations

import copy
import json
import random
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conftest import GAME_NAMES, option_sets, random_match, rng_chooser
from dominolab.core import (
    MAX_RECORD_BYTES,
    Deal,
    LuzakOptions,
    Match,
    RecordError,
    WidelecOptions,
    get_game,
    load_record,
    match_record,
    replay,
)


def record_of(game: str, seed: int = 5, target: int = 40, **flags: Any) -> dict[str, Any]:
    opts = get_game(game).options_class.from_dict({"target": target, **flags})
    match = random_match(game, opts, seed, rng_chooser(random.Random(seed)))
    rec = json.loads(json.dumps(match_record(match)))
    assert isinstance(rec, dict)
    return rec


def expect_error(rec: Any, *needles: str) -> str:
    with pytest.raises(RecordError) as info:
        replay(rec)
    text = str(info.value)
    for needle in needles:
        assert needle in text, f"{needle!r} not in {text!r}"
    return text


@pytest.mark.parametrize("game", GAME_NAMES)
def test_record_round_trips_through_json_and_replays(game: str) -> None:
    """A record is plain JSON; replaying it gives the same match."""
    for i, opts in enumerate(option_sets(game, 30)):
        match = random_match(game, opts, i, rng_chooser(random.Random(i)))
        rec = match_record(match, players=("a", "b"))
        text = json.dumps(rec)
        again = replay(json.loads(text))
        assert again.totals == match.totals and again.result == match.result
        assert again.results() == match.results()
        assert [h.table_placements for h in again.hands] == [h.table_placements
                                                             for h in match.hands]
        assert json.dumps(match_record(again, players=("a", "b"))) == text
        assert rec["options"] == opts.to_dict() and rec["game"] == game


def test_record_of_unfinished_match_replays() -> None:
    """A record of a match in progress replays too (result None)."""
    match = Match("widelec", seed=3)
    for _ in range(5):
        match.apply(match.legal_moves()[0])
    rec = json.loads(json.dumps(match_record(match)))
    assert rec["result"] is None
    again = replay(rec)
    assert again.hand_number == 1 and len(again.hand.moves) == 5 and not again.is_over


def test_record_from_given_deals_without_seed() -> None:
    """A match from given deals (no seed) records them and replays."""
    deals = [Deal.for_hand(9, i, 12) for i in range(1, 9)]
    match = Match("luzak", LuzakOptions(target=20, even_hands=False), deals=deals,
                  first_opener=1)
    rng = random.Random(2)
    while not match.is_over:
        legal = match.legal_moves()
        match.apply(legal[rng.randrange(len(legal))])
    rec = json.loads(json.dumps(match_record(match)))
    assert rec["seed"] is None
    assert replay(rec).totals == match.totals


def move_figure_paths(rec: dict[str, Any]) -> list[tuple[int, int, str, int | None]]:
    """(hand index, move index, key, list index) of every stored figure of every move."""
    out: list[tuple[int, int, str, int | None]] = []
    for h, hand in enumerate(rec["hands"]):
        for m, mv in enumerate(hand["moves"]):
            for key, value in mv.items():
                if isinstance(value, list):
                    out.extend((h, m, key, i) for i in range(len(value)))
                else:
                    out.append((h, m, key, None))
    return out


def tampered_value(value: Any) -> Any:
    if isinstance(value, bool) or value is None:
        return "x"
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return "[6|6]" if value != "[6|6]" else "[0|0]"
    return None


@pytest.mark.parametrize("game", GAME_NAMES)
def test_record_any_tampered_move_figure_names_hand_and_move(game: str) -> None:
    """Tampering with any stored figure of a move (seat, move, n, count, points, ends,
    quartet, drew) makes replay raise RecordError naming the hand and the move."""
    rec = record_of(game, seed=11)
    paths = move_figure_paths(rec)
    rng = random.Random(0)
    for h, m, key, i in rng.sample(paths, min(120, len(paths))):
        bad = copy.deepcopy(rec)
        holder = bad["hands"][h]["moves"][m]
        if i is None:
            holder[key] = tampered_value(holder[key])
        else:
            holder[key][i] = tampered_value(holder[key][i])
        text = expect_error(bad, f"hand {h + 1}, move {m + 1}")
        assert "Traceback" not in text


def test_record_tampered_count_points_and_move() -> None:
    """The named cases: a count, points, a move."""
    rec = record_of("luzak", seed=2)
    bad = copy.deepcopy(rec)
    bad["hands"][0]["moves"][2]["count"] += 1
    expect_error(bad, "hand 1, move 3", "count")
    bad = copy.deepcopy(rec)
    bad["hands"][1]["moves"][4]["points"][0] += 5
    expect_error(bad, "hand 2, move 5", "points")
    bad = copy.deepcopy(rec)
    bad["hands"][0]["moves"][1]["move"] = "00@9s"
    expect_error(bad, "hand 1, move 2")


def test_record_tampered_move_to_another_legal_move_is_caught() -> None:
    """Replacing a move by another legal move that changes the figures is caught at once."""
    full = record_of("luzak", seed=8)
    moves = full["hands"][0]["moves"]
    probe = Match("luzak", LuzakOptions(target=40), seed=8)
    for k, stored in enumerate(moves):
        legal = probe.legal_moves()
        for alt in legal:
            if str(alt) == stored["move"]:
                continue
            trial = probe.copy()
            if trial.apply(alt).count != stored["count"]:
                bad = copy.deepcopy(full)
                bad["hands"][0]["moves"][k]["move"] = str(alt)
                expect_error(bad, f"hand 1, move {k + 1}")
                return
        probe.apply(probe.parse_move(stored["move"]))
    raise AssertionError("no alternative found")


def test_record_tampered_deal_tile() -> None:
    """Swapping a tile between the two hands of a deal is caught, naming the hand."""
    rec = record_of("luzak", seed=4)
    bad = copy.deepcopy(rec)
    deal = bad["hands"][1]["deal"]
    deal["seat0"][0], deal["seat1"][0] = deal["seat1"][0], deal["seat0"][0]
    expect_error(bad, "hand 2", "seat0")
    bad = copy.deepcopy(rec)
    bad["hands"][0]["deal"]["rest"][0] = bad["hands"][0]["deal"]["seat0"][0]
    expect_error(bad, "")


def test_record_tampered_seed_and_first_opener() -> None:
    """Changing the seed (or the first opener) is caught."""
    rec = record_of("widelec", seed=4)
    for seed in (5, 6, 7):
        bad = copy.deepcopy(rec)
        bad["seed"] = seed
        text = expect_error(bad)
        assert re.search(r"match|hand 1", text)
    bad = copy.deepcopy(rec)
    bad["first_opener"] = 1 - bad["first_opener"]
    expect_error(bad, "first opener")
    bad = copy.deepcopy(rec)
    bad["hands"][0]["opener"] = 1 - bad["hands"][0]["opener"]
    expect_error(bad, "hand 1", "opener")


def test_record_tampered_results_and_totals() -> None:
    """Changing a hand result, the totals or the match result is caught."""
    rec = record_of("widelec", seed=9, win_at_once=False)
    changes: list[tuple[str, Callable[[dict[str, Any]], None]]] = [
        ("points", lambda r: r["points"].__setitem__(0, r["points"][0] + 1)),
        ("winner", lambda r: r.__setitem__("winner", 1 - (r["winner"] or 0))),
        ("end", lambda r: r.__setitem__("end", "tiles")),
        ("bonus", lambda r: r.__setitem__("bonus", r["bonus"] + 3)),
    ]
    for key, change in changes:
        bad = copy.deepcopy(rec)
        change(bad["hands"][0]["result"])
        expect_error(bad, "hand 1", key)
    bad = copy.deepcopy(rec)
    bad["totals"][1] += 1
    expect_error(bad, "match", "totals")
    bad = copy.deepcopy(rec)
    bad["result"]["winner"] = 1 - bad["result"]["winner"]
    expect_error(bad, "match", "winner")
    bad = copy.deepcopy(rec)
    bad["result"] = None
    expect_error(bad, "match")


def test_record_extra_or_missing_moves_and_hands() -> None:
    """A move after the end, a missing move, or a missing hand is caught."""
    rec = record_of("luzak", seed=1)
    bad = copy.deepcopy(rec)
    bad["hands"][0]["moves"].append(bad["hands"][0]["moves"][-1])
    expect_error(bad, "hand 1, move 13")
    bad = copy.deepcopy(rec)
    bad["hands"][0]["moves"].pop()
    expect_error(bad, "hand 1")
    bad = copy.deepcopy(rec)
    bad["hands"].pop()
    expect_error(bad)


def test_record_options_and_versions_are_checked() -> None:
    """The record's options, game, format and rules version must be readable."""
    rec = record_of("widelec", seed=3)
    bad = copy.deepcopy(rec)
    bad["options"]["target"] = 1000
    expect_error(bad, "hand")
    bad = copy.deepcopy(rec)
    bad["options"]["nonsense"] = 1
    expect_error(bad, "nonsense")
    for key, value in (("format", "other"), ("format_version", 99), ("rules_version", 99),
                       ("game", "chess")):
        bad = copy.deepcopy(rec)
        bad[key] = value
        expect_error(bad)
    assert WidelecOptions.from_dict(rec["options"]) == WidelecOptions(target=40)


@pytest.mark.parametrize("junk", [None, [], "text", 3, {}, {"format": "dominolab-record"},
                                  {"format": "dominolab-record", "format_version": 1,
                                   "rules_version": 1, "game": 5, "options": {}, "hands": []}])
def test_record_junk_raises_record_error_only(junk: Any) -> None:
    """Malformed records raise RecordError, never another exception."""
    expect_error(junk)


def test_record_malformed_inner_parts_raise_record_error() -> None:
    """Wrong types deep inside a record raise RecordError too."""
    rec = record_of("luzak", seed=6)
    mutations: list[Callable[[dict[str, Any]], object]] = [
        lambda r: r["hands"][0].__setitem__("deal", 5),
        lambda r: r["hands"][0].__setitem__("moves", [{"move": 3}]),
        lambda r: r["hands"][0]["moves"][0].__setitem__("move", None),
        lambda r: r.__setitem__("options", {"target": "x"}),
        lambda r: r.__setitem__("hands", "nope"),
        lambda r: r.__setitem__("seed", "abc"),
        lambda r: r["hands"][0]["deal"].__setitem__("seat0", ["99"]),
        lambda r: r["hands"][0].pop("opener"),
    ]
    for mutate in mutations:
        bad = copy.deepcopy(rec)
        mutate(bad)
        expect_error(bad)


def run_replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dominolab.cli.main", "replay", str(path)],
                          capture_output=True, text=True, timeout=60, check=False)


def test_cli_replay_good_and_tampered(tmp_path: Path) -> None:
    """`dominolab replay FILE`: exit 0 on a good record; non-zero naming the first mismatch
    on a tampered one."""
    rec = record_of("luzak", seed=12)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(rec), encoding="utf-8")
    done = run_replay(good)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    bad_rec = copy.deepcopy(rec)
    bad_rec["hands"][0]["moves"][3]["count"] += 2
    bad_rec["hands"][1]["moves"][5]["count"] += 2
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bad_rec), encoding="utf-8")
    done = run_replay(bad)
    assert done.returncode != 0
    assert "hand 1, move 4" in done.stderr and "count" in done.stderr
    assert "hand 2" not in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize("content", [b"{not json", b"", b"[1, 2", b"null", b"[]",
                                     b'{"format": "dominolab-record"}'])
def test_cli_replay_malformed_json_no_traceback(tmp_path: Path, content: bytes) -> None:
    """`dominolab replay` on malformed JSON: a message and a non-zero exit, no traceback."""
    path = tmp_path / "junk.json"
    path.write_bytes(content)
    done = run_replay(path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    assert done.stderr.strip()


def test_cli_replay_missing_file_no_traceback(tmp_path: Path) -> None:
    """`dominolab replay` on a missing file or a directory: a message, no traceback."""
    for path in (tmp_path / "nope.json", tmp_path):
        done = run_replay(path)
        assert done.returncode != 0
        assert "Traceback" not in done.stderr + done.stdout
        assert done.stderr.strip()


def test_cli_replay_invalid_utf8_no_traceback(tmp_path: Path) -> None:
    """`dominolab replay` on a file that is not UTF-8 text (so not JSON): no traceback."""
    path = tmp_path / "binary.json"
    path.write_bytes(b"\xff\xfe\x00garbage\x80")
    done = run_replay(path)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout


@pytest.mark.parametrize(("data", "message"), [
    (b"", "empty"),
    (b"  \n", "empty"),
    (b"\xff\xfe\x00garbage\x80", "not UTF-8"),
    (b"\x00\x01\x02\x03", "not JSON"),
    (b'{"seed": ' + b"7" * 5000 + b"}", "5000 digits"),
    (b"[" * 200_000 + b"]" * 200_000, "nested"),
    (b'{"a": ' * 100_000 + b"1" + b"}" * 100_000, "nested"),
    (b"[NaN]", "NaN"),
    (b"[Infinity]", "Infinity"),
    (b"[1e999]", "too big"),
])
def test_load_record_refuses_what_is_no_record(data: bytes, message: str) -> None:
    """load_record: RecordError with a short message for every kind of non-record."""
    with pytest.raises(RecordError) as info:
        load_record(data)
    assert message in str(info.value) and len(str(info.value)) < 300


def test_load_record_reads_a_record_and_bounds_the_size() -> None:
    """A record written as `dominolab play` writes it loads and replays (a byte-order mark
    is allowed); anything beyond the size bound is refused before it is parsed."""
    rec = record_of("widelec", seed=4)
    text = json.dumps(rec, indent=1)
    assert replay(load_record(text.encode())).totals == replay(rec).totals
    assert load_record("\ufeff".encode() + text.encode()) == rec
    with pytest.raises(RecordError, match="too big"):
        load_record(b" " * (MAX_RECORD_BYTES + 1))


def test_record_huge_and_deep_values_inside_raise_record_error() -> None:
    """Values no JSON parser would refuse but no record holds: RecordError, short."""
    rec = record_of("luzak", seed=6)
    deep: list[Any] = []
    inner = deep
    for _ in range(500):
        inner.append([])
        inner = inner[0]
    mutations: list[Callable[[dict[str, Any]], object]] = [
        lambda r: r.__setitem__("options", {"target": 10**5000}),
        lambda r: r.__setitem__("options", {"target": 10_001}),
        lambda r: r.__setitem__("options", [1, 2]),
        lambda r: r.__setitem__("seed", 10**5000),
        lambda r: r.__setitem__("game", "x" * 100_000),
        lambda r: r["hands"][0]["moves"][0].__setitem__("move", "\u00b2\u00b9"),
        lambda r: r["hands"][0]["moves"][0].__setitem__("count", deep),
        lambda r: r["hands"][0]["moves"].__setitem__(0, 5),
        lambda r: r["hands"].__setitem__(0, [1]),
        lambda r: r["hands"][0]["deal"].__setitem__("seat0", "\u0666\u0665"),
        lambda r: r.__setitem__("format_version", "9" * 100_000),
    ]
    for mutate in mutations:
        bad = copy.deepcopy(rec)
        mutate(bad)
        with pytest.raises(RecordError) as info:
            replay(bad)
        assert len(str(info.value)) < 500, str(info.value)[:600]
