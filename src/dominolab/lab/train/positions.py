"""The training positions: seeded matches between players drawn from the config's mix, and
every choice each player made, as arrays a network learns from (:class:`Positions`).

Match ``i`` of a game (0-based) is ``Match(game, seed=TRAIN_SEEDS + 1_000_000 * seed + i)``:
far from the small seeds the arena and the strength records use, so no network has seen the
deals it is measured on. Its two players are drawn from the mix by a generator seeded from
the game, the seed and ``i``; each is made and seeded as the lab's one play loop makes every
player (:func:`~dominolab.lab.play.play_match`), and a perturbed one (``NAME~P``) makes a
uniformly random legal move with chance ``P`` (:class:`PerturbedPlayer`). Every move is seen
through the loop's ``observe`` hook; a *choice* (two or more slots among the legal moves,
:func:`~dominolab.players.policy.move_slot`) becomes a row: what the mover saw
(:func:`~dominolab.players.policy.inputs`), its legal slots, the slot it chose, which mix
entry made it and in which match. The rows come in match order whatever the number of
workers, so the same config gives the same arrays.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from dominolab.core import Move, View, get_game
from dominolab.lab.play import play_match, resolve_player
from dominolab.lab.pool import ProgressCallback, run_tasks
from dominolab.lab.train.config import GameConfig, split_noise
from dominolab.players import Budget, Player, make_player
from dominolab.players.base import legal_moves_of
from dominolab.players.policy import (
    PRIVATE_SIZE,
    SLOTS,
    inputs,
    move_slot,
    public_size,
    slots_of,
)

#: the first match seed of the training matches
TRAIN_SEEDS: Final = 1_000_000_000


class PerturbedPlayer:
    """``player``, but with chance ``chance`` a uniformly random legal move instead (drawn
    from ``rng``): a player that makes mistakes, so the reading is not fitted to flawless
    play."""

    def __init__(self, player: Player, chance: float, rng: random.Random) -> None:
        self.name = f"{player.name}~{chance:g}"
        self.player = player
        self.chance = chance
        self.rng = rng

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        legal = legal_moves_of(view)
        if len(legal) > 1 and self.rng.random() < self.chance:
            return self.rng.choice(legal)
        return self.player.choose(view, budget)


def make_training_player(spec: str, seed: int) -> Player:
    """The player of a mix entry (``NAME[:BUDGET][~P]``), seeded with ``seed``."""
    base, chance = split_noise(spec)
    name, _ = resolve_player(base)
    player = make_player(name, seed)
    if chance == 0.0:
        return player
    return PerturbedPlayer(player, chance, random.Random(f"dominolab/train/noise/{seed}"))


@dataclass(frozen=True, slots=True, eq=False)
class Positions:
    """Rows of choices: ``private`` (N x 87, 0/1: :func:`~dominolab.players.policy.
    private_inputs`), ``public`` (N x P), ``legal`` (N x 59),
    the ``chosen`` slot, the mix entry that chose (``player``), the ``match`` (0-based), and
    ``values`` (N x 59: the config's search's value of each legal slot, its best over the
    slot's ports, in points; 0 elsewhere)."""

    private: npt.NDArray[np.uint8]
    public: npt.NDArray[np.float32]
    legal: npt.NDArray[np.bool_]
    chosen: npt.NDArray[np.int16]
    player: npt.NDArray[np.int16]
    match: npt.NDArray[np.int32]
    values: npt.NDArray[np.float32]

    def __len__(self) -> int:
        return int(self.chosen.shape[0])

    def where(self, keep: npt.NDArray[np.bool_]) -> Positions:
        """The rows where ``keep`` is True."""
        return Positions(self.private[keep], self.public[keep], self.legal[keep],
                         self.chosen[keep], self.player[keep], self.match[keep],
                         self.values[keep])

    def save(self, path: Path) -> None:
        """Write the arrays to ``path`` (``.npz``), whole or not at all."""
        buffer = io.BytesIO()
        np.savez_compressed(buffer, private=self.private, public=self.public, legal=self.legal,
                            chosen=self.chosen, player=self.player, match=self.match,
                            values=self.values)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(buffer.getvalue())
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> Positions:
        with np.load(path, allow_pickle=False) as a:
            return cls(a["private"], a["public"], a["legal"], a["chosen"], a["player"],
                       a["match"], a["values"])

    @classmethod
    def joined(cls, parts: list[Positions], width: int) -> Positions:
        """The rows of ``parts`` in order (none: empty arrays, ``width`` public values)."""
        if not parts:
            return cls(np.zeros((0, PRIVATE_SIZE), np.uint8),
                       np.zeros((0, width), np.float32),
                       np.zeros((0, SLOTS), np.bool_), np.zeros(0, np.int16),
                       np.zeros(0, np.int16), np.zeros(0, np.int32),
                       np.zeros((0, SLOTS), np.float32))
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in FIELDS))


