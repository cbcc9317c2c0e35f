"""RULES.md section 1, hidden information: a seat's view holds its own hand, the table, the
scores, the opponent's tile count, every move (a draw without its tile), the boneyard
count in Widelec, and nothing else: no opponent tile, no unused or undrawn tile."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import GAME_NAMES, option_sets
from dominolab.core import (
    DRAW,
    TILES,
    Draw,
    HandResult,
    Keep,
    Match,
    MatchResult,
    Options,
    Pass,
    Play,
    Port,
    Tile,
    View,
    WidelecHand,
    view_of,
)

ALLOWED = (Tile, Port, Play, Draw, Pass, Keep, Options, HandResult, MatchResult, View,
           int, str, bool, type(None), tuple)


def walk(value: Any, path: str = "view") -> Iterator[tuple[str, Any]]:
    """Every object reachable from ``value`` through dataclass fields and tuples."""
    yield path, value
    if isinstance(value, Tile | Port):
        return
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from walk(getattr(value, f.name), f"{path}.{f.name}")
    elif isinstance(value, tuple | list | set | frozenset):
        for i, item in enumerate(value):
            yield from walk(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for k, item in value.items():
            yield from walk(k, f"{path}<key>")
            yield from walk(item, f"{path}[{k!r}]")


def check_no_leak(view: View, match: Match, seat: int) -> None:
    hand = match.hand
    own = set(hand.hands[seat])
    on_table = {p.tile for p in hand.table_placements}
    hidden = set(TILES) - own - on_table
    assert hidden >= set(hand.hands[1 - seat])
    for name in (f.name for f in dataclasses.fields(view)):
        if name == "previous":
            continue  # earlier hands' public results; checked below
        for path, obj in walk(getattr(view, name), f"view.{name}"):
            assert isinstance(obj, ALLOWED), f"{path} holds a {type(obj).__name__}"
            if isinstance(obj, Tile):
                assert obj in own or obj in on_table, f"{path} shows the hidden tile {obj}"
    assert view.previous == match.results()[: match.hand_number - 1]
    for path, obj in walk(view.previous, "view.previous"):
        assert isinstance(obj, ALLOWED), f"{path} holds a {type(obj).__name__}"


def check_shows(view: View, match: Match, seat: int) -> None:
    hand = match.hand
    assert view.seat == seat and view.game == match.spec.name
    assert view.hand == tuple(hand.hands[seat])
    assert view.table == hand.table_placements
    assert view.totals == match.totals
    assert view.hand_points == (hand.points[0], hand.points[1])
    assert view.opponent_tiles == len(hand.hands[1 - seat])
    assert view.history == tuple(hand.moves)  # every move, the opponent's draws and passes too
    assert view.hand_number == match.hand_number and view.opener == hand.opener
    if isinstance(hand, WidelecHand):
        assert view.boneyard == len(hand.boneyard)
        assert view.count is None
    else:
        assert view.boneyard is None
        assert view.count == hand.table.count
    if view.to_move == seat:
        assert view.legal_moves == tuple(match.legal_moves())
    else:
        assert view.legal_moves == ()
    rebuilt = view.new_table()
    assert rebuilt.placements == list(hand.table_placements)
    assert rebuilt.free_ports() == hand.table.free_ports()
    if view.count is not None:
        assert rebuilt.count == view.count
    assert set(view.unseen()) == set(TILES) - set(view.hand) - {p.tile for p in view.table}
    assert len(view.unseen()) == 28 - len(view.hand) - len(view.table)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_s1_views_never_show_a_hidden_tile(game: str) -> None:
    """RULES.md §1 hidden information: over hundreds of positions of random matches, no
    view of either seat holds an opponent's, unused or undrawn tile while the hand is in
    progress, and every view shows what it must."""
    positions = 0
    draws_seen = 0
    for i, options in enumerate(option_sets(game, 61)[:4]):
        for seed in range(8):
            match = Match(game, options, seed=100 * i + seed)
            rng = random.Random(seed)
            while not match.is_over:
                for seat in (0, 1):
                    view = match.view(seat)
                    check_no_leak(view, match, seat)
                    check_shows(view, match, seat)
                    draws_seen += sum(1 for s, m in view.history if s != seat and m == DRAW)
                positions += 1
                legal = match.legal_moves()
                match.apply(legal[rng.randrange(len(legal))])
            final = match.view(0)
            assert final.match_result == match.result and final.to_move is None
    assert positions >= 300
    if game == "widelec":
        assert draws_seen > 0


def test_s1_view_of_a_draw_does_not_show_the_tile() -> None:
    """RULES.md §1: a player sees that the opponent drew, not which tile (until played)."""
    for seed in range(50):
        match = Match("widelec", seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            legal = match.legal_moves()
            move = legal[rng.randrange(len(legal))]
            seat = match.to_move
            assert seat is not None
            step = match.apply(move)
            if move == DRAW and step.drew is not None and not match.is_over:
                other = match.view(1 - seat)
                assert other.history[-1] == (seat, DRAW)
                assert step.drew not in other.hand
                assert step.drew in other.unseen()
                assert step.drew in match.view(seat).hand
                return
    raise AssertionError("no draw met")


def test_s1_view_of_lone_hand_and_bad_seat() -> None:
    """view_of works for a lone hand; a seat must be 0 or 1."""
    match = Match("luzak", seed=4)
    view = view_of(match.hand, 1)
    assert view.hand == tuple(match.hand.hands[1]) and view.totals == (0, 0)
    with pytest.raises(ValueError):
        view_of(match.hand, 2)


def test_s1_view_is_a_snapshot() -> None:
    """A view is immutable and does not change when the game goes on."""
    match = Match("widelec", seed=2)
    view = match.view(0)
    before = (view.hand, view.table, view.history, view.totals)
    legal = match.legal_moves()
    match.apply(legal[0])
    assert (view.hand, view.table, view.history, view.totals) == before
    with pytest.raises(dataclasses.FrozenInstanceError):
        view.seat = 1  # type: ignore[misc]


# -- what the front ends used to work out for themselves -------------------------------------

def _old_free_ports(view: View) -> dict[Port, tuple[int, ...]]:
    """The terminal's old derivation: a table rebuilt by the game's name, its port values
    made tuples."""
    from dominolab.core import LineTable, LuzakOptions, TreeTable

    table: TreeTable | LineTable
    if view.game == "luzak":
        assert isinstance(view.options, LuzakOptions)
        table = TreeTable(view.options.short_ends_any_time)
    else:
        table = LineTable()
    for mv in view.table:
        table.place(mv)
    return {p: v if isinstance(v, tuple) else (v,) for p, v in table.port_values().items()}


def _old_pending_seat(view: View) -> int | None:
    """The adapters' old derivation: the seat to move made the last move, a draw."""
    hist = view.history
    if hist and view.to_move is not None and isinstance(hist[-1][1], Draw) \
            and hist[-1][0] == view.to_move:
        return view.to_move
    return None


