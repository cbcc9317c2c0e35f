"""How soon a study's report is ready (docs/web.md, "The lab"; issue 42's target: 10,000
greedy Luzak matches from the click to the full report within 15 s on this 2-core machine).

A real server (``dominolab serve`` in a child process, on a throwaway SQLite file, its
default compute pool) is asked for one study of ``matches`` greedy-against-greedy Luzak
matches, as the lab's page asks (``POST /api/studies``); its state is read every 50 ms
until it is done, then its report (``GET /api/studies/ID/report``). The figures: the
seconds from the POST to the last match written, from there to the report, and in all.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from dominolab.web.edge.process import ServerProcess

#: the longest a run may take before it is called failed
DEADLINE = 600.0


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


__all__ = ["measure_study"]
