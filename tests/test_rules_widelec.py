"""RULES.md section 4: Widelec, also called Kwartety."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import T, apply_all, plays, random_match, rng_chooser, tiles, widelec_hand
from dominolab.core import (
    DRAW,
    PASS,
    TILES,
    Deal,
    IllegalMoveError,
    Match,
    Pass,
    Play,
    Tile,
    WidelecHand,
    WidelecOptions,
    best_quartets,
    parse_move,
    quartet_text,
    quartet_worth,
)

# Seat 1 holds no 6: after seat 0 leads [6|6], seat 1 must draw.
SEAT0 = "66 65 64 63 62 33 44"
SEAT1_NO_6 = "00 10 11 20 21 22 30"


def test_s4_deal_7_each_14_boneyard() -> None:
    """RULES.md §4 Deal: 7 tiles each; 14 tiles form the boneyard."""
    for seed in range(10):
        match = Match("widelec", seed=seed)
        hand = match.hand
        assert isinstance(hand, WidelecHand)
        assert len(hand.hands[0]) == len(hand.hands[1]) == 7
        assert len(hand.boneyard) == 14
    assert WidelecOptions().target == 61


def test_s4_playable_means_a_half_equals_an_end() -> None:
    """RULES.md §4 Line: a tile is playable if one of its halves equals an end's value;
    no spinners, the line has two ends."""
    hand = widelec_hand(SEAT0, "00 10 11 20 21 22 61")
    hand.apply(parse_move("66"))
    assert plays(hand.legal_moves()) == {"61@L", "61@R"}
    hand.apply(parse_move("61@R"))
    assert {str(p): v for p, v in hand.table.port_values().items()} == {"L": (6,), "R": (1,)}
    hand2 = widelec_hand(SEAT0, SEAT1_NO_6)
    apply_all(hand2, "66")
    assert hand2.legal_moves() == [DRAW]


def test_s4_must_play_if_able() -> None:
    """RULES.md §4 Turn: a player with a playable tile must play one (no draw then)."""
    hand = widelec_hand(SEAT0, "00 10 11 20 21 22 61")
    hand.apply(parse_move("66"))
    assert DRAW not in hand.legal_moves()
    with pytest.raises(IllegalMoveError):
        hand.apply(DRAW)
    with pytest.raises(IllegalMoveError):
        hand.apply(PASS)


def test_s4_draw_exactly_one_unplayable_draw_ends_the_turn() -> None:
    """RULES.md §4 Turn: a player with no playable tile draws exactly one; if it is not
    playable the turn ends (a draw, not a pass)."""
    hand = widelec_hand(SEAT0, SEAT1_NO_6, rest_first="31 60")
    hand.apply(parse_move("66"))
    assert hand.legal_moves() == [DRAW]
    step = hand.apply(DRAW)
    assert step.drew == T("31")
    assert len(hand.boneyard) == 13 and len(hand.hands[1]) == 8 and T("31") in hand.hands[1]
    assert hand.to_move == 0
    assert hand.moves[-1] == (1, DRAW)
    assert not any(isinstance(m, Pass) for _, m in hand.moves)


def test_s4_playable_drawn_tile_must_be_played_at_once_end_of_choice() -> None:
    """RULES.md §4 Turn [choice]: a playable drawn tile must be played at once, on the end
    of the player's choice; nothing else is allowed."""
    hand = widelec_hand(SEAT0, SEAT1_NO_6, rest_first="60 31")
    hand.apply(parse_move("66"))
    hand.apply(DRAW)
    assert hand.to_move == 1
    assert plays(hand.legal_moves()) == {"60@L", "60@R"}
    with pytest.raises(IllegalMoveError):
        hand.apply(DRAW)
    hand.apply(parse_move("60@L"))
    assert hand.to_move == 0 and T("60") not in hand.hands[1]


def test_s4_drawn_tile_only_played_tile() -> None:
    """RULES.md §4 Turn: after drawing a playable tile, other tiles of the hand may not be
    played instead (even if the new end would let them)."""
    hand = widelec_hand(SEAT0, SEAT1_NO_6, rest_first="61")
    apply_all(hand, "66 draw")
    assert plays(hand.legal_moves()) == {"61@L", "61@R"}


