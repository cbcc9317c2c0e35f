"""The site's puzzles (docs/web.md, "Puzzles"): the shipped puzzle files read once at
start-up, each puzzle's position as a person is shown it, the daily puzzle and the next one
for a player.

The files are ``puzzles/GAME.jsonl`` beside this module, one per game, in the format of
:mod:`dominolab.players.puzzles` (the lab makes them). :func:`load_shelf` reads them all and
replays every puzzle's record, so a broken file stops the server at start-up with the file,
line and what is wrong, never a 500 later. Nothing here depends on how many puzzles a game
has or on their ids.

Before a puzzle is answered nothing in what is sent says which move is best
(:func:`position_json`: the position as the seat to move sees it, its legal moves in the
rules' fixed order, none of the judged moves); :func:`judged_json` is sent with the answer.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import random
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from dominolab.core import GAMES, Match, Move, View, parse_move
from dominolab.core.errors import AmbiguousMoveError, DominoError, shown
from dominolab.players.hints import equivalent
from dominolab.players.puzzles import Judged, Puzzle, PuzzleError, read_puzzles
from dominolab.web.errors import ApiError
from dominolab.web.games.layout import TableLayout, layout_table
from dominolab.web.games.payload import legal_json, move_json, rules_json

#: where the shipped puzzle files are: GAME.jsonl
PUZZLE_DIR: Final = Path(__file__).parent / "puzzles"
#: a player is given puzzles whose rating is within this of theirs while there are any
NEAR: Final = 150.0
#: the rating a visitor (no key) is given puzzles near
VISITOR_RATING: Final = 1500.0
#: the most puzzle ids a request may name as already shown (``after``)
MAX_AFTER: Final = 100
#: the longest move text read
MAX_MOVE: Final = 32


@dataclass(frozen=True)
class Shelved:
    """A shipped puzzle with its match at the position (replayed once, at start-up) and
    the view of the seat to move."""

    puzzle: Puzzle
    match: Match
    view: View
    _layouts: dict[str, TableLayout] = field(default_factory=dict, compare=False, repr=False)

    def layout(self, width: str) -> TableLayout:
        """The table laid out in ``width`` (``wide`` or ``narrow``), made once."""
        if width not in self._layouts:
            self._layouts[width] = layout_table(self.view.spec, self.match.options,
                                                self.view.table, width)
        return self._layouts[width]

    def read_move(self, text: Any) -> Move:
        """The legal move ``text`` names here; :class:`ApiError` 400 naming it if it is not
        a move's text, or not legal in this position."""
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_MOVE:
            raise ApiError(400, f"the move must be a short text in the game's notation, like "
                                f"\"54@1e\", not {shown(text)}")
        try:
            move = self.match.copy().parse_move(text)
        except AmbiguousMoveError as exc:
            raise ApiError(400, f"{exc}: name the port") from None
        except DominoError as exc:
            raise ApiError(400, str(exc)) from None
        if move not in self.view.legal_moves:
            legal = ", ".join(str(m) for m in self.view.legal_moves)
            raise ApiError(400, f"{shown(text)} is not a legal move in puzzle "
                                f"{self.puzzle.id}: the legal moves are {legal}")
        return move


@dataclass(frozen=True)
class Shelf:
    """Every game's shipped puzzles, in order of id."""

    games: Mapping[str, tuple[Shelved, ...]]
    #: each game's puzzles by id (made from ``games``: every answer looks one up)
    _by_id: dict[str, dict[str, Shelved]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {
            game: {s.puzzle.id: s for s in puzzles} for game, puzzles in self.games.items()})

    def of(self, game: Any) -> tuple[Shelved, ...]:
        """``game``'s puzzles; 404 naming the games for a name that is not one."""
        if not isinstance(game, str) or game not in self.games:
            raise ApiError(404, f"there are no puzzles of {shown(game)}: the games are "
                                f"{', '.join(self.games)}")
        return self.games[game]

    def get(self, game: Any, puzzle_id: Any) -> Shelved:
        """The puzzle ``puzzle_id`` of ``game``; 404 if there is none."""
        self.of(game)  # 404 for a game that has no puzzles
        found = self._by_id[game].get(puzzle_id) if isinstance(puzzle_id, str) else None
        if found is None:
            raise ApiError(404, f"there is no {game} puzzle {shown(puzzle_id)}")
        return found

    def daily(self, game: Any, day: dt.date) -> Shelved:
        """``game``'s puzzle of the UTC date ``day``: :func:`daily_index`."""
        puzzles = self.of(game)
        return puzzles[daily_index(game, len(puzzles), day)]


