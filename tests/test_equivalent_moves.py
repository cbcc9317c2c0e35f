"""Equivalent moves (dominolab.core.equivalence): RULES.md §1 keeps two free ports of the
same value apart (a spinner's two short ends, the two long sides of a lone opening double),
but where the tile goes among such ports changes nothing that follows (§2 count and
scoring, §3 the line's two ends). These tests play both moves of every class on copies of
the true hand and check that every future agrees, with the ports renamed; that the classes
are the ones named; and that the searches treat a class as one move."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from dominolab import native
from dominolab.core import (
    LEFT,
    RIGHT,
    Deal,
    LuzakOptions,
    Match,
    Move,
    Options,
    Play,
    Port,
    TreeTable,
    View,
    equivalent_moves,
    parse_move,
    play,
    port_classes,
    representatives,
)
from dominolab.core.tiles import TILES
from dominolab.players import Budget, ExpertPlayer, PimcPlayer

OPTION_SETS: list[tuple[str, Options | None]] = [
    ("luzak", None),
    ("luzak", LuzakOptions(short_ends_any_time=False)),
    ("luzak-line", None),
    ("widelec", None),
]


def _positions(game: str, options: Options | None, seeds: range) -> Iterator[Match]:
    """Every position of randomly played matches (the match, with its true hand)."""
    for seed in seeds:
        match = Match(game, options, seed=seed)
        rng = random.Random(seed)
        while not match.is_over and match.hand_number == 1:
            yield match
            legal = match.legal_moves()
            match.apply(legal[rng.randrange(len(legal))])


def _play(text: str) -> Play:
    move = parse_move(text)
    assert isinstance(move, Play)
    return move


def _quartets(game: str) -> bool:
    return game == "widelec"


def _renaming(table: Any, p: Port, q: Port) -> dict[Port, Port]:
    """The renaming of ports that turns the table after a tile laid on ``p`` into the table
    after the same tile laid on ``q`` (RULES.md §2): the two ports swap; the last long
    sides of two doubles swap with their short ends when those are not ports yet."""
    ren = {p: q, q: p}
    if isinstance(table, TreeTable) and p.side in "we" and q.side in "we" and p.k != q.k \
            and not table.short_any:  # their short ends open with them: they swap too
        for side in "ns":
            a, b = Port.tree(p.k, side), Port.tree(q.k, side)
            ren[a], ren[b] = b, a
    return ren


def _renamed(move: Move, ren: dict[Port, Port]) -> Move:
    if not isinstance(move, Play) or move.port is None:
        return move
    return play(move.tile, move.inner, ren.get(move.port, move.port), move.luzak)


def _same_futures(match: Match, a: Play, b: Play, rng: random.Random, tries: int) -> None:
    """Lay ``a`` on one copy of the true hand and ``b`` on another, then play random
    continuations on both, each move renamed: the legal moves, the points and the count
    agree at every step, to the end of the hand."""
    assert a.port is not None and b.port is not None
    ren = _renaming(match.hand.table, a.port, b.port)
    for _ in range(tries):
        one, two = match.hand.copy(), match.hand.copy()
        assert one.apply_unchecked(a) == two.apply_unchecked(b)
        while True:
            assert one.points == two.points
            assert (one.result is None) == (two.result is None)
            if one.result is not None:
                assert two.result is not None and one.result.points == two.result.points
                break
            if hasattr(one.table, "count"):
                assert one.table.count == two.table.count
            legal = one.legal_moves()
            assert sorted(map(str, (_renamed(m, ren) for m in legal))) == \
                sorted(map(str, two.legal_moves()))
            move = legal[rng.randrange(len(legal))]
            assert one.apply_unchecked(move) == two.apply_unchecked(_renamed(move, ren))


@pytest.mark.parametrize(("game", "options"), OPTION_SETS)
def test_rules_s1_s2_s3_classes_are_exact(game: str, options: Options | None) -> None:
    """RULES.md §1-§4: every two moves of a class give the same future, up to the names of
    the ports (random continuations, renamed, score the same points at every step)."""
    rng = random.Random(5)
    checked = 0
    for match in _positions(game, options, range(40)):
        legal = match.legal_moves()
        for cls in equivalent_moves(match.hand.table, legal, _quartets(game)):
            for other in cls[1:]:
                assert isinstance(cls[0], Play) and isinstance(other, Play)
                _same_futures(match, cls[0], other, rng, tries=2)
                checked += 1
    assert checked > (10 if game == "widelec" else 50)


def test_rules_s2_named_classes() -> None:
    """RULES.md §2: an opening spinner's two long sides are one class and its two short
    ends another; a later double's short ends are one class, and its far long side is
    alone (it counts, the short ends do not)."""
    spinner = next(t for t in TILES if t.hi == t.lo == 3)
    table = TreeTable()
    table.place(play(spinner, 3, None))
    classes = port_classes(table)
    p = Port.parse
    assert classes[p("1w")] is classes[p("1e")] is p("1w")
    assert classes[p("1n")] is classes[p("1s")] is p("1n")
    table.place(_play("31@1n"))  # [3|1] on a short end: the long sides stay a pair
    classes = port_classes(table)
    assert classes[p("1e")] is p("1w") and classes[p("1s")] is p("1s")
    table.place(_play("33@1e"))  # a later spinner [3|3] on the long side 1e
    classes = port_classes(table)
    # 1w is now the opening double's last long side, like 3e of the later double
    assert classes[p("1w")] is p("1w") and classes[p("3e")] is p("1w")
    assert classes[p("3n")] is classes[p("3s")] is classes[p("1s")] is p("1s")
    assert classes[p("2e")] is p("2e")  # [3|1]'s port shows 1: alone


def test_rules_s1_ports_of_other_kinds_stay_apart() -> None:
    """Nothing else is merged: a non-double's port, a short end, a last long side and a
    long side of a lone opening double are of different kinds even at the same value."""
    table = TreeTable()
    table.place(_play("33"))
    table.place(_play("35@1w"))  # 2e shows 5
    table.place(_play("53@2e"))  # 3e shows 3: a non-double's port of value 3
    classes = port_classes(table)
    p = Port.parse
    kinds = {classes[p(x)] for x in ("1e", "1n", "3e")}
    assert kinds == {p("1e"), p("1n"), p("3e")}
    # the opening non-double: its two ports show different values
    line = TreeTable()
    line.place(_play("43"))
    assert port_classes(line) == {p("1w"): p("1w"), p("1e"): p("1e")}


@pytest.mark.parametrize("game", ["luzak-line", "widelec"])
def test_rules_s3_s4_line_ends_after_a_lone_double(game: str) -> None:
    """RULES.md §3/§4: after a lone opening double the line's two ends are the same tile,
    so L and R are one port; after a lone non-double they show different values."""
    match = Match(game, seed=1)
    view = match.view(0)
    table = view.new_table_empty()
    table.place(_play("44"))
    assert port_classes(table, game == "widelec") == {LEFT: LEFT, RIGHT: LEFT}
    table = view.new_table_empty()
    table.place(_play("43"))
    assert port_classes(table, game == "widelec") == {LEFT: LEFT, RIGHT: RIGHT}


def test_widelec_ends_of_different_tiles_stay_apart() -> None:
    """RULES.md §4: a quartet reads the end tiles, so two ends showing the same value on
    different tiles are not merged in Widelec (they are in Luzak without spinners, whose
    count reads only the values)."""
    match = Match("luzak-line", seed=1)
    table = match.view(0).new_table_empty()
    for text in ("43", "35@R", "45@L"):  # L shows 5 ([4|5]), R shows 5 ([3|5])
        table.place(_play(text))
    assert port_classes(table, False) == {LEFT: LEFT, RIGHT: LEFT}
    assert port_classes(table, True) == {LEFT: LEFT, RIGHT: RIGHT}
    table.place(_play("56@R"))  # R shows 6 now
    assert port_classes(table, False) == {LEFT: LEFT, RIGHT: RIGHT}


def test_representatives_are_legal_and_come_first() -> None:
    for game, options in OPTION_SETS:
        for match in _positions(game, options, range(6)):
            legal = match.legal_moves()
            reps = representatives(match.hand.table, legal, _quartets(game))
            assert all(r in legal and legal.index(r) <= i for i, r in enumerate(reps))
            classes = equivalent_moves(match.hand.table, legal, _quartets(game))
            assert sorted(map(str, (m for c in classes for m in c))) == sorted(map(str, legal))
            assert all(c[0] is reps[legal.index(c[0])] for c in classes)


def _spinner_view() -> View:
    """Seat 1 facing an opening spinner [3|3] and no 3: 96 luzaks, 48 classes."""
    spinner = next(t for t in TILES if t.hi == t.lo == 3)
    theirs = tuple(t for t in TILES if t.hi != t.lo and 3 not in (t.hi, t.lo))[:12]
    others = [t for t in TILES if t is not spinner and t not in theirs]
    mine = tuple(sorted([spinner, *others[:11]], key=lambda t: t.index))
    match = Match("luzak", deals=[Deal((mine, theirs), tuple(others[11:]))], first_opener=0)
    match.apply(next(m for m in match.legal_moves()
                     if isinstance(m, Play) and m.tile is spinner))
    return match.view(1)


@pytest.mark.parametrize("pure", [False, True])
def test_searches_treat_a_class_as_one_move(pure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The expert (ISMCTS) and PIMC give every member of a class its class's value, margin
    and visits, on the native path and the Python reference alike."""
    if pure:
        monkeypatch.setattr(native, "_enabled", False)
    elif not native.enabled():
        pytest.skip("the native part is not in use")
    view = _spinner_view()
    classes = equivalent_moves(view.new_table(), view.legal_moves)
    assert len(view.legal_moves) == 96 and len(classes) == 48
    for player, budget in ((ExpertPlayer, 300), (PimcPlayer, 3)):
        values = {v.move: v for v in player(random.Random(3)).analyse(view,
                                                                     Budget(worlds=budget))}
        assert len(values) == 96
        for cls in classes:
            first = values[cls[0]]
            for other in cls[1:]:
                v = values[other]
                assert (v.value, v.margin, v.worlds) == (first.value, first.margin,
                                                         first.worlds)
        if player is ExpertPlayer:  # each class counts its visits once
            assert sum(values[c[0]].worlds for c in classes) == budget


@pytest.mark.parametrize("pure", [False, True])
def test_a_search_limited_to_some_moves(pure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """``only``: the expert spends its whole budget under the named moves' classes."""
    if pure:
        monkeypatch.setattr(native, "_enabled", False)
    elif not native.enabled():
        pytest.skip("the native part is not in use")
    view = _spinner_view()
    move = view.legal_moves[5]
    values = ExpertPlayer(random.Random(1)).analyse(view, Budget(worlds=200), only=[move])
    searched = {v.move for v in values if v.worlds}
    twin = next(c for c in equivalent_moves(view.new_table(), view.legal_moves)
                if move in c)
    assert searched == set(twin)
    assert all(v.worlds == 200 for v in values if v.move in searched)
    with pytest.raises(ValueError):
        ExpertPlayer(random.Random(1)).analyse(view, Budget(worlds=5),
                                               only=[parse_move("00")])