def test_s4_pass_only_with_empty_boneyard_then_block() -> None:
    """RULES.md §4 Turn/End: a player with no playable tile and an empty boneyard passes;
    the hand ends in a block when both pass in a row; fewer pips wins."""
    found = 0
    for seed in range(300):
        hand = WidelecHand(Deal.for_hand(seed, 1, 7), seed % 2, WidelecOptions())
        rng = random.Random(seed)
        while not hand.is_over:
            legal = hand.legal_moves()
            if PASS in legal:
                assert legal == [PASS] and not hand.boneyard
            if DRAW in legal:
                assert legal == [DRAW] and hand.boneyard
            hand.apply(legal[rng.randrange(len(legal))])
        assert hand.result is not None
        if hand.result.end == "block":
            found += 1
            assert [type(m) for _, m in hand.moves[-2:]] == [Pass, Pass]
            a, b = (sum(t.pips for t in h) for h in hand.hands)
            assert hand.result.pips_left == (a, b)
            assert hand.result.winner == (0 if a < b else 1 if b < a else None)
    assert found > 0


def test_s4_scoring_after_placement_with_two_or_more_tiles() -> None:
    """RULES.md §4 Scoring in play: after a tile is placed, if the line has at least two
    tiles and the end tiles form a quartet, its player scores the worth."""
    # A lone [2|1] is not scored against itself; W2 through a hand:
    hand = widelec_hand("21 06 55 44 33 22 11", "10 65 64 63 62 61 53")
    apply_all(hand, "21")
    assert hand.points == [0, 0]
    apply_all(hand, "10@R")
    assert hand.points == [0, 0]
    step = hand.apply(parse_move("06@R"))
    assert step.points == (9, 0) and step.quartet == "6012"
    assert step.ends == (T("21"), T("60"))
    assert hand.points == [9, 0]


def test_s4_every_step_scores_its_end_quartet() -> None:
    """RULES.md §4 Scoring in play over random hands: each play scores exactly the worth of
    the two end tiles' quartet, to its player; draws, keeps and passes score nothing."""
    for seed in range(40):
        match = random_match("widelec", WidelecOptions(target=40), seed,
                             rng_chooser(random.Random(seed)))
        for hand, steps in zip(match.hands, match.steps, strict=True):
            table = []
            for s in steps:
                if not isinstance(s.move, Play):
                    assert s.points == (0, 0)
                    continue
                table.append(s.move)
                if s.n < 2:
                    assert s.points == (0, 0)
                    continue
                assert s.ends is not None
                worth = quartet_worth(*s.ends, hand.options.edge_double)
                expected = [0, 0]
                expected[s.seat] = worth
                assert s.points == (expected[0], expected[1])


def test_s4_hand_ends_by_domino_winner_gets_bonus_from_opponent_tiles() -> None:
    """RULES.md §4 End of hand: going out ends the hand; the winner also scores the best
    disjoint quartets of the opponent's tiles left (the end-of-hand bonus)."""
    seen = {"domino": 0, "block": 0}
    for seed in range(200):
        hand = WidelecHand(Deal.for_hand(seed, 2, 7), seed % 2, WidelecOptions())
        rng = random.Random(seed)
        in_play = [0, 0]
        while not hand.is_over:
            legal = hand.legal_moves()
            step = hand.apply(legal[rng.randrange(len(legal))])
            in_play[0] += step.points[0]
            in_play[1] += step.points[1]
        r = hand.result
        assert r is not None
        seen[r.end] += 1
        if r.end == "domino":
            assert r.winner is not None and not hand.hands[r.winner]
            assert hand.moves[-1][0] == r.winner
        if r.winner is None:
            assert r.bonus == 0 and r.bonus_quartets == ()
        else:
            bonus, pairs = best_quartets(hand.hands[1 - r.winner])
            assert r.bonus == bonus and r.bonus_quartets == pairs
        expected = list(in_play)
        if r.winner is not None:
            expected[r.winner] += r.bonus
        assert list(r.points) == expected == hand.points
    assert seen["domino"] > 0 and seen["block"] > 0


def test_s4_block_with_equal_pips_has_no_winner_and_no_bonus() -> None:
    """RULES.md §4 End of hand: in a block with equal pips there is no winner (no bonus)."""
    found = 0
    for seed in range(3000):
        hand = WidelecHand(Deal.for_hand(seed, 1, 7), 0, WidelecOptions())
        rng = random.Random(seed)
        while not hand.is_over:
            legal = hand.legal_moves()
            hand.apply(legal[rng.randrange(len(legal))])
        r = hand.result
        assert r is not None
        if r.end == "block" and r.pips_left is not None and r.pips_left[0] == r.pips_left[1]:
            found += 1
            assert r.winner is None and r.bonus == 0
            break
    assert found