def load_shelf(directory: Path = PUZZLE_DIR) -> Shelf:
    """Every game's puzzles from ``directory/GAME.jsonl`` (a game without a file has none),
    each replayed to its position. Raises :class:`PuzzleError` naming the file and puzzle
    for a file that cannot be read, a puzzle of another game, one whose record does not
    replay, or a file with no puzzle in it."""
    games: dict[str, tuple[Shelved, ...]] = {}
    for name in GAMES:
        path = directory / f"{name}.jsonl"
        if not path.exists():
            continue
        try:
            puzzles = read_puzzles(path)
        except OSError as exc:
            raise PuzzleError(f"{path}: cannot be read: {exc}") from None
        if not puzzles:
            raise PuzzleError(f"{path}: has no puzzle in it")
        shelved = []
        for puzzle in puzzles:
            if puzzle.game != name:
                raise PuzzleError(f"{path}: puzzle {puzzle.id} is of {puzzle.game}, not {name}")
            try:
                match = puzzle.match()
            except PuzzleError as exc:
                raise PuzzleError(f"{path}: {exc}") from None
            assert match.to_move is not None
            shelved.append(Shelved(puzzle, match, match.view(match.to_move)))
        games[name] = tuple(sorted(shelved, key=lambda s: s.puzzle.id))
    return Shelf(games)


@functools.cache
def shipped_shelf() -> Shelf:
    """The shipped puzzles (:func:`load_shelf` of :data:`PUZZLE_DIR`), read once a process:
    they do not change while it runs, and every app a process builds (the tests build
    hundreds) shares them instead of replaying some 900 records again (about a second)."""
    return load_shelf(PUZZLE_DIR)


def daily_index(game: str, count: int, day: dt.date) -> int:
    """The place among ``count`` puzzles of ``game``'s puzzle of the day ``day``: the same
    for everyone that day, and never the same two days running. The days are taken
    ``count`` at a time; each run of days goes through every puzzle once, in an order
    shuffled from a hash of the game and the run's first day (a generator of its own: no
    global randomness), the second of them first where the run would begin with the
    puzzle the run before ended with."""
    ordinal = day.toordinal()
    if count < 3:  # one, or two in turn (a swap below would undo the run before's)
        return ordinal % count
    run, place = divmod(ordinal, count)
    order = _run_order(game, count, run)
    if order[0] == _run_order(game, count, run - 1)[-1]:
        order[0], order[1] = order[1], order[0]
    return order[place]


def _run_order(game: str, count: int, run: int) -> list[int]:
    first = dt.date.fromordinal(max(1, run * count)).isoformat()
    seed = hashlib.sha256(f"dominolab daily puzzle {game} {first}".encode()).digest()
    order = list(range(count))
    random.Random(int.from_bytes(seed[:8], "big")).shuffle(order)
    return order


def pick_next(puzzles: tuple[Shelved, ...], ratings: Mapping[str, tuple[float, int]],
              rating: float, tried: Collection[str], shown_ids: Collection[str]) -> Shelved:
    """The next puzzle for someone whose puzzle rating is ``rating``: among the puzzles
    neither ``tried`` nor ``shown_ids`` (ids; when every puzzle is, among those not just
    shown, then among all), those within :data:`NEAR` of the rating (none: the nearest
    ten), the least tried, then the nearest, then by id. ``ratings``: each puzzle's
    (rating, tries) by id; a puzzle not in it has its shipped rating, untried."""
    def stand(s: Shelved) -> tuple[float, int]:
        return ratings.get(s.puzzle.id, (s.puzzle.rating, 0))

    pool = [s for s in puzzles if s.puzzle.id not in tried and s.puzzle.id not in shown_ids]
    if not pool:
        pool = [s for s in puzzles if s.puzzle.id not in shown_ids] or list(puzzles)
    near = [s for s in pool if abs(stand(s)[0] - rating) <= NEAR]
    if not near:
        near = sorted(pool, key=lambda s: (abs(stand(s)[0] - rating), s.puzzle.id))[:10]
    return min(near, key=lambda s: (stand(s)[1], abs(stand(s)[0] - rating), s.puzzle.id))


