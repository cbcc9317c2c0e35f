"""`dominolab play` driven through a real pseudo-terminal (pexpect)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

PROMPT = r"Your move(?:\x1b\[0m)? \[[^\]]*\]: "
NEXT_HAND = r"Press Enter for hand \d+ \(or quit\): "
TIMEOUT = 20
#: hints and reviews think little in tests
FAST_HINTS = {"DOMINOLAB_HINT_BUDGET": "30w"}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env.update(extra)
    env["COLUMNS"] = "100"
    return env


def _default_sigint() -> None:
    """In the child: Ctrl-C as a person's terminal has it. A suite started in the
    background by a non-interactive shell inherits SIGINT ignored, and Python then never
    turns Ctrl-C into KeyboardInterrupt, so the Ctrl-C tests waited in vain."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _spawn(cwd: Path, *args: str, **env: str) -> pexpect.spawn:
    child = pexpect.spawn(sys.executable, ["-m", "dominolab.cli.main", "play", *args],
                          cwd=str(cwd), env=_env(**env), encoding="utf-8",
                          timeout=TIMEOUT, dimensions=(50, 100),
                          preexec_fn=_default_sigint)
    return child


def _play_out(child: pexpect.spawn, answer: str = "1") -> str:
    """Answer every prompt with ``answer`` until the match ends; return the whole screen."""
    screen = []
    for _ in range(400):
        index = child.expect([PROMPT, r"Match over[^\n]*\n", NEXT_HAND])
        screen.append(child.before + child.after)
        if index == 1:
            break
        child.sendline(answer if index == 0 else "")
    else:
        pytest.fail("the match did not end")
    child.expect(pexpect.EOF)
    screen.append(child.before)
    child.close()
    assert child.exitstatus == 0
    return "".join(screen).replace("\r\n", "\n")


def _replay(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dominolab.cli.main", "replay", str(path),
                           "--show"], capture_output=True, text=True, timeout=TIMEOUT,
                          check=False)


def test_full_luzak_hand(tmp_path: Path) -> None:
    child = _spawn(tmp_path, "luzak", "--seed", "3", "--no-color", "--option", "target=1",
                   "--option", "even-hands=no", "--opponent", "greedy", **FAST_HINTS)
    screen = _play_out(child)
    assert "Seed 3" in screen
    assert "Opponent: easy (greedy)." not in screen and "Opponent: greedy." in screen
    assert "Hand 1: you open" in screen
    assert "Table (2 tiles, count 1):" in screen
    assert "  2e:1 [1|0][0|0] 1e:0\n" in screen  # the table, free ports labelled
    assert "spinner [0|0] (tile 1): n-> 1n:0   s-> 1s:0" in screen
    assert "Next tile is N=3: it scores if the count is then divisible by 3." in screen
    assert "Computer holds 11 tiles." in screen
    assert "Hand: [2|2] [3|1] [3|3] [4|0]" in screen
    assert re.search(r" 1\) 13@2e +\[1\|3\] on port 2e \(shows 1\)", screen)
    assert re.search(r"you +00 +tile 1, count 0 scores nothing", screen)
    assert re.search(r"computer 01@1w +tile 2, count 1 not divisible by 2", screen)
    assert re.search(r"tile \d+, count \d+ divisible by \d+: \+\d+", screen)
    assert "Hand 1 over: 12 tiles are on the table." in screen
    # the review of your moves comes after the hand, before the match's end
    assert re.search(r"Your moves that cost the most \(of \d+ choices; the expert's view\):\n"
                     r"  tile +\d+: you played \S+ +win chance +[<>]?\d+%, margin +[-+]\d+\.\d  "
                     r"cost [\d.]+% win chance", screen)
    assert re.search(r"better: +\S+ +win chance +[<>]?\d+%, margin", screen)
    assert screen.index("Hand 1 over") < screen.index("Your moves that cost the most") \
        < screen.index("Match over after 1 hand")
    record_path = tmp_path / "dominolab-luzak-3.record.json"
    record = json.loads(record_path.read_text())
    assert record["players"] == ["you", "computer:greedy"]
    assert len(record["hands"][0]["moves"]) == 12
    done = _replay(record_path)
    assert done.returncode == 0, done.stderr
    assert "every stored figure checks out" in done.stdout


