"""How soon a study's report is ready, and what a study costs the games beside it
(docs/web.md, "The lab"; issue 42's targets: 10,000 greedy Luzak matches from the click to
the full report within 15 s on this 2-core machine; while a study runs, a friend game on the
same server keeps p99 move-to-update under 250 ms).

:func:`measure_study`: a real server (``dominolab serve`` in a child process, on a throwaway
SQLite file, its default compute pool) is asked for one study of ``matches``
greedy-against-greedy Luzak matches, as the lab's page asks (``POST /api/studies``); its
state is read every 50 ms until it is done, then its report (``GET
/api/studies/ID/report``). The figures: the seconds from the POST to the last match written,
from there to the report, and in all.

:class:`StudyBeside`: a study started on a server that ``dominolab bench serve --study``
plays its games against, as the measured window opens, followed until it closes, then
cancelled if still running; how far it got is its figures.
"""

from __future__ import annotations

import tempfile
import threading
import time
import urllib.error
from pathlib import Path
from typing import Any, Final

from dominolab.web.edge.process import ServerProcess, request_json

#: the longest a run may take before it is called failed
DEADLINE = 600.0
#: the study ``bench serve --study`` asks for beside its games: the players of both seats
STUDY_PLAYER: Final = "greedy"
#: how often :class:`StudyBeside` reads its study's state
FOLLOW_SECONDS: Final = 0.5


def study_body(game: str, matches: int, player: str = STUDY_PLAYER, seed: int = 1
               ) -> dict[str, Any]:
    """The ``POST /api/studies`` body of ``matches`` matches of ``game`` between two
    ``player`` (a lab player: ``greedy``, ``pimc:40w``, ...), seeded with ``seed``."""
    return {"game": game, "players": [player, player], "matches": matches, "seed": seed}


def measure_study(matches: int = 10_000, seed: int = 1) -> dict[str, Any]:
    """One study of ``matches`` greedy Luzak matches on a fresh server: its seconds (see
    the module's docstring). RuntimeError if the study fails or passes :data:`DEADLINE`."""
    with tempfile.TemporaryDirectory(prefix="dominolab-bench-study-") as folder:
        server = ServerProcess(Path(folder) / "games.sqlite3")
        try:
            server.start(timeout=60)
            body = {"game": "luzak", "players": ["greedy", "greedy"], "matches": matches,
                    "seed": seed}
            started = time.perf_counter()
            sid = server.request("POST", "/api/studies", body)["id"]
            while True:
                state = server.request("GET", f"/api/studies/{sid}")
                if state["state"] in ("done", "failed", "cancelled"):
                    break
                if time.perf_counter() - started > DEADLINE:
                    raise RuntimeError(f"the study was not done within {DEADLINE:g} s")
                time.sleep(0.05)
            if state["state"] != "done":
                raise RuntimeError(f"the study ended {state['state']}: {state['error']}")
            played = time.perf_counter()
            report = server.request("GET", f"/api/studies/{sid}/report", timeout=120)
            ready = time.perf_counter()
        finally:
            server.stop()
    return {"matches": matches, "played_s": played - started, "report_s": ready - played,
            "total_s": ready - started, "matches_per_s": matches / (played - started),
            "figures": len(report["figures"])}


class StudyBeside:
    """A study of :func:`study_body` on the server at ``base``, from :meth:`start` (as the
    games' measured window opens) to :meth:`stop` (as it closes): its state read every
    :data:`FOLLOW_SECONDS` meanwhile, so the figures say whether it ran the whole window.
    Asked from 127.0.0.1, the server's own machine, for which the lab is on by default."""

    def __init__(self, base: str, body: dict[str, Any]) -> None:
        self.base = base
        self.body = body
        self.id: str | None = None
        self._began = 0.0
        #: when it was seen ended (seconds after :meth:`start`), if it ended in the window
        self._ended: float | None = None
        self._last: dict[str, Any] = {}
        self._failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._follow, name="study-beside",
                                        daemon=True)

    def start(self) -> None:
        """POST the study and start following it; RuntimeError naming the server's answer
        if it is refused."""
        try:
            answer = request_json(self.base, "POST", "/api/studies", self.body)
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"the server refused the study {self.body}: {exc.code} "
                               f"{exc.read()[:300]!r}") from None
        self.id = str(answer["id"])
        self._last = answer
        self._began = time.perf_counter()
        self._thread.start()

    def _follow(self) -> None:
        while not self._stop.wait(FOLLOW_SECONDS):
            self._read()
            if self._ended is None and self._last.get("state") in ("done", "cancelled",
                                                                   "failed"):
                self._ended = time.perf_counter() - self._began

    def _read(self) -> None:
        try:
            self._last = request_json(self.base, "GET", f"/api/studies/{self.id}")
        except OSError as exc:  # counted, not fatal: the games are what is measured
            self._failures.append(repr(exc)[:200])

    def stop(self) -> dict[str, Any]:
        """Stop following, cancel the study if it still runs; its figures: the matches
        asked for and played, the seconds it ran in the window (``ended_after_s``: None if
        it ran past the window's end), its matches a second, its state at the end."""
        self._stop.set()
        self._thread.join(30)
        seconds = time.perf_counter() - self._began
        self._read()
        state = self._last.get("state")
        if state not in ("done", "cancelled", "failed"):
            try:
                request_json(self.base, "POST", f"/api/studies/{self.id}/cancel", {})
            except OSError as exc:
                self._failures.append(repr(exc)[:200])
        played = int(self._last.get("done", 0))
        ran = self._ended if self._ended is not None else seconds
        return {"id": self.id, "players": self.body["players"],
                "matches": self.body["matches"], "played": played,
                "state_at_end": state, "error": self._last.get("error"),
                "ended_after_s": None if self._ended is None else round(self._ended, 2),
                "window_s": round(seconds, 2),
                "matches_per_s": round(played / ran, 1) if ran > 0 else None,
                "read_failures": len(self._failures),
                "failure_examples": self._failures[:3]}


__all__ = ["FOLLOW_SECONDS", "STUDY_PLAYER", "StudyBeside", "measure_study", "study_body"]
