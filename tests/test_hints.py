"""Hints for people (dominolab.players.hints): every legal move with the expert's values,
decided from the view alone, explained in one line, and a review of the costly moves."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest

from dominolab.core import GAMES, Deal, Draw, Match, Play, View, parse_move
from dominolab.players import Budget
from dominolab.players.hints import (
    LOPSIDED,
    Review,
    analyse,
    distinct,
    equivalent,
    explain,
    focused,
    immediate_points,
    immediate_reason,
    move_classes,
    move_text,
    percent,
    percent_change,
    rank,
    review,
    same_as,
)

SMALL = Budget(worlds=30)


def _views(game: str, seed: int) -> Iterator[tuple[Match, View]]:
    """Every position of a randomly played match, as (match, view of the seat to move)."""
    match = Match(game, seed=seed)
    rng = random.Random(seed)
    while not match.is_over:
        seat = match.to_move
        assert seat is not None
        yield match, match.view(seat)
        legal = match.legal_moves()
        match.apply(legal[rng.randrange(len(legal))])


def _find(game: str, wanted: Callable[[View], bool]) -> View:
    for seed in range(60):
        for _, view in _views(game, seed):
            if wanted(view):
                return view
    raise AssertionError(f"no {game} position found")


def _check_analysis(view: View) -> None:
    values = analyse(view, SMALL, seed=4)
    assert sorted(str(v.move) for v in values) == sorted(str(m) for m in view.legal_moves)
    assert len(values) == len(view.legal_moves)
    assert all(0.0 <= v.value <= 1.0 for v in values)
    assert sum(v.worlds for v in values) == 30  # one search iteration per sampled world
    assert all(v.win_chance is not None and 0.0 <= v.win_chance <= 1.0 for v in values)
    # best first: the search spends its iterations on the moves that look best
    assert [v.worlds for v in values] == sorted((v.worlds for v in values), reverse=True)
    assert values == analyse(view, SMALL, seed=4)  # repeatable for a seed


@pytest.mark.parametrize("game", list(GAMES))
def test_analyse_rates_every_legal_move_once_best_first(game: str) -> None:
    _check_analysis(_find(game, lambda v: v.n >= 3 and len(v.legal_moves) >= 3))


def test_analyse_after_drawing_a_playable_tile_in_widelec() -> None:
    def drew_playable(view: View) -> bool:
        return bool(view.history) and view.history[-1] == (view.seat, Draw()) \
            and any(isinstance(m, Play) for m in view.legal_moves)

    view = _find("widelec", drew_playable)
    _check_analysis(view)


def test_analyse_refuses_a_seat_not_to_move() -> None:
    match = Match("luzak", seed=1)
    waiting = 1 - match.hand.to_move
    with pytest.raises(ValueError, match="not to move"):
        analyse(match.view(waiting), SMALL)


def _scrambled_pair(game: str, seed: int) -> tuple[Match, Match]:
    """Two matches whose first deals differ only in tiles seat 0 cannot see."""
    deal = Deal.for_hand(seed, 1, GAMES[game].hand_size)
    theirs, rest = list(deal.hands[1]), list(deal.rest)
    theirs[0], rest[-1] = rest[-1], theirs[0]
    theirs[1], rest[0] = rest[0], theirs[1]
    other = Deal((deal.hands[0], tuple(sorted(theirs, key=lambda t: t.index))), tuple(rest))
    return (Match(game, deals=[deal], first_opener=0),
            Match(game, deals=[other], first_opener=0))


@pytest.mark.parametrize("game", list(GAMES))
def test_hints_do_not_depend_on_hidden_tiles(game: str) -> None:
    for seed in range(2):
        a, b = _scrambled_pair(game, seed)
        assert a.hands[0].hands[1] != b.hands[0].hands[1]
        va, vb = a.view(0), b.view(0)
        assert va == vb
        assert analyse(va, SMALL, seed=7) == analyse(vb, SMALL, seed=7)


def _last_tile_with_a_big_score(view: View) -> bool:
    """Luzak, the twelfth (last) tile to lay: one move scores 10 or more now, another
    nothing, so the values are certain (no tile follows)."""
    if view.n != 11 or not view.my_turn:
        return False
    scores = [immediate_points(view, m) for m in view.legal_moves]
    return max(s[0] - s[1] for s in scores) >= 10 and (0, 0) in scores


def test_review_reports_a_clearly_bad_move() -> None:
    view = _find("luzak", _last_tile_with_a_big_score)
    legal = view.legal_moves
    big = max(legal, key=lambda m: immediate_points(view, m)[0] - immediate_points(view, m)[1])
    nothing = next(m for m in legal if immediate_points(view, m) == (0, 0))
    gain = immediate_points(view, big)[0] - immediate_points(view, big)[1]

    found = review([(view, nothing), (view, big)], SMALL, seed=2)
    assert len(found) == 1
    item = found[0]
    assert item.index == 0 and item.move == nothing
    assert item.best.move == big or item.best.margin == pytest.approx(gain)
    assert item.points_loss == pytest.approx(gain)
    assert item.win_loss > 0
    assert item.chosen.margin == pytest.approx(0.0)
    assert "better" in item.summary() and "win chance" in item.summary()
    # the right move, a forced move and no moves at all: nothing to report
    assert review([(view, item.best.move)], SMALL) == []
    assert review([]) == []


def test_review_skips_forced_moves_and_keeps_the_top() -> None:
    forced = _find("widelec", lambda v: v.my_turn and len(v.legal_moves) == 1)
    assert review([(forced, forced.legal_moves[0])], SMALL) == []
    bad = _find("luzak", _last_tile_with_a_big_score)
    nothing = next(m for m in bad.legal_moves if immediate_points(bad, m) == (0, 0))
    assert len(review([(bad, nothing)] * 5, SMALL, top=3)) == 3
    with pytest.raises(ValueError, match="not a legal move"):
        review([(bad, Draw())], SMALL)


def test_explanations_mention_win_chance_and_points() -> None:
    view = _find("luzak", _last_tile_with_a_big_score)
    values = analyse(view, SMALL)
    best = values[0]
    line = explain(best, view, best)
    assert line.startswith(str(best.move))
    assert "win chance" in line and "(best)" in line and "points" in line
    assert "scores +" in line and " now (count " in line  # the best move scores now
    worst = values[-1]
    other = explain(worst, view, best)
    assert "(best)" not in other
    assert "vs the best: -" in other and "win chance" in other and "points" in other
    assert "\n" not in line + other


def test_immediate_reasons() -> None:
    luzak = _find("luzak", lambda v: any(m.luzak for m in v.legal_moves
                                         if isinstance(m, Play)))
    move = next(m for m in luzak.legal_moves if isinstance(m, Play))
    assert immediate_reason(luzak, move).startswith("a luzak")
    assert immediate_points(luzak, move)[1] == move.tile.pips

    quartet = _find("widelec", lambda v: any(immediate_points(v, m)[0]
                                             for m in v.legal_moves))
    scoring = next(m for m in quartet.legal_moves if immediate_points(quartet, m)[0])
    assert "form quartet" in immediate_reason(quartet, scoring)
    assert immediate_reason(quartet, Draw()) == "draws a tile"


def test_percentages_for_people() -> None:
    assert percent(0.62) == "62%"
    assert percent(0.001) == "<1%"
    assert percent(0.999) == ">99%"
    assert percent(1.0) == "100%"
    assert percent_change(-0.07) == "-7%"
    assert percent_change(-0.004) == "-0.4%"
    assert percent_change(0.0) == "±0%"


# -- equivalent moves and how sure a review is (issue 13, item 3) ----------------------------

#: Luzak seed 61014, hand 2 after the lead [4|1] and the spinner [4|4] on 1w: seat 0 lays
#: [4|0] on one of the spinner's short ends, 2n or 2s (RULES.md §1: different ports, §2:
#: the same move in all but name)
ISSUE_MOVES = ("60 61@1w 03@1e 13@2e 36@3e 32@4e 21@6e 14@7e 43@8e 66@5e 33@9e 20@11e* "
               "41 44@1w")


def _issue_view() -> View:
    match = Match("luzak", seed=61014)
    for text in ISSUE_MOVES.split():
        match.apply(match.hand.parse_move(text))
    seat = match.to_move
    assert seat is not None
    return match.view(seat)


def test_issue_13_spinner_short_ends_are_one_move_in_hints_and_review() -> None:
    """The review once said 40@2n cost 16% win chance against 40@2s (review budget, seed
    2): the search had split its visits between the two short ends. Now they are one move:
    the same value, margin and worlds; a hint shows them once; a review never sets one
    against the other."""
    view = _issue_view()
    n, s = parse_move("40@2n"), parse_move("40@2s")
    assert n in view.legal_moves and s in view.legal_moves
    assert same_as(view, n) == (s,) and equivalent(view, s, n)
    values = {v.move: v for v in analyse(view, Budget(worlds=1500), seed=2)}
    assert (values[n].value, values[n].margin, values[n].worlds) == \
        (values[s].value, values[s].margin, values[s].worlds)
    shown = distinct(rank(values.values()), view)
    assert [v.move for v in shown].count(n) + [v.move for v in shown].count(s) == 1
    assert len(shown) == len(move_classes(view)) < len(view.legal_moves)
    text = explain(values[s], view, values[n])
    assert text.startswith("40@2s (or 2n)") and "(best)" in text and "vs the best" not in text
    assert move_text(view, n) == "40@2n (or 2s)"
    for move in (n, s):
        assert review([(view, move)], Budget(worlds=1500), seed=2, min_win_loss=0.0,
                      min_points_loss=0.0) == []


def test_review_searches_a_hardly_tried_move_further_and_says_how_sure() -> None:
    """A move the expert hardly tried (under a third of the best's worlds) is searched again
    alone, so that both values rest on as many worlds; the figure comes with a "±"."""
    view = _issue_view()
    budget = Budget(worlds=1500)
    values = {v.move: v for v in analyse(view, budget, seed=2)}
    best = rank(values.values())[0]
    rare = min(values.values(), key=lambda v: v.worlds)
    assert rare.worlds < LOPSIDED * best.worlds
    [item] = review([(view, rare.move)], budget, seed=2, min_win_loss=0.0,
                    min_points_loss=0.0)
    assert item.focused == rare.move and item.best == best
    assert item.chosen.worlds == best.worlds
    assert item.chosen == focused(view, rare.move, best.worlds, seed=2)
    assert 0.0 < item.spread < 0.2
    assert "±" in item.summary() and item.certainty() in item.summary()
    assert item.summary().startswith(f"tile 3: {rare.move!s}, better {move_text(view, best.move)}")


def test_review_says_when_a_loss_is_within_the_noise() -> None:
    """A loss no larger than its "±" is shown as not sure."""
    view = _issue_view()
    values = analyse(view, SMALL, seed=2)
    a, b = values[0], values[1]
    close = Review(0, view, b, a, spread=1.0)
    assert not close.sure and close.certainty().endswith("not sure")
    assert a.win_chance is not None
    clear = Review(0, view, replace(b, win_chance=a.win_chance - 0.3), a, spread=0.05)
    assert clear.sure and clear.certainty() == "±5%"
