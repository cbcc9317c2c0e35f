"""Display names: what a player may be called, and when two names are the same name.

A name is 3 to 20 characters of the Latin script (so Polish letters are fine, and no
Cyrillic or Greek letter can pass for a Latin one), ASCII digits, spaces, and ``_ - .``;
it starts and ends with a letter or digit and has no two separators in a row. Names are
compared by their *skeleton*: case, accents and separators dropped, digits that pass for
letters read as those letters (``C0mputer`` is ``computer``), so two names that look alike
are one name. A name whose skeleton contains a reserved word (the computer's, in English
and Polish, and the site's) is refused: nobody can pass for the computer.
"""

from __future__ import annotations

import itertools
import unicodedata
from typing import Final

MIN_LENGTH: Final = 3
MAX_LENGTH: Final = 20
SEPARATORS: Final = frozenset(" _-.")
#: no name may contain these (as skeletons)
RESERVED: Final = ("computer", "komputer", "dominolab", "admin", "moderator")
#: digits and letters read alike in a skeleton
_LOOKALIKE: Final = str.maketrans({"0": "o", "1": "l", "i": "l", "3": "e", "4": "a", "5": "s",
                                   "7": "t", "8": "b", "ł": "l"})


class NameRefused(ValueError):
    """A display name that may not be used, with the reason in words for a person."""


def check_name(text: object) -> str:
    """``text`` as a display name (spaces trimmed and runs of spaces made one, in Unicode's
    composed form), or :class:`NameRefused` saying why it cannot be one."""
    if not isinstance(text, str):
        raise NameRefused("the name must be a text")
    name = " ".join(unicodedata.normalize("NFKC", text).split())
    if not MIN_LENGTH <= len(name) <= MAX_LENGTH:
        raise NameRefused(f"a name has {MIN_LENGTH} to {MAX_LENGTH} characters, not "
                          f"{len(name)}")
    for ch in name:
        if not (_latin_letter(ch) or ch in "0123456789" or ch in SEPARATORS):
            raise NameRefused(f"a name may hold Latin letters, digits, spaces and _ - . "
                              f"only, not {ch!r}")
    if name[0] in SEPARATORS or name[-1] in SEPARATORS:
        raise NameRefused("a name starts and ends with a letter or a digit")
    if any(a in SEPARATORS and b in SEPARATORS for a, b in itertools.pairwise(name)):
        raise NameRefused("a name has no two of space, _, - and . in a row")
    key = skeleton(name)
    for word in RESERVED:
        if skeleton(word) in key:
            raise NameRefused(f"a name may not contain {word!r} (or look like it)")
    return name


def skeleton(name: str) -> str:
    """The form in which names that look alike are equal: case, accents and separators
    dropped, lookalike digits read as letters."""
    folded = unicodedata.normalize("NFKD", name.casefold())
    plain = "".join(ch for ch in folded if not unicodedata.combining(ch) and ch not in SEPARATORS)
    return plain.translate(_LOOKALIKE)


def _latin_letter(ch: str) -> bool:
    return ch.isalpha() and unicodedata.name(ch, "").startswith("LATIN ")


__all__ = ["MAX_LENGTH", "MIN_LENGTH", "NameRefused", "check_name", "skeleton"]
