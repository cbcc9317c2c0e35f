"""Tiles of the double-six set (RULES.md section 1).

A tile is an interned, immutable value: ``Tile(6, 5) is Tile(5, 6)``. Its canonical
text is ``[hi|lo]``; :func:`parse_tile` also reads ``65``, ``6-5``, ``6|5`` and ``5|6``.
"""

from __future__ import annotations

from typing import Final

from dominolab.core.errors import InvalidMoveError, shown

MAX_PIP: Final = 6


class Tile:
    """One domino tile ``[hi|lo]``. Construct with either half first; the result is shared."""

    __slots__ = ("hi", "lo", "index", "pips", "is_double")

    hi: int
    lo: int
    index: int
    pips: int
    is_double: bool

    def __new__(cls, a: int, b: int) -> Tile:
        if not (isinstance(a, int) and isinstance(b, int)) or not (
            0 <= a <= MAX_PIP and 0 <= b <= MAX_PIP
        ):
            raise InvalidMoveError(f"no tile [{a}|{b}] in a double-six set")
        hi, lo = (a, b) if a >= b else (b, a)
        return _BY_HALVES[hi][lo]

    @classmethod
    def _make(cls, hi: int, lo: int) -> Tile:
        tile = object.__new__(cls)
        object.__setattr__(tile, "hi", hi)
        object.__setattr__(tile, "lo", lo)
        object.__setattr__(tile, "index", hi * (hi + 1) // 2 + lo)
        object.__setattr__(tile, "pips", hi + lo)
        object.__setattr__(tile, "is_double", hi == lo)
        return tile

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Tile is immutable")

    def __reduce__(self) -> tuple[type[Tile], tuple[int, int]]:
        return (Tile, (self.hi, self.lo))

    def __copy__(self) -> Tile:
        return self

    def __deepcopy__(self, memo: object) -> Tile:
        return self

    def __repr__(self) -> str:
        return f"Tile({self.hi}, {self.lo})"

    def __str__(self) -> str:
        return f"[{self.hi}|{self.lo}]"

    def __lt__(self, other: Tile) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index

    @property
    def digits(self) -> str:
        """The tile as two digits, high half first (``"65"``): the lead's notation, and how
        the web app writes tiles."""
        return f"{self.hi}{self.lo}"

    @property
    def halves(self) -> tuple[int, ...]:
        """The distinct pip values on the tile, ascending (one for a double)."""
        return (self.lo,) if self.is_double else (self.lo, self.hi)

    def has(self, pip: int) -> bool:
        return pip == self.hi or pip == self.lo

    def other(self, pip: int) -> int:
        """The half opposite ``pip`` (which must be on the tile)."""
        return self.lo if pip == self.hi else self.hi


_BY_HALVES: list[list[Tile]] = []
for _hi in range(MAX_PIP + 1):
    _BY_HALVES.append([Tile._make(_hi, _lo) for _lo in range(_hi + 1)])

#: All 28 tiles in canonical order: [0|0], [1|0], [1|1], [2|0], ... [6|6].
TILES: Final[tuple[Tile, ...]] = tuple(t for row in _BY_HALVES for t in row)
assert [t.index for t in TILES] == list(range(28))


#: the digits of notation: ASCII only (``str.isdigit`` and ``int`` also take other scripts' digits)
DIGITS: Final = "0123456789"


def non_ascii(text: str) -> str | None:
    """Why ``text`` cannot be notation, if it holds a character beyond ASCII (None if not):
    the first such character and where it is, e.g. ``'²' (character 2) is not one of the
    plain digits 0-9 that notation uses``."""
    if text.isascii():
        return None
    at, char = next((i, c) for i, c in enumerate(text) if not c.isascii())
    what = "not one of the plain digits 0-9 that notation uses" if char.isdigit() \
        else "not part of the notation, which is plain ASCII"
    return f"{char!r} (character {at + 1}) is {what}"


def parse_tile(text: str) -> Tile:
    """Read a tile: ``[6|5]``, ``6|5``, ``6-5``, ``65`` (either half first).

    Only the ASCII digits are pips. Raises InvalidMoveError quoting the input."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"{shown(text)} is not a tile (write it like [6|5] or 65)")
    why = non_ascii(text)
    if why is not None:
        raise InvalidMoveError(f"{shown(text)} is not a tile: {why}")
    raw = text.strip()
    core = raw[1:-1] if raw.startswith("[") and raw.endswith("]") else raw
    for sep in ("|", "-", ":", ","):
        if sep in core:
            parts = [p.strip() for p in core.split(sep)]
            break
    else:
        parts = list(core)
    if len(parts) != 2 or not all(len(p) == 1 and p in DIGITS for p in parts):
        raise InvalidMoveError(f"{shown(text)} is not a tile (write it like [6|5] or 65)")
    return Tile(int(parts[0]), int(parts[1]))
