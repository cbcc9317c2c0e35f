"""What one hand can be worth: the bound shared by the framework adapters (OpenSpiel's
utility bounds, PettingZoo's illegal-move penalty). Needs no framework."""

from __future__ import annotations

from dominolab.core import TILES, GameSpec, get_game
from dominolab.core.quartets import QUARTET_WORTH


def hand_points_bound(game: str | GameSpec) -> int:
    """A safe bound on what both seats together can score in one hand.

    Luzak (a luzak gives its pips): tile N scores a count of at most 12 per tile on the
    table (a double's 2d <= 12, the opening non-double <= 11, any other end <= 6) plus a
    luzak's pips (<= 12). Luzak without spinners (count scoring, no pips): the two ends
    count at most 12 each. Widelec (quartet scoring): every play scores at most the best
    quartet; the bonus at most every pip in the opponent's hand (168 is every pip of the
    set).
    """
    spec = get_game(game) if isinstance(game, str) else game
    if spec.luzak_pips:
        return sum(12 * n + 12 for n in range(1, 13))
    if spec.scoring == "count":
        return 12 * 24
    best = max(max(row) for row in QUARTET_WORTH[True])
    return 28 * best + sum(t.pips for t in TILES)


__all__ = ["hand_points_bound"]
