"""The native fast path agrees with the reference rules (issue: "the C engine must reproduce
dominolab.core exactly, the order of the legal moves included").

The Python core is the statement of the rules; the extension (src/dominolab/native/csrc) is a
copy made for speed. Whole matches of every game under every set of rule options are played
through the core with a native state beside each hand, and at every move the two must
agree on everything a player or the search could notice: the legal moves in order, what
each would score, what the move scored, the table, the turn, the drawn tile and the end.
The greedy player, the search's playout and the end-of-hand quartets are checked against
their Python statements the same way, and the benchmark's random hands are replayed
through the checked reference. Bad input must be a ValueError, never a crash.

Skipped only when the extension is not built (or turned off with DOMINOLAB_PURE=1).
"""

from __future__ import annotations

import dataclasses
import random
from contextlib import suppress
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import COMBO_IDS, COMBOS, GAME_NAMES, option_sets, played_out
from dominolab import native
from dominolab.core import (
    GAMES,
    PASS,
    TILES,
    Deal,
    Hand,
    InvalidMoveError,
    Match,
    Options,
    Play,
    Tile,
    best_quartets,
    get_game,
    play,
)
from dominolab.core.worlds import hand_from_view
from dominolab.native import code_of

if not native.enabled():
    pytest.skip(f"the native fast path is not in use: {native.status()}",
                allow_module_level=True)

from dominolab.native._engine import State
from dominolab.native.check import check_hands, replay_record
from dominolab.players.greedy import GreedyPlayer
from dominolab.players.search import greedy_playout

#: the engine's END_* numbers, by HandResult.end
ENDS = {"tiles": 1, "domino": 2, "block": 3}


def mask(tiles: Any) -> int:
    return native.mask_of(tiles)


def assert_same_position(hand: Hand[Any], state: State, where: str) -> None:
    """Everything public or private about a hand in progress, on both sides."""
    assert state.to_move == hand.to_move, where
    assert state.points == tuple(hand.points), where
    assert state.hands == (mask(hand.hands[0]), mask(hand.hands[1])), where
    assert state.n == hand.n, where
    assert list(state.table) == [p.tile.index for p in hand.table_placements], where
    spec = get_game(hand.GAME)
    if spec.has_count:
        assert state.count == hand.table.count, where
    if spec.table == "line" and hand.n:
        assert state.ends == tuple(t.index for t in hand.table.end_tiles), where  # type: ignore[union-attr]
    if spec.has_boneyard:
        assert list(state.boneyard) == [t.index for t in reversed(hand.boneyard)], where  # type: ignore[attr-defined]
        assert state.passes == hand.passes, where  # type: ignore[attr-defined]
    assert state.pending == (-1 if hand.pending is None else hand.pending.index), where


def play_match_side_by_side(game: str, options: Options, seed: int, walk: int) -> int:
    """A whole match through the core (checked ``Match.apply``) with a native state made for
    each hand and driven with the same moves; every difference fails. Returns the moves."""
    rng = random.Random(walk)
    match = Match(game, options, seed=seed)
    banked = [0, 0]
    moves = 0
    while True:
        hand = match.hand
        state = native.state_of_hand(hand)
        where = f"{game} {options} seed {seed} walk {walk} hand {match.hand_number}"
        assert state.opener == hand.opener
        assert_same_position(hand, state, where)
        while hand.result is None:
            at = f"{where} move {len(hand.moves) + 1}"
            legal = hand.legal_moves()
            codes = [code_of(m) for m in legal]
            assert state.legal() == codes, at
            assert [state.points_of(c) for c in codes] == [hand.points_of(m) for m in legal], at
            move = legal[rng.randrange(len(legal))]
            step = match.apply(move)
            assert state.apply(code_of(move)) == step.points, at
            moves += 1
            if hand.result is None:
                assert_same_position(hand, state, at)
        result = hand.result
        if result.end == "target":  # Widelec's win at once: the match cut the hand short
            assert not state.over and state.points == result.points, where
        else:
            assert state.over, where
            assert (state.end, state.winner, state.bonus, state.points) == (
                ENDS[result.end], -1 if result.winner is None else result.winner,
                result.bonus, result.points), where
        banked[0] += state.points[0]
        banked[1] += state.points[1]
        if match.result is not None:
            assert match.result.totals == tuple(banked), where
            return moves


