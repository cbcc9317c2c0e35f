"""RULES.md section 5: every rule option, both values, changes behaviour as specified."""

from __future__ import annotations

import random
from itertools import accumulate

import pytest

from conftest import (
    GAME_NAMES,
    T,
    apply_all,
    luzak_hand,
    plays,
    random_match,
    rng_chooser,
    widelec_hand,
)
from dominolab.core import (
    KEEP,
    LuzakLineOptions,
    LuzakOptions,
    Match,
    OptionError,
    Play,
    TreeTable,
    WidelecOptions,
    get_game,
    parse_move,
    score_moves,
)

SEAT1_NO_56 = "00 10 11 20 21 22 30 31 32 33 40 41"
NO_SHORT = LuzakOptions(short_ends_any_time=False)


def port_map(table: TreeTable) -> dict[str, int]:
    return {str(p): v for p, v in table.port_values().items()}


def laid(moves: str, short_any: bool) -> TreeTable:
    table = TreeTable(short_any)
    for text in moves.split():
        mv = parse_move(text)
        assert isinstance(mv, Play)
        table.check(mv)
        table.place(mv)
    return table


def test_s5_defaults_are_as_in_the_table() -> None:
    """RULES.md §5: the defaults of every option."""
    assert LuzakOptions().to_dict() == {"target": 61, "short_ends_any_time": True,
                                        "luzak_scores_count": True, "even_hands": True}
    assert LuzakLineOptions().to_dict() == {"target": 61, "even_hands": True}
    assert WidelecOptions().to_dict() == {"target": 61, "edge_double": True,
                                          "must_play_drawn": True, "win_at_once": True}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_s5_options_parse_round_trip_and_reject_unknown(game: str) -> None:
    """RULES.md §5: options are named in code and in the record (and so parse back)."""
    cls = get_game(game).options_class
    for name, default, _help in cls.describe():
        value = "no" if default == "yes" else "yes" if default == "no" else "33"
        opts = cls.parse([f"{name}={value}"])
        assert cls.from_dict(opts.to_dict()) == opts
        assert opts != cls()
    with pytest.raises(OptionError):
        cls.parse(["no-such-option=1"])
    with pytest.raises(OptionError):
        cls.from_dict({"bogus": 1})
    with pytest.raises(OptionError):
        cls.parse(["target=many"])
    with pytest.raises(OptionError):
        cls(target=0)


def test_s5_short_ends_any_time_yes_opening_double_four_ports() -> None:
    """RULES.md §5 short ends open at any time (default): an opening double offers 4 ports,
    a later double 3."""
    assert port_map(laid("33", True)) == {"1w": 3, "1e": 3, "1n": 3, "1s": 3}
    assert port_map(laid("63 33@1e", True)) == {"1w": 6, "2e": 3, "2n": 3, "2s": 3}


def test_s5_short_ends_only_after_long_sides_opening_double() -> None:
    """RULES.md §5 short ends only after both long sides (option off): an opening double
    offers its long sides, then its short ends once both are taken."""
    assert port_map(laid("33", False)) == {"1w": 3, "1e": 3}
    assert port_map(laid("33 31@1w", False)) == {"1e": 3, "2e": 1}
    assert port_map(laid("33 31@1w 32@1e", False)) == {"1n": 3, "1s": 3, "2e": 1, "3e": 2}


def test_s5_short_ends_only_after_long_sides_later_double() -> None:
    """RULES.md §2/§5: a later double's short ends open once its far long side is taken,
    since it touches with the other."""
    table = laid("63 33@1e", False)
    assert port_map(table) == {"1w": 6, "2e": 3}
    table = laid("63 33@1e 34@2e", False)
    assert port_map(table) == {"1w": 6, "2n": 3, "2s": 3, "3e": 4}
    with pytest.raises(Exception, match="not free"):
        laid("63 33@1e 35@2n", False)


