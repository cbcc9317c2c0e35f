"""The native search (dominolab.native.search, csrc/search.c) against its contract: the
players' MoveValue lists, well formed, for positions of every game and option set; fixed
iteration budgets that repeat exactly; a world sampler that keeps what the opponent's moves
proved; the Python reference's values where the search has no randomness (one true world);
and a ValueError, never a crash, for nonsense."""

from __future__ import annotations

import contextlib
import itertools
import random
import threading
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest

from dominolab import native
from dominolab.core import (
    KEEP,
    TILES,
    Deal,
    LuzakLineOptions,
    LuzakOptions,
    Match,
    Options,
    Play,
    View,
    WidelecOptions,
)
from dominolab.core.worlds import fits_limits, opponent_limits
from dominolab.native import search as native_search
from dominolab.players import Budget, ExpertPlayer, OmniscientPlayer, PimcPlayer
from dominolab.players.hints import distinct, move_classes
from dominolab.players.search import (
    MatchValue,
    MoveValue,
    expected_greedy_playout,
    greedy_playout,
)

pytestmark = pytest.mark.skipif(not native.enabled(), reason=native.status())

#: (game, options) of every option set the search must take
OPTION_SETS: list[tuple[str, Options]] = [
    ("luzak", LuzakOptions()),
    ("luzak", LuzakOptions(short_ends_any_time=False, luzak_scores_count=False)),
    ("luzak", LuzakOptions(target=15, even_hands=False)),
    ("luzak-line", LuzakLineOptions()),
    ("widelec", WidelecOptions()),
    ("widelec", WidelecOptions(must_play_drawn=False, edge_double=False)),
    ("widelec", WidelecOptions(target=20)),  # win at once, near the target
    ("widelec", WidelecOptions(target=20, win_at_once=False)),
]


def _positions(game: str, options: Options, seeds: range,
               every: int = 2) -> Iterator[tuple[Match, View]]:
    """Positions of random matches (the seat to move's view, and the match for its hand)."""
    for seed in seeds:
        match = Match(game, options, seed=seed)
        rng = random.Random(seed)
        k = 0
        while not match.is_over:
            seat = match.to_move
            assert seat is not None
            if k % every == 0:
                yield match, match.view(seat)
            legal = match.legal_moves()
            match.apply(legal[rng.randrange(len(legal))])
            k += 1


def _well_formed(values: list[MoveValue], view: View, match_aware: bool) -> None:
    assert sorted(map(str, (v.move for v in values))) == sorted(map(str, view.legal_moves))
    assert all(v.move in view.legal_moves for v in values)
    for v in values:
        if match_aware:
            assert 0.0 <= v.value <= 1.0
            assert v.win_chance is not None and 0.0 <= v.win_chance <= 1.0
        else:
            assert v.win_chance is None


def _special(view: View) -> set[str]:
    """The special moves a position offers: a luzak, a drawn tile to lay, a keep."""
    out = set()
    if view.pending is not None:
        out.add("pending")
    if KEEP in view.legal_moves:
        out.add("keep")
    if any(isinstance(m, Play) and m.luzak for m in view.legal_moves):
        out.add("luzak")
    return out


def _searched_positions(game: str, options: Options, regular: int | None = None,
                        specials: int = 6) -> list[tuple[Match, View]]:
    """Every third position of two matches (or only the first ``regular`` positions, a
    seventh apart, of the first match), and the first ``specials`` positions with a special
    move (a luzak, a pending draw, a keep) in up to 60 matches."""
    if regular is None:
        chosen = _positions(game, options, range(2), every=3)
    else:
        chosen = itertools.islice(_positions(game, options, range(1), every=7), regular)
    out = [(m.copy(), v) for m, v in chosen]
    special = 0
    for match, view in _positions(game, options, range(2, 62), every=1):
        if _special(view) and view.legal_moves:
            out.append((match.copy(), view))
            special += 1
            if special == specials:
                break
    return out


