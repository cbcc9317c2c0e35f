"""People's ratings: Glicko-2, one rating per player and game (docs/web.md, "Ratings").

The arithmetic is the ``glicko2-py`` library's (``glicko2.math.update_rating``, Glickman's
algorithm step by step); this module only decides what a match counts for:

* Only a rated match (``GameRow.rated``) played to its game's default rules counts, and a
  match counts once (the store's per-match mark, :meth:`Store.apply_ratings`). The rules are
  checked here, where the ratings are reckoned, whatever made the match.
* One match is one rating period for both players, each updated from both ratings as they
  stood before it (Glicko-2's periods are meant to hold several games; one match a period is
  what a site that rates each game at once does). No empty periods are run, so a rating's
  deviation does not grow while its player stays away.
* A drawn match scores 0.5; a match lost on time is lost.
* Against the computer the level's rating is fixed (:data:`dominolab.players.ratings.
  LEVEL_RATINGS`, measured by the levels' own matches) with the deviation
  :data:`~dominolab.players.ratings.LEVEL_RD`; only the person's rating moves.
* A new player starts at the library's defaults, 1500 with deviation 350 and volatility
  0.06, and is *provisional* while the deviation is above :data:`PROVISIONAL_RD`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from glicko2.math import DEFAULT_TAU, mu_to_rating, phi_to_rd, rating_to_mu, rd_to_phi
from glicko2.math import update_rating as _library_update
from glicko2.models.player import Player as _LibraryPlayer

from dominolab.core import GAMES
from dominolab.players.ratings import LEVEL_RATINGS, LEVEL_RD
from dominolab.web.games.creator import is_default
from dominolab.web.storage.store import GameRow, RatingChange, RatingRow

#: Glickman's system constant: how fast a volatility may change (the library's default)
TAU: Final = DEFAULT_TAU
#: a rating is provisional while its deviation is above this: its 95% interval is then
#: wider than ±215 points (a new player's, at 350, is ±686; ten matches or so against
#: settled opponents of about the same rating bring it under)
PROVISIONAL_RD: Final = 110.0


@dataclass(frozen=True, slots=True)
class Glicko:
    """A Glicko-2 rating on the display scale: rating, deviation, volatility."""

    rating: float
    rd: float
    volatility: float

    @property
    def provisional(self) -> bool:
        return self.rd > PROVISIONAL_RD


def _start() -> Glicko:
    player = _LibraryPlayer(id="new")
    return Glicko(round(mu_to_rating(player.mu), 3), round(phi_to_rd(player.phi), 3),
                  player.sigma)


#: where every player starts: the library's new player (1500, 350, 0.06)
START: Final = _start()


def rate(before: Glicko, games: Sequence[tuple[float, float, float]]) -> Glicko:
    """``before`` after one rating period of ``games``: (opponent's rating, the opponent's
    deviation, the score: 1 won, 0.5 drawn, 0 lost), through the library."""
    new = _library_update(
        rating_to_mu(before.rating), rd_to_phi(before.rd), before.volatility,
        [(rating_to_mu(r), rd_to_phi(rd), score) for r, rd, score in games], tau=TAU)
    return Glicko(mu_to_rating(new.mu), phi_to_rd(new.phi), new.sigma)


class NotCounted(ValueError):
    """A match that cannot count for the ratings (the sentence says why)."""


def why_not_counted(row: GameRow) -> str | None:
    """Why the match ``row`` does not count for the ratings, or None if it counts."""
    if not row.rated:
        return "it is not a rated match"
    if not row.finished or row.result is None:
        return "it is not over"
    if row.game not in GAMES:
        return f"no game {row.game!r}"
    if not is_default(row.game, row.options):
        return "it was not played to the game's default rules"
    if row.mode == "computer":
        if row.players[0] is None:
            return "nobody named played it"
        if row.opponent not in LEVEL_RATINGS[row.game]:
            return f"the computer level {row.opponent!r} has no rating"
    elif row.players[0] is None or row.players[1] is None:
        return "a seat has no named player"
    elif row.players[0].id == row.players[1].id:
        return "a player played themselves"
    return None


def score_of(row: GameRow, seat: int) -> float:
    """What ``seat`` scored in the finished match: 1 won, 0.5 drawn, 0 lost."""
    assert row.result is not None
    winner = row.result.winner
    return 0.5 if winner is None else 1.0 if winner == seat else 0.0


def glicko_of(found: RatingRow | None) -> Glicko:
    return START if found is None else Glicko(found.rating, found.rd, found.volatility)


def reckon(row: GameRow, current: Mapping[str, RatingRow], now: float
           ) -> tuple[list[RatingRow], list[RatingChange]]:
    """What the finished rated match ``row`` does to its players' ratings, from their
    ``current`` ratings (player id -> the stored row; missing: a first rated match): the
    new rows and the changes. :class:`NotCounted` if the match does not count."""
    reason = why_not_counted(row)
    if reason is not None:
        raise NotCounted(f"match {row.id} does not count for the ratings: {reason}")
    before: list[Glicko | None] = []
    for ref in row.players:
        before.append(None if ref is None else glicko_of(current.get(ref.id)))
    rows: list[RatingRow] = []
    changes: list[RatingChange] = []
    for seat, ref in enumerate(row.players):
        mine = before[seat]
        if ref is None or mine is None:
            continue  # the computer's seat
        theirs = before[1 - seat]
        if theirs is None:
            assert row.opponent is not None
            opponent = (float(LEVEL_RATINGS[row.game][row.opponent]), LEVEL_RD)
        else:
            opponent = (theirs.rating, theirs.rd)
        after = rate(mine, [(*opponent, score_of(row, seat))])
        stored = current.get(ref.id)
        rows.append(RatingRow(ref.id, row.game, after.rating, after.rd, after.volatility,
                              (0 if stored is None else stored.games) + 1, now))
        changes.append(RatingChange(row.id, seat, ref.id, row.game, mine.rating,
                                    after.rating, mine.rd, after.rd, *opponent, now))
    return rows, changes


# -- JSON ------------------------------------------------------------------------------------

def rating_json(found: RatingRow) -> dict[str, Any]:
    """A stored rating as the API shows it (docs/web.md, RATING)."""
    return {"rating": round(found.rating, 1), "rd": round(found.rd, 1),
            "volatility": round(found.volatility, 6), "games": found.games,
            "provisional": found.rd > PROVISIONAL_RD, "updated": found.updated}


def change_json(change: RatingChange) -> dict[str, Any]:
    """A match's change to a player's rating as the API shows it."""
    return {"before": round(change.rating_before, 1), "after": round(change.rating_after, 1),
            "change": round(change.rating_after - change.rating_before, 1),
            "rd": round(change.rd_after, 1),
            "opponent": round(change.opponent_rating, 1)}


def levels_json(game: str) -> list[dict[str, Any]]:
    """The computer levels of ``game`` with their fixed ratings, best first."""
    levels = sorted(LEVEL_RATINGS[game].items(), key=lambda item: -item[1])
    return [{"kind": "computer", "level": level, "rating": float(rating), "rd": LEVEL_RD,
             "provisional": False} for level, rating in levels]