#: the arrays of :class:`Positions`, in order
FIELDS: Final = ("private", "public", "legal", "chosen", "player", "match", "values")


@dataclass(frozen=True, slots=True)
class _Task:
    game: str
    seed: int
    number: int
    mix: tuple[str, ...]
    values: str


def slot_values(search: Any, view: View, budget: Budget | None) -> npt.NDArray[np.float32]:
    """Each legal slot's value by ``search`` (a player with ``analyse``): the best of its
    ports' mean values, in points; 0 for the other slots."""
    out = np.full(SLOTS, -np.inf, dtype=np.float32)
    for value in search.analyse(view, budget):
        slot = move_slot(value.move)
        out[slot] = max(out[slot], value.value)
    return np.where(np.isfinite(out), out, 0.0).astype(np.float32)


def pairing(game: str, seed: int, number: int, mix: tuple[str, ...]) -> tuple[str, str]:
    """The two mix entries that play match ``number``."""
    rng = random.Random(f"dominolab/train/{game}/{seed}/{number}")
    return rng.choice(mix), rng.choice(mix)


def _match_rows(task: _Task) -> tuple[int, Positions]:
    specs = pairing(task.game, task.seed, task.number, task.mix)
    budgets = [resolve_player(split_noise(s)[0])[1] for s in specs]
    private: list[npt.NDArray[np.float32]] = []
    public: list[npt.NDArray[np.float32]] = []
    legal: list[npt.NDArray[np.bool_]] = []
    chosen: list[int] = []
    player: list[int] = []
    values: list[npt.NDArray[np.float32]] = []
    name, budget = resolve_player(task.values)
    match_seed = TRAIN_SEEDS + 1_000_000 * task.seed + task.number
    search = make_player(name, match_seed)  # a stream of its own, seeded by the match

    def observe(view: View, move: Move) -> None:
        mask = slots_of(view.legal_moves)
        if int(mask.sum()) < 2:
            return
        own, pub = inputs(view)
        private.append(own)
        public.append(pub)
        legal.append(mask)
        chosen.append(move_slot(move))
        player.append(task.mix.index(specs[view.seat]))
        values.append(slot_values(search, view, budget))

    spec = get_game(task.game)
    play_match(task.game, spec.options(), match_seed, list(specs), budgets,
               make=make_training_player, observe=observe)
    n = len(chosen)
    if not n:
        return task.number, Positions.joined([], 0)
    return task.number, Positions(
        np.array(private, dtype=np.uint8), np.array(public, dtype=np.float32),
        np.array(legal, dtype=np.bool_), np.array(chosen, dtype=np.int16),
        np.array(player, dtype=np.int16), np.full(n, task.number, dtype=np.int32),
        np.array(values, dtype=np.float32))


def make_positions(config: GameConfig, *, workers: int = 1,
                   progress: ProgressCallback | None = None) -> Positions:
    """Play the config's matches (on ``workers`` processes, through the lab's one pool)
    and return every choice in them, in match order."""
    tasks = [_Task(config.game, config.seed, i, config.data.mix, config.values)
             for i in range(config.data.matches)]
    found: dict[int, Positions] = {}

    def take(result: tuple[int, Positions]) -> None:
        found[result[0]] = result[1]
        if progress is not None:
            progress(len(found), len(tasks))

    if progress is not None:
        progress(0, len(tasks))
    run_tasks(_match_rows, tasks, take, workers=workers)
    parts = [found[i] for i in range(len(tasks)) if len(found[i])]
    return Positions.joined(parts, public_size(config.game))


def cached_positions(config: GameConfig, folder: Path | None, *, workers: int = 1,
                     progress: ProgressCallback | None = None,
                     told: Callable[[str], None] | None = None) -> Positions:
    """:func:`make_positions`, kept in ``folder`` under the digest of what decides them
    (None: not kept): a second run of the same data reads the file instead."""
    path = None if folder is None else folder / f"{config.game}-{config.data_digest()}.npz"
    if path is not None and path.is_file():
        if told is not None:
            told(f"{config.game}: positions read from {path}")
        return Positions.load(path)
    positions = make_positions(config, workers=workers, progress=progress)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        positions.save(path)
    return positions


__all__ = ["FIELDS", "TRAIN_SEEDS", "PerturbedPlayer", "Positions", "cached_positions",
           "make_positions", "make_training_player", "pairing"]