def test_full_widelec_hand(tmp_path: Path) -> None:
    save = tmp_path / "w.json"
    child = _spawn(tmp_path, "kwartety", "--seed", "5", "--no-color", "--save", str(save),
                   "--option", "target=1", "--option", "win-at-once=no", "--seat", "1",
                   "--opponent", "random", **FAST_HINTS)
    screen = _play_out(child)
    assert "Widelec" in screen
    assert "You are seat 1" in screen
    assert re.search(r"End tiles: \[\d\|\d\] \(left\) and \[\d\|\d\] \(right\)", screen)
    assert re.search(r"Boneyard: \d+ tiles", screen)
    assert re.search(r"L:\d \[\d\|\d\]", screen)
    assert re.search(r" 1\) \d\d@[LR] ", screen)
    assert re.search(r"tile \d+, ends \[\d\|\d\] \[\d\|\d\]", screen)
    assert re.search(r"Hand 1 over: ", screen)
    assert re.search(r"Pips left: you \d+, computer \d+", screen)
    assert re.search(r"Your moves that cost the most|Review: none of your \d+ choices?", screen)
    # the computer's draws never say which tile it drew
    assert not re.search(r"computer draw +drew \[", screen)
    assert _replay(save).returncode == 0


def test_bad_input_reprompts_and_quit_saves(tmp_path: Path) -> None:
    # the greedy opponent answers 64 with 44@1e on either path (the native search of the
    # default level draws its worlds from a stream of its own)
    child = _spawn(tmp_path, "luzak", "--seed", "3", "--no-color", "--opponent", "greedy")
    child.expect(PROMPT)
    child.sendline("99")
    child.expect(r"there is no move 99 here: pick 1-12")
    child.expect(PROMPT)
    child.sendline("zz")
    child.expect(r"'zz' is not a move")
    child.expect(PROMPT)
    child.sendline("55")
    child.expect(r"\[5\|5\] is not in the hand")
    child.expect(PROMPT)
    child.sendline("help")
    child.expect("Ports are named by tile number")
    child.expect(PROMPT)
    child.sendline("64")
    child.expect(r"you +64 +tile 1")
    child.expect(PROMPT)
    child.sendline("40")  # [4|0] fits three ports: ambiguous
    child.expect(r"ambiguous here; pick one: 1\) 40@2e, 2\) 40@2n, 3\) 40@2s")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(r"Game record saved to dominolab-luzak-3.record.json")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    record = json.loads((tmp_path / "dominolab-luzak-3.record.json").read_text())
    assert [m["move"] for m in record["hands"][0]["moves"]] == ["64", "44@1e"]
    done = _replay(tmp_path / "dominolab-luzak-3.record.json")
    assert done.returncode == 0, done.stderr
    assert "unfinished" in done.stdout


def test_ctrl_c_and_end_of_input_save(tmp_path: Path) -> None:
    child = _spawn(tmp_path, "luzak-line", "--seed", "8", "--no-color", "--save", "a.json")
    child.expect(PROMPT)
    child.sendintr()
    child.expect("Game record saved to a.json")
    child.expect(pexpect.EOF)
    child.close()
    assert _replay(tmp_path / "a.json").returncode == 0

    child = _spawn(tmp_path, "luzak-line", "--seed", "8", "--no-color", "--save", "b.json")
    child.expect(PROMPT)
    child.sendeof()
    child.expect("Game record saved to b.json")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert _replay(tmp_path / "b.json").returncode == 0


def test_random_seed_is_printed(tmp_path: Path) -> None:
    child = _spawn(tmp_path, "widelec", "--no-color")
    child.expect(r"Seed (\d+) \(play this match again with --seed \d+\)")
    seed = child.match.group(1)
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert (tmp_path / f"dominolab-widelec-{seed}.record.json").exists()


