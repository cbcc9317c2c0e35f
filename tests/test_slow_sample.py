"""``make test`` runs a sample of the tests marked slow (``--slow-sample``, tests/conftest.py):
the draw keeps exactly N of them, repeats for a seed, changes with it, and leaves every
other test alone."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent
#: a file with both: six slow reading variants beside tests that are not slow
SAMPLED = str(TESTS / "test_strength_doc.py")
#: pytest run in a subprocess, without the Hypothesis plugin (none of SAMPLED's tests use it,
#: and its import is over half of each run: ~1 s of ~2)
PYTEST = (sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def collected(*args: str) -> list[str]:
    """The test ids pytest collects from SAMPLED with ``args``."""
    done = subprocess.run([*PYTEST, "--co", "-q", SAMPLED, *args], capture_output=True,
                          text=True, timeout=120, cwd=TESTS.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_a_slow_sample_keeps_n_slow_tests_and_every_other() -> None:
    everything = collected()
    slow = {t for t in everything if "reading_variants" in t}
    assert len(slow) == 6
    two = collected("--slow-sample", "2", "--slow-seed", "a")
    assert len(set(two) & slow) == 2 and set(two) - slow == set(everything) - slow
    assert collected("--slow-sample", "2", "--slow-seed", "a") == two
    assert collected("--slow-sample", "2", "--slow-seed", "b") != two, "the seed changes nothing"
    assert set(collected("--slow-sample", "0")) == set(everything) - slow


def test_a_bad_sample_is_refused_in_one_line() -> None:
    done = subprocess.run([*PYTEST, "--co", "-q", SAMPLED, "--slow-sample", "-1"],
                          capture_output=True, text=True, timeout=120, cwd=TESTS.parent)
    assert done.returncode != 0
    assert re.search(r"--slow-sample takes a count of 0 or more, not -1", done.stderr)
    assert "Traceback" not in done.stderr
