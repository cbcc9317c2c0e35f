"""Rule options (RULES.md section 5): one frozen dataclass per game.

Each field is an option; its name with ``-`` for ``_`` is how it is written on the command
line (``--option short-ends-any-time=no``) and in a game record (``short_ends_any_time``).
A number option says its range in its metadata (``min``, ``max``); every value is checked
against it, however the options are made.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from dominolab.core.errors import QUOTE_LIMIT, OptionError, shown

_TRUE = {"yes", "true", "on", "1"}
_FALSE = {"no", "false", "off", "0"}
#: a whole number as written on a command line: plain digits 0-9, perhaps a sign
_WHOLE = re.compile(r"[+-]?[0-9]+")
#: more digits than this is out of every range, so it is never converted
_MOST_DIGITS = 18
#: unknown option names listed in one message
_MOST_LISTED = 5

#: The target's range. The originals play to 61; 10,000 is already a match of several
#: hundred hands (about 15,000 moves of Widelec between random players), which keeps every
#: match well inside the move bound of the lab's and the arena's loops, every record a few
#: MiB, and the number exact wherever it is shown or sent (a JavaScript number included).
TARGET_MIN = 1
TARGET_MAX = 10_000


@dataclass(frozen=True, slots=True)
class Options:
    """Options every game has."""

    target: int = field(default=61, metadata={"help": "points that end the match",
                                              "min": TARGET_MIN, "max": TARGET_MAX})

    GAME: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool) and not isinstance(value, bool):
                raise OptionError(
                    f"option {f.name} of {self.GAME} takes yes or no, not {shown(value)}")
            if f.type in ("int", int):
                low, high = _range(f)
                if isinstance(value, bool) or not isinstance(value, int):
                    raise OptionError(f"option {f.name} of {self.GAME} takes a whole number "
                                      f"from {low} to {high}, not {shown(value)}")
                if not low <= value <= high:
                    raise OptionError(_out_of_range(f.name, low, high, shown(value)))

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        """The options named in ``data`` (record names: ``short_ends_any_time``), the rest
        at their defaults. Raises OptionError for an unknown name or a value out of range."""
        if not isinstance(data, Mapping):
            raise OptionError(f"{cls.GAME} options are names with values, like "
                              f"{{\"target\": 61}}, not {shown(data)}")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(_name(k) for k in data if k not in names)
        if unknown:
            more = len(unknown) - _MOST_LISTED
            raise OptionError(
                f"{cls.GAME} has no option {', '.join(unknown[:_MOST_LISTED])}"
                + (f" and {more} more" if more > 0 else "")
                + f" (it has: {', '.join(sorted(names))})"
            )
        return cls(**data)

    @classmethod
    def parse(cls, pairs: list[str] | tuple[str, ...]) -> Self:
        """Read ``NAME=VALUE`` texts (``-`` or ``_`` in names; yes/no/true/false for flags).
        An option given twice is refused (OptionError naming it), not read as the last."""
        fields = {f.name: f for f in dataclasses.fields(cls)}
        data: dict[str, Any] = {}
        for pair in pairs:
            name, sep, text = pair.partition("=") if isinstance(pair, str) else ("", "", "")
            key = name.strip().replace("-", "_")
            if not sep or key not in fields:
                raise OptionError(
                    f"{shown(pair)}: {cls.GAME} options are "
                    + ", ".join(f"{n.replace('_', '-')}=VALUE" for n in fields)
                )
            dashed = key.replace("_", "-")
            if key in data:
                raise OptionError(f"{shown(pair)}: option {dashed} is given twice; give it once")
            value = text.strip().lower() if text.isascii() else text.strip()
            if fields[key].type in ("bool", bool):
                if value not in _TRUE | _FALSE:
                    raise OptionError(f"{shown(pair)}: {dashed} takes yes or no")
                data[key] = value in _TRUE
                continue
            low, high = _range(fields[key])
            if not (value.isascii() and _WHOLE.fullmatch(value)):
                plain = "" if value.isascii() or not any(c.isdigit() for c in value) \
                    else ", written with the plain digits 0-9"
                raise OptionError(f"{shown(pair)}: {dashed} takes a whole number from {low} "
                                  f"to {high}{plain}")
            if len(value.lstrip("+-").lstrip("0")) > _MOST_DIGITS:
                raise OptionError(_out_of_range(dashed, low, high, shown(text.strip())))
            data[key] = int(value)
        return cls.from_dict(data)

    @classmethod
    def describe(cls) -> list[tuple[str, str, str]]:
        """(name, default, help) for every option, for help texts; a number option's help
        ends with its range, e.g. ``points that end the match (1 to 10000)``."""
        out = []
        for f in dataclasses.fields(cls):
            default = f.default
            text = ("yes" if default else "no") if isinstance(default, bool) else str(default)
            help_text = str(f.metadata.get("help", ""))
            if f.type in ("int", int):
                low, high = _range(f)
                help_text += f" ({low} to {high})"
            out.append((f.name.replace("_", "-"), text, help_text))
        return out

    @classmethod
    def ranges(cls) -> dict[str, tuple[int, int]]:
        """The least and the most value of every number option, by record name:
        ``{"target": (1, 10000)}``."""
        return {f.name: _range(f) for f in dataclasses.fields(cls) if f.type in ("int", int)}


def _range(f: dataclasses.Field[Any]) -> tuple[int, int]:
    """A number option's (least, most) value, from its metadata (every one declares both)."""
    return int(f.metadata["min"]), int(f.metadata["max"])


def _out_of_range(name: str, low: int, high: int, value: str) -> str:
    kind = "a positive number" if low == 1 else "a whole number"
    return f"{name} must be {kind} from {low} to {high}, not {value}"


def _name(key: object) -> str:
    """An unknown option name as a message shows it: as it is when short and printable."""
    if isinstance(key, str) and key.isprintable() and 0 < len(key) <= QUOTE_LIMIT:
        return key
    return shown(key)


@dataclass(frozen=True, slots=True)
class LuzakOptions(Options):
    """Luzak (RULES.md sections 2 and 5)."""

    short_ends_any_time: bool = field(
        default=True,
        metadata={"help": "a spinner's short ends are open at any time (no: only once both "
                  "long sides are taken)"},
    )
    luzak_scores_count: bool = field(
        default=True,
        metadata={"help": "the player of a luzak still scores the table count by the N rule"},
    )
    even_hands: bool = field(
        default=True, metadata={"help": "the match always has an even number of hands"}
    )

    GAME: ClassVar[str] = "luzak"


@dataclass(frozen=True, slots=True)
class LuzakLineOptions(Options):
    """Luzak without spinners (RULES.md section 3)."""

    even_hands: bool = field(
        default=True, metadata={"help": "the match always has an even number of hands"}
    )

    GAME: ClassVar[str] = "luzak-line"


@dataclass(frozen=True, slots=True)
class WidelecOptions(Options):
    """Widelec / Kwartety (RULES.md sections 4 and 5)."""

    edge_double: bool = field(
        default=True,
        metadata={"help": "a double with a non-double may stand at a quartet's edge (6601)"},
    )
    must_play_drawn: bool = field(
        default=True, metadata={"help": "a playable drawn tile must be played (no: may be kept)"}
    )
    win_at_once: bool = field(
        default=True,
        metadata={"help": "reaching the target wins at once (no: the hand is played out)"},
    )

    GAME: ClassVar[str] = "widelec"
