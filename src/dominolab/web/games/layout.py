"""Where every tile on the table lies, for the web page's SVG (docs/web.md, LAYOUT).

Pure: it imports only :mod:`dominolab.core` and the standard library, does no I/O and uses
no randomness; the same placements always give the same picture.

Units: a tile is 2 units long and 1 unit wide, ``y`` grows downward. Inside, every
coordinate is a whole number of *half-units*, so the geometry is exact: two tiles overlap
exactly when they share a half-unit cell.

The picture (RULES.md sections 2-4, docs/notation.md):

* **Luzak** (``"luzak"``, a tree): the lead lies horizontally, high half west (port ``1w``);
  a lead double stands across the line (vertical). Every double is a spinner laid across
  its arm: its long sides carry the line on (``w``/``e`` of a lead double, ``e`` of a later
  one) and its short ends (``n``, ``s``) start arms perpendicular to it. For an arm heading
  east or west ``n`` is the short end facing up and ``s`` the one facing down; for an arm
  heading north or south ``n`` faces west and ``s`` east. A non-double lies along its arm,
  the touching half against its parent's port.
* **Luzak without spinners** (``"luzak-line"``) and **Widelec** (``"widelec"``): one line,
  lead high half left; the right end ``R`` heads east and snakes *down* (east, down one
  tile, west, down, east ...), the left end ``L`` heads west and snakes *up*, so the two
  never meet. Doubles, and in ``luzak-line`` luzaks, lie across the line and do not branch.

Every new tile is put where it is cheapest among the free spots that touch its parent:
straight on is cheapest, then a 90-degree turn (at the frame's edge, or around other
tiles). A turning tile keeps its touching half against its parent's port: either just
beyond the port (*corner*), or alongside the port's half (*hook*). A double on a turned arm
lies across the arm's new direction. The costs also keep room free ahead of the new tile's
ports (so that the next tile can still turn inside the frame) and avoid covering the
squares in front of other free ports. The next tile on a luzak across a line touches the
half it matches. A spot outside the frame's width costs more than every other penalty
together.

Promises (``tests/test_web_layout.py`` checks them over 8,000 random finished hands;
the rates below were also measured over 10,000 more hands per game and width):

* no two tiles overlap, and no preview overlaps a table tile;
* earlier tiles never move (greedy, in play order); ``preview(mv)`` is what ``place(mv)``
  then gives;
* every tile shares an edge with its parent at the half the rules say, except when no free
  spot touches the parent at all: then it lies at the nearest free spot straight on from
  the port and ``link`` is a segment from the port to it. Measured: 0.008% of Luzak tiles
  in a narrow frame (about one hand in 1,000), 0.002% wide; never in the line games;
* the lines (``luzak-line``, ``widelec``) stay inside the frame's width (measured: none of
  600,000 tiles left it); a Luzak tree leaves it only when none of the spots it tries that
  touch the parent inside the frame is free (a touching spot outside is better than a
  detached tile): 0.05% of tiles narrow, 0.0004% wide.

The frame is ``FRAME_WIDTH[width]`` units wide, centred on the lead; a Luzak tree also
bends its arms to stay within ``FRAME_HEIGHT[width]`` units of height when it can (lines
grow downward and upward as they snake).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from dominolab.core import LEFT, RIGHT, GameSpec, Options, Play, Port, Tile, get_game

#: the frame's width in units, per page width
FRAME_WIDTH: Final[dict[str, int]] = {"wide": 24, "narrow": 12}
#: the soft height (units) a Luzak tree bends its arms to stay within
FRAME_HEIGHT: Final[dict[str, int]] = {"wide": 14, "narrow": 20}

Rect = tuple[int, int, int, int]  # x0, y0, x1, y1 in half-units

_KEY: Final = 1 << 16  # cell key: x * _KEY + y (|y| stays far below 2**15)
_OUT_OF_WIDTH: Final = 10_000
_OUT_OF_HEIGHT: Final = 2_000
_NO_ROOM_AHEAD: Final = 50
_BLOCKS_PORT: Final = 40
_TURN: Final = 10
_HOOK: Final = 3
_END_ON: Final = 30  # a double standing with a short end against the port: last resort

# candidate kinds
_ALONG: Final = 0  # non-double, touching half just beyond the port (straight or corner)
_ALONG_HOOK: Final = 1  # non-double, touching half alongside the port's half
_ACROSS: Final = 2  # double (or line luzak) across the arm, straight on
_ACROSS_HOOK: Final = 3  # double across a turned arm, long side alongside the port's half
_ACROSS_END: Final = 4  # double across a turned arm, short end against the port


@dataclass(frozen=True, slots=True)
class Placed:
    """One tile's place on the table (units; a tile is 2 by 1, ``y`` grows downward).

    ``a`` is the pips of the half drawn left (horizontal tile) or top (vertical tile), ``b``
    the other half. ``link``, set only when the tile could not sit against its parent, is
    a segment ``(x0, y0, x1, y1)`` from the parent's port to the tile.
    """

    k: int
    tile: Tile
    x: float
    y: float
    w: float
    h: float
    a: int
    b: int
    luzak: bool
    spinner: bool
    link: tuple[float, float, float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        """The PLACED object of docs/web.md (``link`` only when set)."""
        out: dict[str, Any] = {
            "k": self.k, "tile": self.tile.digits, "x": self.x, "y": self.y,
            "w": self.w, "h": self.h, "a": self.a, "b": self.b, "luzak": self.luzak,
            "spinner": self.spinner}
        if self.link is not None:
            out["link"] = list(self.link)
        return out


class _End:
    """A free port: a segment on its tile's edge, centred at (cx, cy), ``hl`` half-units
    to each side, facing (dx, dy). ``pq`` is the port's half (a non-double's outer half
    square), or None on a double. ``costs`` maps each heading an arm may take from here to
    its cost; ``hd``/``vd`` are a line end's row direction and snake direction."""

    __slots__ = ("cx", "cy", "dx", "dy", "hl", "pq", "parent", "front", "costs", "hd", "vd",
                 "cands", "match")

    def __init__(self, cx: int, cy: int, dx: int, dy: int, hl: int, pq: Rect | None,
                 parent: Rect) -> None:
        self.cx = cx
        self.cy = cy
        self.dx = dx
        self.dy = dy
        self.hl = hl
        self.pq = pq
        self.parent = parent
        self.front = _beyond(cx, cy, dx, dy, 2, 2, 0)
        self.costs: dict[tuple[int, int], int] | None = None  # set when first needed
        self.hd = (0, 0)
        self.vd = (0, 0)
        self.cands: list[list[tuple[int, int, int, int, int]] | None] = [None, None]
        #: a luzak across a line (RULES.md section 3): each half's square, by its value; the
        #: next tile must touch the half it matches
        self.match: dict[int, Rect] | None = None


