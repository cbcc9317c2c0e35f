"""The computer levels' published ratings (dominolab.players.ratings, docs/strength.md) are
the fit of the committed arena records: fitted again here, they must round to the published
numbers; the records must be of the levels as people meet them (player and budget) at the
default rules; and the fit itself must be the maximum-likelihood one."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from dominolab.core import get_game
from dominolab.players import LEVELS, parse_player_spec
from dominolab.players.ratings import (
    ANCHOR,
    LEVEL_RATINGS,
    LEVEL_RECORDS,
    LEVEL_SPECS,
    Result,
    expected,
    fit,
    fit_game,
    read_records,
    results_of,
)
from dominolab.players.ratings import main as ratings_main
from dominolab.players.search import ExpertPlayer, PimcPlayer

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "docs" / "strength"
DOC = ROOT / "docs" / "strength.md"


@pytest.mark.parametrize("game", list(LEVEL_RECORDS))
def test_the_published_level_ratings_are_the_fit_of_the_records(game: str) -> None:
    fitted = fit_game(RECORDS, game)
    assert set(fitted) == set(LEVELS)
    assert {level: round(f.rating) for level, f in fitted.items()} == LEVEL_RATINGS[game]
    assert fitted[ANCHOR[0]].rating == ANCHOR[1]
    # the levels are in order, and each is known to within the published deviation's reach
    ratings = LEVEL_RATINGS[game]
    assert ratings["easy"] < ratings["medium"] < ratings["hard"]
    assert all(f.error < 40 for f in fitted.values())


def _worlds(spec: str, game: str) -> tuple[str, int | None]:
    """The player and the worlds (or iterations) a move gets under an arena spec or a level
    in ``game``, its defaults filled in."""
    name, budget = parse_player_spec(spec)
    name = LEVELS[name][0] if name in LEVELS else name
    worlds = None if budget is None else budget.worlds
    if worlds is None and name == "pimc":
        worlds = 64 if get_game(game).has_boneyard else PimcPlayer.default.worlds
    if worlds is None and name == "expert":
        worlds = ExpertPlayer.default.worlds
    return name, worlds


@pytest.mark.parametrize("game", list(LEVEL_RECORDS))
def test_the_records_are_of_the_levels_at_the_default_rules(game: str) -> None:
    defaults = get_game(game).options(None).to_dict()
    for level, spec in LEVEL_SPECS[game].items():
        assert _worlds(spec, game) == _worlds(level, game), (game, level, spec)
    pairs = set()
    for name, run in read_records(RECORDS, game).items():
        assert run["game"] == game and run["options"] == defaults, name
        assert not run["interrupted"], name
        for side in ("a", "b"):
            assert run[side] in LEVEL_SPECS[game].values(), (name, run[side])
        pairs.add(frozenset((run["a"], run["b"])))
    assert len(pairs) == 3  # every two levels met


def test_the_fit_is_the_maximum_likelihood() -> None:
    """At the maximum each player's expected score equals its score (the likelihood
    equations of Bradley-Terry); and a known two-player case comes out exactly."""
    results = [Result("x", "y", 150.5, 200), Result("y", "z", 60.0, 100),
               Result("x", "z", 80.0, 100)]
    fitted = fit(results, anchor=("y", 1500.0))
    for player in "xyz":
        got = sum(r.score if r.a == player else r.matches - r.score
                  for r in results if player in (r.a, r.b))
        want = sum(r.matches * expected(fitted[player].rating,
                                        fitted[r.b if r.a == player else r.a].rating)
                   for r in results if player in (r.a, r.b))
        assert got == pytest.approx(want, abs=1e-6)
    two = fit([Result("x", "y", 75.0, 100)], anchor=("y", 1500.0))
    assert two["x"].rating == pytest.approx(1500 + 400 * math.log10(3))
    # its standard error: the binomial's, on the rating scale
    assert two["x"].error == pytest.approx(400 / math.log(10) / math.sqrt(100 * 0.75 * 0.25))


def test_a_clean_sweep_has_no_finite_rating_and_is_refused() -> None:
    with pytest.raises(ValueError, match="100% result"):
        fit([Result("greedy", "random", 200.0, 200)], anchor=("random", 1000.0))
    # a draw is enough to make it finite
    fit([Result("greedy", "random", 199.5, 200)], anchor=("random", 1000.0))


def test_docs_strength_table_shows_the_published_ratings() -> None:
    text = DOC.read_text(encoding="utf-8").split("## The levels' ratings", 1)[1]
    text = text.split("\n## ", 1)[0]
    for game, ratings in LEVEL_RATINGS.items():
        row = re.search(rf"^\| {re.escape(game)} \|(.+)$", text, re.MULTILINE)
        assert row is not None, f"docs/strength.md has no ratings row for {game}"
        cells = [c.strip() for c in row.group(1).split("|")]
        assert cells[:3] == [str(ratings[level]) for level in ("easy", "medium", "hard")], \
            (game, cells)


def test_the_records_named_are_committed() -> None:
    for game, names in LEVEL_RECORDS.items():
        for name in names:
            run = json.loads((RECORDS / name).read_text(encoding="utf-8"))
            assert run["game"] == game
    assert results_of("luzak", read_records(RECORDS, "luzak"))[0].matches > 0


def test_the_fit_without_its_records_says_so(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """``python -m dominolab.players.ratings FOLDER`` with a record missing or broken names
    the game and the record, and fits the games it can: no traceback."""
    for name in LEVEL_RECORDS["widelec"]:
        (tmp_path / name).write_text((RECORDS / name).read_text(encoding="utf-8"),
                                     encoding="utf-8")
    (tmp_path / LEVEL_RECORDS["luzak-line"][0]).write_text("not json", encoding="utf-8")
    assert ratings_main([str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out.startswith("widelec: easy 1500.0")
    assert "luzak: cannot fit the levels from" in err and LEVEL_RECORDS["luzak"][0] in err
    assert "luzak-line: cannot fit the levels from" in err
