"""The one play loop of the lab: a seeded match between two computer players.

Match ``seed`` is ``Match(game, options, seed=seed)``; the player in each seat is made from
its spec and seeded from the match seed and its seat (:func:`player_seed`), so with budgets
in worlds only (``pimc:20w``) or clockless players (``random``, ``greedy``) the same seed
plays the same match on any machine. Every move goes through the checked ``Match.apply``
(each hand's steps are kept), and the time of each player's ``choose`` call is measured.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from dominolab.core import Match, Options
from dominolab.players import Budget, make_player, parse_player_spec

#: a match longer than this is a bug in the engine or a player, not a long match
MAX_MOVES_PER_MATCH: Final = 100_000


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


def play_match(game: str, options: Options, match_seed: int, players: Sequence[str],
               budgets: Sequence[Budget | None] = (None, None)) -> PlayedMatch:
    """Play one whole match, ``players[seat]`` with ``budgets[seat]`` in each seat. A player
    that sees every tile (``sees_all``, the omniscient one) is handed a copy of the hand
    state each move. Raises RuntimeError if the match does not end."""
    match = Match(game, options, seed=match_seed)
    bots = [make_player(players[seat], player_seed(match_seed, seat)) for seat in (0, 1)]
    seconds: tuple[list[float], list[float]] = ([], [])
    clock = time.perf_counter
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
        match.apply(move)
    raise RuntimeError(f"{game} seed {match_seed}: no end after {MAX_MOVES_PER_MATCH} moves")


__all__ = ["MAX_MOVES_PER_MATCH", "PlayedMatch", "play_match", "player_label", "player_seed",
           "resolve_player"]
