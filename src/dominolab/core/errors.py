"""The typed errors of the rules core.

Every error a caller can provoke with bad input is a :class:`DominoError`; the move errors
are also :class:`ValueError` (as in python-chess) and quote the input and the position.
"""

from __future__ import annotations

import reprlib
from collections.abc import Sequence


class DominoError(Exception):
    """Base of every error the rules core raises on purpose."""


class InvalidMoveError(DominoError, ValueError):
    """The text (or value) is not a move, a tile or a port at all: malformed input."""


class IllegalMoveError(DominoError, ValueError):
    """A well-formed move that the rules do not allow in this position."""


class AmbiguousMoveError(DominoError, ValueError):
    """A short move text that fits more than one legal move here; ``choices`` lists them."""

    def __init__(self, message: str, choices: Sequence[object]) -> None:
        super().__init__(message)
        self.choices = tuple(choices)


class GameOverError(IllegalMoveError):
    """A move was offered after the hand or the match had ended."""


class OptionError(DominoError, ValueError):
    """An unknown rule option or game name, or a value it cannot take."""


class RecordError(DominoError, ValueError):
    """A game record that is malformed, or that does not replay to its stored figures."""


class JsonError(DominoError, ValueError):
    """Input that the one bounded JSON reader (:func:`~dominolab.core.read_json`) refuses:
    too big, not UTF-8 text, empty, not JSON, nested too deep, or holding a number too long
    or beyond a float's range, NaN or Infinity. The message says which; the caller adds
    the file's name and line."""


#: how much of a value a message quotes (a message is for a person, not a copy of the input)
QUOTE_LIMIT = 60


class _Brief(reprlib.Repr):
    """``reprlib`` with big whole numbers told by their size, never written out (writing
    one of more than 4300 digits is itself an error in Python)."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() <= 64:
            return repr(x)
        digits = int(x.bit_length() * 0.30103) + 1
        return f"<a {'negative ' if x < 0 else ''}number of about {digits} digits>"


_BRIEF = _Brief()
_BRIEF.maxstring = QUOTE_LIMIT
_BRIEF.maxother = QUOTE_LIMIT
_BRIEF.maxlevel = 3


def shown(value: object) -> str:
    """``repr(value)`` cut short for a message: long texts and lists are elided with
    ``...``, deep nesting is cut, a huge whole number is told by its number of digits.
    Never raises, whatever the value."""
    try:
        return _BRIEF.repr(value)
    except Exception:  # a value whose own repr fails: say what it is
        return f"<{type(value).__name__}>"