@dataclass(frozen=True, slots=True)
class _Spot:
    """A solved place: the rectangle, the heading of the arm after it, the touching half
    (non-doubles), the link if detached, and the tile's new ports."""

    rect: Rect
    box: tuple[float, float, float, float]  # x, y, w, h in units
    hx: int
    hy: int
    inner: Rect | None
    link: tuple[float, float, float, float] | None
    ends: tuple[_End, ...]


#: candidate lists shared by ports alike (same costs, direction, size, half, tile kind)
_CANDIDATES: dict[tuple[Any, ...], list[tuple[int, int, int, int, int]]] = {}


def _beyond(cx: int, cy: int, dx: int, dy: int, t: int, w: int, s: int) -> Rect:
    """The rectangle ``t`` deep in direction (dx, dy) from the point (cx, cy), ``w`` wide
    across, centred ``s`` half-units off the point along the cross axis."""
    if dx:
        x0 = cx if dx > 0 else cx - t
        y0 = cy + s - w // 2
        return (x0, y0, x0 + t, y0 + w)
    y0 = cy if dy > 0 else cy - t
    x0 = cx + s - w // 2
    return (x0, y0, x0 + w, y0 + t)


def _shift(r: Rect, dx: int, dy: int) -> Rect:
    """``r`` moved one unit (two half-units) in direction (dx, dy)."""
    return (r[0] + 2 * dx, r[1] + 2 * dy, r[2] + 2 * dx, r[3] + 2 * dy)