def test_s5_short_ends_closed_are_not_ports_for_a_luzak_either() -> None:
    """RULES.md §2/§5: until they open, short ends are not ports at all, for a luzak either."""
    for short_any, expected in ((True, {"1w", "1e", "1n", "1s"}), (False, {"1w", "1e"})):
        hand = luzak_hand("55 42 43 44 50 51 52 53 54 65 60 61", SEAT1_NO_56,
                          options=LuzakOptions(short_ends_any_time=short_any))
        hand.apply(parse_move("55"))
        legal = hand.legal_moves()
        assert all(isinstance(m, Play) and m.luzak for m in legal)
        assert {str(m.port) for m in legal if isinstance(m, Play)} == expected


def test_s5_short_ends_option_counts_unchanged_by_opening() -> None:
    """RULES.md §2/§5: opening a double's short ends adds nothing to the count; the worked
    examples that use short ends (after both long sides) hold under both values."""
    for opts in (LuzakOptions(), NO_SHORT):
        assert [s.count for s in score_moves(
            "luzak", "33 31@1w 30@1e 00@3e 36@1n 66@5e 32@1s", opts)] == [6, 7, 1, 1, 7, 13, 15]
        assert [s.count for s in score_moves("luzak", "33 32@1w 30@1e 31@1n 36@1s 61@5e",
                                             opts)] == [6, 8, 2, 3, 9, 4]
        assert [s.count for s in score_moves("luzak", "55 50@1w 53@1e 56@1n", opts)] == [
            10, 10, 3, 9]
    table = laid("63 33@1e", False)
    before = table.count
    table.place(parse_move("34@2e"))  # type: ignore[arg-type]
    assert table.count == before - 6 + 4  # the double stops counting; short ends add 0
    assert TreeTable.recount(table.placements) == table.count


def test_s5_short_ends_option_in_a_hand_and_scripted() -> None:
    """RULES.md §5: the option reaches hands and scripted positions."""
    with pytest.raises(Exception, match="not"):
        score_moves("luzak", "33 31@1n", NO_SHORT)
    assert score_moves("luzak", "33 31@1n")[1].count == 6 + 1


def test_s5_luzak_scores_count_no() -> None:
    """RULES.md §2/§5 luzak's player scores the N rule = no: nobody scores the count of a
    luzak; the opponent still gets its pips."""
    seat0 = "65 42 43 44 50 51 52 53 54 55 60 61"
    for flag, seat1_points in ((True, 6), (False, 0)):
        hand = luzak_hand(seat0, SEAT1_NO_56, options=LuzakOptions(luzak_scores_count=flag))
        apply_all(hand, "65 20@1e*")  # count 6, N=2
        assert hand.points == [11 + 2, seat1_points]
    steps = score_moves("luzak", "65 20@1e*", LuzakOptions(luzak_scores_count=False))
    assert steps[1].points == (2, 0)
    # normal plays still score as usual
    steps = score_moves("luzak", "65 54@1e", LuzakOptions(luzak_scores_count=False))
    assert steps[1].points == (0, 10)


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("target", [1, 25, 61])
def test_s5_target_any_positive_number(game: str, target: int) -> None:
    """RULES.md §5 target: 61 by default, any positive number."""
    cls = get_game(game).options_class
    for seed in range(4):
        match = random_match(game, cls(target=target), seed, rng_chooser(random.Random(seed)))
        assert max(match.totals) >= target
        totals0 = list(accumulate(h.points[0] for h in match.hands))
        totals1 = list(accumulate(h.points[1] for h in match.hands))
        # no hand before the last two (one, without even hands) reached the target
        reach = [max(a, b) >= target for a, b in zip(totals0, totals1, strict=True)]
        assert reach[-1]
        assert not any(reach[:-2])


