"""The exact world sampler (core/worlds.py ``HiddenWorlds``) against brute force.

The posterior over what a seat cannot see (RULES.md §1 hidden information) is uniform over
the complete worlds — the opponent's dealt tiles and the boneyard's order — under which the
history is legal: a luzak proves no normal play (RULES.md §2, §3), a draw or a pass proves
no playable tile, and a drawn tile that fits is laid at once or kept (RULES.md §4). Here
every candidate world of small positions late in a hand is replayed by the engine itself
(checked moves), and the sampler's frequencies of each tile being in the opponent's hand
(and, in Widelec, of each hidden draw's tile) must match the enumeration within 5 standard
errors of the sample (a tolerance that a correct sampler exceeds with chance < 1e-5 per
figure; the seeds are fixed, so the test is deterministic).
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from typing import Any

import pytest

from dominolab import native
from dominolab.core import (
    TILES,
    Deal,
    Hand,
    LuzakOptions,
    Options,
    Tile,
    View,
    WidelecOptions,
    get_game,
    view_of,
)
from dominolab.core.worlds import HiddenWorlds, Limit, opponent_limits
from dominolab.native import search as native_search
from worlds_support import (
    ENUMERATION_MAX,
    enumeration_size,
    late_position,
    replay,
    structure_of,
)

#: any limits: ask the native sampler for the inferred posterior
_ANY = (Limit(frozenset(), 0),)

SAMPLES = 6000


_BRUTE: dict[int, tuple[Counter[Tile], Counter[tuple[int, Tile]], int]] = {}


def _brute_force(hand: Hand[Any], view: View
                 ) -> tuple[Counter[Tile], Counter[tuple[int, Tile]], int]:
    """Once per view (cached): every (opponent's tiles now, hidden draws' tiles) the engine
    accepts: how often each tile is held, how often each hidden draw (by history index) took
    each tile, the total. Each such pair stands for the same number of complete worlds (the
    undrawn tiles' orders)."""
    if id(view) in _BRUTE:
        return _BRUTE[id(view)]
    structure = structure_of(view)
    _, hidden, laid, public = structure
    held: Counter[Tile] = Counter()
    took: Counter[tuple[int, Tile]] = Counter()
    total = 0
    for theirs in itertools.combinations(view.unseen(), view.opponent_tiles):
        pool = [*theirs, *(t for t in laid if t not in public)]
        for drawn in itertools.permutations(pool, len(hidden)):
            world = dict(zip(hidden, drawn, strict=True))
            if replay(hand, view, theirs, world, structure) is not None:
                total += 1
                held.update(theirs)
                took.update(zip(hidden, drawn, strict=True))
    _BRUTE[id(view)] = held, took, total
    return held, took, total


def _close(freq: float, p: float, n: int) -> bool:
    return abs(freq - p) <= 5 * math.sqrt(max(p * (1 - p), 1 / n) / n)


CASES: list[tuple[str, Options | None, int, int]] = [
    ("luzak", None, 11, 1),
    ("luzak", LuzakOptions(short_ends_any_time=False), 11, 1),
    ("luzak-line", None, 11, 1),
    ("widelec", None, 14, 2),
    ("widelec", WidelecOptions(must_play_drawn=False), 14, 2),
]


def _cases() -> list[tuple[str, Options | None, Hand[Any], View]]:
    out = []
    for game, options, unseen_max, facts in CASES:
        got = 0
        for seed in range(400):
            found = late_position(game, options, seed, unseen_max=unseen_max, want_draws=facts)
            if found is not None:
                out.append((game, options, *found))
                got += 1
                if got == 3:
                    break
        assert got, f"no test position for {game} {options}"
    return out


_CASES = _cases()


@pytest.mark.parametrize(("game", "options", "hand", "view"), _CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(_CASES)])
def test_frequencies_match_brute_force(game: str, options: Options | None, hand: Hand[Any],
                                       view: View) -> None:
    """RULES.md §2-§4: the sampler's tile frequencies (the opponent's hand, and each hidden
    draw's tile) equal the brute-force posterior, whichever way it is asked (the whole
    world, the opponent's tiles and the rest, or the opponent's tiles and its draws), and
    every sampled world replays."""
    held, took, total = _brute_force(hand, view)
    assert total > 0 and held[next(iter(held))] >= 0
    worlds = HiddenWorlds(view)
    assert worlds.total * 1 > 0
    rng = random.Random(7)
    seen: Counter[Tile] = Counter()
    seen_draws: Counter[tuple[int, Tile]] = Counter()
    for _ in range(SAMPLES):
        theirs, _, drawn = worlds.sample_draws(rng)
        seen.update(theirs)
        seen_draws.update(drawn.items())
    fast: Counter[Tile] = Counter()
    for _ in range(SAMPLES):
        fast.update(worlds.sample(rng)[0])
    hands: Counter[Tile] = Counter()
    hand_draws: Counter[tuple[int, Tile]] = Counter()
    for _ in range(SAMPLES):
        theirs, drawn = worlds.sample_hand(rng)
        hands.update(theirs)
        hand_draws.update(drawn.items())
    for tile in view.unseen():
        p = held[tile] / total
        for counted in (seen, fast, hands):
            assert _close(counted[tile] / SAMPLES, p, SAMPLES), (tile, counted[tile], p)
    for key in set(took) | set(seen_draws) | set(hand_draws):
        p = took[key] / total
        assert _close(seen_draws[key] / SAMPLES, p, SAMPLES), (key, p)
        assert _close(hand_draws[key] / SAMPLES, p, SAMPLES), (key, p)


