"""The computer levels' fixed ratings, one per game, on the Glicko scale (docs/strength.md,
"The levels' ratings").

A person's rating (:mod:`dominolab.web.community.ratings`) starts at 1500 and moves with every rated
match; a level's never moves. So that a person's first rating means something, each level's
rating is measured by playing the levels' players against each other with ``dominolab
arena`` (duplicate matches, :mod:`dominolab.lab.arena`); the runs' JSON records are kept in
docs/strength/ and named in :data:`LEVEL_RECORDS`.

The fit is Bradley-Terry by maximum likelihood on the Elo scale that Glicko shares: A scores
against B with expectation ``1 / (1 + 10 ** ((r_B - r_A) / 400))`` (Glicko-2's expectation
when the opponent's deviation is small, as a level's is), a drawn match is half a win to
each, and ``easy`` is anchored at 1500, the rating every new player starts from: a newcomer
is taken to be as strong as the easy computer until their matches say otherwise. Maximum
likelihood weighs each pair of levels by the matches they played, and it uses all three
pairs at once, so a level is placed by every level it met (the three results are not quite
transitive; docs/strength.md shows what the fit predicts beside what was seen).

A 100% result has no finite maximum-likelihood rating difference (the more apart the better
the fit), so :func:`fit` refuses results where some level never scored against the others
(Zermelo's condition); none of the levels' runs is such a result. ``random``, which ``greedy``
beat in every one of 200 Luzak matches, is no level and is left out.

The published numbers are :data:`LEVEL_RATINGS`, rounded to whole points;
``tests/test_level_ratings.py`` fits them again from the records and fails if they drift.
``python -m dominolab.players.ratings docs/strength`` prints the fit.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeGuard

from dominolab.core import JsonError
from dominolab.core.errors import shown
from dominolab.jsonfile import read_json_file

#: what each level plays as in the records (an arena player spec). ``medium`` is ``pimc`` at
#: 40 worlds: that is plain ``pimc`` in the Luzak games, but plain ``pimc`` deals 64 worlds
#: in Widelec, so Widelec's records name ``pimc:40w``. ``hard`` is the expert at 40,000
#: iterations (its 3 s ceiling never decides a move on this machine: docs/strength.md),
#: reading which kind of player its opponent is and what its choices say of its tiles
LEVEL_SPECS: Final[dict[str, dict[str, str]]] = {
    "luzak": {"easy": "greedy", "medium": "pimc", "hard": "expert:40000w"},
    "luzak-line": {"easy": "greedy", "medium": "pimc", "hard": "expert:40000w"},
    "widelec": {"easy": "greedy", "medium": "pimc:40w", "hard": "expert:40000w"},
}

#: the arena records (in docs/strength/) each game's level ratings are fitted from
LEVEL_RECORDS: Final[dict[str, tuple[str, ...]]] = {
    "luzak": ("luzak__pimc__greedy.json", "luzak__expert__pimc.json",
              "luzak__expert__greedy.json"),
    "luzak-line": ("luzak-line__pimc__greedy.json", "luzak-line__expert__pimc.json",
                   "luzak-line__expert__greedy.json"),
    "widelec": ("widelec__pimc-40w__greedy.json", "widelec__expert__pimc-40w.json",
                "widelec__expert__greedy.json"),
}

#: the level every fit is anchored at, and its rating: the new player's start (Glicko-2's
#: 1500)
ANCHOR: Final = ("easy", 1500.0)

#: the published fixed ratings: game -> level -> rating (the fit of :data:`LEVEL_RECORDS`,
#: rounded; docs/strength.md)
LEVEL_RATINGS: Final[dict[str, dict[str, int]]] = {
    "luzak": {"easy": 1500, "medium": 1838, "hard": 2023},
    "luzak-line": {"easy": 1500, "medium": 1749, "hard": 1859},
    "widelec": {"easy": 1500, "medium": 1623, "hard": 1715},
}

#: the rating deviation a level plays with as a person's opponent: its rating is known to
#: within about this (the fit's standard errors are 16-30 points), and it never changes
LEVEL_RD: Final = 30.0

#: Elo's and Glicko's scale: 400 points are a factor of 10 in the odds
SCALE: Final = 400.0 / math.log(10.0)


@dataclass(frozen=True, slots=True)
class Result:
    """What player ``a`` scored against ``b`` over ``matches`` matches (a win 1, a draw
    0.5)."""

    a: str
    b: str
    score: float
    matches: int


@dataclass(frozen=True, slots=True)
class Fitted:
    """One player's fitted rating and its standard error (0 for the anchor)."""

    rating: float
    error: float


