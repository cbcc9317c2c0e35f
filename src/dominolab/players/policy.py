"""The learned networks' side of play: what a network reads of a position, what it says of
each move, and the weights shipped in the package, read with NumPy alone (training them is
:mod:`dominolab.lab.train`, with PyTorch; playing never imports it).

**A move's slot.** A network gives one logit per *slot*: a play is ``2 * tile.index +
(inner == tile.hi)``, the tile and the half it joins with (56 slots), then ``draw``,
``pass`` and ``keep`` (59 in all, every game). Plays of one tile with one half at different
ports share a slot: the model is of a player's habits (which tile, which way round), as the
expert's other models of the opponent are (:mod:`dominolab.players.beliefs`).

**What it reads** (:func:`inputs`): what depends on the seat's own tiles (the *private*
part, :data:`PRIVATE_SIZE` values): its tiles (28, one-hot by tile index) and the slot of
the move the expected-answer greedy (the ``easy`` level) would make with them (59, one-hot:
:func:`greedy_slot`, so a network starts from the greedy's judgement and learns where the
stronger players differ from it); and what both seats see (the *public* part): the
observation vector without the hand (:func:`~dominolab.players.observation.
public_observation`), the best immediate point margin of each play slot for the seat to
move over every tile not on the table (:func:`gains`: what the table offers, the same
whoever holds the tiles), and both seats' match totals over the target. A model weighing
many possible hands of the opponent at one of its choices computes the public part once
(:meth:`Network.logits` takes many private rows and one public part).

**The network** (:class:`Network`): a small multi-layer perceptron, ReLU between layers,
its weights float32 arrays in an ``.npz`` file (``w0``, ``b0``, ``w1``, ...) with a JSON
``meta`` (the game, the role, the config's digest and the feature version). The shipped
ones (:func:`shipped`) are ``networks/GAME-ROLE.npz`` in this package: role ``reading`` (any
player's moves, for the expert's reading of its opponent) and ``player`` (the strong
players' moves, for the ``learned`` player).
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt
from threadpoolctl import ThreadpoolController

from dominolab.core import DRAW, KEEP, PASS, TILES, Play, Tile, View, get_game
from dominolab.core.moves import Move
from dominolab.core.worlds import proven_values
from dominolab.players.greedy import GreedyHolding
from dominolab.players.observation import (
    HAND_SIZE,
    observation_parts,
    public_observation,
)

#: play slots: 2 per tile
PLAY_SLOTS: Final = 56
#: every slot: the plays, then draw, pass, keep
SLOTS: Final = PLAY_SLOTS + 3
_EXTRAS: Final[dict[Move, int]] = {DRAW: PLAY_SLOTS, PASS: PLAY_SLOTS + 1, KEEP: PLAY_SLOTS + 2}
#: what :func:`inputs` computes; a network trained on another version is refused
FEATURES_VERSION: Final = 3
#: the private part of the inputs: the hand, then the greedy's slot
PRIVATE_SIZE: Final = HAND_SIZE + SLOTS
#: points per unit of :func:`gains` (a typical scoring play is worth 0.5 to 2)
GAIN_SCALE: Final = 20.0
#: the roles of the shipped networks
ROLES: Final = ("reading", "player")
#: the folder of the shipped networks (``dominolab train`` writes them here by default)
NETWORKS: Final = Path(__file__).with_name("networks")

Array = npt.NDArray[np.float32]


@cache
def _controller() -> ThreadpoolController:
    return ThreadpoolController()  # finds the BLAS libraries loaded: once a process


@contextmanager
def one_thread() -> Iterator[None]:
    """NumPy's BLAS on one thread while the block runs. A network's products are small (a
    few hundred rows): on a machine whose cores are busy, BLAS threads waiting for each
    other made one reading of 512 worlds take 0.5-0.9 s instead of 7-30 ms."""
    with _controller().limit(limits=1, user_api="blas"):
        yield


class NetworkError(ValueError):
    """A weights file that cannot be read as a network of this version."""


def move_slot(move: Move) -> int:
    """The slot of ``move`` (see the module doc)."""
    if isinstance(move, Play):
        return 2 * move.tile.index + (move.inner == move.tile.hi)
    return _EXTRAS[move]


def slots_of(moves: Iterable[Move]) -> npt.NDArray[np.bool_]:
    """A boolean mask over the slots: those of ``moves``."""
    mask = np.zeros(SLOTS, dtype=np.bool_)
    for move in moves:
        mask[move_slot(move)] = True
    return mask


def gains(view: View) -> Array:
    """Per play slot, the best immediate point margin (the seat's points less its
    opponent's, over :data:`GAIN_SCALE`) of a normal play of that tile, that half
    inwards, on the table of ``view`` by the seat to move, over every tile not on the
    table; 0 where it has none. Public: it does not depend on who holds which tile."""
    spec = view.spec
    score = spec.hand_class.score_placement
    table = view.new_table()
    seat = view.seat
    on_table = {p.tile.index for p in view.table}
    out = np.zeros(PLAY_SLOTS, dtype=np.float32)
    seen = np.zeros(PLAY_SLOTS, dtype=np.bool_)
    tiles = [t for t in TILES if t.index not in on_table]
    for play in table.normal_plays(tiles):
        points = score(table.copy(), play, seat, view.options)
        margin = (points[seat] - points[1 - seat]) / GAIN_SCALE
        slot = move_slot(play)
        if not seen[slot] or margin > out[slot]:
            out[slot] = margin
            seen[slot] = True
    return out


def greedy_absent(view: View) -> tuple[Tile, ...]:
    """The tiles the seat's opponent is proven to lack, as the greedy of :func:`greedy_slot`
    takes them (by value: :func:`~dominolab.core.worlds.proven_values`)."""
    values = proven_values(view)
    return tuple(t for t in TILES if t.hi in values or t.lo in values)


def greedy_slot(holding: GreedyHolding, held: Sequence[Tile], legal: Sequence[Move]) -> int:
    """The slot of the greedy's move among ``legal`` had the seat held ``held`` (``holding``
    is the greedy in the view, :class:`~dominolab.players.greedy.GreedyHolding` with
    :func:`greedy_absent`)."""
    if len(legal) == 1:
        return move_slot(legal[0])
    return move_slot(holding.move(held, legal))


def private_inputs(held: Sequence[Tile], greedy: int) -> Array:
    """The private part of the inputs: the tiles ``held`` and the greedy's slot."""
    out = np.zeros(PRIVATE_SIZE, dtype=np.float32)
    for tile in held:
        out[tile.index] = 1.0
    out[HAND_SIZE + greedy] = 1.0
    return out


