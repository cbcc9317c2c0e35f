"""Display names: what a player may be called, and when two names are the same name.

A name is 3 to 20 characters from one explicit alphabet, :data:`LETTERS` (the Latin
letters of Polish and the main European languages, in both cases), ASCII digits, spaces,
and ``_ - .``; it starts and ends with a letter or digit and has no two separators in a
row. Nothing outside the alphabet passes, however Latin it looks: small capitals (U+1D04
and its kin), the dotless i (U+0131), the dental click (U+01C0), Latin alpha (U+0251) and
every Cyrillic or Greek letter are refused, each by its Unicode name.

Names are compared by their *skeleton* (:func:`skeleton`): Unicode's confusable skeleton
(UTS #39, computed by ICU's spoof checker from Unicode's own ``confusables.txt``, so
``m`` and ``rn`` or ``0`` and ``O`` are one shape), taken case-insensitively, with accents
and separators dropped and the digits that pass for letters read as those letters
(``c0mpu7er`` is ``computer``). Two names with one skeleton are one name, and a name whose
skeleton contains a reserved word's (the computer's, in English and Polish, and the
site's) is refused: nobody can pass for the computer.
"""

from __future__ import annotations

import itertools
import unicodedata
from typing import Final

import icu

MIN_LENGTH: Final = 3
MAX_LENGTH: Final = 20
SEPARATORS: Final = frozenset(" _-.")
#: the letters a name may hold, lower case (their upper cases may be used too): ASCII, then
#: Polish, German, French, Spanish and Portuguese, Italian, Czech and Slovak, Danish,
#: Norwegian, Swedish and Icelandic, Hungarian, Romanian, Croatian, Baltic and Turkish
#: letters; the Turkish dotless i (U+0131) is left out: it passes for ``i``
LETTERS: Final = frozenset(
    "abcdefghijklmnopqrstuvwxyz"
    "ąćęłńóśźż" "äöüß" "àâæçéèêëîïôœùûÿ" "áíñúãõ" "ìò" "čďěňřšťůýžĺľŕ" "åøðþ" "őű"
    "ășțşţ" "đ" "ėįųūāēģīķļņ" "ğ")
DIGITS: Final = frozenset("0123456789")
#: every character a name may hold
ALPHABET: Final = (LETTERS | {c.upper() for c in LETTERS if len(c.upper()) == 1}
                   | DIGITS | SEPARATORS)
#: no name may contain these (as skeletons)
RESERVED: Final = ("computer", "komputer", "dominolab", "admin", "moderator",
                   # what a moderator shows in place of a name (storage/moderation.py)
                   "hidden name", "deleted player")
#: what the site reads alike beyond Unicode's confusables: digits written for letters, and
#: ``i`` for ``l`` (``AdmIn`` is ``admin`` by case and ``Admln`` by shape)
_READ_AS: Final = str.maketrans({"3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "i": "l"})
#: how :func:`skeleton` makes a name's key: stored with the keys, so that a server whose way
#: differs (another Unicode version's confusables, a change here: add one to the number)
#: makes the stored keys again at start (:meth:`Players.rekey`)
KEYS_VERSION: Final = f"uts39-unicode{icu.UNICODE_VERSION}-1"
#: ICU's checker; getSkeleton only reads it, so one serves every thread
_SPOOF: Final = icu.SpoofChecker()
#: casefold and skeleton alternate until neither changes the text; two rounds suffice for
#: every character (a third is a safety margin)
_ROUNDS: Final = 3


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
        if ch not in ALPHABET:
            raise NameRefused(f"a name may hold Latin letters, digits, spaces and _ - . "
                              f"only, not {ch!r} ({_described(ch)})")
    if name[0] in SEPARATORS or name[-1] in SEPARATORS:
        raise NameRefused("a name starts and ends with a letter or a digit")
    if any(a in SEPARATORS and b in SEPARATORS for a, b in itertools.pairwise(name)):
        raise NameRefused("a name has no two of space, _, - and . in a row")
    key = skeleton(name)
    for word, word_key in _RESERVED_KEYS:
        if word_key in key:
            raise NameRefused(f"a name may not contain {word!r} (or look like it)")
    return name


def skeleton(name: str) -> str:
    """The form in which names that look alike are equal: the UTS #39 confusable skeleton
    of the case-folded name (folded again until stable, since a skeleton may hold capitals:
    ``0`` becomes ``O``), then accents and separators dropped and lookalike digits read as
    letters. Defined for any text; names are compared and stored by it."""
    text = name.casefold()
    for _ in range(_ROUNDS):
        folded = _SPOOF.getSkeleton(0, text).casefold()
        if folded == text:
            break
        text = folded
    plain = "".join(ch for ch in unicodedata.normalize("NFD", text)
                    if not unicodedata.combining(ch) and ch not in SEPARATORS)
    return plain.translate(_READ_AS)


def _described(ch: str) -> str:
    """A character by its Unicode name and code point, so an invisible one is named too."""
    return f"{unicodedata.name(ch, 'an unnamed character')}, U+{ord(ch):04X}"


_RESERVED_KEYS: Final = tuple((word, skeleton(word)) for word in RESERVED)

__all__ = ["ALPHABET", "KEYS_VERSION", "LETTERS", "MAX_LENGTH", "MIN_LENGTH", "RESERVED",
           "NameRefused", "check_name", "skeleton"]
