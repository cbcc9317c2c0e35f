"""Reading a JSON file a person gives (a record, an arena record, the level records): no
more than its most bytes are read, and its contents go through the one bounded reader,
:func:`~dominolab.core.read_json`. Shared by the command line, the lab and the players'
ratings (the core reads no files)."""

from __future__ import annotations

import os
from typing import Any

from dominolab.core import MAX_JSON_BYTES, JsonError, read_json
from dominolab.core.errors import shown


def read_bounded(path: str | os.PathLike[str], what: str, max_bytes: int) -> bytes:
    """The bytes of the file at ``path``, of at most ``max_bytes`` (no more is read).
    ``what`` names what it should be, with its article. Raises
    :class:`~dominolab.core.JsonError` naming the file for a name that is not one or a file
    too big, and :class:`OSError` if it cannot be read."""
    name = os.fsdecode(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except ValueError as exc:  # e.g. a NUL in the name
        raise JsonError(f"{shown(name)} is not a file name: {exc}") from None
    if len(data) > max_bytes:
        raise JsonError(f"{name}: more than {max_bytes / 2**20:g} MiB, too big for {what}")
    return data


def read_json_file(path: str | os.PathLike[str], what: str = "JSON", *,
                   max_bytes: int = MAX_JSON_BYTES) -> Any:
    """The JSON value of the file at ``path``, of at most ``max_bytes`` bytes (no more is
    read). ``what`` names what it should be, with its article (``"an arena record"``).
    Raises :class:`~dominolab.core.JsonError` naming the file and saying what is wrong
    (``a.json: not an arena record: not JSON (Expecting value at column 1)``), and
    :class:`OSError` if it cannot be read."""
    name = os.fsdecode(path)
    data = read_bounded(path, what, max_bytes)
    try:
        return read_json(data, what, max_bytes=max_bytes)
    except JsonError as exc:
        raise JsonError(f"{name}: not {what}: {exc}") from None


__all__ = ["read_bounded", "read_json_file"]