@pytest.mark.parametrize(("game", "options"), COMBOS, ids=COMBO_IDS)
@settings(max_examples=40, deadline=None, derandomize=True)
@given(target=st.sampled_from([1, 17, 61, 150]), seed=st.integers(0, 2**31),
       walk=st.integers(0, 2**31))
def test_matches_agree_move_by_move(game: str, options: Options, target: int, seed: int,
                                    walk: int) -> None:
    """Random whole matches of every game and option set, at a few targets (1 ends at the
    first points: Widelec's win at once cuts a hand): at every move the legal moves in
    order, the points of each, the points applied, the table, the turn, the drawn tile and
    the passes; at each hand's end how it ended, its winner, bonus and points; the totals."""
    play_match_side_by_side(game, dataclasses.replace(options, target=target), seed, walk)


def test_many_legal_moves() -> None:
    """More legal moves than the first guess at MV_MAX (64): an opening spinner's four ports
    and twelve tiles without its value make 96 luzaks, each listed in order."""
    zero = TILES[0]
    no_zero = [t for t in TILES if 0 not in (t.hi, t.lo) and not t.is_double]
    seat1 = no_zero[:12]
    seat0 = [zero, *[t for t in TILES if t is not zero and t not in seat1][:11]]
    spec = get_game("luzak")
    rest = tuple(t for t in TILES if t not in seat0 and t not in seat1)
    hand = spec.hand_class(Deal((tuple(seat0), tuple(seat1)), rest), 0, spec.options_class())
    hand.apply(play(zero, 0, None))
    legal = hand.legal_moves()
    assert len(legal) == 96 and all(isinstance(m, Play) and m.luzak for m in legal)
    assert native.state_of_hand(hand).legal() == [code_of(m) for m in legal]


@pytest.mark.parametrize(("game", "options"), COMBOS, ids=COMBO_IDS)
def test_greedy_choice_matches_the_player(game: str, options: Options) -> None:
    """The native greedy choice is GreedyPlayer's (players/greedy.py, run on the pure-Python
    path) at every position of a few random matches: the same move, ties included."""
    player = GreedyPlayer()
    positions = 0
    for seed in range(2):
        rng = random.Random(seed)
        match = Match(game, dataclasses.replace(options, target=40), seed=seed)
        while not match.is_over:
            seat = match.to_move
            assert seat is not None
            view = match.view(seat)
            with native.pure():
                expected = player.choose(view)
            assert native.greedy_choice(view) == expected, (game, options, seed, view.history)
            positions += 1
            legal = match.legal_moves()
            match.apply(expected if rng.random() < 0.5 else legal[rng.randrange(len(legal))])
    assert positions > 20


@pytest.mark.parametrize("game", GAME_NAMES)
def test_greedy_moves_are_greedy_self_play(game: str) -> None:
    """``greedy_moves`` plays the rest of a hand (from its start or from the middle) exactly
    as two GreedyPlayers would, and leaves the hand itself untouched."""
    player = GreedyPlayer()
    spec = get_game(game)
    for seed in range(6):
        rng = random.Random(seed)
        match = Match(game, spec.options_class(), seed=seed)
        for _ in range(rng.randrange(8)):
            legal = match.legal_moves()
            match.apply(legal[rng.randrange(len(legal))])
        hand = match.hand
        before = (len(hand.moves), tuple(hand.points))
        moves = native.greedy_moves(hand)
        assert (len(hand.moves), tuple(hand.points)) == before
        assert moves == played_out(hand, player)


