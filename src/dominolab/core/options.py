"""Rule options (RULES.md section 5): one frozen dataclass per game.

Each field is an option; its name with ``-`` for ``_`` is how it is written on the command
line (``--option short-ends-any-time=no``) and in a game record (``short_ends_any_time``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from dominolab.core.errors import OptionError

_TRUE = {"yes", "true", "on", "1"}
_FALSE = {"no", "false", "off", "0"}


@dataclass(frozen=True, slots=True)
class Options:
    """Options every game has."""

    target: int = field(default=61, metadata={"help": "points that end the match"})

    GAME: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type in ("bool", bool) and not isinstance(value, bool):
                raise OptionError(
                    f"option {f.name} of {self.GAME} takes yes or no, not {value!r}")
            if f.type in ("int", int) and (isinstance(value, bool) or not isinstance(value, int)):
                raise OptionError(f"option {f.name} of {self.GAME} takes a number, not {value!r}")
        if self.target < 1:
            raise OptionError(f"target must be a positive number, not {self.target}")

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise OptionError(
                f"{cls.GAME} has no option {', '.join(unknown)} "
                f"(it has: {', '.join(sorted(names))})"
            )
        return cls(**data)

    @classmethod
    def parse(cls, pairs: list[str] | tuple[str, ...]) -> Self:
        """Read ``NAME=VALUE`` texts (``-`` or ``_`` in names; yes/no/true/false for flags)."""
        types = {f.name: f.type for f in dataclasses.fields(cls)}
        data: dict[str, Any] = {}
        for pair in pairs:
            name, sep, text = pair.partition("=")
            key = name.strip().replace("-", "_")
            if not sep or key not in types:
                raise OptionError(
                    f"{pair!r}: {cls.GAME} options are "
                    + ", ".join(f"{n.replace('_', '-')}=VALUE" for n in types)
                )
            value = text.strip().lower()
            if types[key] in ("bool", bool):
                if value not in _TRUE | _FALSE:
                    raise OptionError(f"{pair!r}: {name} takes yes or no")
                data[key] = value in _TRUE
            else:
                try:
                    data[key] = int(value)
                except ValueError:
                    raise OptionError(f"{pair!r}: {name} takes a whole number") from None
        return cls.from_dict(data)

    @classmethod
    def describe(cls) -> list[tuple[str, str, str]]:
        """(name, default, help) for every option, for help texts."""
        out = []
        for f in dataclasses.fields(cls):
            default = f.default
            shown = ("yes" if default else "no") if isinstance(default, bool) else str(default)
            out.append((f.name.replace("_", "-"), shown, str(f.metadata.get("help", ""))))
        return out


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
