"""The player protocol: a player sees only its seat's :class:`~dominolab.core.View`.

A player never receives the match or hand state, so it cannot read hidden tiles. Any
randomness comes from a :class:`random.Random` given to its constructor (seeded), never
from the global :mod:`random` module, so the same seed gives the same game. A
:class:`Budget` says how much it may think about one move.

The one exception is a :class:`SeeingPlayer` (``omniscient``): it is handed the whole hand
state, for measuring how far the honest players are from perfect information. It is never
offered to a person as an opponent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from dominolab.core import Hand, Move, OptionError, View
from dominolab.core.errors import shown

#: the longest a budget may let a player think over one move: an hour
MAX_SECONDS: Final = 3600.0
#: the most worlds (search iterations) a budget may give one move
MAX_WORLDS: Final = 10_000_000
#: one part of a budget's text; ASCII digits only (``\d`` would take other scripts' digits)
_BUDGET_PART: Final = re.compile(r"([0-9]{1,9}(?:\.[0-9]{0,6})?|\.[0-9]{1,6})\s*(s|ms|w)",
                                 re.ASCII)


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a player may think about one move. ``None`` fields: the player's default.

    ``seconds``: wall-clock time per move; ``worlds``: sampled deals of the hidden tiles
    (or search iterations) per move. A player stops at whichever comes first.
    Text form: ``0.5s``, ``200w``, ``200w,0.5s``.
    """

    seconds: float | None = None
    worlds: int | None = None

    def __post_init__(self) -> None:
        if self.seconds is not None and not 0 < self.seconds <= MAX_SECONDS:
            raise OptionError(f"a budget's seconds must be above 0 and at most "
                              f"{MAX_SECONDS:g}, not {shown(self.seconds)}")
        if self.worlds is not None and not 1 <= self.worlds <= MAX_WORLDS:
            raise OptionError(f"a budget's worlds must be from 1 to {MAX_WORLDS}, not "
                              f"{shown(self.worlds)}")

    @staticmethod
    def parse(text: str) -> Budget:
        """``0.5s``, ``300ms``, ``200w`` or ``200w,1s``: plain digits 0-9 only, and within
        :data:`MAX_SECONDS` and :data:`MAX_WORLDS`, at most one time and one worlds part;
        :class:`OptionError` otherwise (an extra part is named, never dropped)."""
        seconds: float | None = None
        worlds: int | None = None
        for part in (p.strip().lower() for p in text.split(",") if p.strip()):
            m = _BUDGET_PART.fullmatch(part)
            if m is None:
                raise OptionError(f"{shown(text)} is not a budget (examples: 0.5s, 300ms, "
                                  f"200w, 200w,1s)")
            value, unit = float(m.group(1)), m.group(2)
            if (worlds if unit == "w" else seconds) is not None:
                kind = "worlds" if unit == "w" else "time"
                raise OptionError(f"{shown(text)}: {shown(part)[1:-1]} is a second {kind} "
                                  f"part; a budget has at most one time and one worlds part "
                                  f"(like 200w,1s)")
            if unit == "w":
                worlds = int(value)
            else:
                seconds = value / 1000 if unit == "ms" else value
        return Budget(seconds, worlds)

    def __str__(self) -> str:
        parts = []
        if self.worlds is not None:
            parts.append(f"{self.worlds}w")
        if self.seconds is not None:
            parts.append(f"{self.seconds:g}s")
        return ",".join(parts) or "default"


def legal_moves_of(view: View) -> tuple[Move, ...]:
    """The view's legal moves; ValueError if its seat is not to move (nothing to choose)."""
    if not view.legal_moves:
        raise ValueError(f"seat {view.seat} has no legal move (it is not to move)")
    return view.legal_moves


@runtime_checkable
class Player(Protocol):
    """Anything with a ``name`` that picks one of ``view.legal_moves``."""

    name: str

    def choose(self, view: View, budget: Budget | None = None) -> Move:
        """Return one of ``view.legal_moves`` (the view's seat is the one to move)."""
        ...


@runtime_checkable
class SeeingPlayer(Protocol):
    """A measuring stick that sees every tile: handed a copy of the hand state too."""

    name: str
    sees_all: bool

    def choose(self, view: View, budget: Budget | None = None) -> Move: ...

    def choose_seeing(self, hand: Hand[Any], view: View, budget: Budget | None = None) -> Move:
        """Return one of ``view.legal_moves``, knowing ``hand`` (a copy; may be changed)."""
        ...
