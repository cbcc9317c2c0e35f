"""RULES.md section 2: Luzak (every double a spinner)."""

from __future__ import annotations

import random
from itertools import accumulate

import pytest

from conftest import T, apply_all, luzak_hand, plays, random_match, rng_chooser
from dominolab.core import (
    GameOverError,
    IllegalMoveError,
    LuzakHand,
    LuzakOptions,
    Match,
    Play,
    Port,
    TreeTable,
    parse_move,
    score_moves,
)

# Seat 1 holds no 5 and no 6: after seat 0 leads [6|5], seat 1 has no normal play.
SEAT0 = "65 42 43 44 50 51 52 53 54 55 60 61"
SEAT1_NO_56 = "00 10 11 20 21 22 30 31 32 33 40 41"


def counts(moves: str, options: LuzakOptions | None = None) -> list[int]:
    return [s.count or 0 for s in score_moves("luzak", moves, options)]


def ports(hand: LuzakHand) -> dict[str, int]:
    return {str(p): v for p, v in hand.table.port_values().items()}


def test_s2_deal_12_each_4_unused_and_unseen() -> None:
    """RULES.md §2 Deal: 12 tiles each; the remaining 4 stay unused; no drawing."""
    match = Match("luzak", seed=3)
    hand = match.hand
    assert len(hand.hands[0]) == len(hand.hands[1]) == 12
    assert len(hand.deal.rest) == 4
    rng = random.Random(0)
    while match.hand_number == 1:
        legal = match.legal_moves()
        assert all(isinstance(m, Play) for m in legal)  # no draw, no pass
        match.apply(legal[rng.randrange(len(legal))])
    assert not set(hand.deal.rest) & {p.tile for p in hand.table_placements}


def test_s2_opening_non_double_has_two_ports() -> None:
    """RULES.md §2: the opening non-double [a|b] offers two ports, a and b."""
    hand = luzak_hand(SEAT0, SEAT1_NO_56)
    hand.apply(parse_move("65"))
    assert ports(hand) == {"1w": 6, "1e": 5}


def test_s2_later_non_double_has_one_port_its_outer_half() -> None:
    """RULES.md §2: a later non-double offers one port, its outer half."""
    steps = score_moves("luzak", "65 54@1e")
    table = TreeTable()
    for s in steps:
        assert isinstance(s.move, Play)
        table.place(s.move)
    assert {str(p): v for p, v in table.port_values().items()} == {"1w": 6, "2e": 4}


def test_s2_later_double_far_long_side_and_two_short_ends() -> None:
    """RULES.md §2: a later double touches with one long side and offers its far long
    side and both short ends, all of its value."""
    table = TreeTable()
    table.place(parse_move("65"))  # type: ignore[arg-type]
    table.place(parse_move("55@1e"))  # type: ignore[arg-type]
    assert {str(p): v for p, v in table.port_values().items()} == {
        "1w": 6, "2e": 5, "2n": 5, "2s": 5}


def test_s2_opening_double_has_four_ports() -> None:
    """RULES.md §2: an opening double has both long sides and both short ends free."""
    table = TreeTable()
    table.place(parse_move("33"))  # type: ignore[arg-type]
    assert {str(p): v for p, v in table.port_values().items()} == {
        "1w": 3, "1e": 3, "1n": 3, "1s": 3}


def test_s2_normal_play_must_match_the_port() -> None:
    """RULES.md §2: a normal play puts a tile on a port whose value equals one of its
    halves; that half touches and the other becomes the outer half."""
    hand = luzak_hand(SEAT0, "00 10 11 20 21 22 30 31 32 33 40 63")
    hand.apply(parse_move("65"))
    assert plays(hand.legal_moves()) == {"63@1w"}
    with pytest.raises(IllegalMoveError):
        hand.apply(parse_move("36@1w"))  # its 3 does not match port 1w (6)
    with pytest.raises(IllegalMoveError):
        hand.apply(parse_move("63@1e"))  # its 6 does not match port 1e (5)
    hand.apply(parse_move("63@1w"))
    assert ports(hand) == {"1e": 5, "2e": 3}