def expected(rating: float, other: float) -> float:
    """The score expected of ``rating`` against ``other`` on the Elo/Glicko scale."""
    return 1.0 / (1.0 + math.pow(10.0, (other - rating) / 400.0))


def fit(results: Sequence[Result], anchor: tuple[str, float] = ANCHOR,
        tolerance: float = 1e-10, max_rounds: int = 100_000) -> dict[str, Fitted]:
    """The Bradley-Terry ratings of the players in ``results`` by maximum likelihood, with
    ``anchor`` = (player, rating) fixed, and each rating's standard error from the
    likelihood's curvature (the matches taken as independent; duplicate pairs make the
    real error smaller, as they cancel the deal's luck).

    Solved by Hunter's minorize-maximize iteration (2004) on the strengths ``10 ** (r /
    400)``. ValueError if a player never scored against the rest, or the rest never against
    it, in some split of the players (no finite maximum then), or if the anchor is missing.
    """
    players = sorted({r.a for r in results} | {r.b for r in results})
    name, anchored = anchor
    if name not in players:
        raise ValueError(f"the anchor {name!r} played in none of the results")
    index = {p: i for i, p in enumerate(players)}
    n = len(players)
    games = [[0.0] * n for _ in range(n)]    # matches between i and j
    scored = [[0.0] * n for _ in range(n)]   # what i scored against j
    for r in results:
        if not 0 <= r.score <= r.matches or r.matches <= 0 or r.a == r.b:
            raise ValueError(f"not a result: {r}")
        i, j = index[r.a], index[r.b]
        games[i][j] += r.matches
        games[j][i] += r.matches
        scored[i][j] += r.score
        scored[j][i] += r.matches - r.score
    _check_finite(players, scored)
    strength = [1.0] * n
    for _ in range(max_rounds):
        new = []
        for i in range(n):
            total = sum(scored[i])
            weight = sum(games[i][j] / (strength[i] + strength[j]) for j in range(n)
                         if j != i and games[i][j])
            new.append(total / weight)
        # keep the anchor at 1 so the numbers stay in range
        new = [s / new[index[name]] for s in new]
        change = max(abs(math.log(a / b)) for a, b in zip(new, strength, strict=True))
        strength = new
        if change < tolerance:
            break
    else:
        raise ValueError(f"the fit did not converge in {max_rounds} rounds")
    ratings = [anchored + 400.0 * math.log10(s) for s in strength]
    errors = _errors(ratings, games, index[name])
    return {p: Fitted(ratings[i], errors[i]) for p, i in index.items()}


def _check_finite(players: Sequence[str], scored: Sequence[Sequence[float]]) -> None:
    """Zermelo's condition: every player reaches every other through "scored against"
    (a finite maximum exists exactly then)."""
    n = len(players)
    for start in range(n):
        seen = {start}
        todo = [start]
        while todo:
            i = todo.pop()
            for j in range(n):
                if j not in seen and scored[i][j] > 0:
                    seen.add(j)
                    todo.append(j)
        if len(seen) < n:
            missed = sorted(players[j] for j in range(n) if j not in seen)
            raise ValueError(f"{players[start]} never scored against {', '.join(missed)} "
                             f"(nor did the players it scored against): a 100% result has no "
                             f"finite rating difference")


def _errors(ratings: Sequence[float], games: Sequence[Sequence[float]], anchor: int
            ) -> list[float]:
    """Standard errors in rating points: the inverse of the Fisher information of the
    free ratings (the anchor's row and column left out)."""
    n = len(ratings)
    free = [i for i in range(n) if i != anchor]
    info = [[0.0] * len(free) for _ in free]
    for a, i in enumerate(free):
        for j in range(n):
            if j == i or not games[i][j]:
                continue
            p = expected(ratings[i], ratings[j])
            w = games[i][j] * p * (1 - p) / SCALE ** 2
            info[a][a] += w
            if j != anchor:
                info[a][free.index(j)] -= w
    inverse = _inverse(info)
    errors = [0.0] * n
    for a, i in enumerate(free):
        errors[i] = math.sqrt(inverse[a][a])
    return errors


