"""SIGTERM as Ctrl-C: the one way every long command stops when it is asked to.

A run stopped by ``kill PID`` (a service manager, a batch system, ``timeout``) ends as one
stopped by Ctrl-C does: the same "interrupted" line, the same exit status
(:data:`EXIT_INTERRUPTED`, 130), and a result file left whole for ``--resume``. A second
SIGTERM while the run winds down ends the process at once (the file is still resumable: a
reader drops a cut last line).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Final

#: the exit status of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT, the shell's own)
EXIT_INTERRUPTED: Final = 130


def _as_ctrl_c(_signum: int, _frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM: end at once
    raise KeyboardInterrupt


def _default_in_child() -> None:
    """A forked worker process ends on SIGTERM as usual (its pool stops it that way), not
    with a KeyboardInterrupt traceback of its own."""
    if signal.getsignal(signal.SIGTERM) is _as_ctrl_c:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


os.register_at_fork(after_in_child=_default_in_child)


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`KeyboardInterrupt` in the main thread, as
    Ctrl-C does; the previous handler is put back on the way out. Outside the main thread
    (where Python cannot set a handler) the block runs unchanged."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _as_ctrl_c)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
