"""RULES.md section 1: the set, seats and openers, seeded determinism, distinct ports."""

from __future__ import annotations

import hashlib
import random
from itertools import pairwise

import pytest

from conftest import (
    GAME_NAMES,
    T,
    default_options,
    line_hand,
    luzak_hand,
    make_deal,
    random_match,
    rng_chooser,
    widelec_hand,
)
from dominolab.core import (
    GAMES,
    TILES,
    Deal,
    LuzakLineOptions,
    LuzakOptions,
    Match,
    Play,
    Tile,
    WidelecOptions,
    first_opener_by_lot,
    get_game,
    match_record,
    parse_move,
)


def test_s1_set_has_28_distinct_tiles_pips_0_to_6() -> None:
    """RULES.md §1: a double-six set, 28 tiles [a|b], pips 0..6, each pair once."""
    assert len(TILES) == 28
    assert len(set(TILES)) == 28
    pairs = {(t.hi, t.lo) for t in TILES}
    assert pairs == {(a, b) for a in range(7) for b in range(a + 1)}
    assert sum(t.is_double for t in TILES) == 7
    assert all(t.pips == t.hi + t.lo for t in TILES)
    assert sum(t.pips for t in TILES) == 168


def test_s1_tile_a_b_is_tile_b_a() -> None:
    """RULES.md §1: [a|b] and [b|a] are the same tile."""
    for a in range(7):
        for b in range(7):
            assert Tile(a, b) is Tile(b, a)
            assert Tile(a, b) == Tile(b, a)
            assert hash(Tile(a, b)) == hash(Tile(b, a))
    assert T("56") is T("65") is T("[5|6]") is T("6-5")


def test_s1_double_and_pips() -> None:
    """RULES.md §1: a double is [d|d]; a tile's pips are a+b."""
    assert T("44").is_double and not T("45").is_double
    assert T("64").pips == 10 and T("00").pips == 0


@pytest.mark.parametrize("game", GAME_NAMES)
def test_s1_openers_alternate_hand_by_hand(game: str) -> None:
    """RULES.md §1: the first opener is chosen by lot, then the opener alternates."""
    for seed in range(6):
        match = random_match(game, get_game(game).options_class(target=40), seed,
                             rng_chooser(random.Random(seed)))
        assert match.first_opener == first_opener_by_lot(seed)
        openers = [h.opener for h in match.hands]
        assert openers[0] == match.first_opener
        assert all(a != b for a, b in pairwise(openers))
        for hand in match.hands:
            assert hand.moves[0][0] == hand.opener


def test_s1_lot_gives_both_seats() -> None:
    """RULES.md §1: the opener of the first hand is chosen by lot (both seats occur)."""
    assert {first_opener_by_lot(s) for s in range(40)} == {0, 1}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_s1_players_alternate_turns_starting_with_opener(game: str) -> None:
    """RULES.md §1: in a hand, players alternate turns starting with the opener (a drawn
    playable tile in Widelec is still the same turn)."""
    for opener in (0, 1):
        spec = get_game(game)
        hand = spec.hand_class(Deal.for_hand(7, 1, spec.hand_size), opener,
                               spec.options_class())
        assert hand.to_move == opener
        rng = random.Random(opener)
        previous_seat = None
        pending_turn = False
        while not hand.is_over:
            seat = hand.to_move
            if previous_seat is not None and not pending_turn:
                assert seat == 1 - previous_seat
            legal = hand.legal_moves()
            move = legal[rng.randrange(len(legal))]
            hand.apply(move)
            pending_turn = hand.to_move == seat and not hand.is_over
            previous_seat = seat


@pytest.mark.parametrize("game", GAME_NAMES)
def test_s1_opener_may_lead_any_tile(game: str) -> None:
    """RULES.md §1: the opener may lead any tile of their hand."""
    spec = get_game(game)
    for seed in range(5):
        deal = Deal.for_hand(seed, 1, spec.hand_size)
        for opener in (0, 1):
            hand = spec.hand_class(deal, opener, spec.options_class())
            legal = hand.legal_moves()
            assert [m.tile for m in legal if isinstance(m, Play)] == list(deal.hands[opener])
            assert all(isinstance(m, Play) and m.port is None for m in legal)
            for move in legal:
                copy = hand.copy()
                copy.apply(move)
                assert copy.n == 1


@pytest.mark.parametrize("game", GAME_NAMES)
def test_s1_same_seed_same_deals_and_game(game: str) -> None:
    """RULES.md §1: the same seed and the same moves give the same game."""
    for seed in (0, 1, 12345):
        opts = default_options(game)
        a = random_match(game, opts, seed, rng_chooser(random.Random(99)))
        b = random_match(game, opts, seed, rng_chooser(random.Random(99)))
        assert match_record(a) == match_record(b)
        assert [h.deal for h in a.hands] == [h.deal for h in b.hands]
        spec = get_game(game)
        assert Deal.for_hand(seed, 3, spec.hand_size) == Deal.for_hand(seed, 3, spec.hand_size)
    assert Deal.for_hand(1, 1, 12) != Deal.for_hand(2, 1, 12)
    assert Deal.for_hand(1, 1, 12) != Deal.for_hand(1, 2, 12)