@pytest.mark.skipif(not native.enabled(), reason="the C extension is not in use")
@pytest.mark.parametrize(("game", "options", "hand", "view"), _CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(_CASES)])
def test_native_sampler_matches_brute_force(game: str, options: Options | None,
                                            hand: Hand[Any], view: View) -> None:
    """The native search's sampler (csrc/search.c) deals from the same exact posterior."""
    held, _, total = _brute_force(hand, view)
    deals = native_search.sample_worlds(view, opponent_limits(view) or _ANY, SAMPLES, seed=3)
    seen: Counter[Tile] = Counter(t for theirs, _ in deals for t in theirs)
    for theirs, rest in deals:
        assert set(theirs) | set(rest) == set(view.unseen()) and held[theirs[0]] > 0
    for tile in view.unseen():
        p = held[tile] / total
        assert _close(seen[tile] / SAMPLES, p, SAMPLES), (tile, seen[tile] / SAMPLES, p)


@pytest.mark.parametrize("options", [WidelecOptions(), WidelecOptions(must_play_drawn=False)])
def test_sampled_widelec_worlds_always_replay(options: WidelecOptions) -> None:
    """RULES.md §4: at every position of random hands (both seats' views, any size), every
    sampled world — the opponent's tiles and their hidden draws — replays the whole history
    legally, and the Python search's and the native sampler's deals are consistent too."""
    spec = get_game("widelec")
    checked = 0
    for seed in range(6):
        rng = random.Random(100 + seed)
        hand = spec.hand_class(Deal.shuffle(rng, 7), seed % 2, options)
        step = 0
        while hand.result is None:
            step += 1
            view = view_of(hand, hand.to_move if step % 2 else 1 - hand.to_move)
            if view.pending is None and step % 3 == 0:
                worlds = HiddenWorlds(view)
                for _ in range(5):
                    theirs, _, drawn = worlds.sample_draws(rng)
                    assert replay(hand, view, theirs, drawn) is not None, (
                        view.history, theirs, drawn)
                    checked += 1
            legal = hand.legal_moves()
            hand.apply_unchecked(legal[rng.randrange(len(legal))])
    assert checked > 100


def test_openspiel_resampling_is_exact_and_never_retries() -> None:
    """The OpenSpiel adapter's resample_from_infostate deals from the same exact posterior
    (RULES.md §4): every try gives a world that replays (no rejection), and at a position
    with hidden draws the opponent's resampled tiles match the brute-force frequencies."""
    pyspiel = pytest.importorskip("pyspiel")
    import dominolab.integrations.openspiel as adapter

    game = pyspiel.load_game("python_widelec")
    rng = random.Random(11)
    chosen = None
    for _ in range(12):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
                continue
            for player in (0, 1):
                assert adapter._world_actions(state._core, player, rng) is not None
            player = 1 - state.current_player()
            view = state.view(player)
            worlds = HiddenWorlds(view)
            if (chosen is None and len(worlds.draws) >= 2 and view.opponent_tiles >= 2
                    and len(view.unseen()) > view.opponent_tiles
                    and enumeration_size(view, worlds) <= ENUMERATION_MAX):
                chosen = state.clone(), player
            state.apply_action(rng.choice(state.legal_actions()))
    assert chosen is not None
    state, player = chosen
    core = state._core
    hand = state.hand
    # the same hand with the boneyard in its real draw order, for the brute force
    drawn = [TILES[r[2]] for r in core.record if r[2] >= 0]
    deal = Deal(hand.deal.hands, (*drawn, *(t for t in hand.deal.rest if t not in drawn)))
    real = type(hand)(deal, hand.opener, hand.options)
    for _, move in hand.moves:
        real.apply(move)
    view = view_of(real, player)
    held, _, total = _brute_force(real, view)
    n = 500
    sampler = pyspiel.UniformProbabilitySampler(3, 0.0, 1.0)
    seen: Counter[Tile] = Counter()
    for _ in range(n):
        other = state.resample_from_infostate(player, sampler)
        seen.update(other.hand.hands[1 - player])
    for tile in view.unseen():
        p = held[tile] / total
        assert _close(seen[tile] / n, p, n), (tile, seen[tile] / n, p)
