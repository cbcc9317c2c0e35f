"""RULES.md section 6: every number of the worked examples, through the API and through
the command ``dominolab score GAME "MOVES" --json``."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from conftest import T, tiles
from dominolab.core import (
    LuzakOptions,
    Play,
    Tile,
    best_quartets,
    quartet_text,
    quartet_worth,
    score_moves,
)


@dataclass(frozen=True)
class Example:
    name: str
    game: str
    moves: str
    counts: tuple[int, ...]
    points: tuple[tuple[int, int], ...]


EXAMPLES = [
    # L1: the originals' sample opening
    Example("L1", "luzak", "65 54@1e 64@1w 11@2e* 44@3e", (11, 10, 8, 6, 10),
            ((11, 0), (0, 10), (0, 0), (2, 0), (10, 0))),
    # L2: [4|5][5|5][5|2][2|2][2|6], every count divisible by its N
    Example("L2", "luzak", "45 55@1w 52@2e 22@3e 26@4e", (9, 14, 6, 8, 10),
            ((9, 0), (0, 14), (6, 0), (0, 8), (10, 0))),
    # L3: a count of 15 (1 + [0+0] + [6+6] + 2)
    Example("L3", "luzak", "33 31@1w 30@1e 00@3e 36@1n 66@5e 32@1s", (6, 7, 1, 1, 7, 13, 15),
            ((6, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0))),
    # L4: a count of 4 (2 + 0 + 1 + 1)
    Example("L4", "luzak", "33 32@1w 30@1e 31@1n 36@1s 61@5e", (6, 8, 2, 3, 9, 4),
            ((6, 0), (0, 8), (0, 0), (0, 0), (0, 0), (0, 0))),
    # L5: a spinner stops counting
    Example("L5", "luzak", "55 50@1w 53@1e 56@1n", (10, 10, 3, 9),
            ((10, 0), (0, 10), (3, 0), (0, 0))),
    # V1: Luzak without spinners
    Example("V1", "luzak-line", "64 44@R 62@L 51@R* 13@R", (10, 14, 10, 8, 5),
            ((10, 0), (0, 14), (0, 0), (8, 0), (5, 0))),
]


def cli_score(game: str, moves: str, *options: str) -> list[dict[str, Any]]:
    args = [sys.executable, "-m", "dominolab.cli.main", "score", game, moves, "--json"]
    for opt in options:
        args += ["--option", opt]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert isinstance(out, list)
    return out


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_s6_luzak_examples_through_the_api(ex: Example) -> None:
    """RULES.md §6 L1-L5, V1: every count and every score, through score_moves."""
    steps = score_moves(ex.game, ex.moves)
    assert [s.n for s in steps] == list(range(1, len(ex.counts) + 1))
    assert tuple(s.count for s in steps) == ex.counts
    assert tuple(s.points for s in steps) == ex.points
    assert [s.seat for s in steps] == [i % 2 for i in range(len(steps))]


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_s6_luzak_examples_through_the_command(ex: Example) -> None:
    """RULES.md §6 L1-L5, V1: the same numbers from `dominolab score GAME MOVES --json`."""
    out = cli_score(ex.game, ex.moves)
    assert [o["n"] for o in out] == list(range(1, len(ex.counts) + 1))
    assert tuple(o["count"] for o in out) == ex.counts
    assert tuple(tuple(o["points"]) for o in out) == ex.points


def test_s6_l1_totals_23_and_10() -> None:
    """RULES.md §6 L1: totals seat 0 23, seat 1 10 (API, JSON and text output)."""
    steps = score_moves("luzak", EXAMPLES[0].moves)
    assert sum(s.points[0] for s in steps) == 23 and sum(s.points[1] for s in steps) == 10
    out = cli_score("luzak", EXAMPLES[0].moves)
    assert sum(o["points"][0] for o in out) == 23 and sum(o["points"][1] for o in out) == 10
    done = subprocess.run([sys.executable, "-m", "dominolab.cli.main", "score", "luzak",
                           EXAMPLES[0].moves], capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert "23" in last and "10" in last


def test_s6_l1_step_details() -> None:
    """RULES.md §6 L1: [5|4] on the 5 of [6|5]; [4|6] with its 6 on the 6; the luzak
    [1|1] on the 4 of [5|4] gives seat 0 its 2 pips; [4|4] on the 4 of [4|6]."""
    steps = score_moves("luzak", EXAMPLES[0].moves)
    moves = [s.move for s in steps]
    assert all(isinstance(m, Play) for m in moves)
    luzak = moves[3]
    assert isinstance(luzak, Play) and luzak.luzak and luzak.tile == T("11")
    assert steps[3].seat == 1 and steps[3].points == (2, 0)


def test_s6_l_examples_hold_without_short_ends_any_time() -> None:
    """RULES.md §6 L3-L5 use short ends only after both long sides: same numbers with the
    short-ends option off."""
    for ex in EXAMPLES[2:5]:
        steps = score_moves(ex.game, ex.moves, LuzakOptions(short_ends_any_time=False))
        assert tuple(s.count for s in steps) == ex.counts
        assert tuple(s.points for s in steps) == ex.points
    for ex in EXAMPLES[2:5]:
        out = cli_score(ex.game, ex.moves, "short-ends-any-time=no")
        assert tuple(o["count"] for o in out) == ex.counts


W1 = [("21", "06", 9), ("50", "66", 17), ("55", "46", 20), ("34", "56", 18), ("00", "61", 7),
      ("66", "01", 13), ("33", "44", 14)]
W1_NOT = [("45", "56"), ("12", "35"), ("01", "02")]


def line_with_ends(a: Tile, b: Tile) -> str:
    """Widelec moves laying ``a`` first, one connecting tile, then ``b`` at the right end,
    so that the last placement leaves ``a`` and ``b`` as the two end tiles."""
    for first, last in ((a, b), (b, a)):
        r = first.lo
        for x in last.halves:
            mid = Tile(r, x)
            if mid in (first, last):
                continue
            return f"{first.hi}{first.lo} {r}{x}@R {x}{last.other(x)}@R"
    raise AssertionError(f"no line for {a} {b}")


@pytest.mark.parametrize(("a", "b", "worth"), W1)
def test_s6_w1_quartets_api_and_command(a: str, b: str, worth: int) -> None:
    """RULES.md §6 W1: each quartet's worth via quartet_worth, and scored in play by
    `dominolab score widelec ... --json` when the two tiles end the line."""
    assert quartet_worth(T(a), T(b)) == worth
    assert quartet_text(T(a), T(b)) is not None
    moves = line_with_ends(T(a), T(b))
    steps = score_moves("widelec", moves)
    assert steps[-1].ends is not None and set(steps[-1].ends) == {T(a), T(b)}
    assert steps[-1].points == (worth, 0)
    out = cli_score("widelec", moves)
    assert out[-1]["points"] == [worth, 0]
    assert {T(t) for t in out[-1]["ends"]} == {T(a), T(b)}


def test_s6_w1_edge_double_none_if_option_off() -> None:
    """RULES.md §6 W1: [6|6]+[0|1] 13 (edge double; none if that option is off)."""
    assert quartet_worth(T("66"), T("01"), False) == 0
    moves = line_with_ends(T("66"), T("01"))
    assert cli_score("widelec", moves, "edge-double=no")[-1]["points"] == [0, 0]
    assert cli_score("widelec", moves)[-1]["points"] == [13, 0]


@pytest.mark.parametrize(("a", "b"), W1_NOT)
def test_s6_w1_not_quartets_api_and_command(a: str, b: str) -> None:
    """RULES.md §6 W1: not quartets: [4|5]+[5|6], [1|2]+[3|5], [0|1]+[0|2]."""
    assert quartet_worth(T(a), T(b)) == 0
    moves = line_with_ends(T(a), T(b))
    assert score_moves("widelec", moves)[-1].points == (0, 0)
    out = cli_score("widelec", moves)
    assert out[-1]["points"] == [0, 0] and out[-1]["quartet"] is None


def test_s6_w2_quartet_in_play() -> None:
    """RULES.md §6 W2: [2|1] opens; [1|0] on the 1 (no quartet); [0|6] on the 0: the ends
    [2|1] and [0|6] form 6012 and the player (seat 0) scores 9."""
    moves = "21 10@R 06@R"
    steps = score_moves("widelec", moves)
    assert [s.points for s in steps] == [(0, 0), (0, 0), (9, 0)]
    assert steps[1].ends == (T("21"), T("10")) and steps[1].quartet is None
    assert steps[2].quartet == "6012"
    out = cli_score("widelec", moves)
    assert [o["points"] for o in out] == [[0, 0], [0, 0], [9, 0]]
    assert out[2]["quartet"] == "6012" and out[2]["n"] == 3


def test_s6_w3_end_of_hand_bonus_26() -> None:
    """RULES.md §6 W3: the opponent holds [3|4] [5|6] [2|2] [1|3] [0|6]: the best disjoint
    quartets are [3|4]+[5|6] (18) and [2|2]+[1|3] (8): bonus 26."""
    hold = tiles("34 56 22 13 06")
    total, pairs = best_quartets(hold)
    assert total == 26
    assert quartet_worth(T("34"), T("56")) == 18
    assert quartet_worth(T("22"), T("13")) == 8
    assert {frozenset(p) for p in pairs} == {frozenset(tiles("34 56")), frozenset(tiles("22 13"))}
    # other pairings give less: [3|4]+[2|2] is 2234 (11, edge double), [5|6]+[0|6] none
    assert quartet_worth(T("34"), T("22")) == 11
    assert quartet_worth(T("56"), T("06")) == 0
    # both quartets have the double inside (or none), so the edge option changes nothing
    assert best_quartets(hold, edge_double=False)[0] == 26
