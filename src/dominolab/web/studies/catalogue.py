"""What the lab's page may choose (``GET /api/lab``): the games and their rule options from
the options' own metadata (:mod:`dominolab.core.options`, which ``dominolab games`` prints
too), the players whose choices repeat, and the server's limits for studies."""

from __future__ import annotations

from typing import Any, Final

from dominolab.core import GAMES
from dominolab.lab.simulate import is_reproducible
from dominolab.players import KINDS, LEVELS
from dominolab.players.base import Budget
from dominolab.web.studies.params import SEARCH_WORLDS

#: the section of the player's guide (``/rules/GAME#SECTION``) that tells each option's rule
GUIDE_SECTIONS: Final = {
    "target": "match",
    "even_hands": "match",
    "win_at_once": "match",
    "short_ends_any_time": "play",
    "must_play_drawn": "play",
    "edge_double": "play",
    "luzak_scores_count": "score",
}


def game_entries() -> list[dict[str, Any]]:
    """Every game with its options: name (a record name, as ``POST /api/studies`` takes it),
    text (its help), kind, default, range, and the guide's section of its rule."""
    games = []
    for spec in GAMES.values():
        defaults = spec.options_class().to_dict()
        ranges = spec.options_class.ranges()
        options = []
        for dashed, _shown, help_text in spec.options_class.describe():
            key = dashed.replace("-", "_")
            value = defaults[key]
            entry: dict[str, Any] = {"name": key, "text": help_text,
                                     "kind": "bool" if isinstance(value, bool) else "int",
                                     "default": value, "min": None, "max": None,
                                     "guide": f"/rules/{spec.name}#"
                                              f"{GUIDE_SECTIONS.get(key, 'match')}"}
            if key in ranges:
                entry["min"], entry["max"] = ranges[key]
            options.append(entry)
        games.append({"name": spec.name, "title": spec.title, "options": options})
    return games


def player_entries() -> list[dict[str, str]]:
    """The players a study may use, each as its spec and a label: the levels that repeat,
    then each player, a search player with a budget in worlds (any other number of worlds
    is taken too: ``expert:500w``)."""
    out = []
    for level, (name, budget) in LEVELS.items():
        if is_reproducible(name, budget):
            shown = name if budget is None else f"{name}:{budget}"
            out.append({"spec": level, "label": f"level {level} ({shown})"})
    for name, kind in KINDS.items():
        if not kind.clocked:
            out.append({"spec": name, "label": f"{name}: {kind.about}"})
        else:
            worlds = SEARCH_WORLDS.get(name, 100)
            budget = Budget(worlds=worlds)
            out.append({"spec": f"{name}:{budget}",
                        "label": f"{name}: {kind.about}, {worlds} worlds a move"})
    return out


__all__ = ["GUIDE_SECTIONS", "game_entries", "player_entries"]