def _check_search_is_well_formed(game: str, options: Options,
                                 positions: list[tuple[Match, View]]) -> None:
    """The three searching players' answers at ``positions`` are well formed, and the
    positions include each game's special moves."""
    seen: set[str] = set()
    for n, (match, view) in enumerate(positions):
        expert = ExpertPlayer(random.Random(n)).analyse(view, Budget(worlds=30))
        _well_formed(expert, view, True)
        assert sum(v.worlds for v in distinct(expert, view)) == 30  # a class counts once
        assert [v.worlds for v in expert] == sorted((v.worlds for v in expert), reverse=True)
        pimc = PimcPlayer(random.Random(n)).analyse(view, Budget(worlds=3))
        _well_formed(pimc, view, False)
        assert all(v.worlds == 3 for v in pimc)
        assert [v.value for v in pimc] == sorted((v.value for v in pimc), reverse=True)
        seeing = OmniscientPlayer(random.Random(n))
        assert seeing.choose_seeing(match.hand.copy(), view, Budget(worlds=20)) in view.legal_moves
        seen |= _special(view)
    # the positions searched include each game's special moves
    if game == "widelec":
        assert "pending" in seen
        assert ("keep" in seen) == (not getattr(options, "must_play_drawn", True))
    else:
        assert "luzak" in seen


@pytest.mark.parametrize(("game", "options"), OPTION_SETS)
def test_native_search_is_well_formed_in_a_few_positions(game: str, options: Options) -> None:
    """Every option set, at four positions of a match and the first two with a special
    move: a few seconds in all (the full set below is slow, and runs in the daily sample)."""
    _check_search_is_well_formed(game, options,
                                 _searched_positions(game, options, regular=4, specials=2))


@pytest.mark.slow
@pytest.mark.parametrize(("game", "options"), OPTION_SETS)
def test_native_search_is_well_formed_in_every_game(game: str, options: Options) -> None:
    _check_search_is_well_formed(game, options, _searched_positions(game, options))


def test_fixed_iterations_repeat_exactly() -> None:
    for game, options in OPTION_SETS[::2]:
        views = [v for _, v in _positions(game, options, range(1), every=5)][:6]
        for view in views:
            for player in (ExpertPlayer, PimcPlayer):
                first = player(random.Random(7)).analyse(view, Budget(worlds=200))
                again = player(random.Random(7)).analyse(view, Budget(worlds=200))
                assert first == again


def test_one_iteration_adds_up() -> None:
    for game, options in OPTION_SETS:
        for _, view in list(_positions(game, options, range(1), every=7))[:5]:
            values = ExpertPlayer(random.Random(1)).analyse(view, Budget(worlds=1))
            values = distinct(values, view)  # equivalent moves share their class's values
            assert sorted(v.worlds for v in values)[-1] == 1
            assert sum(v.worlds for v in values) == 1
            tried = values[0]
            assert tried.worlds == 1 and 0.0 <= tried.value <= 1.0
            assert all(v.value == v.margin == 0.0 for v in values[1:])


def test_large_trees_and_time_budgets() -> None:
    """The node pool grows far past its first block; a time budget alone stops in time."""
    _, view = next(_positions("luzak", LuzakOptions(), range(1)))
    values = ExpertPlayer(random.Random(1)).analyse(view, Budget(worlds=50_000))
    assert sum(v.worlds for v in values) == 50_000
    values = ExpertPlayer(random.Random(1)).analyse(view, Budget(seconds=0.05))
    assert 1 <= sum(v.worlds for v in values) < 10_000_000


