"""Checks of the command line's texts before they reach the layers below: whole numbers
written with the plain digits 0-9 and of a sensible length, and player specs (``expert:0.5s``)
that are plain ASCII with numbers of a sensible length. ``int`` and ``float`` alone also take
digits of other scripts, like Arabic-Indic ones (or fail on thousands of digits), and a
number too long for a float becomes infinity."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from dominolab.core import OptionError
from dominolab.core.errors import shown
from dominolab.core.tiles import non_ascii

#: seeds are whole numbers below 2**63 (a 64-bit integer anywhere a seed goes)
MAX_SEED = 2**63 - 1
#: a count (--matches, --workers) has at most this many digits; each command checks its range
COUNT_DIGITS = 9


def whole_number(low: int | None = None, high: int | None = None,
                 digits: int = 19) -> Callable[[str], int]:
    """An argparse type: a whole number written with the plain digits 0-9 (``int`` alone
    also takes Arabic-Indic and fullwidth digits, and fails on thousands of digits), at
    most ``digits`` long, within ``low``..``high`` when given."""

    def read(text: str) -> int:
        raw = text.strip()
        body = raw[1:] if raw[:1] in "+-" else raw
        if not (body.isascii() and body.isdigit()):
            plain = " written with the plain digits 0-9" if any(c.isdigit() for c in raw) else ""
            raise argparse.ArgumentTypeError(f"{shown(text)} is not a whole number{plain}")
        if len(body.lstrip("0")) > digits:
            raise argparse.ArgumentTypeError(
                f"{shown(text)} is too big: at most {digits} digits"
                + ("" if low is None or high is None else f" ({low} to {high})"))
        magnitude = int(body.lstrip("0") or "0")  # leading zeros count against int's limit
        value = -magnitude if raw.startswith("-") else magnitude
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value} is not from {low} to {high}")
        return value

    return read


_DECIMAL = re.compile(r"[0-9]{1,9}(?:\.[0-9]{0,6})?|\.[0-9]{1,6}", re.ASCII)


def decimal_number(low: float, high: float, *, above_low: bool = False
                   ) -> Callable[[str], float]:
    """An argparse type: a number like ``0.4`` or ``30``, written with the plain digits 0-9
    (``float`` alone also takes other scripts' digits, ``nan``, ``inf`` and ``1e999``),
    within ``low``..``high`` (above ``low`` when ``above_low``)."""

    def read(text: str) -> float:
        raw = text.strip()
        if not _DECIMAL.fullmatch(raw):
            raise argparse.ArgumentTypeError(
                f"{shown(text)} is not a number written with the plain digits 0-9 (like 0.5)")
        value = float(raw)
        if value > high or value < low or (above_low and value == low):
            lowest = f"above {low:g}" if above_low else f"at least {low:g}"
            raise argparse.ArgumentTypeError(f"{raw} must be {lowest} and at most {high:g}")
        return value

    return read


#: --seed
SEED = whole_number(0, MAX_SEED)
#: --matches, --workers (each command checks the range)
COUNT = whole_number(digits=COUNT_DIGITS)
#: --seat, --first-seat
SEAT = whole_number(0, 1, digits=1)
#: the server's limits (serve --games-per-minute, --abandoned-after ...): a rate a minute,
#: or days
LIMIT = decimal_number(0, 100_000, above_low=True)
#: the server's deadlines (serve --head-timeout, --hello-timeout ...): seconds, at most a day
TIMEOUT = decimal_number(0, 86_400, above_low=True)

#: the longest number in a budget: 9 digits (a billion worlds, or 30 years) is beyond any use
BUDGET_DIGITS = 9
#: the most matches (or duplicate pairs) one command plays: days of computing already, and
#: the list of them stays small
MAX_MATCHES = 1_000_000
#: the most worker processes
MAX_WORKERS = 1024
#: the longest player spec, or pair of them, or budget: ``omniscient:999999999w,1.5s`` twice
#: is 56 characters
SPEC_LENGTH = 100
_DIGIT_RUN = re.compile(r"[0-9]+")


def check_player_text(text: str, what: str) -> str:
    """``text`` (a player spec like ``expert:0.5s``, a list of them like ``greedy,pimc:40w``,
    or a budget like ``200w,1s``) if it is plain ASCII with no number longer than
    :data:`BUDGET_DIGITS` digits; else OptionError saying what is wrong with it (``what``
    names the argument). The spec itself is read by the players."""
    if len(text) > SPEC_LENGTH:
        raise OptionError(f"{what} {shown(text)}: {len(text)} characters is too long for a "
                          f"player (like expert:0.5s or pimc:200w,1s)")
    why = non_ascii(text)
    if why is not None:
        raise OptionError(f"{what} {shown(text)}: {why}")
    for run in _DIGIT_RUN.findall(text):
        if len(run.lstrip("0")) > BUDGET_DIGITS:
            raise OptionError(f"{what} {shown(text)}: a budget's number has at most "
                              f"{BUDGET_DIGITS} digits (examples: 0.5s, 300ms, 200w, 200w,1s)")
    return text