@pytest.mark.parametrize("game", ["luzak", "luzak-line"])
def test_s5_even_hands(game: str) -> None:
    """RULES.md §5 even number of hands: yes (default) plays one more hand after an odd
    one that reached the target; no stops after the hand that reached it."""
    cls = get_game(game).options_class
    odd_seen = 0
    for seed in range(40):
        results = {}
        for even in (True, False):
            opts = cls.from_dict({"target": 30, "even_hands": even})
            match = random_match(game, opts, seed, rng_chooser(random.Random(seed)))
            totals0 = list(accumulate(h.points[0] for h in match.hands))
            totals1 = list(accumulate(h.points[1] for h in match.hands))
            first = next(i for i, (a, b) in enumerate(zip(totals0, totals1, strict=True), 1)
                         if max(a, b) >= 30)
            results[even] = (first, len(match.hands))
            if even:
                assert len(match.hands) == first + first % 2
            else:
                assert len(match.hands) == first
            assert match.result is not None
            a, b = match.totals
            assert match.result.winner == (0 if a > b else 1 if b > a else None)
        odd_seen += results[False][1] % 2
    assert odd_seen > 0


def test_s5_edge_double_no() -> None:
    """RULES.md §4/§5 edge double = no: only d-1, d, d, d+1; doubles pairs unaffected."""
    off = WidelecOptions(edge_double=False)
    assert score_moves("widelec", "60 01@R 66@L")[-1].points == (13, 0)
    assert score_moves("widelec", "60 01@R 66@L", off)[-1].points == (0, 0)
    assert score_moves("widelec", "60 05@R 66@L", off)[-1].points == (17, 0)
    from dominolab.core import best_quartets, quartet_worth

    assert quartet_worth(T("66"), T("01"), False) == 0
    assert quartet_worth(T("33"), T("44"), False) == 14
    assert best_quartets([T("66"), T("01")], False) == (0, ())
    assert best_quartets([T("66"), T("01")], True)[0] == 13


def test_s5_edge_double_in_a_hand() -> None:
    """RULES.md §5: the edge option reaches hands (scoring in play)."""
    for edge, worth in ((True, 13), (False, 0)):
        hand = widelec_hand("01 66 22 33 44 55 21", "60 50 40 30 31 32 41",
                            options=WidelecOptions(edge_double=edge))
        apply_all(hand, "01 06@R 66@R")  # ends [1|0] and [6|6]: 6601
        assert hand.points == [worth, 0]


def test_s5_must_play_drawn_no_gives_keep() -> None:
    """RULES.md §4/§5 a drawn playable tile may be kept (option off): `keep` ends the turn."""
    seat0 = "66 65 64 63 62 33 44"
    seat1 = "00 10 11 20 21 22 30"
    for must, expected in ((True, {"60@L", "60@R"}), (False, {"60@L", "60@R", "keep"})):
        hand = widelec_hand(seat0, seat1, rest_first="60",
                            options=WidelecOptions(must_play_drawn=must))
        apply_all(hand, "66 draw")
        assert plays(hand.legal_moves()) == expected
        if not must:
            hand.apply(KEEP)
            assert hand.to_move == 0 and T("60") in hand.hands[1]
            assert hand.moves[-1] == (1, KEEP)
        else:
            with pytest.raises(Exception, match="not legal"):
                hand.apply(KEEP)


def test_s5_win_at_once_no_plays_the_hand_out_higher_total_wins() -> None:
    """RULES.md §4/§5 reaching the target = hand played out: the hand in progress ends
    normally and the higher total wins (not necessarily who reached the target first)."""
    for seed in range(40):
        match = random_match("widelec", WidelecOptions(target=30, win_at_once=False), seed,
                             rng_chooser(random.Random(seed)))
        r = match.result
        assert r is not None and r.end == "target"
        last = match.hands[-1]
        assert last.result is not None and last.result.end in ("domino", "block")
        a, b = match.totals
        assert max(a, b) >= 30
        assert r.winner == (0 if a > b else 1 if b > a else None)
        before = [sum(h.points[s] for h in match.hands[:-1]) for s in (0, 1)]
        assert max(before) < 30


