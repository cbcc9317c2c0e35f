"""The console examples in the docs are what the commands print (docs/notation.md)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from dominolab.cli.main import main

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def console_examples(path: Path) -> list[tuple[str, str]]:
    examples = []
    for block in BLOCK.findall(path.read_text(encoding="utf-8")):
        command, _, output = block.partition("\n")
        assert command.startswith("$ dominolab "), command
        examples.append((command[2:], output))
    return examples


NOTATION = console_examples(ROOT / "docs" / "notation.md")


def test_notation_doc_has_every_worked_example() -> None:
    """RULES.md §6: L1-L5, V1 and W2 are shown in docs/notation.md."""
    assert len(NOTATION) >= 8


@pytest.mark.parametrize(("command", "expected"), NOTATION, ids=[c for c, _ in NOTATION])
def test_notation_doc_example_output(command: str, expected: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = shlex.split(command)[1:]
    assert main(argv) == 0
    assert capsys.readouterr().out == expected


README = console_examples(ROOT / "README.md")


@pytest.mark.parametrize(("command", "expected"), README, ids=[c for c, _ in README])
def test_readme_console_output(command: str, expected: str,
                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out == expected


def test_readme_python_examples() -> None:
    """The README's Python session runs as shown (doctest)."""
    import doctest

    failures, tried = doctest.testfile(str(ROOT / "README.md"), module_relative=False,
                                       optionflags=doctest.ELLIPSIS)
    assert tried > 0
    assert failures == 0


WEB = (ROOT / "docs" / "web.md").read_text(encoding="utf-8")


def test_web_doc_gives_the_levels_ratings_of_the_code() -> None:
    """docs/web.md's computer-level ratings are LEVEL_RATINGS, in the order it names."""
    from dominolab.players.ratings import LEVEL_RATINGS

    found = re.search(r"easy (\d+) in every game, medium (\d+) / (\d+) / (\d+) and\s+"
                      r"hard (\d+) / (\d+) / (\d+) in Luzak / Luzak without spinners / Widelec",
                      WEB)
    assert found, "docs/web.md no longer says the levels' ratings in the sentence checked here"
    easy, *rest = (int(n) for n in found.groups())
    games = ("luzak", "luzak-line", "widelec")
    assert {game: LEVEL_RATINGS[game]["easy"] for game in games} == dict.fromkeys(games, easy)
    assert rest[:3] == [LEVEL_RATINGS[game]["medium"] for game in games]
    assert rest[3:] == [LEVEL_RATINGS[game]["hard"] for game in games]


