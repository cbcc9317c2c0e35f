"""The native fast path: a C extension (``dominolab.native._engine``) for the loops that run
millions of times — dealing, legal moves, applying a move, playouts and the search.

The Python core (:mod:`dominolab.core`) stays the readable reference: the rules live there
once, and the fast path is checked against it move by move (tests/test_native_engine.py,
``dominolab bench engine --check N``). The extension is optional: installed without a C
compiler, everything runs on the pure-Python path, which :func:`status` names.

Moves cross the boundary as small integers (:func:`code_of`, :func:`move_of`); a game's
rules cross it as flags made from its :class:`~dominolab.core.GameSpec` and options
(:func:`rules_of`), never from its name.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from dominolab.core import (
    DRAW,
    KEEP,
    PASS,
    PORTS,
    TILES,
    Deal,
    GameSpec,
    Hand,
    Move,
    Options,
    Play,
    Tile,
    View,
    get_game,
)
from dominolab.core.moves import play
from dominolab.core.quartets import QUARTET_WORTH
from dominolab.core.view import view_of
from dominolab.core.worlds import check_world, open_values, passes_in_a_row, proven_absent

if TYPE_CHECKING:
    from dominolab.native._engine import HandRecord, State

#: set to 1 to run on the pure-Python path even where the extension is built
PURE_ENV: Final = "DOMINOLAB_PURE"


def _load() -> tuple[ModuleType | None, str | None]:
    """The extension, set up, or None with why it is not there."""
    if importlib.util.find_spec("dominolab.native._engine") is None:
        return None, "the native part is not built (no C compiler when it was installed)"
    try:
        _engine = importlib.import_module("dominolab.native._engine")
    except ImportError as exc:
        return None, f"the native part does not load ({exc})"
    _engine.setup(bytes(w for table in QUARTET_WORTH for row in table for w in row))
    return _engine, None


_ENGINE, _MISSING = _load()
_enabled: bool = _ENGINE is not None and os.environ.get(PURE_ENV, "") in ("", "0")


def enabled() -> bool:
    """True when the fast path is in use (built, and not turned off)."""
    return _enabled


def engine() -> ModuleType:
    """The extension module; RuntimeError when the fast path is not in use."""
    if not _enabled or _ENGINE is None:
        raise RuntimeError(f"the native fast path is not in use: {status()}")
    return _ENGINE


def status() -> str:
    """Which path is in use, in a few words (``dominolab --version`` and the benches)."""
    if _enabled:
        return "native (C extension)"
    if _ENGINE is None:
        return f"pure Python: {_MISSING}"
    return f"pure Python ({PURE_ENV}=1)"


def missing_warning() -> str | None:
    """One line for people when the extension is missing (not when it is turned off on
    purpose with DOMINOLAB_PURE=1); None when there is nothing to say."""
    if _ENGINE is not None:
        return None
    return (f"{_MISSING}; running on the pure-Python path, which is many times slower "
            f"(install a C compiler such as gcc and reinstall dominolab for the fast path)")


@contextmanager
def pure() -> Iterator[None]:
    """Run the block on the pure-Python path (side-by-side benches, tests of both paths)."""
    global _enabled
    before = _enabled
    _enabled = False
    try:
        yield
    finally:
        _enabled = before


# -- the boundary: rules and moves as numbers ---------------------------------------------

R_TREE: Final = 0x0001
R_LUZAKS: Final = 0x0002
R_LUZAK_PIPS: Final = 0x0004
R_QUARTETS: Final = 0x0008
R_BONEYARD: Final = 0x0010
R_OUT_BONUS: Final = 0x0020
R_END_OUT: Final = 0x0040
R_SHORT_ANY: Final = 0x0100
R_LUZAK_COUNT: Final = 0x0200
R_EDGE_DOUBLE: Final = 0x0400
R_MUST_PLAY_DRAWN: Final = 0x0800


def rules_of(spec: GameSpec, options: Options) -> tuple[int, int]:
    """(flags, tiles_per_hand) of a game under ``options``, from its spec's facts (the R_*
    flags of csrc/engine.h); tiles_per_hand is 0 for games that end when a seat goes out."""
    flags = 0
    for on, bit in (
        (spec.table == "tree", R_TREE), (spec.luzaks, R_LUZAKS),
        (spec.luzak_pips, R_LUZAK_PIPS), (spec.scoring == "quartets", R_QUARTETS),
        (spec.has_boneyard, R_BONEYARD), (spec.out_bonus, R_OUT_BONUS),
        (spec.hand_end == "out", R_END_OUT),
        (getattr(options, "short_ends_any_time", False), R_SHORT_ANY),
        (getattr(options, "luzak_scores_count", False), R_LUZAK_COUNT),
        (getattr(options, "edge_double", False), R_EDGE_DOUBLE),
        (getattr(options, "must_play_drawn", False), R_MUST_PLAY_DRAWN),
    ):
        if on:
            flags |= bit
    return flags, spec.tiles_per_hand or 0


_rules: Final = lru_cache(maxsize=64)(rules_of)


MV_DRAW: Final = 20000
#: ports a hand can reach: L, R and the tree ports of tiles 1..12 (a move's number holds 51)
_PORTS_USED: Final = 50
MV_PASS: Final = 20001
MV_KEEP: Final = 20002


def _play_code(tile: int, inner: int, port: int, luzak: bool) -> int:
    return ((tile * 7 + inner) * 51 + port + 1) * 2 + int(luzak)


def _all_moves() -> dict[int, Move]:
    moves: dict[int, Move] = {MV_DRAW: DRAW, MV_PASS: PASS, MV_KEEP: KEEP}
    for tile in TILES:
        moves[_play_code(tile.index, tile.hi, -1, False)] = play(tile, tile.hi, None)
        for inner in tile.halves:
            for port in PORTS[:_PORTS_USED]:
                for luzak in (False, True):
                    moves[_play_code(tile.index, inner, port.index, luzak)] = play(
                        tile, inner, port, luzak)
    return moves


_MOVES: Final = _all_moves()
_CODES: Final[dict[Move, int]] = {move: code for code, move in _MOVES.items()}


def code_of(move: Move) -> int:
    """A move as the fast path's number (csrc/engine.h); KeyError for a foreign value."""
    return _CODES[move]


