"""What a seat sees, as a vector of numbers: the one encoding of a :class:`~dominolab.core.
View` that the research environments (:mod:`dominolab.integrations.pettingzoo`, whose module
doc gives the layout value by value) and the learned networks (:mod:`dominolab.players.
policy`) read.

The vector is built from the seat's view only (never from hidden tiles): its own tiles
(``hand``, the first 28 values, one-hot by tile index), then what both seats see (the table,
the free ports, the count, both seats' points, the opponent's tiles, the boneyard, who
opened). :func:`public_observation` is the vector without the hand, which a model weighing
many possible hands of the opponent computes once per choice.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from typing import Final

import numpy as np
import numpy.typing as npt

from dominolab.core import GameSpec, View, get_game

#: divisor of points and of the table count in the observation
POINTS_SCALE: Final = 100.0
#: an upper bound of a seat's points in one hand, scaled (Luzak: 12 moves of at most a count
#: of 144 plus a luzak's 12 pips; Widelec: 28 quartets of at most 22 and the bonus)
POINTS_HIGH: Final = 20.0
#: the hand's values: the first this many of the vector
HAND_SIZE: Final = 28

Vector = npt.NDArray[np.float32]


def observation_parts(spec: GameSpec) -> list[tuple[str, int, float]]:
    """The observation's segments in order: (name, length, upper bound of each value)."""
    parts: list[tuple[str, int, float]] = [("hand", HAND_SIZE, 1.0), ("table", 28, 1.0)]
    if spec.table == "tree":
        parts.append(("ports", 7, 48.0))
    else:
        for side in ("left", "right"):
            parts += [(f"{side}_values", 7, 1.0), (f"{side}_double", 1, 1.0),
                      (f"{side}_luzak", 1, 1.0)]
    parts.append(("tiles_on_table", 1, 1.0))
    if spec.has_count:
        parts.append(("count", 1, 2.0))  # at most 12 counted items of at most 12
    parts += [("my_points", 1, POINTS_HIGH), ("their_points", 1, POINTS_HIGH),
              ("their_tiles", 1, 1.0)]
    if spec.has_boneyard:
        parts += [("boneyard", 1, 1.0), ("drawn_pending", 1, 1.0)]
    parts.append(("opener", 1, 1.0))
    return parts


@cache
def _starts(game: str) -> dict[str, int]:
    out: dict[str, int] = {}
    start = 0
    for name, size, _ in observation_parts(get_game(game)):
        out[name] = start
        start += size
    return out


def observation_layout(game: str) -> dict[str, slice]:
    """Each named part of a game's observation vector and its slice."""
    sizes = {name: size for name, size, _ in observation_parts(get_game(game))}
    return {name: slice(at, at + sizes[name]) for name, at in _starts(get_game(game).name).items()}


def observation_high(spec: GameSpec) -> Vector:
    """The upper bound of each value of the vector (the lower bound is 0)."""
    return np.concatenate([np.full(size, top, dtype=np.float32)
                           for _, size, top in observation_parts(spec)])


def observation(view: View) -> Vector:
    """The observation vector of ``view`` (float32)."""
    obs = public_observation(view, hand_too=True)
    for tile in view.hand:
        obs[tile.index] = 1.0
    return obs


def public_observation(view: View, *, hand_too: bool = False) -> Vector:
    """The observation vector of ``view`` with the hand's 28 values left out (with
    ``hand_too``: left as zeros in place)."""
    spec = view.spec
    at = _starts(spec.name)
    size = sum(size for _, size, _ in observation_parts(spec))
    obs = np.zeros(size, dtype=np.float32)
    for mv in view.table:
        obs[at["table"] + mv.tile.index] = 1.0
    if spec.table == "tree":
        for value, ports in Counter(v for _, values in view.free_ports
                                    for v in values).items():
            obs[at["ports"] + value] = ports
    else:
        for port, values in view.free_ports:  # L, R (none before the lead)
            side = ("left", "right")[port.index]
            for value in values:
                obs[at[f"{side}_values"] + value] = 1.0
            # the tile at this end: the last laid there, or the lead
            end = next(mv for mv in reversed(view.table)
                       if mv.port is None or mv.port.index == port.index)
            obs[at[f"{side}_double"]] = float(end.tile.is_double)
            obs[at[f"{side}_luzak"]] = float(end.port is not None and end.luzak)
    obs[at["tiles_on_table"]] = view.n / (spec.tiles_per_hand or 28)
    if "count" in at:
        obs[at["count"]] = (view.count or 0) / POINTS_SCALE
    me = view.seat
    obs[at["my_points"]] = view.hand_points[me] / POINTS_SCALE
    obs[at["their_points"]] = view.hand_points[1 - me] / POINTS_SCALE
    obs[at["their_tiles"]] = view.opponent_tiles / 28
    if "boneyard" in at:
        obs[at["boneyard"]] = (view.boneyard or 0) / 14
        obs[at["drawn_pending"]] = float(view.pending is not None)
    obs[at["opener"]] = float(view.opener == me)
    return obs if hand_too else obs[HAND_SIZE:]


__all__ = ["HAND_SIZE", "POINTS_HIGH", "POINTS_SCALE", "observation", "observation_high",
           "observation_layout", "observation_parts", "public_observation"]
