"""Ports (free places on the table) and moves, with their context-free text form.

Notation (docs/notation.md):

* ``65`` — lead ``[6|5]`` on the empty table (the opening names no port).
* ``54@1e`` — lay ``[5|4]`` with its 5 touching port ``1e`` (its 4 becomes the outer half).
* ``11@2e*`` — the same for a luzak (the ``*`` marks it; the first digit is the half laid
  against the port, the second the chosen outer half).
* ``44@R`` — line games (Luzak without spinners, Widelec) name the two ends ``L`` and ``R``.
* ``draw``, ``pass``, ``keep`` — Widelec's draw, pass, and keeping a drawn tile.

Tree ports (Luzak) are ``<k><side>``: tile number ``k`` (its order on the table) and a side:
``e`` is the end that continues the line (the outer half of a non-double, the far long side
of a double), ``w`` the opening tile's other end (its high half, or the opening double's other
long side), ``n`` and ``s`` a double's short ends.

``parse_move(str(m)) == m`` for every move ``m``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from contextlib import suppress
from dataclasses import dataclass
from typing import Any, Final, Literal

from dominolab.core.errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    shown,
)
from dominolab.core.tiles import DIGITS, Tile, non_ascii, parse_tile

Side = Literal["w", "e", "n", "s"]
SIDES: Final[tuple[Side, ...]] = ("w", "e", "n", "s")
MAX_TILE_NUMBER: Final = 28


class Port:
    """A free place on the table. Interned: ``Port.tree(1, "e") is Port.parse("1e")``.

    Line ports are ``L`` and ``R``; tree ports are ``(k, side)``. ``index`` orders them:
    L, R, then tree ports by tile number and side (w, e, n, s).
    """

    __slots__ = ("index", "k", "side", "text")

    index: int
    k: int  # tile number for tree ports, 0 for line ports
    side: str  # "w" "e" "n" "s" for tree ports, "L" "R" for line ports
    text: str

    def __new__(cls, text: str) -> Port:
        return Port.parse(text)

    @classmethod
    def _make(cls, index: int, k: int, side: str, text: str) -> Port:
        port = object.__new__(cls)
        for name, value in (("index", index), ("k", k), ("side", side), ("text", text)):
            object.__setattr__(port, name, value)
        return port

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Port is immutable")

    def __reduce__(self) -> tuple[type[Port], tuple[str]]:
        return (Port, (self.text,))

    def __copy__(self) -> Port:
        return self

    def __deepcopy__(self, memo: object) -> Port:
        return self

    def __repr__(self) -> str:
        return f"Port({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __lt__(self, other: Port) -> bool:
        return self.index < other.index

    def __hash__(self) -> int:
        return self.index

    @property
    def is_line(self) -> bool:
        return self.k == 0

    @staticmethod
    def tree(k: int, side: str) -> Port:
        if not (1 <= k <= MAX_TILE_NUMBER) or side not in SIDES:
            raise InvalidMoveError(f"no port {k}{side}")
        return _TREE[k]["wens".index(side)]

    @staticmethod
    def parse(text: str) -> Port:
        port = _BY_TEXT.get(text.strip()) if isinstance(text, str) else None
        if port is None:
            raise InvalidMoveError(
                f"{shown(text)} is not a port (line ends are L and R; tree ports look like "
                f"1e, 3n)"
            )
        return port


LEFT: Final = Port._make(0, 0, "L", "L")
RIGHT: Final = Port._make(1, 0, "R", "R")
_TREE: list[list[Port]] = [[]]
for _k in range(1, MAX_TILE_NUMBER + 1):
    _TREE.append(
        [Port._make(2 + (_k - 1) * 4 + i, _k, s, f"{_k}{s}") for i, s in enumerate(SIDES)]
    )
#: Every port, by ``index``.
PORTS: Final[tuple[Port, ...]] = (LEFT, RIGHT, *(p for row in _TREE for p in row))
_BY_TEXT: dict[str, Port] = {p.text: p for p in PORTS}
_BY_TEXT.update({"l": LEFT, "r": RIGHT})


@dataclass(frozen=True, slots=True)
class Play:
    """Lay ``tile`` with its ``inner`` half against ``port`` (``None``: the opening lead).

    ``luzak`` marks a tile laid without matching (Luzak games). For a luzak the inner half
    is the player's choice; for a normal play it is the half that matches the port.
    """

    tile: Tile
    inner: int
    port: Port | None
    luzak: bool = False

    @property
    def outer(self) -> int:
        return self.tile.other(self.inner)

    def __str__(self) -> str:
        t = self.tile
        if self.port is None:
            return t.digits
        star = "*" if self.luzak else ""
        return f"{self.inner}{t.other(self.inner)}@{self.port.text}{star}"

    def __repr__(self) -> str:
        return f"parse_move({str(self)!r})"

    def __reduce__(self) -> tuple[Any, tuple[Tile, int, Port | None, bool]]:
        # unpickled as the shared value (:func:`play`): the search keys its tree by identity
        return (play, (self.tile, self.inner, self.port, self.luzak))


@dataclass(frozen=True, slots=True)
class Draw:
    """Widelec: draw one tile from the boneyard (the tile drawn is not part of the move)."""

    def __str__(self) -> str:
        return "draw"

    def __repr__(self) -> str:
        return "DRAW"

    def __reduce__(self) -> str:
        return "DRAW"  # unpickled as the shared value


@dataclass(frozen=True, slots=True)
class Pass:
    """Widelec: no playable tile and an empty boneyard."""

    def __str__(self) -> str:
        return "pass"

    def __repr__(self) -> str:
        return "PASS"

    def __reduce__(self) -> str:
        return "PASS"  # unpickled as the shared value


@dataclass(frozen=True, slots=True)
class Keep:
    """Widelec, option ``drawn=may-keep``: keep a playable drawn tile and end the turn."""

    def __str__(self) -> str:
        return "keep"

    def __repr__(self) -> str:
        return "KEEP"

    def __reduce__(self) -> str:
        return "KEEP"  # unpickled as the shared value


Move = Play | Draw | Pass | Keep
DRAW: Final = Draw()
PASS: Final = Pass()
KEEP: Final = Keep()
_WORDS: Final[dict[str, Move]] = {"draw": DRAW, "pass": PASS, "keep": KEEP}

_PLAY_CACHE: dict[tuple[int, int, int, bool], Play] = {}


def play(tile: Tile, inner: int, port: Port | None, luzak: bool = False) -> Play:
    """The shared :class:`Play` value for these fields (checked: ``inner`` is on ``tile``)."""
    key = (tile.index, inner, -1 if port is None else port.index, luzak)
    found = _PLAY_CACHE.get(key)
    if found is None:
        if not tile.has(inner):
            raise InvalidMoveError(f"{tile} has no half {inner}")
        if port is None:
            if luzak:
                raise InvalidMoveError("the opening lead is not a luzak")
            inner = tile.hi
        found = _PLAY_CACHE[key] = Play(tile, inner, port, luzak)
    return found


def parse_move(text: str) -> Move:
    """Read the context-free form of a move (see the module docs). Raises InvalidMoveError.

    Notation is plain ASCII: a digit of another script
    (superscript, Arabic-Indic, fullwidth) is not a pip."""
    if not isinstance(text, str):
        raise InvalidMoveError(f"{shown(text)} is not a move: a move is a text, like 54@1e")
    why = non_ascii(text)
    if why is not None:
        raise InvalidMoveError(f"{shown(text)} is not a move: {why}")
    raw = text.strip()
    word = _WORDS.get(raw.lower())
    if word is not None:
        return word
    body = raw
    luzak = body.endswith("*")
    if luzak:
        body = body[:-1].rstrip()
    if "@" not in body:
        if luzak:
            raise InvalidMoveError(f"{shown(text)}: a luzak needs a port, like 11@2e*")
        try:
            return _opening(body)
        except InvalidMoveError:
            raise InvalidMoveError(
                f"{shown(text)} is not a move (examples: 65, 54@1e, 11@2e*, 44@R, draw, pass)"
            ) from None
    tile_text, _, port_text = body.partition("@")
    try:
        tile = parse_tile(tile_text)
        port = Port.parse(port_text)
    except InvalidMoveError as exc:
        raise InvalidMoveError(f"{shown(text)} is not a move: {exc}") from None
    return play(tile, _first_digit(tile_text), port, luzak)


def _first_digit(tile_text: str) -> int:
    """The first pip written in a tile's text (which :func:`parse_tile` has read)."""
    return int(next(c for c in tile_text if c in DIGITS))


