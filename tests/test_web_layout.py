"""The web table layout (src/dominolab/web/games/layout.py, docs/web.md "LAYOUT" and "LEGAL").

The picture follows RULES.md section 2 (Luzak: the table is a tree, every double a spinner
laid across its arm, arms leaving its long sides and short ends), section 3 (Luzak
without spinners: one line, doubles and luzaks across it) and section 4 (Widelec: one
line of up to 28 tiles, doubles across), with the port names of docs/notation.md.

Over thousands of random finished hands of every game (Luzak with both settings of
``short_ends_any_time``, Luzak without spinners, Widelec) and both widths:

* no two tiles overlap, and no preview of a legal play overlaps the table (exact: the
  coordinates are compared as whole half-units);
* every tile shares an edge with its parent unless it carries a ``link``; links are rare.
  Measured over this corpus (2,000 Luzak hands, 24,000 Luzak tiles per width): narrow
  2 links (0.008% of tiles), wide none; none in the line games;
* the half that touches the parent shows the port's value (geometrically);
* the layout is stable and ``preview`` is what ``place`` then gives;
* line games stay inside the frame's width; a Luzak tree leaves it only when no touching
  spot inside is free (measured: 18 tiles of 24,000 narrow, 0.075%; none wide).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dominolab.core import (
    Deal,
    Hand,
    LuzakHand,
    LuzakLineHand,
    LuzakLineOptions,
    LuzakOptions,
    Options,
    Play,
    Tile,
    WidelecHand,
    WidelecOptions,
    parse_move,
)
from dominolab.web.games.layout import FRAME_WIDTH, Placed, TableLayout, layout_table

# -- the corpus ----------------------------------------------------------------------------

#: (label, game, options): Luzak under both short-end rules, the two line games
CONFIGS: tuple[tuple[str, str, Options], ...] = (
    ("luzak", "luzak", LuzakOptions()),
    ("luzak-short-ends-late", "luzak", LuzakOptions(short_ends_any_time=False)),
    ("luzak-line", "luzak-line", LuzakLineOptions()),
    ("widelec", "widelec", WidelecOptions()),
)
WIDTHS = ("wide", "narrow")
#: hands per configuration and width (different hands at each width): 4,000 Luzak hands
#: (half with each short-end rule) and 2,000 of each line game
HANDS = 1000
#: positions per hand at which every legal play is previewed
SAMPLED = 1

Half = tuple[int, int, int, int]  # a rectangle in whole half-units


def halves_of(p: Placed) -> Half:
    """The rectangle of ``p`` in half-units, exactly (every coordinate is a multiple of 0.5)."""
    r = (p.x * 2, p.y * 2, (p.x + p.w) * 2, (p.y + p.h) * 2)
    assert all(v == int(v) for v in r), p
    x0, y0, x1, y1 = (int(v) for v in r)
    return x0, y0, x1, y1


def overlap(a: Half, b: Half) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def touch(a: Half, b: Half) -> bool:
    """Share a piece of edge of positive length (interiors disjoint)."""
    if overlap(a, b):
        return False
    if a[2] == b[0] or b[2] == a[0]:
        return min(a[3], b[3]) > max(a[1], b[1])
    if a[3] == b[1] or b[3] == a[1]:
        return min(a[2], b[2]) > max(a[0], b[0])
    return False


def squares(p: Placed) -> list[tuple[Half, int]]:
    """The two unit squares of a tile with their pips: a is left (or top), b the other."""
    x0, y0, x1, y1 = halves_of(p)
    if x1 - x0 > y1 - y0:
        return [((x0, y0, x0 + 2, y1), p.a), ((x0 + 2, y0, x1, y1), p.b)]
    return [((x0, y0, x1, y0 + 2), p.a), ((x0, y0 + 2, x1, y1), p.b)]


@dataclass
class Laid:
    """One finished hand laid out at one width, with what was observed while laying it."""

    game: str
    options: Options
    width: str
    placements: tuple[Play, ...]
    layout: TableLayout
    #: (n, table tiles then, [(legal play, its preview)]) at sampled positions
    previews: list[tuple[int, tuple[Placed, ...], list[tuple[Play, Placed]]]] = field(
        default_factory=list)
    preview_is_place: bool = True
    earlier_unchanged: bool = True


def random_hand(game: str, options: Options, rng: random.Random, sampled: int = SAMPLED
                ) -> tuple[tuple[Play, ...], dict[int, list[Play]]]:
    """A finished hand with random legal moves: its placements, and the plays to preview at
    ``sampled`` random positions (by the number of tiles on the table then): the legal
    plays, and in the Luzak games luzaks of one double and one non-double of the mover's
    too (so every free port is previewed across and along, both ways round)."""
    hand: Hand[Options]
    if game == "luzak":
        assert isinstance(options, LuzakOptions)
        hand = LuzakHand(Deal.shuffle(rng, 12), rng.randrange(2), options)  # type: ignore[assignment]
    elif game == "luzak-line":
        assert isinstance(options, LuzakLineOptions)
        hand = LuzakLineHand(Deal.shuffle(rng, 12), rng.randrange(2), options)  # type: ignore[assignment]
    else:
        assert isinstance(options, WidelecOptions)
        hand = WidelecHand(Deal.shuffle(rng, 7), rng.randrange(2), options)  # type: ignore[assignment]
    seen: dict[int, list[Play]] = {}
    while not hand.is_over:
        legal = hand.legal_moves()
        plays = [m for m in legal if isinstance(m, Play)]
        if hand.n and isinstance(hand, LuzakHand | LuzakLineHand) and not plays[0].luzak:
            # not legal, but on every free port: luzaks of a double and a non-double
            held = hand.hands[hand.to_move]
            some = [next((t for t in held if t.is_double == d), None) for d in (True, False)]
            plays += hand.table.luzak_plays([t for t in some if t is not None])
        if plays:
            seen[hand.n] = plays
        hand.apply_unchecked(legal[rng.randrange(len(legal))])
    chosen = rng.sample(sorted(seen), min(sampled, len(seen)))
    return hand.table_placements, {n: seen[n] for n in chosen}


@cache
def corpus(label: str, width: str) -> tuple[Laid, ...]:
    """``HANDS`` random finished hands of one configuration, laid one tile at a time at
    ``width``, previewing every legal play at the sampled positions."""
    _, game, options = next(c for c in CONFIGS if c[0] == label)
    rng = random.Random(f"layout/{label}/{width}")
    out = []
    for _ in range(HANDS):
        placements, sampled = random_hand(game, options, rng)
        layout = TableLayout(game, options, width)
        laid = Laid(game, options, width, placements, layout)
        for n, mv in enumerate(placements):
            if n in sampled:
                laid.previews.append(
                    (n, layout.tiles, [(p, layout.preview(p)) for p in sampled[n]]))
            before = layout.tiles
            spot = layout.preview(mv)
            placed = layout.place(mv)
            laid.preview_is_place &= spot == placed
            laid.earlier_unchanged &= layout.tiles[:n] == before
        out.append(laid)
    return tuple(out)


def every_laid(game: str | None = None) -> Iterator[Laid]:
    for label, g, _ in CONFIGS:
        if game is None or g == game:
            for width in WIDTHS:
                yield from corpus(label, width)


def parent_numbers(game: str, placements: tuple[Play, ...]) -> list[int | None]:
    """For each tile (in order), the number of the tile it was laid against."""
    out: list[int | None] = [None]
    ends = [1, 1]  # line games: the tile at the L and R end
    for k, mv in enumerate(placements[1:], start=2):
        assert mv.port is not None
        if game == "luzak":
            out.append(mv.port.k)
        else:
            out.append(ends[mv.port.index])
            ends[mv.port.index] = k
    return out


# -- 1, 2: nothing overlaps -------------------------------------------------------------------

@pytest.mark.parametrize("label", [c[0] for c in CONFIGS])
@pytest.mark.parametrize("width", WIDTHS)
def test_no_two_tiles_ever_overlap(label: str, width: str) -> None:
    """Every pair of tile rectangles of every random finished hand is disjoint (they may
    share edges), with sizes 2x1 or 1x2 and numbers 1..n in play order."""
    hands = corpus(label, width)
    assert len(hands) == HANDS
    for laid in hands:
        tiles = laid.layout.tiles
        assert [p.k for p in tiles] == list(range(1, len(laid.placements) + 1))
        rects = [halves_of(p) for p in tiles]
        for i, a in enumerate(rects):
            assert sorted((a[2] - a[0], a[3] - a[1])) == [2, 4], tiles[i]
            for j in range(i):
                assert not overlap(a, rects[j]), (laid.placements, tiles[i], tiles[j])


@pytest.mark.parametrize("label", [c[0] for c in CONFIGS])
@pytest.mark.parametrize("width", WIDTHS)
def test_previews_of_legal_plays_never_overlap_the_table(label: str, width: str) -> None:
    """At sampled positions, each legal play's preview is the next tile (k = n + 1), shows
    the play's tile and is disjoint from every tile on the table."""
    checked = 0
    for laid in corpus(label, width):
        for n, table, previews in laid.previews:
            rects = [halves_of(p) for p in table]
            assert len(table) == n
            for mv, spot in previews:
                assert spot.k == n + 1 and spot.tile is mv.tile and spot.luzak == mv.luzak
                mine = halves_of(spot)
                assert not any(overlap(mine, r) for r in rects), (laid.placements[:n], mv)
                checked += 1
    assert checked > HANDS


