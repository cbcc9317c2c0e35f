"""The registry of games: each is a spec (name, aliases, sizes, options, hand class) and the
facts of its rules that code outside the hand classes needs (which table, how points are
scored, how a hand ends), declared as data. Ask the spec, never the game's name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from dominolab.core.errors import OptionError, shown
from dominolab.core.hand import Hand, LuzakHand, LuzakLineHand, WidelecHand
from dominolab.core.options import LuzakLineOptions, LuzakOptions, Options, WidelecOptions
from dominolab.core.table import LineTable, TreeTable

#: Bumped whenever the rules' behaviour changes, so records and results stay comparable.
RULES_VERSION: Final = 1

#: the table a game is played on: ``"tree"`` (every double a spinner, ports ``1e``, ``2n``...)
#: or ``"line"`` (one line with two ends, ``L`` and ``R``)
TableKind = Literal["tree", "line"]
#: how a laid tile scores: ``"count"`` (the table count, when tile number N divides it) or
#: ``"quartets"`` (the two end tiles forming a quartet)
Scoring = Literal["count", "quartets"]
#: how a hand ends: ``"tiles"`` (after a fixed number of tiles laid, ``tiles_per_hand``) or
#: ``"out"`` (a seat goes out, or both pass in a block)
HandEnd = Literal["tiles", "out"]


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A game: its name, aliases, numbers, the classes that implement it, and the facts of
    its rules that front ends, players, the lab and adapters ask about (declared as data,
    as OpenSpiel declares a game's type and info before its states)."""

    name: str
    title: str
    aliases: tuple[str, ...]
    #: tiles dealt to each seat
    hand_size: int
    options_class: type[Options]
    hand_class: type[Hand[Any]]
    rules_section: str
    #: the most moves one hand can take (an upper bound, for adapters)
    max_moves_per_hand: int
    #: the undealt tiles form a boneyard to draw from: a seat without a fitting tile draws
    #: (and passes once it is empty), and may have to lay the tile it drew
    has_boneyard: bool
    #: the table: a tree of ports with every double a spinner, or a line with two ends
    table: TableKind
    #: a seat without a fitting tile must lay a luzak (any tile, unmatched)
    luzaks: bool
    #: a luzak gives the opponent its pips (Luzak); without this the opponent instead
    #: scores the count the luzak makes divisible (Luzak without spinners)
    luzak_pips: bool
    #: how a laid tile scores: the count divisible by N, or a quartet at the two ends
    scoring: Scoring
    #: how a hand ends: a fixed number of tiles laid, or a seat going out (or a block)
    hand_end: HandEnd
    #: tiles on the table that end the hand (``hand_end == "tiles"``); None otherwise
    tiles_per_hand: int | None
    #: the seat that goes out (or wins a block) scores the best quartets left in the
    #: opponent's hand
    out_bonus: bool
    #: every way a hand can end (:attr:`HandResult.end <dominolab.core.HandResult>`)
    hand_ends: tuple[str, ...]

    @property
    def spinners(self) -> bool:
        """Every double is a spinner (its short ends open too): the tree table."""
        return self.table == "tree"

    @property
    def has_count(self) -> bool:
        """The table has a count that players see (the count-scoring games)."""
        return self.scoring == "count"

    def new_table(self, options: Options | None = None) -> TreeTable | LineTable:
        """An empty table of this game under ``options`` (None: the defaults)."""
        if self.table == "tree":
            opts = self.options(options)
            return TreeTable(bool(getattr(opts, "short_ends_any_time", True)))
        return LineTable()

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
        GameSpec("luzak", "Luzak", ("spinners",), 12, LuzakOptions, LuzakHand, "2", 12,
                 has_boneyard=False, table="tree", luzaks=True, luzak_pips=True,
                 scoring="count", hand_end="tiles", tiles_per_hand=12, out_bonus=False,
                 hand_ends=("tiles",)),
        GameSpec("luzak-line", "Luzak without spinners", ("luzak-no-spinners", "line"), 12,
                 LuzakLineOptions, LuzakLineHand, "3", 12,
                 has_boneyard=False, table="line", luzaks=True, luzak_pips=False,
                 scoring="count", hand_end="tiles", tiles_per_hand=12, out_bonus=False,
                 hand_ends=("tiles",)),
        # Widelec: at most 28 plays, 14 draws, 14 keeps and two passes in a row
        GameSpec("widelec", "Widelec (Kwartety)", ("kwartety",), 7, WidelecOptions,
                 WidelecHand, "4", 28 + 14 + 14 + 2,
                 has_boneyard=True, table="line", luzaks=False, luzak_pips=False,
                 scoring="quartets", hand_end="out", tiles_per_hand=None, out_bonus=True,
                 hand_ends=("domino", "block", "target")),
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
