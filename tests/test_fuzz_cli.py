"""Bad input on the command line is exit status 2 and a message, never a traceback.

Hypothesis drives the `dominolab` command in-process (``main(argv)`` with stdout and stderr
captured) with random texts: moves for `score`, option values, seeds, player specs and
budgets for `arena`, `simulate` and `play`, and whole record files for `replay` (random
bytes, and good records with one value replaced). Then the terminal game through a real
pseudo-terminal: digits of other scripts and a huge number are moves not understood, the
game goes on, and quitting saves the record.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pexpect
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import random_match, rng_chooser
from dominolab.cli.main import main
from dominolab.core import GAMES, OptionError, get_game, match_record
from dominolab.players import parse_player_spec

FUZZ = settings(max_examples=150, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow])

#: digits that are not 0-9 but that ``str.isdigit``, ``int`` or ``float`` take
OTHER_DIGITS = "\u00b2\u00b9\u0660\u0665\u0666\u06f5\u0966\u096b\uff10\uff15\uff16\U0001d7d8"

#: texts of every kind: any unicode, control characters, digits of other scripts,
#: numbers small and huge, notation-like texts, empty
texts = st.one_of(
    st.text(max_size=30),
    st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x1f), max_size=10),
    st.text(alphabet=OTHER_DIGITS + "0123456@*eLR", min_size=1, max_size=8),
    st.integers(min_value=-(10**40), max_value=10**40).map(str),
    st.integers(min_value=20, max_value=5000).map(lambda n: "9" * n),
    st.from_regex(r"[0-7]{1,3}(@[0-9]{0,3}[wensLRx]?)?\*?", fullmatch=True),
    st.sampled_from(["", " ", "\x00", "draw", "pass", "keep", "\u212aeep", "1e400", "NaN",
                     "-0", "+61", "\u0666\u0665", "\uff16\uff15", "\u00b2\u00b9",
                     "0" * 5000 + "1"]),
)

#: texts for the players' specs: a name, perhaps a colon, and budget-like texts
budgets = st.one_of(
    texts,
    st.builds(lambda n, u: f"{n}{u}", st.one_of(st.integers(min_value=0, max_value=10**500),
                                                st.text(OTHER_DIGITS, min_size=1, max_size=4)),
              st.sampled_from(["w", "s", "ms", "", "x"])),
)
player_specs = st.one_of(
    texts,
    st.builds(lambda name, budget: f"{name}:{budget}",
              st.sampled_from(["greedy", "random", "pimc", "expert", "hard", "nobody"]),
              budgets),
)


def run(argv: list[str]) -> tuple[int, str, str]:
    """``dominolab ARGV`` in this process: (exit status, stdout, stderr). An exception
    other than SystemExit escapes and fails the test with its traceback."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            code: Any = main(argv)
        except SystemExit as stop:  # argparse's usage errors
            code = stop.code
    return int(code or 0), out.getvalue(), err.getvalue()


def assert_clean(code: int, out: str, err: str, command: str) -> None:
    """Exit 0, or exit 2 with a message on stderr; no traceback anywhere."""
    assert "Traceback" not in out + err
    assert code in (0, 2), (code, err[-500:])
    if code == 2:
        assert err.strip(), "exit 2 without a message"
        assert err.startswith((f"dominolab {command}: ", "usage: dominolab")), err[:200]
        assert len(err) < 2000, "the message copies the input whole"


def is_valid_spec(text: str) -> bool:
    """Whether the players read ``text`` as a spec (then a command would play: skipped)."""
    try:
        parse_player_spec(text)
    except OptionError:
        return False
    except Exception:  # the CLI must turn this into exit 2; let it try
        return False
    return True


@FUZZ
@given(moves=st.one_of(texts, st.lists(texts, max_size=4).map(" ".join)),
       game=st.sampled_from(sorted(GAMES)))
def test_fuzz_score_moves(moves: str, game: str) -> None:
    """`dominolab score GAME MOVES` with any moves text."""
    assert_clean(*run(["score", game, moves]), "score")


@FUZZ
@given(name=st.one_of(st.sampled_from(["target", "even-hands", "short_ends_any_time",
                                       "edge-double", "TARGET"]), texts),
       value=st.one_of(texts, st.sampled_from(["yes", "no", "61", "10000", "10001"])),
       game=st.sampled_from(sorted(GAMES)))
def test_fuzz_option_values(name: str, value: str, game: str) -> None:
    """`--option NAME=VALUE` with any name and value; a number out of range says the range."""
    code, out, err = run(["score", game, "65", "-o", f"{name}={value}"])
    assert_clean(code, out, err, "score")
    if name == "target" and code == 2:
        assert "1 to 10000" in err


@FUZZ
@given(seed=texts, seat=texts)
def test_fuzz_seeds_and_seats(seed: str, seat: str) -> None:
    """`play --seed S --seat T`: a bad number is argparse's exit 2; a good one reaches the
    command, which stops at the unknown option given with it."""
    code, out, err = run(["play", "luzak", f"--seed={seed}", f"--seat={seat}",
                          "-o", "no-such-option=1"])
    assert_clean(code, out, err, "play")
    assert code == 2 and ("argument --se" in err or "options are" in err)


@FUZZ
@given(a=player_specs, b=player_specs, budget=st.one_of(st.none(), budgets),
       matches=st.one_of(st.just("1"), texts))