def test_positions_with_many_legal_moves() -> None:
    """A luzak may go on any free port with either half out: after an opening spinner
    [3|3], twelve tiles without a 3 give 96 legal moves, all searched."""
    spinner = next(t for t in TILES if t.hi == t.lo == 3)
    theirs = tuple(t for t in TILES if t.hi != t.lo and 3 not in (t.hi, t.lo))[:12]
    others = [t for t in TILES if t is not spinner and t not in theirs]
    mine = tuple(sorted([spinner, *others[:11]], key=lambda t: t.index))
    deal = Deal((mine, theirs), tuple(others[11:]))
    match = Match("luzak", deals=[deal], first_opener=0)
    match.apply(next(m for m in match.legal_moves()
                     if isinstance(m, Play) and m.tile is spinner))
    view = match.view(1)
    assert len(view.legal_moves) == 96
    values = ExpertPlayer(random.Random(1)).analyse(view, Budget(worlds=500))
    _well_formed(values, view, True)
    assert sum(v.worlds for v in distinct(values, view)) == 500  # a class counts once
    assert all(v.worlds for v in values)
    pimc = PimcPlayer(random.Random(1)).analyse(view, Budget(worlds=2))
    _well_formed(pimc, view, False)
    seeing = OmniscientPlayer(random.Random(1))
    assert seeing.choose_seeing(match.hand.copy(), view, Budget(worlds=200)) in view.legal_moves


def test_search_releases_the_gil() -> None:
    """A long native search lets other Python threads run meanwhile."""
    _, view = next(_positions("widelec", WidelecOptions(), range(1)))
    done = threading.Event()
    out: list[list[MoveValue]] = []

    def work() -> None:
        out.append(ExpertPlayer(random.Random(1)).analyse(view, Budget(seconds=0.3)))
        done.set()

    thread = threading.Thread(target=work)
    ticks = 0
    thread.start()
    while not done.is_set():
        ticks += 1
    thread.join(timeout=30)
    assert out and ticks > 1000


def _facts(game: str, options: Options) -> Iterator[View]:
    """Views whose opponent's moves proved something (a luzak, a draw or a pass)."""
    for _, view in _positions(game, options, range(30), every=1):
        if opponent_limits(view) and view.opponent_tiles:
            yield view


@pytest.mark.parametrize(("game", "options"), [OPTION_SETS[0], OPTION_SETS[3],
                                               OPTION_SETS[4], OPTION_SETS[5]])
def test_sampled_worlds_keep_what_the_opponent_proved(game: str, options: Options) -> None:
    """A luzak proves its layer held no fitting tile, a pass that the passer held none;
    Widelec's draws allow as many fitting tiles as were drawn since unseen. Every sampled
    opponent hand keeps those facts whenever the sampler finds such a deal (in the Luzak
    games, and for passes, it always can: the facts allow no fitting tile at all), and every
    deal is the unseen tiles, each once."""
    views = []
    for view in _facts(game, options):
        views.append(view)
        if len(views) == 12:
            break
    assert views
    total = kept = 0
    for n, view in enumerate(views):
        limits = opponent_limits(view)
        unseen = set(view.unseen())
        strict = all(limit.allowed == 0 for limit in limits)
        for opponent, rest in native_search.sample_worlds(view, limits, 200, seed=n):
            assert len(opponent) == view.opponent_tiles
            assert set(opponent) | set(rest) == unseen
            assert len(opponent) + len(rest) == len(unseen)
            assert list(opponent) == sorted(opponent, key=lambda t: t.index)
            total += 1
            kept += fits_limits(opponent, limits)
            if strict:
                assert fits_limits(opponent, limits), (view.history, opponent)
    assert kept >= 0.95 * total


def test_sampler_without_limits_deals_every_tile_everywhere() -> None:
    """Without limits a deal is a plain shuffle: each unseen tile reaches the opponent."""
    _, view = next(_positions("widelec", WidelecOptions(), range(1)))
    held = {t for opponent, _ in native_search.sample_worlds(view, (), 300, seed=1)
            for t in opponent}
    assert held == set(view.unseen())


