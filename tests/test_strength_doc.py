"""docs/strength.md's figures, and its experiments' log's (docs/strength/log.md), are the
runs' own: every table row that links a run's JSON record (docs/strength/*.json) shows
exactly that record's players, matches, win rate, margin and timings; every row of the page
has its record's command under "Reproduce"; and the experiments' scripts still run (issue
13, issue 40)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "strength.md"
LOG = ROOT / "docs" / "strength" / "log.md"
#: a row's link to its record: ``strength/NAME.json`` from the page, ``NAME.json`` from the log
RECORD = re.compile(r"\[record\]\((strength/)?([\w.-]+\.json)\)")


def _duration(seconds: float) -> str:
    if seconds < 0.001:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    return f"{seconds:.2f} s"


def _figures(run: dict[str, Any]) -> str:
    """The win rate and the margin a hand, each with its 95% interval, as the rows show them
    (both kinds of run write them under the same names)."""
    lo, hi = run["win_rate_ci95"]
    mlo, mhi = run["margin_ci95"]
    return (f"{100 * run['win_rate']:.1f}% [{100 * lo:.1f}%, {100 * hi:.1f}%] | "
            f"{run['margin_per_hand']:+.2f} [{mlo:+.2f}, {mhi:+.2f}]")


def arena_row(run: dict[str, Any], link: str) -> str:
    """The table row docs/strength.md shows for one arena run's JSON record."""
    t = run["seconds_per_move"]["a"]
    times = " / ".join(_duration(t[k]) for k in ("median", "p95", "max"))
    return (f"| {run['a']} | {run['b']} | {run['matches']} | {_figures(run)} | {times} | "
            f"[record]({link}) |")


def headtohead_row(run: dict[str, Any], link: str) -> str:
    """The row for a head-to-head run against OpenSpiel's bot (lab.headtohead's JSON)."""
    ours = _duration(run["seconds_per_move_taken"]["ours"]["median"])
    return (f"| {run['game']} | {run['opponent']} | {run['seconds_per_move']:g} s | "
            f"{run['hands']} | {_figures(run)} | {ours} | "
            f"{run['bot_simulations_per_move_median']:.0f} | [record]({link}) |")


def _rows(doc: Path) -> list[tuple[str, str, str]]:
    """(the row, its link, the record's name) of every table row of ``doc`` with a record."""
    return [(line, found.group(0)[9:-1], found.group(2))
            for line in doc.read_text(encoding="utf-8").splitlines()
            if (found := RECORD.search(line)) is not None and line.startswith("| ")]


PAGE_ROWS = _rows(DOC)
ROWS = PAGE_ROWS + _rows(LOG)


def test_the_docs_link_their_runs() -> None:
    assert len(PAGE_ROWS) >= 18  # 6 kinds of run in each of 3 games
    assert len(ROWS) - len(PAGE_ROWS) >= 50  # the experiments' log keeps its rows
    assert all(link.startswith("strength/") for _, link, _ in PAGE_ROWS)
    assert len(DOC.read_text(encoding="utf-8").splitlines()) < 350  # one page, not a log


@pytest.mark.parametrize(("line", "link", "name"), ROWS, ids=[name for _, _, name in ROWS])
def test_every_row_is_its_record(line: str, link: str, name: str) -> None:
    run = json.loads((ROOT / "docs" / "strength" / name).read_text(encoding="utf-8"))
    if "opponent" in run:  # a head-to-head run against OpenSpiel's bot
        assert line == headtohead_row(run, link)
    else:
        assert line == arena_row(run, link)


def reproduce_command(run: dict[str, Any]) -> str:
    """The command (without its output file) that wrote a record on docs/strength.md's page:
    the arena for a player it knows, the experiments' script for a variant, the
    head-to-head for a run against OpenSpiel's bot."""
    from dominolab.players import LEVELS, PLAYERS

    if "opponent" in run:
        return (f"python -m dominolab.cli.headtohead --game {run['game']} --opponent "
                f"{run['opponent']} --hands {run['hands']} --seconds "
                f"{run['seconds_per_move']:g} --seed {run['seed']} --workers {run['workers']}")
    if run["a"].split(":")[0] in PLAYERS or run["a"].split(":")[0] in LEVELS:
        return (f"dominolab arena {run['a']} {run['b']} --game {run['game']} --matches "
                f"{run['pairs']} --seed {run['seed']}")
    return (f"python docs/strength/experiments.py {run['a']} {run['b']} {run['game']} "
            f"{run['pairs']} {run['seed']}")