def _inverse(m: Sequence[Sequence[float]]) -> list[list[float]]:
    """A small symmetric positive definite matrix's inverse (Gauss-Jordan)."""
    n = len(m)
    a = [[*row, *(1.0 if i == j else 0.0 for j in range(n))] for i, row in enumerate(m)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        lead = a[col][col]
        a[col] = [x / lead for x in a[col]]
        for r in range(n):
            if r != col and a[r][col]:
                factor = a[r][col]
                a[r] = [x - factor * y for x, y in zip(a[r], a[col], strict=True)]
    return [row[n:] for row in a]


# -- the records -------------------------------------------------------------------------------

def level_of(game: str, spec: str) -> str:
    """The level a record's player spec plays as in ``game``; ValueError if none."""
    for level, played in LEVEL_SPECS[game].items():
        if played == spec:
            return level
    raise ValueError(f"{spec!r} is no level of {game} (the levels play as "
                     f"{LEVEL_SPECS[game]})")


def results_of(game: str, records: Mapping[str, Mapping[str, object]]) -> list[Result]:
    """The levels' results from ``game``'s arena records (file name -> the JSON record)."""
    out = []
    for name in LEVEL_RECORDS[game]:
        run = records[name]
        if not isinstance(run, Mapping) or not all(k in run for k in _RECORD_FIELDS):
            raise ValueError(f"{name} is not an arena record (it needs "
                             f"{', '.join(_RECORD_FIELDS)}; made by dominolab arena --json)")
        if run["game"] != game:
            raise ValueError(f"{name} is a record of {shown(run['game'])}, not {game}")
        a_wins, draws, matches = run["a_wins"], run["draws"], run["matches"]
        if not (_count(a_wins) and _count(draws) and _count(matches)
                and matches > 0 and a_wins + draws <= matches):
            raise ValueError(f"{name}: a_wins {shown(a_wins)}, draws {shown(draws)} and "
                             f"matches {shown(matches)} are not counts of its matches")
        out.append(Result(level_of(game, str(run["a"])), level_of(game, str(run["b"])),
                          a_wins + draws / 2, matches))
    return out


#: the fields of an arena record the fit reads
_RECORD_FIELDS: Final = ("game", "a", "b", "a_wins", "draws", "matches")


def _count(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a count: a whole number, 0 or more."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def read_records(folder: Path, game: str) -> dict[str, dict[str, object]]:
    """``game``'s level records from ``folder`` (docs/strength/)."""
    return {name: _read_record(folder / name) for name in LEVEL_RECORDS[game]}


def _read_record(path: Path) -> dict[str, object]:
    """One record file, read by the one bounded reader; JsonError naming the file."""
    record = read_json_file(path, "an arena record")
    if not isinstance(record, dict):
        raise JsonError(f"{path.name}: not an arena record: not a JSON object")
    return record


def fit_game(folder: Path, game: str) -> dict[str, Fitted]:
    """The levels' ratings in ``game`` fitted from the records in ``folder``."""
    return fit(results_of(game, read_records(folder, game)))


def main(argv: Sequence[str] | None = None) -> int:
    """Print each game's fit from the records in the folder given (docs/strength)."""
    args = list(sys.argv[1:] if argv is None else argv)
    folder = Path(args[0] if args else "docs/strength")
    status = 0
    for game in LEVEL_RECORDS:
        try:
            results = results_of(game, read_records(folder, game))
            fitted = fit(results)
        except (OSError, ValueError) as err:  # a record missing or not an arena record
            print(f"{game}: cannot fit the levels from {folder}: {err}", file=sys.stderr)
            status = 2
            continue
        print(f"{game}: " + ", ".join(f"{level} {fitted[level].rating:.1f} ± "
                                       f"{fitted[level].error:.1f}"
                                       for level in LEVEL_SPECS[game]))
        for r in results:
            seen = r.score / r.matches
            predicted = expected(fitted[r.a].rating, fitted[r.b].rating)
            print(f"  {r.a} vs {r.b}: {r.matches} matches, scored {100 * seen:.1f}%, "
                  f"the fit expects {100 * predicted:.1f}%")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