def test_web_doc_gives_the_default_database_of_the_code(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """docs/web.md's default `--db` is serve's: $DOMINOLAB_DB, else the XDG data folder."""
    from dominolab.cli.serve import default_db

    found = re.search(r"The database is `--db`, else `\$DOMINOLAB_DB`,\s+else `~/([^`]+)` "
                      r"\(under `\$XDG_DATA_HOME` when that is set\)", WEB)
    assert found, "docs/web.md no longer says the default database in the sentence checked here"
    shown = Path(found.group(1))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("DOMINOLAB_DB", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert default_db() == tmp_path / shown
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db() == tmp_path / "data" / shown.relative_to(".local/share")
    monkeypatch.setenv("DOMINOLAB_DB", str(tmp_path / "given.sqlite3"))
    assert default_db() == tmp_path / "given.sqlite3"
    # the synopsis names no file that is not the default
    assert "[--db FILE | postgresql://...]" in WEB.splitlines()[2]


# -- every command the docs show runs (issue 40) ----------------------------------------------
#
# Every command line in README.md and docs/*.md — in code blocks, and inline `dominolab ...` /
# `make ...` spans — is found and either run with small sizes, or checked by the real parser
# (the shell's `for` loops run their body once, for the loop's first value). The experiments'
# log (docs/strength/log.md) and docs/web/ keep the commands of runs already made; they are
# records, not instructions, and are not run.

import argparse  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402

from dominolab.cli.main import build_parser  # noqa: E402

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: a fenced block: its info string (```sh, ```text) and its lines; a ```text block shows
#: what a command prints, not a command
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)
INLINE = re.compile(r"`((?:dominolab|make) [^`]+)`")
PROGRAMS = ("dominolab ", "make ", "python ", "python3 ", ".venv/bin/python ",
            "/opt/dominolab/venv/bin/dominolab ")
#: the sizes a command is run with: (option, the value it is run with)
SMALL = (("--matches", "1"), ("--games", "2"), ("--seconds", "0.2"), ("--hands", "2"),
         ("--timesteps", "64"), ("--self-play", "32"), ("--check", "10"),
         ("--simulations", "8"))
#: what a command names but does not show, at the small size: (the command's file, option,
#: value) (the MaskablePPO example measures 2,000 hands by default)
SMALL_DEFAULTS = (("docs/examples/maskable_ppo.py", "--hands", "2"),)
#: a budget per move in iterations or worlds is run at 20 (a budget in seconds stays)
BUDGET = re.compile(r":\d+w\b")
#: commands shown that start something long-running or need what a test run does not have:
#: checked by the real parser (dominolab) or the Makefile (make), never run
PARSE_ONLY = {
    "serve": "starts a web server that runs until stopped",
    "play": "an interactive match in the terminal",
    "backup": "needs a games database a server has written",
    "restore": "needs a backup of a games database",
    "admin": "needs a games database with players in it",
    "bench serve": "starts real servers (and nginx, PostgreSQL) for tens of seconds",
}
#: shown commands of other programs, not run, with why
NOT_RUN = {
    "python tests/pgserver.py": "starts a throwaway PostgreSQL server that runs until stopped",
    "python3 -m venv": "makes a virtual environment for the deployment (docs/deploy.md)",
    "dominolab seat ": "not a command: the text a lobby seat's token is an HMAC of",
    "dominolab game seat ": "not a command: the text a game seat's token is an HMAC of",
}


def _shell_lines(block: str) -> list[str]:
    """The command lines of a code block: continuations joined, prompts and comments cut, a
    `for` loop's body with its variable set to the loop's first value."""
    joined = re.sub(r"\\\n\s*", " ", block)
    lines: list[str] = []
    loops: dict[str, str] = {}
    for raw in joined.splitlines():
        line = raw.strip().removeprefix("$ ")
        if (loop := re.match(r"for (\w+) in (\S+)[^;]*; do\s*(.*)$", line)) is not None:
            loops[loop.group(1)] = loop.group(2)
            line = loop.group(3)
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        line = re.sub(r";?\s*done$", "", line).strip()
        for name, value in loops.items():
            line = re.sub(rf'"?\$\{{?{name}\}}?"?', value, line)
        for part in line.split("; "):
            if part.startswith(PROGRAMS):
                lines.append(part.strip())
    return lines


def shown_commands(path: Path) -> list[str]:
    """Every command line ``path`` shows, in order, each once."""
    text = path.read_text(encoding="utf-8")
    found = [line for info, block in FENCE.findall(text) if info.strip() != "text"
             for line in _shell_lines(block)]
    found += re.findall(r"^    (dominolab .+)$", text, re.M)  # indented code
    outside = FENCE.sub("", text)
    found += [" ".join(span.split()) for span in INLINE.findall(outside)]
    return list(dict.fromkeys(re.sub(r"\s+#.*$", "", c).strip() for c in found))


def is_synopsis(command: str) -> bool:
    """A synopsis (``dominolab simulate --game GAME [--players A,B]``), not a command."""
    words = shlex.split(command.replace("|", " "), posix=True) if command.count('"') % 2 == 0 \
        else command.split()
    return "[" in command or "<" in command or "..." in command or " | " in command or any(
        re.fullmatch(r"[A-Z][A-Z_.]*(=\S*)?", w) and w not in ("MOVES",) for w in words[1:])


COMMANDS = [(path.relative_to(ROOT).as_posix(), c) for path in DOCS for c in shown_commands(path)]
#: the runs that take seconds even at the smallest sizes, marked slow: a searching player
#: (its reading of the opponent costs up to half a second a move whatever its budget), the
#: players' benchmark, and the runs against OpenSpiel's bots
SLOW = re.compile(r"(?<![\w-])(expert|omniscient)[\w.-]*:|bench players|openspiel_ismcts|"
                  r"headtohead --game")
CASES = [pytest.param(d, c, id=f"{d}: {c}", marks=[pytest.mark.slow] if SLOW.search(c) else [])
         for d, c in COMMANDS]


def _subparser(words: list[str]) -> tuple[argparse.ArgumentParser, list[str]]:
    """The parser of the (sub)command ``words`` name, and the words after its name."""
    parser = build_parser()
    rest = words
    while True:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs or not rest or rest[0] not in subs[0].choices:
            return parser, rest
        parser, rest = subs[0].choices[rest[0]], rest[1:]


def _small(words: list[str]) -> list[str]:
    out = list(words)
    for i, word in enumerate(out):
        for option, value in SMALL:
            if word == option and i + 1 < len(out):
                out[i + 1] = _smaller(out[i + 1], value)
            elif word.startswith(option + "="):
                out[i] = f"{option}={_smaller(word.partition('=')[2], value)}"
        out[i] = BUDGET.sub(":20w", out[i])
    for program, option, value in SMALL_DEFAULTS:
        if out[:1] == [program] and option not in out:
            out += [option, value]
    if out[:1] == ["simulate"] and "--out" not in out:  # the doc's runs share default names
        out.append("--force")
    if out[:2] == ["bench", "study"] and "--study" not in out:  # the server, not 10,000
        out += ["--study", "300"]
    if out[:1] == ["bench"] and "--check" not in out:  # a benchmark times one game briefly
        out += [] if "--seconds" in out else ["--seconds", "0.2"]
        out += [] if "--game" in out else ["--game", "luzak"]
    return out


def _smaller(shown: str, small: str) -> str:
    """The small size, unless the doc shows a smaller one (``--timesteps 0``, the baseline
    that trains nothing, stays 0)."""
    try:
        return shown if float(shown) < float(small) else small
    except ValueError:
        return small


def _make_targets() -> set[str]:
    return set(re.findall(r"^([a-z][\w-]*):", (ROOT / "Makefile").read_text(encoding="utf-8"),
                          re.M))


def test_the_docs_show_commands() -> None:
    """The finder finds the commands (a broken finder must not pass everything)."""
    shown = [c for _, c in COMMANDS]
    assert len(shown) >= 60
    assert "make play" in shown
    assert any(c.startswith("dominolab simulate --game luzak --players greedy,") for c in shown)
    assert any(c.startswith("python -m dominolab.cli.headtohead") for c in shown)


def _flags_known(parser: argparse.ArgumentParser, command: str) -> None:
    known = {o for a in parser._actions for o in a.option_strings}
    flags = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", command))
    assert flags <= known | {"--version"}, (command, flags - known)


def _parses(words: list[str], command: str, capsys: pytest.CaptureFixture[str]) -> None:
    """The real parser takes the arguments; a fragment shown in passing (an option named
    without its value, a command without its required arguments) may lack a value."""
    try:
        build_parser().parse_args(words)
    except SystemExit:
        said = capsys.readouterr().err
        assert "required" in said or "expected one argument" in said, (command, said)


_FOLDERS: dict[str, Path] = {}


@pytest.mark.parametrize(("doc", "command"), CASES)
def test_every_shown_command_runs(doc: str, command: str, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch,
                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    """Each command runs with small sizes, exit 0 and no traceback; a synopsis names only
    options its command has; a long-running command parses; `make` names a target."""
    for prefix, why in NOT_RUN.items():
        if command.startswith(prefix):
            assert why
            return
    # one folder a doc, so a command can read the files its doc's earlier commands wrote
    folder = _FOLDERS.setdefault(doc, tmp_path_factory.mktemp("doc"))
    redirect = command.split(" > ", 1)[0]  # a shown `> file` is not written here
    words = shlex.split(redirect.replace("|", " ") if is_synopsis(redirect) else redirect)
    if words[0] == "make":
        assert set(w for w in words[1:] if "=" not in w) <= _make_targets(), command
        return
    if words[0].endswith("/dominolab") or words[0] == "dominolab":
        words = ["dominolab", *words[1:]]
        parser, rest = _subparser(words[1:])
        name = " ".join(words[1:3])
        if not rest and len(words) == 2 and words[1] != "--version":
            return  # the command named in passing: _subparser found it
        _flags_known(parser, redirect)
        if is_synopsis(redirect):
            return
        if "--help" not in words and (name in PARSE_ONLY or words[1] in PARSE_ONLY
                                      or "--scheduler" in words):
            # (a run on a Dask cluster needs the cluster: its arguments are parsed)
            _parses(_small(words[1:]), command, capsys)
            return
        monkeypatch.chdir(folder)
        try:
            status = main(_small(words[1:]))
        except SystemExit as stop:  # --help and --version end so
            status = stop.code if isinstance(stop.code, int) else 1
        assert status == 0, (command, capsys.readouterr().err[-2000:])
        return
    elif "python" in words[0]:
        if is_synopsis(redirect):
            return _check_synopsis_of_module(words)
        words = [sys.executable, *_small(words[1:])]
        if words[1] == "docs/strength/experiments.py":
            words[5] = "1"  # its fourth argument is the number of duplicate pairs
    else:
        raise AssertionError(f"{doc}: no rule for {command!r}")
    run = subprocess.run([w.replace("docs/", str(ROOT / "docs") + "/", 1)
                          if w.startswith("docs/") else w for w in words],
                         cwd=folder, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert run.returncode == 0 and "Traceback" not in run.stderr, (words, run.stderr[-2000:])


def _check_synopsis_of_module(words: list[str]) -> None:
    """A shown synopsis of ``python -m MODULE``: every option it names is one the module's
    --help lists."""
    flags = {w.split("=")[0] for w in words if w.startswith("--")}
    out = subprocess.run([sys.executable, *words[1:3], "--help"], capture_output=True,
                         text=True, timeout=60, env={**os.environ,
                                                     "PYTHONPATH": str(ROOT / "src")})
    assert out.returncode == 0
    assert all(flag in out.stdout for flag in flags), flags


def test_every_help_renders_without_a_doubled_percent(capsys: pytest.CaptureFixture[str]) -> None:
    """Every command's and subcommand's --help renders, and shows no `%%` (argparse formats
    argument help with %, not a description: a `%%` in the wrong one is printed as is)."""
    def walk(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        return [parser, *(p for s in subs for child in s.choices.values() for p in walk(child))]

    parsers = walk(build_parser())
    assert len(parsers) > 15
    for parser in parsers:
        text = parser.format_help()
        assert "%%" not in text, (parser.prog, text)
        assert "usage:" in text


# -- the figures the docs quote, where a seeded run gives them --------------------------------

LAB = (ROOT / "docs" / "lab.md").read_text(encoding="utf-8")
#: docs/lab.md's study: a table row's label -> the report's figure it shows
STUDY_ROWS = {"points a hand, each seat": "points per hand (each seat)",
              "points a completed hand, each seat": "points per hand (each seat)",
              "opener's advantage a hand (points)": "opener advantage per hand (points)",
              "match length (hands)": "match length (hands)",
              "luzaks a hand": "luzaks per hand",
              "points a luzak hands over": "luzak cost: points handed over per luzak",
              "quartets a hand": "quartets per hand",
              "quartet points a hand": "quartet points per hand"}
NUMBER = re.compile(r"-?\d+\.\d+")


def _report_figures(text: str) -> dict[str, list[str]]:
    """The report's figures: a figure's name -> the numbers of its first two files' cells."""
    figures = {}
    for line in text.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) >= 3 and cells[0] in STUDY_ROWS.values():
            figures[cells[0]] = NUMBER.findall(cells[1]) + NUMBER.findall(cells[2])
    return figures


@pytest.mark.parametrize(("section", "files"), [
    ("### Luzak with spinners and without", ("g-luzak.jsonl", "g-luzak-line.jsonl")),
    ("### Widelec with a double", ("g-widelec-edge-double=yes.jsonl",
                                   "g-widelec-edge-double=no.jsonl"))])
def test_the_lab_study_shows_its_runs_figures(section: str, files: tuple[str, str],
                                             capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    """docs/lab.md's study: the greedy columns are what its commands give today, at the
    doc's own size (2,000 matches a variant, seed 1; about a second a run natively)."""
    monkeypatch.chdir(tmp_path)
    block = LAB.split("## A study:", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    for command in _shell_lines(block):
        words = shlex.split(command)
        if words[1] == "simulate" and words[words.index("--out") + 1] in files:
            assert main(words[1:]) == 0
    capsys.readouterr()
    assert main(["report", *files]) == 0
    figures = _report_figures(capsys.readouterr().out)
    table = LAB.split(section, 1)[1].split("\n###", 1)[0]
    checked = 0
    for row in table.splitlines():
        cells = [c.strip() for c in row.strip("|").split("|")]
        if cells[0] in STUDY_ROWS:
            shown = NUMBER.findall(cells[1]) + NUMBER.findall(cells[2])
            assert shown == figures[STUDY_ROWS[cells[0]]], (cells[0], shown)
            checked += 1
    assert checked >= 4


def test_the_lab_example_lines_are_the_runs(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch,
                                           tmp_path: Path) -> None:
    """docs/lab.md's example hand lines are the first lines `simulate --game luzak --players
    greedy,random` writes (seed 1)."""
    after = LAB.split("`dominolab simulate --game luzak --players greedy,random`):", 1)[1]
    shown = after.split("```\n", 1)[1].split("```", 1)[0].splitlines()
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--game", "luzak", "--players", "greedy,random", "--matches", "1",
                 "--out", "x.jsonl"]) == 0
    written = (tmp_path / "x.jsonl").read_text(encoding="utf-8").splitlines()
    assert shown == written[1:1 + len(shown)]
