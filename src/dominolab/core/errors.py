"""The typed errors of the rules core.

Every error a caller can provoke with bad input is a :class:`DominoError`; the move errors
are also :class:`ValueError` (as in python-chess) and quote the input and the position.
"""

from __future__ import annotations

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
