"""Fitting a network to positions, with PyTorch (the ``train`` extra): for the ``reading``
role the cross-entropy of the chosen slot over the legal slots; for the ``player`` role the
squared error of each legal slot's value (:attr:`Positions.values`, over
:data:`~dominolab.players.policy.GAIN_SCALE` points), both sides centred on the row's mean
over its legal slots (only the differences between moves decide a choice). AdamW in
mini-batches drawn by a seeded generator; each epoch the network is scored on the held-out
matches, and the epoch that predicts them best is the one kept. One thread and
deterministic kernels: the same positions and config give the same weights on the same
machine.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dominolab.core import OptionError
from dominolab.lab.train.config import GameConfig
from dominolab.lab.train.positions import Positions
from dominolab.players.policy import (
    FEATURES_VERSION,
    GAIN_SCALE,
    PRIVATE_SIZE,
    SLOTS,
    Network,
)

#: what a fitted epoch reports: (epoch, epochs, held-out loss, held-out accuracy)
EpochCallback = Callable[[int, int, float, float], None]


def require_torch() -> Any:
    """The ``torch`` module, or OptionError saying how to install it."""
    try:
        import torch
    except ImportError:
        raise OptionError("training needs PyTorch: pip install -e '.[train]' (the CPU build "
                          "2.13.0 this machine keeps on disk)") from None
    return torch


@dataclass(frozen=True, slots=True)
class Fitted:
    """A fitted network and how well it predicts the held-out positions: its loss, how often
    its top slot is the one it should pick (the move chosen, for ``reading``; the search's
    best, for ``player``), the same for a uniform choice among the legal slots (the floor it
    must beat; for ``player`` the loss of one value for every legal slot), and
    ``greedy_accuracy``: how
    often that slot is the greedy's move (what copying the greedy input would score)."""

    network: Network
    rows: int
    held_out: int
    loss: float
    accuracy: float
    uniform_loss: float
    uniform_accuracy: float
    greedy_accuracy: float
    epoch: int


def split(positions: Positions, validation: float) -> tuple[Positions, Positions]:
    """(training rows, held-out rows): the last ``validation`` share of the matches."""
    if not len(positions):
        raise OptionError("no positions to learn from: more matches, or players that "
                          "make choices")
    matches = int(positions.match.max()) + 1
    cut = matches - round(matches * validation) if validation > 0 else matches
    held = positions.match >= cut
    if not held.any() or held.all():
        return positions, positions
    return positions.where(~held), positions.where(held)


def fit(config: GameConfig, positions: Positions, role: str, *,
        epoch_done: EpochCallback | None = None) -> Fitted:
    """Fit the config's network to ``positions`` (already the rows of ``role``'s players)."""
    torch = require_torch()
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    torch.manual_seed(config.seed)
    train, held = split(positions, config.data.validation)
    net_cfg = config.network

    def tensors(p: Positions) -> tuple[Any, Any, Any, Any, Any]:
        return (torch.from_numpy(p.private.astype(np.float32)), torch.from_numpy(p.public),
                torch.from_numpy(p.legal), torch.from_numpy(p.chosen.astype(np.int64)),
                torch.from_numpy(p.values))

    big = torch.finfo(torch.float32).min
    th, tp, tl, tc, tv = tensors(train)
    vh, vp, vl, vc, vv = tensors(held)
    # what the accuracy counts: the chosen slot (reading), the search's best slot (player)
    if role != "reading":
        vc = vv.masked_fill(~vl, big).argmax(dim=1)
    sizes = [th.shape[1] + tp.shape[1], *net_cfg.hidden, SLOTS]
    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)
    optimiser = torch.optim.AdamW(model.parameters(), lr=net_cfg.learning_rate,
                                  weight_decay=net_cfg.weight_decay)
    generator = torch.Generator().manual_seed(config.seed)

    def scored(h: Any, p: Any, legal: Any, chosen: Any, values: Any) -> tuple[Any, Any]:
        out = model(torch.cat([h, p], dim=1))
        if role == "reading":
            logits = out.masked_fill(~legal, big)
            return torch.nn.functional.cross_entropy(logits, chosen), logits
        weight = legal.float()
        count = weight.sum(dim=1, keepdim=True)
        error = centred(out, weight, count) - centred(values / GAIN_SCALE, weight, count)
        return (error.square() * weight).sum() / count.sum(), out.masked_fill(~legal, big)

    def centred(x: Any, weight: Any, count: Any) -> Any:
        return x - (x * weight).sum(dim=1, keepdim=True) / count

    best: tuple[float, float, int, dict[str, Any]] | None = None
    for epoch in range(1, net_cfg.epochs + 1):
        model.train()
        order = torch.randperm(th.shape[0], generator=generator)
        for start in range(0, th.shape[0], net_cfg.batch):
            idx = order[start:start + net_cfg.batch]
            loss, _ = scored(th[idx], tp[idx], tl[idx], tc[idx], tv[idx])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
        model.eval()
        with torch.no_grad():
            loss, logits = scored(vh, vp, vl, vc, vv)
            accuracy = float((logits.argmax(dim=1) == vc).float().mean())
        value = float(loss)
        if epoch_done is not None:
            epoch_done(epoch, net_cfg.epochs, value, accuracy)
        if best is None or value < best[0]:
            state = {k: v.detach().clone() for k, v in model.state_dict().items()}
            best = (value, accuracy, epoch, state)
    assert best is not None
    loss_value, accuracy, epoch, state = best
    linear = [k for k in state if k.endswith(".weight")]
    weights = tuple(state[k].numpy().T.copy() for k in linear)
    biases = tuple(state[k.replace(".weight", ".bias")].numpy().copy() for k in linear)
    legal_counts = held.legal.sum(axis=1)
    target = vc.numpy()
    greedy = float(np.mean(held.private[np.arange(len(held)), PRIVATE_SIZE - SLOTS + target]))
    meta = {"game": config.game, "role": role, "config": config.digest(),
            "features": FEATURES_VERSION, "rows": len(train), "held_out": len(held),
            "held_out_loss": round(loss_value, 6), "held_out_accuracy": round(accuracy, 6),
            "held_out_greedy_accuracy": round(greedy, 6),
            "epoch": epoch, "torch": str(torch.__version__), "machine": platform.machine()}
    if role == "reading":  # a uniform pick among the legal slots
        uniform = float(np.mean(np.log(legal_counts)))
    else:  # the same value for every legal slot: the targets' own spread
        t = held.values / GAIN_SCALE
        mean = (t * held.legal).sum(axis=1, keepdims=True) / legal_counts[:, None]
        uniform = float((((t - mean) ** 2) * held.legal).sum() / legal_counts.sum())
    return Fitted(Network(weights, biases, meta), len(train), len(held), loss_value,
                  accuracy, uniform, float(np.mean(1.0 / legal_counts)), greedy, epoch)


__all__ = ["EpochCallback", "Fitted", "fit", "require_torch", "split"]