def public_inputs(view: View) -> Array:
    """Everything a network reads of ``view`` but the hand (see the module doc)."""
    target = view.options.target
    me = view.seat
    standing = np.array([view.totals[me] / target, view.totals[1 - me] / target],
                        dtype=np.float32)
    return np.concatenate([public_observation(view), gains(view), standing])


def inputs(view: View) -> tuple[Array, Array]:
    """(the private part, :func:`public_inputs`) of ``view``, whose seat is to move (or, in
    a view built for a past choice, holds ``view.hand``: its normal plays are its moves)."""
    legal = view.legal_moves or tuple(view.new_table().normal_plays(view.hand))
    greedy = greedy_slot(GreedyHolding(view, greedy_absent(view)), view.hand, legal)
    return private_inputs(view.hand, greedy), public_inputs(view)


def public_size(game: str) -> int:
    """The length of :func:`public_inputs` in ``game``."""
    return sum(size for _, size, _ in observation_parts(get_game(game))) - HAND_SIZE \
        + PLAY_SLOTS + 2


@dataclass(frozen=True, slots=True, eq=False)
class Network:
    """A multi-layer perceptron from :func:`inputs` to one logit per slot: ``weights[i]``
    (inputs x outputs) and ``biases[i]`` of each layer, ReLU between layers; ``meta`` says
    what it was trained for."""

    weights: tuple[Array, ...]
    biases: tuple[Array, ...]
    meta: Mapping[str, Any]

    def __post_init__(self) -> None:
        if not self.weights or len(self.weights) != len(self.biases):
            raise NetworkError("a network needs as many bias vectors as weight matrices, "
                               "and at least one layer")
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            if w.ndim != 2 or b.shape != (w.shape[1],) or (
                    i and w.shape[0] != self.weights[i - 1].shape[1]):
                raise NetworkError(f"layer {i}: weights {w.shape} and biases {b.shape} "
                                   "do not fit together")
        if self.weights[-1].shape[1] != SLOTS:
            raise NetworkError(f"the last layer gives {self.weights[-1].shape[1]} values, "
                               f"not one per slot ({SLOTS})")

    @property
    def inputs(self) -> int:
        return int(self.weights[0].shape[0])

    def logits(self, private: Array, public: Array) -> Array:
        """One row of slot logits per row of ``private`` (N x :data:`PRIVATE_SIZE`), all
        with the same ``public`` part (its first layer is computed once)."""
        w0 = self.weights[0]
        x = private @ w0[:PRIVATE_SIZE] + (public @ w0[PRIVATE_SIZE:] + self.biases[0])
        for w, b in zip(self.weights[1:], self.biases[1:], strict=True):
            x = np.maximum(x, 0.0) @ w + b
        out: Array = x.astype(np.float32, copy=False)
        return out

    def probabilities(self, private: Array, public: Array,
                      legal: npt.NDArray[np.bool_]) -> Array:
        """Each row's chance of each slot, over that row's ``legal`` slots only (N x 59;
        a row with no legal slot is all zeros)."""
        z = np.where(legal, self.logits(private, public), -np.inf)
        top = z.max(axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        e = np.exp(z - top)
        total = e.sum(axis=1, keepdims=True)
        out: Array = (e / np.where(total > 0, total, 1.0)).astype(np.float32)
        return out

    def save(self, path: Path) -> None:
        """Write the network to ``path`` (an ``.npz``): the same network, the same bytes."""
        arrays: dict[str, npt.NDArray[Any]] = {}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = np.ascontiguousarray(w, dtype=np.float32)
            arrays[f"b{i}"] = np.ascontiguousarray(b, dtype=np.float32)
        arrays["meta"] = np.array(json.dumps(dict(self.meta), sort_keys=True))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out:
            for name in sorted(arrays):
                info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                data = io.BytesIO()
                np.lib.format.write_array(data, arrays[name], allow_pickle=False)
                out.writestr(info, data.getvalue())
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(buffer.getvalue())
        tmp.replace(path)

    @classmethod
    def read(cls, data: bytes, where: str = "the weights") -> Network:
        """The network in ``data`` (an ``.npz`` written by :meth:`save`); NetworkError
        naming ``where`` if it is not one of this version."""
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as arrays:
                meta = json.loads(str(arrays["meta"]))
                layers = sum(1 for k in arrays.files if k.startswith("w"))
                weights = tuple(np.asarray(arrays[f"w{i}"], dtype=np.float32)
                                for i in range(layers))
                biases = tuple(np.asarray(arrays[f"b{i}"], dtype=np.float32)
                               for i in range(layers))
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as exc:
            raise NetworkError(f"{where}: not a network file ({exc})") from None
        if not isinstance(meta, dict) or meta.get("features") != FEATURES_VERSION:
            raise NetworkError(f"{where}: made for features version "
                               f"{meta.get('features') if isinstance(meta, dict) else '?'}, "
                               f"this code reads version {FEATURES_VERSION}")
        network = cls(weights, biases, meta)
        game = meta.get("game")
        if isinstance(game, str) and network.inputs != PRIVATE_SIZE + public_size(game):
            raise NetworkError(f"{where}: reads {network.inputs} values, {game} gives "
                               f"{PRIVATE_SIZE + public_size(game)}")
        return network


def network_file(game: str, role: str) -> str:
    """The file name of a shipped network."""
    return f"{get_game(game).name}-{role}.npz"


@cache
def shipped(game: str, role: str) -> Network | None:
    """The network of ``role`` shipped for ``game`` (read once a process), or None if the
    package has none."""
    if role not in ROLES:
        raise ValueError(f"no role {role!r}; roles: {', '.join(ROLES)}")
    place = NETWORKS / network_file(game, role)
    if not place.is_file():
        return None
    return Network.read(place.read_bytes(), f"dominolab/players/networks/"
                                            f"{network_file(game, role)}")


def best_slot_moves(network: Network, view: View, legal: Sequence[Move]) -> list[Move]:
    """The legal moves of ``view`` in the slot the network likes best (several when plays
    of that slot go to different ports)."""
    private, public = inputs(view)
    mask = slots_of(legal)
    with one_thread():
        chances = network.probabilities(private[None, :], public, mask[None, :])[0]
    best = int(np.argmax(np.where(mask, chances, -1.0)))
    return [m for m in legal if move_slot(m) == best]


__all__ = ["FEATURES_VERSION", "GAIN_SCALE", "NETWORKS", "PLAY_SLOTS", "PRIVATE_SIZE", "ROLES",
           "SLOTS", "Network", "NetworkError", "best_slot_moves", "gains", "greedy_absent",
           "greedy_slot", "inputs", "move_slot", "network_file", "one_thread",
           "private_inputs", "public_inputs", "public_size", "shipped", "slots_of"]
