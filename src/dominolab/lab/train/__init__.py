"""Training the learned networks (``dominolab train``; docs/strength.md, "The learned
networks"): positions from seeded matches between a mix of players
(:mod:`~dominolab.lab.train.positions`), a small network per game and role fitted to them
with PyTorch (:mod:`~dominolab.lab.train.fit`, the ``train`` extra), written as NumPy
arrays the players read (:mod:`dominolab.players.policy`). Everything that decides the
weights is one config (:mod:`~dominolab.lab.train.config`).

Two roles a game, both from every position of the mix: ``reading`` learns which move the
player made (what any opponent is likely to play: the expert weighs the worlds it searches
by it), ``player`` the value a search gives each legal move (the config's ``values``: the
``learned`` player plays the move it values most, with no search of its own).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dominolab.lab.pool import ProgressCallback
from dominolab.lab.train.config import SHIPPED_CONFIG, GameConfig, load_config, parse_config
from dominolab.lab.train.fit import EpochCallback, Fitted, fit, require_torch
from dominolab.lab.train.positions import Positions, cached_positions, make_positions
from dominolab.players.policy import network_file


@dataclass(frozen=True, slots=True)
class Trained:
    """One network written: its game, role, file and how well it predicts."""

    game: str
    role: str
    path: Path
    fitted: Fitted


def train_game(config: GameConfig, out: Path, *, cache: Path | None = None, workers: int = 1,
               progress: ProgressCallback | None = None,
               epoch_done: Callable[[str], EpochCallback] | None = None,
               told: Callable[[str], None] | None = None) -> list[Trained]:
    """Make one game's positions (or read them from ``cache``), fit both roles' networks
    and write them to ``out`` (``GAME-ROLE.npz``)."""
    require_torch()
    positions = cached_positions(config, cache, workers=workers, progress=progress, told=told)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for role in ("reading", "player"):
        fitted = fit(config, positions, role,
                     epoch_done=None if epoch_done is None else epoch_done(role))
        path = out / network_file(config.game, role)
        fitted.network.save(path)
        written.append(Trained(config.game, role, path, fitted))
    return written


__all__ = ["SHIPPED_CONFIG", "GameConfig", "Positions", "Trained", "load_config",
           "make_positions", "parse_config", "train_game"]
