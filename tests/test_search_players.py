"""The search players' contract: legal moves only, decisions from the view alone (never
hidden tiles), the budget obeyed, repeatable with a worlds budget."""

from __future__ import annotations

import copy
import random
import time

import pytest

from dominolab.core import GAMES, Deal, Match, Play, View, WidelecOptions
from dominolab.native import search as native_search
from dominolab.players import (
    LEVELS,
    Budget,
    ExpertPlayer,
    OmniscientPlayer,
    PimcPlayer,
    make_player,
    parse_player_spec,
)
from dominolab.players.hints import distinct
from dominolab.players.search import MatchValue

SMALL = Budget(worlds=8)


def _positions(game: str, seeds: range, every: int = 3) -> list[tuple[Match, View]]:
    out = []
    for seed in seeds:
        match = Match(game, seed=seed)
        rng = random.Random(seed)
        k = 0
        while not match.is_over:
            if k % every == 0 and len(match.legal_moves()) > 1:
                out.append((match.copy(), match.view(match.hand.to_move)))
            legal = match.legal_moves()
            match.apply(legal[rng.randrange(len(legal))])
            k += 1
    return out


#: the deals a test of the reading expert plays: the first always, the others with the slow
#: tests (the expert reads the opponent once a move, a fixed cost whatever its budget)
SEEDS = [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", list(GAMES))
def test_search_players_return_legal_moves(game: str, seed: int) -> None:
    for match, view in _positions(game, range(seed, seed + 1), every=4):
        for player in (PimcPlayer(random.Random(1)), ExpertPlayer(random.Random(1))):
            assert player.choose(view, SMALL) in view.legal_moves
        seeing = OmniscientPlayer(random.Random(1))
        assert seeing.choose_seeing(match.hand.copy(), view, SMALL) in view.legal_moves


@pytest.mark.parametrize("game", list(GAMES))
def test_analyse_lists_every_legal_move_once_best_first(game: str) -> None:
    _, view = _positions(game, range(1), every=2)[2]
    values = ExpertPlayer(random.Random(5)).analyse(view, SMALL)
    assert sorted(map(str, (v.move for v in values))) == sorted(map(str, view.legal_moves))
    assert all(0.0 <= v.value <= 1.0 for v in values)
    # one search iteration per sampled world; equivalent moves share their class's
    # (dominolab.core.equivalence), so each class counts once
    assert sum(v.worlds for v in distinct(values, view)) == 8
    assert [v.worlds for v in values] == sorted((v.worlds for v in values), reverse=True)


def _scrambled_pair(game: str, seed: int) -> tuple[Match, Match]:
    """Two matches whose deals differ only in tiles seat 0 cannot see."""
    size = GAMES[game].hand_size
    deal = Deal.for_hand(seed, 1, size)
    theirs, rest = list(deal.hands[1]), list(deal.rest)
    theirs[0], rest[-1] = rest[-1], theirs[0]  # swap a hidden tile for an unseen one
    other = Deal((deal.hands[0], tuple(sorted(theirs, key=lambda t: t.index))), tuple(rest))
    return (Match(game, deals=[deal], first_opener=0),
            Match(game, deals=[other], first_opener=0))


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("name", ["pimc", "expert"])
def test_decisions_do_not_depend_on_hidden_tiles(game: str, name: str) -> None:
    """A player given views whose hidden parts differ (same visible history) decides the
    same: it can only be reading the view."""
    for seed in range(4):
        a, b = _scrambled_pair(game, seed)
        va, vb = a.view(0), b.view(0)
        assert va == vb
        pa, pb = make_player(name, 11), make_player(name, 11)
        assert pa.choose(va, SMALL) == pb.choose(vb, SMALL)


def test_worlds_budget_repeats_exactly() -> None:
    _, view = _positions("luzak", range(1))[1]
    first = ExpertPlayer(random.Random(3)).analyse(view, Budget(worlds=12))
    again = ExpertPlayer(random.Random(3)).analyse(view, Budget(worlds=12))
    assert first == again


def test_seconds_budget_stops_the_search() -> None:
    """With a time budget and no worlds cap the search stops near the deadline (the bound
    here is generous: this is a contract test, not a benchmark)."""
    _, view = _positions("luzak", range(1))[0]
    start = time.perf_counter()
    values = ExpertPlayer(random.Random(3)).analyse(view, Budget(seconds=0.05))
    assert time.perf_counter() - start < 2.0
    assert 1 <= values[0].worlds < 1_000_000


def test_omniscient_cannot_be_asked_without_the_hand() -> None:
    _, view = _positions("luzak", range(1))[0]
    with pytest.raises(TypeError):
        OmniscientPlayer(random.Random(1)).choose(view)


def test_player_specs_and_levels() -> None:
    assert parse_player_spec("expert:0.5s") == ("expert", Budget(seconds=0.5))
    assert parse_player_spec("pimc:40w,1s") == ("pimc", Budget(seconds=1.0, worlds=40))
    assert set(LEVELS) == {"easy", "medium", "hard"}
    for level in LEVELS:
        assert make_player(level, 1).name == LEVELS[level][0]


def test_s4_match_value_wins_at_once_in_widelec() -> None:
    """RULES.md §4 (win at once): a hand outcome that reaches the target is worth 1 to the
    seat that reaches it, 0 if the opponent does, whatever the margin."""
    match = Match("widelec", WidelecOptions(target=10), seed=2)
    view = match.view(match.hand.to_move)
    value = MatchValue(view)
    me = view.seat
    reach = [0, 0]
    reach[me] = 10
    assert value(reach, True) == 1.0
    other = [0, 0]
    other[1 - me] = 10
    other[me] = 9
    assert value(other, True) == 0.0
    assert 0.0 < value([0, 0], False) < 1.0


@pytest.mark.parametrize(("reading", "seeds"), [
    (False, range(6)),
    (True, range(1)),
    pytest.param(True, range(1, 6), marks=pytest.mark.slow),
])
def test_expert_takes_a_sure_big_score(reading: bool, seeds: range) -> None:
    """Sanity: facing a move that scores at once and nothing else differing much, the
    expert's best move is among those with the highest immediate points in most positions;
    its search alone over six deals, and with its reading of the opponent (a fixed cost a
    move) over one, the other five with the slow tests."""
    hits = total = 0
    for _, view in _positions("luzak", seeds, every=2):
        if view.n < 6:
            continue
        table_points: dict[object, int] = {}
        for move in view.legal_moves:
            if isinstance(move, Play):
                from dominolab.core import get_game
                table = view.new_table()
                pts = get_game(view.game).hand_class.score_placement(table, move, view.seat,
                                                                     view.options)
                table_points[move] = pts[view.seat] - pts[1 - view.seat]
        best_now = max(table_points.values())
        if best_now >= 10:
            total += 1
            chosen = ExpertPlayer(random.Random(1), reading).choose(view, Budget(worlds=200))
            hits += table_points[chosen] >= best_now - 5
    assert total >= 5 and hits / total >= 0.6, (hits, total)


def test_s2_match_value_in_the_last_hand_counts_only_winning() -> None:
    """RULES.md §2 (match to the target, even number of hands): in hand 2 with a player
    past the target, the match ends with this hand, so any lead is worth 1 and any deficit
    0, whatever the margin; in hand 1 one more hand follows, so a lead is worth less than 1."""
    import dataclasses

    match = Match("luzak", seed=4)
    view = match.view(match.hand.to_move)
    me = view.seat
    totals = [0, 0]
    totals[me], totals[1 - me] = 58, 56
    last = dataclasses.replace(view, hand_number=2, totals=(totals[0], totals[1]),
                               hand_points=(0, 0))
    value = MatchValue(last)
    win_small = [0, 0]
    win_small[me], win_small[1 - me] = 4, 5  # 62 vs 61: a 1-point lead at the end
    win_big = [0, 0]
    win_big[me] = 30
    lose = [0, 0]
    lose[me], lose[1 - me] = 3, 6  # 61 vs 62
    assert value(win_small, False) == value(win_big, False) == 1.0
    assert value(lose, False) == 0.0
    first = MatchValue(dataclasses.replace(last, hand_number=1))
    assert 0.5 < first(win_small, False) < first(win_big, False) < 1.0
    opens_next = MatchValue(dataclasses.replace(last, hand_number=1, opener=1 - me))
    assert 0.5 < opens_next.chance(win_small, False) < opens_next.chance(win_big, False) < 1.0
    answers_next = MatchValue(dataclasses.replace(last, hand_number=1, opener=me))
    assert answers_next.chance(win_small, False) < 0.5 < answers_next.chance(win_big, False)


def test_the_chance_shown_counts_the_next_openers_edge() -> None:
    """RULES.md §1 (openers alternate, hand by hand) and §2 (an even number of hands): after
    an odd-numbered hand the next hand's opener is expected to gain what opening is worth in
    Luzak (its mean margin): the chance a move's ``win_chance`` reports counts it; after an
    even-numbered hand the hands left come in pairs, each seat opening one, and it counts
    none. Widelec's opener gains nothing to speak of. The value the search backs up leaves
    the edge out (counting it made the expert no stronger), so its moves are the same."""
    import dataclasses

    match = Match("luzak", seed=4)
    view = match.view(match.hand.to_move)
    me = view.seat
    tied = dataclasses.replace(view, hand_number=3, totals=(20, 20), hand_points=(0, 0))
    mine = MatchValue(dataclasses.replace(tied, opener=1 - me))  # I open hand 4
    theirs = MatchValue(dataclasses.replace(tied, opener=me))
    assert mine.lead == -theirs.lead > 0
    assert mine.chance((0, 0), False) > 0.5 > theirs.chance((0, 0), False)
    assert mine.chance((0, 0), False) + theirs.chance((0, 0), False) == pytest.approx(1.0)
    assert mine((0, 0), False) == theirs((0, 0), False) == 0.5
    paired = MatchValue(dataclasses.replace(tied, hand_number=2))
    assert paired.lead == 0.0 and paired.chance((0, 0), False) == 0.5
    widelec = Match("widelec", seed=4)
    assert MatchValue(widelec.view(widelec.hand.to_move)).lead == 0.0
    # the playouts' one call gives both, with and without an edge to count
    weighed = MatchValue(dataclasses.replace(tied, opener=1 - me), 0.3)
    for told in (mine, paired, weighed):
        for points, reached in (((0, 0), False), ((9, 2), False), ((45, 3), True)):
            assert told.scored(points, reached) == (told.chance(points, reached),
                                                    told(points, reached))

    # the same search in the first hand (odd-numbered), told the edge and not: the same
    # visits, values and margins; the chances lower, since the opponent opens the second
    first = match.view(match.hand.to_move)
    value = MatchValue(first, 0.3)
    edgeless = copy.copy(value)
    edgeless.lead = 0.0
    assert first.hand_number == 1 and first.opener == me and value.lead < 0

    def searched(told: MatchValue) -> list[native_search.Totals]:
        return native_search.search(first, kind="ismcts-expected", value=told, need=None,
                                    iterations=3000, seconds=None, exploration=0.4, seed=7)

    found, plain = searched(value), searched(edgeless)
    assert [(t.move, t.count, t.value, t.margin) for t in found] == \
        [(t.move, t.count, t.value, t.margin) for t in plain]
    assert all(t.chance < p.chance for t, p in zip(found, plain, strict=True) if t.count)
