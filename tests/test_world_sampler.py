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
from collections.abc import Sequence
from typing import Any

import pytest

from dominolab import native
from dominolab.core import (
    TILES,
    Deal,
    Draw,
    Hand,
    InvalidMoveError,
    LuzakOptions,
    Options,
    Play,
    Tile,
    View,
    WidelecOptions,
    get_game,
    view_of,
)
from dominolab.core.worlds import HiddenWorlds, Limit, opponent_limits
from dominolab.native import search as native_search

#: any limits: ask the native sampler for the inferred posterior
_ANY = (Limit(frozenset(), 0),)

SAMPLES = 6000
#: candidate worlds a brute-force enumeration may replay
ENUMERATION_MAX = 12000


def _position(game: str, options: Options | None, seed: int, *, unseen_max: int,
              want_draws: int) -> tuple[Hand[Any], View] | None:
    """A random-play position late in a hand, seat to move, with few unseen tiles and at
    least ``want_draws`` hidden draws (Widelec) or a luzak (Luzak games) by the opponent;
    of those, the one with the most hidden draws whose enumeration stays small."""
    spec = get_game(game)
    rng = random.Random(seed)
    hand = spec.hand_class(Deal.shuffle(rng, spec.hand_class.HAND_SIZE), seed % 2,
                           options or spec.options_class())
    found = None
    best = -1
    step = 0
    while hand.result is None:
        step += 1
        seat = hand.to_move if step % 2 else 1 - hand.to_move  # either seat's view
        view = view_of(hand, seat)
        if (len(view.unseen()) <= unseen_max and view.pending is None
                and view.opponent_tiles >= 2):
            worlds = HiddenWorlds(view)
            facts = len(worlds.draws) if spec.has_boneyard else sum(
                1 for s, m in view.history if s != seat and isinstance(m, Play) and m.luzak)
            if (facts >= want_draws and facts > best
                    and _enumeration_size(view, worlds) <= ENUMERATION_MAX):
                found = (hand.copy(), view)
                best = facts
        legal = hand.legal_moves()
        hand.apply_unchecked(legal[rng.randrange(len(legal))])
    return found


def _enumeration_size(view: View, worlds: HiddenWorlds) -> int:
    """How many (opponent's tiles, hidden draws' tiles) pairs the brute force replays."""
    _, hidden, laid, public = _structure(view)
    free = view.opponent_tiles + len([t for t in laid if t not in public])
    return math.comb(len(view.unseen()), view.opponent_tiles) * math.perm(free, len(hidden))


def _structure(view: View) -> tuple[list[int], list[int], list[Tile], set[Tile]]:
    """(every draw's history index, the opponent's hidden draws', the opponent's laid
    tiles, those laid at once after their draw)."""
    opp = 1 - view.seat
    history = view.history
    draws = [i for i, (s, m) in enumerate(history) if isinstance(m, Draw)]
    hidden = [i for i in draws if history[i][0] == opp and not (
        i + 1 < len(history) and history[i + 1][0] == opp and isinstance(history[i + 1][1], Play))]
    laid = [m.tile for s, m in history if s == opp and isinstance(m, Play)]
    public = {history[i + 1][1].tile for i in draws  # type: ignore[union-attr]
              if history[i][0] == opp and i not in hidden}
    return draws, hidden, laid, public


def _replays(hand: Hand[Any], view: View, theirs: Sequence[Tile], drawn: dict[int, Tile],
             structure: tuple[list[int], list[int], list[Tile], set[Tile]] | None = None
             ) -> bool:
    """Whether the whole history is legal (the engine's checked moves) in the complete world
    where the opponent holds ``theirs`` now and drew ``drawn`` (by history index) at their
    hidden draws; the seat's own deal and draws are the real ones."""
    seat, opp = view.seat, 1 - view.seat
    draws, hidden, laid, public = structure or _structure(view)
    pool = [*theirs, *(t for t in laid if t not in public)]
    initial = sorted(set(pool) - set(drawn.values()), key=lambda t: t.index)
    if len(initial) != len(hand.deal.hands[opp]) or not set(drawn.values()) <= set(pool):
        return False
    known_rest = list(hand.deal.rest)
    bone: list[Tile] = []
    for i in draws:
        bone.append(drawn[i] if i in hidden else known_rest[len(bone)])
    bone += [t for t in view.unseen() if t not in theirs]
    hands = [list(hand.deal.hands[seat]), initial]
    if seat == 1:
        hands.reverse()
    try:
        deal = Deal((tuple(hands[0]), tuple(hands[1])), tuple(bone))
        world = type(hand)(deal, hand.opener, view.options)
        for s, move in view.history:
            if world.to_move != s or move not in world.legal_moves():  # as Hand.apply checks
                return False
            world.apply_unchecked(move)
    except (InvalidMoveError, ValueError):
        return False
    return set(world.hands[opp]) == set(theirs)


_BRUTE: dict[int, tuple[Counter[Tile], Counter[tuple[int, Tile]], int]] = {}


def _brute_force(hand: Hand[Any], view: View
                 ) -> tuple[Counter[Tile], Counter[tuple[int, Tile]], int]:
    """Once per view (cached): every (opponent's tiles now, hidden draws' tiles) the engine
    accepts: how often each tile is held, how often each hidden draw (by history index) took
    each tile, the total. Each such pair stands for the same number of complete worlds (the
    undrawn tiles' orders)."""
    if id(view) in _BRUTE:
        return _BRUTE[id(view)]
    structure = _structure(view)
    _, hidden, laid, public = structure
    held: Counter[Tile] = Counter()
    took: Counter[tuple[int, Tile]] = Counter()
    total = 0
    for theirs in itertools.combinations(view.unseen(), view.opponent_tiles):
        pool = [*theirs, *(t for t in laid if t not in public)]
        for drawn in itertools.permutations(pool, len(hidden)):
            if _replays(hand, view, theirs, dict(zip(hidden, drawn, strict=True)), structure):
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
            found = _position(game, options, seed, unseen_max=unseen_max, want_draws=facts)
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
    draw's tile) equal the brute-force posterior, and every sampled world replays."""
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
    for tile in view.unseen():
        p = held[tile] / total
        assert _close(seen[tile] / SAMPLES, p, SAMPLES), (tile, seen[tile] / SAMPLES, p)
        assert _close(fast[tile] / SAMPLES, p, SAMPLES), (tile, fast[tile] / SAMPLES, p)
    for key in set(took) | set(seen_draws):
        p = took[key] / total
        assert _close(seen_draws[key] / SAMPLES, p, SAMPLES), (key, p)


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
                    assert _replays(hand, view, theirs, drawn), (view.history, theirs, drawn)
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
                    and _enumeration_size(view, worlds) <= ENUMERATION_MAX):
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
