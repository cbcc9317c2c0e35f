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