# -- 3, 4: touching the parent, at the right half ---------------------------------------------

def on_boundary(x: float, y: float, r: Half) -> bool:
    inside = r[0] <= x <= r[2] and r[1] <= y <= r[3]
    return inside and (x in (r[0], r[2]) or y in (r[1], r[3]))


def link_rate(game: str, width: str) -> tuple[int, int]:
    links = tiles = 0
    for label, g, _ in CONFIGS:
        if g == game:
            for laid in corpus(label, width):
                tiles += len(laid.layout.tiles)
                links += sum(p.link is not None for p in laid.layout.tiles)
    return links, tiles


@pytest.mark.parametrize("game", ["luzak", "luzak-line", "widelec"])
def test_each_tile_touches_its_parent_unless_linked(game: str) -> None:
    """A tile shares an edge of positive length with the tile it was laid against, unless
    ``link`` is set; a link runs from the parent's port (on the parent's edge) to the
    tile's edge.

    Measured link rates (this corpus): Luzak narrow 0.008% (2 of 24,000 tiles), wide none;
    luzak-line and Widelec none (over 10,000 more hands per game and width:
    Luzak 0.008% narrow, 0.002% wide). Asserted: below 0.1% narrow and 0.05% wide for
    Luzak, none for the lines."""
    for laid in every_laid(game):
        tiles = laid.layout.tiles
        for p, parent in zip(tiles, parent_numbers(game, laid.placements), strict=True):
            if parent is None:
                assert p.link is None
                continue
            mine, theirs = halves_of(p), halves_of(tiles[parent - 1])
            if p.link is None:
                assert touch(mine, theirs), (laid.width, laid.placements, p)
            else:
                x0, y0, x1, y1 = (v * 2 for v in p.link)
                # the link starts on the parent's boundary and ends on the tile's
                assert on_boundary(x0, y0, theirs) and on_boundary(x1, y1, mine), p
    for width, limit in (("narrow", 0.001), ("wide", 0.0005)):
        links, total = link_rate(game, width)
        assert total > 0
        if game == "luzak":
            assert links / total < limit, (width, links, total)
        else:
            assert links == 0, (width, links, total)


