"""A picture of a hand as an RGB array (the environments' ``render_mode="rgb_array"``),
drawn with NumPy alone.

:func:`hand_picture` draws what a spectator sees: seat 1's tiles at the top, the table in the
middle, seat 0's tiles at the bottom, each tile a rectangle with its pips; a luzak is tinted
red. Each seat's band shows its points in this hand and, in a match, its total (in grey),
and a yellow square marks the seat to move. The table is drawn as a row of tiles: a line
game's from its left end to its right end, Luzak's in the order they were laid (the tree's
geometry is the web app's business). A game with a boneyard shows its size at the top
right. Every picture of a game has the same shape, :data:`SHAPE`, whatever the position, and
the same position always gives the same pixels.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from dominolab.core import Hand, Play, Tile, get_game
from dominolab.text import laid_halves, line_order

Image = npt.NDArray[np.uint8]

HALF: Final = 20  # a tile's half is HALF x HALF pixels
PITCH: Final = 2 * HALF + 8  # one tile to the next, across
ROW: Final = HALF + 8  # one row of tiles to the next, down
PER_ROW: Final = 13
MARGIN: Final = 8
WIDTH: Final = 2 * MARGIN + PER_ROW * PITCH
#: rows of tiles in each region: seat 1's hand, the table, seat 0's hand
HAND_ROWS: Final = 2
TABLE_ROWS: Final = 3
DIGIT: Final = 3  # the 3x5 digits are drawn 3 times as big
BAND: Final = 5 * DIGIT + 8  # a seat's score band
HEIGHT: Final = 2 * MARGIN + 2 * BAND + (2 * HAND_ROWS + TABLE_ROWS) * ROW + 2 * MARGIN
SHAPE: Final = (HEIGHT, WIDTH, 3)

FELT: Final = (22, 96, 62)
IVORY: Final = (246, 241, 226)
LUZAK: Final = (250, 200, 190)
EDGE: Final = (40, 40, 40)
PIP: Final = (20, 20, 20)
TEXT: Final = (250, 250, 250)
TOTAL: Final = (175, 190, 180)
TURN: Final = (250, 210, 40)

#: the pips of each value on a 3 x 3 grid (row, column)
_PIPS: Final = {
    0: (), 1: ((1, 1),), 2: ((0, 0), (2, 2)), 3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (0, 2), (2, 0), (2, 2)), 5: ((0, 0), (0, 2), (1, 1), (2, 0), (2, 2)),
    6: ((0, 0), (1, 0), (2, 0), (0, 2), (1, 2), (2, 2)),
}
#: the digits 0-9 in a 3 x 5 font, row by row
_FONT: Final = (
    "111101101101111", "010110010010111", "111001111100111", "111001111001111",
    "101101111001001", "111100111001111", "111100111101111", "111001001001001",
    "111101111101111", "111101111001111",
)


def _fill(img: Image, y: int, x: int, h: int, w: int, color: tuple[int, int, int]) -> None:
    img[max(y, 0):max(y + h, 0), max(x, 0):max(x + w, 0)] = color


def _number(img: Image, y: int, x: int, value: int, color: tuple[int, int, int]) -> int:
    """Draw a whole number at (y, x); the x just past it. A minus sign is a bar."""
    text = str(value)
    for ch in text:
        if ch == "-":
            _fill(img, y + 2 * DIGIT, x, DIGIT, 3 * DIGIT, color)
        else:
            bits = _FONT[int(ch)]
            for i, bit in enumerate(bits):
                if bit == "1":
                    r, c = divmod(i, 3)
                    _fill(img, y + r * DIGIT, x + c * DIGIT, DIGIT, DIGIT, color)
        x += 4 * DIGIT
    return x


def _half(img: Image, y: int, x: int, value: int) -> None:
    for r, c in _PIPS[value]:
        _fill(img, y + 3 + 6 * r, x + 3 + 6 * c, 3, 3, PIP)


def _tile(img: Image, y: int, x: int, left: int, right: int, luzak: bool = False) -> None:
    """A tile lying across at (y, x): its border, its face, the divider and both halves."""
    _fill(img, y - 1, x - 1, HALF + 2, 2 * HALF + 3, EDGE)
    _fill(img, y, x, HALF, 2 * HALF + 1, LUZAK if luzak else IVORY)
    _fill(img, y + 2, x + HALF, HALF - 4, 1, EDGE)
    _half(img, y, x, left)
    _half(img, y, x + HALF + 1, right)


def _tiles(img: Image, top: int, rows: int, tiles: Sequence[tuple[int, int, bool]]) -> None:
    """Lay ``tiles`` (left half, right half, luzak) in rows from ``top``; what does not fit
    is left out."""
    for i, (left, right, luzak) in enumerate(tiles[:rows * PER_ROW]):
        r, c = divmod(i, PER_ROW)
        _tile(img, top + r * ROW + 4, MARGIN + c * PITCH + 4, left, right, luzak)


def _held(tiles: Sequence[Tile]) -> list[tuple[int, int, bool]]:
    return [(t.hi, t.lo, False) for t in tiles]


def _table(table: str, placements: Sequence[Play]) -> list[tuple[int, int, bool]]:
    laid = [(mv, True) for mv in placements] if table == "tree" else line_order(placements)
    return [(*laid_halves(mv, forward), mv.luzak) for mv, forward in laid]


def hand_picture(hand: Hand[Any], totals: tuple[int, int] | None = None) -> Image:
    """A spectator's picture of ``hand`` (module doc): an array of :data:`SHAPE`, uint8 RGB.
    ``totals``: each seat's match total, drawn beside its hand points when given."""
    spec = get_game(hand.GAME)
    img = np.empty(SHAPE, dtype=np.uint8)
    img[:, :] = FELT
    bands = {1: MARGIN, 0: HEIGHT - MARGIN - BAND}
    hands_top = {1: MARGIN + BAND, 0: HEIGHT - MARGIN - BAND - HAND_ROWS * ROW}
    for seat in (0, 1):
        y = bands[seat] + 4
        if hand.result is None and hand.to_move == seat:
            _fill(img, y, MARGIN, 5 * DIGIT, 5 * DIGIT, TURN)
        x = _number(img, y, MARGIN + 6 * DIGIT, hand.points[seat], TEXT)
        if totals is not None:
            _number(img, y, x + 3 * DIGIT, totals[seat], TOTAL)
        _tiles(img, hands_top[seat], HAND_ROWS, _held(hand.hands[seat]))
    if spec.has_boneyard:
        boneyard: Sequence[Tile] = hand.boneyard  # type: ignore[attr-defined]
        _number(img, MARGIN + 4, WIDTH - MARGIN - 8 * DIGIT, len(boneyard), TOTAL)
    table_top = MARGIN + BAND + HAND_ROWS * ROW + MARGIN
    _fill(img, table_top, MARGIN, TABLE_ROWS * ROW + 4, WIDTH - 2 * MARGIN, (18, 80, 52))
    _tiles(img, table_top, TABLE_ROWS, _table(spec.table, hand.table_placements))
    return img


__all__ = ["SHAPE", "hand_picture"]