def move_of(code: int) -> Move:
    """The move with this number (the shared value, as :func:`dominolab.core.play` gives)."""
    return _MOVES[code]


def moves_of(codes: list[int]) -> list[Move]:
    """Numbers to moves, in order."""
    table = _MOVES
    return [table[c] for c in codes]


def mask_of(tiles: object) -> int:
    """Tiles as a bit mask (bit ``t.index``)."""
    mask = 0
    for tile in tiles:  # type: ignore[attr-defined]
        mask |= 1 << tile.index
    return mask


# -- hand states on the fast path -----------------------------------------------------------

def _native_state() -> type[State]:
    """The extension's State type; RuntimeError when the fast path is not in use."""
    engine()
    from dominolab.native._engine import State

    return State


def _new_state(spec: GameSpec, options: Options, hands: Sequence[Sequence[Tile]],
               rest: Sequence[Tile], opener: int, table: Sequence[Play], to_move: int,
               points: Sequence[int], pending: Tile | None, passes: int) -> State:
    """A native state of a hand in progress: its tiles, its table laid tile by tile, and
    the position (seat to move, points, the drawn tile to lay, passes in a row)."""
    flags, per_hand = _rules(spec, options)
    state = _native_state()(flags, per_hand, mask_of(hands[0]), mask_of(hands[1]),
                            bytes(t.index for t in rest), opener)
    for mv in table:
        state.place(code_of(mv))
    state.set_position(to_move, points[0], points[1],
                       -1 if pending is None else pending.index, passes)
    return state


def state_of_hand(hand: Hand[Any]) -> State:
    """An exact native copy of a hand in progress (mid-hand too): the current hands, the
    boneyard in draw order (the Luzak games: the unused tiles), the table, the points, the
    seat to move, the drawn tile to lay and the passes in a row. ValueError once it is over."""
    if hand.result is not None:
        raise ValueError("the hand is over; there is nothing to copy to the fast path")
    spec = get_game(hand.GAME)
    table = hand.table_placements
    if spec.has_boneyard:
        rest: Sequence[Tile] = hand.boneyard[::-1]  # type: ignore[attr-defined]
    else:
        used = {*hand.hands[0], *hand.hands[1], *(mv.tile for mv in table)}
        rest = [t for t in TILES if t not in used]
    return _new_state(spec, hand.options, hand.hands, rest, hand.opener, table, hand.to_move,
                      hand.points, hand.pending, getattr(hand, "passes", 0))


def state_of_view(view: View, opponent: Sequence[Tile], rest: Sequence[Tile]) -> State:
    """The native state ``view`` describes, with ``opponent`` as the opponent's tiles and
    ``rest`` as the unused tiles (Luzak) or the boneyard, next draw first (Widelec): the
    native twin of :func:`dominolab.core.worlds.hand_from_view`, checked the same way
    (InvalidMoveError if the tiles do not fit the view)."""
    check_world(view, opponent, rest)
    return _view_state(view, opponent, rest)