def _opening(body: str) -> Play:
    tile = parse_tile(body)
    return play(tile, tile.hi, None)


def resolve_move(text: str, legal: Sequence[Move], position: str,
                 holding: Collection[Tile] | None = None) -> Move:
    """Read a move typed in a position, given that position's legal moves.

    The full form (``54@1e``) is taken as it is. A bare tile (``54``) or a tile at a port
    (``54@1e``) is enough when one legal move fits; ``*`` may mark a luzak; the order of the
    digits picks the inner half when that is what tells the choices apart. Raises
    InvalidMoveError (not a move), IllegalMoveError (not legal here) or AmbiguousMoveError
    (with ``choices``); the messages quote the input and ``position``.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(f"{shown(text)} is not a move: a move is a text, like 54@1e. "
                               f"Position: {position}")
    why = non_ascii(text)
    if why is not None:
        raise InvalidMoveError(f"{shown(text)} is not a move: {why}. Position: {position}")
    raw = text.strip()
    exact = None
    with suppress(InvalidMoveError):
        exact = parse_move(raw)
    if exact is not None and exact in legal:
        return exact
    listed = ", ".join(map(str, legal[:16])) + (" ..." if len(legal) > 16 else "")
    if exact is not None and not isinstance(exact, Play):
        raise IllegalMoveError(
            f"{shown(raw)} is not legal here (legal: {listed}). Position: {position}")
    body, star = (raw[:-1].rstrip(), True) if raw.endswith("*") else (raw, False)
    tile_text, at, port_text = body.partition("@")
    try:
        tile = parse_tile(tile_text)
        port = Port.parse(port_text) if at else None
    except InvalidMoveError:
        raise InvalidMoveError(
            f"{shown(raw)} is not a move (examples: 65, 54@1e, 11@2e*, 44@R, draw, pass). "
            f"Position: {position}") from None
    choices = [m for m in legal if isinstance(m, Play) and m.tile is tile
               and (port is None or m.port is port) and (not star or m.luzak)]
    if len(choices) > 1:
        first = _first_digit(tile_text)
        oriented = [m for m in choices if m.inner == first]
        if 0 < len(oriented) < len(choices):
            choices = oriented
    if len(choices) == 1:
        return choices[0]
    if not choices:
        if holding is not None and tile not in holding:
            raise IllegalMoveError(
                f"{shown(raw)}: {tile} is not in the hand. Position: {position}")
        raise IllegalMoveError(
            f"{shown(raw)} is not legal here (legal: {listed}). Position: {position}")
    raise AmbiguousMoveError(
        f"{shown(raw)} is ambiguous here; say one of: {', '.join(map(str, choices))}", choices)
