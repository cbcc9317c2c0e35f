"""The learned players: the expert's learned reading of its opponent
(:class:`LearnedModel`) and the ``learned`` player (:class:`LearnedPlayer`), both asking a
network shipped with the package (:mod:`dominolab.players.policy`; made by ``dominolab
train``, :mod:`dominolab.lab.train`) with NumPy alone.

**The reading.** The ``reading`` network was fitted to the moves of many players (greedy
and searching ones, at several strengths, some of them blundering on purpose), so it says
how likely *a* player is to make each move in a position with a given hand. At each of the
opponent's past choices (:func:`~dominolab.players.beliefs.choice_views`: the same choices
the other models read) every sampled world gives the opponent a hand then; the network's
chance of the move it made with that hand, ``p``, is mixed with a uniform choice among its
legal slots, ``floor / slots + (1 - floor) * p`` (so no world is ruled out by one surprising
move), and the world's weight is the product over its choices (importance sampling of the
rules' exact posterior, as :class:`~dominolab.players.beliefs.GreedyModel` does). All the
worlds' hands at one choice go through the network in one matrix product: everything but
the hand is the same in every world.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from dominolab import native
from dominolab.core import TILES, Move, OptionError, Tile, View
from dominolab.core.worlds import HiddenWorlds
from dominolab.players.base import Budget, legal_moves_of
from dominolab.players.beliefs import (
    ChoiceStep,
    Weighed,
    Weighing,
    checked_sampling,
    choice_views,
)
from dominolab.players.greedy import GreedyHolding, GreedyPlayer
from dominolab.players.policy import (
    SLOTS,
    Network,
    best_slot_moves,
    greedy_absent,
    greedy_slot,
    move_slot,
    one_thread,
    public_inputs,
    shipped,
)

_BITS = np.arange(len(TILES), dtype=np.int64)


def hands_of(masks: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
    """Tile masks (bit ``t.index``) as one-hot rows of 28 values."""
    return ((masks[:, None] >> _BITS) & 1).astype(np.float32)


def _slot_rows(step: ChoiceStep, then: View) -> npt.NDArray[np.float32]:
    """Per tile (rows), the slots (columns) of its normal plays on the table then."""
    on_table = {p.tile for p in then.table}
    rows = np.zeros((len(TILES), SLOTS), dtype=np.float32)
    for play in step.table.normal_plays(tuple(t for t in TILES if t not in on_table)):
        rows[play.tile.index, move_slot(play)] = 1.0
    return rows


class LearnedModel(Weighing):
    """The opponent as the learned ``reading`` network of its game sees players (see the
    module doc): ``samples`` worlds from the rules' exact posterior, each weighed by the
    likelihood of the opponent's choices in it, with a ``floor`` of uniform choice.
    ``network``: that network, or None for the one shipped for the view's game (the model
    declines, leaving the rules' posterior, where the package has none)."""

    native_only = False

    def __init__(self, samples: int = 512, floor: float = 0.1,
                 network: Network | None = None) -> None:
        self.samples, self.floor = checked_sampling(samples, floor, 65536)
        self.network = network

    @property
    def greedy_moves(self) -> float:
        """Nothing is assumed of a player read by the network in the search's tree."""
        return 0.0

    def weighed(self, view: View, rng: random.Random,
                deadline: float | None = None) -> Weighed | None:
        """:attr:`samples` worlds, each with the log-likelihood of the opponent's choices
        in it; None before the opponent's first choice, without a network, or when past
        ``deadline`` fewer than a quarter of the worlds are drawn."""
        if view.opponent_tiles == 0:
            return None
        network = self.network or shipped(view.spec.name, "reading")
        if network is None:
            return None
        thens = list(choice_views(view).values())
        if not thens:
            return None
        worlds = HiddenWorlds(view)
        hands: list[tuple[Tile, ...]] = []
        drawn_all: list[Mapping[int, Tile]] = []
        nows: list[int] = []
        for n in range(self.samples):
            if n and deadline is not None and time.perf_counter() >= deadline:
                break
            theirs, drawn = worlds.sample_hand(rng)
            hands.append(tuple(sorted(theirs, key=lambda t: t.index)))
            nows.append(native.mask_of(theirs))
            drawn_all.append(drawn)
        if deadline is not None and len(hands) < max(1, self.samples // 4):
            return None
        with one_thread():
            logs = self._logs(view, thens, network, nows, drawn_all)
        return Weighed(tuple(hands), tuple(float(x) for x in logs))

    def _logs(self, view: View, thens: list[View], network: Network, nows: list[int],
              drawn_all: list[Mapping[int, Tile]]) -> npt.NDArray[np.float64]:
        logs = np.zeros(len(nows), dtype=np.float64)
        for then in thens:
            step = ChoiceStep(then, view)
            held = np.array([step.held(now, drawn) for now, drawn in
                             zip(nows, drawn_all, strict=True)], dtype=np.int64)
            hands = hands_of(held)
            legal = (hands @ _slot_rows(step, then)) > 0
            rows = np.concatenate([hands, self._greedy_rows(step, then, held)], axis=1)
            slots = legal.sum(axis=1)
            chance = network.probabilities(rows, public_inputs(then), legal)[
                :, move_slot(step.move)]
            likely = self.floor / np.maximum(slots, 1) + (1.0 - self.floor) * chance
            logs += np.where(slots > 1, np.log(likely), 0.0)
        return logs


    @staticmethod
    def _greedy_rows(step: ChoiceStep, then: View,
                     held: npt.NDArray[np.int64]) -> npt.NDArray[np.float32]:
        """Each world's greedy slot then, one-hot (the private inputs after the hand)."""
        holding = GreedyHolding(then, greedy_absent(then))
        slot_of: dict[int, int] = {}
        rows = np.zeros((len(held), SLOTS), dtype=np.float32)
        for i, mask in enumerate(held.tolist()):
            slot = slot_of.get(mask)
            if slot is None:
                tiles, plays = step.holding(mask)
                slot = slot_of[mask] = greedy_slot(holding, tiles, plays) if plays else 0
            rows[i, slot] = 1.0
        return rows


class LearnedPlayer:
    """``learned``: the move the ``player`` network of its game values most (it learned the
    value a search gives each move, :mod:`dominolab.lab.train`); between the ports of that
    slot, the greedy's move if it is one of them (on a line the two ends can differ), else
    the first in legal-move order. Deterministic; no search. Refuses (OptionError) a game
    without a shipped network."""

    name = "learned"

    def __init__(self, network: Network | None = None) -> None:
        self.network = network

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        legal = legal_moves_of(view)
        if len(legal) == 1:
            return legal[0]
        network = self.network or shipped(view.spec.name, "player")
        if network is None:
            raise OptionError(f"no learned player network is shipped for {view.spec.name}: "
                              "dominolab train makes one")
        moves = best_slot_moves(network, view, legal)
        if len(moves) > 1:  # the slot's ports: the greedy's, if it is one of them
            greedy = GreedyPlayer().choose(view)
            if greedy in moves:
                return greedy
        return moves[0]


__all__ = ["LearnedModel", "LearnedPlayer", "hands_of"]