def _view_state(view: View, opponent: Sequence[Tile], rest: Sequence[Tile]) -> State:
    """:func:`state_of_view` once its tiles are known to fit the view."""
    hands = (view.hand, opponent) if view.seat == 0 else (opponent, view.hand)
    to_move = view.to_move if view.to_move is not None else view.seat
    return _new_state(view.spec, view.options, hands, rest, view.opener, view.table, to_move,
                      view.hand_points, view.pending, passes_in_a_row(view.history))


def greedy_choice(view: View) -> Move:
    """The greedy player's choice (:class:`dominolab.players.greedy.GreedyPlayer`, the
    expected-answer greedy) for the view's seat, on the fast path. It reads only what the
    seat may see (the tiles the opponent is proven not to hold come from the view's
    history), so the unseen tiles are dealt to the opponent and the rest in any order.
    ValueError if the seat is not to move."""
    return _MOVES[_greedy_state(view).greedy_expected(mask_of(proven_absent(view)))]


def greedy_choice_holding(view: View, held: Sequence[Tile], absent: Iterable[Tile]) -> Move:
    """:func:`greedy_choice` in ``view`` had its seat held ``held`` instead of its own tiles
    (no check that the tiles fit the view's history): ``absent``, tiles the opponent is
    proven not to hold (any of ``held`` among them are ignored)."""
    return GreedyHolding(view, len(held)).choice(mask_of(held), mask_of(absent))


class GreedyHolding:
    """:func:`greedy_choice_holding` in one ``view`` for many hands of ``size`` tiles its
    seat might hold: the table is built once, and each hand asks the extension once
    (``State.greedy_expected_holding``)."""

    def __init__(self, view: View, size: int) -> None:
        if view.result is not None or view.to_move != view.seat:
            raise ValueError(f"seat {view.seat} is not to move: there is nothing to choose")
        on_table = {p.tile for p in view.table}
        free = [t for t in TILES if t not in on_table]
        k = view.opponent_tiles
        held, others = free[:size], free[size:]
        hands = (held, others[:k]) if view.seat == 0 else (others[:k], held)
        self._state = _new_state(view.spec, view.options, hands, others[k:], view.opener,
                                 view.table, view.seat, view.hand_points, None,
                                 passes_in_a_row(view.history))

    def choice(self, held: int, absent: int) -> Move:
        """The greedy's move had the seat held the tiles of mask ``held`` (``size`` of them,
        none on the table), ``absent`` the mask of tiles the opponent is proven to lack."""
        return _MOVES[self._state.greedy_expected_holding(held, absent)]


def greedy_worst_choice(view: View) -> Move:
    """The worst-case greedy's choice (:class:`dominolab.players.greedy.WorstCaseGreedyPlayer`)
    for the view's seat, on the fast path (as :func:`greedy_choice`)."""
    return _MOVES[_greedy_state(view).greedy()]


def _greedy_state(view: View) -> State:
    if view.result is not None or view.to_move != view.seat:
        raise ValueError(f"seat {view.seat} is not to move: there is nothing to choose")
    unseen = view.unseen()
    k = view.opponent_tiles
    return _view_state(view, unseen[:k], unseen[k:])


def _proof_of(hand: Hand[Any]) -> tuple[int, int, int, int]:
    """What each seat's moves so far prove it does not hold, as the native greedy hand keeps
    it up: (absent0, absent1, the seat that drew a fitting tile it must now lay or -1, the
    values open before that draw)."""
    absent = [mask_of(proven_absent(view_of(hand, 1 - seat))) for seat in (0, 1)]
    drew_seat, drew_vals = -1, 0
    if hand.pending is not None:  # the seat to move has just drawn it
        drew_seat = hand.to_move
        drew_vals = sum(1 << v for v in open_values(hand.table))
    return absent[0], absent[1], drew_seat, drew_vals


def greedy_moves(hand: Hand[Any], worst: bool = False) -> list[Move]:
    """The rest of ``hand`` as both seats would play it greedily (the expected-answer greedy,
    or with ``worst`` the worst-case one), computed on a native copy (``hand`` itself is
    untouched); empty once it is over."""
    if hand.result is not None:
        return []
    from dominolab.native._engine import greedy_hand

    if worst:
        return moves_of(greedy_hand(state_of_hand(hand)))
    return moves_of(greedy_hand(state_of_hand(hand), True, *_proof_of(hand)))


def best_quartets_worth(tiles: Sequence[Tile], edge_double: bool = True) -> int:
    """The worth of the best quartets of ``tiles`` on the fast path (the total of
    :func:`dominolab.core.best_quartets`)."""
    engine()
    from dominolab.native._engine import best_quartets_worth as worth

    return worth(mask_of(tiles), edge_double)


# -- random hands: the engine's benchmark, and its record -------------------------------------

