"""Shared helpers for the rules tests: deals built from tile texts, scripted hands, random
full matches under a range of rule options, and the option sets used by property tests."""

from __future__ import annotations

import datetime
import random
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import pytest

from dominolab.core import (
    TILES,
    Deal,
    Hand,
    LuzakHand,
    LuzakLineHand,
    LuzakLineOptions,
    LuzakOptions,
    Match,
    Move,
    Options,
    Play,
    Tile,
    WidelecHand,
    WidelecOptions,
    get_game,
    parse_tile,
)

GAME_NAMES: tuple[str, ...] = ("luzak", "luzak-line", "widelec")

#: the fixtures of the browser (tests/browser.py), PostgreSQL (tests/pgserver.py) and
#: nginx (tests/nginxserver.py) tests
pytest_plugins = ("browser", "pgserver", "nginxserver")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--slow-sample", type=int, default=None, metavar="N",
        help="run N of the tests marked slow (long runs of searching players, the docs' "
             "slowest commands), drawn by --slow-seed; the others are deselected "
             "(default: run them all)")
    parser.addoption(
        "--slow-seed", default=None, metavar="TEXT",
        help="what draws the --slow-sample (default: today's date, so each day's runs "
             "cover other slow tests; give the seed a report shows to run the same ones)")


def _slow_seed(config: pytest.Config) -> str:
    seed: str | None = config.getoption("--slow-seed")
    return seed if seed is not None else datetime.date.today().isoformat()


def pytest_report_header(config: pytest.Config) -> str | None:
    n: int | None = config.getoption("--slow-sample")
    if n is None:
        return None
    return f"slow tests: a sample of {n}, drawn by --slow-seed {_slow_seed(config)}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With ``--slow-sample N``, keep N of the collected slow tests (a seeded draw, the
    same for the same seed and collection) and deselect the rest."""
    n: int | None = config.getoption("--slow-sample")
    if n is None:
        return
    if n < 0:
        raise pytest.UsageError(f"--slow-sample takes a count of 0 or more, not {n}")
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    kept = set(random.Random(_slow_seed(config)).sample(slow, min(n, len(slow))))
    dropped = [item for item in slow if item not in kept]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        gone = set(dropped)
        items[:] = [item for item in items if item not in gone]


def T(text: str) -> Tile:
    """A tile from its text (``"65"``, ``"[6|5]"``)."""
    return parse_tile(text)


def tiles(text: str) -> list[Tile]:
    """Tiles from a space-separated text."""
    return [parse_tile(t) for t in text.split()]


def make_deal(seat0: str | Iterable[Tile], seat1: str | Iterable[Tile],
              rest_first: str = "") -> Deal:
    """A deal: both hands given (any order), the rest made of ``rest_first`` (drawn first in
    Widelec) followed by every other tile in tile order."""
    h0 = tiles(seat0) if isinstance(seat0, str) else list(seat0)
    h1 = tiles(seat1) if isinstance(seat1, str) else list(seat1)
    first = tiles(rest_first)
    used = set(h0) | set(h1) | set(first)
    assert len(used) == len(h0) + len(h1) + len(first), "a tile is listed twice"
    rest = first + [t for t in TILES if t not in used]
    return Deal(hands=(tuple(sorted(h0, key=lambda t: t.index)),
                       tuple(sorted(h1, key=lambda t: t.index))), rest=tuple(rest))


def luzak_hand(seat0: str, seat1: str, opener: int = 0,
               options: LuzakOptions | None = None) -> LuzakHand:
    return LuzakHand(make_deal(seat0, seat1), opener, options or LuzakOptions())


def line_hand(seat0: str, seat1: str, opener: int = 0,
              options: LuzakLineOptions | None = None) -> LuzakLineHand:
    return LuzakLineHand(make_deal(seat0, seat1), opener, options or LuzakLineOptions())


def widelec_hand(seat0: str, seat1: str, rest_first: str = "", opener: int = 0,
                 options: WidelecOptions | None = None) -> WidelecHand:
    return WidelecHand(make_deal(seat0, seat1, rest_first), opener,
                       options or WidelecOptions())


def apply_all(hand: Hand[Any], moves: str) -> None:
    """Apply moves given in (context-free or short) text, through the checked path."""
    for text in moves.split():
        hand.apply(hand.parse_move(text))


def plays(moves: Iterable[Move]) -> set[str]:
    return {str(m) for m in moves}


# -- option sets ---------------------------------------------------------------------------

def option_sets(game: str, target: int = 61) -> list[Options]:
    """Every combination of the game's flags, at the given target."""
    if game == "luzak":
        return [LuzakOptions(target=target, short_ends_any_time=a, luzak_scores_count=b,
                             even_hands=c)
                for a in (True, False) for b in (True, False) for c in (True, False)]
    if game == "luzak-line":
        return [LuzakLineOptions(target=target, even_hands=c) for c in (True, False)]
    return [WidelecOptions(target=target, edge_double=a, must_play_drawn=b, win_at_once=c)
            for a in (True, False) for b in (True, False) for c in (True, False)]