def read_after(text: str | None) -> set[str]:
    """The puzzle ids of a request's ``after`` (comma-separated), at most
    :data:`MAX_AFTER`; 400 for more."""
    if not text:
        return set()
    ids = {part.strip() for part in text.split(",") if part.strip()}
    if len(ids) > MAX_AFTER:
        raise ApiError(400, f"after names at most {MAX_AFTER} puzzles, not {len(ids)}")
    return ids


def read_day(text: str | None, today: dt.date) -> dt.date:
    """A request's ``date`` (``YYYY-MM-DD``), or ``today``; 400 for another text."""
    if text is None:
        return today
    try:
        if len(text) != 10:
            raise ValueError
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ApiError(400, f"date must be a day as YYYY-MM-DD, not {shown(text)}") from None


def position_json(shelved: Shelved, width: str) -> dict[str, Any]:
    """What a person is shown of a puzzle before answering it: the position as the seat to
    move sees it (the table laid out in ``width``, the hand, the legal moves with where
    each would lie, the count and the number the next tile gets, the points and the
    match's target; ``hand_points`` and ``totals`` are the mover's first) and nothing of
    the judged moves."""
    view, match = shelved.view, shelved.match
    layout = shelved.layout(width)
    mine = view.seat

    def ours(pair: tuple[int, int] | Any) -> list[int]:
        return [int(pair[mine]), int(pair[1 - mine])]

    return {
        "id": shelved.puzzle.id,
        "game": view.spec.name,
        "title": view.spec.title,
        "rules": rules_json(view.spec),
        "options": match.options.to_dict(),
        "hand_number": view.hand_number,
        "table": layout.to_json(),
        "hand": [t.digits for t in view.hand],
        "legal": legal_json(view, layout),
        "opponent_tiles": view.opponent_tiles,
        "boneyard": view.boneyard,
        "count": view.count,
        "n": view.n,
        "number": view.n + 1,
        "hand_points": ours(view.hand_points),
        "totals": ours(view.totals),
        "target": match.options.target,
    }


def judged_json(shelved: Shelved, judged: Judged, width: str) -> dict[str, Any]:
    """A judged move with its facts (:class:`~dominolab.players.puzzles.Judged`) and, for a
    move that lays a tile, its kind, tile and where it lies on the table laid out in
    ``width``; ``pips``: what a luzak gives the opponent (in the games where a luzak's pips
    go to the opponent: :attr:`~dominolab.core.GameSpec.luzak_pips`)."""
    shown_move = move_json(parse_move(judged.move), shelved.layout(width))
    return {**judged.to_json(), "kind": shown_move["kind"], "tile": shown_move["tile"],
            "spot": shown_move["spot"],
            "pips": judged.now[1] if shown_move["kind"] == "luzak"
            and shelved.view.spec.luzak_pips else None}


def chosen_index(shelved: Shelved, move: Move) -> int:
    """The place among the puzzle's judged moves of the one ``move`` is (or is the same as
    in all but a port's name)."""
    for i, judged in enumerate(shelved.puzzle.moves):
        if equivalent(shelved.view, parse_move(judged.move), move):
            return i
    raise PuzzleError(f"puzzle {shelved.puzzle.id} judges no move like {move}")


__all__ = ["MAX_AFTER", "NEAR", "PUZZLE_DIR", "VISITOR_RATING", "Shelf", "Shelved",
           "chosen_index", "daily_index", "judged_json", "load_shelf", "pick_next",
           "position_json", "read_after", "read_day", "shipped_shelf"]