def random_hands(spec: GameSpec, options: Options, count: int, seed: int) -> tuple[int, int]:
    """Deal and play ``count`` hands of ``spec`` by uniform random choice among the legal
    moves, natively in one call (the benchmark loop): (hands, moves). Hand ``h`` (from 0) is
    dealt by a shuffle from the native generator seeded with ``seed`` and opened by seat
    ``h & 1``."""
    engine()
    from dominolab.native import _engine

    flags, per_hand = rules_of(spec, options)
    return _engine.random_hands(flags, per_hand, spec.hand_size, count, seed & _SEED_MASK)


def hand_records(spec: GameSpec, options: Options, count: int, seed: int) -> list[HandRecord]:
    """The hands of :func:`random_hands` with the same arguments, each as (hand0, hand1, rest,
    opener, move codes, points, end, winner, bonus): hands as tile masks, rest as tile indices
    (the boneyard, next draw first), end 1 tiles / 2 domino / 3 block, winner -1 for none."""
    engine()
    from dominolab.native import _engine

    flags, per_hand = rules_of(spec, options)
    return _engine.random_hand_records(flags, per_hand, spec.hand_size, count,
                                       seed & _SEED_MASK)


#: seeds are the native generator's 64-bit state
_SEED_MASK: Final = (1 << 64) - 1
#: hands per call of the benchmark loop (each call a few milliseconds)
_BENCH_BATCH: Final = 2000


def bench_random_hands(spec: GameSpec, seconds: float, seed: int = 1) -> tuple[int, int, float]:
    """Random hands of ``spec`` (default options) on the fast path for about ``seconds``:
    (hands, moves, elapsed), as :func:`dominolab.lab.bench.engine.random_hands_fast` gives
    them for the pure-Python path. Each batch is seeded afresh from ``seed``."""
    options = spec.options_class()
    hands = moves = batch = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        h, m = random_hands(spec, options, _BENCH_BATCH, seed * 1_000_003 + batch)
        hands += h
        moves += m
        batch += 1
        now = time.perf_counter()
        if now >= deadline:
            return hands, moves, now - start


# -- the lab's greedy hands ---------------------------------------------------------------------

#: the move values by code (None where no move has that code), as greedy_hand_facts takes them
_MOVE_LIST: Final = [_MOVES.get(code) for code in range(MV_KEEP + 1)]
#: HandResult.end by the engine's END_* number; 0, not over, is None
_END_NAMES: Final = (None, "tiles", "domino", "block")
_TILE: Final = TILES.__getitem__

#: a greedy hand's facts: (steps, end, winner, points, bonus, left); see greedy_hand_facts
GreedyHand = tuple[list[tuple[int, Move, int, tuple[int, int]]], str | None, int | None,
                   tuple[int, int], int, tuple[tuple[Tile, ...], tuple[Tile, ...]]]


def greedy_hand_facts(spec: GameSpec, options: Options, deal: Deal, opener: int,
                      need: tuple[int, int] | None = None, worst: bool = False) -> GreedyHand:
    """``deal`` opened by ``opener``, played to its end by the greedy player on both seats
    natively in one call (the moves of :func:`greedy_moves`): ``(steps, end, winner,
    points, bonus, left)``, as :class:`~dominolab.core.HandResult` and
    :class:`~dominolab.core.Step` name them: each move as ``(seat, move, n, points)``; how
    the hand ended; its winner (None for none); each seat's points in it, the bonus
    included; the bonus; each seat's tiles left, in the order of the set.

    With ``need`` the hand stops after the move that brings ``points[seat]`` to
    ``need[seat]`` (the match is then won at once, RULES.md section 4): unless that move
    ended the hand, ``end`` is None and the rest of it is not played. A simulation plays a
    whole match of greedy hands this way (:mod:`dominolab.lab.play`). ``worst``: the
    worst-case greedy on both seats instead of the expected-answer one."""
    flags, per_hand = _rules(spec, options)
    steps, end, winner, points, bonus, left0, left1 = engine().greedy_hand_facts(
        flags, per_hand, mask_of(deal.hands[0]), mask_of(deal.hands[1]),
        bytes([t.index for t in deal.rest]), opener, need, _MOVE_LIST, not worst)
    return (steps, _END_NAMES[end], None if winner < 0 else winner, points, bonus,
            (tuple(map(_TILE, left0)), tuple(map(_TILE, left1))))


__all__ = ["PURE_ENV", "GreedyHand", "bench_random_hands", "best_quartets_worth", "code_of",
           "enabled", "engine", "greedy_choice", "greedy_hand_facts", "greedy_moves",
           "greedy_worst_choice",
           "hand_records", "mask_of", "move_of", "moves_of", "missing_warning", "pure",
           "random_hands", "rules_of", "state_of_hand", "state_of_view", "status"]
