"""Equivalent moves: legal moves that differ only in the name of the port they use.

RULES.md §1 keeps every free port distinct — the player chooses where a tile goes and the
record says which — but some choices cannot change anything that follows. Two plays of the
same tile, with the same inner half and the same luzak mark, on two free ports ``p`` and
``q`` are *equivalent* when the table after one is the table after the other with port
names swapped: the same count now (so the same points, §2 and §3), and for every future the
same legal moves (up to those names) with the same counts and points. A search, a hint and
a review treat such a class as one move; the record still says which port was used.

Why these are exact (section 2, the tree): what a free port does when a tile is laid on it
depends only on

* a non-double's port: its value (laying there takes that value off the count);
* a double's short end: its value (it counts nothing, and laying there changes nothing
  else, under either option for when short ends open);
* a double's long side when it is the double's last free one: its value (laying there
  takes the double's ``2d`` off the count and, under the option "short ends open only after
  both long sides are taken", opens two short ends of that value);
* a long side of the opening double while both are free: laying on either leaves the other
  as the double's last free long side.

A tile laid anywhere gets the next tile number and its own new ports, whatever its parent.
So two free ports of the same kind and value give the same table up to renaming (a double's
long sides swap together with its short ends), and :func:`port_classes` merges exactly
those: the two short ends of a double, the two long sides of a lone opening double, but also
two non-doubles' ports showing the same value, or the last long sides of two doubles of the
same value. It merges nothing else, even where the rules would allow it (a port of value 0
on a non-double and a short end of ``[0|0]`` behave alike but are kept apart): a merge that
is not exact would hide a real choice, a missed one only costs search time.

The line (sections 3 and 4) has two ends, ``L`` and ``R``; they are one port when swapping
them changes nothing: in Luzak without spinners when the two ends show the same values,
lie the same way (across or not) and, lying across, count the same pips (the count reads
nothing else of an end); in Widelec, whose quartets read the end *tiles*, only while a lone
opening double is the whole line (its two ends are the same tile).

Draws, passes and keeps are never merged: there is one of each.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from dominolab.core.moves import LEFT, PORTS, RIGHT, Move, Play, Port, play
from dominolab.core.table import LineTable, TreeTable

#: the kinds of a free tree port (see the module docs)
_END, _SHORT, _LAST_LONG, _PAIRED_LONG = 0, 1, 2, 3


def _tree_kind(table: TreeTable, index: int, value: int) -> tuple[int, int]:
    port = PORTS[index]
    parent = table.placements[port.k - 1].tile
    if not parent.is_double:
        return _END, value
    if port.side in ("n", "s"):
        return _SHORT, value
    if table.long_free[port.k] == 2:
        return _PAIRED_LONG, value
    return _LAST_LONG, value


def port_classes(table: TreeTable | LineTable, quartets: bool = False) -> dict[Port, Port]:
    """Every free port of ``table`` mapped to its class's canonical port: the free port of
    the lowest index whose plays are equivalent to its own (see the module docs). A port
    alone in its class maps to itself. ``quartets``: the table is Widelec's (its quartets
    read the end tiles)."""
    if isinstance(table, TreeTable):
        first: dict[tuple[int, int], Port] = {}
        out: dict[Port, Port] = {}
        for index in sorted(table.port_value):
            port = PORTS[index]
            key = _tree_kind(table, index, table.port_value[index])
            out[port] = first.setdefault(key, port)
        return out
    if table.n == 0:
        return {}
    return {LEFT: LEFT, RIGHT: LEFT if _ends_alike(table, quartets) else RIGHT}


def _ends_alike(table: LineTable, quartets: bool) -> bool:
    if table.n == 1:
        return table.placements[0].tile.is_double
    if quartets:
        return False  # the ends are different tiles, and a quartet reads the tiles
    if table.end_values[0] != table.end_values[1] or table.end_wide[0] != table.end_wide[1]:
        return False
    if not table.end_wide[0]:
        return True
    left, right = table.end_tiles
    return left is not None and right is not None and left.pips == right.pips


def canonical_move(move: Move, classes: dict[Port, Port]) -> Move:
    """The representative of ``move``'s class: the same tile, inner half and luzak mark on
    its port's canonical port (``classes`` from :func:`port_classes`)."""
    if not isinstance(move, Play) or move.port is None:
        return move
    port = classes.get(move.port, move.port)
    if port is move.port:
        return move
    return play(move.tile, move.inner, port, move.luzak)


def equivalent_moves(table: TreeTable | LineTable, legal: Iterable[Move],
                     quartets: bool = False) -> list[tuple[Move, ...]]:
    """``legal`` grouped into classes of equivalent moves, each class once, in the order of
    its first member; each class starts with its representative (:func:`canonical_move`)
    and then lists the other members in legal order. Every legal move is in one class."""
    classes = port_classes(table, quartets)
    groups: dict[Move, list[Move]] = {}
    for move in legal:
        groups.setdefault(canonical_move(move, classes), []).append(move)
    out: list[tuple[Move, ...]] = []
    for rep, members in groups.items():
        rest = [m for m in members if m is not rep]
        out.append((rep, *rest) if len(rest) < len(members) else tuple(members))
    return out


def representatives(table: TreeTable | LineTable, legal: Sequence[Move],
                    quartets: bool = False) -> list[Move]:
    """Each move of ``legal`` replaced by its class's representative (same length, same
    order): ``legal[i]`` and ``legal[j]`` are equivalent iff their entries are the same."""
    classes = port_classes(table, quartets)
    return [canonical_move(m, classes) for m in legal]


__all__ = ["canonical_move", "equivalent_moves", "port_classes", "representatives"]
