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