@pytest.mark.parametrize(("game", "options"), COMBOS, ids=COMBO_IDS)
def test_greedy_playout_matches_the_search(game: str, options: Options) -> None:
    """``State.greedy_playout`` is players.search.greedy_playout: from random positions the
    same final points and end, and with ``need`` the same stop (Widelec's win at once)."""
    spec = get_game(game)
    rng = random.Random(len(str(options)))
    for seed in range(8):
        hand = spec.hand_class(Deal.shuffle(rng, spec.hand_size), seed & 1, options)
        for _ in range(rng.randrange(10)):
            if hand.result is not None:
                break
            legal = hand.legal_moves()
            hand.apply(legal[rng.randrange(len(legal))])
        if hand.result is not None:
            continue
        for need in (None, (hand.points[0] + rng.randrange(1, 12),
                            hand.points[1] + rng.randrange(1, 12))):
            state = native.state_of_hand(hand)
            copy = hand.copy()
            assert state.greedy_playout(need) == greedy_playout(copy, need)
            assert state.points == tuple(copy.points)
            assert state.over == (copy.result is not None)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(tiles=st.lists(st.sampled_from(TILES), max_size=21, unique=True),
       edge_double=st.booleans())
def test_best_quartets_worth(tiles: list[Tile], edge_double: bool) -> None:
    """The end-of-hand bonus (RULES.md section 4): the native matching's worth equals
    core's exact best_quartets on any set of up to 21 tiles (the most a loser can hold)."""
    assert native.best_quartets_worth(tiles, edge_double) == best_quartets(tiles,
                                                                           edge_double)[0]


def test_best_quartets_worth_on_the_largest_sets() -> None:
    """Many 21-tile sets, where the memo is used, still match the reference exactly."""
    rng = random.Random(21)
    for _ in range(30):
        tiles = rng.sample(TILES, 21)
        for edge_double in (False, True):
            assert native.best_quartets_worth(tiles, edge_double) == best_quartets(
                tiles, edge_double)[0]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_random_hand_records_replay_through_the_reference(game: str) -> None:
    """The benchmark's hands, recorded, replay through the checked reference with no
    difference (legal moves, points, count, end); the records are the benchmark's hands."""
    spec = get_game(game)
    options = spec.options_class()
    result = check_hands(spec, options, 2500, seed=11)
    assert result.mismatches == ()
    assert result.hands == 2500
    records = native.hand_records(spec, options, 300, 5)
    assert native.random_hands(spec, options, 300, 5) == (300, sum(len(r[4]) for r in records))
    for other in option_sets(game):
        assert check_hands(spec, other, 150, seed=3).mismatches == ()


def test_check_reports_what_the_reference_refuses() -> None:
    """A record the reference does not accept (a move it refuses, a wrong end) is reported
    as a mismatch naming the hand and the move, not raised."""
    spec = get_game("widelec")
    options = spec.options_class()
    rules = native.rules_of(spec, options)
    record = native.hand_records(spec, options, 1, 2)[0]
    codes = list(record[4])
    refused = (*record[:4], [*codes[:1], code_of(PASS), *codes[2:]], *record[5:])
    found: list[str] = []
    assert replay_record(spec, options, rules, refused, "hand X", found) == 1
    assert len(found) == 1 and "hand X, move 2" in found[0]
    wrong_end = (*record[:5], (999, 0), *record[6:])
    found = []
    replay_record(spec, options, rules, wrong_end, "hand Y", found)
    assert len(found) == 1 and found[0].startswith("hand Y, end")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_state_of_view_is_hand_from_view(game: str) -> None:
    """A view with the true hidden tiles gives the native twin of core's hand_from_view: the
    same legal moves and points; tiles that do not fit the view are refused the same way."""
    spec = get_game(game)
    for seed in range(5):
        rng = random.Random(seed)
        match = Match(game, spec.options_class(), seed=seed)
        for _ in range(rng.randrange(12)):
            legal = match.legal_moves()
            match.apply(legal[rng.randrange(len(legal))])
        hand = match.hand
        seat = hand.to_move
        view = match.view(seat)
        opponent = list(hand.hands[1 - seat])
        rest = (list(reversed(hand.boneyard)) if spec.has_boneyard  # type: ignore[attr-defined]
                else [t for t in view.unseen() if t not in opponent])
        state = native.state_of_view(view, opponent, rest)
        twin = hand_from_view(view, opponent, rest)
        assert state.legal() == [code_of(m) for m in twin.legal_moves()]
        assert [state.points_of(c) for c in state.legal()] == [
            twin.points_of(m) for m in twin.legal_moves()]
        with pytest.raises(InvalidMoveError):
            native.state_of_view(view, opponent[1:], rest)