def test_s2_legal_normal_plays_are_exactly_the_matching_ones() -> None:
    """RULES.md §2: every matching (tile, half, port) is a legal normal play, nothing else."""
    for seed in range(30):
        match = Match("luzak", seed=seed)
        rng = random.Random(seed)
        while match.hand_number == 1:
            hand = match.hand
            assert isinstance(hand, LuzakHand)
            legal = set(hand.legal_moves())
            if hand.n:
                values = hand.table.port_values()
                normal = {(m.tile, m.inner, m.port) for m in legal
                          if isinstance(m, Play) and not m.luzak}
                expected = {(t, h, p) for t in hand.hands[hand.to_move] for h in t.halves
                            for p, v in values.items() if v == h}
                assert normal == expected
            moves = list(legal)
            match.apply(sorted(moves, key=str)[rng.randrange(len(moves))])


def test_s2_must_make_a_normal_play_if_one_exists() -> None:
    """RULES.md §2: a player who has a normal play must make one; no luzak then."""
    hand = luzak_hand(SEAT0, "00 10 11 20 21 22 30 31 32 33 40 62")
    hand.apply(parse_move("65"))
    assert plays(hand.legal_moves()) == {"62@1w"}
    with pytest.raises(IllegalMoveError, match="luzak is allowed only without a normal play"):
        hand.apply(parse_move("00@1e*"))
    with pytest.raises(IllegalMoveError):
        hand.apply(parse_move("00@1e"))


def test_s2_luzak_only_when_no_normal_play_anywhere() -> None:
    """RULES.md §2 Luzak: with no normal play, the player lays any tile on any free port,
    either half outward; every legal move is then a luzak."""
    hand = luzak_hand(SEAT0, SEAT1_NO_56)
    hand.apply(parse_move("65"))
    legal = hand.legal_moves()
    assert all(isinstance(m, Play) and m.luzak for m in legal)
    expected = {f"{h}{t.other(h)}@{p}*" for t in hand.hands[1] for h in t.halves
                for p in ("1w", "1e")}
    assert plays(legal) == expected
    assert len(legal) == 4 * 2 + 8 * 4


def test_s2_luzak_player_chooses_the_outer_half() -> None:
    """RULES.md §2: the luzak player chooses which half is outer."""
    a = luzak_hand(SEAT0, SEAT1_NO_56)
    a.apply(parse_move("65"))
    b = a.copy()
    a.apply(parse_move("12@1e*"))
    b.apply(parse_move("21@1e*"))
    assert ports(a) == {"1w": 6, "2e": 2}
    assert ports(b) == {"1w": 6, "2e": 1}


def test_s2_next_tile_on_a_luzak_must_match_its_outer_half() -> None:
    """RULES.md §2: a luzak then lies like a normal tile: the next tile on it must match
    its outer half."""
    hand = luzak_hand(SEAT0, SEAT1_NO_56)
    apply_all(hand, "65 12@1e*")
    legal = plays(hand.legal_moves())
    assert legal == {"60@1w", "61@1w", "24@2e", "25@2e"}
    with pytest.raises(IllegalMoveError):
        hand.apply(parse_move("15@2e"))  # 1 is the luzak's inner half, not its outer


def test_s2_a_luzak_may_follow_a_luzak() -> None:
    """RULES.md §2: the next tile on a luzak matches its outer half, or is another luzak."""
    steps = score_moves("luzak", "65 10@1e* 23@2e*")
    assert [s.count for s in steps] == [11, 6, 9]
    # seat 0 laid the luzak [3|2]: count 9 divisible by N=3 scores for seat 0, seat 1
    # gets its 5 pips
    assert steps[2].points == (9, 5)


def test_s2_a_double_luzak_is_a_spinner() -> None:
    """RULES.md §2: a double played as a luzak is a spinner like any double."""
    hand = luzak_hand(SEAT0, SEAT1_NO_56)
    apply_all(hand, "65 11@1e*")
    assert ports(hand) == {"1w": 6, "2e": 1, "2n": 1, "2s": 1}
    assert hand.table.count == 6 + 2
    assert hand.points == [11 + 2, 8]  # N=2 divides 8: seat 1 scores it; seat 0 gets 2 pips
    apply_all(hand, "61@1w")
    assert ports(hand) == {"2e": 1, "2n": 1, "2s": 1, "3e": 1}


def test_s2_count_double_at_arm_end_counts_twice() -> None:
    """RULES.md §2 table count: a double with a free long side gives twice its value,
    counted once ([6|6] 12, [0|0] 0)."""
    assert counts("66") == [12]
    assert counts("00") == [0]
    assert counts("65 55@1e") == [11, 6 + 10]
    assert counts("65 66@1w") == [11, 5 + 12]