# -- quartets ---------------------------------------------------------------------------

W1 = [("21", "06", 9, "6012"), ("50", "66", 17, "5660"), ("55", "46", 20, "4556"),
      ("34", "56", 18, "3456"), ("00", "61", 7, "6001"), ("66", "01", 13, "6601"),
      ("33", "44", 14, "3344")]
NOT_QUARTETS = [("45", "56"), ("12", "35"), ("01", "02")]


@pytest.mark.parametrize(("a", "b", "worth", "digits"), W1)
def test_s4_w1_quartets(a: str, b: str, worth: int, digits: str) -> None:
    """RULES.md §4 Quartets / §6 W1: each quartet and its worth (the pips of both)."""
    assert quartet_worth(T(a), T(b)) == worth == quartet_worth(T(b), T(a))
    assert quartet_text(T(a), T(b)) == digits


@pytest.mark.parametrize(("a", "b"), NOT_QUARTETS)
def test_s4_w1_not_quartets(a: str, b: str) -> None:
    """RULES.md §4 / §6 W1: [4|5]+[5|6], [1|2]+[3|5], [0|1]+[0|2] are not quartets."""
    for edge in (True, False):
        assert quartet_worth(T(a), T(b), edge) == 0
        assert quartet_text(T(a), T(b), edge) is None


def test_s4_quartet_two_non_doubles_are_four_consecutive_digits() -> None:
    """RULES.md §4: two non-doubles form a quartet iff their four halves are four different
    consecutive digits of the cycle (digits repeat only through a double)."""
    runs = [{(s + i) % 7 for i in range(4)} for s in range(7)]
    for a, b in combinations([t for t in TILES if not t.is_double], 2):
        digits = [a.hi, a.lo, b.hi, b.lo]
        expected = len(set(digits)) == 4 and set(digits) in runs
        assert (quartet_worth(a, b) > 0) == expected, (a, b)
        if expected:
            assert quartet_worth(a, b) == a.pips + b.pips


def test_s4_quartet_double_with_non_double_middle_and_edge() -> None:
    """RULES.md §4: d d plus the other two digits make three consecutive digits; the
    double in the middle always, at an edge only with the edge option (default on)."""
    for d in TILES:
        if not d.is_double:
            continue
        for t in TILES:
            if t.is_double:
                continue
            s = {d.hi, t.hi, t.lo}
            runs3 = [[(k + i) % 7 for i in range(3)] for k in range(7)]
            run = next((r for r in runs3 if set(r) == s), None)
            middle = run is not None and len(s) == 3 and run[1] == d.hi
            edge = run is not None and len(s) == 3 and run[1] != d.hi
            assert (quartet_worth(d, t, True) > 0) == (middle or edge), (d, t)
            assert (quartet_worth(d, t, False) > 0) == middle, (d, t)
    assert quartet_text(T("66"), T("45")) == "4566"
    assert quartet_text(T("66"), T("45"), False) is None
    assert quartet_worth(T("55"), T("56")) == 0  # 5556: the digit repeats without a double


def test_s4_quartet_two_doubles_consecutive_edge_option_irrelevant() -> None:
    """RULES.md §4: two doubles form a quartet iff their digits are consecutive (cyclic);
    the edge option does not touch this case."""
    doubles = [t for t in TILES if t.is_double]
    for a, b in combinations(doubles, 2):
        consecutive = (a.hi + 1) % 7 == b.hi or (b.hi + 1) % 7 == a.hi
        for edge in (True, False):
            assert (quartet_worth(a, b, edge) > 0) == consecutive
    assert quartet_text(T("66"), T("00")) == "6600"
    assert quartet_worth(T("66"), T("00"), False) == 12


def test_s4_w3_bonus_is_26() -> None:
    """RULES.md §4 bonus / §6 W3: [3|4][5|6][2|2][1|3][0|6]: 18 + 8 = 26."""
    total, pairs = best_quartets(tiles("34 56 22 13 06"))
    assert total == 26
    assert {frozenset(p) for p in pairs} == {frozenset(tiles("34 56")), frozenset(tiles("22 13"))}