#: every game under every combination of its yes/no options, for parametrised tests
COMBOS: list[tuple[str, Options]] = [(g, o) for g in GAME_NAMES for o in option_sets(g)]
#: their test ids: ``luzak:short_ends_any_time+even_hands``
COMBO_IDS: list[str] = [
    f"{g}:{'+'.join(k for k, v in o.to_dict().items() if v is True) or 'none'}"
    for g, o in COMBOS]


def played_out(hand: Hand[Any], player: Any) -> list[Move]:
    """The rest of ``hand`` as ``player`` (a Player) plays both seats, decision by decision
    on the pure-Python path, on a copy: what a native whole-hand loop must reproduce."""
    from dominolab import native
    from dominolab.core import view_of

    copy = hand.copy()
    moves: list[Move] = []
    with native.pure():
        while copy.result is None:
            move = player.choose(view_of(copy, copy.to_move))
            moves.append(move)
            copy.apply(move)
    return moves


def default_options(game: str) -> Options:
    return get_game(game).options_class()


# -- random play ---------------------------------------------------------------------------

Chooser = Callable[[list[Move]], Move]


def rng_chooser(rng: random.Random) -> Chooser:
    def choose(legal: list[Move]) -> Move:
        return legal[rng.randrange(len(legal))]
    return choose


def random_match(game: str, options: Options, seed: int, choose: Chooser,
                 max_moves: int = 5000) -> Match:
    """A full match with moves picked by ``choose``, through the checked path."""
    match = Match(game, options, seed=seed)
    for _ in range(max_moves):
        if match.is_over:
            return match
        match.apply(choose(match.legal_moves()))
    raise AssertionError(f"{game} seed {seed}: the match did not end in {max_moves} moves")


def walk_match(game: str, options: Options, seed: int,
               choose: Chooser) -> Iterator[tuple[Match, Move | None]]:
    """Yield (match, move about to be played) at every position, and (match, None) at the
    end. The match is the live object: inspect it before asking for the next item."""
    match = Match(game, options, seed=seed)
    for _ in range(5000):
        if match.is_over:
            yield match, None
            return
        move = choose(match.legal_moves())
        yield match, move
        match.apply(move)
    raise AssertionError("the match did not end")


def table_tiles(hand: Hand[Any]) -> list[Tile]:
    return [p.tile for p in hand.table_placements]


def rest_tiles(hand: Hand[Any]) -> list[Tile]:
    """Tiles neither in a hand nor on the table: Luzak's unused four, Widelec's boneyard."""
    if isinstance(hand, WidelecHand):
        return list(hand.boneyard)
    return list(hand.deal.rest)


def is_play(move: Move) -> bool:
    return isinstance(move, Play)