def test_the_touching_half_shows_the_port_value() -> None:
    """For a normal play the squares of the new tile that touch its parent show the port's
    value (the play's inner half) and so do the parent's squares they touch (for a luzak
    across the line, RULES.md section 3, one of its halves). For a luzak laid along an arm
    (Luzak) the touching square is the luzak's chosen inner half."""
    checked = 0
    for laid in every_laid():
        tiles = laid.layout.tiles
        parents = parent_numbers(laid.game, laid.placements)
        for p, mv, parent in zip(tiles, laid.placements, parents, strict=True):
            if parent is None or p.link is not None or (mv.luzak and laid.game != "luzak"):
                continue  # the lead, a detached tile, a luzak across the line
            parent_tile = tiles[parent - 1]
            pairs = [(mine, theirs) for mine in squares(p) for theirs in squares(parent_tile)
                     if touch(mine[0], theirs[0])]
            assert pairs, (laid.placements, p)
            assert all(mine[1] == mv.inner for mine, _ in pairs), (laid.placements, p)
            if mv.luzak:
                continue
            shown = {theirs[1] for _, theirs in pairs}
            across_luzak = laid.game != "luzak" and laid.placements[parent - 1].luzak
            if across_luzak:
                assert mv.inner in shown, (laid.placements, p)
            else:
                assert shown == {mv.inner}, (laid.placements, p)
            if not p.tile.is_double:
                # the outer half never touches the parent
                outer = [sq for sq in squares(p) if sq[1] != mv.inner]
                assert all(not touch(sq[0], halves_of(parent_tile)) for sq in outer)
            checked += 1
    assert checked > 10 * HANDS