def test_every_figure_of_the_page_has_its_command() -> None:
    """Each row of docs/strength.md is reproduced by a command under its "Reproduce", the
    one its record says was run (players, game, pairs, first seed), writing that record."""
    block = DOC.read_text(encoding="utf-8").split("\n## Reproduce\n", 1)[1]
    commands = block.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    for _, _, name in PAGE_ROWS:
        run = json.loads((ROOT / "docs" / "strength" / name).read_text(encoding="utf-8"))
        wanted = reproduce_command(run)
        assert any(c.startswith(wanted + " ") and c.endswith(f"> docs/strength/{name}")
                   for c in commands), (name, wanted)


def test_the_experiments_script_runs() -> None:
    """The script that reran the experiments of docs/strength.md still runs (a tiny run), and
    names a bad variant, player, budget, game or number before it plays, exit 2."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "strength" / "experiments.py"),
         "ismcts-immediate-c0.7-w0:50w", "pimc-inferred-match:20w", "luzak", "1", "7"],
        capture_output=True, text=True, timeout=120, check=True)
    run = json.loads(out.stdout)
    assert run["a"] == "ismcts-immediate-c0.7-w0:50w" and run["matches"] == 2
    for bad, named in ((["expert-kind1.5:50w", "greedy", "luzak", "1", "7"], "prior"),
                       (["expert-reads-g0-f0.1:50w", "greedy", "luzak", "1", "7"], "samples"),
                       (["nosuch", "greedy", "luzak", "1", "7"], "no player 'nosuch'"),
                       (["expert:50q", "greedy", "luzak", "1", "7"], "'50q' is not a budget"),
                       (["expert:50w", "greedy", "nogame", "1", "7"], "no game 'nogame'"),
                       (["expert:50w", "greedy", "luzak", "0", "7"], "at least 1"),
                       (["expert:50w", "greedy", "luzak", "x", "7"], "whole numbers")):
        refused = subprocess.run(  # named before any play, exit 2
            [sys.executable, str(ROOT / "docs" / "strength" / "experiments.py"), *bad],
            capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2 and named in refused.stderr, bad
        assert "Traceback" not in refused.stderr and not refused.stdout


def test_the_inference_script_runs() -> None:
    """The predictive measure of docs/strength.md's opponent models still runs (a tiny run:
    the rules alone, one soft-greedy model, the searching model, a greedy model and the
    calibrated model of a PIMC player, on a few positions)."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "strength" / "inference.py"), "luzak-line",
         "greedy", "6", "0.5,0.2", "searching:4,8", "greedy:16,0.05", "calibrated:3,0.3"],
        capture_output=True, text=True, timeout=120, check=True)
    lines = out.stdout.splitlines()
    assert len(lines) == 5 and all(line.startswith("luzak-line\tgreedy\t") for line in lines)
    assert "sharpness 0.5\tfloor 0.2\tBrier 0." in lines[1]
    assert "searching:4,8\tBrier 0." in lines[2]
    assert "greedy:16,0.05\tBrier 0." in lines[3]
    assert "calibrated:3,0.3\tBrier 0." in lines[4]
    for bad in ("calibrated:3", "searching:x", "1,2,3"):  # named before any play, exit 2
        refused = subprocess.run(
            [sys.executable, str(ROOT / "docs" / "strength" / "inference.py"), "luzak-line",
             "greedy", "6", bad], capture_output=True, text=True, timeout=60)
        assert refused.returncode == 2 and f"no model {bad!r}" in refused.stderr
        assert "Traceback" not in refused.stderr and not refused.stdout


def test_the_agreement_script_runs() -> None:
    """The measure of how much a PIMC player's choice says of its hand still runs (a tiny
    run)."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "strength" / "agreement.py"), "widelec", "1",
         "4"], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.startswith("widelec\t4 deals\t") and "\talike " in out.stdout


def test_the_calibration_script_runs() -> None:
    """The check of the match's chance against who won still runs (a tiny run)."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "strength" / "calibration.py"), "widelec", "20"],
        capture_output=True, text=True, timeout=120, check=True)
    last = out.stdout.splitlines()[-1]
    assert last.startswith("widelec\tlog-loss 0.") and last.endswith(" of 20 matches")


def test_the_regret_script_runs() -> None:
    """The judge of the expert's opening leads still runs (a tiny run); its regrets are
    never below zero."""
    script = str(ROOT / "docs" / "strength" / "regret.py")
    out = subprocess.run([sys.executable, script, "luzak-line", "1", "--opening", "50,100"],
                         capture_output=True, text=True, timeout=120, check=True)
    lines = out.stdout.splitlines()
    assert [line.split("\t")[1] for line in lines] == ["opening lead at 50 iterations",
                                                       "opening lead at 100 iterations"]
    assert all(float(line.split("\t")[2].split()[1]) >= 0.0 for line in lines)


