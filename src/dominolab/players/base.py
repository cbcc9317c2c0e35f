"""The player protocol: a player sees only its seat's :class:`~dominolab.core.View`.

A player never receives the match or hand state, so it cannot read hidden tiles. Any
randomness comes from a :class:`random.Random` given to its constructor (seeded), never
from the global :mod:`random` module, so the same seed gives the same game.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from dominolab.core import Move, View


@runtime_checkable
class Player(Protocol):
    """Anything with a ``name`` that picks one of ``view.legal_moves``."""

    name: str

    def choose(self, view: View) -> Move:
        """Return one of ``view.legal_moves`` (the view's seat is the one to move)."""
        ...