def test_s1_seeded_deals_are_machine_independent_golden() -> None:
    """RULES.md §1: shuffling comes from a seeded generator, the same on any machine.
    Pinned digest of the first deals of seeds 0..9 (changing it changes every record)."""
    text = []
    for seed in range(10):
        text.append(str(first_opener_by_lot(seed)))
        for size in (7, 12):
            deal = Deal.for_hand(seed, 1, size)
            text.append(" ".join(str(t) for part in (*deal.hands, deal.rest) for t in part))
    digest = hashlib.sha256("\n".join(text).encode()).hexdigest()
    assert digest == GOLDEN_DEALS


GOLDEN_DEALS = "9973453565f77321d8f71edb0bdae37c80f603a734dd022a1a39ef04542df97d"


@pytest.mark.parametrize("game", GAME_NAMES)
def test_s1_deal_sizes(game: str) -> None:
    """RULES.md §1/§2/§4: every tile once per deal; hand sizes per game."""
    spec = get_game(game)
    for seed in range(20):
        deal = Deal.for_hand(seed, 1, spec.hand_size)
        assert len(deal.hands[0]) == len(deal.hands[1]) == spec.hand_size
        assert sorted([*deal.hands[0], *deal.hands[1], *deal.rest]) == list(TILES)


def test_s1_distinct_ports_spinner_short_ends() -> None:
    """RULES.md §1: a spinner's two short ends are different ports of equal value; the
    player chooses and the record says which."""
    hand = luzak_hand("33 31 32 35 36 30 11 22 44 55 66 00",
                      "43 41 42 40 51 52 54 61 62 64 65 50")
    hand.apply(parse_move("33"))
    legal = {str(m) for m in hand.legal_moves()}
    assert {"34@1w", "34@1e", "34@1n", "34@1s"} <= legal
    a, b = hand.copy(), hand.copy()
    a.apply(parse_move("34@1n"))
    b.apply(parse_move("34@1s"))
    assert a.table_placements != b.table_placements
    assert a.table.count == b.table.count
    assert a.table.free_ports() != b.table.free_ports()


def test_s1_distinct_ports_lone_opening_double_long_sides() -> None:
    """RULES.md §1: the two long sides of a lone opening double are different ports."""
    hand = luzak_hand("33 31 32 35 36 30 11 22 44 55 66 00",
                      "43 41 42 40 51 52 54 61 62 64 65 50",
                      options=LuzakOptions(short_ends_any_time=False))
    hand.apply(parse_move("33"))
    assert {str(m) for m in hand.legal_moves() if isinstance(m, Play) and m.tile == T("43")} \
        == {"34@1w", "34@1e"}


def test_s1_distinct_ports_line_opening_double_left_right() -> None:
    """RULES.md §1: a line's opening double offers L and R, different ends of equal value."""
    hand = line_hand("33 31 32 35 36 30 11 22 44 55 66 00",
                     "43 41 42 40 51 52 54 61 62 64 65 50")
    hand.apply(parse_move("33"))
    assert {str(m) for m in hand.legal_moves() if isinstance(m, Play) and m.tile == T("43")} \
        == {"34@L", "34@R"}
    w = widelec_hand("33 31 32 35 36 30 11", "43 41 42 40 51 52 54")
    w.apply(parse_move("33"))
    assert {"34@L", "34@R"} <= {str(m) for m in w.legal_moves()}
    a, b = w.copy(), w.copy()
    a.apply(parse_move("34@L"))
    b.apply(parse_move("34@R"))
    assert a.table.end_values != b.table.end_values


def test_s1_game_registry_names_and_aliases() -> None:
    """RULES.md §3/§4: Luzak without spinners is luzak-line; Widelec is also Kwartety."""
    assert set(GAMES) == {"luzak", "luzak-line", "widelec"}
    assert get_game("kwartety") is get_game("widelec")
    assert get_game("Widelec").options_class is WidelecOptions
    assert get_game("luzak-line").options_class is LuzakLineOptions
    assert get_game("luzak").hand_size == 12 and get_game("widelec").hand_size == 7


def test_s1_make_deal_helper_is_a_partition() -> None:
    """RULES.md §1: a hand-built deal still holds each tile once."""
    deal = make_deal("65 54", "11 44", "00")
    assert deal.rest[0] == T("00")
    with pytest.raises(ValueError):
        Deal(hands=((T("65"),), (T("65"),)), rest=tuple(TILES))


def test_s1_match_alternates_openers_from_first_opener() -> None:
    """RULES.md §1: with deals given, the first opener is the one named, then alternate."""
    deals = [Deal.for_hand(5, i, 12) for i in (1, 2, 3)]
    match = Match("luzak", LuzakOptions(target=1000), deals=deals, first_opener=1)
    assert match.hand.opener == 1
    rng = random.Random(0)
    while match.hand_number == 1:
        legal = match.legal_moves()
        match.apply(legal[rng.randrange(len(legal))])
    assert match.hand.opener == 0


def test_s1_match_with_given_deals_ends_when_they_run_out() -> None:
    """RULES.md §1/§2 match flow: a match played on given deals (a record's, an arena's)
    ends cleanly, higher total winning, when its deals run out before the target."""
    from dominolab.core import Deal, LuzakOptions, Match

    deals = [Deal.for_hand(5, 1, 12)]
    match = Match("luzak", LuzakOptions(target=500), deals=deals, first_opener=0)
    while not match.is_over:
        match.apply(match.legal_moves()[0])
    assert match.result is not None
    assert match.result.end == "deals"
    assert match.result.hands == 1
    assert match.legal_moves() == []
    t0, t1 = match.totals
    assert match.result.winner == (0 if t0 > t1 else 1 if t1 > t0 else None)
