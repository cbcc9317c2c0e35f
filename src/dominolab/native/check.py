"""The fast path checked against the reference rules, hand by hand (``dominolab bench engine
--check N``).

Random hands are dealt and played natively (:func:`dominolab.native.hand_records`); each
is then replayed through the reference (:mod:`dominolab.core`, with the checked
``Hand.apply``) beside a native state, and at every move the two must agree on the legal
moves (in order), the points of the move and the table count (count games); at the end on
the points, how the hand ended, its winner and its bonus. A native move the reference
refuses is reported like any other difference, never raised.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from dominolab.core import TILES, Deal, DominoError, GameSpec, Hand, Options, Tile
from dominolab.native import code_of, engine, hand_records, move_of, rules_of

if TYPE_CHECKING:
    from dominolab.native._engine import HandRecord

#: hands recorded per native call (a record is kept only until it is replayed)
CHUNK: Final = 10_000
#: how often ``progress`` hears of the hands done
PROGRESS_EVERY: Final = 1000
#: the engine's END_* numbers, as :attr:`HandResult.end <dominolab.core.HandResult>` says them
ENDS: Final = {1: "tiles", 2: "domino", 3: "block"}
#: moves named in a message about differing legal moves
_SHOWN: Final = 8


@dataclass(frozen=True, slots=True)
class CheckResult:
    """What a check found: the hands and moves replayed, and one line for each hand where
    the fast path and the reference differ (naming the hand and the move)."""

    hands: int
    moves: int
    mismatches: tuple[str, ...]


def chunk_seed(seed: int, chunk: int) -> int:
    """The seed of the ``chunk``-th batch of :data:`CHUNK` hands: the first batch is exactly
    ``hand_records(spec, options, count, seed)``."""
    return (seed + chunk * 0x9E3779B97F4A7C15) & ((1 << 64) - 1)


def check_hands(spec: GameSpec, options: Options, count: int, seed: int,
                progress: Callable[[int], None] | None = None) -> CheckResult:
    """Deal and play ``count`` random hands natively and replay each through the reference
    rules; ``progress(hands_done)`` is called now and then. RuntimeError without the fast
    path."""
    engine()
    flags, per_hand = rules_of(spec, options)
    mismatches: list[str] = []
    hands = moves = 0
    for chunk, start in enumerate(range(0, count, CHUNK)):
        batch_seed = chunk_seed(seed, chunk)
        for i, record in enumerate(hand_records(spec, options, min(CHUNK, count - start),
                                                batch_seed)):
            where = f"{spec.name} hand {start + i + 1} (records seed {batch_seed}, #{i})"
            moves += replay_record(spec, options, (flags, per_hand), record, where,
                                   mismatches)
            hands += 1
            if progress is not None and hands % PROGRESS_EVERY == 0:
                progress(hands)
    if progress is not None and hands % PROGRESS_EVERY:
        progress(hands)
    return CheckResult(hands, moves, tuple(mismatches))


def replay_record(spec: GameSpec, options: Options, rules: tuple[int, int],
                  record: HandRecord, where: str, mismatches: list[str]) -> int:
    """Replay one recorded hand through the reference beside a native state; each difference
    found is appended to ``mismatches`` (the replay stops at the first). Returns the moves
    replayed."""
    hand0, hand1, rest, opener, codes, points, end, winner, bonus = record
    deal = Deal((_tiles(hand0), _tiles(hand1)), tuple(TILES[i] for i in rest))
    hand: Hand[Any] = spec.hand_class(deal, opener, options)
    from dominolab.native._engine import State

    state = State(rules[0], rules[1], hand0, hand1, rest, opener)
    for i, code in enumerate(codes):
        at = f"{where}, move {i + 1}"
        if hand.result is not None:
            mismatches.append(f"{at}: the reference hand is over ({hand.result.end}), the "
                              f"native one goes on with {_shown(code)}")
            return i
        reference = [code_of(m) for m in hand.legal_moves()]
        native = state.legal()
        if reference != native:
            mismatches.append(f"{at}: legal moves differ: reference {_listed(reference)}, "
                              f"native {_listed(native)}")
            return i
        try:
            move = move_of(code)
        except KeyError:
            mismatches.append(f"{at}: the native move #{code} is no move")
            return i
        try:
            step = hand.apply(move)
        except DominoError as exc:
            mismatches.append(f"{at}: the reference refuses {move}: {exc}")
            return i
        got = state.apply(code)
        if step.points != got:
            mismatches.append(f"{at} {move}: points {step.points} in the reference, {got} "
                              f"natively")
            return i + 1
        if spec.has_count and step.count != state.count:
            mismatches.append(f"{at} {move}: table count {step.count} in the reference, "
                              f"{state.count} natively")
            return i + 1
    result = hand.result
    if result is None:
        mismatches.append(f"{where}: the native hand ended after {len(codes)} moves, the "
                          f"reference one goes on")
        return len(codes)
    native_end = (ENDS.get(end, str(end)), None if winner < 0 else winner, points, bonus)
    reference_end = (result.end, result.winner, result.points, result.bonus)
    if native_end != reference_end:
        mismatches.append(f"{where}, end: (end, winner, points, bonus) {reference_end} in the "
                          f"reference, {native_end} natively")
    return len(codes)


def _tiles(mask: int) -> tuple[Tile, ...]:
    return tuple(t for t in TILES if mask >> t.index & 1)


def _shown(code: int) -> str:
    """A move code as the move's text (``#code`` if it is no move)."""
    try:
        return str(move_of(code))
    except KeyError:
        return f"#{code}"


def _listed(codes: Sequence[int]) -> str:
    shown = " ".join(_shown(c) for c in codes[:_SHOWN])
    return f"[{shown}{' ...' if len(codes) > _SHOWN else ''}] ({len(codes)})"


__all__ = ["CHUNK", "CheckResult", "check_hands", "chunk_seed", "replay_record"]
