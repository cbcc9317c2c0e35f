"""The table: a tree of ports (Luzak, RULES.md section 2) or a line with two ends
(Luzak without spinners and Widelec, sections 3 and 4).

Tables know geometry and the table count; they know nothing of hands or seats. Both keep
their figures incrementally; ``recount`` recomputes the count from the placements alone,
as an independent check.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterable, Sequence
from typing import Final

from dominolab.core.errors import IllegalMoveError
from dominolab.core.moves import LEFT, PORTS, RIGHT, Play, Port, play
from dominolab.core.tiles import TILES, Tile

_W, _E, _N, _S = 0, 1, 2, 3
_NPORTS: Final = len(PORTS)



def _rows(luzak: bool) -> tuple[tuple[Play, ...], ...]:
    """Shared Play values: ``ROWS[tile.index * 7 + inner][port.index]`` (empty rows for a
    half the tile does not have)."""
    return tuple(
        tuple(play(t, inner, p, luzak) for p in PORTS) if t.has(inner) else ()
        for t in TILES for inner in range(7)
    )


NORMAL_ROWS: Final = _rows(False)
LUZAK_ROWS: Final = _rows(True)
#: ``LANES[tile.index]``: (half, row of normal plays with that half inner), half ascending
LANES: Final[tuple[tuple[tuple[int, tuple[Play, ...]], ...], ...]] = tuple(
    tuple((h, NORMAL_ROWS[t.index * 7 + h]) for h in t.halves) for t in TILES
)
OPENINGS: Final[tuple[Play, ...]] = tuple(play(t, t.hi, None) for t in TILES)


class TreeTable:
    """Luzak's table: every double a spinner (RULES.md section 2)."""

    __slots__ = ("short_any", "n", "count", "by_value", "port_value", "long_free",
                 "placements")

    def __init__(self, short_ends_any_time: bool = True) -> None:
        self.short_any = short_ends_any_time
        self.n = 0
        self.count = 0
        #: free port indices by value, each list ascending
        self.by_value: list[list[int]] = [[], [], [], [], [], [], []]
        #: free port index -> value
        self.port_value: dict[int, int] = {}
        #: per tile number (index k): free long sides of a double
        self.long_free: list[int] = [0]
        self.placements: list[Play] = []

    def copy(self) -> TreeTable:
        new = TreeTable.__new__(TreeTable)
        new.short_any = self.short_any
        new.n = self.n
        new.count = self.count
        new.by_value = [v.copy() for v in self.by_value]
        new.port_value = self.port_value.copy()
        new.long_free = self.long_free.copy()
        new.placements = self.placements.copy()
        return new

    # -- ports ---------------------------------------------------------------------------
    def free_ports(self) -> list[Port]:
        return [PORTS[i] for i in sorted(self.port_value)]

    def port_values(self) -> dict[Port, int]:
        return {PORTS[i]: v for i, v in sorted(self.port_value.items())}

    def _add_port(self, index: int, value: int, keep_sorted: bool = False) -> None:
        self.port_value[index] = value
        if keep_sorted:
            insort(self.by_value[value], index)
        else:
            self.by_value[value].append(index)

    # -- moves ---------------------------------------------------------------------------
    def normal_plays(self, tiles: Iterable[Tile]) -> list[Play]:
        """Every normal play of these tiles, ordered by tile, inner half, port."""
        if self.n == 0:
            return [OPENINGS[t.index] for t in tiles]
        by_value = self.by_value
        return [row[i] for t in tiles for v, row in LANES[t.index] for i in by_value[v]]

    def luzak_plays(self, tiles: Iterable[Tile]) -> list[Play]:
        """Every luzak of these tiles: any free port, either half outward."""
        free = sorted(self.port_value)
        out: list[Play] = []
        for tile in tiles:
            for inner in tile.halves:
                row = LUZAK_ROWS[tile.index * 7 + inner]
                out.extend([row[i] for i in free])
        return out

    def fits(self, tile: Tile) -> bool:
        """True if the tile has a normal play somewhere."""
        if self.n == 0:
            return True
        return bool(self.by_value[tile.lo] or self.by_value[tile.hi])

    def check(self, mv: Play) -> None:
        """Raise IllegalMoveError unless ``mv`` can be laid here (hands are not checked)."""
        if mv.port is None:
            if self.n:
                raise IllegalMoveError(f"{mv}: the table is not empty, name a port")
            return
        if self.n == 0:
            raise IllegalMoveError(f"{mv}: the table is empty, lead a tile without a port")
        value = self.port_value.get(mv.port.index)
        if value is None:
            free = " ".join(f"{p}:{v}" for p, v in self.port_values().items())
            raise IllegalMoveError(f"{mv}: port {mv.port} is not free (free ports: {free})")
        if mv.luzak:
            if mv.tile.has(value):
                raise IllegalMoveError(f"{mv}: {mv.tile} matches port {mv.port}, it is no luzak")
        elif mv.inner != value:
            raise IllegalMoveError(
                f"{mv}: port {mv.port} shows {value}, {mv.tile} cannot match it with its {mv.inner}"
            )

    def place(self, mv: Play) -> int:
        """Lay ``mv`` (unchecked) and return the new table count."""
        tile = mv.tile
        self.n = k = self.n + 1
        self.placements.append(mv)
        base = 2 + (k - 1) * 4
        count = self.count
        port = mv.port
        if port is None:
            if tile.is_double:
                d = tile.hi
                self._add_port(base + _W, d)
                self._add_port(base + _E, d)
                if self.short_any:
                    self._add_port(base + _N, d)
                    self._add_port(base + _S, d)
                self.long_free.append(2)
                count = d + d
            else:
                self._add_port(base + _W, tile.hi)
                self._add_port(base + _E, tile.lo)
                self.long_free.append(0)
                count = tile.pips
            self.count = count
            return count
        pi = port.index
        port_value = self.port_value
        by_value = self.by_value
        value = port_value.pop(pi)
        by_value[value].remove(pi)
        j = port.k
        parent = self.placements[j - 1].tile
        if parent.is_double:
            side = port.side
            if side == "e" or side == "w":
                left = self.long_free[j] - 1
                self.long_free[j] = left
                if left == 0:
                    count -= parent.pips
                    if not self.short_any:
                        jb = 2 + (j - 1) * 4
                        self._add_port(jb + _N, parent.hi, True)
                        self._add_port(jb + _S, parent.hi, True)
        else:
            count -= value
        e = base + _E
        if tile.is_double:
            d = tile.hi
            port_value[e] = d
            by_value[d].append(e)
            if self.short_any:
                port_value[e + 1] = d
                port_value[e + 2] = d
                by_value[d] += (e + 1, e + 2)
            self.long_free.append(1)
            count += d + d
        else:
            outer = tile.lo if mv.inner == tile.hi else tile.hi
            port_value[e] = outer
            by_value[outer].append(e)
            self.long_free.append(0)
            count += outer
        self.count = count
        return count

    def count_after(self, mv: Play) -> int:
        """The table count once ``mv`` were laid (unchecked; the table is not changed)."""
        tile = mv.tile
        port = mv.port
        if port is None:
            return tile.pips
        count = self.count
        j = port.k
        parent = self.placements[j - 1].tile
        if parent.is_double:
            side = port.side
            if (side == "e" or side == "w") and self.long_free[j] == 1:
                count -= parent.pips
        else:
            count -= self.port_value[port.index]
        if tile.is_double:
            return count + tile.pips
        return count + (tile.lo if mv.inner == tile.hi else tile.hi)

    @staticmethod
    def recount(placements: Sequence[Play]) -> int:
        """The table count computed from the placements alone (RULES.md section 2)."""
        used = {mv.port for mv in placements if mv.port is not None}
        total = 0
        for k, mv in enumerate(placements, start=1):
            tile = mv.tile
            if tile.is_double:
                long_sides = ("w", "e") if k == 1 else ("e",)
                if any(Port.tree(k, s) not in used for s in long_sides):
                    total += 2 * tile.hi
            elif k == 1:
                total += sum(v for s, v in (("w", tile.hi), ("e", tile.lo))
                             if Port.tree(1, s) not in used)
            elif Port.tree(k, "e") not in used:
                total += mv.outer
        return total