def test_fuzz_arena_players_and_budgets(a: str, b: str, budget: str | None,
                                        matches: str) -> None:
    """`arena A B --budget B --matches N`: any specs; only bad input is run, so no match
    is played."""
    if is_valid_spec(a) and is_valid_spec(b) and (budget is None or is_valid_spec(f"x:{budget}")
                                                  or is_valid_spec(f"greedy:{budget}")):
        return
    argv = ["arena", a, b, "--game", "luzak", "--workers", "1", "-o", "target=1",
            f"--matches={matches}"]
    if budget is not None:
        argv.append(f"--budget={budget}")
    code, out, err = run(argv)
    assert_clean(code, out, err, "arena")


@FUZZ
@given(a=player_specs, b=player_specs, separator=st.sampled_from([",", ";", ", ", ""]))
def test_fuzz_simulate_players(a: str, b: str, separator: str) -> None:
    """`simulate --players A,B`: any texts; valid pairs are skipped (they would play)."""
    if is_valid_spec(a) and is_valid_spec(b):
        return
    code, out, err = run(["simulate", "--game", "widelec", "--players", f"{a}{separator}{b}",
                          "--matches", "1", "--workers", "1", "--out", os.devnull])
    assert_clean(code, out, err, "simulate")


@FUZZ
@given(opponent=player_specs)
def test_fuzz_play_opponent(opponent: str) -> None:
    """`play --opponent SPEC`: a bad spec is exit 2 before any game starts."""
    if is_valid_spec(opponent):
        return
    code, out, err = run(["play", "luzak", "--seed", "1", f"--opponent={opponent}"])
    assert_clean(code, out, err, "play")
    assert code == 2


# -- records -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-records")


def _records() -> list[dict[str, Any]]:
    out = []
    for seed, game in enumerate(sorted(GAMES)):
        options = get_game(game).options_class(target=20)
        out.append(match_record(random_match(game, options, seed,
                                             rng_chooser(random.Random(seed)))))
    return out


RECORDS = _records()


def _paths(value: Any, at: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield at
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, (*at, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from _paths(inner, (*at, i))


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(min_value=-(10**40), max_value=10**40),
              st.floats(allow_nan=False, allow_infinity=False), texts),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(texts, inner, max_size=3)),
    max_leaves=6,
)


def _replay(workdir: Path, content: bytes) -> tuple[int, str, str]:
    path = workdir / "record.json"
    path.write_bytes(content)
    return run(["replay", str(path)])


@FUZZ
@given(content=st.one_of(
    st.binary(max_size=200),
    texts.map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.integers(min_value=1, max_value=300_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(min_value=1, max_value=10_000).map(lambda n: b'{"seed": ' + b"7" * n + b"}"),
    json_values.map(lambda v: json.dumps(v).encode()),
))
def test_fuzz_replay_any_file(workdir: Path, content: bytes) -> None:
    """`replay FILE` with any bytes: binary, not UTF-8, deep, huge numbers, any JSON."""
    assert_clean(*_replay(workdir, content), "replay")


@FUZZ
@given(data=st.data(), which=st.integers(min_value=0, max_value=len(RECORDS) - 1),
       value=json_values, delete=st.booleans())
def test_fuzz_replay_tampered_record(workdir: Path, data: st.DataObject, which: int,
                                     value: Any, delete: bool) -> None:
    """`replay FILE` with a good record where one value is replaced or removed."""
    record = copy.deepcopy(RECORDS[which])
    at = data.draw(st.sampled_from([p for p in _paths(record) if p]))
    parent = record
    for key in at[:-1]:
        parent = parent[key]
    if delete:
        del parent[at[-1]]
    else:
        parent[at[-1]] = value
    assert_clean(*_replay(workdir, json.dumps(record).encode()), "replay")


# -- the terminal game -----------------------------------------------------------------------

PROMPT = r"Your move(?:\x1b\[0m)? \[[^\]]*\]: "


def test_terminal_game_other_digits_and_huge_numbers_are_not_moves(tmp_path: Path) -> None:
    """`play`: ``²¹``, Arabic-Indic and fullwidth digits and a 4000-digit number are told
    not to be moves and the prompt comes back (``²¹`` crashed the game unsaved); then a
    move is played and `quit` saves a record that replays."""
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["COLUMNS"] = "100"
    child = pexpect.spawn(sys.executable, ["-m", "dominolab.cli.main", "play", "luzak",
                                           "--seed", "3", "--no-color", "--save", "r.json"],
                          cwd=str(tmp_path), env=env, encoding="utf-8", timeout=20,
                          dimensions=(50, 100))
    try:
        child.expect(PROMPT)
        for text in ("\u00b2\u00b9", "\u0666\u0664", "\uff16\uff14"):
            child.sendline(text)
            child.expect(r"is not a move: '.' \(character 1\) is not one of the plain "
                         r"digits 0-9")
            child.expect(PROMPT)
        child.sendline("9" * 4000)
        child.expect(r"there is no move 9+\.\.\.9+ here: pick 1-12")
        child.expect(PROMPT)
        child.sendline("64")
        child.expect(r"you +64 +tile 1")
        child.expect(PROMPT)
        child.sendline("quit")
        child.expect("Game record saved to r.json")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert "Traceback" not in (child.before or "")
    record = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert record["hands"][0]["moves"][0]["move"] == "64"
    done = subprocess.run([sys.executable, "-m", "dominolab.cli.main", "replay",
                           str(tmp_path / "r.json")], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
