"""The registry of games: each is a spec (name, aliases, sizes, options, hand class)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from dominolab.core.errors import OptionError, shown
from dominolab.core.hand import Hand, LuzakHand, LuzakLineHand, WidelecHand
from dominolab.core.options import LuzakLineOptions, LuzakOptions, Options, WidelecOptions

#: Bumped whenever the rules' behaviour changes, so records and results stay comparable.
RULES_VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A game: its name, aliases, numbers and the classes that implement it."""

    name: str
    title: str
    aliases: tuple[str, ...]
    hand_size: int
    options_class: type[Options]
    hand_class: type[Hand[Any]]
    rules_section: str
    #: the most moves one hand can take (an upper bound, for adapters)
    max_moves_per_hand: int
    has_boneyard: bool

    def options(self, given: Options | Sequence[str] | None = ()) -> Options:
        """This game's rule options from ``NAME=VALUE`` texts, an :class:`Options` value
        (checked to be this game's) or None (the defaults). Raises OptionError."""
        if given is None:
            return self.options_class()
        if isinstance(given, Options):
            if not isinstance(given, self.options_class):
                raise OptionError(f"{self.name} takes {self.options_class.__name__}, "
                                  f"not {type(given).__name__}")
            return given
        return self.options_class.parse(list(given))


GAMES: Final[dict[str, GameSpec]] = {
    spec.name: spec
    for spec in (
        GameSpec("luzak", "Luzak", ("spinners",), 12, LuzakOptions, LuzakHand, "2", 12, False),
        GameSpec("luzak-line", "Luzak without spinners", ("luzak-no-spinners", "line"), 12,
                 LuzakLineOptions, LuzakLineHand, "3", 12, False),
        # Widelec: at most 28 plays, 14 draws, 14 keeps and two passes in a row
        GameSpec("widelec", "Widelec (Kwartety)", ("kwartety",), 7, WidelecOptions,
                 WidelecHand, "4", 28 + 14 + 14 + 2, True),
    )
}
_ALIASES: Final[dict[str, str]] = {
    alias: spec.name for spec in GAMES.values() for alias in (spec.name, *spec.aliases)
}


def get_game(name: str) -> GameSpec:
    """Find a game by name or alias (case-insensitive; ``_`` may stand for ``-``)."""
    key = name.strip().lower().replace("_", "-") if isinstance(name, str) else None
    found = _ALIASES.get(key) if key is not None else None
    if found is None:
        raise OptionError(f"no game {shown(name)}; the games are: {', '.join(GAMES)} "
                          f"(aliases: {', '.join(a for a in _ALIASES if a not in GAMES)})")
    return GAMES[found]
