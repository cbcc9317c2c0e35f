"""RULES.md section 3: Luzak without spinners (the original's variant)."""

from __future__ import annotations

import random

import pytest

from conftest import apply_all, line_hand, plays, random_match, rng_chooser
from dominolab.core import (
    LEFT,
    RIGHT,
    IllegalMoveError,
    LineTable,
    LuzakLineHand,
    LuzakLineOptions,
    OptionError,
    Play,
    parse_move,
    score_moves,
)

SEAT0 = "65 42 43 44 50 51 52 53 54 55 60 61"
SEAT1_NO_56 = "00 10 11 20 21 22 30 31 32 33 40 41"


def counts(moves: str) -> list[int]:
    return [s.count or 0 for s in score_moves("luzak-line", moves)]


def ends(hand: LuzakLineHand) -> dict[str, tuple[int, ...]]:
    return {str(p): v for p, v in hand.table.port_values().items()}


def test_s3_deal_is_luzaks_12_each() -> None:
    """RULES.md §3: everything as in §2 but the table: 12 tiles each, 4 unused."""
    hand = line_hand(SEAT0, SEAT1_NO_56)
    assert len(hand.hands[0]) == len(hand.hands[1]) == 12 and len(hand.deal.rest) == 4


def test_s3_single_line_with_two_ends() -> None:
    """RULES.md §3: no spinners: the table is a single line with two ends."""
    hand = line_hand(SEAT0, "00 10 11 20 21 22 30 31 32 33 40 66")
    hand.apply(parse_move("65"))
    assert hand.table.free_ports() == [LEFT, RIGHT]
    assert ends(hand) == {"L": (6,), "R": (5,)}
    assert plays(hand.legal_moves()) == {"66@L"}
    hand.apply(parse_move("66@L"))
    assert hand.table.free_ports() == [LEFT, RIGHT]
    assert ends(hand) == {"L": (6,), "R": (5,)}


def test_s3_double_across_is_just_part_of_the_line() -> None:
    """RULES.md §3: a double is placed across at an end and is then part of the line
    (no branching; the next tile at that end matches the double)."""
    steps = score_moves("luzak-line", "65 55@R 53@R")
    assert [s.count for s in steps] == [11, 6 + 10, 6 + 3]
    table = LineTable()
    for mv in ("65", "55@R"):
        table.place(parse_move(mv))  # type: ignore[arg-type]
    assert table.port_values() == {LEFT: (6,), RIGHT: (5,)}


def test_s3_luzak_across_either_end() -> None:
    """RULES.md §3: a luzak is placed across either end of the line (like a double)."""
    hand = line_hand(SEAT0, SEAT1_NO_56)
    hand.apply(parse_move("65"))
    legal = hand.legal_moves()
    assert all(isinstance(m, Play) and m.luzak for m in legal)
    assert plays(legal) == {f"{t.hi}{t.lo}@{e}*" for t in hand.hands[1] for e in "LR"}
    assert len(legal) == 24


def test_s3_next_tile_may_match_either_half_of_a_luzak() -> None:
    """RULES.md §3: the next tile at a luzak's end may match either half; the player
    chooses which."""
    hand = line_hand(SEAT0, SEAT1_NO_56)
    apply_all(hand, "65 21@R*")
    assert ends(hand) == {"L": (6,), "R": (1, 2)}
    legal = plays(hand.legal_moves())
    assert {"24@R", "25@R", "15@R", "16@R", "61@L", "60@L"} <= legal
    a, b = hand.copy(), hand.copy()
    a.apply(parse_move("15@R"))
    b.apply(parse_move("25@R"))
    assert ends(a)["R"] == (5,) and ends(b)["R"] == (5,)


def test_s3_play_on_a_luzak_half_is_a_normal_play_for_the_obligation() -> None:
    """RULES.md §3: a play on either half of a luzak is a normal play: a player who has
    one must make it and may not lay a luzak. Checked at every position of random hands,
    with plays on the luzak's high half and on its low half both met."""
    on_hi = on_lo = 0
    for seed in range(60):
        match = random_match("luzak-line", LuzakLineOptions(target=1), seed,
                             rng_chooser(random.Random(seed)))
        for hand in match.hands:
            assert isinstance(hand, LuzakLineHand)
            replayed = LuzakLineHand(hand.deal, hand.opener, hand.options)
            for _, move in hand.moves:
                legal = replayed.legal_moves()
                table = replayed.table
                held = replayed.hands[replayed.to_move]
                values = [v for vs in table.port_values().values() for v in vs]
                fits = table.n == 0 or any(h in values for t in held for h in t.halves)
                has_luzak = any(isinstance(m, Play) and m.luzak for m in legal)
                assert has_luzak == (not fits)
                assert all(isinstance(m, Play) and m.luzak for m in legal) == has_luzak
                for m in legal:
                    assert isinstance(m, Play)
                    if m.port is None or m.luzak:
                        continue
                    end = table.port_values()[m.port]
                    if len(end) == 2:
                        on_hi += m.inner == max(end)
                        on_lo += m.inner == min(end)
                replayed.apply(move)
    assert on_hi > 0 and on_lo > 0


