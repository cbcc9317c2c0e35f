"""Players: legal moves everywhere, determinism, no peeking at hidden tiles, strength."""

from __future__ import annotations

import random

import pytest

from dominolab.core import GAMES, Deal, Match, Move, OptionError, get_game
from dominolab.players import (
    LEVELS,
    Budget,
    GreedyPlayer,
    Player,
    RandomPlayer,
    make_player,
    parse_player_spec,
    thinks_against_clock,
)


@pytest.mark.parametrize(("game", "extra"), [
    *((g, ()) for g in GAMES),
    ("luzak", ("short-ends-any-time=no", "luzak-scores-count=no")),
    ("widelec", ("must-play-drawn=no", "edge-double=no", "win-at-once=no")),
])
def test_players_return_legal_moves(game: str, extra: tuple[str, ...]) -> None:
    spec = get_game(game)
    for seed in range(6):
        options = spec.options(["target=25", *extra])
        match = Match(spec, options, seed=seed)
        walker = RandomPlayer(random.Random(seed))
        players: list[Player] = [make_player("random", seed), make_player("greedy", seed)]
        while not match.is_over:
            seat = match.to_move
            assert seat is not None
            view = match.view(seat)
            for player in players:
                assert player.choose(view) in view.legal_moves
            match.apply(walker.choose(view))


def test_make_player() -> None:
    assert make_player("random", 1).name == "random"
    assert make_player("greedy", 1).name == "greedy"
    assert isinstance(make_player("greedy", 1), Player)
    assert isinstance(make_player("random", 1), Player)
    with pytest.raises(OptionError, match="no player 'alphago'"):
        make_player("alphago", 1)


def test_random_player_is_seeded() -> None:
    view = Match("luzak", seed=4).view(Match("luzak", seed=4).to_move or 0)
    a = [make_player("random", 9).choose(view) for _ in range(3)]
    b = [make_player("random", 9).choose(view) for _ in range(3)]
    assert a == b
    picks = {RandomPlayer(random.Random(s)).choose(view) for s in range(40)}
    assert len(picks) > 1


@pytest.mark.parametrize("game", list(GAMES))
def test_greedy_is_deterministic(game: str) -> None:
    for seed in range(4):
        match = Match(game, seed=seed)
        walker = RandomPlayer(random.Random(seed))
        while not match.is_over and match.hand_number == 1:
            seat = match.to_move
            assert seat is not None
            view = match.view(seat)
            assert GreedyPlayer().choose(view) == GreedyPlayer().choose(view)
            match.apply(walker.choose(view))


def _swap_hidden(deal: Deal, keep: int, count: int) -> Deal:
    """The same deal with ``count`` tiles of the other seat swapped for unseen rest tiles."""
    other = list(deal.hands[1 - keep])
    rest = list(deal.rest)
    for i in range(count):
        other[i], rest[-1 - i] = rest[-1 - i], other[i]
    hands = [deal.hands[0], deal.hands[1]]
    hands[1 - keep] = tuple(sorted(other))
    return Deal((hands[0], hands[1]), tuple(rest))


@pytest.mark.parametrize("game", list(GAMES))
def test_greedy_never_reads_hidden_tiles(game: str) -> None:
    spec = get_game(game)
    for seed in range(10):
        deal = Deal.for_hand(seed, 1, spec.hand_size)
        other = _swap_hidden(deal, 0, 4)
        assert other.hands[0] == deal.hands[0] and other.hands[1] != deal.hands[1]
        a = Match(spec, deals=[deal], first_opener=0)
        b = Match(spec, deals=[other], first_opener=0)
        va, vb = a.view(0), b.view(0)
        assert va == vb  # the setup really hides the difference from seat 0
        assert GreedyPlayer().choose(va) == GreedyPlayer().choose(vb)


def test_greedy_beats_random_at_luzak() -> None:
    wins = losses = 0
    for seed in range(40):
        greedy_seat = seed % 2
        players = [make_player("random", seed), make_player("random", seed)]
        players[greedy_seat] = make_player("greedy", seed)
        match = Match("luzak", seed=seed)
        while not match.is_over:
            seat = match.to_move
            assert seat is not None
            match.apply(players[seat].choose(match.view(seat)))
        assert match.result is not None
        if match.result.winner == greedy_seat:
            wins += 1
        elif match.result.winner is not None:
            losses += 1
    assert wins >= 30, (wins, losses)


def _net(match: Match, seat: int, move: Move) -> int:
    points = match.hand.copy().apply(move).points
    return points[seat] - points[1 - seat]


def test_greedy_takes_the_most_points_on_the_last_tile() -> None:
    # Tile 12 of a Luzak hand has no answer: greedy must take the best immediate gain.
    checked = 0
    for seed in range(30):
        match = Match("luzak", seed=seed)
        walker = RandomPlayer(random.Random(seed))
        while match.hand.n < 11:
            seat = match.to_move
            assert seat is not None
            match.apply(walker.choose(match.view(seat)))
        seat = match.to_move
        assert seat is not None
        view = match.view(seat)

        best = max(_net(match, seat, m) for m in view.legal_moves)
        assert _net(match, seat, GreedyPlayer().choose(view)) == best
        checked += best > 0
    assert checked > 0


@pytest.mark.parametrize("text", ["expert:\u0665w", "expert:" + "9" * 400 + "w", "greedy:infs",
                                  "expert:999999999w", "expert:7200s", "pimc:\u00b2w",
                                  "x" * 5000])
def test_budgets_take_plain_bounded_numbers_only(text: str) -> None:
    with pytest.raises(OptionError) as info:
        parse_player_spec(text)
    assert len(str(info.value)) < 250  # the input elided; the list of players takes ~130


def test_every_level_plays_to_a_budget_in_worlds_not_a_clock() -> None:
    """A level's strength does not depend on how busy the machine is (issue 43): no level
    reads the clock, and hard is the expert at 40,000 iterations."""
    for level, (_, budget) in LEVELS.items():
        assert not thinks_against_clock(level, budget), level
    assert LEVELS["hard"] == ("expert", Budget(worlds=40_000))


def test_without_the_native_path_a_level_keeps_its_time_not_its_budget(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Hard's 40,000 iterations would take over a minute a move on the pure-Python path: a
    budget in worlds alone stops there at PURE_PATH_SECONDS (set small here)."""
    import random

    from dominolab import native
    from dominolab.core import Match
    from dominolab.players import ExpertPlayer, search

    monkeypatch.setattr(search, "PURE_PATH_SECONDS", 0.05)
    match = Match("luzak", seed=4)
    view = match.view(match.to_move or 0)
    with native.pure():
        values = ExpertPlayer(random.Random(1), reading=False).analyse(view, LEVELS["hard"][1])
    assert 0 < sum(v.worlds for v in values) < 40_000
