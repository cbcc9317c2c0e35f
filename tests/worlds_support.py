"""Small positions late in a hand and the worlds that explain them, by brute force: the
engine replays every candidate world from the start (tests of the world sampler and of the
opponent models that weigh its worlds)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from dominolab.core import (
    Deal,
    Draw,
    Hand,
    InvalidMoveError,
    Options,
    Play,
    Tile,
    View,
    get_game,
    view_of,
)
from dominolab.core.worlds import HiddenWorlds

#: candidate worlds a brute-force enumeration may replay
ENUMERATION_MAX = 12000


def late_position(game: str, options: Options | None, seed: int, *, unseen_max: int,
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
                    and enumeration_size(view, worlds) <= ENUMERATION_MAX):
                found = (hand.copy(), view)
                best = facts
        legal = hand.legal_moves()
        hand.apply_unchecked(legal[rng.randrange(len(legal))])
    return found


def enumeration_size(view: View, worlds: HiddenWorlds) -> int:
    """How many (opponent's tiles, hidden draws' tiles) pairs the brute force replays."""
    _, hidden, laid, public = structure_of(view)
    free = view.opponent_tiles + len([t for t in laid if t not in public])
    return math.comb(len(view.unseen()), view.opponent_tiles) * math.perm(free, len(hidden))


def structure_of(view: View) -> tuple[list[int], list[int], list[Tile], set[Tile]]:
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


def replay(hand: Hand[Any], view: View, theirs: Sequence[Tile], drawn: dict[int, Tile],
           structure: tuple[list[int], list[int], list[Tile], set[Tile]] | None = None,
           visit: Callable[[Hand[Any], int], None] | None = None) -> Hand[Any] | None:
    """The hand replayed from its start in the complete world where the opponent holds
    ``theirs`` now and drew ``drawn`` (by history index) at their hidden draws, the seat's
    own deal and draws being the real ones; None unless the whole history is legal there
    (the engine's checked moves). ``visit(world, i)`` is called before each move i."""
    seat, opp = view.seat, 1 - view.seat
    draws, hidden, laid, public = structure or structure_of(view)
    pool = [*theirs, *(t for t in laid if t not in public)]
    initial = sorted(set(pool) - set(drawn.values()), key=lambda t: t.index)
    if len(initial) != len(hand.deal.hands[opp]) or not set(drawn.values()) <= set(pool):
        return None
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
        for i, (s, move) in enumerate(view.history):
            if world.to_move != s or move not in world.legal_moves():  # as Hand.apply checks
                return None
            if visit is not None:
                visit(world, i)
            world.apply_unchecked(move)
    except (InvalidMoveError, ValueError):
        return None
    return world if set(world.hands[opp]) == set(theirs) else None