class LineTable:
    """One line with two ends, ``L`` and ``R`` (RULES.md sections 3 and 4).

    An end offers one value, or both halves of a luzak laid across it (section 3).
    """

    __slots__ = ("n", "end_tiles", "end_values", "end_wide", "placements")

    def __init__(self) -> None:
        self.n = 0
        self.end_tiles: list[Tile | None] = [None, None]
        #: values a tile may match at each end
        self.end_values: list[tuple[int, ...]] = [(), ()]
        #: the end tile lies across (a double or a luzak): it counts both halves
        self.end_wide: list[bool] = [False, False]
        self.placements: list[Play] = []

    def copy(self) -> LineTable:
        new = LineTable.__new__(LineTable)
        new.n = self.n
        new.end_tiles = self.end_tiles.copy()
        new.end_values = self.end_values.copy()
        new.end_wide = self.end_wide.copy()
        new.placements = self.placements.copy()
        return new

    def free_ports(self) -> list[Port]:
        return [LEFT, RIGHT] if self.n else []

    def port_values(self) -> dict[Port, tuple[int, ...]]:
        return {LEFT: self.end_values[0], RIGHT: self.end_values[1]} if self.n else {}

    @property
    def count(self) -> int:
        """Luzak without spinners: the sum of the two ends (section 3)."""
        if self.n <= 1:
            return self.placements[0].tile.pips if self.n else 0
        total = 0
        for e in (0, 1):
            if self.end_wide[e]:
                total += self.end_tiles[e].pips  # type: ignore[union-attr]
            else:
                total += self.end_values[e][0]
        return total

    def count_after(self, mv: Play) -> int:
        """Luzak without spinners: the count once ``mv`` were laid (the table is unchanged)."""
        tile = mv.tile
        if mv.port is None:
            return tile.pips
        other = 1 - mv.port.index
        end = self.end_tiles[other]
        rest = end.pips if self.end_wide[other] and end else self.end_values[other][0]
        if mv.luzak or tile.is_double:
            return rest + tile.pips
        return rest + (tile.lo if mv.inner == tile.hi else tile.hi)

    def normal_plays(self, tiles: Iterable[Tile]) -> list[Play]:
        """Every play matching an end, ordered by tile, inner half, port."""
        if self.n == 0:
            return [OPENINGS[t.index] for t in tiles]
        left, right = self.end_values
        out: list[Play] = []
        rows = NORMAL_ROWS
        if len(left) == 1 == len(right):  # no luzak at either end: a quick reject first
            a, b = left[0], right[0]
            for tile in tiles:
                lo = tile.lo
                hi = tile.hi
                if lo != a and lo != b and hi != a and hi != b:
                    continue
                if lo == a:
                    out.append(rows[tile.index * 7 + lo][0])
                if lo == b:
                    out.append(rows[tile.index * 7 + lo][1])
                if hi != lo:
                    if hi == a:
                        out.append(rows[tile.index * 7 + hi][0])
                    if hi == b:
                        out.append(rows[tile.index * 7 + hi][1])
            return out
        for tile in tiles:
            lo = tile.lo
            if lo in left:
                out.append(rows[tile.index * 7 + lo][0])
            if lo in right:
                out.append(rows[tile.index * 7 + lo][1])
            hi = tile.hi
            if hi != lo:
                if hi in left:
                    out.append(rows[tile.index * 7 + hi][0])
                if hi in right:
                    out.append(rows[tile.index * 7 + hi][1])
        return out

    def luzak_plays(self, tiles: Iterable[Tile]) -> list[Play]:
        """Every luzak: any tile across either end (its orientation does not matter)."""
        out: list[Play] = []
        for tile in tiles:
            row = LUZAK_ROWS[tile.index * 7 + tile.hi]
            out.append(row[0])
            out.append(row[1])
        return out

    def fits(self, tile: Tile) -> bool:
        if self.n == 0:
            return True
        left, right = self.end_values
        return tile.lo in left or tile.lo in right or tile.hi in left or tile.hi in right

    def check(self, mv: Play) -> None:
        if mv.port is None:
            if self.n:
                raise IllegalMoveError(f"{mv}: the table is not empty, name an end (L or R)")
            return
        if self.n == 0:
            raise IllegalMoveError(f"{mv}: the table is empty, lead a tile without a port")
        if not mv.port.is_line:
            raise IllegalMoveError(f"{mv}: this game's table is a line, its ends are L and R")
        e = mv.port.index
        values = self.end_values[e]
        if mv.luzak:
            if any(mv.tile.has(v) for v in values):
                raise IllegalMoveError(f"{mv}: {mv.tile} matches end {mv.port}, it is no luzak")
            if mv.inner != mv.tile.hi:
                raise IllegalMoveError(f"{mv}: a luzak lies across the line; write it as "
                                       f"{play(mv.tile, mv.tile.hi, mv.port, True)}")
        elif mv.inner not in values:
            shown = " or ".join(map(str, values))
            raise IllegalMoveError(
                f"{mv}: end {mv.port} shows {shown}, {mv.tile} cannot match it with its {mv.inner}"
            )

    def place(self, mv: Play) -> None:
        """Lay ``mv`` (unchecked)."""
        tile = mv.tile
        self.n += 1
        self.placements.append(mv)
        port = mv.port
        if port is None:
            self.end_tiles = [tile, tile]
            self.end_values = [(tile.hi,), (tile.lo,)]
            self.end_wide = [tile.is_double, tile.is_double]
            return
        e = port.index
        self.end_tiles[e] = tile
        if mv.luzak:
            self.end_values[e] = tile.halves
            self.end_wide[e] = True
        elif tile.is_double:
            self.end_values[e] = (tile.hi,)
            self.end_wide[e] = True
        else:
            self.end_values[e] = (tile.lo if mv.inner == tile.hi else tile.hi,)
            self.end_wide[e] = False

    @staticmethod
    def recount(placements: Sequence[Play]) -> int:
        """Luzak-line count from the placements alone."""
        if len(placements) <= 1:
            return placements[0].tile.pips if placements else 0
        total = 0
        for port, opening_half in ((LEFT, placements[0].tile.hi), (RIGHT, placements[0].tile.lo)):
            last = next((mv for mv in reversed(placements) if mv.port is port), None)
            if last is None:
                first = placements[0].tile
                total += first.pips if first.is_double else opening_half
            elif last.luzak or last.tile.is_double:
                total += last.tile.pips
            else:
                total += last.outer
        return total


__all__ = ["LineTable", "OPENINGS", "TreeTable"]