def test_pimc_in_the_true_world_is_the_reference() -> None:
    """In one known world the search has no randomness: every move's value and margin are
    exactly the Python reference's (greedy playouts, the match value, win-at-once stops)."""
    compared = 0
    for game, options in OPTION_SETS:
        for match, view in _positions(game, options, range(2), every=3):
            value = MatchValue(view)
            need = value.need if value.at_once else None
            me, opp = view.seat, 1 - view.seat
            sums = native_search.search(
                view, kind="pimc", value=value, need=need, iterations=1, seconds=None,
                exploration=0.0, seed=1, true_hand=match.hand)
            margins = native_search.search(
                view, kind="pimc", value=None, need=None, iterations=1, seconds=None,
                exploration=0.0, seed=1, true_hand=match.hand)
            before = view.hand_points[me] - view.hand_points[opp]
            for with_value, without in zip(sums, margins, strict=True):
                hand = match.hand.copy()
                hand.apply_unchecked(with_value.move)
                reached = greedy_playout(hand, need)
                assert with_value.count == 1
                assert with_value.value == pytest.approx(value(hand.points, reached), abs=1e-12)
                assert with_value.chance == pytest.approx(value.chance(hand.points, reached),
                                                          abs=1e-12)
                plain = match.hand.copy()
                plain.apply_unchecked(without.move)
                greedy_playout(plain)
                margin = plain.points[me] - plain.points[opp] - before
                assert without.value == without.margin == margin
                compared += 1
    assert compared > 500


@pytest.mark.parametrize(("kind", "playout", "weight"), [
    ("ismcts", greedy_playout, 0.0),
    ("ismcts-expected", expected_greedy_playout, 0.3),
    ("ismcts-expected", expected_greedy_playout, 1.0),
])
def test_omniscient_searches_the_true_world(kind: native_search.Kind,
                                            playout: Callable[..., bool],
                                            weight: float) -> None:
    """The omniscient search stays in the one true world: with as many iterations as classes
    of equivalent legal moves, each class is expanded once, by its representative, and
    played out there by the kind's playout, so its value (and its members') is exactly the
    reference's playout in that world, valued by the reference's blend of the match and the
    hand's margin; larger searches repeat exactly."""
    compared = 0
    for game, options in OPTION_SETS:
        for match, view in _positions(game, options, range(2), every=4):
            value = MatchValue(view, weight)
            need = value.need if value.at_once else None
            classes = move_classes(view)
            lead = {m: cls[0] for cls in classes for m in cls}
            sums = native_search.search(
                view, kind=kind, value=value, need=need,
                iterations=len(classes), seconds=None, exploration=0.7, seed=3,
                true_hand=match.hand)
            for total in sums:
                hand = match.hand.copy()
                hand.apply_unchecked(lead[total.move])
                reached = need is not None and (hand.points[0] >= need[0]
                                                or hand.points[1] >= need[1])
                if not reached and hand.result is None:
                    reached = playout(hand, need)
                assert total.count == 1
                assert total.value == pytest.approx(value(hand.points, reached), abs=1e-12)
                compared += 1
            before = match.hand.copy()
            seeing = [OmniscientPlayer(random.Random(2)).analyse_seeing(match.hand, view,
                                                                        Budget(worlds=300))
                      for _ in range(2)]
            _well_formed(seeing[0], view, True)
            assert sum(v.worlds for v in distinct(seeing[0], view)) == 300
            assert seeing[0] == seeing[1]
            assert match.hand.points == before.points and match.view(view.seat) == view
    assert compared > 200


def test_the_python_search_is_the_reference_in_the_true_world() -> None:
    """The readable search (the pure-Python path) and the native one give the same values in
    one known world: with one iteration per class of equivalent moves each class is played
    out once by the expert's playout, so every move's value (the blend of the match and the
    hand's margin), win chance and margin agree on both paths."""
    compared = 0
    for game, options in OPTION_SETS:
        for match, view in _positions(game, options, range(1), every=5):
            if len(view.legal_moves) < 2:
                continue
            budget = Budget(worlds=len(move_classes(view)))
            fast = OmniscientPlayer(random.Random(1))._search(view, budget, match.hand.copy())
            with native.pure():
                slow = OmniscientPlayer(random.Random(1))._search(view, budget,
                                                                  match.hand.copy())
            by_move = {v.move: v for v in slow}
            for v in fast:
                ref = by_move[v.move]
                assert (v.worlds, v.margin) == (ref.worlds, ref.margin)
                assert v.value == pytest.approx(ref.value, abs=1e-12)
                assert v.win_chance == pytest.approx(ref.win_chance, abs=1e-12)
                compared += 1
    assert compared > 100


