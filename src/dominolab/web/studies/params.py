"""A study's parameters: what ``POST /api/studies`` asks for, checked and made canonical.

A study is one game under its rule options, perhaps a sweep of ONE option over a list of
values (one variant per value; none: one variant), two players that repeat exactly (no
clock: ``random``, ``greedy``, levels ``easy`` and ``medium``, a search player with a budget
in worlds only, ``expert:200w``), ``matches`` matches a variant and a ``seed``. Every
variant shares the seed, so match ``i`` of each is dealt the same hands and the report
pairs their differences by deal.

:func:`parse_study` checks a request's JSON and gives :class:`StudyParams`; its
:meth:`~StudyParams.canonical` form (every option of the game named, the swept option
taking its first value, the players as ``name`` or ``name:budget``) is what the id
(:meth:`~StudyParams.study_id`) hashes: the same parameters are the same study, however
they were written. :meth:`~StudyParams.setups` are the lab's own
:class:`~dominolab.lab.simulate.SimSetup` of each variant, which the lab's simulate plays
and writes; :meth:`~StudyParams.commands` the ``dominolab simulate`` lines that write the
same files in a terminal.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass
from typing import Any, Final

from dominolab.core import GAMES, OptionError, get_game
from dominolab.lab.play import player_label, resolve_player
from dominolab.lab.simulate import SimSetup, is_reproducible, make_setup
from dominolab.players import LEVELS
from dominolab.web.errors import ApiError

#: the most values a sweep may list
MAX_SWEEP: Final = 8
#: the fields a study's request may hold
FIELDS: Final = ("game", "options", "sweep", "players", "matches", "seed")
#: the seeds a study may use (a JSON number the page keeps exactly)
SEED_MAX: Final = 2**53 - 1
#: the worlds offered for a search player in the page's list (any worlds budget is taken)
SEARCH_WORLDS: Final = {"pimc": 40, "pimc-classic": 40, "expert": 200, "expert-plain": 200,
                        "omniscient": 200}


def bad(message: str) -> ApiError:
    """A 400 naming the field at fault."""
    return ApiError(400, message)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def option_value(game: str, name: str, value: Any) -> Any:
    """``value`` checked as the option ``name`` of ``game`` takes it (a JSON true/false for
    a flag, a whole number in its range for a number): the value, or a 400 naming both."""
    options_class = get_game(game).options_class
    try:
        return options_class.from_dict({name: value}).to_dict()[name]
    except OptionError as exc:
        raise bad(f"options.{name}: {exc}") from None


def _option_name(game: str, name: Any, where: str) -> str:
    """A request's option name (``edge-double`` or ``edge_double``) as the game's record
    name, or a 400 naming it and the game's options."""
    known = list(get_game(game).options_class().to_dict())
    key = name.replace("-", "_") if isinstance(name, str) else None
    if key not in known:
        raise bad(f"{where}: {game} has no option {json.dumps(name)[:60]} (it has: "
                  f"{', '.join(known)})")
    return key


@dataclass(frozen=True, slots=True)
class Sweep:
    """One option (its record name) over ``values``, in the order given: one variant each."""

    option: str
    values: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class StudyParams:
    """A study's checked parameters (see the module's docstring)."""

    game: str
    #: every option of the game, the swept one at its first value
    options: tuple[tuple[str, Any], ...]
    sweep: Sweep | None
    players: tuple[str, str]
    #: matches a variant
    matches: int
    seed: int

    @property
    def variants(self) -> int:
        return 1 if self.sweep is None else len(self.sweep.values)

    @property
    def total(self) -> int:
        """The matches of every variant together."""
        return self.matches * self.variants

    def canonical(self) -> dict[str, Any]:
        """The parameters as JSON values, the same for the same study however asked."""
        sweep = None if self.sweep is None else {"option": self.sweep.option,
                                                 "values": list(self.sweep.values)}
        return {"game": self.game, "options": dict(self.options), "sweep": sweep,
                "players": list(self.players), "matches": self.matches, "seed": self.seed}

    def study_id(self) -> str:
        """The study's id: 16 hex digits of the SHA-256 of its canonical JSON."""
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def variant_options(self) -> list[dict[str, Any]]:
        """Each variant's options (record names), in order."""
        base = dict(self.options)
        if self.sweep is None:
            return [base]
        return [{**base, self.sweep.option: v} for v in self.sweep.values]

    def setups(self) -> list[SimSetup]:
        """Each variant's setup for the lab's simulate (:func:`make_setup`)."""
        spec = get_game(self.game)
        return [make_setup(self.game, self.players, self.matches, self.seed,
                           spec.options_class.from_dict(opts))
                for opts in self.variant_options()]

    def commands(self, names: list[str]) -> list[str]:
        """The ``dominolab simulate`` line that writes each variant's file ``names[k]`` in
        a terminal, byte for byte the server's."""
        spec = get_game(self.game)
        defaults = spec.options_class().to_dict()
        lines = []
        for opts, name in zip(self.variant_options(), names, strict=True):
            parts = ["dominolab", "simulate", "--game", self.game,
                     "--players", ",".join(self.players), "--matches", str(self.matches),
                     "--seed", str(self.seed)]
            for key, value in opts.items():
                if value != defaults[key]:
                    text = ("yes" if value else "no") if isinstance(value, bool) else str(value)
                    parts += ["--option", f"{key.replace('_', '-')}={text}"]
            parts += ["--out", name]
            lines.append(shlex.join(parts))
        return lines