def _union(a: Rect, b: Rect) -> Rect:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _edge(r: Rect, dx: int, dy: int) -> tuple[int, int]:
    """The centre of the side of ``r`` that faces (dx, dy)."""
    if dx > 0:
        return r[2], (r[1] + r[3]) // 2
    if dx < 0:
        return r[0], (r[1] + r[3]) // 2
    if dy > 0:
        return (r[0] + r[2]) // 2, r[3]
    return (r[0] + r[2]) // 2, r[1]


def _overlap(a: Rect, b: Rect) -> bool:
    """True if the interiors of ``a`` and ``b`` intersect."""
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _touch(a: Rect, b: Rect) -> bool:
    """True if ``a`` and ``b`` share a piece of edge of positive length."""
    if a[2] == b[0] or b[2] == a[0]:
        return min(a[3], b[3]) > max(a[1], b[1])
    if a[3] == b[1] or b[3] == a[1]:
        return min(a[2], b[2]) > max(a[0], b[0])
    return False


def _box(r: Rect) -> tuple[float, float, float, float]:
    """``r`` as x, y, w, h in units."""
    return r[0] / 2, r[1] / 2, (r[2] - r[0]) / 2, (r[3] - r[1]) / 2


def _clockwise(dx: int, dy: int) -> tuple[int, int]:
    return -dy, dx


def _grown(box: tuple[float, float, float, float] | None, p: Placed
           ) -> tuple[float, float, float, float]:
    """``box`` (None: nothing yet) grown to enclose ``p`` and its link."""
    x0, y0, x1, y1 = (p.x, p.y, p.x + p.w, p.y + p.h) if box is None else \
        (min(box[0], p.x), min(box[1], p.y), max(box[2], p.x + p.w), max(box[3], p.y + p.h))
    if p.link is not None:
        lx0, ly0, lx1, ly1 = p.link
        x0, x1 = min(x0, lx0, lx1), max(x1, lx0, lx1)
        y0, y1 = min(y0, ly0, ly1), max(y1, ly0, ly1)
    return (x0, y0, x1, y1)


def _cells(r: Rect) -> list[int]:
    return [x * _KEY + y for x in range(r[0], r[2]) for y in range(r[1], r[3])]