def test_colour_only_when_wanted(tmp_path: Path) -> None:
    child = _spawn(tmp_path, "luzak", "--seed", "3")
    child.expect(PROMPT)
    assert "\x1b[" in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child = _spawn(tmp_path, "luzak", "--seed", "3", NO_COLOR="1")
    child.expect(PROMPT)
    assert "\x1b[" not in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)


def test_unknown_option_is_a_clean_error(tmp_path: Path) -> None:
    child = _spawn(tmp_path, "luzak", "--seed", "3", "--option", "nonsense=1")
    child.expect("luzak options are")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2


def test_hint_shows_the_best_moves(tmp_path: Path) -> None:
    child = _spawn(tmp_path, "luzak", "--seed", "3", "--no-color", "--opponent", "greedy",
                   **FAST_HINTS)
    child.expect(PROMPT)
    child.sendline("hint")
    child.expect(r"Hint: the expert's best moves \(30 deals of the hidden tiles tried")
    child.expect(PROMPT)
    hint = child.before.replace("\r\n", "\n")
    rows = re.findall(r"^ +(\d+)\) (\S+)  win chance \d+%", hint, re.MULTILINE)
    assert len(rows) == 3
    assert len({number for number, _ in rows}) == 3
    assert "(best), expected margin" in hint
    assert hint.count("vs the best: ") == 2
    assert "(9 more moves rated lower.)" in hint
    # the numbers are the move list's: playing the best one by its number plays that move
    number, move = rows[0]
    child.sendline(number)
    child.expect(rf"you +{re.escape(move)} +tile 1")
    child.expect(PROMPT)
    child.sendline("help")
    child.expect("hint \\(the expert's three best moves")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_review_after_each_hand_and_wait_for_the_next(tmp_path: Path) -> None:
    child = _spawn(tmp_path, "luzak-line", "--seed", "4", "--no-color", "--opponent",
                   "easy", "--option", "target=200", **FAST_HINTS)
    child.expect("Opponent: easy \\(greedy\\).")
    for _ in range(20):
        if child.expect([PROMPT, NEXT_HAND]) == 1:
            break
        child.sendline("1")
    else:
        pytest.fail("hand 1 did not end")
    screen = child.before.replace("\r\n", "\n")
    assert "Hand 1 over" in screen
    assert re.search(r"Your moves that cost the most|Review: none of your", screen)
    child.sendline("")
    child.expect("Hand 2: ")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_opponents_by_level_player_and_budget(tmp_path: Path) -> None:
    child = _spawn(tmp_path, "widelec", "--seed", "2", "--no-color", "--opponent",
                   "expert:0.2s")
    child.expect("Opponent: expert, 0.2s.")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child = _spawn(tmp_path, "widelec", "--seed", "2", "--no-color", "--opponent", "hard")
    child.expect("Opponent: hard \\(expert, 40000w\\).")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child = _spawn(tmp_path, "widelec", "--seed", "2", "--no-color", "--opponent", "omniscient")
    child.expect("sees every tile")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    child = _spawn(tmp_path, "widelec", "--seed", "2", "--opponent", "wizard")
    child.expect("no player 'wizard'")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2


def test_ctrl_c_skips_a_slow_review(tmp_path: Path) -> None:
    """The review of several moves at 2 s each is interrupted in its first; the skip comes
    as that position's search ends (a budget of 10 s a move made the test wait that long)."""
    child = _spawn(tmp_path, "luzak", "--seed", "3", "--no-color", "--option", "target=1",
                   "--option", "even-hands=no", "--opponent", "greedy",
                   DOMINOLAB_HINT_BUDGET="1000000w,2s")
    for _ in range(12):
        if child.expect([PROMPT, r"Reviewing your \d+ moves… \(Ctrl-C skips\)"]) == 1:
            break
        child.sendline("1")
    child.sendintr()
    child.expect("Review skipped.")
    child.expect("Match over after 1 hand")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