def test_halves_lead_and_across_tiles() -> None:
    """The lead shows its high half left (or top, for a double); a tile across the line
    (a double, a luzak of the line games) shows its high half first; a/b are the tile's
    halves; ``spinner`` marks exactly the doubles of Luzak."""
    for laid in every_laid():
        for p, mv in zip(laid.layout.tiles, laid.placements, strict=True):
            assert sorted((p.a, p.b)) == [mv.tile.lo, mv.tile.hi]
            across = mv.tile.is_double or (mv.luzak and laid.game != "luzak")
            if mv.port is None or across:
                assert (p.a, p.b) == (mv.tile.hi, mv.tile.lo)
            assert p.spinner == (laid.game == "luzak" and mv.tile.is_double)
            assert p.luzak == mv.luzak


# -- 5: stability ------------------------------------------------------------------------------

def test_stable_one_by_one_equals_layout_table() -> None:
    """Placing tiles one by one never changes earlier tiles, ``preview(mv)`` equals what
    ``place(mv)`` then gives, and the result equals ``layout_table`` over the whole list."""
    for i, laid in enumerate(every_laid()):
        assert laid.preview_is_place and laid.earlier_unchanged, laid.placements
        if i % 5 == 0:
            again = layout_table(laid.game, laid.options, laid.placements, laid.width)
            assert again.tiles == laid.layout.tiles
            assert again.to_json() == laid.layout.to_json()


@pytest.mark.parametrize("config", CONFIGS, ids=[c[0] for c in CONFIGS])
@pytest.mark.parametrize("width", WIDTHS)
def test_kept_spots_equal_spots_solved_afresh(config: tuple[str, str, Options],
                                              width: str) -> None:
    """A layout keeps the spots it solved for the ports a new tile cannot have changed:
    at every position of many hands, previewing every play (and a luzak of each kind) on
    the layout kept all along gives exactly what a layout laid afresh to that position
    gives, whose every spot is solved anew."""
    _, game, options = config
    rng = random.Random(f"kept spots {game} {width}")
    for _ in range(60):
        placements, previewed = random_hand(game, options, rng, sampled=100)
        kept = TableLayout(game, options, width)
        for n, mv in enumerate(placements):
            plays = [p for p in previewed.get(n, []) if p.port is not None]
            if plays:
                fresh = layout_table(game, options, placements[:n], width)
                assert [kept.preview(p) for p in plays] == [fresh.preview(p) for p in plays], \
                    (placements[:n], plays)
            kept.place(mv)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), config=st.sampled_from(CONFIGS),
       width=st.sampled_from(WIDTHS))
