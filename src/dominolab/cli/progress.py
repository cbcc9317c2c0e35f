"""Progress of a long run, on standard error: the one bar every command uses (tqdm).

On a terminal, a bar redrawn in place (done/total, elapsed, time left, rate). Off a terminal
(a run in the background, standard error to a file or a pipe), a plain line at the start,
then at most every :data:`PLAIN_EVERY` seconds, and at the end: a log shows the run is alive
without being flooded, and holds no carriage returns. Progress never goes to standard
output, which holds the results.

A :class:`Progress` is called with ``(done, total)``; the first call's ``done`` is where the
run starts (a resumed run's earlier matches), so the rate and the time left count only what
this run does.
"""

from __future__ import annotations

import io
import os
import sys
from types import TracebackType
from typing import Any, Final, TextIO

from tqdm import tqdm

#: off a terminal, a plain line at most this often (seconds)
PLAIN_EVERY: Final = 30.0
#: on a terminal, the bar is redrawn at most this often (seconds)
REDRAW_EVERY: Final = 0.1
#: the bar's width and the screen's height on a terminal that does not say its own (a bare
#: pty reports 0 x 0, which would hide the bar)
FALLBACK_COLUMNS: Final = 80
FALLBACK_ROWS: Final = 24


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, io.UnsupportedOperation):
        return 0


class _Lines:
    """A text stream for tqdm that turns its in-place redraws (``\\r``) into whole lines,
    each told once (tqdm redraws the last one as it closes)."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.last = ""

    def write(self, text: str) -> None:
        for part in text.replace("\r", "\n").split("\n"):
            line = part.rstrip()
            if line and line != self.last:
                self.stream.write(line + "\n")
                self.last = line

    def flush(self) -> None:
        self.stream.flush()


class Progress:
    """``(done, total)`` -> a tqdm bar of ``unit`` on ``stream`` (default: standard error
    when first called). ``plain_every``: off a terminal, the seconds between plain lines
    (None: :data:`PLAIN_EVERY` as it is when the bar starts). ``delay``: nothing is shown
    before the run has taken this long (a quick run stays quiet). ``close()`` (or the end
    of a ``with`` block) ends the bar."""

    def __init__(self, unit: str = "matches", *, stream: TextIO | None = None,
                 plain_every: float | None = None, delay: float = 0.0,
                 desc: str | None = None) -> None:
        self.unit = unit
        self.stream = stream
        self.plain_every = plain_every
        self.delay = delay
        self.desc = desc
        self._bar: Any = None

    def _open(self, done: int, total: int) -> Any:
        stream = self.stream if self.stream is not None else sys.stderr
        tty = stream.isatty()
        every = self.plain_every if self.plain_every is not None else PLAIN_EVERY
        sized = tty and _columns(stream) > 0  # a terminal that says how wide it is
        return tqdm(total=total, initial=done, unit=f" {self.unit}", desc=self.desc,
                    file=stream if tty else _Lines(stream), ascii=not tty,
                    dynamic_ncols=sized, ncols=None if sized or not tty else FALLBACK_COLUMNS,
                    nrows=None if sized or not tty else FALLBACK_ROWS,
                    leave=True, delay=self.delay,
                    mininterval=REDRAW_EVERY if tty else every,
                    maxinterval=max(every, 10.0), miniters=1, smoothing=0.1)

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            self._bar = self._open(done, total)
            return
        if total != self._bar.total:
            self._bar.total = total
        if done > self._bar.n:
            self._bar.update(done - self._bar.n)

    def close(self) -> None:
        """End the bar (a terminal's line ends; off a terminal, the last count is told)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


__all__ = ["PLAIN_EVERY", "REDRAW_EVERY", "Progress"]