@pytest.mark.parametrize(("script", "args", "said"), [
    ("calibration.py", ["nosuch", "5"], "no game 'nosuch'"),
    ("calibration.py", ["luzak", "0"], "MATCHES"),
    ("calibration.py", ["luzak", "x"], "MATCHES"),
    ("regret.py", ["nosuch", "5"], "no game 'nosuch'"),
    ("regret.py", ["luzak", "0"], "MATCHES"),
    ("regret.py", ["luzak", "2", "--opening", "10,x"], "MATCHES"),
    ("regret.py", ["luzak", "2", "--other", "10"], "MATCHES"),
])
def test_the_measuring_scripts_refuse_bad_arguments(script: str, args: list[str],
                                                    said: str) -> None:
    """A game that is not one, or counts that are not whole numbers from 1, are refused
    with a message, not a traceback."""
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "strength" / script), *args],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and said in out.stderr and "Traceback" not in out.stderr


def test_the_world_by_world_prototype_runs() -> None:
    """The world-by-world opponent model's measure still runs (a tiny run)."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "strength" / "inference_search.py"), "luzak-line",
         "greedy", "6", "10", "2", "0.1", "4"],
        capture_output=True, text=True, timeout=120, check=True)
    lines = out.stdout.splitlines()
    assert [line.split("\t")[2] for line in lines] == ["rules alone", "model"]


@pytest.mark.slow  # seconds each: the reading costs up to half a second a move
@pytest.mark.parametrize(("variant", "opponent"), [("expert-searching-n4-k8:50w", "pimc:8w"),
                                                   ("expert-greedy-n16-f0.05:50w", "greedy"),
                                                   ("expert-follows0:50w", "greedy"),
                                                   ("expert-set-c0.7-w0.5-f0:50w", "greedy"),
                                                   ("expert-kind0.99:50w", "greedy"),
                                                   ("expert-reads-g16-f0.05-k0.9:50w",
                                                    "greedy")])
def test_the_reading_variants_run(variant: str, opponent: str) -> None:
    """The expert with the searching opponent model, with another greedy model, following
    the greedy in its tree another share of the time, with its knobs set, told the odds
    of its opponent's kind, or both that and another greedy model, runs as an experiment (a
    tiny run, in this process: the script's sixth argument is the number of workers)."""
    out = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "strength" / "experiments.py"),
         variant, opponent, "luzak-line", "1", "7", "1"],
        capture_output=True, text=True, timeout=120, check=True)
    run = json.loads(out.stdout)
    assert run["a"] == variant and run["matches"] == 2


def test_the_pooling_script_pools_and_refuses(tmp_path: Path) -> None:
    """Records of one run continued from a later seed pool over all their pairs; records of
    other players, that play a match seed twice, malformed, too few pairs or no record at
    all are refused by name."""
    script = str(ROOT / "docs" / "strength" / "pooled.py")
    first: dict[str, Any] = {"a": "x", "b": "greedy", "game": "widelec", "options": {},
                             "seed": 10, "by_pair": [[0, 2, 6, 3], [1, 1, 0, 3]]}
    later = {**first, "seed": 12, "by_pair": [[0, 0, -3, 3], [1, 1, 3, 3]]}
    names = []
    records: tuple[object, ...] = (first, later, {**later, "b": "pimc"},
                                   {**later, "by_pair": [[0, "1", 2, 3]]},
                                   {**first, "by_pair": [[0, 2, 6, 3]]}, [first])
    for i, record in enumerate(records):
        names.append(str(tmp_path / f"{i}.json"))
        Path(names[-1]).write_text(json.dumps(record), encoding="utf-8")
    run = subprocess.run([sys.executable, script, names[0], names[1]], capture_output=True,
                         text=True, timeout=60, check=True)
    assert run.stdout.startswith("x against greedy in widelec, 4 pairs: wins 50.0% [")
    assert "margin a hand +0.50 [" in run.stdout
    for given, said in (((0, 0), "match seed 10 is in two"), ((0, 2), "differs in b"),
                        ((0, 3), "record 2 has a malformed pair"),
                        ((4,), "1 pair(s) in all"), ((5, 0), "record 1 is not an arena")):
        bad = subprocess.run([sys.executable, script, *(names[n] for n in given)],
                             capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and said in bad.stderr and "Traceback" not in bad.stderr