def test_stable_under_hypothesis(seed: int, config: tuple[str, str, Options],
                                 width: str) -> None:
    """The same, on hands hypothesis picks: a preview leaves the layout unchanged, and
    previews of every sampled legal play do not disturb the later tiles."""
    _, game, options = config
    placements, sampled = random_hand(game, options, random.Random(seed))
    layout = TableLayout(game, options, width)
    for n, mv in enumerate(placements):
        before = layout.to_json()
        for other in sampled.get(n, []):
            layout.preview(other)
        assert layout.to_json() == before
        assert layout.preview(mv) == layout.place(mv)
    assert layout.tiles == layout_table(game, options, placements, width).tiles


# -- 6: the frame --------------------------------------------------------------------------------

def outside_width(laid: Laid) -> int:
    half = FRAME_WIDTH[laid.width] / 2
    assert laid.layout.frame[0] == -half and laid.layout.frame[2] == half
    return sum(p.x < -half or p.x + p.w > half for p in laid.layout.tiles)


@pytest.mark.parametrize("game", ["luzak-line", "widelec"])
def test_lines_stay_inside_the_frame_width(game: str) -> None:
    """A line (RULES.md sections 3, 4) snakes: no tile ever leaves the frame's width."""
    for laid in every_laid(game):
        assert outside_width(laid) == 0, (laid.width, laid.placements)


def test_luzak_trees_rarely_leave_the_frame_width() -> None:
    """A Luzak tree (RULES.md section 2) bends its arms to stay inside the frame's width; it
    leaves it only when no touching spot inside is free. Measured: narrow 18 of 24,000 tiles
    (0.075%), wide none; asserted below 0.3% narrow and 0.05% wide."""
    for width, limit in (("narrow", 0.003), ("wide", 0.0005)):
        out = total = 0
        for label, game, _ in CONFIGS:
            if game == "luzak":
                for laid in corpus(label, width):
                    out += outside_width(laid)
                    total += len(laid.placements)
        assert out / total < limit, (width, out, total)


def test_bounds_enclose_every_tile() -> None:
    for laid in every_laid():
        x0, y0, x1, y1 = laid.layout.bounds()
        tiles = laid.layout.tiles
        assert x0 == min(p.x for p in tiles) and x1 == max(p.x + p.w for p in tiles)
        assert y0 == min(p.y for p in tiles) and y1 == max(p.y + p.h for p in tiles)



def test_to_json_is_made_of_the_tiles_and_a_fresh_list() -> None:
    """The LAYOUT object, kept tile by tile, is exactly the tiles' PLACED objects and their
    bounds; a caller changing the lists it was given changes nothing for the next."""
    for i, laid in enumerate(every_laid()):
        if i % 7:
            continue
        layout = laid.layout
        given = layout.to_json()
        assert given == {"tiles": [p.to_json() for p in layout.tiles],
                         "bounds": list(layout.bounds())}
        given["tiles"].clear()
        given["bounds"].clear()
        assert len(layout.to_json()["tiles"]) == len(layout.tiles) > 0
        assert len(layout.to_json()["bounds"]) == 4

# -- 7: specific pictures -------------------------------------------------------------------------

def plays(moves: str) -> tuple[Play, ...]:
    """Plays from their full notation (docs/notation.md)."""
    out = []
    for text in moves.split():
        mv = parse_move(text)
        assert isinstance(mv, Play)
        out.append(mv)
    return tuple(out)


def lay(game: str, moves: str, width: str = "wide") -> TableLayout:
    options = {"luzak": LuzakOptions(), "luzak-line": LuzakLineOptions(),
               "widelec": WidelecOptions()}[game]
    return layout_table(game, options, plays(moves), width)


