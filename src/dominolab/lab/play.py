"""The one play loop of the lab: a seeded match between two computer players.

Match ``seed`` is ``Match(game, options, seed=seed)``; the player in each seat is made from
its spec and seeded from the match seed and its seat (:func:`player_seed`), so with budgets
in worlds only (``pimc:20w``) or clockless players (``random``, ``greedy``) the same seed
plays the same match on any machine. In :func:`play_match` every move goes through the checked
``Match.apply`` (each hand's steps are kept), and the time of each player's ``choose`` call
is measured.

Two greedy players of the same kind (two ``greedy``, or two ``greedy-worst``) on the native
fast path play each hand there in one call
(:func:`dominolab.native.greedy_moves`): the same moves as one ``choose`` at a time, many
times faster. :func:`play_match` still applies them through the checked ``Match.apply``
(the arena needs the ``Match`` and each move's time; a natively played hand's time is shared
equally among its moves). A simulation needs only what its lines are made of
(:class:`~dominolab.lab.simfile.MatchFacts`): :func:`play_match_facts` plays such a match in
:func:`greedy_match_facts`, which keeps no ``Match`` and checks no move. It deals from
``Deal.for_hand`` and asks :func:`~dominolab.core.match.end_of_match` after each hand, as
``Match`` does, and gives the same facts, so the same file. Setting ``DOMINOLAB_CHECK_NATIVE=1``
replays every such match through the checked ``Match.apply`` and compares every hand's line
(:func:`check_match_facts`; tests/test_native_simulate.py does it always).
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from dominolab import native
from dominolab.core import (
    Deal,
    DominoError,
    GameSpec,
    HandResult,
    Match,
    Move,
    Options,
    View,
    get_game,
)
from dominolab.core.match import (
    end_of_match,
    first_opener_by_lot,
    opener_of_hand,
    points_to_win_at_once,
)
from dominolab.lab.simfile import HandFacts, MatchFacts, line_of_match, match_facts
from dominolab.players import (
    Budget,
    GreedyPlayer,
    Player,
    WorstCaseGreedyPlayer,
    make_player,
    parse_player_spec,
)

#: a match longer than this is a bug in the engine or a player, not a long match
MAX_MOVES_PER_MATCH: Final = 100_000
#: set to 1 to replay every natively played greedy match through the checked Match.apply
CHECK_ENV: Final = "DOMINOLAB_CHECK_NATIVE"


def player_seed(match_seed: int, seat: int) -> int:
    """The seed of the player in ``seat`` of the match with ``match_seed``. It depends on
    the seat, not on the player: two copies of one player facing each other play both
    matches of a pair identically, seats swapped, so self-play scores exactly even."""
    return 2 * match_seed + seat


def resolve_player(spec: str, budget: Budget | str | None = None) -> tuple[str, Budget | None]:
    """A player spec (``expert:0.5s``, ``greedy``, ``medium``) -> (player, budget): the
    spec's own budget (or its level's), else ``budget``, else None (the player's default).
    Raises :class:`~dominolab.core.OptionError` for an unknown player or a bad budget."""
    name, own = parse_player_spec(spec)
    if own is not None:
        return name, own
    if isinstance(budget, str):
        budget = Budget.parse(budget) if budget.strip() else None
    return name, budget


def player_label(name: str, budget: Budget | None) -> str:
    """``name`` or ``name:budget``, the way a player spec is written."""
    return name if budget is None else f"{name}:{budget}"


@dataclass(frozen=True, slots=True)
class PlayedMatch:
    """A finished match and each seat's thinking time per move (``seconds[seat]``, in the
    order the seat moved)."""

    match: Match
    seconds: tuple[tuple[float, ...], tuple[float, ...]]


#: ``observe(view, move)``: called with the mover's view and its move, before it is applied
Observer = Callable[[View, Move], None]


def play_match(game: str, options: Options, match_seed: int, players: Sequence[str],
               budgets: Sequence[Budget | None] = (None, None), *,
               make: Callable[[str, int], Player] = make_player,
               observe: Observer | None = None) -> PlayedMatch:
    """Play one whole match, ``players[seat]`` with ``budgets[seat]`` in each seat, each
    made by ``make(name, seed)`` (the registry's :func:`~dominolab.players.make_player`
    unless a caller has players of its own, as the training data's perturbed ones). A player
    that sees every tile (``sees_all``, the omniscient one) is handed a copy of the hand
    state each move. ``observe``: told every move with the view it was chosen in (the
    training data). Raises RuntimeError if the match does not end."""
    match = Match(game, options, seed=match_seed)
    bots = [make(players[seat], player_seed(match_seed, seat)) for seat in (0, 1)]
    seconds: tuple[list[float], list[float]] = ([], [])
    clock = time.perf_counter
    worst = _greedy_rule([type(bot) for bot in bots])
    if native.enabled() and worst is not None and observe is None:
        return _greedy_natively(match, seconds, worst)
    for _ in range(MAX_MOVES_PER_MATCH):
        seat = match.to_move
        if seat is None:
            return PlayedMatch(match, (tuple(seconds[0]), tuple(seconds[1])))
        bot = bots[seat]
        view = match.view(seat)
        if getattr(bot, "sees_all", False):
            hand = match.hand.copy()
            start = clock()
            move = bot.choose_seeing(hand, view, budgets[seat])  # type: ignore[attr-defined]
        else:
            start = clock()
            move = bot.choose(view, budgets[seat])
        seconds[seat].append(clock() - start)
        if observe is not None:
            observe(view, move)
        match.apply(move)
    raise RuntimeError(f"{game} seed {match_seed}: no end after {MAX_MOVES_PER_MATCH} moves")


def _greedy_natively(match: Match, seconds: tuple[list[float], list[float]],
                     worst: bool = False) -> PlayedMatch:
    """Greedy against greedy (``worst``: the worst-case greedy on both seats), each hand
    played on the native fast path in one call."""
    clock = time.perf_counter
    while not match.is_over:
        start = clock()
        moves = native.greedy_moves(match.hand, worst)
        if not moves:
            raise RuntimeError(f"{match.spec.name} seed {match.seed}: the native path "
                               f"returned no move for hand {match.hand_number}")
        share = (clock() - start) / len(moves)
        for move in moves:
            seat = match.to_move
            assert seat is not None
            seconds[seat].append(share)
            match.apply(move)
            if match.is_over:
                break
    return PlayedMatch(match, (tuple(seconds[0]), tuple(seconds[1])))


def _greedy_rule(kinds: Sequence[type]) -> bool | None:
    """Whether two players are the same greedy, which the native loop plays: False for two
    expected-answer greedies (``greedy``), True for two worst-case ones (``greedy-worst``),
    None otherwise."""
    if all(kind is GreedyPlayer for kind in kinds):
        return False
    if all(kind is WorstCaseGreedyPlayer for kind in kinds):
        return True
    return None


def _greedy_names(names: Sequence[str]) -> bool | None:
    return _greedy_rule([type(make_player(name, 0)) for name in names])


def play_match_facts(game: str, options: Options, match_seed: int, players: Sequence[str],
                     budgets: Sequence[Budget | None] = (None, None)) -> MatchFacts:
    """Play one whole match as :func:`play_match` does and return what its lines in a
    simulation file are made of. Two greedy players on the native fast path play it in
    :func:`greedy_match_facts` (checked too when ``DOMINOLAB_CHECK_NATIVE=1``); any other
    match is played by :func:`play_match`."""
    worst = _greedy_names(players)
    if native.enabled() and worst is not None:
        spec = get_game(game)
        facts = greedy_match_facts(spec, options, match_seed, worst)
        if os.environ.get(CHECK_ENV, "") not in ("", "0"):
            check_match_facts(spec, options, facts)
        return facts
    return match_facts(play_match(game, options, match_seed, players, budgets).match)


def greedy_match_facts(spec: GameSpec, options: Options, match_seed: int,
                       worst: bool = False) -> MatchFacts:
    """Greedy against greedy (``worst``: the worst-case greedy on both seats), match
    ``match_seed`` of ``spec`` under ``options``, on the native fast path without a
    ``Match``: each hand dealt by ``Deal.for_hand`` and played to its end in one native call
    (:func:`dominolab.native.greedy_hand_facts`), stopping
    mid-hand where a seat would win at once (:func:`~dominolab.core.match.points_to_win_at_once`);
    after each hand :func:`~dominolab.core.match.end_of_match` says whether the match is
    over, as it does for ``Match``. The facts are those of the same match played through
    ``Match`` (:func:`check_match_facts`). RuntimeError if the native path stops a hand
    where the match goes on, or the match does not end."""
    first = first_opener_by_lot(match_seed)
    banked = (0, 0)
    hands: list[HandFacts] = []
    moves = 0
    for number in itertools.count(1):
        opener = opener_of_hand(first, number)
        steps, end, winner, points, bonus, left = native.greedy_hand_facts(
            spec, options, Deal.for_hand(match_seed, number, spec.hand_size), opener,
            points_to_win_at_once(banked, options), worst)
        totals = (banked[0] + points[0], banked[1] + points[1])
        result = end_of_match(totals, number, end is not None, options)
        if end is not None:
            hand = HandResult(end, winner, points, bonus)
        elif result is not None:
            hand = HandResult("target", None, points)  # cut as WidelecHand.cut cuts it
        else:
            raise RuntimeError(f"{spec.name} seed {match_seed}: the native path stopped hand "
                               f"{number} but the match goes on")
        hands.append(HandFacts(opener, hand, steps, left))
        if result is not None:
            return MatchFacts(match_seed, first, result, hands)
        banked = totals
        moves += len(steps)
        if moves > MAX_MOVES_PER_MATCH:
            break
    raise RuntimeError(f"{spec.name} seed {match_seed}: no end after {MAX_MOVES_PER_MATCH} moves")


def check_match_facts(spec: GameSpec, options: Options, facts: MatchFacts) -> None:
    """Replay a match's moves through the checked ``Match.apply`` (the reference rules check
    each of them) and compare every hand's line and the match line with those ``facts``
    give. RuntimeError naming the first difference: a move the reference refuses, moves
    left over or missing at the match's end, or a line that differs."""
    match = Match(spec, options, seed=facts.seed)
    where = f"{spec.name} seed {facts.seed}"
    for number, hand in enumerate(facts.hands, start=1):
        for k, (_, move, _, _) in enumerate(hand.steps, start=1):
            try:
                match.apply(move)
            except DominoError as exc:
                raise RuntimeError(f"{where}, hand {number}, move {k} ({move}): the "
                                   f"reference refuses it: {exc}") from exc
    if not match.is_over:
        raise RuntimeError(f"{where}: the reference match is not over after the moves")
    ours, theirs = line_of_match(spec, 0, facts), line_of_match(spec, 0, match_facts(match))
    for a, b in itertools.zip_longest(ours.hands, theirs.hands):
        if a != b:
            raise RuntimeError(f"{where}: the line of a hand differs: {a} (native) against "
                               f"{b} (reference)")
    if ours != theirs:
        raise RuntimeError(f"{where}: the match line differs: {ours} (native) against "
                           f"{theirs} (reference)")


__all__ = ["CHECK_ENV", "MAX_MOVES_PER_MATCH", "PlayedMatch", "check_match_facts",
           "greedy_match_facts", "play_match", "play_match_facts", "player_label",
           "player_seed", "resolve_player"]