def test_s4_bonus_is_maximum_weight_not_greedy() -> None:
    """RULES.md §4: the bonus is a maximum-weight matching, not a greedy pick: the heaviest
    quartet [5|5]+[6|6] (22) leaves [5|4] [6|4], no quartet; the best is [5|4]+[6|6] (21)
    and [5|5]+[6|4] (20), 41 in all."""
    hold = tiles("54 55 64 66")
    assert quartet_worth(T("55"), T("66")) == 22
    assert quartet_worth(T("54"), T("64")) == 0
    assert greedy_pick(hold) == 22
    total, pairs = best_quartets(hold)
    assert total == 41 == brute_force(hold)[0]
    assert {frozenset(p) for p in pairs} == {frozenset(tiles("54 66")), frozenset(tiles("55 64"))}
    # a small one: [0|0][1|0][1|1][2|2] -> greedy 6 ([1|1]+[2|2]), best 2 + 5 = 7
    small = tiles("00 10 11 22")
    assert greedy_pick(small) == 6 and best_quartets(small)[0] == 7


def greedy_pick(hold: list[Tile], edge: bool = True) -> int:
    edges = sorted(((quartet_worth(a, b, edge), a, b) for a, b in combinations(hold, 2)
                    if quartet_worth(a, b, edge)), key=lambda e: -e[0])
    used: set[Tile] = set()
    total = 0
    for w, a, b in edges:
        if a not in used and b not in used:
            used |= {a, b}
            total += w
    return total


def brute_force(hold: list[Tile], edge: bool = True) -> tuple[int, int]:
    """(best total, number of matchings tried) over every set of disjoint pairs."""
    items = list(hold)
    tried = 0

    def best(rest: list[Tile]) -> int:
        nonlocal tried
        tried += 1
        if len(rest) < 2:
            return 0
        first, others = rest[0], rest[1:]
        value = best(others)
        for i, t in enumerate(others):
            w = quartet_worth(first, t, edge)
            if w:
                value = max(value, w + best(others[:i] + others[i + 1:]))
        return value

    return best(items), tried


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.sampled_from(TILES), min_size=0, max_size=10, unique=True), st.booleans())
def test_s4_best_quartets_equals_brute_force(hold: list[Tile], edge: bool) -> None:
    """RULES.md §4 bonus: best_quartets is the exact maximum over all disjoint pairings, and
    its pairs are disjoint quartets adding up to the total."""
    total, pairs = best_quartets(hold, edge)
    assert total == brute_force(hold, edge)[0]
    flat = [t for p in pairs for t in p]
    assert len(flat) == len(set(flat)) and set(flat) <= set(hold)
    assert all(quartet_worth(a, b, edge) > 0 for a, b in pairs)
    assert sum(quartet_worth(a, b, edge) for a, b in pairs) == total


def test_s4_game_to_target_wins_at_once_mid_hand() -> None:
    """RULES.md §4 Game [choice]: the first to reach the target wins at once, even in the
    middle of a hand."""
    mid_hand = 0
    for seed in range(60):
        match = random_match("widelec", WidelecOptions(target=30), seed,
                             rng_chooser(random.Random(seed)))
        r = match.result
        assert r is not None and r.end == "at-once"
        assert r.winner is not None and match.totals[r.winner] >= 30
        assert match.totals[1 - r.winner] < 30
        # before the last move nobody had reached the target
        last = match.hands[-1]
        steps = match.steps[-1]
        before = [match.totals[0] - steps[-1].points[0], match.totals[1] - steps[-1].points[1]]
        if last.result is not None and last.result.end != "target":
            before[0] -= last.result.bonus if last.result.winner == 0 else 0
            before[1] -= last.result.bonus if last.result.winner == 1 else 0
        assert max(before) < 30
        assert last.result is not None
        if last.result.end == "target":
            mid_hand += 1
            assert last.hands[0] and last.hands[1]
            assert last.legal_moves() == []
        assert match.legal_moves() == []
    assert mid_hand > 0


def test_s4_unplayable_draw_is_not_a_pass_for_the_block() -> None:
    """RULES.md §4 Turn: an unplayable draw ends the turn but is not a pass: a draw of the
    last boneyard tile followed by the opponent's pass does not block the hand; only two
    passes in a row do."""
    found = 0
    for seed in range(400):
        hand = WidelecHand(Deal.for_hand(seed, 1, 7), seed % 2, WidelecOptions())
        rng = random.Random(seed)
        while not hand.is_over:
            legal = hand.legal_moves()
            hand.apply(legal[rng.randrange(len(legal))])
            kinds = [type(m).__name__ for _, m in hand.moves[-2:]]
            if kinds == ["Draw", "Pass"]:
                assert not hand.is_over
                found += 1
            if kinds == ["Pass", "Pass"]:
                assert hand.is_over and hand.result is not None
                assert hand.result.end == "block"
    assert found > 0