def test_s2_count_free_short_end_counts_nothing() -> None:
    """RULES.md §2 table count: a free short end counts nothing."""
    assert counts("33") == [6]  # four free ports, counted once as 3+3
    assert counts("65 55@1e") == [11, 16]  # the short ends add nothing


def test_s2_count_arm_from_short_end_counts() -> None:
    """RULES.md §2 table count: a tile on a short end starts an arm; its end counts."""
    assert counts("33 36@1n") == [6, 12]
    assert counts("65 55@1e 54@2n") == [11, 16, 20]
    assert counts("33 36@1n 66@2e") == [6, 12, 18]


def test_s2_count_double_with_both_long_sides_taken_stops_counting() -> None:
    """RULES.md §2 table count: once both long sides of a double are taken, it no longer
    counts (a later double touches with one long side, so taking its far side stops it)."""
    assert counts("55 50@1w 53@1e") == [10, 10, 3]
    assert counts("65 55@1e 53@2e") == [11, 16, 9]
    assert counts("65 55@1e 53@2e 54@2n") == [11, 16, 9, 13]


def test_s2_count_incremental_equals_recount_on_examples() -> None:
    """RULES.md §2: the table count, computed from the placements alone, matches."""
    for moves in ("65 54@1e 64@1w 11@2e* 44@3e", "45 55@1w 52@2e 22@3e 26@4e",
                  "33 31@1w 30@1e 00@3e 36@1n 66@5e 32@1s", "55 50@1w 53@1e 56@1n"):
        steps = score_moves("luzak", moves)
        placed = [s.move for s in steps if isinstance(s.move, Play)]
        for i, s in enumerate(steps, start=1):
            assert TreeTable.recount(placed[:i]) == s.count


def test_s2_n_rule_scoring_to_the_player_who_placed_tile_n() -> None:
    """RULES.md §2 Scoring: after tile N, if the count is divisible by N, its player
    scores the count."""
    steps = score_moves("luzak", "45 55@1w 52@2e 22@3e 26@4e")
    assert [s.points for s in steps] == [(9, 0), (0, 14), (6, 0), (0, 8), (10, 0)]
    steps = score_moves("luzak", "65 54@1e 64@1w")
    assert steps[2].count == 8 and steps[2].points == (0, 0)  # 8 is not divisible by 3


def test_s2_count_zero_scores_nothing() -> None:
    """RULES.md §2 Scoring: a count of 0 scores nothing (0 is divisible by every N)."""
    steps = score_moves("luzak", "00 06@1e 05@1w")
    assert [s.count for s in steps] == [0, 6, 11]
    assert steps[0].points == (0, 0)
    steps = score_moves("luzak", "60 00@1e")  # 6 + [0+0] = 6, N=2: scores 6
    assert [s.points for s in steps] == [(6, 0), (0, 6)]
    hand = luzak_hand("00 10 20 30 40 50 60 11 21 31 41 51",
                      "61 22 32 42 52 62 33 43 53 63 44 54")
    hand.apply(parse_move("00"))
    assert hand.table.count == 0 and hand.points == [0, 0]


def test_s2_luzak_pips_go_to_the_opponent() -> None:
    """RULES.md §2 Scoring: when a player lays a luzak, the opponent scores its pips
    ([1|1] gives 2)."""
    steps = score_moves("luzak", "65 54@1e 64@1w 11@2e*")
    assert steps[3].seat == 1 and steps[3].points == (2, 0)
    hand = luzak_hand(SEAT0, SEAT1_NO_56)
    apply_all(hand, "65 13@1e*")  # count 6 + 3 = 9, N=2: no table score
    assert hand.points == [11 + 4, 0]


def test_s2_luzak_player_still_scores_the_n_rule_by_default() -> None:
    """RULES.md §2 Scoring [choice]: the luzak's own player still scores the count by the
    N rule (the opponent gets the pips as well)."""
    hand = luzak_hand(SEAT0, SEAT1_NO_56)
    apply_all(hand, "65 20@1e*")  # count 6 + 0 = 6, N=2
    assert hand.table.count == 6
    assert hand.points == [11 + 2, 6]


