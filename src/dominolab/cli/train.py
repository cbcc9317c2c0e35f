"""``dominolab train``: make the learned networks from one config (:mod:`dominolab.lab.train`
does the work; docs/strength.md, "The learned networks").

    dominolab train                       # the shipped config, into the package's networks
    dominolab train --config my.toml --out DIR [--game widelec] [--workers N] [--cache DIR]

Needs the ``train`` extra (PyTorch, CPU). Progress goes to stderr; each network's figures
(held-out accuracy and loss, against a uniform choice among the legal moves) to stdout.
Ctrl-C or SIGTERM stops with no network half written (each is written whole under a
temporary name); positions already made stay in the cache. Bad input is one line on stderr
and exit status 2.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from dominolab.cli.inputs import COUNT
from dominolab.cli.progress import Progress
from dominolab.core import OptionError, get_game


def default_cache() -> Path:
    """``$XDG_CACHE_HOME/dominolab/train`` (``~/.cache/...`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dominolab" / "train"


def add_parser(sub: Any) -> None:
    """The ``train`` subcommand on ``dominolab``'s subparsers (nothing of the training, nor
    NumPy, is read until it runs)."""
    p = sub.add_parser(
        "train", help="make the learned networks (the expert's reading, the learned "
                      "player) from one config; needs the train extra",
        description="Play seeded matches between the config's mix of players, keep every "
        "choice made, and fit each game's two networks (reading: every player's moves; "
        "player: the value a search gives every legal move) with PyTorch. The same config "
        "gives the same "
        "weights on the same machine. See docs/strength.md, \"The learned networks\".")
    p.add_argument("--config", type=Path, default=None, metavar="FILE",
                   help="the TOML config (default: the one that made the shipped networks, "
                        "dominolab/lab/train/networks.toml)")
    p.add_argument("--game", action="append", default=None,
                   help="only this game (repeat for more; default: the config's games)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR",
                   help="where to write GAME-ROLE.npz (default: the package's networks)")
    p.add_argument("--cache", type=Path, default=None, metavar="DIR",
                   help="keep the positions here, so a second run with the same data "
                        "fits at once (default: ~/.cache/dominolab/train; 'none' keeps none)")
    p.add_argument("--workers", type=COUNT, default=None,
                   help="processes for the matches (default: every core); the weights "
                        "are the same")


def run_train(args: argparse.Namespace) -> int:
    from dominolab.lab.pool import check_workers
    from dominolab.lab.train import SHIPPED_CONFIG, load_config, train_game
    from dominolab.lab.train.fit import require_torch
    from dominolab.players.policy import NETWORKS

    require_torch()
    config_file = args.config or SHIPPED_CONFIG
    out = args.out or NETWORKS
    configs = load_config(config_file)
    if args.game:
        wanted = {get_game(g).name for g in args.game}
        missing = wanted - {c.game for c in configs}
        if missing:
            raise OptionError(f"{config_file}: no game {sorted(missing)[0]} in the config")
        configs = tuple(c for c in configs if c.game in wanted)
    cache = default_cache() if args.cache is None else (
        None if str(args.cache).lower() == "none" else args.cache)
    workers = check_workers(args.workers)

    def epochs(game: str) -> Any:
        def for_role(role: str) -> Any:
            bar = Progress("epochs", desc=f"{game} {role}")

            def done(epoch: int, total: int, loss: float, accuracy: float) -> None:
                bar(epoch, total)
                if epoch == total:
                    bar.close()
            return done
        return for_role

    for config in configs:
        with Progress("matches", desc=f"{config.game} positions") as bar:
            written = train_game(config, out, cache=cache, workers=workers,
                                 progress=bar, epoch_done=epochs(config.game),
                                 told=lambda text: print(text, flush=True))
        for item in written:
            f = item.fitted
            print(f"{item.game} {item.role}: {item.path} — {f.rows:,} positions, "
                  f"{f.held_out:,} held out: accuracy {100 * f.accuracy:.1f}% "
                  f"(uniform {100 * f.uniform_accuracy:.1f}%, the greedy's move "
                  f"{100 * f.greedy_accuracy:.1f}%), loss {f.loss:.3f} "
                  f"(uniform {f.uniform_loss:.3f}), epoch {f.epoch}", flush=True)
    return 0


__all__ = ["add_parser", "default_cache", "run_train"]