def test_s5_win_at_once_yes_and_no_differ() -> None:
    """RULES.md §5: the same seed and moves end at once with the option on, and play the
    hand out with it off (a game where the target is reached mid-hand)."""
    differ = 0
    for seed in range(40):
        on = random_match("widelec", WidelecOptions(target=30), seed,
                          rng_chooser(random.Random(seed)))
        assert on.result is not None
        if on.hands[-1].result is not None and on.hands[-1].result.end == "target":
            off = Match("widelec", WidelecOptions(target=30, win_at_once=False), seed=seed)
            for hand in on.hands:
                for _, mv in hand.moves:
                    off.apply(mv)
            assert not off.is_over and off.hand_number == on.hand_number
            differ += 1
    assert differ > 0


def test_s5_options_are_type_checked() -> None:
    """RULES.md §5: a flag takes yes or no; the target a positive whole number."""
    with pytest.raises(OptionError):
        LuzakOptions(short_ends_any_time=1)  # type: ignore[arg-type]
    with pytest.raises(OptionError):
        WidelecOptions(target=True)
    with pytest.raises(OptionError):
        LuzakOptions.parse(["even-hands=maybe"])
    assert LuzakOptions.parse(["short_ends_any_time=off"]) == NO_SHORT
    with pytest.raises(OptionError):
        Match("luzak", WidelecOptions(), seed=1)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_s5_target_is_bounded_everywhere(game: str) -> None:
    """The target is 1..10,000 however it is given (text, record dict, constructor); a value
    outside names the option, the value and the range, and a huge one is never written out."""
    cls = get_game(game).options_class
    assert cls.ranges() == {"target": (1, 10_000)}
    assert cls.parse(["target=10000"]).target == 10_000
    assert cls.parse(["target=1"]).target == 1
    huge = "9" * 4000
    for bad in ("10001", "0", "-3", huge):
        with pytest.raises(OptionError) as info:
            cls.parse([f"target={bad}"])
        message = str(info.value)
        assert "target" in message and "1 to 10000" in message and len(message) < 200
    for value in (10_001, 0, 10**5000, -(10**40)):
        with pytest.raises(OptionError) as info:
            cls.from_dict({"target": value})
        assert "1 to 10000" in str(info.value) and len(str(info.value)) < 200
    with pytest.raises(OptionError):
        cls(target=10**300)


@pytest.mark.parametrize("text", ["\u0666\u0665", "\uff16\uff15", "6\u00b9", "5_0", "1e3",
                                  "61.0", "", "0x3d", "\u212a"])
def test_s5_option_values_are_plain_digits_or_words(text: str) -> None:
    """``int`` reads Arabic-Indic and fullwidth digits and underscores; an option does not."""
    for game in GAME_NAMES:
        with pytest.raises(OptionError) as info:
            get_game(game).options([f"target={text}"])
        assert "whole number from 1 to 10000" in str(info.value)
    with pytest.raises(OptionError, match="yes or no"):
        get_game("luzak").options([f"even-hands={text or 'maybe'}"])


@pytest.mark.parametrize("data", [[1], "target=5", 61, {"target": 1.5}, {"target": "61"},
                                  {"target": [[[[[61]]]]]}, {"target": True},
                                  {1: 2}, {"x" * 10_000: 1}, {str(i): i for i in range(50)},
                                  {"even_hands": 1}])
def test_s5_from_dict_rejects_wrong_shapes_with_short_messages(data: object) -> None:
    """Options from a record or a request: any wrong shape is an OptionError, short."""
    with pytest.raises(OptionError) as info:
        LuzakOptions.from_dict(data)  # type: ignore[arg-type]
    assert len(str(info.value)) < 300


def test_s5_describe_shows_the_range() -> None:
    """`dominolab games` and the web app's option list show a number option's range."""
    for spec_name in GAME_NAMES:
        described = dict((n, h) for n, _d, h in get_game(spec_name).options_class.describe())
        assert described["target"].endswith("(1 to 10000)")