def _player(value: Any, seat: int) -> str:
    """A seat's player spec checked: known, and repeating exactly (no clock)."""
    where = f"players[{seat}]"
    if not isinstance(value, str) or not value.strip() or len(value) > 40:
        raise bad(f"{where}: a player is a text such as greedy, random, medium or "
                  f"expert:200w")
    try:
        name, budget = resolve_player(value.strip())
        if name in LEVELS:
            name, budget = LEVELS[name] if budget is None else (LEVELS[name][0], budget)
        reproducible = is_reproducible(name, budget)
    except OptionError as exc:
        raise bad(f"{where}: {exc}") from None
    if not reproducible:
        raise bad(f"{where}: {value.strip()} thinks against the clock, so a study would not "
                  f"repeat; give it a budget in worlds only, e.g. {name}:200w")
    return player_label(name, budget)


def parse_study(data: dict[str, Any], most_matches: int) -> StudyParams:
    """A ``POST /api/studies`` body checked: :class:`StudyParams`, or a 400 naming the
    field at fault (an unknown field, a type, a range, an option the game lacks, a sweep of
    no option of this game, of more than :data:`MAX_SWEEP` values or a value twice, more
    than ``most_matches`` matches in all)."""
    unknown = sorted(k for k in data if k not in FIELDS)
    if unknown:
        raise bad(f"{json.dumps(unknown[0])[:60]}: a study takes {', '.join(FIELDS)}")
    game_name = data.get("game")
    if not isinstance(game_name, str) or game_name not in GAMES:
        raise bad(f"game: one of {', '.join(GAMES)}")
    game = GAMES[game_name].name
    given = data.get("options", {})
    if given is None:
        given = {}
    if not isinstance(given, dict):
        raise bad("options: an object of option names and values, like {\"target\": 61}")
    options = get_game(game).options_class().to_dict()
    for name, value in given.items():
        key = _option_name(game, name, "options")
        options[key] = option_value(game, key, value)
    sweep = _sweep(game, data.get("sweep"))
    if sweep is not None:
        options[sweep.option] = sweep.values[0]
    players = data.get("players", ["greedy", "greedy"])
    if not isinstance(players, list) or len(players) != 2:
        raise bad("players: a list of two players, seat 0's first, like [\"greedy\", "
                  "\"random\"]")
    a, b = _player(players[0], 0), _player(players[1], 1)
    matches = data.get("matches", 1000)
    variants = 1 if sweep is None else len(sweep.values)
    if not _whole(matches) or matches < 1:
        raise bad(f"matches: a whole number of matches a variant, at least 1, not "
                  f"{json.dumps(matches)[:40]}")
    if matches * variants > most_matches:
        raise bad(f"matches: {matches} a variant times {variants} variants is "
                  f"{matches * variants}, over this server's {most_matches} a study")
    seed = data.get("seed", 1)
    if not _whole(seed) or not 0 <= seed <= SEED_MAX:
        raise bad(f"seed: a whole number from 0 to {SEED_MAX}, not {json.dumps(seed)[:40]}")
    return StudyParams(game, tuple(options.items()), sweep, (a, b), matches, seed)


def _sweep(game: str, value: Any) -> Sweep | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"option", "values"}:
        raise bad("sweep: null, or {\"option\": NAME, \"values\": [...]}")
    key = _option_name(game, value.get("option"), "sweep.option")
    values = value.get("values")
    if not isinstance(values, list) or not 1 <= len(values) <= MAX_SWEEP:
        raise bad(f"sweep.values: a list of 1 to {MAX_SWEEP} values of {key}")
    checked = tuple(option_value(game, key, v) for v in values)
    if len(set(checked)) < len(checked):
        seen = next(v for i, v in enumerate(checked) if v in checked[:i])
        raise bad(f"sweep.values: {json.dumps(seen)} is listed twice")
    return Sweep(key, checked)


def from_canonical(data: dict[str, Any]) -> StudyParams:
    """A study's parameters from their canonical JSON (a study's own file): ValueError if
    they do not read back as they were written."""
    sweep = data.get("sweep")
    request = {**data, "sweep": sweep}
    try:
        params = parse_study(request, 2**62)
    except ApiError as exc:
        raise ValueError(exc.message) from None
    if params.canonical() != data:
        raise ValueError("the parameters are not in canonical form")
    return params


__all__ = ["MAX_SWEEP", "StudyParams", "Sweep", "from_canonical", "option_value",
           "parse_study"]