def _old_pending(view: View) -> Tile | None:
    """The search's old derivation: this seat drew last and must lay the tile."""
    hist = view.history
    if (hist and hist[-1][0] == view.seat and isinstance(hist[-1][1], Draw)
            and view.to_move == view.seat and isinstance(view.legal_moves[0], Play)):
        return view.legal_moves[0].tile
    return None


@pytest.mark.parametrize("game", GAME_NAMES)
def test_view_free_ports_and_pending_match_the_old_derivations(game: str) -> None:
    """Seeded walks over full matches under every option set: the view's free ports and
    pending drawn tile equal what the terminal, the adapters and the search worked out."""
    rng = random.Random(f"views/derived/{game}")
    pendings = 0
    for options in option_sets(game, target=40):
        for seed in range(3):
            match = Match(game, options, seed=seed)
            drawn: Tile | None = None  # the terminal's old way: the last step's drawn tile
            while True:
                for seat in (0, 1):
                    view = match.view(seat)
                    assert view.port_values == _old_free_ports(view)
                    assert [p for p, _ in view.free_ports] == sorted(
                        view.port_values, key=lambda p: p.index)
                    assert view.pending_seat == _old_pending_seat(view)
                    assert view.pending == _old_pending(view)
                    if view.pending is not None:
                        pendings += 1
                        assert view.pending == drawn and view.pending in view.hand
                        assert all(isinstance(m, Keep) or m.tile is view.pending  # type: ignore[union-attr]
                                   for m in view.legal_moves)
                    if seat != view.to_move:
                        assert view.pending is None
                if match.is_over:
                    break
                step = match.apply(rng.choice(match.legal_moves()))
                drawn = step.drew if step.drew is not None and match.to_move == step.seat \
                    and not match.is_over else None
    assert (pendings > 0) == (game == "widelec")


def test_view_free_ports_show_both_halves_of_a_luzak_across_a_line() -> None:
    rng = random.Random("views/luzak-across")
    for seed in range(50):
        match = Match("luzak-line", seed=seed)
        while not match.is_over:
            step = match.apply(rng.choice(match.legal_moves()))
            move = step.move
            if isinstance(move, Play) and move.luzak and match.hand.n == step.n:
                assert move.port is not None
                view = match.view(0)
                assert view.port_values[move.port] == move.tile.halves
                return
    raise AssertionError("no luzak laid in 50 seeded matches")