def test_s3_count_normal_end_counts_outer_half() -> None:
    """RULES.md §3 count: a normal end counts its outer half."""
    assert counts("65 54@R") == [11, 6 + 4]
    assert counts("65 54@R 63@L") == [11, 10, 3 + 4]


def test_s3_count_double_at_an_end_counts_both_halves() -> None:
    """RULES.md §3 count: a double at an end counts both halves."""
    assert counts("64 44@R") == [10, 6 + 8]
    assert counts("64 44@R 43@R") == [10, 14, 6 + 3]


def test_s3_count_luzak_at_an_end_counts_both_halves() -> None:
    """RULES.md §3 count: a luzak at an end counts both halves ([6|4] gives 10)."""
    assert counts("21 64@R*") == [3, 2 + 10]
    assert counts("21 64@L*") == [3, 10 + 1]


def test_s3_count_lone_opening_tile_counts_pips_once() -> None:
    """RULES.md §3 count: a lone opening tile counts its pips once (a double too)."""
    assert counts("65") == [11]
    assert counts("44") == [8]
    assert counts("00") == [0]


def test_s3_count_opening_double_counts_both_halves_once_covered_on_one_side() -> None:
    """RULES.md §3 count: an opening double at an end counts both halves once a tile lies
    on its other side."""
    assert counts("44 43@R") == [8, 8 + 3]
    assert counts("44 43@R 45@L") == [8, 11, 5 + 3]


def test_s3_luzak_count_goes_to_the_opponent_no_pip_bonus() -> None:
    """RULES.md §3 Scoring: a luzak's divisible count is scored by the opponent; there is
    no separate luzak-pips bonus."""
    steps = score_moves("luzak-line", "64 44@R 62@L 51@R*")
    assert steps[3].seat == 1 and steps[3].count == 8 and steps[3].points == (8, 0)
    steps = score_moves("luzak-line", "65 21@R*")  # 6 + 3 = 9, N=2: nobody scores
    assert steps[1].points == (0, 0)
    hand = line_hand(SEAT0, SEAT1_NO_56)
    apply_all(hand, "65 20@R*")  # 6 + 2 = 8, N=2: seat 0 scores 8, no bonus
    assert hand.points == [11 + 8, 0]


def test_s3_luzak_line_has_no_luzak_scores_count_option() -> None:
    """RULES.md §3: the Luzak option "luzak's player scores the N rule" does not apply."""
    with pytest.raises(OptionError):
        LuzakLineOptions.from_dict({"luzak_scores_count": False})
    assert set(LuzakLineOptions().to_dict()) == {"target", "even_hands"}


def test_s3_every_step_scores_by_the_line_rules() -> None:
    """RULES.md §3 Scoring over random hands: the count goes to the layer, or to the
    opponent for a luzak, when N divides it and it is not 0; nothing else scores."""
    for seed in range(40):
        match = random_match("luzak-line", LuzakLineOptions(target=40), seed,
                             rng_chooser(random.Random(seed)))
        for steps in match.steps:
            for s in steps:
                assert isinstance(s.move, Play) and s.count is not None
                gain = [0, 0]
                if s.count and s.count % s.n == 0:
                    gain[1 - s.seat if s.move.luzak else s.seat] += s.count
                assert s.points == (gain[0], gain[1])


def test_s3_luzak_lies_across_single_form() -> None:
    """RULES.md §3: a luzak lies across the line, so its halves have no inner/outer: it is
    written with its high half first."""
    table = LineTable()
    table.place(parse_move("65"))  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError):
        table.check(parse_move("12@R*"))  # type: ignore[arg-type]
    table.check(parse_move("21@R*"))  # type: ignore[arg-type]


def test_s3_match_even_hands_and_winner() -> None:
    """RULES.md §3 (as §2 Match): even number of hands, higher total wins."""
    for seed in range(10):
        match = random_match("luzak-line", LuzakLineOptions(target=30), seed,
                             rng_chooser(random.Random(seed)))
        assert match.result is not None and len(match.hands) % 2 == 0
        a, b = match.totals
        assert match.result.winner == (0 if a > b else 1 if b > a else None)
