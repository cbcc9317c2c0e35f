"""The one bounded JSON reader: every JSON the project reads from outside goes through
:func:`read_json` (a game record, a line of a simulation file, an arena record, a web
request's body).

Python's own reader has no limits a person's file should meet: it reads a number of 4,000
digits (and fails with a bare ValueError past 4,300), nests until the stack gives out
(RecursionError), and takes ``NaN``, ``Infinity`` and ``1e999``. :func:`read_json` refuses
each with one :class:`~dominolab.core.JsonError` saying what is wrong (the caller adds
which file and line).
Pure: it reads the bytes or text it is given, never a file.
"""

from __future__ import annotations

import json
import math
from typing import Any, Final

from dominolab.core.errors import JsonError, shown

#: No figure the project writes (a seed, a count, points) has more digits than this.
MAX_NUMBER_DIGITS: Final = 30
#: The most bytes read by default: 32 MiB, a few times the biggest record
#: (:data:`~dominolab.core.MAX_RECORD_BYTES`).
MAX_JSON_BYTES: Final = 32 * 1024 * 1024


def read_json(data: bytes | bytearray | str, what: str = "JSON", *,
              max_bytes: int = MAX_JSON_BYTES) -> Any:
    """The JSON value of ``data`` (``bytes`` as read, UTF-8, perhaps with a byte order mark;
    or text). ``what`` names what the data should be, with its article (``"a record"``),
    where a message needs it; the caller adds where the data came from (a file, its line).

    Raises :class:`~dominolab.core.JsonError` for data longer than ``max_bytes``, not
    UTF-8 text, empty, not JSON, nested deeper than the parser goes, or holding a whole
    number of more than :data:`MAX_NUMBER_DIGITS` digits, one beyond a float's range,
    NaN or Infinity. The message says which (and where in the text, for JSON it cannot
    parse), never quoting more than a few dozen characters of the input."""
    if len(data) > max_bytes:
        raise JsonError(f"{_size(len(data))} is too big for {what} (the most read is "
                        f"{_size(max_bytes)})")
    if isinstance(data, bytes | bytearray):
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise JsonError(f"not UTF-8 text (byte {data[exc.start]:#04x} at "
                            f"offset {exc.start})") from None
    elif isinstance(data, str):
        text = data
    else:
        raise JsonError(f"{what} is read from bytes or a text, not {type(data).__name__}")
    if not text.strip():
        raise JsonError("empty")
    try:
        return json.loads(text, parse_int=_whole, parse_float=_finite,
                          parse_constant=_no_constant)
    except _Refused as exc:
        raise JsonError(str(exc).replace("{what}", what)) from None
    except json.JSONDecodeError as exc:
        where = (f"column {exc.colno}" if exc.lineno == 1
                 else f"line {exc.lineno} column {exc.colno}")
        raise JsonError(f"not JSON ({exc.msg} at {where})") from None
    except RecursionError:
        raise JsonError(f"nested far deeper than {what} ever is") from None
    except ValueError as exc:  # e.g. a lone surrogate the decoder takes but cannot use
        raise JsonError(f"not JSON: {shown(str(exc))[1:-1]}") from None


class _Refused(ValueError):
    """A number the hooks below refuse (turned into JsonError by :func:`read_json`)."""


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB" if n >= 1024 * 1024 else f"{n} bytes"


def _whole(digits: str) -> int:
    count = len(digits.lstrip("-"))
    if count > MAX_NUMBER_DIGITS:
        raise _Refused(f"a number of {count} digits ({shown(digits)}); no figure in {{what}} "
                       f"has more than {MAX_NUMBER_DIGITS}")
    return int(digits)


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {shown(text)} is too big")
    return value


def _no_constant(name: str) -> Any:
    raise _Refused(f"{name} is not a number in JSON")
