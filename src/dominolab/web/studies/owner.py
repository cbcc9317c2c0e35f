"""Which server runs a study, and what the other servers read of it (docs/web.md, "The lab").

Several servers on one PostgreSQL database share one data folder. A study is run by one of
them at a time: the one holding its :class:`Claim`, an exclusive ``flock`` on
``DATA_DIR/studies/ID/owner``. The kernel lets go of it when its holder's process ends,
however it ends, so a killed server's study is claimed by the next server that starts or
looks at it, and goes on from its files. The holder writes how far it is to ``state.json``
beside it (:func:`write_state`, replaced whole at each step, never torn); every other server
reads it (:func:`read_state`) to answer for the study, and asks the holder to stop by
leaving a ``cancelled`` file, which the holder looks for after each job.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Final

#: the file a study's holder locks
OWNER: Final = "owner"
#: how far the study is, as its holder last wrote it
STATE: Final = "state.json"


class Claim:
    """This process's exclusive hold on running the study of ``folder`` (see the module's
    text), from :meth:`take` until :meth:`release` (or the process's end)."""

    def __init__(self, folder: Path, fd: int) -> None:
        self.folder = folder
        self._fd: int | None = fd

    @classmethod
    def take(cls, folder: Path) -> Claim | None:
        """The claim on ``folder``'s study, or None while another holds it (another server,
        or another claim of this one). OSError if the folder cannot be written."""
        fd = os.open(folder / OWNER, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        with contextlib.suppress(OSError):  # who holds it, for an operator reading the folder
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{socket.gethostname()} {os.getpid()}\n".encode(), 0)
        return cls(folder, fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Let go (again: nothing)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the last descriptor lets go of the lock


@dataclass(frozen=True, slots=True)
class SavedState:
    """A study's ``state.json``: its state, the whole matches of each variant's file, and
    why it failed."""

    state: str
    done: tuple[int, ...]
    error: str | None = None


def write_state(folder: Path, saved: SavedState) -> None:
    """Replace ``folder``'s ``state.json`` whole (a reader sees the old one or the new)."""
    text = json.dumps({"state": saved.state, "done": list(saved.done), "error": saved.error})
    tmp = folder / f".{STATE}.{os.getpid()}"
    tmp.write_text(text + "\n", encoding="utf-8")
    os.replace(tmp, folder / STATE)


def read_state(folder: Path, variants: int) -> SavedState | None:
    """``folder``'s ``state.json``, or None when there is none (a study that has not yet
    run, or run by a server older than this file) or it does not fit ``variants``."""
    try:
        data = json.loads((folder / STATE).read_text(encoding="utf-8"))
        done = tuple(int(d) for d in data["done"])
        saved = SavedState(str(data["state"]), done,
                           None if data["error"] is None else str(data["error"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return saved if len(done) == variants else None


__all__ = ["OWNER", "STATE", "Claim", "SavedState", "read_state", "write_state"]
