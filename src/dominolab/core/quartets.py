"""Widelec's quartets (RULES.md section 4) and the end-of-hand bonus matching."""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import Final

from dominolab.core.tiles import TILES, Tile

_INDEX: Final = attrgetter("index")


def _consecutive(digits: Sequence[int]) -> int | None:
    """The first digit of the cyclic run 0123456012... that the distinct digits form, or None."""
    s = set(digits)
    if len(s) != len(digits):
        return None
    for start in range(7):
        if all((start + i) % 7 in s for i in range(len(s))):
            return start
    return None


def quartet_text(a: Tile, b: Tile, edge_double: bool = True) -> str | None:
    """The quartet as digits of the cycle (``"6012"``, ``"5660"``), or None if none."""
    if a.is_double and b.is_double:
        d, e = a.hi, b.hi
        if (d + 1) % 7 == e:
            return f"{d}{d}{e}{e}"
        if (e + 1) % 7 == d:
            return f"{e}{e}{d}{d}"
        return None
    if a.is_double or b.is_double:
        dbl, other = (a, b) if a.is_double else (b, a)
        d = dbl.hi
        start = _consecutive((d, other.hi, other.lo))
        if start is None:
            return None
        run = [(start + i) % 7 for i in range(3)]
        pos = run.index(d)
        if pos != 1 and not edge_double:
            return None
        return "".join(str(x) for x in [*run[:pos + 1], d, *run[pos + 1:]])
    start = _consecutive((a.hi, a.lo, b.hi, b.lo))
    if start is None:
        return None
    return "".join(str((start + i) % 7) for i in range(4))


def _table(edge_double: bool) -> tuple[tuple[int, ...], ...]:
    return tuple(
        tuple(a.pips + b.pips if a is not b and quartet_text(a, b, edge_double) else 0
              for b in TILES)
        for a in TILES
    )


#: QUARTET_WORTH[edge_double][a.index][b.index]: the quartet's worth, 0 if none.
QUARTET_WORTH: Final = (_table(False), _table(True))


def quartet_worth(a: Tile, b: Tile, edge_double: bool = True) -> int:
    """Points for the two tiles as a quartet (their pips), 0 when they form none."""
    return QUARTET_WORTH[edge_double][a.index][b.index]


def best_quartets(
    tiles: Sequence[Tile], edge_double: bool = True
) -> tuple[int, tuple[tuple[Tile, Tile], ...]]:
    """Disjoint quartets from ``tiles`` with the greatest total worth (a maximum-weight
    matching, exact). Returns (total, pairs); ties go to the first pairs in tile order."""
    worth = QUARTET_WORTH[edge_double]
    items = sorted(set(tiles), key=_INDEX)
    n = len(items)
    partners = [
        [j for j in range(i + 1, n) if worth[items[i].index][items[j].index]]
        for i in range(n)
    ]
    edges = sum(map(len, partners))
    if edges == 0:
        return 0, ()
    if edges == 1:
        i = next(i for i in range(n) if partners[i])
        a, b = items[i], items[partners[i][0]]
        return worth[a.index][b.index], ((a, b),)
    memo: dict[int, tuple[int, tuple[tuple[int, int], ...]]] = {}

    def solve(free: int) -> tuple[int, tuple[tuple[int, int], ...]]:
        # free: bit mask of tiles still unmatched; match (or drop) the lowest one.
        if free == 0:
            return 0, ()
        found = memo.get(free)
        if found is not None:
            return found
        i = (free & -free).bit_length() - 1
        rest = free & ~(1 << i)
        best = solve(rest)
        for j in partners[i]:
            if rest >> j & 1:
                sub, pairs = solve(rest & ~(1 << j))
                value = sub + worth[items[i].index][items[j].index]
                if value > best[0]:
                    best = (value, ((i, j), *pairs))
        memo[free] = best
        return best

    total, pairs = solve((1 << n) - 1)
    return total, tuple((items[i], items[j]) for i, j in pairs)