def test_empty_table() -> None:
    layout = lay("luzak", "")
    assert layout.tiles == ()
    assert layout.bounds() == (-1.0, -1.0, 1.0, 1.0)
    assert layout.to_json() == {"tiles": [], "bounds": [-1.0, -1.0, 1.0, 1.0]}


@pytest.mark.parametrize("game", ["luzak", "luzak-line", "widelec"])
def test_the_lead_alone(game: str) -> None:
    """The lead lies horizontally in the middle, high half left (docs/notation.md); a lead
    double stands across the line."""
    (p,) = lay(game, "56").tiles
    assert p == Placed(1, Tile(6, 5), -1.0, -0.5, 2.0, 1.0, 6, 5, False, False)
    assert p.to_json() == {"k": 1, "tile": "65", "x": -1.0, "y": -0.5, "w": 2.0, "h": 1.0,
                           "a": 6, "b": 5, "luzak": False, "spinner": False}
    (d,) = lay(game, "44").tiles
    assert (d.x, d.y, d.w, d.h, d.a, d.b) == (-0.5, -1.0, 1.0, 2.0, 4, 4)
    assert d.spinner == (game == "luzak")
    assert lay(game, "56").bounds() == (-1.0, -0.5, 1.0, 0.5)


def test_lead_double_with_four_arms() -> None:
    """RULES.md section 2, L4: a lead spinner with all four ports used. Arms leave the long
    sides (1w, 1e) horizontally and the short ends (1n up, 1s down) vertically, each tile
    against the spinner with its touching half."""
    tiles = lay("luzak", "33 32@1e 30@1w 31@1n 36@1s 61@5e").tiles
    lead, east, west, north, south, on_south = tiles
    assert (lead.x, lead.y, lead.w, lead.h, lead.spinner) == (-0.5, -1.0, 1.0, 2.0, True)
    assert (east.x, east.y, east.w, east.h, east.a, east.b) == (0.5, -0.5, 2.0, 1.0, 3, 2)
    assert (west.x, west.y, west.w, west.h, west.a, west.b) == (-2.5, -0.5, 2.0, 1.0, 0, 3)
    assert (north.x, north.y, north.w, north.h, north.a, north.b) == (-0.5, -3.0, 1.0, 2.0,
                                                                      1, 3)
    assert (south.x, south.y, south.w, south.h, south.a, south.b) == (-0.5, 1.0, 1.0, 2.0,
                                                                      3, 6)
    # [6|1] continues the south arm straight down, its 6 against the 6
    assert (on_south.x, on_south.y, on_south.w, on_south.h) == (-0.5, 3.0, 1.0, 2.0)
    assert (on_south.a, on_south.b) == (6, 1)
    assert all(p.link is None for p in tiles)


def test_a_later_spinner_lies_across_its_arm() -> None:
    """A double laid on an arm lies across it and opens its far long side and both short
    ends; on an arm heading north it lies horizontally (RULES.md section 2, L3)."""
    tiles = lay("luzak", "33 31@1e 30@1w 00@3e 36@1n 66@5e 32@1s").tiles
    zero, six = tiles[3], tiles[5]
    assert (zero.w, zero.h, zero.spinner) == (1.0, 2.0, True)  # on the west arm: vertical
    assert zero.x + zero.w == tiles[2].x  # against the [3|0]'s 0
    assert (six.w, six.h) == (2.0, 1.0)  # on the north arm: horizontal
    assert six.y + six.h == tiles[4].y


def test_line_luzak_lies_across() -> None:
    """RULES.md section 3, V1: the luzak [5|1] lies across the R end, high half on top, and
    [1|3] goes on against it."""
    tiles = lay("luzak-line", "64 44@R 62@L 51@R* 13@R").tiles
    luzak, after = tiles[3], tiles[4]
    assert (luzak.w, luzak.h, luzak.a, luzak.b, luzak.luzak) == (1.0, 2.0, 5, 1, True)
    assert luzak.x == tiles[1].x + tiles[1].w
    assert after.x == luzak.x + luzak.w and (after.a, after.b) == (1, 3)