def test_bad_input_is_a_value_error() -> None:
    """Codes that are not legal here (out of range, another seat's tile, a taken port, a
    move of another game, any move after the end), and malformed states: ValueError, and
    the state is unchanged."""
    spec = get_game("luzak")
    flags, per_hand = native.rules_of(spec, spec.options_class())
    match = Match("luzak", seed=1)
    state = native.state_of_hand(match.hand)
    for bad in (-1, 10**6, 19_999, native.MV_DRAW, native.MV_PASS, native.MV_KEEP):
        with pytest.raises(ValueError):
            state.apply(bad)
    with pytest.raises((ValueError, OverflowError)):
        state.apply(2**80)
    other = match.hand.hands[1 - match.hand.to_move][0]
    with pytest.raises(ValueError):
        state.apply(code_of(play(other, other.hi, None)))
    rng = random.Random(5)
    codes = [rng.randrange(0, 20_003) for _ in range(3000)]
    while not state.over:
        legal = state.legal()
        for code in codes[:200]:
            if code not in legal:
                copy = state.copy()
                with pytest.raises(ValueError):
                    state.apply(code)
                assert state.legal() == copy.legal() and state.points == copy.points
            with suppress(ValueError):
                state.points_of(code)
            with suppress(ValueError):
                state.copy().place(code)
        rng.shuffle(codes)
        state.apply(legal[rng.randrange(len(legal))])
    with pytest.raises(ValueError):
        state.apply(codes[0])
    with pytest.raises(ValueError):
        state.greedy()
    hand0 = mask(TILES[:12])
    for args in ((flags, per_hand, hand0, hand0, b"", 0),          # hands overlap
                 (flags, per_hand, hand0, 1 << 28, b"", 0),        # no tile 28
                 (flags, per_hand, hand0, 0, bytes([40]), 0),      # rest: no tile 40
                 (flags, per_hand, hand0, 0, bytes([1]), 0),       # rest: a tile in a hand
                 (flags, per_hand, hand0, 0, b"", 2),              # no seat 2
                 (flags, 14, hand0, 0, b"", 0),                    # ports past 12e: no codes
                 (flags | native.R_QUARTETS, per_hand, hand0, 0, b"", 0),  # quartets: a line
                 (flags | native.R_END_OUT, per_hand, hand0, 0, b"", 0)):  # a tree ends by N
        with pytest.raises(ValueError):
            State(*args)
    fresh = State(flags, per_hand, hand0, 0, b"", 0)
    with pytest.raises(ValueError):
        fresh.set_position(0, 0, 0, pending=3)                     # Luzak has no drawing
    laid = native.state_of_hand(Match("luzak", seed=1).hand)
    laid.apply(laid.legal()[0])
    table_tile = laid.table[0]
    size = bin(laid.hands[laid.to_move]).count("1")
    for hand in (mask(TILES[:size - 1]), mask(TILES[:size + 1]),  # too few, too many
                 mask([t for t in TILES if t.index != table_tile][:size - 1]) | 1 << table_tile,
                 1 << 28 | mask(TILES[:size - 1])):                # on the table; no tile 28
        with pytest.raises(ValueError):
            laid.greedy_expected_holding(hand, 0)
    with pytest.raises(ValueError):
        state.greedy_expected_holding(mask(TILES[:12]), 0)        # the hand is over
    with pytest.raises(ValueError):
        native.engine().random_hands(flags, per_hand, 15, 1, 1)   # 30 tiles dealt


def test_copies_are_independent() -> None:
    """``copy`` gives a state of its own: moving one leaves the other as it was."""
    state = native.state_of_hand(Match("widelec", seed=3).hand)
    copy = state.copy()
    before = copy.legal()
    while not state.over:
        state.apply(state.legal()[0])
    assert copy.legal() == before and not copy.over and copy.n == 0


def test_bench_random_hands_runs() -> None:
    """The benchmark reports hands, moves and seconds like lab.bench.engine's Python loop."""
    hands, moves, elapsed = native.bench_random_hands(GAMES["luzak"], 0.01)
    assert hands > 0 and moves == 12 * hands and elapsed > 0