def test_a_greedy_opponent_is_followed_into_the_greedy_reply() -> None:
    """The opponent read as a greedy player for certain (``greedy`` 1): at its nodes of the
    tree it makes the expected-answer greedy's move, the playouts' own. So, in the true
    world with one root move searched, the second iteration (the root move, then the
    opponent's node expanded by the greedy's move, then the playout) plays the first's
    playout again, move for move, and the mean value is that one playout's; read as
    searching (``greedy`` 0) the opponent's node is expanded by any of its moves, and the
    mean moves. The readable search and the native one agree on both paths."""
    compared = moved = 0
    for game, options in OPTION_SETS[::2]:
        for match, view in _positions(game, options, range(1), every=3):
            for move in view.legal_moves[:4] if len(view.legal_moves) > 1 else ():
                found: dict[tuple[float, int, bool], float] = {}
                for greedy, worlds, pure in [(1.0, 1, False), (1.0, 2, False), (1.0, 2, True),
                                             (0.0, 2, False)]:
                    with native.pure() if pure else contextlib.nullcontext():
                        values = OmniscientPlayer(random.Random(1))._search(
                            view, Budget(worlds=worlds), match.hand.copy(), only=[move],
                            greedy=greedy)
                    found[greedy, worlds, pure] = next(v.value for v in values
                                                       if v.move == move)
                assert found[1.0, 2, False] == pytest.approx(found[1.0, 1, False], abs=1e-12)
                assert found[1.0, 2, True] == pytest.approx(found[1.0, 2, False], abs=1e-12)
                moved += abs(found[0.0, 2, False] - found[1.0, 1, False]) > 1e-9
                compared += 1
    assert compared > 100
    assert moved > compared // 5


def test_win_at_once_is_worth_one() -> None:
    """Widelec, win at once: a move that reaches the target now wins the match, so its
    estimated chance is exactly 1, whatever follows."""
    found = 0
    for _, view in _positions("widelec", WidelecOptions(target=20), range(40), every=1):
        if not view.legal_moves or view.result is not None:
            continue
        me = view.seat
        need = MatchValue(view).need[me]
        table = view.new_table()
        for move in view.legal_moves:
            if not isinstance(move, Play) or view.n == 0:
                continue
            gain = view.spec.hand_class.score_placement(table.copy(), move, me, view.options)
            if view.hand_points[me] + gain[me] >= need:
                values = ExpertPlayer(random.Random(1)).analyse(view, Budget(worlds=200))
                chosen = {v.move: v for v in values}[move]
                assert chosen.worlds == 0 or chosen.win_chance == 1.0
                assert values[0].win_chance == 1.0
                found += 1
                break
    assert found >= 3


# -- nonsense in, ValueError out ----------------------------------------------------------------

def _arguments() -> tuple[View, dict[str, Any]]:
    _, view = list(_positions("widelec", WidelecOptions(), range(1), every=3))[2]
    rules, position = native_search.position_of(view)
    value = MatchValue(view)
    return view, {
        "rules": rules, "position": position, "limits": [],
        "value": (value.banked[0], value.banked[1], value.target, value.scale,
                  value.per_hand, 1, 0, None, 0.3, value.lead),
        "budget": (10, None, 0.7), "kind": "ismcts", "seed": 1, "world": None,
    }


def _search(**kwargs: Any) -> Any:
    return cast(Any, native.engine()).search(**kwargs)


def _with_position(args: dict[str, Any], i: int, item: object) -> dict[str, Any]:
    position = list(args["position"])
    position[i] = item
    return {**args, "position": tuple(position)}


def test_the_raw_arguments_work() -> None:
    view, args = _arguments()
    out = _search(**args)
    assert sorted(code for code, *_ in out) == sorted(native.code_of(m) for m in view.legal_moves)
    assert sum(count for _, count, _, _, _ in out) == 10


