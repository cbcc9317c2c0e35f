"""Text for people, shared by the terminal and the adapters: the reason for a move's points,
the table drawn in text, what a legal move does, and colours. Pure: it returns strings and
prints nothing (the terminal's ``dominolab.cli`` prints them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dominolab.core import (
    Draw,
    GameSpec,
    Keep,
    LineTable,
    Move,
    Options,
    Pass,
    Play,
    Port,
    Step,
    TreeTable,
    get_game,
    reason_of,
)

# -- colours -------------------------------------------------------------------------------

_CODES = {
    "bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "blue": "34",
    "magenta": "35", "cyan": "36", "bold-yellow": "1;33", "bold-cyan": "1;36",
    "bold-green": "1;32", "bold-red": "1;31",
}


class Style:
    """ANSI colours, or plain text when ``color`` is off."""

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, style: str) -> str:
        if not self.color or not text:
            return text
        return f"\x1b[{_CODES[style]}m{text}\x1b[0m"

    def tile(self, text: str, luzak: bool = False) -> str:
        return self(text, "bold-yellow") if luzak else self(text, "bold")

    def port(self, text: str) -> str:
        return self(text, "cyan")

    def dim(self, text: str) -> str:
        return self(text, "dim")


PLAIN = Style(False)


# -- reasons for points ----------------------------------------------------------------------

def explain_step(game: str | GameSpec, step: Step, *, show_drawn: bool = True,
                 names: tuple[str, str] | None = None) -> str:
    """A one-line reason for what a move scored, e.g. "tile 5, count 10 divisible by 5: +10".

    ``show_drawn=False`` hides the tile drawn (the opponent's draw); ``names`` replaces
    "seat 0" and "seat 1" where the text names the other seat.
    """
    spec = _spec(game)
    seat = step.seat
    other = f"seat {1 - seat}" if names is None else names[1 - seat]
    r = reason_of(spec, step)
    if r.kind == "draw":
        if show_drawn and step.drew is not None:
            return f"drew {step.drew}"
        return "drew a tile"
    if r.kind == "pass":
        return "passed (nothing to play, boneyard empty)"
    if r.kind == "keep":
        return "kept the drawn tile"
    n = r.n
    if spec.scoring == "quartets":
        if r.ends is None:
            return f"tile {n} leads, no quartet with one tile"
        ends = f"ends {r.ends[0]} {r.ends[1]}"
        if r.quartet:
            return f"tile {n}, {ends} form quartet {r.quartet}: +{r.points[seat]}"
        return f"tile {n}, {ends}: no quartet"
    count = r.count
    if count == 0:
        rule = "count 0 scores nothing"
    elif r.scored:
        rule = f"count {count} divisible by {n}"
    else:
        rule = f"count {count} not divisible by {n}"
    if r.kind == "luzak":
        if spec.luzak_pips:
            parts = [f"tile {n} is a luzak: {other} +{r.pips} (its pips)"]
            if r.scored:
                got = r.points[seat]
                parts.append(f"{rule}: +{got}" if got else f"{rule}, but the layer of a luzak "
                                                           f"does not score it here")
            else:
                parts.append(rule)
            return "; ".join(parts)
        return f"tile {n} is a luzak: {rule}" + (f", so {other} scores +{count}"
                                                 if r.scored else "")
    return f"tile {n}, {rule}" + (f": +{count}" if r.scored else "")


# -- the table -------------------------------------------------------------------------------

def _spec(game: str | GameSpec) -> GameSpec:
    return get_game(game) if isinstance(game, str) else game


def table_of(game: str | GameSpec, options: Options,
             placements: Sequence[Play]) -> TreeTable | LineTable:
    """A table with ``placements`` laid (for its free ports and count)."""
    table = _spec(game).new_table(options)
    for mv in placements:
        table.place(mv)
    return table


def laid_halves(mv: Play, forward: bool) -> tuple[int, int]:
    """``mv``'s tile as laid, its left half first: the touching half first when ``forward``
    (the lead, and a luzak across a line, high half first)."""
    t = mv.tile
    if mv.port is None or (mv.luzak and mv.port.is_line):
        return t.hi, t.lo
    return (mv.inner, mv.outer) if forward else (mv.outer, mv.inner)


def _tile(mv: Play, forward: bool, st: Style) -> str:
    """``mv``'s tile as laid: the touching half first when ``forward`` (left to right)."""
    left, right = laid_halves(mv, forward)
    return st.tile(f"[{left}|{right}]" + ("*" if mv.luzak else ""), mv.luzak)


def draw_table(game: str | GameSpec, options: Options, placements: Sequence[Play], *,
               color: bool = False, width: int = 78) -> list[str]:
    """The table as lines of text.

    Line games: one line of tiles (wrapped when long) between the two ends, each end labelled
    with its name and value (``L:6 ... R:4``). Luzak: the main line through the opening tile,
    then every spinner whose short ends are open or used, with the arms leaving them
    (``n-> [3|6][6|1] 6e:1``). Every free port is labelled ``name:value``; a luzak is marked
    ``*``.
    """
    st = Style(color)
    if not placements:
        return ["  (empty table: the opener leads any tile)"]
    spec = _spec(game)
    if spec.table == "tree":
        return _draw_tree(spec, options, placements, st)
    return _draw_line(placements, st, width)


def line_order(placements: Sequence[Play]) -> list[tuple[Play, bool]]:
    """A line game's plays from left to right, each with whether it lies forward (its
    touching half on the left: the lead and the tiles laid at ``R``)."""
    order: list[tuple[Play, bool]] = []
    for mv in placements:
        if mv.port is not None and mv.port.text == "L":
            order.insert(0, (mv, False))
        else:
            order.append((mv, True))
    return order


def line_layout(placements: Sequence[Play], st: Style = PLAIN) -> tuple[
        list[tuple[str, int]], tuple[int, ...], tuple[int, ...]]:
    """A line game's tiles from left to right as (text, plain length), and the values the
    left and right ends show."""
    left_values: tuple[int, ...] = ()
    right_values: tuple[int, ...] = ()
    for mv in placements:
        if mv.port is None:
            left_values, right_values = (mv.tile.hi,), (mv.tile.lo,)
        elif mv.port.text == "L":
            left_values = mv.tile.halves if mv.luzak else (mv.outer,)
        else:
            right_values = mv.tile.halves if mv.luzak else (mv.outer,)
    tiles = [(_tile(mv, forward, st), len(_tile(mv, forward, PLAIN)))
             for mv, forward in line_order(placements)]
    return tiles, left_values, right_values


def _draw_line(placements: Sequence[Play], st: Style, width: int) -> list[str]:
    tiles, left_values, right_values = line_layout(placements, st)
    left = "L:" + "/".join(map(str, left_values))
    right = "R:" + "/".join(map(str, right_values))
    rows: list[str] = []
    row, used = st.port(left) + " ", len(left) + 1
    for text, size in tiles:
        if used + size > width - len(right) - 3 and used > len(left) + 1:
            rows.append(row)
            row, used = " " * (len(left) + 1), len(left) + 1
        row += text
        used += size
    rows.append(row + " " + st.port(right))
    return ["  " + r for r in rows]


def _draw_tree(spec: GameSpec, options: Options, placements: Sequence[Play],
               st: Style) -> list[str]:
    table = table_of(spec, options, placements)
    free: Mapping[Port, int] = table.port_values()  # type: ignore[assignment]
    child: dict[Port, int] = {mv.port: k for k, mv in enumerate(placements, 1)
                              if mv.port is not None}

    def label(port: Port) -> str:
        return st.port(f"{port}:{free[port]}") if port in free else ""

    def chain(start: Port, forward: bool) -> tuple[list[str], list[int], str]:
        """Follow the line from ``start``: the tiles' texts, their numbers, the end label."""
        texts: list[str] = []
        numbers: list[int] = []
        port = start
        while port in child:
            k = child[port]
            texts.append(_tile(placements[k - 1], forward, st))
            numbers.append(k)
            port = Port.tree(k, "e")
        return texts, numbers, label(port)

    west, west_k, west_end = chain(Port.tree(1, "w"), False)
    east, east_k, east_end = chain(Port.tree(1, "e"), True)
    main = "".join([*reversed(west), _tile(placements[0], True, st), *east])
    lines = ["  " + " ".join(p for p in (west_end, main, east_end) if p)]
    order = [*reversed(west_k), 1, *east_k]
    # spinners: those on the main line first (left to right), then those in arms
    spinners: list[int] = []
    seen: set[int] = set()
    queue = list(order)
    while queue:
        k = queue.pop(0)
        if k in seen:
            continue
        seen.add(k)
        if not placements[k - 1].tile.is_double:
            continue
        arms = [Port.tree(k, s) for s in ("n", "s")]
        if not any(a in free or a in child for a in arms):
            continue
        spinners.append(k)
        for arm in arms:
            queue.extend(chain(arm, True)[1])
    for k in spinners:
        tile = placements[k - 1].tile
        head = f"spinner {tile} (tile {k}): "
        shown_head = f"spinner {st.tile(str(tile), placements[k - 1].luzak)} (tile {k}): "
        bodies: list[tuple[bool, str]] = []  # (arm has tiles, text)
        for side in ("n", "s"):
            arm = Port.tree(k, side)
            if arm not in free and arm not in child:
                continue
            texts, _, end = chain(arm, True)
            body = f"{side}-> " + ("".join(texts) + (" " + end if end else "") if texts
                                   else label(arm))
            bodies.append((bool(texts), body))
        if not any(has for has, _ in bodies):
            lines.append("    " + shown_head + "   ".join(b for _, b in bodies))
            continue
        for i, (_, body) in enumerate(bodies):
            lines.append("    " + (shown_head if i == 0 else " " * len(head)) + body)
    return lines


def port_values(table: TreeTable | LineTable) -> dict[Port, tuple[int, ...]]:
    """Each free port's values (a line end across a luzak shows two)."""
    out: dict[Port, tuple[int, ...]] = {}
    for port, value in table.port_values().items():
        out[port] = value if isinstance(value, tuple) else (value,)
    return out


def describe_move(move: Move, ports: Mapping[Port, tuple[int, ...]]) -> str:
    """What a legal move does, e.g. "[5|4] on port 1e (shows 5)"."""
    if isinstance(move, Draw):
        return "draw a tile from the boneyard"
    if isinstance(move, Pass):
        return "pass (nothing to play, the boneyard is empty)"
    if isinstance(move, Keep):
        return "keep the drawn tile, end the turn"
    tile = move.tile
    if move.port is None:
        return f"lead {tile}"
    shows = "/".join(map(str, ports.get(move.port, ())))
    where = f"end {move.port}" if move.port.is_line else f"port {move.port}"
    if move.luzak:
        if move.port.is_line:
            return f"LUZAK {tile} across {where} (shows {shows})"
        return f"LUZAK {tile} on {where} (shows {shows}), outer half {move.outer}"
    laid = f"[{move.inner}|{move.outer}]"
    return f"{laid} on {where} (shows {shows})"


__all__ = ["PLAIN", "Style", "describe_move", "draw_table", "explain_step", "laid_halves",
           "line_layout", "line_order", "port_values", "table_of"]