#: all 28 tiles in one line: [6|0] leads, the rest go on at R (an Euler path of the set)
ALL_AT_R = ("60 00@R 01@R 11@R 12@R 20@R 03@R 31@R 14@R 40@R 05@R 51@R 16@R 62@R 22@R 23@R "
            "33@R 34@R 42@R 25@R 53@R 36@R 64@R 44@R 45@R 55@R 56@R 66@R")
#: the same tiles, the second half of the path laid at the L end
BOTH_ENDS = ("60 00@R 01@R 11@R 12@R 20@R 03@R 31@R 14@R 40@R 05@R 51@R 16@R 62@L 22@L "
             "23@L 33@L 34@L 42@L 25@L 53@L 36@L 64@L 44@L 45@L 55@L 56@L 66@L")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("moves", [ALL_AT_R, BOTH_ENDS], ids=["R-only", "both-ends"])
def test_a_long_widelec_line_snakes(moves: str, width: str) -> None:
    """RULES.md section 4: a Widelec line of all 28 tiles snakes inside the frame: it spans
    several rows, the right end goes down and the left end up, nothing overlaps, each tile
    touches the one before it at that end."""
    layout = lay("widelec", moves, width)
    tiles = layout.tiles
    assert len(tiles) == 28
    half = FRAME_WIDTH[width] / 2
    assert all(-half <= p.x and p.x + p.w <= half for p in tiles)
    rows = {p.y + p.h / 2 for p in tiles if p.w > p.h and not p.tile.is_double}
    assert len(rows) >= 3
    rects = [halves_of(p) for p in tiles]
    assert not any(overlap(a, b) for i, a in enumerate(rects) for b in rects[:i])
    placements = plays(moves)
    parents = parent_numbers("widelec", placements)
    for p, parent in zip(tiles, parents, strict=True):
        assert p.link is None
        if parent is not None:
            assert touch(halves_of(p), rects[parent - 1])
    at_r = [p for p, mv in zip(tiles, placements, strict=True) if mv.port is not None
            and mv.port.side == "R"]
    at_l = [p for p, mv in zip(tiles, placements, strict=True) if mv.port is not None
            and mv.port.side == "L"]
    assert max(p.y for p in at_r) > 1  # the right end went down
    if at_l:
        assert min(p.y for p in at_l) < -1  # the left end went up
        assert min(p.y for p in at_r) >= -1.0 and max(p.y + p.h for p in at_l) <= 1.0


def test_json_shape() -> None:
    layout = lay("luzak", "65 54@1e 64@1w 11@2e* 44@3e")
    data = layout.to_json()
    assert json.loads(json.dumps(data)) == data
    assert set(data) == {"tiles", "bounds"} and len(data["bounds"]) == 4
    keys = {"k", "tile", "x", "y", "w", "h", "a", "b", "luzak", "spinner"}
    assert all(set(t) == keys for t in data["tiles"])
    assert [t["tile"] for t in data["tiles"]] == ["65", "54", "64", "11", "44"]
    assert data["tiles"][3]["luzak"] and data["tiles"][3]["spinner"]
    linked = Placed(2, Tile(1, 0), 0.0, 0.0, 2.0, 1.0, 1, 0, False, False, (0.0, 0.0, 1.0, 0.0))
    assert linked.to_json()["link"] == [0.0, 0.0, 1.0, 0.0]


def test_errors() -> None:
    with pytest.raises(ValueError, match="width"):
        TableLayout("luzak", LuzakOptions(), "medium")
    layout = lay("luzak", "65")
    with pytest.raises(ValueError, match="not a free port"):
        layout.preview(plays("55@2e")[0])
    with pytest.raises(ValueError, match="not empty"):
        layout.place(plays("44")[0])
