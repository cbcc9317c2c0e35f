"""One hint ranking (dominolab.players.hints.rank): by win chance, then margin, then the
worlds searched; used by the terminal's hints, the web app's hints and the review."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dominolab.cli.play import TerminalGame
from dominolab.core import Match, get_game, parse_move
from dominolab.players import Budget, make_player
from dominolab.players.hints import analyse, rank, win_chance
from dominolab.players.search import MoveValue
from web_support import seeded_app

SMALL = Budget(worlds=60)
M = [parse_move(t) for t in ("65", "64", "63", "62", "61")]


def _value(i: int, win: float | None, margin: float, worlds: int = 10,
           value: float | None = None) -> MoveValue:
    shown = value if value is not None else win
    assert shown is not None
    return MoveValue(M[i], shown, margin, win, worlds)


def test_rank_orders_by_win_chance_then_margin_then_worlds() -> None:
    values = [_value(0, 0.40, 9.0), _value(1, 0.63, -2.0), _value(2, 0.63, 1.5),
              _value(3, 0.63, 1.5, worlds=30), _value(4, 0.58, 20.0)]
    assert [str(v.move) for v in rank(values)] == ["62", "63", "64", "61", "65"]


def test_rank_puts_untried_moves_last_and_keeps_ties_in_legal_order() -> None:
    values = [_value(0, 0.0, 0.0, worlds=0), _value(1, 0.0, -1.0), _value(2, 1.0, 3.0),
              _value(3, 1.0, 3.0)]
    assert [str(v.move) for v in rank(values)] == ["63", "62", "64", "65"]
    assert rank(rank(values)) == rank(values)


def test_rank_of_values_without_a_win_chance_uses_their_value() -> None:
    values = [_value(0, None, 1.0, value=2.0), _value(1, None, 5.0, value=3.0)]
    assert win_chance(values[0]) == 2.0
    assert [str(v.move) for v in rank(values)] == ["64", "65"]


def _position(game: str) -> tuple[Match, Any]:
    match = Match(game, seed=5)
    rng = random.Random(5)
    while True:
        view = match.view(match.to_move or 0)
        if view.n >= 3 and len(view.legal_moves) >= 4:
            return match, view
        match.apply(rng.choice(match.legal_moves()))


@pytest.mark.parametrize("game", ["luzak", "widelec"])
def test_terminal_hint_lists_moves_in_rank_order(game: str, tmp_path: Path) -> None:
    match, view = _position(game)
    lines: list[str] = []
    terminal = TerminalGame(get_game(game), match, view.seat, make_player("greedy", 1),
                            tmp_path / "r.json", False, write=lines.append,
                            hint_budget=SMALL, pause=False)
    terminal.hint(view)
    shown = [line.split(")", 1)[1].split()[0] for line in lines if ") " in line
             and line.strip()[:1].isdigit()]
    expected = rank(analyse(view, SMALL, match.seed or 0))
    assert shown == [str(v.move) for v in expected[:len(shown)]] and shown
    assert "(best)" in next(line for line in lines if shown[0] in line)


def test_web_hint_uses_the_same_ranking(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import dominolab.web.games.computer as computer

    calls: list[list[MoveValue]] = []

    def spy(values: Any) -> list[MoveValue]:
        ranked = rank(values)
        calls.append(ranked)
        return ranked

    monkeypatch.setattr(computer, "rank", spy)
    app = seeded_app(tmp_path / "games.sqlite3", seed=4, hint_budget=Budget(worlds=60))
    with TestClient(app) as client:
        made = client.post("/api/games", json={"game": "luzak", "opponent": "friend",
                                               "first": "me"}).json()
        r = client.post(f"/api/games/{made['id']}/hint",
                        headers={"Authorization": f"Bearer {made['token']}"}, json={})
        assert r.status_code == 200, r.text
        moves = [h["move"] for h in r.json()["moves"]]
    assert len(calls) == 1 and moves == [str(v.move) for v in calls[0]]
