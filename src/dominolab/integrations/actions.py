"""A fixed integer for every move a game can have, shared by the framework adapters.

``action = (2 * tile.index + (inner == tile.hi)) * SLOTS + slot`` for a tile laid, where
``slot`` is 0 for the lead, then the game's ports: Luzak's tree ports ``1w..12s`` (slots
1-48), or a line's ``L`` and ``R`` (slots 1-2). A double's inner half is its only half
(the ``hi`` bit is 1). A game with a boneyard (Widelec) adds ``draw``, ``pass`` and ``keep``
after the plays. Whether a play is a luzak is not part of the number: the position decides
it (a tile that does not match its port). Legal actions come sorted ascending, as frameworks
expect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from dominolab.core import DRAW, GAMES, KEEP, PASS, GameSpec, Hand, Move, Play, get_game
from dominolab.core.errors import IllegalMoveError, InvalidMoveError
from dominolab.core.moves import MAX_TILE_NUMBER

_TREE_SLOTS: Final = 1 + 4 * 12  # the lead, then 12 tiles' four sides
_LINE_SLOTS: Final = 3  # the lead, L, R


@dataclass(frozen=True, slots=True)
class ActionCodec:
    """Numbers the moves of one game: ``encode`` a move, find the move of an action."""

    game: str
    slots: int
    extras: tuple[Move, ...]  # moves numbered after the plays (Widelec)

    @property
    def num_plays(self) -> int:
        return 28 * 2 * self.slots

    @property
    def num_actions(self) -> int:
        return self.num_plays + len(self.extras)

    def encode(self, move: Move) -> int:
        if isinstance(move, Play):
            tile = move.tile
            port = move.port
            if port is None:
                slot = 0
            elif port.is_line:
                if self.slots != _LINE_SLOTS:
                    raise InvalidMoveError(f"{move}: {self.game} has no line ends")
                slot = 1 + port.index
            else:
                if self.slots != _TREE_SLOTS or port.k > 12:
                    raise InvalidMoveError(f"{move}: {self.game} has no port {port}")
                slot = 1 + (port.index - 2)
            high = 1 if move.inner == tile.hi else 0
            return (2 * tile.index + high) * self.slots + slot
        try:
            return self.num_plays + self.extras.index(move)
        except ValueError:
            raise InvalidMoveError(f"{move}: {self.game} has no such move") from None

    def legal_actions(self, hand: Hand[Any]) -> list[int]:
        """The legal moves of ``hand`` as sorted action numbers."""
        return sorted(self.encode(m) for m in hand.legal_moves())

    def move(self, hand: Hand[Any], action: int) -> Move:
        """The legal move of ``hand`` numbered ``action``; IllegalMoveError if none."""
        for m in hand.legal_moves():
            if self.encode(m) == action:
                return m
        raise IllegalMoveError(f"action {action} is not legal here. Position: {hand.describe()}")

    def describe(self, action: int) -> str:
        """A readable name for an action number without a position (for logs)."""
        if action >= self.num_plays:
            return str(self.extras[action - self.num_plays])
        code, slot = divmod(action, self.slots)
        index, high = divmod(code, 2)
        from dominolab.core import TILES

        tile = TILES[index]
        inner = tile.hi if high else tile.lo
        if slot == 0:
            return tile.digits
        if self.slots == _LINE_SLOTS:
            port = "LR"[slot - 1]
        else:
            k, side = divmod(slot - 1, 4)
            port = f"{k + 1}{'wens'[side]}"
        return f"{inner}{tile.other(inner)}@{port}"


def _codec_of(spec: GameSpec) -> ActionCodec:
    """The numbering a game's spec implies: its table's slots, and ``draw``, ``pass`` and
    ``keep`` after the plays when it has a boneyard."""
    slots = _TREE_SLOTS if spec.table == "tree" else _LINE_SLOTS
    extras: tuple[Move, ...] = (DRAW, PASS, KEEP) if spec.has_boneyard else ()
    return ActionCodec(spec.name, slots, extras)


CODECS: Final[dict[str, ActionCodec]] = {name: _codec_of(spec) for name, spec in GAMES.items()}
assert MAX_TILE_NUMBER >= 12


def codec(game: str) -> ActionCodec:
    """The action numbering of a game (by name or alias)."""
    return CODECS[get_game(game).name]