def test_bad_arguments_raise_value_error() -> None:
    view, args = _arguments()
    position = args["position"]
    hand, table, unseen = position[1], position[2], position[8]
    first_unseen = (unseen & -unseen)
    bad: list[dict[str, Any]] = [
        {**args, "rules": (1 << 20, 0)},
        {**args, "rules": (args["rules"][0], -1)},
        {**args, "rules": "widelec"},
        {**args, "rules": (0x0001 | 0x0008, 12)},  # quartets on a tree
        {**args, "rules": (0x0001 | 0x0002, 14)},  # more tiles than a move's number holds
        _with_position(args, 0, 2),  # seat
        _with_position(args, 1, 0),  # an empty hand
        _with_position(args, 1, 1 << 28),  # not a tile
        _with_position(args, 1, hand | first_unseen),  # a tile both held and unseen
        _with_position(args, 2, [*table, 19999]),  # not a move
        _with_position(args, 2, [*table, table[0]]),  # a tile laid twice
        _with_position(args, 2, table[1:]),  # no lead; tiles missing
        _with_position(args, 2, [5, *table]),  # not a real move
        _with_position(args, 3, (-1, 0)),  # points
        _with_position(args, 4, 1 - view.seat),  # the seat is not to move
        _with_position(args, 6, first_unseen.bit_length() - 1),  # a pending tile not held
        _with_position(args, 7, 3),  # passes
        _with_position(args, 8, unseen & ~first_unseen),  # a tile nowhere
        _with_position(args, 9, 29),  # the opponent's count
        _with_position(args, 10, 99),  # the boneyard
        {**args, "position": position[:5]},
        {**args, "limits": [(128, 0)]},
        {**args, "limits": [(3, -1)]},
        {**args, "limits": [(3,)]},
        {**args, "limits": [(1, 0)] * 1000},
        {**args, "value": None},  # ismcts needs a value
        {**args, "value": (0, 0, 0, 6.6, 12.5, 1, 0, None, 0.0, 0.0)},  # target
        {**args, "value": (0, 0, 61, float("nan"), 12.5, 1, 0, None, 0.0, 0.0)},
        {**args, "value": (0, 0, 61, 6.6, 12.5, 1, 0, (1,), 0.0, 0.0)},
        {**args, "value": (0, 0, 61, 6.6, 12.5, 1, 0, None, 0.0)},  # no lead
        {**args, "value": (0, 0, 61, 6.6, 12.5, 1, 0, None, 1.5, 0.0)},  # weight above 1
        {**args, "value": (0, 0, 61, 6.6, 12.5, 1, 0, None, 0.0, float("inf"))},  # lead
        {**args, "budget": (0, None, 0.7)},
        {**args, "budget": (10_000_001, None, 0.7)},
        {**args, "budget": (10, -1.0, 0.7)},
        {**args, "budget": (10, None, float("inf"))},
        {**args, "kind": "mcts"},
        {**args, "seed": -1},
        {**args, "seed": 1 << 64},
        {**args, "seed": 1.5},
        {**args, "greedy": 1.5},  # the opponent's greedy share is a chance
        {**args, "greedy": -0.1},
        {**args, "greedy": float("nan")},
        {**args, "greedy": "all"},
        {**args, "world": (0, [])},
        {**args, "world": (first_unseen, [0])},
    ]
    for i, arguments in enumerate(bad):
        with pytest.raises(ValueError):
            _search(**arguments)
            pytest.fail(f"bad argument set {i} was accepted")
    sample = cast(Any, native.engine()).sample_worlds
    wrong: list[tuple[object, ...]] = [
        (1 << 28, 0, [], 1, 0), (7, 4, [], 1, 0), (7, 1, [], 0, 0), (7, 1, [(200, 0)], 1, 0),
        (7, 1, [], 1, -5), (7, 1, None, 1, 0)]
    for arguments_of_sample in wrong:
        with pytest.raises(ValueError):
            sample(*arguments_of_sample)
