"""Property tests over random FULL matches of every game under a range of rule options
(RULES.md sections 1-5): tiles conserved, counts recomputable, records replay, nothing
after the end, totals monotone, luzak only when forced, fast path equal to checked path,
copies independent, legal moves unique and deterministic."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import GAME_NAMES, option_sets, rest_tiles, table_tiles
from dominolab.core import (
    TILES,
    GameOverError,
    Hand,
    LineTable,
    LuzakHand,
    LuzakLineHand,
    Match,
    Options,
    Play,
    TreeTable,
    WidelecHand,
    match_record,
    replay,
)


def hand_state(hand: Hand[Any]) -> tuple[Any, ...]:
    extra: tuple[Any, ...] = ()
    if isinstance(hand, WidelecHand):
        extra = (tuple(hand.boneyard), hand.pending, hand.passes,
                 tuple(hand.table.end_tiles), tuple(hand.table.end_values))
    else:
        extra = (hand.table.count, tuple(map(str, hand.table.free_ports())))
    return (tuple(hand.hands[0]), tuple(hand.hands[1]), tuple(hand.points), hand.to_move,
            hand.table_placements, tuple(hand.moves), hand.result, hand.opener, extra)


def match_state(match: Match) -> tuple[Any, ...]:
    return (match.hand_number, match.totals, match.result, match.results(),
            tuple(hand_state(h) for h in match.hands))


def check_conserved(hand: Hand[Any]) -> None:
    every = [*hand.hands[0], *hand.hands[1], *table_tiles(hand), *rest_tiles(hand)]
    assert Counter(every) == Counter(TILES)


def check_count(hand: Hand[Any]) -> None:
    if isinstance(hand, LuzakHand):
        assert hand.table.count == TreeTable.recount(hand.table.placements)
    elif isinstance(hand, LuzakLineHand):
        assert hand.table.count == LineTable.recount(hand.table.placements)


def has_normal_play(hand: Hand[Any]) -> bool:
    table: Any = hand.table
    if table.n == 0:
        return True
    held = hand.hands[hand.to_move]
    values: set[int] = set()
    for v in table.port_values().values():
        values.update(v if isinstance(v, tuple) else (v,))
    return any(h in values for t in held for h in t.halves)


def options_strategy() -> st.SearchStrategy[tuple[str, Options]]:
    return st.sampled_from(GAME_NAMES).flatmap(
        lambda game: st.tuples(st.just(game),
                               st.sampled_from(option_sets(game, 20) + option_sets(game, 45)
                                               + option_sets(game, 61))))


def play_and_check(game: str, options: Options, seed: int, rng: random.Random) -> None:
    match = Match(game, options, seed=seed)
    fast = Match(game, options, seed=seed)
    last_totals = match.totals
    moves = 0
    while not match.is_over:
        hand = match.hand
        legal = match.legal_moves()
        # legal moves: unique, the same for the same state, same on the fast path
        assert len(set(legal)) == len(legal) and legal
        assert match.legal_moves() == legal
        assert fast.legal_moves() == legal
        assert hand.copy().legal_moves() == legal
        check_conserved(hand)
        check_count(hand)
        move = legal[rng.randrange(len(legal))]
        # a luzak only without a normal play
        if isinstance(move, Play) and move.luzak:
            assert not has_normal_play(hand)
            assert all(isinstance(m, Play) and m.luzak for m in legal)
        elif game != "widelec" and hand.n:
            assert has_normal_play(hand)
        # a copy is independent of the original
        if moves % 3 == 0:
            before = hand_state(hand)
            twin = hand.copy()
            assert hand_state(twin) == before
            twin.apply(move)
            assert hand_state(hand) == before
        match.apply(move)
        fast.apply_unchecked(move)
        moves += 1
        assert match_state(match) == match_state(fast)
        totals = match.totals
        assert totals[0] >= last_totals[0] and totals[1] >= last_totals[1]
        last_totals = totals
    # the end: no legal move, apply raises
    assert match.result is not None
    assert match.legal_moves() == [] and match.hand.legal_moves() == []
    any_move = match.hands[0].moves[0][1]
    with pytest.raises(GameOverError):
        match.apply(any_move)
    with pytest.raises(GameOverError):
        match.hand.apply(any_move)
    for hand in match.hands:
        check_conserved(hand)
        check_count(hand)
    assert match.result.totals == match.totals
    # the record replays to the identical state, through JSON
    record = json.loads(json.dumps(match_record(match)))
    again = replay(record)
    assert match_state(again) == match_state(match)
    assert again.result == match.result
    # the record of the fast-path match is the same as the checked one's
    assert json.loads(json.dumps(match_record(fast))) == record


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(options_strategy(), st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def test_properties_full_matches_every_game(game_options: tuple[str, Options], seed: int,
                                             rng: random.Random) -> None:
    """RULES.md §1-§5 invariants over random full matches of every game and option set: a
    hundred matches every run (each option set is also played by the fixed sweep below)."""
    game, options = game_options
    play_and_check(game, options, seed, rng)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(options_strategy(), st.integers(0, 2**32 - 1), st.randoms(use_true_random=False))
def test_properties_full_matches_every_game_long(game_options: tuple[str, Options], seed: int,
                                                  rng: random.Random) -> None:
    """The same invariants over a thousand other matches, in the slow sample."""
    game, options = game_options
    play_and_check(game, options, seed, rng)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_properties_every_option_set_deterministic_sweep(game: str) -> None:
    """The same invariants, for every option set of each game (a fixed sweep)."""
    for i, options in enumerate(option_sets(game, 25)):
        play_and_check(game, options, 1000 + i, random.Random(i))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(st.sampled_from(GAME_NAMES), st.integers(0, 10_000), st.integers(0, 10_000))
def test_properties_same_seed_same_moves_same_game(game: str, seed: int, pick: int) -> None:
    """RULES.md §1: the same seed and the same moves give the same game."""
    opts = option_sets(game, 20)[0]
    a = Match(game, opts, seed=seed)
    b = Match(game, opts, seed=seed)
    rng = random.Random(pick)
    while not a.is_over:
        legal = a.legal_moves()
        assert b.legal_moves() == legal
        move = legal[rng.randrange(len(legal))]
        assert a.apply(move) == b.apply(move)
    assert match_state(a) == match_state(b)


# -- an independent reference model of the tables (RULES.md §2, §3, §4) -------------------

def ref_tree_ports(placements: tuple[Play, ...], short_any: bool) -> dict[str, int]:
    """Free ports of the Luzak tree, from the placements alone (RULES.md §2, §5)."""
    used = {str(mv.port) for mv in placements if mv.port is not None}
    ports: dict[str, int] = {}
    for k, mv in enumerate(placements, start=1):
        t = mv.tile
        cand: dict[str, int] = {}
        if t.is_double:
            d = t.hi
            longs = ["w", "e"] if k == 1 else ["e"]
            for s in longs:
                cand[f"{k}{s}"] = d
            if short_any or all(f"{k}{s}" in used for s in longs):
                cand[f"{k}n"] = d
                cand[f"{k}s"] = d
        elif k == 1:
            cand = {"1w": t.hi, "1e": t.lo}
        else:
            cand = {f"{k}e": mv.outer}
        ports.update({p: v for p, v in cand.items() if p not in used})
    return ports


def ref_tree_count(placements: tuple[Play, ...], short_any: bool) -> int:
    """The table count (RULES.md §2) from the free ports: non-doubles count each free port,
    a double with a free long side counts twice its value once."""
    free = ref_tree_ports(placements, short_any)
    total = 0
    for k, mv in enumerate(placements, start=1):
        t = mv.tile
        if t.is_double:
            if f"{k}e" in free or (k == 1 and "1w" in free):
                total += 2 * t.hi
        else:
            total += sum(v for p, v in free.items() if p in (f"{k}w", f"{k}e"))
    return total


def ref_line(placements: tuple[Play, ...]) -> tuple[dict[str, tuple[int, ...]], int]:
    """End values and the Luzak-line count of a line (RULES.md §3, §4)."""
    first = placements[0].tile
    # each end: (values offered, counted pips)
    end: dict[str, tuple[tuple[int, ...], int]] = {
        "L": ((first.hi,), first.hi), "R": ((first.lo,), first.lo)}
    if first.is_double:
        end = {"L": ((first.hi,), first.pips), "R": ((first.hi,), first.pips)}
    for mv in placements[1:]:
        assert mv.port is not None
        t = mv.tile
        if mv.luzak:
            end[str(mv.port)] = (tuple(sorted({t.hi, t.lo})), t.pips)
        elif t.is_double:
            end[str(mv.port)] = ((t.hi,), t.pips)
        else:
            end[str(mv.port)] = ((mv.outer,), mv.outer)
    count = first.pips if len(placements) == 1 else end["L"][1] + end["R"][1]
    return {e: v for e, (v, _) in end.items()}, count


def ref_legal(hand: Hand[Any]) -> list[str]:
    """The legal moves by the rules, from the reference tables, in sorted order."""
    held = hand.hands[hand.to_move]
    placements = hand.table_placements
    if not placements:
        return [f"{t.hi}{t.lo}" for t in held]
    if isinstance(hand, LuzakHand):
        ports = ref_tree_ports(placements, hand.options.short_ends_any_time)
        order = sorted(ports, key=lambda p: (int(p[:-1]), "wens".index(p[-1])))
        normal = [(t.index, h, order.index(p), f"{h}{t.other(h)}@{p}")
                  for t in held for h in t.halves for p in order if ports[p] == h]
        if normal:
            return [m[-1] for m in sorted(normal)]
        return [m[-1] for m in sorted((t.index, h, order.index(p), f"{h}{t.other(h)}@{p}*")
                                      for t in held for h in t.halves for p in order)]
    ends, _ = ref_line(placements)
    normal = [(t.index, h, "LR".index(e), f"{h}{t.other(h)}@{e}")
              for t in held for h in t.halves for e in "LR" if h in ends[e]]
    if isinstance(hand, WidelecHand):
        if hand.pending is not None:
            out = [f"{h}{hand.pending.other(h)}@{e}" for h in hand.pending.halves
                   for e in "LR" if h in ends[e]]
            return out + ([] if hand.options.must_play_drawn else ["keep"])
        if normal:
            return [m[-1] for m in sorted(normal)]
        return ["draw" if hand.boneyard else "pass"]
    if normal:
        return [m[-1] for m in sorted(normal)]
    return [f"{t.hi}{t.lo}@{e}*" for t in held for e in "LR"]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_properties_engine_matches_reference_model(game: str) -> None:
    """RULES.md §2-§5: at every position of random matches under every option set, the
    engine's free ports, table count and legal moves (in their fixed sorted order) equal an
    independent reference model written from RULES.md."""
    for i, options in enumerate(option_sets(game, 40)):
        for seed in range(6):
            match = Match(game, options, seed=10 * i + seed)
            rng = random.Random(seed)
            while not match.is_over:
                hand = match.hand
                placements = hand.table_placements
                if placements and isinstance(hand, LuzakHand):
                    short_any = hand.options.short_ends_any_time
                    assert {str(p): v for p, v in hand.table.port_values().items()} == \
                        ref_tree_ports(placements, short_any)
                    assert hand.table.count == ref_tree_count(placements, short_any)
                elif placements:
                    assert isinstance(hand, LuzakLineHand | WidelecHand)
                    ends, count = ref_line(placements)
                    assert {str(p): v for p, v in hand.table.port_values().items()} == ends
                    if isinstance(hand, LuzakLineHand):
                        assert hand.table.count == count
                legal = match.legal_moves()
                assert [str(m) for m in legal] == ref_legal(hand)
                match.apply(legal[rng.randrange(len(legal))])