class TableLayout:
    """The layout of one hand's table, built greedily in play order.

    ``game`` is a spec or the name of a game (or an alias, see
    :func:`dominolab.core.get_game`); ``width`` is ``"wide"`` or ``"narrow"`` (a phone):
    the frame the arms and lines bend to stay inside (:data:`FRAME_WIDTH`).
    """

    def __init__(self, game: str | GameSpec, options: Options, width: str = "wide") -> None:
        if width not in FRAME_WIDTH:
            raise ValueError(f"unknown layout width {width!r}; it is 'wide' or 'narrow'")
        spec = get_game(game) if isinstance(game, str) else game
        self.game = spec.name
        self.options = options
        self.width = width
        self._tree = spec.table == "tree"
        self._xl = FRAME_WIDTH[width]  # half the width in units = half-units to each side
        self._yl = FRAME_HEIGHT[width] if self._tree else 0
        # the room (half-units) a tile wants free ahead of its port, along / across: enough
        # for the next tile to turn; in a tree for one tile more; after a luzak across a line
        # for a tile that must match its far half and then a double (RULES.md section 3)
        self._room = (4, 4) if self._tree else (2, 6) if spec.luzaks else (2, 4)
        self._occ: set[int] = set()
        self._ends: dict[int, _End] = {}
        self._placed: list[Placed] = []
        self._tuple: tuple[Placed, ...] = ()
        #: each tile's PLACED object, made once, and the box of them all: every state sent
        #: carries the table, twice a move
        self._json: list[dict[str, Any]] = []
        self._box: tuple[float, float, float, float] = (-1.0, -1.0, 1.0, 1.0)
        #: solved spots by (port, across, the half a luzak's neighbour must touch), each
        #: with the box of every rectangle its solving looked at (see :meth:`place`)
        self._cache: dict[tuple[int, bool, int], tuple[_Spot, Rect]] = {}

    # -- public ------------------------------------------------------------------------------
    @property
    def tiles(self) -> tuple[Placed, ...]:
        """The tiles laid so far, in play order (tile ``k`` at index ``k - 1``)."""
        return self._tuple

    @property
    def frame(self) -> tuple[float, float, float, float]:
        """The soft frame ``(x0, y0, x1, y1)`` in units (lines: unbounded in height)."""
        x = self._xl / 2
        y = self._yl / 2 if self._yl else math.inf
        return (-x, -y, x, y)

    def place(self, mv: Play) -> Placed:
        """Lay the next tile (``mv`` from the engine, legal here) and return its place."""
        spot = self._spot(mv)
        placed = self._placed_of(mv, spot)
        for key in _cells(spot.rect):
            self._occ.add(key)
        port = mv.port
        k = len(self._placed) + 1
        gone = None if port is None else self._ends.pop(port.index)
        if mv.luzak and not self._tree and not mv.tile.is_double:  # across: high half first
            r = spot.rect
            if r[2] - r[0] > r[3] - r[1]:
                first, second = (r[0], r[1], r[0] + 2, r[3]), (r[0] + 2, r[1], r[2], r[3])
            else:
                first, second = (r[0], r[1], r[2], r[1] + 2), (r[0], r[1] + 2, r[2], r[3])
            spot.ends[0].match = {mv.tile.hi: first, mv.tile.lo: second}
        if self._tree:
            for side, end in zip("ens" if port is not None else "wens", spot.ends, strict=False):
                self._ends[Port.tree(k, side).index] = end
        elif port is None:
            self._ends[LEFT.index], self._ends[RIGHT.index] = spot.ends
        else:
            self._ends[port.index] = spot.ends[0]
        self._placed.append(placed)
        self._tuple = (*self._tuple, placed)
        self._json.append(placed.to_json())
        self._box = _grown(self._box if k > 1 else None, placed)
        self._forget(spot, gone, port)
        return placed

    def preview(self, mv: Play) -> Placed:
        """Where ``mv`` would lie (``k`` is the number the tile would get); the layout is
        not changed."""
        return self._placed_of(mv, self._spot(mv))

    def bounds(self) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` enclosing every tile (and link); for the empty table, the box
        the lead will lie in."""
        return self._box

    def to_json(self) -> dict[str, Any]:
        """The LAYOUT object of docs/web.md: ``{"tiles": [PLACED...], "bounds": [...]}``.
        The PLACED objects are made once and shared by every call: read them, never change
        them."""
        return {"tiles": list(self._json), "bounds": list(self._box)}

    # -- solving -----------------------------------------------------------------------------
    def _across(self, mv: Play) -> bool:
        return mv.tile.is_double or (mv.luzak and not self._tree)

    def _spot(self, mv: Play) -> _Spot:
        port = mv.port
        across = self._across(mv)
        if port is None:
            if self._placed:
                raise ValueError(f"{mv}: the table is not empty, a play needs a port")
            return self._lead(across)
        end = self._ends.get(port.index)
        if end is None:
            raise ValueError(f"{mv}: port {port} is not a free port of this table")
        need = None if end.match is None else end.match.get(mv.inner)
        key = (port.index, across, -1 if need is None else mv.inner)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._solve(port.index, end, across, need)
        return found[0]

    def _forget(self, spot: _Spot, gone: _End | None, port: Port | None) -> None:
        """After ``spot`` was laid at ``port`` (whose end ``gone`` left), drop the solved
        spots it may have changed; keep the rest. Solving a port reads the table only
        through the cells of the rectangles it looks at and through the other ports' fronts
        overlapping them, all inside the box kept with the spot: a spot whose box the new
        tile, the ports it opens and the port it closed all miss would be solved again to
        the same place (``tests/test_web_layout.py`` checks this against layouts solved
        afresh)."""
        if port is None:
            self._cache.clear()
            return
        changed = [spot.rect, *(end.front for end in spot.ends)]
        if gone is not None:
            changed.append(gone.front)
        self._cache = {key: found for key, found in self._cache.items()
                       if key[0] != port.index
                       and not any(_overlap(r, found[1]) for r in changed)}

    def _placed_of(self, mv: Play, spot: _Spot) -> Placed:
        tile = mv.tile
        if spot.inner is None:  # across, or the lead: high half left / top
            a, b = tile.hi, tile.lo
        else:
            outer = tile.other(mv.inner)
            # the touching half is drawn first when the arm heads east or south
            a, b = (mv.inner, outer) if spot.hx + spot.hy > 0 else (outer, mv.inner)
        x, y, w, h = spot.box
        return Placed(len(self._placed) + 1, tile, x, y, w, h, a, b, mv.luzak,
                      self._tree and tile.is_double, spot.link)

    def _lead(self, double: bool) -> _Spot:
        if double:
            r: Rect = (-1, -2, 1, 2)
            ends = [_End(-1, 0, -1, 0, 2, None, r), _End(1, 0, 1, 0, 2, None, r)]
            if self._tree:
                ends += [_End(0, -2, 0, -1, 1, None, r), _End(0, 2, 0, 1, 1, None, r)]
        else:
            r = (-2, -1, 2, 1)
            ends = [_End(-2, 0, -1, 0, 1, (-2, -1, 0, 1), r),
                    _End(2, 0, 1, 0, 1, (0, -1, 2, 1), r)]
        if not self._tree:
            for end in ends:
                end.hd = (end.dx, end.dy)
                end.vd = (0, 1) if end.dx > 0 else (0, -1)
        # the lead is drawn high half first: as a tile "heading east" with no inner half
        return _Spot(r, _box(r), 1, 0, None, None, tuple(ends))

    def _tree_costs(self, end: _End) -> dict[tuple[int, int], int]:
        """A tree arm goes straight on; it turns away from the lead's axes (clockwise when
        on an axis)."""
        d = (end.dx, end.dy)
        cw = _clockwise(*d)
        ccw = (-cw[0], -cw[1])
        along = end.cy if end.dx else end.cx  # position on the cross axis
        prefer = (cw if (cw[0] + cw[1] > 0) == (along > 0) else ccw) if along else cw
        other = ccw if prefer == cw else cw
        return {d: 0, prefer: _TURN, other: _TURN + 1}

    def _line_costs(self, end: _End) -> dict[tuple[int, int], int]:
        """A line end snakes: along its row, down (R) or up (L) one tile at the frame's
        edge, then back along the next row."""
        d = (end.dx, end.dy)
        hd, vd = end.hd, end.vd
        back_h = (-hd[0], -hd[1])
        back_v = (-vd[0], -vd[1])
        if d[1] == 0:  # along a row
            return {d: 0, vd: _TURN, back_v: 300}
        elif d == vd:  # between two rows
            return {back_h: 0, vd: 5, hd: 200}
        # an arm that had to go the wrong way
        return {back_h: 20, hd: 20, d: 300}

    def _candidates(self, end: _End, across: bool) -> list[tuple[int, int, int, int, int]]:
        """(base cost, kind, heading x, heading y, offset), cheapest first."""
        cached = end.cands[across]
        if cached is not None:
            return cached
        d = (end.dx, end.dy)
        hook = _HOOK if (self._tree or d[1] == 0) else 50
        costs = end.costs
        if costs is None:
            costs = end.costs = self._tree_costs(end) if self._tree else self._line_costs(end)
        key = (tuple(costs.items()), d, end.hl, end.pq is not None, across, hook)
        found = _CANDIDATES.get(key)
        if found is not None:
            end.cands[across] = found
            return found
        out: list[tuple[int, int, int, int, int]] = []
        for h, cost in costs.items():
            turn = h != d
            if across:
                if not turn:
                    for s in range(-2, 3):
                        out.append((cost + abs(s), _ACROSS, h[0], h[1], s))
                else:
                    if end.pq is not None:
                        out.append((cost + hook, _ACROSS_HOOK, h[0], h[1], 0))
                    out.append((cost + _END_ON, _ACROSS_END, h[0], h[1], 0))
            else:
                reach = 1 if end.hl == 1 else 2
                for s in range(-reach, reach + 1):
                    out.append((cost + abs(s), _ALONG, h[0], h[1], s))
                if turn and end.pq is not None:
                    out.append((cost + hook, _ALONG_HOOK, h[0], h[1], 0))
        out.sort()
        end.cands[across] = _CANDIDATES[key] = out
        return out

    def _free(self, r: Rect) -> bool:
        occ = self._occ
        for x in range(r[0], r[2]):
            base = x * _KEY
            for y in range(r[1], r[3]):
                if base + y in occ:
                    return False
        return True

    def _frame_cost(self, r: Rect) -> int:
        cost = 0
        xl = self._xl
        if r[0] < -xl or r[2] > xl:
            cost += _OUT_OF_WIDTH
        yl = self._yl
        if yl and (r[1] < -yl or r[3] > yl):
            cost += _OUT_OF_HEIGHT
        return cost

    def _shape(self, end: _End, kind: int, hx: int, hy: int,
               s: int) -> tuple[Rect, Rect | None, int, int, int] | None:
        """The rectangle of a candidate, its touching half (non-doubles) and its far port
        (centre x, y and half-length), or None if the shape is not allowed."""
        cx, cy, dx, dy = end.cx, end.cy, end.dx, end.dy
        if kind in (_ALONG, _ALONG_HOOK):
            if kind == _ALONG:
                inner = _beyond(cx, cy, dx, dy, 2, 2, s)
            else:
                assert end.pq is not None
                inner = _shift(end.pq, hx, hy)
            outer = _shift(inner, hx, hy)
            if _touch(outer, end.parent):
                return None  # the outer half would seem to touch the parent too
            ex, ey = _edge(outer, hx, hy)
            return _union(inner, outer), inner, ex, ey, 1
        if kind == _ACROSS:
            r = _beyond(cx, cy, dx, dy, 2, 4, s)
        elif kind == _ACROSS_HOOK:
            assert end.pq is not None
            r = _union(_shift(end.pq, hx, hy), _shift(_shift(end.pq, dx, dy), hx, hy))
        else:
            r = _beyond(cx, cy, dx, dy, 4, 2, s)
        ex, ey = _edge(r, hx, hy)
        return r, None, ex, ey, 2

    def _solve(self, index: int, end: _End, across: bool, need: Rect | None
               ) -> tuple[_Spot, Rect]:
        """The cheapest free spot touching the port (touching the square ``need`` too, if
        given), or a detached one; and the box of every rectangle looked at for it."""
        best: tuple[int, int, int, int, int, Rect, Rect | None, int, int, int] | None = None
        best_cost = math.inf
        ends = self._ends
        tree = self._tree
        room = self._room
        seen: Rect = (end.cx, end.cy, end.cx, end.cy)
        for base, kind, hx, hy, s in self._candidates(end, across):
            if base >= best_cost:
                break
            shape = self._shape(end, kind, hx, hy, s)
            if shape is None:
                continue
            r, inner, ex, ey, hl = shape
            if need is not None and not _touch(r if inner is None else inner, need):
                continue
            seen = _union(seen, r)
            if not self._free(r):
                continue
            cost = base + self._frame_cost(r)
            ahead = _beyond(ex, ey, hx, hy, room[inner is None], 2, 0)
            seen = _union(seen, ahead)
            if self._frame_cost(ahead) or not self._free(ahead):
                cost += _NO_ROOM_AHEAD
            if inner is None and tree:  # a spinner: room at its short ends too
                for sx, sy in ((hy, hx), (-hy, -hx)):
                    px, py = _edge(r, sx, sy)
                    front = _beyond(px, py, sx, sy, 2, 2, 0)
                    seen = _union(seen, front)
                    if self._frame_cost(front) or not self._free(front):
                        cost += _NO_ROOM_AHEAD
            for i, other in ends.items():
                if i != index and _overlap(r, other.front):
                    cost += _BLOCKS_PORT
            if cost < best_cost:
                best_cost = cost
                best = (cost, kind, hx, hy, s, r, inner, ex, ey, hl)
        if best is None:
            return self._detached(end, across, seen)
        _, kind, hx, hy, s, r, inner, ex, ey, hl = best
        return self._make_spot(end, r, inner, hx, hy, ex, ey, hl, None), seen

    def _detached(self, end: _End, across: bool, seen: Rect) -> tuple[_Spot, Rect]:
        """No free spot touches the parent: the nearest free spot straight on, linked; and
        ``seen`` grown by every rectangle looked at."""
        cx, cy, dx, dy = end.cx, end.cy, end.dx, end.dy
        step = 1
        while True:
            px, py = cx + dx * step, cy + dy * step
            if across:
                r = _beyond(px, py, dx, dy, 2, 4, 0)
                inner = None
            else:
                inner = _beyond(px, py, dx, dy, 2, 2, 0)
                r = _union(inner, _shift(inner, dx, dy))
            seen = _union(seen, r)
            if self._free(r):
                break
            step += 1
        ex, ey = _edge(r, dx, dy)
        link = (cx / 2, cy / 2, px / 2, py / 2)
        return self._make_spot(end, r, inner, dx, dy, ex, ey, 2 if across else 1, link), seen

    def _make_spot(self, end: _End, r: Rect, inner: Rect | None, hx: int, hy: int, ex: int,
                   ey: int, hl: int, link: tuple[float, float, float, float] | None) -> _Spot:
        pq = None if inner is None else _shift(inner, hx, hy)
        ends = [_End(ex, ey, hx, hy, hl, pq, r)]
        if self._tree:
            if inner is None:  # a spinner: its short ends, n then s
                nx, ny = (0, -1) if hy == 0 else (-1, 0)
                for sx, sy in ((nx, ny), (-nx, -ny)):
                    px, py = _edge(r, sx, sy)
                    ends.append(_End(px, py, sx, sy, 1, None, r))
        else:
            new = ends[0]
            new.vd = end.vd
            new.hd = (hx, hy) if hy == 0 else end.hd
        return _Spot(r, _box(r), hx, hy, inner, link, tuple(ends))


def layout_table(game: str | GameSpec, options: Options, placements: Sequence[Play],
                 width: str = "wide") -> TableLayout:
    """The layout of a table laid with ``placements`` (in play order)."""
    layout = TableLayout(game, options, width)
    for mv in placements:
        layout.place(mv)
    return layout


__all__ = ["FRAME_HEIGHT", "FRAME_WIDTH", "Placed", "TableLayout", "layout_table"]