def test_s2_hand_ends_at_12_tiles_6_each_leftovers_score_nothing() -> None:
    """RULES.md §2 End of hand: 12 tiles on the table, 6 from each player; the tiles left
    in hand are not used and score nothing."""
    for seed in range(40):
        match = Match("luzak", LuzakOptions(target=10_000), seed=seed)
        rng = random.Random(seed)
        while match.hand_number == 1:
            legal = match.legal_moves()
            match.apply(legal[rng.randrange(len(legal))])
        hand = match.hands[0]
        assert hand.n == 12 and hand.is_over
        assert [s for s, _ in hand.moves].count(0) == 6
        assert len(hand.hands[0]) == len(hand.hands[1]) == 6
        steps = match.steps[0]
        assert hand.points == [sum(s.points[0] for s in steps), sum(s.points[1] for s in steps)]
        assert hand.result is not None and hand.result.end == "tiles"
        assert hand.result.points == (hand.points[0], hand.points[1])
        assert hand.legal_moves() == []
        with pytest.raises(GameOverError):
            hand.apply(hand.moves[0][1])


def test_s2_every_step_scores_by_the_n_rule_and_luzak_bonus() -> None:
    """RULES.md §2 Scoring, over random hands: each step's points are exactly the N rule's
    count for its player plus, for a luzak, its pips to the opponent."""
    for seed in range(40):
        match = random_match("luzak", LuzakOptions(target=40), seed,
                             rng_chooser(random.Random(seed)))
        for steps in match.steps:
            for s in steps:
                assert isinstance(s.move, Play) and s.count is not None
                gain = [0, 0]
                if s.count and s.count % s.n == 0:
                    gain[s.seat] += s.count
                if s.move.luzak:
                    gain[1 - s.seat] += s.move.tile.pips
                assert s.points == (gain[0], gain[1])


def first_reaching(match: Match) -> int:
    """The number of the first hand after which a total reached the target."""
    per_hand = [h.points for h in match.hands]
    totals0 = list(accumulate(p[0] for p in per_hand))
    totals1 = list(accumulate(p[1] for p in per_hand))
    target = match.options.target
    return next(i for i, (a, b) in enumerate(zip(totals0, totals1, strict=True), start=1)
                if a >= target or b >= target)


@pytest.mark.parametrize("target", [20, 61, 100])
def test_s2_match_to_target_hand_played_out_even_number_of_hands(target: int) -> None:
    """RULES.md §2 Match: hands are played until a player reaches the target; the hand in
    progress is played out; the match always has an even number of hands."""
    odd = 0
    for seed in range(15):
        match = random_match("luzak", LuzakOptions(target=target), seed,
                             rng_chooser(random.Random(seed)))
        assert match.result is not None
        assert all(h.n == 12 and h.result is not None for h in match.hands)
        m = first_reaching(match)
        odd += m % 2
        assert len(match.hands) == (m if m % 2 == 0 else m + 1)
        assert len(match.hands) % 2 == 0 and match.result.hands == len(match.hands)
        assert max(match.totals) >= target
        assert match.result.end == "target"
    assert odd > 0, "no match reached the target in an odd hand"


def test_s2_default_target_is_61() -> None:
    """RULES.md §2 Match: the target is 61 points."""
    assert LuzakOptions().target == 61
    match = random_match("luzak", LuzakOptions(), 1, rng_chooser(random.Random(1)))
    assert max(match.totals) >= 61


def test_s2_higher_total_wins_equal_totals_draw() -> None:
    """RULES.md §2 Match: the higher total wins; equal totals are a draw."""
    draws = 0
    for seed in range(400):
        match = random_match("luzak", LuzakOptions(target=12), seed,
                             rng_chooser(random.Random(seed)))
        assert match.result is not None
        a, b = match.totals
        assert match.result.totals == (a, b)
        assert match.result.winner == (0 if a > b else 1 if b > a else None)
        draws += a == b
    assert draws > 0, "no drawn match found to check"


def test_s2_luzak_on_any_free_port_including_short_ends() -> None:
    """RULES.md §2 Luzak: any free port, a spinner's short ends included (default)."""
    hand = luzak_hand("55 42 43 44 50 51 52 53 54 65 60 61", SEAT1_NO_56)
    hand.apply(parse_move("55"))
    assert {str(m.port) for m in hand.legal_moves() if isinstance(m, Play)} == {
        "1w", "1e", "1n", "1s"}


def test_s2_luzak_marked_as_luzak_cannot_match() -> None:
    """RULES.md §2: a tile that matches a port is no luzak there."""
    table = TreeTable()
    table.place(parse_move("65"))  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError):
        table.check(parse_move("51@1e*"))  # type: ignore[arg-type]
    assert Port.parse("1e") in table.free_ports()
    assert T("51").has(5)
